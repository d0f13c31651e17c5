r"""Weight–height regression by Gibbs sampling over the full conditionals.

The first example of the seed ``000_c903dc61037307e8.txt``::

    weight_i = beta0 + beta1 * height_i + e_i,     e_i ~ N(0, sigma2)
    beta0 ~ N(0, m0),  beta1 ~ N(0, m1),  sigma2 ~ InvGamma(epsilon, epsilon)

with ``m0 = m1 = 1e6`` (prior *variances*, BUGS precision ``1e-6``) and
``epsilon = 1e-3``. Every full conditional is a standard distribution:

- ``beta0 | y, beta1, sigma2`` and ``beta1 | y, beta0, sigma2`` are normal
  (:func:`beta0_given_rest`, :func:`beta1_given_rest`);
- ``1 / sigma2 | y, beta0, beta1 ~ Gamma(epsilon + N/2, rate = epsilon + SSE/2)``
  (:func:`precision_given_rest`);
- ``(beta0, beta1) | y, sigma2`` is bivariate normal (:func:`beta_given_sigma2`,
  used by the blocked sampler).

Each ``<var>_given_<rest>`` returns the parameters of its conditional (the
formula); ``sample_<var>_given_<rest>`` draws from it given pre-drawn standard
normals or gammas. :func:`gibbs_sweep` and :func:`blocked_sweep` chain them in
plain Python as the seed's loop does; :func:`gibbs_kernel` and
:func:`blocked_kernel` run many sweeps compiled, and are tested against the
plain sweeps bit for bit.

Everything depends on the data only through six sufficient statistics
(:func:`sufficient_statistics`), so one Gibbs sweep costs O(1) whatever N is.

Two samplers with the contract's signature:

- :func:`sample`: the seed's one-at-a-time Gibbs sampler. Heights far from zero
  make ``beta0`` and ``beta1`` almost perfectly correlated (about -0.998 on
  ``women``), so it moves along the ridge in tiny steps; it runs ``thin`` sweeps
  per kept draw, with ``thin`` chosen from the data (:func:`default_thin`).
- :func:`sample_blocked`: draws ``(beta0, beta1)`` jointly, then ``sigma2``; it
  mixes well without thinning.

The data (``women``, ``Davis``) and their checks live in :mod:`mcmc_pairs.pairdata.regression`;
the exact posterior, by 1-D quadrature, in :mod:`mcmc_pairs.comparisons.pairs.regression`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping

import numpy as np
from numba import njit

from mcmc_pairs.handrolled._common import chain_streams, map_chains, resume_state, save_state
from mcmc_pairs.pairdata.checks import check_sampler_args
from mcmc_pairs.pairdata.regression import validate_data

VARIABLES = ("beta0", "beta1", "sigma2")
"""Posterior variables, all scalars."""

THIN_TARGET_AUTOCORRELATION = 0.1
"""Lag-1 autocorrelation of the kept ``beta`` draws that :func:`default_thin` aims at."""

MAX_THIN = 100_000
"""Upper bound on the thinning chosen by :func:`default_thin`."""

_CHUNK_SWEEPS = 1 << 20
"""Sweeps whose random numbers are drawn at once (bounds memory, not results)."""

SAMPLER = "mcmc_pairs.handrolled.regression:sample"
"""Name under which :func:`sample` writes its ``state``."""

SAMPLER_BLOCKED = "mcmc_pairs.handrolled.regression:sample_blocked"
"""Name under which :func:`sample_blocked` writes its ``state``."""

# Index of each sufficient statistic in the array made by sufficient_statistics.
_N, _XBAR, _YBAR, _SXX, _SXY, _SYY = range(6)


def sufficient_statistics(height: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Return the six numbers through which the likelihood depends on the data.

    Centred sums keep the arithmetic stable when heights are far from zero.

    Parameters
    ----------
    height, weight : numpy.ndarray
        Shape (N,).

    Returns
    -------
    numpy.ndarray
        Shape (6,): ``N``, ``mean(height)``, ``mean(weight)``,
        ``sum((h - hbar)**2)``, ``sum((h - hbar) * (w - wbar))``, ``sum((w - wbar)**2)``.
    """
    xbar = height.mean()
    ybar = weight.mean()
    dx = height - xbar
    dy = weight - ybar
    return np.array([height.size, xbar, ybar, dx @ dx, dx @ dy, dy @ dy], dtype=np.float64)


