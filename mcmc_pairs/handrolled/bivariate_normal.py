r"""Two-dimensional Gibbs sampling of a bivariate normal (seed 003, "二维Gibbs采样").

The target is :math:`N(\mu, \Sigma)` with :math:`\mu = (5, -1)`,
:math:`\sigma = (1, 2)`, :math:`\rho = 0.5`, so

.. math::

    \Sigma = \begin{pmatrix} \sigma_1^2 & \rho\sigma_1\sigma_2 \\
                             \rho\sigma_1\sigma_2 & \sigma_2^2 \end{pmatrix}
           = \begin{pmatrix} 1 & 1 \\ 1 & 4 \end{pmatrix}.

(The seed's ``samplesource`` line writes ``cov=[[1, 0.5], [0.5, 2]]``, which is
not this matrix: it is only used there to draw the density surface. Its Gibbs
code samples the matrix above, and so does this module.)

The seed's two full conditionals, one function each:

.. math::

    P(x_1 \mid x_2) = N\big(\mu_1 + \rho\sigma_1/\sigma_2\,(x_2 - \mu_2),\;
                            (1 - \rho^2)\sigma_1^2\big)

    P(x_2 \mid x_1) = N\big(\mu_2 + \rho\sigma_2/\sigma_1\,(x_1 - \mu_1),\;
                            (1 - \rho^2)\sigma_2^2\big)

A systematic scan draws :math:`x_1 \mid x_2` then :math:`x_2 \mid x_1`, as the
seed's code does. The kept :math:`x_1` chain is then AR(1) with coefficient
:math:`\rho^2`, so its ESS per draw is :math:`(1 - \rho^2) / (1 + \rho^2)`.

One function per formula: :func:`x1_given_x2` and :func:`x2_given_x1` return
the mean and sd of each conditional, :func:`sample_x1_given_x2` and
:func:`sample_x2_given_x1` draw from them given a standard normal.
:func:`gibbs_sweep` chains them as the seed's loop does (plain Python);
:func:`gibbs_kernel` runs a whole chain of the same sweeps compiled, on
pre-drawn standard normals, and is tested against :func:`gibbs_sweep` bit for
bit. Every chain draws its normals from its own Generator.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import njit

from mcmc_pairs.handrolled._common import chain_streams, map_chains, resume_state, save_state
from mcmc_pairs.pairdata.bivariate_normal import validate_data
from mcmc_pairs.pairdata.checks import check_sampler_args

OVERDISPERSION = 3.0
"""Starting points are drawn from the target with sds scaled by this factor."""


def covariance(data: Mapping) -> np.ndarray:
    """Return the target covariance matrix.

    Parameters
    ----------
    data : mapping
        ``mu`` (2,), ``sigma`` (2,), ``rho`` (validated here).

    Returns
    -------
    ndarray, shape (2, 2)
        ``[[s1**2, rho s1 s2], [rho s1 s2, s2**2]]``.
    """
    d = validate_data(data)
    s1, s2 = d["sigma"]
    c = d["rho"] * s1 * s2
    return np.array([[s1**2, c], [c, s2**2]])


# ------------------------------------------------------------ full conditionals


@njit(cache=True)
def x1_given_x2(x2: float, mu: np.ndarray, sigma: np.ndarray, rho: float) -> tuple[float, float]:
    r"""Return mean and sd of :math:`P(x_1 \mid x_2)`, the seed's ``p_xgiveny``.

    .. math::

        x_1 \mid x_2 \sim N\big(\mu_1 + \rho\,\sigma_1/\sigma_2\,(x_2 - \mu_2),\;
                                (1 - \rho^2)\,\sigma_1^2\big)

    Parameters
    ----------
    x2 : float
        Current :math:`x_2`.
    mu, sigma : ndarray, shape (2,)
        Means and sds of the target.
    rho : float
        Correlation of the target.

    Returns
    -------
    tuple of float
        ``(mean, sd)``.
    """
    mean = mu[0] + rho * sigma[0] / sigma[1] * (x2 - mu[1])
    return mean, np.sqrt(1.0 - rho**2) * sigma[0]


@njit(cache=True)
def x2_given_x1(x1: float, mu: np.ndarray, sigma: np.ndarray, rho: float) -> tuple[float, float]:
    r"""Return mean and sd of :math:`P(x_2 \mid x_1)`, the seed's ``p_ygivenx``.

    .. math::

        x_2 \mid x_1 \sim N\big(\mu_2 + \rho\,\sigma_2/\sigma_1\,(x_1 - \mu_1),\;
                                (1 - \rho^2)\,\sigma_2^2\big)

    Parameters
    ----------
    x1 : float
        Current :math:`x_1`.
    mu, sigma : ndarray, shape (2,)
        Means and sds of the target.
    rho : float
        Correlation of the target.

    Returns
    -------
    tuple of float
        ``(mean, sd)``.
    """
    mean = mu[1] + rho * sigma[1] / sigma[0] * (x1 - mu[0])
    return mean, np.sqrt(1.0 - rho**2) * sigma[1]


@njit(cache=True)
def sample_x1_given_x2(x2: float, mu: np.ndarray, sigma: np.ndarray, rho: float, z: float) -> float:
    r"""Draw :math:`x_1 \sim P(x_1 \mid x_2)` (:func:`x1_given_x2`) as ``mean + sd * z``.

    Parameters
    ----------
    x2 : float
        Current :math:`x_2`.
    mu, sigma : ndarray, shape (2,)
    rho : float
    z : float
        A standard normal draw.

    Returns
    -------
    float
    """
    mean, sd = x1_given_x2(x2, mu, sigma, rho)
    return mean + sd * z


@njit(cache=True)
def sample_x2_given_x1(x1: float, mu: np.ndarray, sigma: np.ndarray, rho: float, z: float) -> float:
    r"""Draw :math:`x_2 \sim P(x_2 \mid x_1)` (:func:`x2_given_x1`) as ``mean + sd * z``.

    Parameters
    ----------
    x1 : float
        Current :math:`x_1`.
    mu, sigma : ndarray, shape (2,)
    rho : float
    z : float
        A standard normal draw.

    Returns
    -------
    float
    """
    mean, sd = x2_given_x1(x1, mu, sigma, rho)
    return mean + sd * z


# ------------------------------------------------------------------- the sweep


def gibbs_sweep(
    x2: float, mu: np.ndarray, sigma: np.ndarray, rho: float, z: np.ndarray
) -> tuple[float, float]:
    r"""One systematic-scan sweep, the body of the seed's loop (plain Python).

    ``x = p_xgiveny(y, ...)`` then ``y = p_ygivenx(x, ...)``: draw
    :math:`x_1 \mid x_2`, then :math:`x_2` given the new :math:`x_1`.

    Parameters
    ----------
    x2 : float
        Current :math:`x_2` (the sweep does not read the current :math:`x_1`).
    mu, sigma : ndarray, shape (2,)
    rho : float
    z : ndarray, shape (2,)
        Standard normal draws for :math:`x_1` and :math:`x_2`.

    Returns
    -------
    tuple of float
        The new ``(x1, x2)``.
    """
    x1 = sample_x1_given_x2(x2, mu, sigma, rho, z[0])
    x2 = sample_x2_given_x1(x1, mu, sigma, rho, z[1])
    return x1, x2


@njit(cache=True, nogil=True)
def gibbs_kernel(
    x2: float,
    normals: np.ndarray,
    mu: np.ndarray,
    sigma: np.ndarray,
    rho: float,
    tune: int,
    out: np.ndarray,
) -> None:
    r"""Run one chain of :func:`gibbs_sweep` (compiled), the same bit for bit.

    Parameters
    ----------
    x2 : float
        Starting value of :math:`x_2`.
    normals : ndarray, shape (tune + draws, 2)
        Pre-drawn standard normals, one row per sweep.
    mu, sigma : ndarray, shape (2,)
    rho : float
    tune : int
        Sweeps run and discarded before the kept ones.
    out : ndarray, shape (draws, 2)
        Filled with the kept states ``(x1, x2)``.
    """
    for t in range(normals.shape[0]):
        x1 = sample_x1_given_x2(x2, mu, sigma, rho, normals[t, 0])
        x2 = sample_x2_given_x1(x1, mu, sigma, rho, normals[t, 1])
        if t >= tune:
            out[t - tune, 0] = x1
            out[t - tune, 1] = x2


# --------------------------------------------------------------------- sampler


SAMPLER = "mcmc_pairs.handrolled.bivariate_normal:sample"
"""Name under which :func:`sample` writes its ``state``."""


def sample(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
    cores: int | None = None,
) -> dict[str, np.ndarray]:
    """Sample the bivariate normal by systematic-scan Gibbs.

    Chain ``c`` draws, from its own stream, a dispersed start
    ``x2 ~ N(mu2, (OVERDISPERSION * sigma2)**2)``, then ``(tune + draws, 2)``
    standard normals for :func:`gibbs_kernel`.

    Parameters
    ----------
    data : mapping
        ``mu`` (2,), ``sigma`` (2,), ``rho``.
    draws, tune, chains : int
        Kept sweeps per chain, discarded sweeps per chain, number of chains.
    random_seed : int or None
        Seed of the per-chain Generators.
    state : dict, optional
        Continue chains (the protocol of :mod:`mcmc_pairs.handrolled._common`): keys
        ``x2`` (chains,), each chain's last :math:`x_2` (a sweep does not read
        :math:`x_1`), and ``rngs``. A continuation draws the next
        ``(tune + draws, 2)`` normals of each chain's stream, so two calls give
        the draws of one longer call bit for bit.
    cores : int or None
        Chains run in parallel on up to this many threads (default: every
        available core, :func:`mcmc_pairs.handrolled._common.map_chains`); the draws are
        the same bit for bit whatever ``cores`` is.

    Returns
    -------
    dict
        ``{"x": ndarray of shape (chains, draws, 2)}``.
    """
    d = validate_data(data)
    check_sampler_args(draws, tune, chains, random_seed)
    resumed = resume_state(state, SAMPLER, chains, ("x2", "rngs"))
    rngs = chain_streams(random_seed, chains, resumed)
    x = np.empty((chains, draws, 2))

    def run(chain: int) -> None:
        rng = rngs[chain]
        if resumed is None:
            x2_start = d["mu"][1] + OVERDISPERSION * d["sigma"][1] * rng.standard_normal()
        else:
            x2_start = float(resumed["x2"][chain])
        normals = rng.standard_normal((tune + draws, 2))
        gibbs_kernel(x2_start, normals, d["mu"], d["sigma"], d["rho"], tune, x[chain])

    map_chains(run, chains, cores, steps=tune + draws)
    save_state(state, SAMPLER, chains, x2=x[:, -1, 1].copy(), rngs=rngs)
    return {"x": x}
