"""Bad input: one-line error messages, and the argument checks that raise them."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any


def one_line(exc: BaseException) -> str:
    """Return ``exc``'s message on one line (its type's name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def check_integer(name: str, value: Any, low: int) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= ``low``.

    Parameters
    ----------
    name : str
        The argument's name, for the message.
    value : Any
        A Python or NumPy integer (``bool`` is refused).
    low : int
        The smallest allowed value.

    Raises
    ------
    ValueError
        ``"<name> must be an integer >= <low>, got <value>"``.
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def check_positive(name: str, value: Any, what: str = "number") -> float:
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
        or not isinstance(value, Real)
        or not math.isfinite(value)
        or value <= 0
    ):
        raise ValueError(f"{name} must be a positive {what}, got {value!r}")
    return float(value)
