"""The divergence gate of a side: none of its transitions may diverge.

A check kind of the second layer; a failed one is a failed gate
(:func:`~.verdicts.gates_failed`), and :func:`~.verdicts.diverged` tells a run
that more draws cannot mend it.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons.kinds import CheckKind, Gate
from mcmc_pairs.comparisons.stats.checks import ALL_QUANTITIES, Check


def divergence_checks(label: str, tree: xr.DataTree) -> list[Check]:
    """Return the divergence gate of a side: none of its transitions may diverge.

    NUTS and HMC (PyMC's, nutpie's, NumPyro's) mark a transition whose energy
    error blew up as ``sample_stats.diverging``: the trajectory met curvature
    its step size cannot follow (a funnel's neck), and the chain under-visits
    that region however long it runs, so its draws are biased while R-hat and
    ESS may look fine. One check (kind ``"diagnostic"``, quantity ``"all"``,
    statistic :attr:`~mcmc_pairs.comparisons.kinds.Gate.DIVERGENCES`): ``value``
    the number of divergent draws in all chains, threshold 0. None for a side
    that records no divergences (a Gibbs sampler, Metropolis).

    Parameters
    ----------
    label : str
        The side's label.
    tree : xarray.DataTree
        The side's draws; ``sample_stats.diverging`` of shape (chain, draw) if any.

    Returns
    -------
    list of Check
        Zero or one.
    """
    stats = tree.children.get("sample_stats")
    if stats is None or "diverging" not in stats.data_vars:
        return []
    count = int(np.count_nonzero(np.asarray(stats["diverging"].values, dtype=bool)))
    check = Check(
        comparison=label,
        side=label,
        kind=CheckKind.DIAGNOSTIC,
        quantity=ALL_QUANTITIES,
        statistic=Gate.DIVERGENCES,
        value=float(count),
        threshold=0.0,
        passed=count == 0,
    )
    return [check]
