"""The z-checks: every statistic of every quantity, between two sides and against exact answers.

A check kind of the second layer: it builds the table of z-scores from the
summaries (:func:`z_checks`), tests it with the kernels of :mod:`.inference`
(Holm's correction, resolutions, gross differences; :func:`tested_z_checks`), and makes
one :class:`~.checks.Check` of kind ``agreement`` or ``exact`` per row
(:func:`z_check_records`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from mcmc_pairs.comparisons.kinds import CheckKind, Statistic
from mcmc_pairs.comparisons.pair import ExactMarginal
from mcmc_pairs.comparisons.settings import TOLERANCE
from mcmc_pairs.comparisons.stats.checks import FRAME_COLUMNS, Check
from mcmc_pairs.comparisons.stats.inference import (
    ALPHA,
    ALPHA_EQUIVALENCE,
    gross_differences,
    holm,
    resolutions,
    z_p_values,
    z_score,
)

STATISTICS = tuple(Statistic)
"""Every statistic compared by default: mean, sd and the quantiles of
:data:`~mcmc_pairs.comparisons.pair.PROBS`."""
StatisticsOf = Callable[[str], Sequence[str]]
"""The statistics compared for a quantity."""


def z_checks(
    summaries: Mapping[str, pd.DataFrame],
    pairs: Sequence[tuple[str, str]],
    reference: Mapping[str, ExactMarginal] | None = None,
    statistics: Sequence[str] = STATISTICS,
    statistics_of: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Return the uncorrected z-checks between sides and against the exact answer.

    Parameters
    ----------
    summaries : mapping of str to DataFrame
        :func:`summarize` output per side label.
    pairs : sequence of (str, str)
        Side labels to compare, ``(candidate, reference_side)``.
    reference : mapping of str to ExactMarginal, optional
        Exact marginals per quantity; every side is checked against them.
    statistics : sequence of str
        Statistics to compare (default: mean, sd, 5/50/95 % quantiles).
    statistics_of : mapping of str to sequence of str, optional
        Quantities compared by other statistics than ``statistics`` (a discrete
        quantity by its mean and sd, its indicators by their mean).

    Returns
    -------
    pandas.DataFrame
        One row per check: ``comparison`` (``"a vs b"``, ``"a vs exact"``),
        ``side`` (the side it judges: the candidate, or the side checked
        against the exact answer), ``kind`` (``"agreement"`` or ``"exact"``),
        ``quantity``, ``statistic``, ``a``, ``b``, ``z`` (the value), ``p``
        (two-sided), ``se`` (the difference's standard error from the MCSEs),
        ``se_batch`` (its standard error with the chains as batches, see
        :func:`summarize`), ``scale`` (the posterior sd that :func:`resolutions`
        measures the difference in: the root mean square of the two sides' sds,
        or the exact sd where it is known).
    """
    of = statistics_of or {}
    rows = [
        *_agreement_rows(summaries, pairs, lambda q: of.get(q, statistics)),
        *_exact_rows(summaries, reference or {}, lambda q: of.get(q, statistics)),
    ]
    columns = ["comparison", "side", "kind", "quantity", "statistic", "a", "b", "z", "p", "se"]
    columns += ["se_batch", "scale"]
    table = pd.DataFrame(rows, columns=columns)
    table["p"] = z_p_values(table["z"].to_numpy(dtype=float), table["statistic"])
    return table


def _agreement_rows(
    summaries: Mapping[str, pd.DataFrame],
    pairs: Sequence[tuple[str, str]],
    statistics_of: StatisticsOf,
) -> list[dict[str, object]]:
    """Return the z-checks of each ``(a, b)`` in ``pairs``: every shared quantity and statistic.

    ``statistics_of(quantity)`` gives the statistics compared for a quantity.
    """
    rows = []
    for a_label, b_label in pairs:
        common = summaries[a_label].index.intersection(summaries[b_label].index, sort=False)
        # arrays: no per-cell lookup
        a, b = (_columns(summaries[label].loc[common]) for label in (a_label, b_label))
        scale = np.hypot(a[Statistic.SD], b[Statistic.SD]) / np.sqrt(2)
        for i, quantity in enumerate(common):
            for stat in statistics_of(quantity):
                se = np.hypot(a[f"mcse_{stat}"][i], b[f"mcse_{stat}"][i])
                batch = np.hypot(a[f"batch_{stat}"][i], b[f"batch_{stat}"][i])
                row = _z_row(f"{a_label} vs {b_label}", quantity, stat, a[stat][i], b[stat][i], se)
                rows.append(
                    {
                        **row,
                        "side": a_label,
                        "kind": CheckKind.AGREEMENT,
                        "se_batch": batch,
                        "scale": scale[i],
                    }
                )
    return rows


