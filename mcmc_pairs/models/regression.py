"""PyMC twin of the weight–height regression (seed ``000_c903dc61037307e8.txt``).

Hand-rolled side: :mod:`mcmc_pairs.handrolled.regression`. The model states the seed's
priors directly: ``beta0 ~ N(0, m0)`` and ``beta1 ~ N(0, m1)`` with *variances*
``m0``, ``m1`` (so ``sigma = sqrt(m)``), ``sigma2 ~ InvGamma(epsilon, epsilon)``
and ``weight ~ N(beta0 + beta1 * height, sigma2)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pymc as pm

from mcmc_pairs.pairdata.regression import validate_data


def build_model(data: Mapping) -> pm.Model:
    """Build the regression model with free variables ``beta0``, ``beta1``, ``sigma2``.

    Parameters
    ----------
    data : mapping
        ``height`` (N,), ``weight`` (N,), ``m0``, ``m1``, ``epsilon``; checked
        by :func:`mcmc_pairs.pairdata.regression.validate_data`.

    Returns
    -------
    pymc.Model
        Scalar free variables ``beta0``, ``beta1``, ``sigma2``; observed ``weight``.
    """
    data = validate_data(data)
    with pm.Model() as model:
        beta0 = pm.Normal("beta0", mu=0.0, sigma=math.sqrt(data["m0"]))
        beta1 = pm.Normal("beta1", mu=0.0, sigma=math.sqrt(data["m1"]))
        sigma2 = pm.InverseGamma("sigma2", alpha=data["epsilon"], beta=data["epsilon"])
        pm.Normal(
            "weight",
            mu=beta0 + beta1 * data["height"],
            sigma=pm.math.sqrt(sigma2),
            observed=data["weight"],
        )
    return model
