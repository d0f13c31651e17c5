"""The summaries of many draws, split over this process and a child interpreter.

The execution side of :func:`~mcmc_pairs.comparisons.stats.summaries.summarize`:
:func:`summarize_sides` is the one place the statistics start a process
(:class:`~.execution.ChildInterpreter`), and this module, run as ``python -m
mcmc_pairs.comparisons.split_summaries``, is that child: it summarises the sides
pickled at the path it is given and writes their summaries, pickled, to stdout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd
import xarray as xr

from mcmc_pairs.comparisons.execution import ChildInterpreter, available_cores
from mcmc_pairs.comparisons.stats import summaries
from mcmc_pairs.comparisons.stats.summaries import summarize_quietly

if TYPE_CHECKING:
    from mcmc_pairs.comparisons.reuse import SummaryMemo

PARALLEL_MIN_VALUES = 4_000_000
"""Values (draws x quantities, all sides) from which :func:`summarize_sides` uses two processes."""


def summarize_sides(
    sides: Mapping[str, xr.DataArray], cores: int | None = None
) -> dict[str, pd.DataFrame]:
    """Return every side's summary, in a second process too when the draws are many.

    The summaries are :func:`~.stats.summaries.summarize`'s.

    ArviZ's diagnostics loop over quantities in Python, so a large posterior
    (LDA: four sides of 718 quantities x 8,000 draws, about 5 s each) holds one
    core. From :data:`PARALLEL_MIN_VALUES` values on, and with two cores or
    more, every side's quantities are split: a child interpreter (``python -m
    mcmc_pairs.comparisons.split_summaries``, so a caller's unguarded script is
    never re-run) summarises the last ones while this process summarises the first
    :data:`HERE_SHARE` (a little more than half: the child first starts up).
    Every statistic of a quantity is computed from that quantity's draws
    alone, so the joined frames are those of one :func:`~.stats.summaries.summarize`, bit for
    bit (tested); if the child fails, its part is summarised here. A side whose
    quantities this process summarised before (the same bytes, :func:`~.reuse.array_key`)
    gets that summary back (:data:`~.reuse.SUMMARIES`), and within
    :func:`~.reuse.summaries_on_disk` (``compare`` with a reference cache) one
    kept on disk by an earlier process.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity).
    cores : int or None
        Cores to use (default: every core this process may run on); 1 never
        starts a child.

    Returns
    -------
    dict of str to DataFrame
        :func:`~.stats.summaries.summarize` per side, in the order of ``sides``.
    """
    from mcmc_pairs.comparisons import reuse

    keys = {label: reuse.array_key(da) for label, da in sides.items()}
    disk = reuse.summary_memo(summaries.__file__)  # the code that summarises
    kept = {label: _kept_summary(key, disk) for label, key in keys.items()}
    missing = {label: da for label, da in sides.items() if kept[label] is None}
    made = _summarize_each(missing, cores) if missing else {}
    for label, frame in made.items():
        reuse.SUMMARIES.store(keys[label], frame.copy())
        if disk is not None:
            disk.save(keys[label], frame)
    return {
        label: made[label] if (found := kept[label]) is None else found.copy() for label in sides
    }


def _kept_summary(key: tuple, disk: SummaryMemo | None) -> pd.DataFrame | None:
    """Return a summary kept in this process, else on disk (then kept here too), else None."""
    from mcmc_pairs.comparisons import reuse

    found = reuse.SUMMARIES.lookup(key)
    if found is None and disk is not None and (found := disk.load(key)) is not None:
        reuse.SUMMARIES.store(key, found)
    return found


def _summarize_each(
    sides: Mapping[str, xr.DataArray], cores: int | None = None
) -> dict[str, pd.DataFrame]:
    """Return the summary of every side (:func:`summarize_sides`, without its memo)."""
    cores = available_cores() if cores is None else cores
    size = sum(da.size for da in sides.values())
    if cores < 2 or size < PARALLEL_MIN_VALUES:
        return {label: summarize_quietly(da) for label, da in sides.items()}
    cut = {
        label: min(max(round(HERE_SHARE * da.sizes["quantity"]), 1), da.sizes["quantity"])
        for label, da in sides.items()
    }
    away = {
        label: da.isel(quantity=slice(cut[label], None))
        for label, da in sides.items()
        if cut[label] < da.sizes["quantity"]
    }
    if not away:  # one quantity a side: nothing to split
        return {label: summarize_quietly(da) for label, da in sides.items()}
    with ChildInterpreter("mcmc_pairs.comparisons.split_summaries", away) as child:
        here = {
            label: summarize_quietly(da.isel(quantity=slice(None, cut[label])))
            for label, da in sides.items()
        }
        there = child.result(
            instead=lambda: {label: summarize_quietly(da) for label, da in away.items()}
        )
    return {
        label: pd.concat([here[label], there[label]]) if label in there else here[label]
        for label in sides
    }


HERE_SHARE = 0.55
"""Share of every side's quantities :func:`summarize_sides` keeps in this process."""


def _child_main(path: str) -> None:
    """Summarise the sides pickled at ``path``; write the summaries pickled to stdout."""
    import pickle
    import sys

    with open(path, "rb") as f:
        sides = pickle.load(f)
    summaries = {label: summarize_quietly(da) for label, da in sides.items()}
    sys.stdout.buffer.write(pickle.dumps(summaries, protocol=pickle.HIGHEST_PROTOCOL))


if __name__ == "__main__":  # the child of summarize_sides
    import sys

    _child_main(sys.argv[1])
