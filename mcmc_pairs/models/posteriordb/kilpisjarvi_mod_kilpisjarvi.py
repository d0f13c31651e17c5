"""PyMC model of posteriordb's ``kilpisjarvi_mod-kilpisjarvi``: summer temperature on the year.

Written from the Stan model ``posterior_database/models/stan/kilpisjarvi.stan``
of posteriordb (a Stan benchmark of Bales et al. 2019). For years
``n = 1, ..., N`` (``N = 62``; ``x`` is the year shifted by +2000, so ``alpha``
and ``beta`` are very strongly correlated), with the prior constants of the data
(``pmualpha``, ``psalpha``, ``pmubeta``, ``psbeta``)::

    alpha ~ Normal(pmualpha, psalpha)
    beta  ~ Normal(pmubeta, psbeta)
    sigma ~ uniform on (0, inf)        (no prior statement: Stan's improper flat prior)
    y[n] ~ Normal(alpha + beta * x[n], sigma)

The data's ``xpred`` is not used by the model. Free variables as in Stan's
``parameters`` block: scalars ``alpha``, ``beta`` and ``sigma`` (> 0). Data
from :func:`mcmc_pairs.pairdata.posteriordb.load_data`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the model with scalar free variables ``alpha``, ``beta`` and ``sigma``.

    Parameters
    ----------
    data : mapping
        ``x`` (N,), ``y`` (N,), ``pmualpha``, ``psalpha``, ``pmubeta``,
        ``psbeta``; other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``alpha``, ``beta``, ``sigma``; observed ``y`` (N,).
    """
    x = np.asarray(data["x"], dtype=np.float64)
    with pm.Model() as model:
        alpha = pm.Normal("alpha", mu=float(data["pmualpha"]), sigma=float(data["psalpha"]))
        beta = pm.Normal("beta", mu=float(data["pmubeta"]), sigma=float(data["psbeta"]))
        sigma = pm.HalfFlat("sigma")
        pm.Normal(
            "y",
            mu=alpha + beta * x,
            sigma=sigma,
            observed=np.asarray(data["y"], dtype=np.float64),
        )
    return model
