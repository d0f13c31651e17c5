"""PyMC model of posteriordb's ``kidiq-kidscore_momhs``: a child's test score on mother's school.

Written from the Stan model ``posterior_database/models/stan/kidscore_momhs.stan``
of posteriordb (Gelman and Hill 2007, chapter 3). For children ``n = 1, ..., N``
(``N = 434``), ``mom_hs[n]`` 1 if the mother finished high school, else 0::

    beta  ~ uniform on R^2            (no prior statement: Stan's improper flat prior)
    sigma ~ half-Cauchy(0, 2.5)        (cauchy(0, 2.5) on sigma > 0)
    kid_score[n] ~ Normal(beta[1] + beta[2] * mom_hs[n], sigma)

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
        ``kid_score`` (N,) and ``mom_hs`` (N,); other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``beta`` (2,), ``sigma``; observed ``kid_score`` (N,).
    """
    mom_hs = np.asarray(data["mom_hs"], dtype=np.float64)
    with pm.Model() as model:
        beta = pm.Flat("beta", shape=2)
        sigma = pm.HalfCauchy("sigma", beta=2.5)
        pm.Normal(
            "kid_score",
            mu=beta[0] + beta[1] * mom_hs,
            sigma=sigma,
            observed=np.asarray(data["kid_score"], dtype=np.float64),
        )
    return model
