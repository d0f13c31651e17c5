"""Pair ``regression``: weight on height by Gibbs (one at a time, and blocked) against NUTS.

The exact reference comes from 1-D quadrature over ``sigma2``
(:func:`exact_marginals`): both sides are checked against the exact means, sds
and quantiles of ``beta0``, ``beta1`` and ``sigma2``, and against the exact
covariances (the means of the harness's centred products). It is written here,
apart from the hand-written sampler (:mod:`mcmc_pairs.handrolled.regression`) and the
PyMC model (:mod:`mcmc_pairs.models.regression`): the three share only the data
(:mod:`mcmc_pairs.pairdata.regression`).

NUTS runs with nutpie's low-rank mass-matrix adaptation: on ``women`` the
posterior correlation of ``beta0`` and ``beta1`` is about -0.998, and with the
default diagonal adaptation NUTS gets only ~550 bulk ESS from 4 x 1000 draws
(measured), close to the 400 gate; low-rank adaptation learns the correlated
direction and gets ~4000.

Validation under a proper, moderate prior
-----------------------------------------
The seed's prior (``m0 = m1 = 1e6``, ``epsilon = 1e-3``) is so wide that data
simulated from it are absurd (weights of +-1000 pounds, noise variances from
1e-300 to 1e300) and ``sigma2`` has no finite mean. Geweke's test and SBC
therefore use

    beta0 ~ N(0, 1),   beta1 ~ N(0, 1),   sigma2 ~ InvGamma(5, 5)

(:data:`REGRESSION_PRIOR`; ``sigma2`` has prior mean 1.25 and finite moments up
to order 4, so the second-moment test functions of Geweke's test have finite
variance) and a small design, five of ``women``'s heights in feet above five
feet (:data:`REGRESSION_HEIGHTS`, 58 to 70 inches: off-centre, so ``beta0`` and
``beta1`` stay correlated). With all 15 heights in inches the data pin
``beta0 + 65 beta1`` down about a hundred times more tightly than the prior,
and Geweke's successive-conditional chain (which moves theta only by a
posterior width per step) had a bulk ESS of about 11 out of 2,000 steps for
``beta1`` (measured): its MCSE could not be trusted and correct samplers failed
in 1 of 5 runs. With this design the chain mixes in a few steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from mcmc_pairs.comparisons.pair import ExactMarginal, Pair, PlantedShifts
from mcmc_pairs.pairdata.regression import default_data, validate_data

if TYPE_CHECKING:
    import xarray as xr
    from numpy.typing import ArrayLike

REGRESSION_PRIOR = {"m0": 1.0, "m1": 1.0, "epsilon": 5.0}
"""Prior variances of ``beta0`` and ``beta1`` and the inverse-gamma shape and scale
used for validation (see the module docstring)."""
REGRESSION_HEIGHTS = (np.array([58.0, 61.0, 64.0, 67.0, 70.0]) - 60.0) / 12.0
"""Validation design: five of ``women``'s heights, in feet above five feet, shape (5,)."""


# ---------------------------------------------------------------- exact answer


class _Statistics(NamedTuple):
    """The data's centred sums: ``n``, the means, and the sums of squares and products."""

    n: float
    xbar: float
    ybar: float
    sxx: float
    sxy: float
    syy: float

    @classmethod
    def of(cls, data: Mapping) -> _Statistics:
        """Compute them from validated data (``height`` and ``weight``, shape (N,))."""
        dx = data["height"] - data["height"].mean()
        dy = data["weight"] - data["weight"].mean()
        return cls(
            float(dx.size),
            float(data["height"].mean()),
            float(data["weight"].mean()),
            float(dx @ dx),
            float(dx @ dy),
            float(dy @ dy),
        )


def log_posterior(
    beta0: ArrayLike, beta1: ArrayLike, sigma2: ArrayLike, data: Mapping
) -> np.ndarray:
    """Return the unnormalised log posterior density of ``(beta0, beta1, sigma2)``.

    ``-(N/2 + epsilon + 1) log sigma2 - (SSE/2 + epsilon) / sigma2
    - beta0**2 / (2 m0) - beta1**2 / (2 m1)``, a density in ``sigma2`` (not in
    ``log sigma2``), up to an additive constant.

    Parameters
    ----------
    beta0, beta1, sigma2 : array_like
        Broadcastable arrays of draws, ``sigma2 > 0``.
    data : mapping
        Regression data (validated here).

    Returns
    -------
    numpy.ndarray
        Broadcast shape of the inputs.
    """
    data = validate_data(data)
    s = _Statistics.of(data)
    beta0, beta1, sigma2 = (np.asarray(v, dtype=np.float64) for v in (beta0, beta1, sigma2))
    offset = s.ybar - beta0 - beta1 * s.xbar
    sse = s.syy - 2.0 * beta1 * s.sxy + beta1**2 * s.sxx + s.n * offset**2
    eps = data["epsilon"]
    return (
        -(0.5 * s.n + eps + 1.0) * np.log(sigma2)
        - (0.5 * sse + eps) / sigma2
        - 0.5 * beta0**2 / data["m0"]
        - 0.5 * beta1**2 / data["m1"]
    )


