"""Honesty checks: samplers that only look right (chains that are copies, copied draws, no seed).

A sampler can pass every z-check and gate and still be wrong about its own
error: chains that are copies of each other (R-hat near 1, but every MCSE too
small), draws copied from the reference (every difference 0), or draws that
change from one call to the next with the same seed (the contract promises
bit-for-bit reproducibility). Each side under test gets three findings, each a
row of the run's checks with its own :class:`~.kinds.CheckKind`; a failed one
makes the side ``disagree`` (:func:`~.stats.verdicts.verdict_of`).

* **independence** (:func:`independence_check`): for every pair of chains and
  every compared quantity, the correlation of the two chains' draws at equal
  iteration index, on normal scores (ranks). Independent chains give values
  whose sd is about ``sqrt(tau / n)``, ``tau = sum_k rho_i(k) rho_j(k)`` over
  all lags (Bartlett's formula with the two chains' autocorrelations, the sum
  truncated by Geyer's initial positive sequence). A pair is flagged when
  ``|r|`` exceeds both :data:`R_FLOOR` and ``z * sd`` with ``z`` Bonferroni's
  at a family-wise level :data:`ALPHA` over all pairs and quantities, or when
  two chains share at least :data:`COPY_FRACTION` of a continuous quantity's
  draws, bit for bit at any position (copies, circular shifts, reversals). A
  quantity that moves fewer than :data:`MIN_MOVES` times in a chain (constant,
  stuck, a rare 0/1) is skipped.
* **copy** (:func:`copy_check`): the share of a side's draws of a continuous
  quantity found, bit for bit, among the reference's draws of it (at any
  position, so shuffled copies count), values that are atoms of the reference
  (more than :data:`ATOM_SHARE` of its draws) left out; at least
  :data:`COPY_FRACTION` is flagged. And (:func:`near_copy_check`) the
  correlation of each chain of the side with each chain of the reference at
  equal index, tested as the independence check tests two chains: the
  reference plus tiny noise, cast to float32 or shifted by a constant shares
  no value with it, bit for bit, but follows it draw by draw.
* **reproducibility** (:func:`reproducibility_check`): the harness calls the
  sampler twice more, :data:`RERUN_DRAWS` draws after :data:`RERUN_TUNE`
  tuning steps with the run's seed and chains on the same data, each time with
  Python's and NumPy's global generators set to a different state, and compares
  the two results bit for bit. Only where the harness calls a sampler with the
  seed: not for stored draws, nor for NumPyro, whose NUTS is the harness's
  (a side's ``rerun``, set by its kind's in ``side_kinds.SIDE_KINDS``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
import pandas as pd
import xarray as xr

from mcmc_pairs.comparisons.kinds import CheckKind
from mcmc_pairs.comparisons.stats.checks import ALL_QUANTITIES, Check, checks_frame

ALPHA = 1e-6
"""Family-wise false-positive rate of the independence check's test (Bonferroni)."""
R_FLOOR = 0.5
"""A chain correlation is flagged only above this too: far beyond what independent chains give."""
MIN_MOVES = 20
"""A quantity that changes value fewer times than this in a chain is not tested there."""
COPY_FRACTION = 0.5
"""Share of equal draws (bit for bit) that makes chains identical or a side a copy."""
ATOM_SHARE = 0.01
"""A value taken by more than this share of the reference's draws is an atom, not a copy."""
RERUN_DRAWS = 20
"""Draws per chain of each of the reproducibility check's two short calls."""
RERUN_TUNE = 20
"""Tuning steps of each of the reproducibility check's two short calls."""
CLOCK_SHIFT_S = 86_400
"""Seconds the clock reads ahead per step of :func:`other_global_state` (a day)."""


