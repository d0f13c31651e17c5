r"""A smooth curve as a sum of 50 Gaussian bumps, with known noise, written in PyMC.

With ``K = n_basis`` bumps ``phi_k(x) = exp(-(x - c_k)^2 / (2 w^2))`` centred at
``c_k = k / (K - 1)`` (``k = 0 .. K-1``), width ``w = basis_sd``, and the noise sd
``sigma`` known::

    beta ~ N(0, prior_sd^2 I_K)
    y_i  ~ N(sum_k beta_k phi_k(x_i), sigma^2)

A Bayesian linear regression with 50 coefficients: the posterior of ``beta`` is
a 50-dimensional Gaussian. Neighbouring bumps overlap, so neighbouring
coefficients are correlated (up to 0.72 in size), and the ``x`` are dense on the
left and sparse on the right, so the posterior sds range from 0.13 (many points
under a bump) to the prior's 1 (none). This file shares no code with
``sampler.py``: each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the 50-bump regression model.

    Parameters
    ----------
    data : mapping
        ``x``, ``y`` (N,); ``n_basis`` the number of bumps ``K``; ``basis_sd``
        their width; ``sigma`` the known noise sd; ``prior_sd`` the prior sd of
        every coefficient.

    Returns
    -------
    pymc.Model
        Free variable ``beta`` (K,); observed ``y``.
    """
    x = np.asarray(data["x"], dtype=float)
    centres = np.linspace(0.0, 1.0, int(data["n_basis"]))
    bumps = np.exp(-0.5 * ((x[:, None] - centres[None, :]) / float(data["basis_sd"])) ** 2)
    with pm.Model() as model:
        beta = pm.Normal("beta", mu=0.0, sigma=float(data["prior_sd"]), shape=centres.size)
        pm.Normal(
            "y",
            mu=pm.math.dot(bumps, beta),
            sigma=float(data["sigma"]),
            observed=np.asarray(data["y"]),
        )
    return model
