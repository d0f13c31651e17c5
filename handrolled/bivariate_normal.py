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

The sweep is a numba kernel fed with pre-drawn standard normals: every chain
draws its normals from its own Generator, and the kernel is a plain function of
its inputs that can be checked against the formulas above line by line.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import njit

from handrolled._common import chain_rngs
from pairdata.bivariate_normal import validate_data
from pairdata.checks import check_sampler_args

OVERDISPERSION = 3.0
"""Starting points are drawn from the target with sds scaled by this factor."""


def covariance(data: Mapping) -> np.ndarray:
    """Return the target covariance matrix, shape (2, 2)."""
    d = validate_data(data)
    s1, s2 = d["sigma"]
    c = d["rho"] * s1 * s2
    return np.array([[s1**2, c], [c, s2**2]])


@njit(cache=True)
def x1_given_x2(x2, mu, sigma, rho):
    r"""Return mean and sd of :math:`x_1 \mid x_2`."""
    mean = mu[0] + rho * sigma[0] / sigma[1] * (x2 - mu[1])
    return mean, np.sqrt(1.0 - rho**2) * sigma[0]


@njit(cache=True)
def x2_given_x1(x1, mu, sigma, rho):
    r"""Return mean and sd of :math:`x_2 \mid x_1`."""
    mean = mu[1] + rho * sigma[1] / sigma[0] * (x1 - mu[0])
    return mean, np.sqrt(1.0 - rho**2) * sigma[1]


@njit(cache=True)
def gibbs_chain(x2_start, normals, mu, sigma, rho, tune, out):
    r"""Run one chain of systematic-scan Gibbs sweeps.

    Parameters
    ----------
    x2_start : float
        Starting value of :math:`x_2` (the first sweep draws :math:`x_1 \mid x_2`).
    normals : ndarray, shape (tune + draws, 2)
        Pre-drawn standard normals, one pair per sweep.
    mu, sigma : ndarray, shape (2,)
    rho : float
    tune : int
        Sweeps run and discarded before the kept ones.
    out : ndarray, shape (draws, 2)
        Filled with the kept draws.
    """
    x2 = x2_start
    for t in range(normals.shape[0]):
        mean, sd = x1_given_x2(x2, mu, sigma, rho)
        x1 = mean + sd * normals[t, 0]
        mean, sd = x2_given_x1(x1, mu, sigma, rho)
        x2 = mean + sd * normals[t, 1]
        if t >= tune:
            out[t - tune, 0] = x1
            out[t - tune, 1] = x2


def sample_x1_given_x2(x2: float, data: Mapping, rng: np.random.Generator) -> float:
    r"""Draw one :math:`x_1 \sim P(x_1 \mid x_2)` (the kernel's first half-step)."""
    d = validate_data(data)
    mean, sd = x1_given_x2(float(x2), d["mu"], d["sigma"], d["rho"])
    return mean + sd * rng.standard_normal()


def sample_x2_given_x1(x1: float, data: Mapping, rng: np.random.Generator) -> float:
    r"""Draw one :math:`x_2 \sim P(x_2 \mid x_1)` (the kernel's second half-step)."""
    d = validate_data(data)
    mean, sd = x2_given_x1(float(x1), d["mu"], d["sigma"], d["rho"])
    return mean + sd * rng.standard_normal()


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the bivariate normal by systematic-scan Gibbs.

    Parameters
    ----------
    data : mapping
        ``mu`` (2,), ``sigma`` (2,), ``rho`` (see :func:`default_data`).
    draws, tune, chains : int
        Kept sweeps per chain, discarded sweeps per chain, number of chains.
    random_seed : int or None
        Seed of the per-chain Generators.

    Returns
    -------
    dict
        ``{"x": ndarray of shape (chains, draws, 2)}``.
    """
    d = validate_data(data)
    check_sampler_args(draws, tune, chains, random_seed)
    x = np.empty((chains, draws, 2))
    for chain, rng in enumerate(chain_rngs(random_seed, chains)):
        x2_start = d["mu"][1] + OVERDISPERSION * d["sigma"][1] * rng.standard_normal()
        normals = rng.standard_normal((tune + draws, 2))
        gibbs_chain(x2_start, normals, d["mu"], d["sigma"], d["rho"], tune, x[chain])
    return {"x": x}
