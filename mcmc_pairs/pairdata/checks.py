"""Argument checks shared by every package: one message for one mistake.

The data validators of :mod:`pairdata`, the hand-written samplers and the
harness check their arguments here, so the messages read the same everywhere:
they name the argument and show the bad value. No modelling code.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np


def check_integer(name: str, value: object, low: int) -> int:
    """Return ``value`` as an int if it is an integer >= ``low``, else raise ``ValueError``.

    A 0-d integer array is accepted; ``bool`` is not an integer here.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : object
        The value to check.
    low : int
        Smallest allowed value.
    """
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_positive(name: str, value: object, what: str = "number") -> float:
    """Return ``value`` as a ``float`` if it is a finite number > 0.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : Any
        A Python or NumPy real number (``bool`` is refused).
    what : str
        What the number counts, for the message (``"number of seconds"``).

    Raises
    ------
    ValueError
        ``"<name> must be a positive <what>, got <value>"``.
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"{name} must be a positive {what}, got {value!r}")
    return float(value)


def check_sampler_args(draws: int, tune: int, chains: int, random_seed: int | None) -> None:
    """Raise ``ValueError`` unless draws >= 1, tune >= 0, chains >= 1 and the seed is usable."""
    for name, value, low in (("draws", draws, 1), ("tune", tune, 0), ("chains", chains, 1)):
        check_integer(name, value, low)
    if random_seed is not None and (
        isinstance(random_seed, bool)
        or not isinstance(random_seed, numbers.Integral)
        or random_seed < 0
    ):
        raise ValueError(f"random_seed must be a non-negative integer or None, got {random_seed!r}")


def check_mapping(data: object) -> None:
    """Raise ``ValueError`` unless ``data`` is a mapping."""
    if not isinstance(data, Mapping):
        raise ValueError(f"data must be a mapping, got {type(data).__name__}")


def finite_array(
    data: Mapping[str, Any],
    key: str,
    *,
    shape: tuple[int, ...] | None = None,
    ndim: int | None = None,
) -> np.ndarray:
    """Return ``data[key]`` as a new finite float array, of a given shape or ndim if asked.

    The message for a non-finite entry names its index.
    """
    if key not in data:
        raise ValueError(f"data is missing the key {key!r}")
    try:
        value = np.array(data[key], dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{key} must be numeric, got {data[key]!r}") from None
    if shape is not None and value.shape != shape:
        raise ValueError(f"{key} must have shape {shape}, got shape {value.shape}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{key} must be {ndim}-D, got shape {value.shape}")
    if not np.all(np.isfinite(value)):
        if value.ndim == 0:
            raise ValueError(f"{key} must be finite, got {value.item()!r}")
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(value))[0])
        index = bad[0] if len(bad) == 1 else bad
        raise ValueError(f"{key} must be finite, got {value[bad]!r} at index {index}")
    return value


def finite_scalar(data: Mapping[str, Any], key: str) -> float:
    """Return ``data[key]`` as a finite float."""
    return float(finite_array(data, key, shape=()))


def positive_scalar(data: Mapping[str, Any], key: str) -> float:
    """Return ``data[key]`` as a finite float > 0."""
    value = finite_scalar(data, key)
    if value <= 0:
        raise ValueError(f"{key} must be > 0, got {value!r}")
    return value


def integer_at_least(data: Mapping[str, Any], key: str, low: int) -> int:
    """Return ``data[key]`` as an int >= ``low`` (a 0-d integer array is accepted)."""
    if key not in data:
        raise ValueError(f"data is missing the key {key!r}")
    return check_integer(key, data[key], low)