# ------------------------------------------------------------ full conditionals


@njit(cache=True)
def sse(beta0: float, beta1: float, stats: np.ndarray) -> float:
    """Return the sum of squared residuals ``sum((w - beta0 - beta1 * h)**2)``.

    Parameters
    ----------
    beta0, beta1 : float
        Intercept and slope.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.

    Returns
    -------
    float
        ``Syy - 2 beta1 Sxy + beta1**2 Sxx + N (wbar - beta0 - beta1 hbar)**2``
        in centred sums, O(1) in N.
    """
    offset = stats[_YBAR] - beta0 - beta1 * stats[_XBAR]
    return (
        stats[_SYY]
        - 2.0 * beta1 * stats[_SXY]
        + beta1 * beta1 * stats[_SXX]
        + stats[_N] * offset * offset
    )


@njit(cache=True)
def beta0_given_rest(
    beta1: float, sigma2: float, stats: np.ndarray, m0: float
) -> tuple[float, float]:
    r"""Return mean and sd of ``p(beta0 | y, beta1, sigma2)``, a normal.

    .. math::

        \beta_0 \mid y, \beta_1, \sigma^2 \sim N\Big(
            \frac{\sum_i (y_i - x_i\beta_1) / \sigma^2}{N/\sigma^2 + 1/m_0},\;
            \frac{1}{N/\sigma^2 + 1/m_0}\Big)
        \;\xrightarrow{m_0 \to \infty}\;
        N\Big(\frac{1}{N}\sum_i (y_i - x_i\beta_1),\; \frac{\sigma^2}{N}\Big),

    the seed's formula being the limit.

    Parameters
    ----------
    beta1, sigma2 : float
        Current slope and noise variance.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m0 : float
        Prior variance of ``beta0``.

    Returns
    -------
    tuple of float
        ``(mean, sd)``.
    """
    n = stats[_N]
    precision = n / sigma2 + 1.0 / m0
    mean = n * (stats[_YBAR] - beta1 * stats[_XBAR]) / sigma2 / precision
    return mean, math.sqrt(1.0 / precision)


@njit(cache=True)
def beta1_given_rest(
    beta0: float, sigma2: float, stats: np.ndarray, m1: float
) -> tuple[float, float]:
    r"""Return mean and sd of ``p(beta1 | y, beta0, sigma2)``, a normal.

    .. math::

        \beta_1 \mid y, \beta_0, \sigma^2 \sim N\Big(
            \frac{(\sum_i x_i y_i - \beta_0 \sum_i x_i) / \sigma^2}
                 {\sum_i x_i^2/\sigma^2 + 1/m_1},\;
            \frac{1}{\sum_i x_i^2/\sigma^2 + 1/m_1}\Big)
        \;\xrightarrow{m_1 \to \infty}\;
        N\Big(\frac{\sum_i x_i y_i - \beta_0 \sum_i x_i}{\sum_i x_i^2},\;
              \frac{\sigma^2}{\sum_i x_i^2}\Big),

    the seed's formula being the limit (the seed writes ``m0 -> inf``; it is ``m1``).

    Parameters
    ----------
    beta0, sigma2 : float
        Current intercept and noise variance.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m1 : float
        Prior variance of ``beta1``.

    Returns
    -------
    tuple of float
        ``(mean, sd)``.
    """
    n, xbar, ybar = stats[_N], stats[_XBAR], stats[_YBAR]
    sum_x = n * xbar
    sum_xx = stats[_SXX] + n * xbar * xbar
    sum_xy = stats[_SXY] + n * xbar * ybar
    precision = sum_xx / sigma2 + 1.0 / m1
    mean = (sum_xy - beta0 * sum_x) / sigma2 / precision
    return mean, math.sqrt(1.0 / precision)


