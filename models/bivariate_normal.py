"""The PyMC twin of the bivariate normal (seed 003): one ``pm.MvNormal``, sampled by NUTS."""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm

from handrolled.bivariate_normal import covariance, validate_data


def build_model(data: Mapping) -> pm.Model:
    """Return a model with one free variable ``x`` of shape (2,), x ~ N(mu, Sigma)."""
    d = validate_data(data)
    with pm.Model() as model:
        pm.MvNormal("x", mu=d["mu"], cov=covariance(d))
    return model
