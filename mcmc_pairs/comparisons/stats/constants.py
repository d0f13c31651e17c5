"""The constant checks: a quantity constant in every draw is compared exactly, not by z.

A check kind of the second layer. A quantity constant on both sides of a pair
has no Monte Carlo error: its z-checks become an exact comparison
(:func:`compare_constants_exactly`), and its gates, R-hat undefined, do not apply
(:func:`constant_gates`); constant on one side only, it fails that side's R-hat
gate (a stuck sampler). Which quantities are constant: :func:`~.quantities.constant_quantities`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from mcmc_pairs.comparisons.kinds import Gate
from mcmc_pairs.comparisons.stats.checks import Check


def _partners(pairs: Sequence[tuple[str, str]]) -> dict[str, set[str]]:
    """Return, per side, the sides it is compared with (in either place of a pair)."""
    out: dict[str, set[str]] = {}
    for a, b in pairs:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return out


CONSTANT_EQUAL = "constant in every draw on both sides and equal: compared exactly, passed"
CONSTANT_UNEQUAL = "constant in every draw on both sides but different values: compared exactly"


def compare_constants_exactly(
    z_table: pd.DataFrame, constant: Mapping[str, set[str]], pairs: Sequence[tuple[str, str]]
) -> pd.DataFrame:
    """Compare a quantity constant on both sides of a pair exactly: equal passes, unequal fails.

    There is no Monte Carlo error to test against: the z-check of every statistic
    of such a quantity passes, with z 0, resolution 0 and ``equivalent``, when
    the two values are equal, and fails, with z infinite, ``gross`` and not
    ``equivalent``, when they differ.

    Parameters
    ----------
    z_table : pandas.DataFrame
        The z-checks with :func:`resolutions`, ``gross`` and ``note``.
    constant : mapping of str to set of str
        :func:`constant_quantities`.
    pairs : sequence of (str, str)
        The compared sides.
    """
    z_table = z_table.copy()
    for a, b in pairs:
        both = constant.get(a, set()) & constant.get(b, set())
        rows = (z_table["comparison"] == f"{a} vs {b}") & z_table["quantity"].isin(both)
        if not rows.any():
            continue
        equal = (z_table.loc[rows, "a"] == z_table.loc[rows, "b"]).astype(bool)
        z_table.loc[rows, "value"] = np.where(equal, 0.0, np.inf)
        z_table.loc[rows, "p"] = np.where(equal, 1.0, 0.0)
        z_table.loc[rows, "passed"] = equal
        z_table.loc[rows, "gross"] = ~equal
        z_table.loc[rows, "resolution"] = np.where(equal, 0.0, np.inf)
        z_table.loc[rows, "note"] = np.where(equal, CONSTANT_EQUAL, CONSTANT_UNEQUAL)
        certified = rows & z_table["tolerance"].notna()
        z_table.loc[certified, "equivalent"] = equal[certified[rows].to_numpy()]
    return z_table


NOT_APPLICABLE = (
    "not applicable: constant in every draw here and on every side it is compared with "
    "(R-hat undefined); compared exactly instead"
)
STUCK = (
    "constant in every draw here but not on a side it is compared with: a stuck sampler "
    "(R-hat undefined)"
)


def constant_gates(
    gates: Sequence[Check], constant: Mapping[str, set[str]], pairs: Sequence[tuple[str, str]]
) -> list[Check]:
    """Mark the gates of constant quantities: not applicable when constant on both sides.

    A quantity constant on a side and on every side it is compared with has an
    undefined (NaN) R-hat and says nothing about mixing: its R-hat and ESS gates
    pass, with the note :data:`NOT_APPLICABLE` (the z-checks compare it
    exactly, :func:`compare_constants_exactly`). A quantity constant on a side
    but varying on a side it is compared with is a stuck sampler there: its
    R-hat gate fails, with the note :data:`STUCK` (the reference's gate, when
    the reference is the stuck one).

    Parameters
    ----------
    gates : sequence of Check
        :func:`~.gates.diagnostic_checks`.
    constant : mapping of str to set of str
        :func:`~.quantities.constant_quantities`.
    pairs : sequence of (str, str)
        The compared sides.

    Returns
    -------
    list of Check
        ``gates``, in their order, those of constant quantities marked.
    """
    partners = _partners(pairs)
    shared: dict[str, set[str]] = {}
    for label, mine in constant.items():
        others = partners.get(label, set())
        if mine and others:
            shared[label] = set.intersection(mine, *(constant.get(o, set()) for o in others))
    return [_marked(gate, constant, shared) for gate in gates]


def _marked(gate: Check, constant: Mapping[str, set[str]], shared: Mapping[str, set[str]]) -> Check:
    """Return ``gate`` marked not applicable or stuck (:func:`constant_gates`), else itself."""
    if gate.side not in shared:
        return gate
    if gate.quantity in shared[gate.side]:
        return dataclasses.replace(gate, passed=True, note=NOT_APPLICABLE)
    stuck = gate.quantity in constant[gate.side] - shared[gate.side]
    if stuck and gate.statistic == Gate.R_HAT:
        return dataclasses.replace(gate, passed=False, note=STUCK)
    return gate