@njit(cache=True)
def precision_given_rest(
    beta0: float, beta1: float, stats: np.ndarray, epsilon: float
) -> tuple[float, float]:
    r"""Return shape and *rate* of ``p(1 / sigma2 | y, beta0, beta1)``, a Gamma.

    .. math::

        1/\sigma^2 \mid y, \beta_0, \beta_1 \sim \Gamma(a, b), \qquad
        a = \epsilon + \frac{N}{2}, \quad b = \epsilon + \frac{1}{2}\sum_i e_i^2,

    as in the seed, with :math:`\sum_i e_i^2` from :func:`sse`.

    Parameters
    ----------
    beta0, beta1 : float
        Current intercept and slope.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    epsilon : float
        Shape and scale of the inverse-gamma prior of ``sigma2``.

    Returns
    -------
    tuple of float
        ``(a, b)``: shape and rate. NumPy's ``gamma`` takes a *scale*, ``1 / b``.
    """
    return epsilon + 0.5 * stats[_N], epsilon + 0.5 * sse(beta0, beta1, stats)


@njit(cache=True)
def beta_given_sigma2(
    sigma2: float, stats: np.ndarray, m0: float, m1: float
) -> tuple[float, float, float, float, float]:
    r"""Return ``p(beta0, beta1 | y, sigma2)``, a bivariate normal, as mean and Cholesky factor.

    .. math::

        (\beta_0, \beta_1) \mid y, \sigma^2 \sim N(\Lambda^{-1} X^\top y / \sigma^2,\;
        \Lambda^{-1}), \qquad
        \Lambda = X^\top X / \sigma^2 + \mathrm{diag}(1/m_0, 1/m_1),

    with ``X = [1, h]``. The determinant and the mean are written with centred
    sums, so nothing cancels when heights are far from zero. (The seed has no
    blocked step; this is the remedy for its slow one-at-a-time scan.)

    Parameters
    ----------
    sigma2 : float
        Current noise variance.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m0, m1 : float
        Prior variances of ``beta0`` and ``beta1``.

    Returns
    -------
    tuple of float
        ``(mean0, mean1, l11, l21, l22)``: the mean and the lower Cholesky
        factor ``L`` of the *precision*, ``Lambda = L L'``.
    """
    n, xbar, ybar = stats[_N], stats[_XBAR], stats[_YBAR]
    sxx, sxy = stats[_SXX], stats[_SXY]
    sum_xx = sxx + n * xbar * xbar
    sum_xy = sxy + n * xbar * ybar
    a = n / sigma2 + 1.0 / m0
    b = n * xbar / sigma2
    # det = a c - b^2 with c = sum_xx / sigma2 + 1 / m1, written without
    # cancellation: N sum_xx - (N xbar)^2 = N sxx.
    det = n * sxx / (sigma2 * sigma2) + (n / m1 + sum_xx / m0) / sigma2 + 1.0 / (m0 * m1)
    # (c h0 - b h1) and (a h1 - b h0) with h = X'w / sigma2, also without cancellation.
    num0 = n * (ybar * sxx - xbar * sxy) / (sigma2 * sigma2) + n * ybar / (sigma2 * m1)
    num1 = n * sxy / (sigma2 * sigma2) + sum_xy / (sigma2 * m0)
    l11 = math.sqrt(a)
    return num0 / det, num1 / det, l11, b / l11, math.sqrt(det / a)


@njit(cache=True)
def sample_beta0_given_rest(
    beta1: float, sigma2: float, stats: np.ndarray, m0: float, z: float
) -> float:
    """Draw ``beta0 ~ p(beta0 | y, beta1, sigma2)`` (:func:`beta0_given_rest`) as ``mean + sd * z``.

    Parameters
    ----------
    beta1, sigma2 : float
        Current slope and noise variance.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m0 : float
        Prior variance of ``beta0``.
    z : float
        A standard normal draw.

    Returns
    -------
    float
    """
    mean, sd = beta0_given_rest(beta1, sigma2, stats, m0)
    return mean + sd * z


@njit(cache=True)
def sample_beta1_given_rest(
    beta0: float, sigma2: float, stats: np.ndarray, m1: float, z: float
) -> float:
    """Draw ``beta1 ~ p(beta1 | y, beta0, sigma2)`` (:func:`beta1_given_rest`) as ``mean + sd * z``.

    Parameters
    ----------
    beta0, sigma2 : float
        Current intercept and noise variance.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m1 : float
        Prior variance of ``beta1``.
    z : float
        A standard normal draw.

    Returns
    -------
    float
    """
    mean, sd = beta1_given_rest(beta0, sigma2, stats, m1)
    return mean + sd * z