def _exact_rows(
    summaries: Mapping[str, pd.DataFrame],
    reference: Mapping[str, ExactMarginal],
    statistics_of: StatisticsOf,
) -> list[dict[str, object]]:
    """Return the z-checks of every side against the exact answer, where it is known."""
    rows = []
    for label, summary in summaries.items():
        at = {str(quantity): i for i, quantity in enumerate(summary.index)}
        values = _columns(summary)  # arrays: no per-cell lookup
        for quantity, exact in reference.items():
            if quantity not in at:
                continue
            i = at[quantity]
            for stat in statistics_of(quantity):
                truth = exact.statistic(stat)
                if truth is None:
                    continue
                se = values[f"mcse_{stat}"][i]
                row = _z_row(f"{label} vs exact", quantity, stat, values[stat][i], truth, se)
                scale = exact.sd if exact.sd is not None else values[Statistic.SD][i]
                rows.append(
                    {
                        **row,
                        "side": label,
                        "kind": CheckKind.EXACT,
                        "se_batch": values[f"batch_{stat}"][i],
                        "scale": scale,
                    }
                )
    return rows


def _columns(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """Return every column of ``frame`` as an array, by its name."""
    return {str(name): frame[name].to_numpy() for name in frame.columns}


def _z_row(
    comparison: str, quantity: str, statistic: str, a: float, b: float, se: float
) -> dict[str, object]:
    """One z-check without its p-value (:func:`~.inference.z_p_values` adds them all at once)."""
    return {
        "comparison": comparison,
        "quantity": quantity,
        "statistic": statistic,
        "a": float(a),
        "b": float(b),
        "z": z_score(a, b, se),
        "se": float(se),
    }


def check_notes(z_table: pd.DataFrame) -> pd.Series:
    """Say in words what a z-check's bare numbers hide: a zero or missing MCSE.

    A difference over a standard error of 0 is a z of infinity: no Monte
    Carlo error can explain it, and the reason (a side constant in every draw,
    a chain stuck, or a lattice quantile; discrete quantities are compared by
    indicators instead, :func:`lattice_indicators`) is named.
    """
    se = z_table["se"].to_numpy(dtype=float)
    same = (z_table["a"] == z_table["b"]).to_numpy()
    notes = np.full(len(z_table), "", dtype=object)
    notes[np.isnan(se)] = "no MCSE (too few draws per chain to estimate one): not tested"
    zero = se == 0
    notes[zero & same] = "MCSE 0 on both sides and the same value: nothing to test"
    notes[zero & ~same] = (
        "MCSE 0 on both sides but different values: no Monte Carlo error explains the "
        "difference (a side constant in every draw, or stuck)"
    )
    return pd.Series(notes, index=z_table.index)


def tested_z_checks(
    summaries: Mapping[str, pd.DataFrame],
    pairs: Sequence[tuple[str, str]],
    reference: Mapping[str, ExactMarginal] | None = None,
    statistics: Sequence[str] = STATISTICS,
    statistics_of: Mapping[str, Sequence[str]] | None = None,
    *,
    alpha: float = ALPHA,
    tolerance: float = TOLERANCE,
    alpha_equivalence: float = ALPHA_EQUIVALENCE,
    means_only: Collection[str] = (),
) -> pd.DataFrame:
    """Return the z-checks (:func:`z_checks`) tested: Holm-corrected, resolved, gross, noted.

    The arguments are :func:`z_checks`', ``alpha`` Holm's family-wise rate
    (:func:`~.inference.holm`), ``tolerance``, ``alpha_equivalence`` and
    ``means_only`` those of :func:`~.inference.resolutions`.

    Returns
    -------
    pandas.DataFrame
        One row per z-check: the columns of :func:`z_checks` and of
        :func:`~.inference.resolutions`, ``threshold``, ``level``, ``passed``,
        ``value`` (the z-score), ``statistic`` its label (``"z(mean)"``), ``gross``
        (:func:`~.inference.gross_differences`) and ``note`` (:func:`check_notes`).
    """
    table = holm(z_checks(summaries, pairs, reference, statistics, statistics_of), alpha)
    table = resolutions(table, tolerance, alpha_equivalence, means_only)
    labels = [Statistic(statistic).check for statistic in table["statistic"]]
    table = table.assign(value=table["z"], statistic=labels)
    table["gross"] = gross_differences(table)
    table["note"] = check_notes(table)
    return table


def z_check_records(table: pd.DataFrame) -> list[Check]:
    """Return a :class:`~.checks.Check` of every row of :func:`tested_z_checks`, in its order."""
    return [_z_check(row) for row in table[list(FRAME_COLUMNS)].to_dict("records")]


def _z_check(row: Mapping[Hashable, Any]) -> Check:
    """Return the :class:`~.checks.Check` of one row of :func:`tested_z_checks`."""
    fields = {str(name): value for name, value in row.items()}
    equivalent = fields["equivalent"]
    return Check(
        **fields
        | {
            "kind": CheckKind(fields["kind"]),
            "passed": bool(fields["passed"]),
            "gross": bool(fields["gross"]),
            "equivalent": None if pd.isna(equivalent) else bool(equivalent),
        }
    )
