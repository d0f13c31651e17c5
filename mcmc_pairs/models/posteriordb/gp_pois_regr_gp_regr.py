"""PyMC model of posteriordb's ``gp_pois_regr-gp_regr``: Gaussian-process regression.

Written from the Stan model ``posterior_database/models/stan/gp_regr.stan`` of
posteriordb (a Stan benchmark, simulated data; the data's counts ``k`` are not
used). For inputs ``x[1..N]`` (``N = 11``) and outputs ``y``::

    rho   ~ Gamma(25, 4)               (shape 25, rate 4)
    alpha ~ half-Normal(0, 2)          (normal(0, 2) on alpha > 0)
    sigma ~ half-Normal(0, 1)          (normal(0, 1) on sigma > 0)
    K[i, j] = alpha^2 * exp(-(x[i] - x[j])^2 / (2 * rho^2)) + sigma * [i == j]
    y ~ MultivariateNormal(0, K)

Note that, as in the Stan model, ``sigma`` itself (not ``sigma^2``) is added to
the diagonal. Free variables as in Stan's ``parameters`` block: scalars
``rho``, ``alpha`` and ``sigma``, all > 0. Data from
:func:`mcmc_pairs.pairdata.posteriordb.load_data`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm
import pytensor.tensor as pt


def build_model(data: Mapping) -> pm.Model:
    """Build the GP regression with scalar free variables ``rho``, ``alpha`` and ``sigma``.

    Parameters
    ----------
    data : mapping
        ``x`` (N,) and ``y`` (N,); other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``rho``, ``alpha``, ``sigma``; observed ``y`` (N,).
    """
    x = np.asarray(data["x"], dtype=np.float64)
    y = np.asarray(data["y"], dtype=np.float64)
    squared_distance = (x[:, None] - x[None, :]) ** 2
    with pm.Model() as model:
        rho = pm.Gamma("rho", alpha=25.0, beta=4.0)
        alpha = pm.HalfNormal("alpha", sigma=2.0)
        sigma = pm.HalfNormal("sigma", sigma=1.0)
        cov = alpha**2 * pt.exp(-0.5 * squared_distance / rho**2) + sigma * np.eye(x.size)
        pm.MvNormal("y", mu=np.zeros(x.size), cov=cov, observed=y)
    return model