@njit(cache=True)
def sample_precision_given_rest(
    beta0: float, beta1: float, stats: np.ndarray, epsilon: float, g: float
) -> float:
    """Draw ``1 / sigma2 ~ Gamma(a, rate=b)`` (:func:`precision_given_rest`) as ``g * (1 / b)``.

    Parameters
    ----------
    beta0, beta1 : float
        Current intercept and slope.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    epsilon : float
        Shape and scale of the inverse-gamma prior of ``sigma2``.
    g : float
        A standard gamma draw with shape ``a = epsilon + N/2`` (``a`` does not
        change from sweep to sweep, so ``g`` can be drawn beforehand); times
        the scale ``1 / b`` it is NumPy's ``rng.gamma(a, 1 / b)``.

    Returns
    -------
    float
        The precision ``1 / sigma2``.
    """
    _, rate = precision_given_rest(beta0, beta1, stats, epsilon)
    return g * (1.0 / rate)


@njit(cache=True)
def sample_beta_given_sigma2(
    sigma2: float, stats: np.ndarray, m0: float, m1: float, z0: float, z1: float
) -> tuple[float, float]:
    """Draw ``(beta0, beta1) ~ p(beta0, beta1 | y, sigma2)`` (:func:`beta_given_sigma2`).

    The draw is ``mean + L'^{-1} (z0, z1)``, ``L`` the Cholesky factor of the precision.

    Parameters
    ----------
    sigma2 : float
        Current noise variance.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m0, m1 : float
        Prior variances of ``beta0`` and ``beta1``.
    z0, z1 : float
        Two standard normal draws.

    Returns
    -------
    tuple of float
        ``(beta0, beta1)``.
    """
    mean0, mean1, l11, l21, l22 = beta_given_sigma2(sigma2, stats, m0, m1)
    v1 = z1 / l22  # solve L' v = z, L' upper triangular
    v0 = (z0 - l21 * v1) / l11
    return mean0 + v0, mean1 + v1


# ------------------------------------------------------------------- sweeps


def gibbs_sweep(
    state: tuple[float, float, float],
    stats: np.ndarray,
    m0: float,
    m1: float,
    epsilon: float,
    z: np.ndarray,
    g: float,
) -> tuple[float, float, float]:
    """One sweep of the seed's Gibbs sampler (plain Python): beta0, beta1, then sigma2.

    Parameters
    ----------
    state : tuple of float
        Current ``(beta0, beta1, sigma2)``.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m0, m1, epsilon : float
        Priors.
    z : numpy.ndarray
        Shape (2,): standard normal draws for ``beta0`` and ``beta1``.
    g : float
        Standard gamma draw with shape ``epsilon + N/2``, for ``1 / sigma2``.

    Returns
    -------
    tuple of float
        The new ``(beta0, beta1, sigma2)``.
    """
    beta0, beta1, sigma2 = state
    beta0 = sample_beta0_given_rest(beta1, sigma2, stats, m0, z[0])
    beta1 = sample_beta1_given_rest(beta0, sigma2, stats, m1, z[1])
    sigma2 = 1.0 / sample_precision_given_rest(beta0, beta1, stats, epsilon, g)
    return beta0, beta1, sigma2


def blocked_sweep(
    state: tuple[float, float, float],
    stats: np.ndarray,
    m0: float,
    m1: float,
    epsilon: float,
    z: np.ndarray,
    g: float,
) -> tuple[float, float, float]:
    """One sweep of blocked Gibbs (plain Python): ``(beta0, beta1) | sigma2``, then sigma2.

    Parameters
    ----------
    state : tuple of float
        Current ``(beta0, beta1, sigma2)``.
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m0, m1, epsilon : float
        Priors.
    z : numpy.ndarray
        Shape (2,): standard normal draws for ``(beta0, beta1)``.
    g : float
        Standard gamma draw with shape ``epsilon + N/2``, for ``1 / sigma2``.

    Returns
    -------
    tuple of float
        The new ``(beta0, beta1, sigma2)``.
    """
    _, _, sigma2 = state
    beta0, beta1 = sample_beta_given_sigma2(sigma2, stats, m0, m1, z[0], z[1])
    sigma2 = 1.0 / sample_precision_given_rest(beta0, beta1, stats, epsilon, g)
    return beta0, beta1, sigma2


