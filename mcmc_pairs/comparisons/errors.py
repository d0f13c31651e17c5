"""Bad input: one-line error messages (the argument checks are :mod:`mcmc_pairs.pairdata.checks`).

Also the third-party warnings that say nothing to a user (:func:`quiet_third_party`).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator

QUIET = (
    (DeprecationWarning, r".*use of fork\(\) may lead to deadlocks"),
    (Warning, r".*[Oo]bject mode"),  # numba's "... falling back to object mode ..." too
)
"""Third-party warnings that say nothing to a user: Python's note that a threaded process
forks (the sampler's timeout child, Dask), numba's object mode (PyMC's numba backend on a
discrete prior)."""


def quiet_third_party() -> None:
    """Ignore the warnings of :data:`QUIET` in this process (the CLI, its workers, Dask tasks).

    (PyMC's log lines on multiprocess or sequential sampling, its step methods
    and its timing are kept out by the run itself, whose PyMC side's first
    "done" line names its step methods: :func:`mcmc_pairs.comparisons.sides.run_pymc`.)
    """
    import warnings

    for category, message in QUIET:
        warnings.filterwarnings("ignore", message=message, category=category)


def one_line(exc: BaseException) -> str:
    """Return ``exc``'s message on one line (its type's name when it has none).

    The message is :func:`printable`: a user's sampler may raise with terminal
    escape sequences in its message, and the line goes to the terminal.
    """
    return " ".join(printable(str(exc), keep="").split()) or type(exc).__name__


_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erasing (ECMA-48)
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # any other escape and what it introduces
    r"|\x9b[0-?]*[ -/]*[@-~]"  # the 8-bit CSI
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str, keep: str = "\n") -> str:
    """Return ``text`` without terminal escape sequences and control characters.

    ANSI/ECMA-48 escape sequences are removed whole; every other C0 control,
    DEL and C1 control is removed, except tabs (a space) and the characters of
    ``keep`` (newlines by default). For user text printed to a terminal; the
    JSON and HTML reports escape text instead.
    """
    text = _ESCAPES.sub("", str(text)).replace("\t", " ")
    return _CONTROL.sub(lambda m: m.group() if m.group() in keep else "", text)


@contextlib.contextmanager
def printable_stdout() -> Iterator[None]:
    """Print what the block prints to stdout :func:`printable`, when it ends.

    For the CLI's summaries, which carry a user's names (variables, samplers).
    """
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            yield
    finally:
        sys.stdout.write(printable(buffer.getvalue()))