def chain_correlations(values: np.ndarray) -> tuple[list[tuple[int, int]], np.ndarray, np.ndarray]:
    """Return every chain pair, its correlation at equal index per quantity, and the null sd.

    Parameters
    ----------
    values : ndarray, shape (chain, draw, quantity)
        Finite draws, each quantity moving at least :data:`MIN_MOVES` times in
        every chain (:func:`testable`).

    Returns
    -------
    pairs : list of (int, int)
        The chain pairs ``(i, j)``, ``i < j``.
    r, sd : ndarray, shape (pair, quantity)
        The correlation of the chains' normal scores, and its sd were the chains
        independent (Bartlett's formula, :func:`bartlett_tau`).
    """
    stats = chain_stats(values)
    pairs = list(combinations(range(values.shape[0]), 2))
    r, sd = _correlations(stats, stats, pairs, slice(None))
    return pairs, r, sd


@dataclass(frozen=True)
class ChainStats:
    """Each chain's normal scores, standardised, and their autocorrelations, per quantity.

    ``scaled`` has shape (chain, draw, quantity), ``acf`` (chain, quantity, lag).
    Computed per chain and quantity alone, so those of two arrays give the
    correlations of their chains as those of the arrays joined would.
    """

    scaled: np.ndarray
    acf: np.ndarray


ChainMemo = dict[tuple[tuple[str, ...], int], ChainStats]
"""The reference's :class:`ChainStats` by its quantities' names and its draws' count."""


def chain_stats(values: np.ndarray) -> ChainStats:
    """Return the :class:`ChainStats` of ``values`` (chain, draw, quantity).

    A quantity that is not :func:`testable` gets numbers no check reads.
    """
    from arviz_stats.base import array_stats

    with np.errstate(invalid="ignore", divide="ignore"):  # untestable columns: NaN, unread
        scores = _normal_scores(values)
        centred = scores - scores.mean(axis=1, keepdims=True)
        scaled = centred / np.sqrt((centred**2).mean(axis=1, keepdims=True))
        acf = array_stats.autocorr(np.moveaxis(scaled, 1, -1), axis=-1)
    return ChainStats(scaled, acf)


def flag_thresholds(sd: np.ndarray) -> tuple[float, np.ndarray]:
    """Return Bonferroni's ``z`` over ``sd.size`` tests at :data:`ALPHA`, and each |r|'s threshold.

    A correlation is flagged above ``max(R_FLOOR, z * sd)``: far beyond chance,
    and beyond what slow mixers reach by chance (the independence and near-copy
    checks alike).
    """
    from scipy import stats

    z = float(stats.norm.isf(ALPHA / (2 * sd.size)))
    return z, np.maximum(R_FLOOR, z * sd)


def _correlations(
    a: ChainStats, b: ChainStats, pairs: Sequence[tuple[int, int]], keep: np.ndarray | slice
) -> tuple[np.ndarray, np.ndarray]:
    """Return r and its null sd (pair, quantity): chain ``i`` of ``a`` with chain ``j`` of ``b``."""
    n = a.scaled.shape[1]
    r = np.array([(a.scaled[i][:, keep] * b.scaled[j][:, keep]).mean(axis=0) for i, j in pairs])
    tau = np.array([bartlett_tau(a.acf[i][keep] * b.acf[j][keep]) for i, j in pairs])
    return r, np.sqrt(tau / n)


def _normal_scores(values: np.ndarray) -> np.ndarray:
    """Return each chain's draws as normal scores of their ranks (ties share a rank)."""
    from scipy import special, stats

    n = values.shape[1]
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    ranks = np.empty_like(values)
    np.put_along_axis(ranks, order, np.arange(1.0, n + 1)[None, :, None], axis=1)
    ties = (np.diff(ordered, axis=1) == 0).any(axis=(0, 1))
    if ties.any():  # average ranks where values repeat (rejections, a lattice)
        ranks[..., ties] = stats.rankdata(values[..., ties], axis=1)
    return special.ndtri((ranks - 0.375) / (n + 0.25))