@njit(cache=True, nogil=True)
def gibbs_kernel(
    stats: np.ndarray,
    m0: float,
    m1: float,
    epsilon: float,
    state: np.ndarray,
    normals: np.ndarray,
    gammas: np.ndarray,
    thin: int,
    out: np.ndarray,
) -> None:
    """Run :func:`gibbs_sweep` ``T`` times (compiled), the same bit for bit.

    Parameters
    ----------
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    m0, m1, epsilon : float
        Priors.
    state : numpy.ndarray
        Shape (3,): ``beta0, beta1, sigma2``; updated in place.
    normals : numpy.ndarray
        Shape (T, 2), standard normal draws, row ``t`` for sweep ``t``.
    gammas : numpy.ndarray
        Shape (T,), standard gamma draws with shape ``epsilon + N/2``.
    thin : int
        Sweeps per stored state; ``T`` must be a multiple of it.
    out : numpy.ndarray
        Shape (T // thin, 3): the state after sweeps ``thin - 1, 2 thin - 1, ...``.
    """
    beta0, beta1, sigma2 = state[0], state[1], state[2]
    for t in range(normals.shape[0]):
        beta0 = sample_beta0_given_rest(beta1, sigma2, stats, m0, normals[t, 0])
        beta1 = sample_beta1_given_rest(beta0, sigma2, stats, m1, normals[t, 1])
        sigma2 = 1.0 / sample_precision_given_rest(beta0, beta1, stats, epsilon, gammas[t])
        if (t + 1) % thin == 0:
            k = t // thin
            out[k, 0] = beta0
            out[k, 1] = beta1
            out[k, 2] = sigma2
    state[0], state[1], state[2] = beta0, beta1, sigma2


@njit(cache=True, nogil=True)
def blocked_kernel(
    stats: np.ndarray,
    m0: float,
    m1: float,
    epsilon: float,
    state: np.ndarray,
    normals: np.ndarray,
    gammas: np.ndarray,
    thin: int,
    out: np.ndarray,
) -> None:
    """Run :func:`blocked_sweep` ``T`` times (compiled), the same bit for bit.

    Same arguments as :func:`gibbs_kernel`.
    """
    beta0, beta1, sigma2 = state[0], state[1], state[2]
    for t in range(normals.shape[0]):
        beta0, beta1 = sample_beta_given_sigma2(sigma2, stats, m0, m1, normals[t, 0], normals[t, 1])
        sigma2 = 1.0 / sample_precision_given_rest(beta0, beta1, stats, epsilon, gammas[t])
        if (t + 1) % thin == 0:
            k = t // thin
            out[k, 0] = beta0
            out[k, 1] = beta1
            out[k, 2] = sigma2
    state[0], state[1], state[2] = beta0, beta1, sigma2


# ----------------------------------------------------------------- samplers


def _check_settings(
    draws: int, tune: int, chains: int, random_seed: int | None, thin: object
) -> None:
    check_sampler_args(draws, tune, chains, random_seed)
    if thin is not None and (
        isinstance(thin, bool) or not isinstance(thin, numbers.Integral) or thin < 1
    ):
        raise ValueError(f"thin must be an integer >= 1 or None, got {thin!r}")


def conditional_correlation(data: Mapping) -> float:
    """Return the correlation of ``beta0`` and ``beta1`` given ``sigma2`` in the flat-prior limit.

    ``-sum(h) / sqrt(N sum(h**2))``, about -0.998 on ``women``. With finite
    prior variances the correlation is smaller in size for every ``sigma2``,
    so this is the worst case for the one-at-a-time sampler.

    Parameters
    ----------
    data : mapping
        Regression data (validated here).

    Returns
    -------
    float
    """
    data = validate_data(data)
    s = sufficient_statistics(data["height"], data["weight"])
    n, xbar = s[_N], s[_XBAR]
    return float(-xbar / math.sqrt(s[_SXX] / n + xbar * xbar))


