"""What "agree" means, as one procedure: :func:`compare_draws`, built from the statistics' layers.

The statistics live in :mod:`mcmc_pairs.comparisons.stats`, in three layers, the
way arviz-stats builds them:

1. numeric kernels: the quantities (:mod:`~.stats.quantities`), their summaries
   (:mod:`~.stats.summaries`) and the tests (:mod:`~.stats.inference`: z-scores,
   Holm, resolutions, R-hat thresholds);
2. one module per check kind, each making :class:`~.stats.checks.Check` records:
   z-checks (:mod:`~.stats.zchecks`), constant quantities
   (:mod:`~.stats.constants`), gates (:mod:`~.stats.gates`), divergences
   (:mod:`~.stats.divergences`), support (:mod:`~.stats.support`) and the energy
   check (:mod:`~.stats.multivariate`); the honesty checks are
   :mod:`~mcmc_pairs.comparisons.honesty`'s;
3. the verdict rules (:mod:`~.stats.verdicts`), on the checks table that
   :func:`~.stats.checks.checks_frame` makes of the records.

This module runs them in order (:func:`compare_draws`), summarising large draws
on two processes (:func:`~.split_summaries.summarize_sides`, the execution side),
and keeps the names the rest of the harness reads (``agreement.ALPHA``,
``agreement.side_verdicts``, ...), so their importers need not know the layers.
The rules themselves: docs/contracts.md, "What 'agree' means".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import pandas as pd
import xarray as xr

from mcmc_pairs.comparisons import energy
from mcmc_pairs.comparisons.kinds import SEVERITY, Z_KINDS, Verdict
from mcmc_pairs.comparisons.pair import ExactMarginal
from mcmc_pairs.comparisons.settings import TOLERANCE
from mcmc_pairs.comparisons.split_summaries import summarize_sides
from mcmc_pairs.comparisons.stats import gates, multivariate
from mcmc_pairs.comparisons.stats.checks import (
    CHECK_COLUMNS,
    CHECK_RESOLUTION_COLUMNS,
    CHECK_TEST_COLUMNS,
    checks_frame,
)
from mcmc_pairs.comparisons.stats.constants import compare_constants_exactly, constant_gates
from mcmc_pairs.comparisons.stats.divergences import divergence_checks as divergence_records
from mcmc_pairs.comparisons.stats.inference import (
    ALPHA,
    ALPHA_EQUIVALENCE,
    ESS_PER_CHAIN_MIN,
    RHAT_MAX,
    Z_DF,
    holm,
    resolutions,
    rhat_threshold,
    tolerances,
    z_df,
)
from mcmc_pairs.comparisons.stats.quantities import (
    ALL_PAIRS_UP_TO,
    MAX_COMPONENTS_FOR_PRODUCTS,
    MAX_PRODUCTS,
    centred_products,
    constant_quantities,
    discrete_quantities,
    product_pairs,
    scalar_components,
    with_lattice_indicators,
)
from mcmc_pairs.comparisons.stats.summaries import summarize
from mcmc_pairs.comparisons.stats.support import support_checks
from mcmc_pairs.comparisons.stats.verdicts import (
    LEAD,
    diverged,
    held_sides,
    lead,
    side_verdicts,
    support_failed,
    verdict,
    verdict_of,
)
from mcmc_pairs.comparisons.stats.zchecks import (
    STATISTICS,
    tested_z_checks,
    z_check_records,
    z_checks,
)

__all__ = [
    "AGREE",
    "ALL_PAIRS_UP_TO",
    "ALPHA",
    "ALPHA_EQUIVALENCE",
    "CHECK_COLUMNS",
    "CHECK_RESOLUTION_COLUMNS",
    "CHECK_TEST_COLUMNS",
    "DISAGREE",
    "ESS_PER_CHAIN_MIN",
    "INCONCLUSIVE",
    "LEAD",
    "MAX_COMPONENTS_FOR_PRODUCTS",
    "MAX_PRODUCTS",
    "NOT_CONVERGED",
    "REFERENCE_FAILED",
    "RHAT_MAX",
    "STATISTICS",
    "VERDICTS",
    "Z_DF",
    "centred_products",
    "compare_draws",
    "diagnostic_checks",
    "discrete_quantities",
    "diverged",
    "divergence_checks",
    "held_sides",
    "holm",
    "lead",
    "product_pairs",
    "resolutions",
    "rhat_threshold",
    "scalar_components",
    "side_verdicts",
    "summarize",
    "summarize_sides",
    "support_failed",
    "tolerances",
    "verdict",
    "verdict_of",
    "with_energy_checks",
    "z_checks",
    "z_df",
]

AGREE, DISAGREE, NOT_CONVERGED = Verdict.AGREE, Verdict.DISAGREE, Verdict.NOT_CONVERGED
INCONCLUSIVE, REFERENCE_FAILED = Verdict.INCONCLUSIVE, Verdict.REFERENCE_FAILED
VERDICTS = SEVERITY
"""Every verdict, from best to worst."""


def compare_draws(
    sides: Mapping[str, xr.DataArray],
    pairs: Sequence[tuple[str, str]],
    reference: Mapping[str, ExactMarginal] | None = None,
    *,
    statistics: Sequence[str] = STATISTICS,
    alpha: float = ALPHA,
    tolerance: float = TOLERANCE,
    alpha_equivalence: float = ALPHA_EQUIVALENCE,
    means_only: Collection[str] = (),
    multivariate: bool = True,
) -> tuple[Verdict, pd.DataFrame, dict[str, pd.DataFrame]]:
    """Compare sides given as quantities arrays: the whole agreement procedure.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity).
    pairs : sequence of (str, str)
        Which sides to compare with which.
    reference : mapping, optional
        Exact marginals per quantity.
    statistics : sequence of str
        Statistics to compare.
    alpha : float
        Family-wise false-alarm rate of the z-checks (Holm).
    tolerance : float
        ``delta`` of :func:`tolerances`: the resolution ``agree`` certifies.
    alpha_equivalence : float
        Level of the two one-sided tests behind ``agree`` (:func:`resolutions`).
    means_only : collection of str
        Quantities whose mean alone ``agree`` certifies (:func:`resolutions`).
    multivariate : bool
        Add the energy checks (:func:`energy_checks`); a sequential run adds
        them once, at its last look (:func:`with_energy_checks`).

    Returns
    -------
    verdict : Verdict
    checks : pandas.DataFrame
        :func:`~.stats.checks.checks_frame` of the z-checks (with ``kind="agreement"``
        or ``"exact"``), the multivariate checks, the gates (``kind="diagnostic"``)
        and the support checks (``kind="support"``), in that order; ``side``
        names the side each check judges (:func:`side_verdicts`).
    summaries : dict of str to DataFrame
    """
    _check_levels(alpha, alpha_equivalence, tolerance)
    chains = {da.sizes["chain"] for da in sides.values()}
    original = sides
    sides, statistics_of = with_lattice_indicators(sides, statistics)
    summaries = summarize_sides(sides)
    z_table = tested_z_checks(
        summaries,
        pairs,
        reference,
        statistics,
        statistics_of,
        alpha=alpha,
        tolerance=tolerance,
        alpha_equivalence=alpha_equivalence,
        means_only=means_only,
    )
    constant = constant_quantities(sides)
    z_table = compare_constants_exactly(z_table, constant, pairs)
    draws = {label: da.sizes["draw"] for label, da in sides.items()}
    diagnostics = gates.diagnostic_checks(summaries, max(chains), draws)
    checks = checks_frame(
        [
            *z_check_records(z_table),
            *constant_gates(diagnostics, constant, pairs),
            *support_checks(sides),
        ]
    )
    if multivariate:
        checks = with_energy_checks(checks, original, pairs, summaries)
    return verdict_of(checks), checks, summaries


def _check_levels(alpha: float, alpha_equivalence: float, tolerance: float) -> None:
    """Raise ValueError unless both rates lie in (0, 1) and the tolerance is positive."""
    for name, value in (("alpha", alpha), ("alpha_equivalence", alpha_equivalence)):
        if not (isinstance(value, (int, float)) and 0 < value < 1):
            raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    tolerances(tolerance)  # checks it


def with_energy_checks(
    checks: pd.DataFrame,
    sides: Mapping[str, xr.DataArray],
    pairs: Sequence[tuple[str, str]],
    summaries: Mapping[str, pd.DataFrame],
    level: float = energy.ALPHA,
) -> pd.DataFrame:
    """Return ``checks`` with the energy checks (:func:`~.stats.multivariate.energy_checks`).

    They come after the z-checks; ``level`` is each energy check's false-alarm
    rate, ``sides`` each side's quantities, shape (chain, draw, quantity).
    """
    energy_rows = checks_frame(multivariate.energy_checks(sides, pairs, summaries, level))
    is_z = checks["kind"].isin(Z_KINDS)
    parts = [checks[is_z], energy_rows, checks[~is_z]]
    return pd.concat([p for p in parts if len(p)], ignore_index=True)


def diagnostic_checks(
    summaries: Mapping[str, pd.DataFrame], chains: int, draws: int | Mapping[str, int]
) -> pd.DataFrame:
    """Return the table of the gates :func:`~.stats.gates.diagnostic_checks` (same arguments)."""
    return checks_frame(gates.diagnostic_checks(summaries, chains, draws))


def divergence_checks(label: str, tree: xr.DataTree) -> pd.DataFrame:
    """Return the table of :func:`~.stats.divergences.divergence_checks`: zero rows or one."""
    return checks_frame(divergence_records(label, tree))