def bartlett_tau(products: np.ndarray) -> np.ndarray:
    """Return ``sum_k rho_i(k) rho_j(k)`` over all lags, per row, truncated as Geyer's.

    ``products`` is the product of two chains' autocorrelations, shape
    (quantity, lag), lag 0 first (1). Sums of consecutive pairs are added while
    positive and made non-increasing (Geyer's initial monotone sequence); the
    result is at least 1 (the sd of independent draws), so the check stays on
    the safe side for antithetic chains.
    """
    m = (products.shape[-1] - 1) // 2
    pairs = products[..., 0 : 2 * m : 2] + products[..., 1 : 2 * m + 1 : 2]
    positive = np.cumprod(pairs > 0, axis=-1).astype(bool)
    pairs = np.minimum.accumulate(np.where(positive, pairs, 0.0), axis=-1)
    return np.maximum(2 * pairs.sum(axis=-1) - 1, 1.0)


def testable(values: np.ndarray) -> np.ndarray:
    """Return which quantities of ``values`` (chain, draw, quantity) the check can test.

    Finite in every draw, and changing value at least :data:`MIN_MOVES` times
    in every chain: a constant, stuck or rarely moving quantity gives
    correlations whose distribution no sd describes (one shared jump is r = 1).
    """
    finite = np.isfinite(values).all(axis=(0, 1))
    moves = (values[:, 1:] != values[:, :-1]).sum(axis=1).min(axis=0)  # inf - inf: no warning
    return finite & (moves >= MIN_MOVES)


def independence_check(label: str, quantities: xr.DataArray, discrete: Sequence[str]) -> Check:
    """Return the independence check of one side's chains: one check.

    Parameters
    ----------
    label : str
        The side's label.
    quantities : DataArray, shape (chain, draw, quantity)
        The side's compared quantities.
    discrete : sequence of str
        Quantities on a lattice: correlated, never called identical by equal values.

    Returns
    -------
    Check
        A check (:class:`~.stats.checks.Check`): the chain pair and quantity nearest to being
        flagged, its correlation ``value`` and ``threshold``, ``passed``, the
        p-value of its correlation under independence and the Bonferroni level.
    """
    from scipy import stats

    values = np.asarray(quantities.transpose("chain", "draw", "quantity").values, dtype=float)
    names = [str(q) for q in quantities["quantity"].values]
    keep = np.flatnonzero(testable(values))
    row = _row(label, CheckKind.INDEPENDENCE, "chain correlation")
    if keep.size == 0 or values.shape[0] < 2:
        return replace(row, passed=True, note="no quantity moves enough to be tested")
    values, names = values[..., keep], [names[k] for k in keep]
    pairs, r, sd = chain_correlations(values)
    tests = r.size
    z, threshold = flag_thresholds(sd)
    shared = _shared(values, pairs, [name not in set(discrete) for name in names])
    same = shared >= COPY_FRACTION
    ratio = np.where(same, np.inf, np.abs(r) / threshold)
    flagged = ratio > 1
    worst = np.unravel_index(np.argmax(ratio), ratio.shape)
    (i, j), name = pairs[worst[0]], names[worst[1]]
    p = 2 * stats.norm.sf(abs(r[worst]) / sd[worst])
    found = (
        f"chains {i} and {j} share {shared[worst]:.0%} of their draws, bit for bit at any "
        "position (copies, shifts or reversals of one chain)"
        if same[worst]
        else f"chains {i} and {j}: r = {r[worst]:.3f} where independent chains give sd "
        f"{sd[worst]:.3f}"
    )
    note = (
        f"{found}; {int(flagged.sum())} of {tests} chain pairs x quantities flagged "
        f"(|r| above {R_FLOOR:g} and {z:.2f} sd, or {COPY_FRACTION:.0%} of the draws shared); "
        f"{len(quantities['quantity']) - len(names)} quantities not tested (moving fewer "
        f"than {MIN_MOVES} times in a chain)"
    )
    if same[worst]:
        row = replace(row, statistic=SHARED, value=float(shared[worst]), threshold=COPY_FRACTION)
    else:
        row = replace(row, value=float(r[worst]), threshold=float(threshold[worst]))
    return replace(
        row,
        quantity=name,
        passed=not bool(flagged.any()),
        p=float(p),
        level=ALPHA / tests,
        note=note,
    )