def default_thin(data: Mapping) -> int:
    """Return the sweeps per kept draw of the one-at-a-time sampler :func:`sample`.

    With ``sigma2`` fixed, systematic-scan Gibbs on a bivariate normal with
    correlation ``rho`` makes each coordinate an AR(1) chain with lag-1
    autocorrelation ``rho**2``. Keeping every ``thin``-th sweep gives
    ``rho**(2 thin)``; this returns the smallest ``thin`` with
    ``rho**(2 thin) <= THIN_TARGET_AUTOCORRELATION`` (0.1, so the integrated
    autocorrelation time of the kept draws is about 1.2), using the flat-prior
    correlation of :func:`conditional_correlation` (the worst case), capped at
    :data:`MAX_THIN`. On ``women`` ``rho**2 = 0.9956`` and ``thin = 523``.

    Parameters
    ----------
    data : mapping
        Regression data (validated here).

    Returns
    -------
    int
    """
    rho2 = conditional_correlation(data) ** 2
    if rho2 <= THIN_TARGET_AUTOCORRELATION:
        return 1
    if rho2 >= 1.0:
        return MAX_THIN
    thin = math.ceil(math.log(THIN_TARGET_AUTOCORRELATION) / math.log(rho2))
    return int(min(max(thin, 1), MAX_THIN))


