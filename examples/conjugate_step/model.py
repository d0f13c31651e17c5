"""Coagulation times under four diets: a hierarchical normal model in PyMC.

``y_ij ~ N(theta_j, sigma2)``, ``theta_j ~ N(mu, tau2)``, with proper conjugate
priors (README.md): ``mu ~ N(60, 10^2)``, ``sigma2 ~ InvGamma(3, 10)`` and
``tau2 ~ InvGamma(3, 20)`` (shape, scale). The free variables are ``mu`` and
``sigma2`` and ``tau2`` (scalars) and ``theta`` (J,); the observed variable
``y`` (n,) is named after its data key. The diet of every observation is the
``pm.Data`` container ``group``, which the step method in ``step.py`` reads.
"""

import numpy as np
import pymc as pm


def build_model(data):
    """Return the PyMC model of ``data``: ``y`` (n,) floats, ``group`` (n,) ints 0..J-1."""
    y = np.asarray(data["y"], dtype=float)
    group = np.asarray(data["group"], dtype=np.int64)
    if y.shape != group.shape or y.ndim != 1 or group.min() < 0:
        raise ValueError("data: 'y' and 'group' must be 1-D of one length, 'group' >= 0")
    groups = int(group.max()) + 1
    with pm.Model() as model:
        diet = pm.Data("group", group)
        mu = pm.Normal("mu", 60.0, 10.0)
        sigma2 = pm.InverseGamma("sigma2", alpha=3.0, beta=10.0)
        tau2 = pm.InverseGamma("tau2", alpha=3.0, beta=20.0)
        theta = pm.Normal("theta", mu, pm.math.sqrt(tau2), shape=groups)
        pm.Normal("y", theta[diet], pm.math.sqrt(sigma2), observed=y)
    return model