NEAR_COPY = "correlation with the reference"
"""The statistic of the copy check's second row (:func:`near_copy_check`)."""
SHARED = "draws shared by two chains"
"""The independence check's statistic when two chains share their draws (:func:`_shared`)."""


def _shared(
    values: np.ndarray, pairs: Sequence[tuple[int, int]], continuous: Sequence[bool]
) -> np.ndarray:
    """Return (pair, quantity): the share of a continuous quantity's draws two chains share.

    Shared at any position: chains that are copies, circular shifts, reversals
    or shuffles of one chain hold the same values (their correlation at equal
    index may be 0), which independent chains of a continuous quantity never
    do. Discrete quantities get 0 (equal values are their nature).
    """
    shared = np.array([_copied_shares(values[j], values[i]) for i, j in pairs])
    return np.where(np.asarray(continuous, dtype=bool), shared, 0.0)


def copy_check(
    label: str, quantities: xr.DataArray, reference: xr.DataArray, discrete: Sequence[str]
) -> Check:
    """Return the copy check of one side against the reference: one check.

    Parameters
    ----------
    label : str
        The side's label.
    quantities, reference : DataArray, shape (chain, draw, quantity)
        The side's and the reference's quantities.
    discrete : sequence of str
        Quantities on a lattice, where equal values are normal: left out.

    Returns
    -------
    Check
        A check (:class:`~.stats.checks.Check`): the quantity with the largest share of draws
        found among the reference's (``value``), against :data:`COPY_FRACTION`.
    """
    row = _row(label, CheckKind.COPY, "draws found in the reference")
    theirs = {str(q) for q in reference["quantity"].values} - set(discrete)
    names = [str(q) for q in quantities["quantity"].values if str(q) in theirs]
    if not names:
        return replace(row, passed=True, note="no continuous quantity to compare")
    shares = _copied_shares(_columns(quantities, names), _columns(reference, names))
    worst = int(np.argmax(shares))
    copied = [q for q, share in zip(names, shares, strict=True) if share >= COPY_FRACTION]
    note = (
        f"{shares[worst]:.1%} of the draws of {names[worst]} equal, bit for bit, one of the "
        f"reference's; {len(copied)} of {len(names)} continuous quantities at least "
        f"{COPY_FRACTION:.0%}"
    )
    return replace(
        row,
        quantity=names[worst],
        value=float(shares[worst]),
        threshold=COPY_FRACTION,
        passed=not copied,
        note=note,
    )


