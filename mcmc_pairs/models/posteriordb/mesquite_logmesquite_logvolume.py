"""PyMC model of posteriordb's ``mesquite-logmesquite_logvolume``: log leaf weight on log volume.

Written from the Stan model
``posterior_database/models/stan/logmesquite_logvolume.stan`` of posteriordb
(Gelman and Hill 2007, chapter 4). For bushes ``n = 1, ..., N`` (``N = 46``),
with the canopy volume ``v[n] = diam1[n] * diam2[n] * canopy_height[n]``::

    beta  ~ uniform on R^2            (no prior statement: Stan's improper flat prior)
    sigma ~ uniform on (0, inf)        (no prior statement: improper flat prior)
    log(weight[n]) ~ Normal(beta[1] + beta[2] * log(v[n]), sigma)

Free variables as in Stan's ``parameters`` block: ``beta`` (2,) and ``sigma``
(scalar, > 0). Data from :func:`mcmc_pairs.pairdata.posteriordb.load_data`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the model with free variables ``beta`` (2,) and ``sigma``.

    Parameters
    ----------
    data : mapping
        ``weight``, ``diam1``, ``diam2``, ``canopy_height`` (N,), all > 0;
        other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``beta`` (2,), ``sigma``; observed ``log_weight`` (N,).
    """
    diam1, diam2, canopy_height, weight = (
        np.asarray(data[key], dtype=np.float64)
        for key in ("diam1", "diam2", "canopy_height", "weight")
    )
    log_canopy_volume = np.log(diam1 * diam2 * canopy_height)
    with pm.Model() as model:
        beta = pm.Flat("beta", shape=2)
        sigma = pm.HalfFlat("sigma")
        pm.Normal(
            "log_weight",
            mu=beta[0] + beta[1] * log_canopy_volume,
            sigma=sigma,
            observed=np.log(weight),
        )
    return model
