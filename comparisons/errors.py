"""Bad input: one-line error messages (the argument checks are :mod:`pairdata.checks`)."""

from __future__ import annotations


def one_line(exc: BaseException) -> str:
    """Return ``exc``'s message on one line (its type's name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__