def near_copy_check(
    label: str,
    quantities: xr.DataArray,
    reference: xr.DataArray,
    memo: ChainMemo | None = None,
) -> Check:
    """Return the near-copy check of one side: its chains against the reference's, draw by draw.

    Every chain of the side is paired with every chain of the reference over
    their common draws (the first ``min`` of both), and their correlation at
    equal index is tested as :func:`independence_check` tests two chains of
    one side (normal scores, Bartlett's sd, |r| above :data:`R_FLOOR` and
    Bonferroni's ``z`` at :data:`ALPHA`). Independent samplers give r near 0;
    the reference's draws with noise of 1e-6 sd added, cast to float32, or
    shifted per chain give r near 1 on every quantity. ``memo`` keeps the
    reference's :class:`ChainStats` for the next side of the run.

    Returns
    -------
    Check
        A check (:class:`~.stats.checks.Check`) (kind ``copy``, statistic ``correlation with the
        reference``): the pair of chains and quantity nearest to being flagged.
    """
    from scipy import stats

    row = _row(label, CheckKind.COPY, NEAR_COPY)
    names = [str(q) for q in quantities["quantity"].values]
    names = [q for q in names if q in {str(v) for v in reference["quantity"].values}]
    draws = min(quantities.sizes["draw"], reference.sizes["draw"])
    mine, theirs = (
        np.asarray(
            da.sel(quantity=names).isel(draw=slice(0, draws))
            .transpose("chain", "draw", "quantity").values, dtype=float,
        )
        for da in (quantities, reference)
    )  # fmt: skip
    keep = np.flatnonzero(testable(mine) & testable(theirs))
    if keep.size == 0:
        return replace(row, passed=True, note="no quantity moves enough to be tested")
    memo = {} if memo is None else memo
    key = (tuple(names), draws)
    if key not in memo:
        memo[key] = chain_stats(theirs)
    pairs = [(i, j) for i in range(len(mine)) for j in range(len(theirs))]
    r, sd = _correlations(chain_stats(mine), memo[key], pairs, keep)
    tests = r.size
    z, threshold = flag_thresholds(sd)
    ratio = np.abs(r) / threshold
    worst = np.unravel_index(np.argmax(ratio), ratio.shape)
    i, j = pairs[worst[0]]
    name = names[keep[worst[1]]]
    flagged = int((ratio > 1).sum())
    note = (
        f"chains {i} and {j} (the side's and the reference's): r = {r[worst]:.3f} "
        f"at equal draws where independent samplers give sd {sd[worst]:.3f}; {flagged} of "
        f"{tests} chain pairs x quantities flagged (|r| above {R_FLOOR:g} and {z:.2f} sd)"
    )
    return replace(
        row,
        quantity=name,
        value=float(r[worst]),
        threshold=float(threshold[worst]),
        passed=flagged == 0,
        p=float(2 * stats.norm.sf(abs(r[worst]) / sd[worst])),
        level=ALPHA / tests,
        note=note,
    )


def _columns(quantities: xr.DataArray, names: Sequence[str]) -> np.ndarray:
    """Return the draws of ``names`` as a (chains * draws, quantity) float array."""
    values = quantities.sel(quantity=list(names)).transpose("chain", "draw", "quantity").values
    return np.asarray(values, dtype=float).reshape(-1, len(names))


