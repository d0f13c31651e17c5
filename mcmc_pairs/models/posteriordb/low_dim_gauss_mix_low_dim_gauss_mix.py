"""PyMC model of posteriordb's ``low_dim_gauss_mix-low_dim_gauss_mix``: a two-component mixture.

Written from the Stan model ``posterior_database/models/stan/low_dim_gauss_mix.stan``
of posteriordb (a Stan benchmark, simulated, well-separated data). For
observations ``n = 1, ..., N`` (``N = 1000``)::

    mu       ~ Normal(0, 2) for each component, constrained mu[1] < mu[2]
    sigma[k] ~ half-Normal(0, 2),  k = 1, 2   (normal(0, 2) on sigma > 0)
    theta    ~ Beta(5, 5)
    y[n] ~ theta * Normal(mu[1], sigma[1]) + (1 - theta) * Normal(mu[2], sigma[2])

Stan's ``ordered[2] mu`` with ``mu ~ normal(0, 2)`` is the normal density
restricted to ``mu[1] < mu[2]`` (unnormalised); PyMC's ``ordered`` transform on
a Normal of shape (2,) gives the same. The Normal is wrapped in a ``CustomDist``
only to give it the support point (-1, 1): the Normal's own, (0, 0), is not
ordered, and an ``initval`` would make PyMC's model transforms (such as
``remove_value_transforms``) refuse the model. Free variables as in Stan's
``parameters`` block: ``mu`` of shape (2,), increasing; ``sigma`` of shape
(2,), positive; ``theta``, a scalar in (0, 1). Data from
:func:`mcmc_pairs.pairdata.posteriordb.load_data`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm
import pytensor.tensor as pt
from pymc.distributions.transforms import ordered
from pytensor.tensor.variable import TensorVariable


def _normal_0_2(size: TensorVariable) -> TensorVariable:
    return pm.Normal.dist(mu=0.0, sigma=2.0, size=size)


def _ordered_start(rv: TensorVariable, size: TensorVariable) -> TensorVariable:
    return pt.as_tensor(np.array([-1.0, 1.0]))


def build_model(data: Mapping) -> pm.Model:
    """Build the mixture with free variables ``mu`` (2,), ``sigma`` (2,) and ``theta``.

    Parameters
    ----------
    data : mapping
        ``y`` (N,); other keys are ignored.

    Returns
    -------
    pymc.Model
        Free ``mu`` (2,), ``sigma`` (2,), ``theta``; observed ``y`` (N,).
    """
    y = np.asarray(data["y"], dtype=np.float64)
    with pm.Model() as model:
        mu = pm.CustomDist(
            "mu",
            dist=_normal_0_2,
            support_point=_ordered_start,
            transform=ordered,
            shape=2,
        )
        sigma = pm.HalfNormal("sigma", sigma=2.0, shape=2)
        theta = pm.Beta("theta", alpha=5.0, beta=5.0)
        pm.NormalMixture("y", w=pt.stack([theta, 1.0 - theta]), mu=mu, sigma=sigma, observed=y)
    return model
