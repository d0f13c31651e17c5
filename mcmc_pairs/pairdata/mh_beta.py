"""Data of the ``mh_beta`` pair (seed 003's code): target Beta(a, b), proposal scale."""

from __future__ import annotations

from collections.abc import Mapping

from mcmc_pairs.pairdata.checks import check_mapping, positive_scalar


def default_data() -> dict:
    """Return the seed's code's numbers: target Beta(2.31, 0.627), proposal N(x, 1).

    The seed's text says ``a = 2.37``; its code (and so this default) uses 2.31.

    Returns
    -------
    dict
        ``{"a": 2.31, "b": 0.627, "proposal_sd": 1.0}``.
    """
    return {"a": 2.31, "b": 0.627, "proposal_sd": 1.0}


def validate_data(data: Mapping) -> dict:
    """Check the data and return a normalised copy.

    Parameters
    ----------
    data : mapping
        ``a`` (> 0), ``b`` (> 0), ``proposal_sd`` (> 0), finite real scalars.

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
        "a": positive_scalar(data, "a"),
        "b": positive_scalar(data, "b"),
        "proposal_sd": positive_scalar(data, "proposal_sd"),
    }
