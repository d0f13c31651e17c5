r"""Newcomb's speed-of-light measurements with a Student-t likelihood, written in PyMC.

Simon Newcomb's 66 measurements (1882) of the time light took to travel 7,442 m,
in nanoseconds above 24,800, include two gross outliers (-44 and -2). A
Student-t likelihood with ``nu = 4`` degrees of freedom (fixed) lets them be
outliers instead of dragging the mean and widening the scale::

    mu     ~ N(mu_prior_mean, mu_prior_sd^2)
    sigma2 ~ InvGamma(sigma2_alpha, sigma2_beta)       (shape, scale)
    y_i    ~ StudentT(nu, mu, sigma = sqrt(sigma2))

This file shares no code with ``sampler.py`` (a Gibbs sampler through the
normal scale mixture): each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the Student-t model of the light-speed measurements.

    Parameters
    ----------
    data : mapping
        ``y`` (N,) measurements; ``nu`` the fixed degrees of freedom;
        ``mu_prior_mean``, ``mu_prior_sd``, ``sigma2_alpha``, ``sigma2_beta``.

    Returns
    -------
    pymc.Model
        Free variables ``mu`` () and ``sigma2`` () (the t scale, squared);
        observed ``y``.
    """
    with pm.Model() as model:
        mu = pm.Normal("mu", mu=float(data["mu_prior_mean"]), sigma=float(data["mu_prior_sd"]))
        sigma2 = pm.InverseGamma(
            "sigma2", alpha=float(data["sigma2_alpha"]), beta=float(data["sigma2_beta"])
        )
        pm.StudentT(
            "y",
            nu=float(data["nu"]),
            mu=mu,
            sigma=pm.math.sqrt(sigma2),
            observed=np.asarray(data["y"], dtype=float),
        )
    return model
