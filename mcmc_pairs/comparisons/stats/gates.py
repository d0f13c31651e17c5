"""The convergence gates of a side: R-hat, bulk and tail ESS, per quantity.

A check kind of the second layer: each side must pass the gates R-hat below its
threshold (:func:`~.inference.rhat_threshold`) and bulk and tail ESS at least
:data:`~.inference.ESS_PER_CHAIN_MIN` per chain; a side that fails them is
``not converged`` (:func:`~.verdicts.verdict`). A side's divergences are a gate
too (:mod:`.divergences`); constant quantities' gates: :func:`~.constants.constant_gates`.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from mcmc_pairs.comparisons.kinds import CheckKind, Gate
from mcmc_pairs.comparisons.stats.checks import Check
from mcmc_pairs.comparisons.stats.inference import ESS_PER_CHAIN_MIN, rhat_threshold


def diagnostic_checks(
    summaries: Mapping[str, pd.DataFrame], chains: int, draws: int | Mapping[str, int]
) -> list[Check]:
    """Return the convergence gates of every side: R-hat, bulk and tail ESS, per quantity.

    Each a :class:`~.checks.Check` of kind ``"diagnostic"``, ``side`` the side's label,
    statistic a :class:`~mcmc_pairs.comparisons.kinds.Gate`. The R-hat threshold
    of each quantity is :func:`~.inference.rhat_threshold` of its within-chain ESS
    and the side's number of quantities; ``draws`` is the draws per chain, one
    number or one per side.
    """
    ess_min = ESS_PER_CHAIN_MIN * chains
    checks = []
    for label, summary in summaries.items():
        ess = summary["ess_within"].to_numpy()
        n = draws[label] if isinstance(draws, Mapping) else draws
        rhat_max = rhat_threshold(ess, chains, n, len(summary))
        for (quantity, row), r_max in zip(summary.iterrows(), rhat_max, strict=True):
            for gate, value, threshold, ok in (
                (Gate.R_HAT, row[Gate.R_HAT], r_max, row[Gate.R_HAT] < r_max),
                (Gate.ESS_BULK, row[Gate.ESS_BULK], ess_min, row[Gate.ESS_BULK] >= ess_min),
                (Gate.ESS_TAIL, row[Gate.ESS_TAIL], ess_min, row[Gate.ESS_TAIL] >= ess_min),
            ):
                checks.append(
                    Check(
                        comparison=label,
                        side=label,
                        kind=CheckKind.DIAGNOSTIC,
                        quantity=str(quantity),
                        statistic=gate,
                        value=float(value),
                        threshold=float(threshold),
                        passed=bool(ok),
                    )
                )
    return checks