class Marginal(NamedTuple):
    """Exact summary of one scalar posterior quantity.

    Attributes
    ----------
    mean, sd : float or None
        None where the moment is not finite in the flat-prior limit.
    quantiles : dict of float to float
        Quantile by probability.
    pdf : callable
        ``pdf(x) -> density`` for a 1-D array ``x``.
    """

    mean: float | None
    sd: float | None
    quantiles: dict[float, float]
    pdf: Callable[[np.ndarray], np.ndarray]


_Moments = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""``(beta0, beta1) | sigma2``: mean0, mean1, var0, var1, cov01 and the precision's det."""


def _conditional_moments(sigma2: np.ndarray, stats: _Statistics, m0: float, m1: float) -> _Moments:
    """Vectorised mean and covariance of ``(beta0, beta1) | sigma2``, shape (K,) each."""
    n, xbar, ybar, sxx, sxy = stats.n, stats.xbar, stats.ybar, stats.sxx, stats.sxy
    sum_xx = sxx + n * xbar * xbar
    sum_xy = sxy + n * xbar * ybar
    a = n / sigma2 + 1.0 / m0
    b = n * xbar / sigma2
    c = sum_xx / sigma2 + 1.0 / m1
    det = n * sxx / sigma2**2 + (n / m1 + sum_xx / m0) / sigma2 + 1.0 / (m0 * m1)
    mean0 = (n * (ybar * sxx - xbar * sxy) / sigma2**2 + n * ybar / (sigma2 * m1)) / det
    mean1 = (n * sxy / sigma2**2 + sum_xy / (sigma2 * m0)) / det
    return mean0, mean1, c / det, a / det, -b / det, det


def _log_marginal_sigma2(
    u: np.ndarray, stats: _Statistics, m0: float, m1: float, epsilon: float
) -> np.ndarray:
    """Unnormalised log density of ``u = log sigma2`` with ``beta`` integrated out."""
    sigma2 = np.exp(u)
    mean0, mean1, _, _, _, det = _conditional_moments(sigma2, stats, m0, m1)
    n = stats.n
    offset = stats.ybar - mean0 - mean1 * stats.xbar
    sse = stats.syy - 2.0 * mean1 * stats.sxy + mean1**2 * stats.sxx + n * offset**2
    quad = sse / sigma2 + mean0**2 / m0 + mean1**2 / m1
    # log p(w | sigma2) = -N/2 log sigma2 - log|Lambda|/2 - quad/2 + const; prior
    # InvGamma(eps, eps) in sigma2; Jacobian d sigma2 / du = sigma2.
    return -0.5 * n * u - 0.5 * np.log(det) - 0.5 * quad - epsilon * u - epsilon / sigma2


class _Grid(NamedTuple):
    """The marginal posterior of ``u = log sigma2`` on a uniform grid."""

    u: np.ndarray  # (K,) grid in log sigma2
    weights: np.ndarray  # (K,) quadrature weights of the posterior, summing to one
    density: np.ndarray  # (K,) normalised density of u
    log_norm: float  # log normalising constant of _log_marginal_sigma2
    logp: Callable[[np.ndarray], np.ndarray]  # unnormalised log density of u
    moments: _Moments  # _conditional_moments at every grid point
    finite_mean: bool  # E[sigma2] is finite in the flat-prior limit
    finite_sd: bool  # and so is Var[sigma2]


