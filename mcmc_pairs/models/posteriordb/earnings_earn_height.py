"""PyMC model of posteriordb's ``earnings-earn_height``: earnings (dollars) on height (inches).

Written from the Stan model ``posterior_database/models/stan/earn_height.stan``
of posteriordb (Gelman and Hill 2007, chapter 4). For people ``n = 1, ..., N``
(``N = 1192``)::

    beta  ~ uniform on R^2            (no prior statement: Stan's improper flat prior)
    sigma ~ uniform on (0, inf)        (no prior statement: improper flat prior)
    earn[n] ~ Normal(beta[1] + beta[2] * height[n], sigma)

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
        ``earn`` (N,) and ``height`` (N,); other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``beta`` (2,), ``sigma``; observed ``earn`` (N,).
    """
    height = np.asarray(data["height"], dtype=np.float64)
    with pm.Model() as model:
        beta = pm.Flat("beta", shape=2)
        sigma = pm.HalfFlat("sigma")
        pm.Normal(
            "earn",
            mu=beta[0] + beta[1] * height,
            sigma=sigma,
            observed=np.asarray(data["earn"], dtype=np.float64),
        )
    return model
