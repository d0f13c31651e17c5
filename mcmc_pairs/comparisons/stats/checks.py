"""A check as a typed record, and the one function that makes a table of them.

Every check kind's module (:mod:`.zchecks`, :mod:`.gates`, :mod:`.divergences`,
:mod:`.support`, :mod:`.multivariate`, :mod:`.constants`) makes :class:`Check`
records; :func:`checks_frame` turns records into the checks table, at the edge,
for the verdict rules (:mod:`.verdicts`), the JSON report and the page. Its
columns are :data:`FRAME_COLUMNS`, in that order, whatever kinds the records are.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import astuple, dataclass

import pandas as pd

from mcmc_pairs.comparisons.kinds import CheckKind

NAN = math.nan
ALL_QUANTITIES = "all"
"""The ``quantity`` of a check of a side's whole run rather than one quantity."""
CHECK_COLUMNS = (
    "comparison", "side", "kind", "quantity", "statistic", "value", "threshold", "passed",
)  # fmt: skip
"""Columns every check fills; ``side`` is the side a check judges, ``kind`` a
:class:`~mcmc_pairs.comparisons.kinds.CheckKind`."""
CHECK_RESOLUTION_COLUMNS = ("difference", "resolution", "tolerance", "equivalent")
"""Columns a z-check adds to :data:`CHECK_COLUMNS`
(:func:`~mcmc_pairs.comparisons.stats.inference.resolutions`), with ``gross``."""
CHECK_TEST_COLUMNS = ("p", "level", "note")
"""Columns of the tests behind a check: its p-value, the level it is judged at (Holm's, at
its rank, for a z-check; ``energy.ALPHA`` for the energy check) and a note in words where
the numbers need one (:func:`~.zchecks.check_notes`): ``NaN``, ``NaN`` and ``""`` for the
gates."""
FRAME_COLUMNS = (*CHECK_COLUMNS, "gross", *CHECK_RESOLUTION_COLUMNS, *CHECK_TEST_COLUMNS)
"""The 16 columns of a checks table, in order: the fields of :class:`Check`."""


@dataclass(frozen=True)
class Check:
    """One check of a run: what it compares, its value, the threshold, and whether it passed.

    The fields are the columns of the checks table (:data:`FRAME_COLUMNS`); those
    that only some kinds fill default to what the others have: ``gross`` false,
    the numbers NaN, ``equivalent`` None (no tolerance applies), ``note`` empty.
    """

    comparison: str
    """``"a vs b"``, ``"a vs exact"``, or a side's label for its own checks."""
    side: str
    """The side the check judges."""
    kind: CheckKind
    quantity: str
    """A quantity's name, or :data:`ALL_QUANTITIES`."""
    statistic: str
    """A z-check's label (``"z(mean)"``), a :class:`~.kinds.Gate` or :class:`~.kinds.Measure`,
    or an honesty check's statistic."""
    value: float
    threshold: float
    passed: bool
    gross: bool = False
    """A z-difference no plausible Monte Carlo error explains (:func:`~.gross_differences`)."""
    difference: float = NAN
    """A z-check's difference in posterior sds, signed."""
    resolution: float = NAN
    tolerance: float = NAN
    equivalent: bool | None = None
    p: float = NAN
    level: float = NAN
    note: str = ""


def checks_frame(checks: Iterable[Check]) -> pd.DataFrame:
    """Return the checks table of ``checks``: one row each, columns :data:`FRAME_COLUMNS`.

    ``passed`` and ``gross`` are bool, ``equivalent`` an object column of
    True, False and None, the numbers float.
    """
    rows = [astuple(check) for check in checks]
    frame = pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
    numbers = ("value", "threshold", "difference", "resolution", "tolerance", "p", "level")
    dtypes: dict[str, type] = {name: float for name in numbers}
    return frame.astype(dtypes | {"passed": bool, "gross": bool, "equivalent": object})
