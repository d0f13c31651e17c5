r"""A hierarchical normal model with 60 groups (63 parameters), written in PyMC.

Observation ``i`` belongs to group ``g[i]``::

    mu       ~ N(mu_prior_mean, mu_prior_sd^2)
    tau2     ~ InvGamma(tau2_alpha, tau2_beta)        (shape, scale)
    sigma2   ~ InvGamma(sigma2_alpha, sigma2_beta)
    theta_j  ~ N(mu, tau2)                            j = 0 .. J-1 (J = 60)
    y_i      ~ N(theta_{g[i]}, sigma2)

The centred parametrisation: with 3 to 8 observations a group, each
``theta_j`` is informed by its data about as much as by the population, and
NUTS meets no funnel. This file shares no code with ``sampler.py``: each
states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the hierarchical normal model.

    Parameters
    ----------
    data : mapping
        ``y`` (N,) observations, ``group`` (N,) their group in ``[0, n_groups)``,
        ``n_groups``; priors ``mu_prior_mean``, ``mu_prior_sd``, ``tau2_alpha``,
        ``tau2_beta``, ``sigma2_alpha``, ``sigma2_beta``.

    Returns
    -------
    pymc.Model
        Free variables ``mu`` (), ``tau2`` (), ``sigma2`` (), ``theta`` (J,);
        observed ``y``.
    """
    y = np.asarray(data["y"], dtype=float)
    group = np.asarray(data["group"], dtype=int)
    n_groups = int(data["n_groups"])
    with pm.Model() as model:
        mu = pm.Normal("mu", mu=float(data["mu_prior_mean"]), sigma=float(data["mu_prior_sd"]))
        tau2 = pm.InverseGamma(
            "tau2", alpha=float(data["tau2_alpha"]), beta=float(data["tau2_beta"])
        )
        sigma2 = pm.InverseGamma(
            "sigma2", alpha=float(data["sigma2_alpha"]), beta=float(data["sigma2_beta"])
        )
        theta = pm.Normal("theta", mu=mu, sigma=pm.math.sqrt(tau2), shape=n_groups)
        pm.Normal("y", mu=theta[group], sigma=pm.math.sqrt(sigma2), observed=y)
    return model