def _copied_shares(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Return, per column, the share of ``mine``'s draws equal to one of ``theirs``.

    Values that are atoms of ``theirs`` (more than :data:`ATOM_SHARE` of its
    finite draws) do not count. Both arrays are (draws, quantity); each column of
    ``theirs`` is sorted once and searched for ``mine``'s values.
    """
    shares = np.zeros(mine.shape[1])
    mine = np.sort(mine, axis=0)  # sorted needles: the searches walk forward
    for k, column in enumerate(np.sort(theirs, axis=0).T):
        b = column[np.isfinite(column)]
        if b.size == 0 or mine.shape[0] == 0:
            continue
        a = mine[:, k]
        count = np.searchsorted(b, a, side="right") - np.searchsorted(b, a, side="left")
        shares[k] = np.mean((count > 0) & (count <= ATOM_SHARE * b.size))
    return shares


@contextmanager
def other_global_state(seed: int) -> Iterator[None]:
    """Set Python's and NumPy's global generators to a state of ``seed``, and the clock on.

    A sampler that ignores its seed and draws from a global generator gives
    different draws under two such states, also when each call runs in a fork
    of this process (which copies the parent's state); the harness's own
    numbers never depend on the global generators. ``time.time`` and
    ``time.time_ns`` read ``seed`` days ahead (:data:`CLOCK_SHIFT_S`), so a
    sampler seeded from the clock (``int(time.time())``) gets other seeds in the
    two calls, however quickly they follow each other. All is restored after.
    """
    numpy_state, python_state = np.random.get_state(), random.getstate()  # noqa: NPY002
    np.random.seed(seed)  # noqa: NPY002 - the legacy global generator is what is probed
    random.seed(seed)
    clock, clock_ns = time.time, time.time_ns
    shift = seed * CLOCK_SHIFT_S  # a sampler seeded from the clock sees another second
    time.time = lambda: clock() + shift
    time.time_ns = lambda: clock_ns() + shift * 10**9
    try:
        yield
    finally:
        time.time, time.time_ns = clock, clock_ns
        np.random.set_state(numpy_state)  # noqa: NPY002
        random.setstate(python_state)


def reproducibility_check(
    label: str, rerun: Callable[[int, int], Mapping[str, np.ndarray]], seed: int
) -> Check:
    """Return the reproducibility check of one side: call it twice, compare bit for bit.

    Parameters
    ----------
    label : str
        The side's label.
    rerun : callable
        ``rerun(draws, tune)`` calls the side's sampler afresh with the run's
        seed, chains and data and returns ``{variable: array}``.
    seed : int
        The run's seed, named in the note.

    Returns
    -------
    Check
        A check (:class:`~.stats.checks.Check`): ``value`` the share of values that differ
        between the two calls, ``threshold`` 0.
    """
    runs = []
    for k in (1, 2):
        with other_global_state(k):
            runs.append(rerun(RERUN_DRAWS, RERUN_TUNE))
    first, second = runs
    differ = {v: _differing(first[v], second[v]) for v in first}
    total = sum(np.size(first[v]) for v in first)
    share = sum(d * np.size(first[v]) for v, d in differ.items()) / max(total, 1)
    worst = max(differ, key=differ.__getitem__) if differ else ""
    said = (
        f"{differ[worst]:.1%} of the values of {worst} differ"
        if share
        else "the two results are equal bit for bit"
    )
    note = (
        f"two more calls with seed {seed}, {RERUN_DRAWS} draws after {RERUN_TUNE} tuning "
        f"steps on the same data: {said}"
    )
    return replace(
        _row(label, CheckKind.REPRODUCIBILITY, "share of values differing"),
        quantity=worst,
        value=float(share),
        threshold=0.0,
        passed=bool(share == 0),
        note=note,
    )


def _differing(a: np.ndarray, b: np.ndarray) -> float:
    """Return the share of positions where ``a`` and ``b`` differ (NaN equals NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return 1.0
    same = (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a == b
    return float(1 - same.mean()) if a.size else 0.0


def _row(label: str, kind: CheckKind, statistic: str) -> Check:
    """Return ``label``'s ``kind`` check of its whole run, passed, its numbers NaN."""
    nan = float("nan")
    return Check(
        comparison=label, side=label, kind=kind, quantity=ALL_QUANTITIES, statistic=statistic,
        value=nan, threshold=nan, passed=True,
    )  # fmt: skip


def honesty_checks(
    sides: Mapping[str, xr.DataArray],
    under_test: Sequence[str],
    reference: str,
    reproducibility: Sequence[Check] = (),
) -> pd.DataFrame:
    """Return the independence and copy checks of the sides ``under_test``, and their rest.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Every side's quantities, shape (chain, draw, quantity).
    under_test : sequence of str
        The labels of the sides to check.
    reference : str
        The reference's label, whose draws must not be copied.
    reproducibility : sequence of Check
        Checks from :func:`reproducibility_check`, made once per run.

    Returns
    -------
    pandas.DataFrame
        :func:`~.stats.checks.checks_frame` of the checks, per side its independence, copy and (when
        given) reproducibility row.
    """
    from mcmc_pairs.comparisons.stats.quantities import discrete_quantities

    discrete = discrete_quantities(sides)
    rows: list[Check] = []
    memo: ChainMemo = {}  # the reference's chain statistics, once for every side
    for label in under_test:
        rows.append(independence_check(label, sides[label], discrete))
        rows.append(copy_check(label, sides[label], sides[reference], discrete))
        rows.append(near_copy_check(label, sides[label], sides[reference], memo))
        rows += [row for row in reproducibility if row.side == label]
    return checks_frame(rows)
