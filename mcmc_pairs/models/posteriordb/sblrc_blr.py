"""PyMC model of posteriordb's ``sblrc-blr``: Bayesian linear regression, correlated predictors.

Written from the Stan model ``posterior_database/models/stan/blr.stan`` of
posteriordb. For observations ``n = 1, ..., N`` (``N = 100``) with the row
``X[n]`` of ``D = 5`` predictors (no intercept)::

    beta[d] ~ Normal(0, 10),  d = 1, ..., D
    sigma   ~ half-Normal(0, 10)       (normal(0, 10) on sigma > 0)
    y[n]    ~ Normal(X[n] . beta, sigma)

Free variables as in Stan's ``parameters`` block: ``beta`` (D,) and ``sigma``
(scalar, > 0). Data from :func:`mcmc_pairs.pairdata.posteriordb.load_data`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the model with free variables ``beta`` (D,) and ``sigma``.

    Parameters
    ----------
    data : mapping
        ``X`` (N, D) and ``y`` (N,); other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``beta`` (D,), ``sigma``; observed ``y`` (N,).
    """
    X = np.asarray(data["X"], dtype=np.float64)
    with pm.Model() as model:
        beta = pm.Normal("beta", mu=0.0, sigma=10.0, shape=X.shape[1])
        sigma = pm.HalfNormal("sigma", sigma=10.0)
        pm.Normal("y", mu=X @ beta, sigma=sigma, observed=np.asarray(data["y"], dtype=np.float64))
    return model
