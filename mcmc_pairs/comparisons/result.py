"""What one run of a pair leaves for its reports: :class:`PairResult`.

:func:`mcmc_pairs.comparisons.run.run_pair` makes it; :mod:`~.report` and a
pair's own report sections (``Pair.report_sections``, in ``pairs/<name>.py``)
read it. It lives apart from the run so that a pair's module can name it without
importing the run that imports the pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from mcmc_pairs.comparisons.kinds import Verdict
from mcmc_pairs.comparisons.pair import ExactMarginal, Pair
from mcmc_pairs.comparisons.settings import Settings
from mcmc_pairs.comparisons.sides import Side


@dataclass
class PairResult:
    """Everything a report needs about one run of a pair."""

    pair: Pair
    settings: Settings
    sides: dict[str, Side]
    verdict: Verdict
    verdicts: dict[str, Verdict]
    checks: pd.DataFrame
    summaries: dict[str, pd.DataFrame]
    reference: Mapping[str, ExactMarginal] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    data: Mapping[str, Any] = field(default_factory=dict)
    looks: list[dict[str, Any]] = field(default_factory=list)
    """Per look: ``look``, ``draws`` per chain (of the sides ``grown`` at that look; a
    side not grown keeps its draws), the error rates spent (``alpha``,
    ``alpha_equivalence``), its ``seconds`` and every side's ``verdicts``."""
    pymc_runs: dict[tuple[str, int], Side] = field(default_factory=dict)
    """PyMC's runs by (side label, draws): what ``pymc_from`` reuses."""
    discrete: list[str] = field(default_factory=list)
    """Quantities compared as discrete (:func:`~.agreement.discrete_quantities`):
    by their mean, sd and ``P(X <= k)`` at the pooled quantiles, not by quantiles."""
    cannot_grow: list[str] = field(default_factory=list)
    """Sides of stored draws that an undecided run would have grown: their own Monte
    Carlo error limits the resolution (:mod:`~.stored`)."""
    memo_directory: Path | None = None
    """The reference cache the run used (None: none): its report keeps the figures drawn
    from draws alone beside it (:class:`~.reuse.FigureMemo`)."""

    def ess_per_second(self, label: str) -> float:
        """Minimum bulk ESS over the compared quantities per second of sampling (NaN: stored)."""
        if self.sides[label].stored:
            return float("nan")
        seconds = self.sides[label].timings["sampling_s"]
        return float(self.summaries[label]["ess_bulk"].min() / max(seconds, 1e-9))
