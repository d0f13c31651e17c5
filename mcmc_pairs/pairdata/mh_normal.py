"""Data of the ``mh_normal`` pair (seed 003): target Normal(mu, sigma), proposal scale."""

from __future__ import annotations

from collections.abc import Mapping

from mcmc_pairs.pairdata.checks import check_mapping, finite_scalar, positive_scalar


def default_data() -> dict:
    """Return the seed's numbers: target Normal(10, 5), proposal N(x, 1).

    Returns
    -------
    dict
        ``{"mu": 10.0, "sigma": 5.0, "proposal_sd": 1.0}``.
    """
    return {"mu": 10.0, "sigma": 5.0, "proposal_sd": 1.0}


def validate_data(data: Mapping) -> dict:
    """Check the data and return a normalised copy.

    Parameters
    ----------
    data : mapping
        ``mu`` (finite), ``sigma`` (> 0), ``proposal_sd`` (> 0), real scalars.

    Returns
    -------
    dict
        The same keys, as Python floats.

    Raises
    ------
    ValueError
        Naming the key and value of a missing, non-scalar, non-finite or
        non-positive entry.
    """
    check_mapping(data)
    return {
        "mu": finite_scalar(data, "mu"),
        "sigma": positive_scalar(data, "sigma"),
        "proposal_sd": positive_scalar(data, "proposal_sd"),
    }
