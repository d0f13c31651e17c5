"""Pair ``bivariate_normal``: Gibbs by the seed's two conditionals against NUTS on an MvNormal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from mcmc_pairs.comparisons.pair import PROBS, ExactMarginal, Pair, PlantedShifts
from mcmc_pairs.pairdata.bivariate_normal import default_data, validate_data

if TYPE_CHECKING:
    import xarray as xr


def covariance(data: Mapping) -> np.ndarray:
    """Return the target's covariance matrix of validated ``data``, shape (2, 2)."""
    (s1, s2), rho = data["sigma"], data["rho"]
    return np.array([[s1 * s1, rho * s1 * s2], [rho * s1 * s2, s2 * s2]])


def log_density(posterior: xr.Dataset, data: Mapping, centers: Mapping) -> dict[str, xr.DataArray]:
    """Return ``{"logp": log N(x | mu, Sigma)}`` of every draw, shape (chain, draw)."""
    import xarray as xr
    from scipy import stats

    d = validate_data(data)
    target = stats.multivariate_normal(mean=d["mu"], cov=covariance(d))
    x = posterior["x"]

    def logpdf(values: np.ndarray) -> np.ndarray:  # scipy squeezes a draw axis of length 1
        return np.reshape(target.logpdf(values), values.shape[:-1])

    logp = xr.apply_ufunc(logpdf, x, input_core_dims=[[x.dims[-1]]])
    return {"logp": logp}


def exact(data: Mapping) -> dict[str, ExactMarginal]:
    """Exact marginals of the components, their centred product and the log density.

    With ``c = rho * sigma1 * sigma2``, the centred product has mean ``c`` and
    variance ``sigma1**2 * sigma2**2 + c**2``. The log density is
    ``logp_max - E`` with ``E ~ Exponential(1)`` (half a chi-square with 2 degrees
    of freedom), where ``logp_max = -log(2 pi) - log|Sigma| / 2``.
    """
    from scipy import stats

    d = validate_data(data)
    mu, sigma = d["mu"], d["sigma"]
    cov = covariance(d)
    logp_max = -np.log(2 * np.pi) - 0.5 * np.linalg.slogdet(cov)[1]
    logp = stats.expon(loc=-logp_max)  # -logp ~ logp_max's negative plus Exponential(1)
    return {
        "x[0]": ExactMarginal.from_scipy(stats.norm(mu[0], sigma[0])),
        "x[1]": ExactMarginal.from_scipy(stats.norm(mu[1], sigma[1])),
        "x[0]*x[1]": ExactMarginal(
            mean=cov[0, 1], sd=float(np.sqrt(cov[0, 0] * cov[1, 1] + cov[0, 1] ** 2))
        ),
        "logp": ExactMarginal(
            mean=logp_max - 1.0,
            sd=1.0,
            quantiles={p: float(-logp.ppf(1 - p)) for p in PROBS},
            pdf=lambda grid: logp.pdf(-np.asarray(grid)),
        ),
    }


PAIR = Pair(
    name="bivariate_normal",
    title="Bivariate normal by two-dimensional Gibbs sampling",
    seed="003_032267b94d21de83.txt",
    load_data=default_data,
    model="mcmc_pairs.models.bivariate_normal:build_model",
    handrolled={"gibbs": "mcmc_pairs.handrolled.bivariate_normal:sample"},
    variables=("x",),
    derived=log_density,
    reference=exact,
    wrong={
        "gibbs_without_shrinkage": (
            "mcmc_pairs.handrolled.wrong_samplers:bivariate_gibbs_without_shrinkage"
        ),
        "independent_marginals": (
            "mcmc_pairs.handrolled.wrong_samplers:bivariate_independent_marginals"
        ),
    },
    planted=PlantedShifts(("x", (0,)), ("x", (1,))),
)
