"""The multivariate check: two sides' draws of all quantities at once, by their energy distance.

A check kind of the second layer, on the kernel :mod:`mcmc_pairs.comparisons.energy`:
the two sides' draws must not differ by more than their energy distance's
block-permutation test allows at ``energy.ALPHA``, which catches joint structure
that the marginal z-checks miss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import xarray as xr

from mcmc_pairs.comparisons import energy
from mcmc_pairs.comparisons.kinds import CheckKind, Gate, Measure
from mcmc_pairs.comparisons.stats.checks import ALL_QUANTITIES, Check


def energy_checks(
    sides: Mapping[str, xr.DataArray],
    pairs: Sequence[tuple[str, str]],
    summaries: Mapping[str, pd.DataFrame],
    level: float = energy.ALPHA,
) -> list[Check]:
    """Return the multivariate check (:mod:`mcmc_pairs.comparisons.energy`) of every pair of sides.

    One per pair, ``kind`` ``"multivariate"``, quantity ``"all"``, statistic
    :attr:`~mcmc_pairs.comparisons.kinds.Measure.ENERGY`: the energy distance of
    the two sides' thinned, standardised draws of every quantity (``sides``, shape
    (chain, draw, quantity) each), against the ``1 - level`` quantile (``level``
    :data:`~.energy.ALPHA` unless a run's rate says otherwise) of its
    block-permutation distribution, with its p-value and a note naming the
    quantities that drive the distance (:func:`mcmc_pairs.comparisons.energy.drivers`).
    Pairs with non-finite draws are left out (their support checks fail). The
    permutations are seeded, so a run's checks are the same every time.
    """
    checks = []
    for a_label, b_label in pairs:
        a, b = sides[a_label], sides[b_label]
        in_b = set(b["quantity"].values)
        common = [q for q in a["quantity"].values if q in in_b]
        a, b = a.sel(quantity=common), b.sel(quantity=common)
        if not (np.isfinite(a.values).all() and np.isfinite(b.values).all()):
            continue
        min_ess = (
            float(summaries[a_label].loc[common, Gate.ESS_BULK].min()),
            float(summaries[b_label].loc[common, Gate.ESS_BULK].min()),
        )
        rng = np.random.default_rng(0)
        statistic, p, critical = energy.energy_test(a, b, min_ess, rng, level)
        drivers = energy.drivers(a, b, min_ess)
        checks.append(
            Check(
                comparison=f"{a_label} vs {b_label}",
                side=a_label,
                kind=CheckKind.MULTIVARIATE,
                quantity=ALL_QUANTITIES,
                statistic=Measure.ENERGY,
                value=statistic,
                threshold=critical,
                passed=p > level,
                p=p,
                level=level,
                note="largest one-dimensional energy distances: "
                + ", ".join(f"{q} {d:.3g}" for q, d in drivers),
            )
        )
    return checks
