"""The support checks: every draw of every quantity must be finite.

A check kind of the second layer: a draw whose log density is ``-inf`` lies
outside the target's support, and that is ``disagree`` whatever the gates say
(:func:`~.verdicts.support_failed`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons.kinds import CheckKind, Measure
from mcmc_pairs.comparisons.stats.checks import Check
from mcmc_pairs.comparisons.stats.quantities import SAMPLE_DIMS


def support_checks(sides: Mapping[str, xr.DataArray]) -> list[Check]:
    """Return one check per side and quantity: the fraction of non-finite draws must be 0.

    Each of kind ``"support"``, ``side`` the side's label, statistic
    :attr:`~mcmc_pairs.comparisons.kinds.Measure.NON_FINITE`; ``sides`` holds each
    side's quantities, shape (chain, draw, quantity).
    """
    checks = []
    for label, da in sides.items():
        values = np.asarray(da.transpose(*SAMPLE_DIMS, "quantity").values, dtype=float)
        bad = (~np.isfinite(values)).mean(axis=(0, 1))
        for quantity, fraction in zip(da["quantity"].values, bad, strict=True):
            checks.append(
                Check(
                    comparison=label,
                    side=label,
                    kind=CheckKind.SUPPORT,
                    quantity=str(quantity),
                    statistic=Measure.NON_FINITE,
                    value=float(fraction),
                    threshold=0.0,
                    passed=bool(fraction == 0),
                )
            )
    return checks