def _sigma2_grid(data: Mapping, n_grid: int) -> _Grid:
    from scipy import special

    data = validate_data(data)
    s = _Statistics.of(data)
    m0, m1, eps = data["m0"], data["m1"], data["epsilon"]
    n = s.n

    def logp(u: np.ndarray) -> np.ndarray:
        return _log_marginal_sigma2(u, s, m0, m1, eps)

    # Start near the residual variance, then keep the range where the density
    # exceeds exp(-60) of its maximum.
    resid = max(s.syy - s.sxy**2 / s.sxx, 1e-12 * s.syy, np.finfo(float).tiny)
    coarse = math.log(resid / n) + np.linspace(-200.0, 200.0, 40001)
    lp = logp(coarse)
    inside = np.flatnonzero(lp > np.max(lp) - 60.0)
    lo, hi = coarse[max(inside[0] - 1, 0)], coarse[min(inside[-1] + 1, coarse.size - 1)]
    u = np.linspace(lo, hi, n_grid)
    h = u[1] - u[0]
    lp = logp(u)
    log_norm = float(special.logsumexp(lp) + math.log(h))
    density = np.exp(lp - log_norm)
    weights = density / density.sum()  # trapezoid rule: the ends are ~0
    shape_eff = eps + 0.5 * (n - 2.0)
    return _Grid(
        u=u,
        weights=weights,
        density=density,
        log_norm=log_norm,
        logp=logp,
        moments=_conditional_moments(np.exp(u), s, m0, m1),
        finite_mean=shape_eff > 1,
        finite_sd=shape_eff > 2,
    )