def initial_point(stats: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw a dispersed starting point around the least-squares fit.

    ``beta0`` and ``beta1`` are the least-squares estimates plus three standard
    errors times independent normals (so off the posterior ridge), ``sigma2``
    the residual variance times ``exp(N(0, 1))``.

    Parameters
    ----------
    stats : numpy.ndarray
        Shape (6,), from :func:`sufficient_statistics`.
    rng : numpy.random.Generator
        Uses three ``standard_normal()`` draws.

    Returns
    -------
    numpy.ndarray
        Shape (3,): ``beta0, beta1, sigma2``.
    """
    n, xbar, ybar, sxx, sxy, syy = stats
    b1 = sxy / sxx
    b0 = ybar - b1 * xbar
    s2 = max((syy - b1 * sxy) / max(n - 2.0, 1.0), 1e-8 * syy / n, np.finfo(float).tiny)
    se1 = math.sqrt(s2 / sxx)
    se0 = math.sqrt(s2 * (1.0 / n + xbar * xbar / sxx))
    z = rng.standard_normal(3)
    return np.array([b0 + 3.0 * se0 * z[0], b1 + 3.0 * se1 * z[1], s2 * math.exp(z[2])])


Kernel = Callable[
    [np.ndarray, float, float, float, np.ndarray, np.ndarray, np.ndarray, int, np.ndarray], None
]
"""A compiled chain of sweeps: :func:`gibbs_kernel`'s arguments, the state updated in place."""


def _run(
    kernel: Kernel,
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    thin: int,
    state: dict | None,
    sampler: str,
    cores: int | None = None,
) -> dict[str, np.ndarray]:
    data = validate_data(data)
    stats = sufficient_statistics(data["height"], data["weight"])
    m0, m1, epsilon = data["m0"], data["m1"], data["epsilon"]
    shape = epsilon + 0.5 * stats[_N]
    resumed = resume_state(state, sampler, chains, ("point", "rngs"))
    rngs = chain_streams(random_seed, chains, resumed)
    points = np.empty((chains, 3))
    out = np.empty((chains, draws, 3))
    per_chunk = max(1, _CHUNK_SWEEPS // thin)

    def run(chain: int) -> None:  # chain ``chain`` alone: its stream, its rows of out
        rng = rngs[chain]
        if resumed is None:
            point = initial_point(stats, rng)
        else:
            point = np.array(resumed["point"][chain], dtype=np.float64)
        for keep, n_kept in ((False, tune), (True, draws)):
            done = 0
            while done < n_kept:
                k = min(per_chunk, n_kept - done)
                normals = rng.standard_normal((k * thin, 2))
                gammas = rng.standard_gamma(shape, k * thin)
                target = out[chain, done : done + k] if keep else np.empty((k, 3))
                kernel(stats, m0, m1, epsilon, point, normals, gammas, thin, target)
                done += k
        points[chain] = point

    map_chains(run, chains, cores, steps=(tune + draws) * thin)
    save_state(state, sampler, chains, point=points, rngs=rngs)
    return {name: np.ascontiguousarray(out[..., i]) for i, name in enumerate(VARIABLES)}


def sample(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    thin: int | None = None,
    state: dict | None = None,
    cores: int | None = None,
) -> dict[str, np.ndarray]:
    """Sample the posterior with the seed's one-at-a-time Gibbs sampler.

    Each sweep draws ``beta0 | beta1, sigma2``, ``beta1 | beta0, sigma2`` and
    ``1 / sigma2 | beta0, beta1`` in turn. Because ``beta0`` and ``beta1`` are
    nearly collinear a posteriori, ``thin`` sweeps are run per kept draw (and
    per tuning draw): by default :func:`default_thin`, chosen from the data so
    that the kept draws are nearly independent.

    Parameters
    ----------
    data : mapping
        See :func:`validate_data`.
    draws : int
        Kept draws per chain, >= 1.
    tune : int
        Discarded draws per chain (each ``thin`` sweeps), >= 0.
    chains : int
        Number of chains, >= 1; chain ``c`` uses the ``c``-th stream spawned
        from ``random_seed`` and starts from :func:`initial_point`.
    random_seed : int or None
        Seed; the same seed gives the same draws bit for bit.
    thin : int, optional
        Sweeps per kept draw; None for :func:`default_thin`.
    state : dict, optional
        Continue chains (the protocol of :mod:`mcmc_pairs.handrolled._common`): keys
        ``point`` (chains, 3), each chain's last ``(beta0, beta1, sigma2)``
        (after its last sweep, thinned or not), and ``rngs``. A continuation
        runs ``tune`` and then ``draws`` thinned draws from that point on the
        chain's own stream: a valid continuation of the same chain but *not*
        bit for bit one longer run, because a run draws, per block of sweeps,
        all its normals and then all its gammas, so a run of ``a`` draws does
        not use the first gammas of a run of ``a + b``; no continuation could
        match without changing every run's draws.
    cores : int or None
        Chains run in parallel on up to this many threads (default: every
        available core, :func:`mcmc_pairs.handrolled._common.map_chains`); the draws are
        the same bit for bit whatever ``cores`` is.

    Returns
    -------
    dict of str to numpy.ndarray
        ``beta0``, ``beta1``, ``sigma2``, each shaped (chains, draws).
    """
    _check_settings(draws, tune, chains, random_seed, thin)
    data = validate_data(data)
    thin = default_thin(data) if thin is None else thin
    return _run(gibbs_kernel, data, draws, tune, chains, random_seed, thin, state, SAMPLER, cores)


def sample_blocked(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    thin: int = 1,
    state: dict | None = None,
    cores: int | None = None,
) -> dict[str, np.ndarray]:
    """Sample the posterior with blocked Gibbs: ``(beta0, beta1) | sigma2``, then ``sigma2``.

    Drawing the two coefficients jointly from their bivariate normal
    conditional removes their correlation from the chain, so no thinning is
    needed.

    Parameters
    ----------
    data : mapping
        See :func:`validate_data`.
    draws : int
        Kept draws per chain, >= 1.
    tune : int
        Discarded draws per chain, >= 0.
    chains : int
        Number of chains, >= 1, each with its own spawned stream.
    random_seed : int or None
        Seed; the same seed gives the same draws bit for bit.
    thin : int
        Sweeps per kept draw, >= 1.
    state : dict, optional
        Continue chains (the protocol of :mod:`mcmc_pairs.handrolled._common`): keys
        ``point`` and ``rngs``, as in :func:`sample`. A continuation
        runs ``tune`` and then ``draws`` thinned draws from that point on the
        chain's own stream: a valid continuation of the same chain but *not*
        bit for bit one longer run, because a run draws, per block of sweeps,
        all its normals and then all its gammas, so a run of ``a`` draws does
        not use the first gammas of a run of ``a + b``; no continuation could
        match without changing every run's draws.
    cores : int or None
        Chains run in parallel on up to this many threads (default: every
        available core, :func:`mcmc_pairs.handrolled._common.map_chains`); the draws are
        the same bit for bit whatever ``cores`` is.

    Returns
    -------
    dict of str to numpy.ndarray
        ``beta0``, ``beta1``, ``sigma2``, each shaped (chains, draws).
    """
    _check_settings(draws, tune, chains, random_seed, thin)
    return _run(
        blocked_kernel, data, draws, tune, chains, random_seed, thin, state, SAMPLER_BLOCKED, cores
    )
