r"""The rats' linear growth model (BUGS "Rats"), 65 parameters, written in PyMC.

Rat ``i`` (``i = 0 .. N-1``, N = 30) weighs ``y[i, j]`` grams at age ``x[j]`` days
(T = 5 ages); ``xbar`` is the mean age::

    alpha_c    ~ N(alpha_c_prior_mean, alpha_c_prior_sd^2)
    beta_c     ~ N(beta_c_prior_mean, beta_c_prior_sd^2)
    tau2_alpha ~ InvGamma(tau2_alpha_shape, tau2_alpha_scale)
    tau2_beta  ~ InvGamma(tau2_beta_shape, tau2_beta_scale)
    sigma2     ~ InvGamma(sigma2_shape, sigma2_scale)
    alpha_i    ~ N(alpha_c, tau2_alpha)                    weight at the mean age
    beta_i     ~ N(beta_c, tau2_beta)                      growth rate, g / day
    y_ij       ~ N(alpha_i + beta_i (x_j - xbar), sigma2)

The centred parametrisation (of the hierarchy, and of the ages): each rat's
five weights pin its line down far more tightly than the population does, so
NUTS meets no funnel. This file shares no code with ``sampler.py``: each
states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the hierarchical linear growth model.

    Parameters
    ----------
    data : mapping
        ``x`` (T,) ages, ``y`` (N, T) weights; priors ``alpha_c_prior_mean``,
        ``alpha_c_prior_sd``, ``beta_c_prior_mean``, ``beta_c_prior_sd``,
        ``tau2_alpha_shape``, ``tau2_alpha_scale``, ``tau2_beta_shape``,
        ``tau2_beta_scale``, ``sigma2_shape``, ``sigma2_scale``.

    Returns
    -------
    pymc.Model
        Free variables ``alpha_c``, ``beta_c``, ``tau2_alpha``, ``tau2_beta``,
        ``sigma2`` (), ``alpha`` (N,), ``beta`` (N,); observed ``y``.
    """
    x = np.asarray(data["x"], dtype=float)
    y = np.asarray(data["y"], dtype=float)
    n_rats = y.shape[0]
    with pm.Model() as model:
        alpha_c = pm.Normal(
            "alpha_c", mu=float(data["alpha_c_prior_mean"]), sigma=float(data["alpha_c_prior_sd"])
        )
        beta_c = pm.Normal(
            "beta_c", mu=float(data["beta_c_prior_mean"]), sigma=float(data["beta_c_prior_sd"])
        )
        tau2_alpha = pm.InverseGamma(
            "tau2_alpha",
            alpha=float(data["tau2_alpha_shape"]),
            beta=float(data["tau2_alpha_scale"]),
        )
        tau2_beta = pm.InverseGamma(
            "tau2_beta", alpha=float(data["tau2_beta_shape"]), beta=float(data["tau2_beta_scale"])
        )
        sigma2 = pm.InverseGamma(
            "sigma2", alpha=float(data["sigma2_shape"]), beta=float(data["sigma2_scale"])
        )
        alpha = pm.Normal("alpha", mu=alpha_c, sigma=pm.math.sqrt(tau2_alpha), shape=n_rats)
        beta = pm.Normal("beta", mu=beta_c, sigma=pm.math.sqrt(tau2_beta), shape=n_rats)
        line = alpha[:, None] + beta[:, None] * (x - x.mean())[None, :]
        pm.Normal("y", mu=line, sigma=pm.math.sqrt(sigma2), observed=y)
    return model
