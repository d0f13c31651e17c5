"""PyMC model of posteriordb's ``garch-garch11``: a GARCH(1, 1) time series.

Written from the Stan model ``posterior_database/models/stan/garch11.stan`` of
posteriordb (a Stan benchmark, simulated data). For times ``t = 1, ..., T``
(``T = 200``) with the data's first volatility ``sigma1``::

    mu, alpha0, alpha1, beta1: no prior statements (Stan's improper flat prior)
        on mu in R, alpha0 > 0, 0 < alpha1 < 1, 0 < beta1 < 1 - alpha1
    sigma[1] = sigma1
    sigma[t] = sqrt(alpha0 + alpha1 * (y[t-1] - mu)^2 + beta1 * sigma[t-1]^2),  t >= 2
    y[t] ~ Normal(mu, sigma[t])

The density of the parameters is constant on their constrained space:
``mu ~ Flat``, ``alpha0 ~ HalfFlat``, and ``(alpha1, beta1)`` uniform on the
triangle ``0 < beta1 < 1 - alpha1 < 1``, written as ``alpha1 ~ Beta(1, 2)``
(density ``2 * (1 - alpha1)``) and ``beta1 | alpha1 ~ Uniform(0, 1 - alpha1)``
(density ``1 / (1 - alpha1)``), whose product is the constant 2. (Writing
``alpha1 ~ Uniform(0, 1)`` instead would add ``-log(1 - alpha1)`` to the log
density and push ``alpha1`` towards 1.) The log density is Stan's up to a
constant, and Stan's transforms (logit of ``alpha1``, of ``beta1 / (1 - alpha1)``)
are PyMC's.

The observed ``y`` (T,) is a ``CustomDist`` whose log density is computed from
its own value (so evaluating it at other data, as simulation-based checks do,
uses their lags); its term ``t`` is the log density of ``y[t]`` given
``y[1], ..., y[t-1]``. The variances ``s[t] = sigma[t]^2`` solve the lower-bidiagonal
system ``s[t] - beta1 * s[t-1] = c[t]`` (``c[1] = sigma1^2``,
``c[t] = alpha0 + alpha1 * (y[t-1] - mu)^2``), solved by forward substitution
(``solve_triangular``), which is the recursion itself.

Free variables as in Stan's ``parameters`` block: scalars ``mu``, ``alpha0``,
``alpha1`` and ``beta1``. Data from
:func:`mcmc_pairs.pairdata.posteriordb.load_data`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pytensor.tensor.variable import TensorVariable


def _series_logp(
    y: TensorVariable,
    mu: TensorVariable,
    alpha0: TensorVariable,
    alpha1: TensorVariable,
    beta1: TensorVariable,
    *,
    sigma1: float,
) -> TensorVariable:
    """Return ``log N(y[t] | mu, sigma[t])`` (T,), the log density of ``y[t]`` given ``y[:t]``."""
    n = y.shape[0]
    forcing = pt.concatenate([pt.as_tensor([sigma1**2]), alpha0 + alpha1 * (y[:-1] - mu) ** 2])
    variance = pt.linalg.solve_triangular(pt.eye(n) - beta1 * pt.eye(n, k=-1), forcing, lower=True)
    return pm.logp(pm.Normal.dist(mu=mu, sigma=pt.sqrt(variance)), y)


def build_model(data: Mapping) -> pm.Model:
    """Build the GARCH(1, 1) model with free variables ``mu``, ``alpha0``, ``alpha1``, ``beta1``.

    Parameters
    ----------
    data : mapping
        ``y`` (T,) and ``sigma1`` (> 0); other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``mu``, ``alpha0``, ``alpha1``, ``beta1``; observed ``y`` (T,), one
        ``CustomDist`` (log density only, no random draws).
    """
    y = np.asarray(data["y"], dtype=np.float64)
    with pm.Model() as model:
        mu = pm.Flat("mu")
        alpha0 = pm.HalfFlat("alpha0")
        alpha1 = pm.Beta("alpha1", alpha=1.0, beta=2.0)
        beta1 = pm.Uniform("beta1", lower=0.0, upper=1.0 - alpha1)
        pm.CustomDist(
            "y",
            mu,
            alpha0,
            alpha1,
            beta1,
            logp=partial(_series_logp, sigma1=float(data["sigma1"])),
            signature="(),(),(),()->()",
            shape=y.shape,
            observed=y,
        )
    return model
