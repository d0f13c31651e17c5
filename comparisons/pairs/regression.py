"""Pair ``regression``: weight on height by Gibbs (one at a time, and blocked) against NUTS.

The exact reference comes from 1-D quadrature over ``sigma2``
(:func:`handrolled.regression.exact_marginals`): both sides are checked against
the exact means, sds and quantiles of ``beta0``, ``beta1`` and ``sigma2``, and
against the exact covariances (the means of the harness's centred products).

NUTS runs with nutpie's low-rank mass-matrix adaptation: on ``women`` the
posterior correlation of ``beta0`` and ``beta1`` is about -0.998, and with the
default diagonal adaptation NUTS gets only ~550 bulk ESS from 4 x 1000 draws
(measured), close to the 400 gate; low-rank adaptation learns the correlated
direction and gets ~4000.
"""

from __future__ import annotations

from collections.abc import Mapping

import xarray as xr

from comparisons.pair import ExactMarginal, Pair
from handrolled.regression import (
    default_data,
    exact_covariances,
    exact_marginals,
    log_posterior,
)


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
        ``logp`` with dims ``(chain, draw)``; see :func:`handrolled.regression.log_posterior`.
    """
    logp = xr.apply_ufunc(
        lambda b0, b1, s2: log_posterior(b0, b1, s2, data),
        posterior["beta0"],
        posterior["beta1"],
        posterior["sigma2"],
    )
    return {"logp": logp}


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


PAIR = Pair(
    name="regression",
    title="Weight on height: Gibbs by full conditionals, one at a time and blocked",
    seed="000_c903dc61037307e8.txt",
    load_data=default_data,
    model="models.regression:build_model",
    handrolled={
        "gibbs": "handrolled.regression:sample",
        "blocked": "handrolled.regression:sample_blocked",
    },
    variables=("beta0", "beta1", "sigma2"),
    derived=log_density,
    reference=exact,
    pymc_kwargs={"nuts": {"adaptation": "low_rank"}},
    validation_data="comparisons.simulators:regression_validation_data",
    prior="comparisons.simulators:regression_prior",
    simulate="comparisons.simulators:regression_simulate",
)
