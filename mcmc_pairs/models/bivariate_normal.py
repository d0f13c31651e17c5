"""The PyMC twin of the bivariate normal (seed 003): one ``pm.MvNormal``, sampled by NUTS."""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm

from mcmc_pairs.pairdata.bivariate_normal import validate_data


def build_model(data: Mapping) -> pm.Model:
    """Return a model with one free variable ``x`` of shape (2,), x ~ N(mu, Sigma).

    ``Sigma = [[s1^2, rho s1 s2], [rho s1 s2, s2^2]]`` with ``(s1, s2) = sigma``.
    """
    d = validate_data(data)
    (s1, s2), rho = d["sigma"], d["rho"]
    cov = [[s1**2, rho * s1 * s2], [rho * s1 * s2, s2**2]]
    with pm.Model() as model:
        pm.MvNormal("x", mu=d["mu"], cov=cov)
    return model
