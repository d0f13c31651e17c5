"""A run's false-alarm rate, split among the checks that can end it ``disagree``.

A correct sampler ends ``disagree`` only when one of three families of checks
raises a false alarm:

* the Holm-corrected z-checks (:func:`~.agreement.holm`), family-wise at
  :data:`~.agreement.ALPHA` over a run's checks, spent across its sequential
  looks by :func:`~.run.spent` (the looks' levels sum to it);
* the energy check of the joint distribution (:mod:`~.energy`), once per side
  under test, at the last look, at :data:`~.energy.ALPHA`;
* the honesty checks (:mod:`~.honesty`) of each side under test: the chains'
  independence at a family-wise :data:`~.honesty.ALPHA`; the copy and
  reproducibility checks, which a correct sampler (continuous draws of its own,
  the same draws for the same seed) does not fail.

By the union bound a run's false ``disagree`` has probability at most
``agreement.ALPHA + energy.ALPHA + honesty.ALPHA`` per side under test (0.011001
for one side), under any dependence between the checks. :func:`levels` turns a
rate ``alpha`` for the whole run into the z-checks' and the energy check's
levels, in the proportion of the defaults, after the honesty checks' fixed
share; ``alpha=None`` keeps the defaults, so that a run without ``alpha`` is
bit for bit the run before it existed.

The undecided verdicts, ``inconclusive`` and ``not converged``, are not false
alarms: they say that the draws did not resolve the difference or did not
converge, and more draws decide them. ``agree``'s own error rate,
:data:`~.agreement.ALPHA_EQUIVALENCE`, does not depend on ``alpha``, so a
smaller ``alpha`` does not make a run inconclusive more often.
"""

from __future__ import annotations

from typing import NamedTuple

from mcmc_pairs.comparisons import agreement, energy, honesty

HONESTY_ALPHA = honesty.ALPHA
"""The honesty checks' false-alarm rate per side under test."""
DEFAULT_RATE = agreement.ALPHA + energy.ALPHA + HONESTY_ALPHA
"""A run's false-``disagree`` rate at the default levels, with one side under test."""


class Levels(NamedTuple):
    """The levels of a run's checks that can end it ``disagree``.

    Attributes
    ----------
    z : float
        Family-wise rate of the run's Holm-corrected z-checks, spent over its looks.
    energy : float
        Level of each side under test's energy check.
    """

    z: float
    energy: float


DEFAULT = Levels(agreement.ALPHA, energy.ALPHA)
"""The levels of a run given no ``alpha``: today's constants."""


def check_rate(value: object, argument: str = "alpha") -> float:
    """Return ``value`` as a float when it is a rate in (0, 1); else raise naming ``argument``.

    Raises
    ------
    ValueError
        ``value`` is not a real number strictly between 0 and 1.
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise ValueError(f"{argument} must be a false-alarm rate in (0, 1), got {value!r}")
    return float(value)


def levels(alpha: float | None, sides: int = 1) -> Levels:
    """Return the z-checks' and the energy check's levels for a run's false-alarm rate.

    Parameters
    ----------
    alpha : float or None
        The run's false-``disagree`` rate: the probability, at most, that a run of
        correct samplers ends ``disagree``. None: :data:`DEFAULT`.
    sides : int
        Sides under test: each has its own energy check and honesty checks.

    Returns
    -------
    Levels
        ``z + sides * (energy + HONESTY_ALPHA) == alpha`` (to rounding): the z-checks get
        ``agreement.ALPHA / (agreement.ALPHA + energy.ALPHA)`` of what the honesty checks
        leave, the energy checks the rest, shared equally among the sides.

    Raises
    ------
    ValueError
        ``alpha`` outside (0, 1), or not above the honesty checks' share.
    """
    if alpha is None:
        return DEFAULT
    alpha = check_rate(alpha, "alpha")
    left = alpha - sides * HONESTY_ALPHA
    if left <= 0:
        raise ValueError(
            f"alpha must exceed the honesty checks' {sides * HONESTY_ALPHA:g} "
            f"({HONESTY_ALPHA:g} per side under test), got {alpha!r}"
        )
    z_share = agreement.ALPHA / (agreement.ALPHA + energy.ALPHA)
    return Levels(z=left * z_share, energy=left * (1 - z_share) / sides)
