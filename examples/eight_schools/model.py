r"""Eight schools: the centred hierarchical normal model, written in PyMC.

Rubin (1981); Gelman et al., *Bayesian Data Analysis*, 3rd ed., section 5.5::

    mu      ~ N(0, mu_sd^2)
    tau2    ~ InvGamma(tau2_alpha, tau2_beta)
    theta_j ~ N(mu, tau2)                          j = 1 .. 8
    y_j     ~ N(theta_j, sigma_j^2)                observed, sigma_j known

BDA puts a uniform (improper) prior on ``tau``; here ``tau2`` gets a proper
inverse-gamma prior, so the prior predictive can be drawn and every full
conditional of the Gibbs sampler in ``sampler.py`` is a standard distribution.
This file shares no code with ``sampler.py``: each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the centred eight-schools model.

    Parameters
    ----------
    data : mapping
        ``y`` (J,) estimated effects, ``sigma`` (J,) their standard errors,
        ``mu_sd`` prior sd of ``mu``, ``tau2_alpha`` and ``tau2_beta`` shape and
        scale of the inverse-gamma prior of ``tau2``.

    Returns
    -------
    pymc.Model
        Free variables ``mu`` (), ``tau2`` (), ``theta`` (J,); observed ``y``.
    """
    y = np.asarray(data["y"], dtype=float)
    sigma = np.asarray(data["sigma"], dtype=float)
    with pm.Model() as model:
        mu = pm.Normal("mu", mu=0.0, sigma=float(data["mu_sd"]))
        tau2 = pm.InverseGamma(
            "tau2", alpha=float(data["tau2_alpha"]), beta=float(data["tau2_beta"])
        )
        theta = pm.Normal("theta", mu=mu, sigma=pm.math.sqrt(tau2), shape=y.shape)
        pm.Normal("y", mu=theta, sigma=sigma, observed=y)
    return model
