"""Data of the ``bivariate_normal`` pair (seed 003): the target's mean, sds and correlation."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mcmc_pairs.pairdata.checks import check_mapping, finite_array, finite_scalar


def default_data() -> dict:
    """Return the seed's target: mu=(5, -1), sigma=(1, 2), rho=0.5."""
    return {"mu": np.array([5.0, -1.0]), "sigma": np.array([1.0, 2.0]), "rho": 0.5}


def validate_data(data: Mapping) -> dict:
    """Return a checked copy of ``data`` (keys ``mu`` (2,), ``sigma`` (2,), ``rho``).

    Raises
    ------
    ValueError
        If a key is missing, not finite, of the wrong shape, a ``sigma`` is not
        positive, or ``rho`` is outside (-1, 1).
    """
    check_mapping(data)
    mu = finite_array(data, "mu", shape=(2,))
    sigma = finite_array(data, "sigma", shape=(2,))
    if np.any(sigma <= 0):
        raise ValueError(f"sigma must be > 0, got {sigma.tolist()}")
    rho = finite_scalar(data, "rho")
    if not -1.0 < rho < 1.0:
        raise ValueError(f"rho must lie in (-1, 1), got {rho!r}")
    return {"mu": mu, "sigma": sigma, "rho": rho}