def _mixture_pdf(
    mu: np.ndarray, sd: np.ndarray, w: np.ndarray
) -> Callable[[np.ndarray], np.ndarray]:
    def pdf(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        flat = x.reshape(-1)
        result = np.empty(flat.shape)
        for start in range(0, flat.size, 256):
            z = (flat[start : start + 256, None] - mu) / sd
            result[start : start + 256] = (np.exp(-0.5 * z * z) / sd) @ w
        return result.reshape(x.shape) / math.sqrt(2.0 * math.pi)

    return pdf


def _mixture_quantiles(
    w: np.ndarray,
    mu: np.ndarray,
    sdk: np.ndarray,
    mean: float,
    sd: float,
    probs: Sequence[float],
) -> dict[float, float]:
    """Quantiles of the normal mixture ``sum_k w_k N(mu_k, sdk_k**2)`` (mean, sd), by Brent."""
    from scipy import optimize, special

    def cdf(q: float) -> float:
        return float(w @ special.ndtr((q - mu) / sdk))

    return {
        p: float(
            optimize.brentq(
                lambda q, p=p: cdf(q) - p,
                mean - 40 * sd,
                mean + 40 * sd,
                xtol=1e-12 * (abs(mean) + sd),
                rtol=1e-14,
            )
        )
        for p in probs
    }


def exact_marginals(
    data: Mapping, probs: tuple[float, ...] = (0.05, 0.5, 0.95), n_grid: int = 20001
) -> dict[str, Marginal]:
    """Return the exact marginal posteriors of ``beta0``, ``beta1`` and ``sigma2``.

    ``(beta0, beta1) | sigma2`` is bivariate normal,
    so integrating it out leaves a 1-D density for ``u = log sigma2``:
    ``log p(u | w) = -(N/2 + epsilon) u - epsilon / sigma2 - log|Lambda(sigma2)| / 2
    - (SSE(mu) / sigma2 + mu0**2 / m0 + mu1**2 / m1) / 2 + const``, with
    ``mu(sigma2)`` and ``Lambda(sigma2)`` the conditional mean and precision.
    It is evaluated on a uniform grid over the range where it exceeds
    ``exp(-60)`` of its maximum and integrated by the trapezoid rule
    (exponentially accurate for a smooth density that vanishes at both ends).
    Each ``beta`` marginal is the resulting mixture of normals: its mean is
    ``E[mu(sigma2)]``, its variance ``E[var(sigma2)] + Var[mu(sigma2)]``, its
    quantiles solve ``sum_k w_k Phi((q - mu_k) / sd_k) = p``. ``sigma2``
    quantiles come from the cumulative trapezoid sum.

    The mean of ``sigma2`` is returned only when ``epsilon + (N - 2)/2 > 1`` and
    its sd when that exceeds 2 (the conditions for them to be finite in the
    flat-prior limit; N >= 5 and N >= 7 with the default epsilon); otherwise None.

    Parameters
    ----------
    data : mapping
        Regression data (validated here).
    probs : tuple of float
        Quantile levels.
    n_grid : int
        Grid points in ``log sigma2``.

    Returns
    -------
    dict of str to Marginal
        Keys ``beta0``, ``beta1``, ``sigma2``.
    """
    grid = _sigma2_grid(data, n_grid)
    w = grid.weights
    mean0, mean1, v00, v11, _, _ = grid.moments
    out = {}
    for name, mu, var in (("beta0", mean0, v00), ("beta1", mean1, v11)):
        mean = float(w @ mu)
        sd = float(math.sqrt(w @ var + w @ (mu - mean) ** 2))
        sdk = np.sqrt(var)
        quantiles = _mixture_quantiles(w, mu, sdk, mean, sd, probs)
        out[name] = Marginal(mean, sd, quantiles, _mixture_pdf(mu, sdk, w))

    u, density = grid.u, grid.density
    sigma2 = np.exp(u)
    mean_s2 = float(w @ sigma2) if grid.finite_mean else None
    sd_s2 = float(math.sqrt(w @ (sigma2 - w @ sigma2) ** 2)) if grid.finite_sd else None
    cdf = np.concatenate(([0.0], np.cumsum(0.5 * (density[1:] + density[:-1]))))
    cdf /= cdf[-1]
    quantiles = {p: float(np.exp(np.interp(p, cdf, u))) for p in probs}

    def pdf_sigma2(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        result = np.zeros(x.shape)
        pos = x > 0
        ux = np.log(x[pos])
        result[pos] = np.exp(grid.logp(ux) - grid.log_norm - ux)
        return result

    out["sigma2"] = Marginal(mean_s2, sd_s2, quantiles, pdf_sigma2)
    return out


def exact_covariances(data: Mapping, n_grid: int = 20001) -> dict[str, float | None]:
    """Return the exact posterior covariances of the three variables, by the same quadrature.

    ``Cov(beta0, beta1) = E[C01(sigma2)] + Cov(mu0(sigma2), mu1(sigma2))`` and
    ``Cov(beta_j, sigma2) = Cov(mu_j(sigma2), sigma2)``, with ``mu`` and ``C`` the
    mean and covariance of ``(beta0, beta1) | sigma2`` (see :func:`exact_marginals`).

    Parameters
    ----------
    data : mapping
        Regression data (validated here).
    n_grid : int
        Grid points in ``log sigma2``.

    Returns
    -------
    dict of str to float or None
        Keys ``"beta0*beta1"``, ``"beta0*sigma2"``, ``"beta1*sigma2"`` (the names
        of the harness's centred products); the last two are None when
        ``E[sigma2]`` is not finite.
    """
    grid = _sigma2_grid(data, n_grid)
    w = grid.weights
    mean0, mean1, _, _, c01, _ = grid.moments
    d0 = mean0 - w @ mean0
    d1 = mean1 - w @ mean1
    sigma2 = np.exp(grid.u)
    ds = sigma2 - w @ sigma2
    return {
        "beta0*beta1": float(w @ c01 + w @ (d0 * d1)),
        "beta0*sigma2": float(w @ (d0 * ds)) if grid.finite_mean else None,
        "beta1*sigma2": float(w @ (d1 * ds)) if grid.finite_mean else None,
    }


# ------------------------------------------------------------- compared


def log_density(posterior: xr.Dataset, data: Mapping, centers: Mapping) -> dict[str, xr.DataArray]:
    """Return ``{"logp": log p(beta0, beta1, sigma2 | data) + const}`` of every draw.

    Parameters
    ----------
    posterior : xarray.Dataset
        ``beta0``, ``beta1``, ``sigma2`` with dims ``(chain, draw)``.
    data : mapping
        Regression data.
    centers : mapping
        Unused (the log density needs no centring).

    Returns
    -------
    dict of str to xarray.DataArray
        ``logp`` with dims ``(chain, draw)``; see :func:`log_posterior`.
    """
    import xarray as xr

    logp = xr.apply_ufunc(
        lambda b0, b1, s2: log_posterior(b0, b1, s2, data),
        posterior["beta0"],
        posterior["beta1"],
        posterior["sigma2"],
    )
    return {"logp": logp}


def log_likelihood(posterior: xr.Dataset, data: Mapping) -> xr.DataArray:
    """Return ``sum_i log N(weight_i | beta0 + beta1 height_i, sigma2)`` of every draw.

    Parameters
    ----------
    posterior : xarray.Dataset
        ``beta0``, ``beta1``, ``sigma2`` with dims ``(chain, draw)``.
    data : mapping
        Regression data (``height``, ``weight``).

    Returns
    -------
    xarray.DataArray
        Dims ``(chain, draw)``.
    """
    import xarray as xr

    height = np.asarray(data["height"], dtype=float)
    weight = np.asarray(data["weight"], dtype=float)

    def loglik(b0: np.ndarray, b1: np.ndarray, s2: np.ndarray) -> np.ndarray:
        resid = weight - (b0[..., None] + b1[..., None] * height)
        sse = (resid**2).sum(axis=-1)
        return -0.5 * (len(weight) * np.log(2 * math.pi * s2) + sse / s2)

    return xr.apply_ufunc(
        loglik, posterior["beta0"], posterior["beta1"], posterior["sigma2"]
    ).transpose("chain", "draw")


def exact(data: Mapping) -> dict[str, ExactMarginal]:
    """Exact marginals of ``beta0``, ``beta1``, ``sigma2`` and the exact covariances.

    Parameters
    ----------
    data : mapping
        Regression data.

    Returns
    -------
    dict of str to ExactMarginal
        ``beta0``, ``beta1``, ``sigma2`` (mean, sd, quantiles, pdf) and
        ``beta0*beta1``, ``beta0*sigma2``, ``beta1*sigma2`` (mean only: the
        covariance, which is the mean of the centred product when the centres
        are the exact means).
    """
    out = {
        name: ExactMarginal(mean=m.mean, sd=m.sd, quantiles=m.quantiles, pdf=m.pdf)
        for name, m in exact_marginals(data).items()
    }
    for name, cov in exact_covariances(data).items():
        if cov is not None:
            out[name] = ExactMarginal(mean=cov)
    return out


# ------------------------------------------------------------- validation


def validation_data() -> dict:
    """Return :data:`REGRESSION_HEIGHTS` with :data:`REGRESSION_PRIOR`, and one simulated weight.

    Returns
    -------
    dict
        ``height`` (5,), ``weight`` (5,) simulated from the prior (seed 0),
        ``m0``, ``m1``, ``epsilon``.
    """
    data = {"height": REGRESSION_HEIGHTS.copy(), **REGRESSION_PRIOR}
    rng = np.random.default_rng(0)
    return simulate(data, prior(data, rng), rng)


def prior(data: Mapping, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Draw ``beta0 ~ N(0, m0)``, ``beta1 ~ N(0, m1)``, ``sigma2 ~ InvGamma(epsilon, epsilon)``.

    Parameters
    ----------
    data : mapping
        Uses ``m0``, ``m1`` (variances) and ``epsilon`` (shape and scale).
    rng : numpy.random.Generator

    Returns
    -------
    dict of str to ndarray
        ``beta0``, ``beta1``, ``sigma2``, each of shape ().
    """
    m0, m1, eps = (float(data[k]) for k in ("m0", "m1", "epsilon"))
    beta0 = np.sqrt(m0) * rng.standard_normal()
    beta1 = np.sqrt(m1) * rng.standard_normal()
    sigma2 = 1.0 / rng.gamma(eps, 1.0 / eps)  # 1 / Gamma(shape eps, rate eps)
    return {"beta0": np.asarray(beta0), "beta1": np.asarray(beta1), "sigma2": np.asarray(sigma2)}


def simulate(data: Mapping, params: Mapping, rng: np.random.Generator) -> dict:
    """Draw ``weight_i ~ N(beta0 + beta1 height_i, sigma2)`` at the data's heights.

    Parameters
    ----------
    data : mapping
        Regression data; ``height`` (N,) is kept, ``weight`` replaced.
    params : mapping
        ``beta0``, ``beta1``, ``sigma2`` (scalars).
    rng : numpy.random.Generator

    Returns
    -------
    dict
        A copy of ``data`` with a new ``weight`` (N,).
    """
    height = np.asarray(data["height"], dtype=float)
    mean = float(params["beta0"]) + float(params["beta1"]) * height
    weight = mean + np.sqrt(float(params["sigma2"])) * rng.standard_normal(height.shape)
    return {**data, "weight": weight}


PAIR = Pair(
    name="regression",
    title="Weight on height: Gibbs by full conditionals, one at a time and blocked",
    seed="000_c903dc61037307e8.txt",
    load_data=default_data,
    model="mcmc_pairs.models.regression:build_model",
    handrolled={
        "gibbs": "mcmc_pairs.handrolled.regression:sample",
        "blocked": "mcmc_pairs.handrolled.regression:sample_blocked",
    },
    variables=("beta0", "beta1", "sigma2"),
    derived=log_density,
    reference=exact,
    pymc_kwargs={"nuts": {"adaptation": "low_rank"}},
    validation_data=validation_data,
    prior=prior,
    simulate=simulate,
    log_likelihood=log_likelihood,
    wrong={
        "blocked_rate_as_scale": (
            "mcmc_pairs.handrolled.wrong_samplers:regression_blocked_rate_as_scale"
        ),
        "blocked_sse_not_halved": (
            "mcmc_pairs.handrolled.wrong_samplers:regression_blocked_sse_not_halved"
        ),
        "gibbs_variance_as_sd": (
            "mcmc_pairs.handrolled.wrong_samplers:regression_gibbs_variance_as_sd"
        ),
    },
    planted=PlantedShifts(("beta0", ()), ("beta1", ())),
)
