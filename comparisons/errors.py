"""One-line error messages: what the CLI prints and what reports record."""

from __future__ import annotations


def one_line(exc: BaseException) -> str:
    """Return ``exc``'s message on one line (its type's name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__
