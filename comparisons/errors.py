"""Bad input: one-line error messages (the argument checks are :mod:`mcmc_pairs.pairdata.checks`).

Also the third-party warnings that say nothing to a user (:func:`quiet_third_party`).
"""

from __future__ import annotations

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
    """Return ``exc``'s message on one line (its type's name when it has none)."""
    return " ".join(str(exc).split()) or type(exc).__name__
