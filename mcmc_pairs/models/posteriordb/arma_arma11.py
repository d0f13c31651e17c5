"""PyMC model of posteriordb's ``arma-arma11``: an ARMA(1, 1) time series.

Written from the Stan model ``posterior_database/models/stan/arma11.stan`` of
posteriordb (a Stan benchmark, simulated data). For times ``t = 1, ..., T``
(``T = 200``)::

    mu    ~ Normal(0, 10)
    phi   ~ Normal(0, 2)
    theta ~ Normal(0, 2)
    sigma ~ half-Cauchy(0, 2.5)        (cauchy(0, 2.5) on sigma > 0)
    nu[1]  = mu + phi * mu              (the error before t = 1 is taken as 0)
    nu[t]  = mu + phi * y[t-1] + theta * err[t-1],   t = 2, ..., T
    err[t] = y[t] - nu[t]
    err[t] ~ Normal(0, sigma)

No stationarity or invertibility constraint on ``phi`` and ``theta``. The map
from ``y`` to ``err`` has unit Jacobian, so ``err ~ Normal(0, sigma)`` is the
density of the series ``y``: the observed ``y`` (T,) is a ``CustomDist`` whose
log density is computed from its own value (so evaluating it at other data, as
simulation-based checks do, uses their lags); its term ``t`` is the log density
of ``y[t]`` given ``y[1], ..., y[t-1]``. The recursion
``err[t] + theta * err[t-1] = y[t] - mu - phi * y[t-1]`` is a lower-bidiagonal
linear system, solved by forward substitution (``solve_triangular``), which is
the recursion itself.

Free variables as in Stan's ``parameters`` block: scalars ``mu``, ``phi``,
``theta`` and ``sigma`` (> 0). Data from
:func:`mcmc_pairs.pairdata.posteriordb.load_data`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pytensor.tensor.variable import TensorVariable


def _series_logp(
    y: TensorVariable,
    mu: TensorVariable,
    phi: TensorVariable,
    theta: TensorVariable,
    sigma: TensorVariable,
) -> TensorVariable:
    """Return ``log N(err[t] | 0, sigma)`` (T,), the log density of ``y[t]`` given ``y[:t]``."""
    n = y.shape[0]
    y_before = pt.concatenate([pt.atleast_1d(mu), y[:-1]])  # y[0] := mu
    err = pt.linalg.solve_triangular(
        pt.eye(n) + theta * pt.eye(n, k=-1), y - mu - phi * y_before, lower=True
    )
    return pm.logp(pm.Normal.dist(mu=0.0, sigma=sigma), err)


def build_model(data: Mapping) -> pm.Model:
    """Build the ARMA(1, 1) model with scalar free variables ``mu``, ``phi``, ``theta``, ``sigma``.

    Parameters
    ----------
    data : mapping
        ``y`` (T,); other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``mu``, ``phi``, ``theta``, ``sigma``; observed ``y`` (T,), one
        ``CustomDist`` (log density only, no random draws).
    """
    y = np.asarray(data["y"], dtype=np.float64)
    with pm.Model() as model:
        mu = pm.Normal("mu", mu=0.0, sigma=10.0)
        phi = pm.Normal("phi", mu=0.0, sigma=2.0)
        theta = pm.Normal("theta", mu=0.0, sigma=2.0)
        sigma = pm.HalfCauchy("sigma", beta=2.5)
        pm.CustomDist(
            "y",
            mu,
            phi,
            theta,
            sigma,
            logp=_series_logp,
            signature="(),(),(),()->()",
            shape=y.shape,
            observed=y,
        )
    return model
