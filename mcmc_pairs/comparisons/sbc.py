r"""Simulation-based calibration of a sampler: replications and the rank tests that judge them.

Simulation-based calibration (Talts et al. 2018; Modrák et al. 2023)
--------------------------------------------------------------------
Each replication draws ``theta* ~ prior`` and ``y ~ p(y | theta*)``, runs the
sampler (``chains`` chains of ``draws`` after ``tune``), and keeps
:data:`SBC_RANK_DRAWS` (``L``) of its draws evenly spaced over the run. The
rank of ``theta*`` among them is recorded for every test quantity: each scalar
parameter, the pairwise products (and sums) of the components, the log density
(``logp``) and the log likelihood of the simulated data
(``log_likelihood``, where the pair declares one or its model simulates).
Ties (discrete variables) are broken uniformly at random, by a stream of the
replication's seed that belongs to the quantity's name, so ranks of a
calibrated sampler are uniform on ``0 .. L`` and can be recomputed.

Reruns and refusal
    A replication whose smallest bulk ESS (:func:`arviz_stats.ess`) over the
    test quantities is below ``L`` has too few effective draws for ``L``
    near-independent ones: its ranks would pile up at the ends. It is run again
    with twice the draws per chain, and again, up to ``max_draws`` (default
    :data:`~.settings.BUDGET_FACTOR` times ``draws``, as ``compare`` grows an undecided
    run), each time from the same replication seed: the same prior draw, the
    same data and the same sampler seed, so a replication's result depends on
    nothing but its seed (not on the workers or the chunking). The ranks come
    from the first run with at least ``L`` effective draws; the replication
    records the ``draws_used`` per chain and its ``reruns``. Given the data,
    the prior draw is independent of the sampler's draws, so choosing the run's
    length from the sampler's own ESS leaves a calibrated sampler's ranks
    uniform. A replication still short of ``L`` at ``max_draws`` is *refused*
    (no ranks) and named in the result. If more than
    :data:`MAX_REFUSED_FRACTION` of the replications are refused, the verdict
    is ``not converged`` (:data:`NOT_CONVERGED`), not ``fail``: the sampler
    mixes too slowly for SBC at ``max_draws`` draws, which says nothing about
    its calibration. The ranked replications are still tested: a rank test
    that rejects among them makes the verdict ``fail`` all the same (as
    ``compare`` calls a gross difference ``disagree`` on an unconverged side):
    given the data, the prior draw is independent of which replications mixed,
    so a calibrated sampler's ranked replications stay uniform.

The test
    Per quantity, the ECDF of ``rank / (L + 1)`` against the uniform CDF at the
    ``L`` interior points ``i / (L + 1)`` (Säilynoja, Bürkner & Vehtari 2022):
    the statistic is the smallest pointwise two-sided binomial tail probability;
    its distribution under uniform ranks is simulated (:data:`BAND_SIMULATIONS`
    samples, fixed seed, cached per number of ranked replications and ``L``),
    which gives both the p-value and the simultaneous band that the ECDF
    difference leaves exactly when the test rejects. Holm's correction over the
    quantities. Its size is measured in ``benchmarks/sbc_uniformity.md``
    (``scripts/sbc_uniformity.py``), with the chi-square on binned ranks
    (kept in ``details["chi2"]``, not in the verdict) and arviz-stats'
    ``uniformity_test``.

What a pass certifies
    :func:`sensitivity` states the smallest miscalibration the run detects with
    80 % power (:data:`SENSITIVITY_POWER`): a shift of the posterior mean by ``s``
    posterior sds and an sd ratio outside ``[r1, r2]``, measured by planting such
    distortions into the run's own kept draws (:func:`_quantity_thresholds` gives the design). The
    page and the JSON (``sensitivity``) carry it; a ``pass`` says it.

Reranking
    Each ranked replication stores its ``L`` kept draws of the parameters and its
    seed, so a new test quantity ``f(theta, y)`` is ranked afterwards without
    running the sampler again (:func:`rerank`).
"""

from __future__ import annotations

import functools
import time
import warnings
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import arviz_stats as azs
import numpy as np
import pandas as pd
from scipy import stats

from mcmc_pairs.comparisons import agreement
from mcmc_pairs.comparisons.contract import call_sampler, sampler_name
from mcmc_pairs.comparisons.kinds import ValidationTest, ValidationVerdict
from mcmc_pairs.comparisons.loading import resolve
from mcmc_pairs.comparisons.settings import SbcSettings
from mcmc_pairs.comparisons.simulation import (
    Simulator,
    check_draws,
    child_seed,
    one_draw,
    test_quantities,
)

SBC_RANK_DRAWS = 99
"""Posterior draws a prior draw is ranked among (ranks 0 .. 99, 100 values)."""
MAX_REFUSED_FRACTION = 0.05
"""SBC is ``not converged`` when more than this fraction of replications is refused.

A refused replication has fewer than ``L`` effective draws even at
``max_draws``. A few refusals leave the others' ranks usable; more say the
sampler mixes too slowly for SBC at ``max_draws``, and dropping them would bias
the ranks (the refused replications are not a random subset: slow mixing
depends on the data)."""
QUANTITY_DRAWS = "quantity_draws"
"""Key of a ranked replication's test quantities at its ``L`` kept draws, (L, Q).

They feed :func:`sensitivity`; the JSON leaves them out (they are functions of
the stored ``draws`` and the seed's data)."""
SENSITIVITY_POWER = 0.8
"""The power at which :func:`sensitivity` states the smallest miscalibration a run detects
(80 %, the convention of power analysis: a shift at the stated size is caught in 4 runs of 5)."""
SENSITIVITY_RESAMPLES = 400
"""Simulated SBC runs per distortion in :func:`sensitivity` (power's Monte Carlo sd: 0.011)."""
SENSITIVITY_SEED = 20261125
"""Seed of :func:`sensitivity`'s simulations."""
LATTICE_DISTINCT = 0.5
"""A quantity whose kept draws hold fewer distinct values than this fraction of ``L`` (on
average over the replications) is a lattice (discrete): :func:`sensitivity` distorts it by
exponential tilting, not by moving its values off the lattice."""
SHIFT_GRID = (
    0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
    1.25, 1.5, 1.75, 2.0, 2.5, 3.0,
)  # fmt: skip
"""Shifts of the posterior mean, in posterior sds, that :func:`sensitivity` plants."""
NARROW_GRID = (0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.5, 0.4, 0.3)
"""Ratios (sampler's posterior sd / true) below 1 that :func:`sensitivity` plants."""
WIDE_GRID = (1.05, 1.1, 1.15, 1.2, 1.25, 1.3, 1.4, 1.5, 1.75, 2.0, 2.5, 3.0)
"""Ratios above 1 that :func:`sensitivity` plants."""
NOT_CONVERGED = ValidationVerdict.NOT_CONVERGED
"""The verdict of an SBC run with too many refused replications (``details["not_converged"]``)."""
BAND_SIMULATIONS = 100_000
"""Uniform rank samples that calibrate the ECDF band test (fixed seed)."""
BAND_SEED = 20220317
"""Seed of those simulations."""
REFUSED_FRACTION = ValidationTest.REFUSED_FRACTION
"""The statistic of the check that fails when too many replications are refused."""
ECDF_BAND = ValidationTest.ECDF_BAND
"""The statistic of the verdict's checks: smallest pointwise binomial tail probability."""
QuantityFn = Callable[[Mapping[str, np.ndarray], Mapping[str, Any]], Mapping[str, np.ndarray]]
"""``quantity_fn(params, data) -> {name: ndarray (chain, draw)}`` of :func:`rerank`: ``params``
maps each variable to its draws (chain, draw, *shape)."""


# ------------------------------------------------------------- one replication


def sbc_replication(
    sim: Simulator,
    sampler: str | Callable,
    settings: SbcSettings,
    seed: np.random.SeedSequence,
) -> dict[str, Any]:
    """Run one SBC replication: prior draw, simulated data, sampler, ranks.

    Parameters
    ----------
    sim : Simulator
    sampler : str or callable
    settings : SbcSettings
        ``draws``, ``tune``, ``chains`` of the sampler run, and ``max_draws``
        (draws per chain a refused run may be rerun with; ``draws``: no rerun).
    seed : numpy.random.SeedSequence

    Returns
    -------
    dict
        ``quantities``; ``ranks`` (rank in ``0 .. L`` per quantity, ``None`` when
        refused); ``refused`` (bool); ``ess`` (smallest bulk ESS of the last
        run); ``draws_used`` (draws per chain of the last run) and ``reruns``
        (how many times it was rerun with doubled draws); ``thin`` (spacing of
        the kept draws); ``seed`` (``entropy`` and ``spawn_key`` of ``seed``,
        for :func:`rerank`); ``truth`` (the prior draw) and ``draws`` (the
        ``L`` kept draws of every variable, (L, *shape); ``None`` when refused),
        as lists; ``seconds``.

    Raises
    ------
    ValueError
        If ``chains * draws < L`` or ``max_draws < draws``.
    """
    start = time.perf_counter()
    chains = settings.chains
    max_draws = _checked_budget(settings)
    func = resolve(sampler)
    name = sampler_name(sampler)
    theta, y, rng = simulated(sim, seed)
    sampler_seed = int(rng.integers(0, 2**32))
    post, q_post, names, min_ess, draws, reruns = _run_until_effective(
        sim, (name, func), theta, y, settings, max_draws, sampler_seed
    )
    out = {
        "quantities": names,
        "ess": min_ess,
        "draws_used": draws,
        "reruns": reruns,
        "seed": {"entropy": seed.entropy, "spawn_key": list(seed.spawn_key)},
        "truth": {var: np.asarray(v).tolist() for var, v in theta.items()},
    }
    if min_ess < SBC_RANK_DRAWS:
        return {
            **out, "ranks": None, "refused": True, "thin": None, "draws": None,
            "seconds": time.perf_counter() - start,
        }  # fmt: skip
    ranked = _ranked_fields(sim, post, q_post, names, theta, y, seed, chains * draws)
    return {**out, **ranked, "seconds": time.perf_counter() - start}


def _checked_budget(settings: SbcSettings) -> int:
    """Return ``max_draws`` after checking the run can give ``L`` ranks.

    Raises ValueError if ``chains * draws < L`` or ``max_draws < draws``.
    """
    draws, chains, max_draws = settings.draws, settings.chains, settings.max_draws
    if chains * draws < SBC_RANK_DRAWS:
        raise ValueError(
            f"chains * draws must be >= {SBC_RANK_DRAWS} for SBC ranks, got {chains} * {draws}"
        )
    if max_draws < draws:
        raise ValueError(f"max_draws must be >= draws ({draws}), got {max_draws}")
    return max_draws


def _run_until_effective(
    sim: Simulator,
    named_sampler: tuple[str, Callable],
    theta: Mapping[str, Any],
    y: Mapping[str, Any],
    settings: SbcSettings,
    max_draws: int,
    sampler_seed: int,
) -> tuple[dict[str, np.ndarray], np.ndarray, list[str], float, int, int]:
    """Run the sampler on ``y``, doubling its draws per chain until ``L`` effective draws.

    Every run has the same data and sampler seed, so nothing depends on the
    chunking. It stops at the first run whose smallest bulk ESS over the test
    quantities (:func:`_smallest_ess`) is at least ``L``, or at ``max_draws``.

    Returns
    -------
    post : dict of str to ndarray
        The last run's draws, each (chains, draws, *shape).
    q_post : ndarray (chains, draws, Q)
        Their test quantities (:func:`sbc_quantities`), named by ``names``.
    names : list of str
    min_ess : float
        The last run's smallest bulk ESS.
    draws, reruns : int
        Draws per chain of the last run, and how many times it was rerun.
    """
    name, func = named_sampler
    draws, chains = settings.draws, settings.chains
    reruns = 0
    while True:  # the same data and sampler seed at every run: nothing depends on the chunking
        output = call_sampler(
            name, func, y, draws=draws, tune=settings.tune, chains=chains,
            random_seed=sampler_seed,
        )  # fmt: skip
        post = check_draws(output, theta, name, chains, draws)
        q_post, names = sbc_quantities(sim, post, y)
        min_ess = _smallest_ess(q_post, chains * draws)
        if min_ess >= SBC_RANK_DRAWS or draws >= max_draws:
            break
        draws, reruns = min(2 * draws, max_draws), reruns + 1
    return post, q_post, names, min_ess, draws, reruns


def _smallest_ess(q_post: np.ndarray, total: int) -> float:
    """Smallest finite bulk ESS of the quantities ``q_post`` (chains, draws, Q); ``total`` if none.

    A constant quantity has NaN ESS and is left out.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant quantities: NaN ESS
        ess = azs.ess(q_post, method="bulk")
    finite = ess[np.isfinite(ess)]
    return float(finite.min()) if finite.size else float(total)


def _ranked_fields(
    sim: Simulator,
    post: Mapping[str, np.ndarray],
    q_post: np.ndarray,
    names: list[str],
    theta: Mapping[str, Any],
    y: Mapping[str, Any],
    seed: np.random.SeedSequence,
    total: int,
) -> dict[str, Any]:
    """Keep ``L`` draws evenly spaced over the run and rank the truth among them.

    ``post`` holds ``total`` draws in all (each (chains, draws, *shape)), ``q_post``
    their quantities (chains, draws, Q). Returns the replication's ``ranks`` (in
    the order of ``names``), ``refused`` (False), ``thin``, the kept ``draws``
    ((L, *shape) per variable) and their quantities (:data:`QUANTITY_DRAWS`,
    (L, Q)), as lists.
    """
    keep = np.linspace(0, total - 1, SBC_RANK_DRAWS).round().astype(int)
    # chain-major: the chains concatenated; spacing (total - 1) / (L - 1) >= total / ESS
    kept = {var: a.reshape(total, *a.shape[2:])[keep] for var, a in post.items()}
    ranks = rank_truth(sim, kept, theta, y, seed, quantity_fn=None)
    return {
        "ranks": [ranks[n] for n in names],
        "refused": False,
        "thin": int(np.floor((total - 1) / (SBC_RANK_DRAWS - 1))),
        "draws": {var: a.tolist() for var, a in kept.items()},
        QUANTITY_DRAWS: q_post.reshape(total, -1)[keep].tolist(),
    }


def simulated(
    sim: Simulator, seed: np.random.SeedSequence
) -> tuple[dict[str, Any], dict[str, Any], np.random.Generator]:
    """Return the replication's prior draw, simulated data and the generator that drew them.

    The same ``seed`` gives the same ``(theta, y)`` bit for bit, which :func:`rerank` uses.
    """
    rng = np.random.default_rng(child_seed(seed, 0))
    theta = sim.prior(sim.data, rng)
    y = sim.simulate(sim.data, theta, rng)
    return theta, y, rng


def sbc_quantities(
    sim: Simulator, params: Mapping[str, Any], data: Mapping[str, Any]
) -> tuple[np.ndarray, list[str]]:
    """SBC's test quantities of ``params`` (each (chain, draw, *shape)): (chain, draw, Q), names."""
    return test_quantities(sim, params, data, squares=False, sums=True, log_likelihood=True)


def rank_truth(
    sim: Simulator,
    kept: Mapping[str, np.ndarray],
    theta: Mapping[str, Any],
    y: Mapping[str, Any],
    seed: np.random.SeedSequence,
    quantity_fn: QuantityFn | None,
) -> dict[str, int]:
    """Rank ``theta``'s test quantities among those of the kept draws ``kept`` ((L, *shape)).

    ``quantity_fn`` is ``None`` (SBC's quantities, :func:`sbc_quantities`) or
    ``quantity_fn(params, data) -> {name: ndarray (chain, draw)}``. Ties are
    broken by a stream of ``seed`` that belongs to the quantity's name.
    """
    params = {var: np.asarray(a)[None] for var, a in kept.items()}
    truth = one_draw(theta)
    if quantity_fn is None:
        values, names = sbc_quantities(sim, params, y)
        true_values, _ = sbc_quantities(sim, truth, y)
        columns = {n: (values[0, :, k], true_values[0, 0, k]) for k, n in enumerate(names)}
    else:
        q, q_true = quantity_fn(params, y), quantity_fn(truth, y)
        if not isinstance(q, Mapping):
            raise ValueError(
                f"quantity_fn must return a mapping of name to (chain, draw) array, got {type(q)}"
            )
        columns = {
            n: (np.asarray(q[n], float).reshape(-1), float(np.asarray(q_true[n]).reshape(-1)[0]))
            for n in q
        }
    ranks = {}
    for n, (draws, true) in columns.items():
        below = int((draws < true).sum())
        ties = int((draws == true).sum())
        rng = np.random.default_rng(child_seed(child_seed(seed, 1), zlib.crc32(n.encode())))
        ranks[n] = below + int(rng.integers(0, ties + 1))
    return ranks


class SbcRun(Protocol):
    """What :func:`rerank` reads of an SBC result (a :class:`~.validation.ValidationResult`)."""

    @property
    def pair(self) -> str:
        """The pair's name."""
        ...

    @property
    def method(self) -> str:
        """``"sbc"`` for an SBC run."""
        ...

    @property
    def replications(self) -> list[dict[str, Any]]:
        """Per finished replication, JSON-ready: its ``seed``, kept ``draws`` and ``ranks``."""
        ...


def rerank(
    result: SbcRun | Mapping[str, Any],
    quantity_fn: QuantityFn,
    *,
    sim: Simulator | None = None,
) -> dict[str, np.ndarray]:
    """Rank new test quantities of an SBC run's stored draws, without running the sampler.

    Each ranked replication stored its ``L`` kept draws and its seed; the seed
    gives back its prior draw and simulated data (:func:`simulated`).

    Parameters
    ----------
    result : ValidationResult or mapping
        An SBC result, or its JSON document (``replications`` and ``pair``).
    quantity_fn : callable
        ``quantity_fn(params, data) -> {name: ndarray (chain, draw)}`` where
        ``params`` maps each variable to an array (chain, draw, *shape) (here
        (1, L, ...) for the kept draws and (1, 1, ...) for the prior draw) and
        ``data`` is the replication's simulated data.
    sim : Simulator, optional
        The simulator of the run; default that of the registered pair named
        in ``result`` (a user's own model must pass its own).

    Returns
    -------
    dict of str to ndarray
        Per quantity, the ranks (in ``0 .. L``) of the ranked replications, in
        the order of ``result``'s replications (refused ones left out). A
        quantity SBC ranked gets exactly its stored ranks back.

    Raises
    ------
    ValueError
        ``result`` is not an SBC result with stored draws, or ``quantity_fn``
        is not callable or returns no mapping.
    """
    reps, pair_name, method = _fields(result)
    if method != "sbc":
        raise ValueError(f"result must be an SBC result, got method {method!r}")
    if not callable(quantity_fn):
        raise ValueError(f"quantity_fn must be callable, got {quantity_fn!r}")
    if sim is None:
        from mcmc_pairs.comparisons.registry import get_pair
        from mcmc_pairs.comparisons.simulation import simulator_for

        if pair_name is None:
            raise ValueError("result names no pair: pass its simulator (sim=)")
        sim = simulator_for(get_pair(pair_name))
    out: dict[str, list[int]] = {}
    for rep in reps:
        if rep.get("refused") or rep.get("ranks") is None:
            continue
        if rep.get("draws") is None or "seed" not in rep:
            raise ValueError(
                f"result: replication {rep.get('index')} has no stored draws to rerank"
            )
        seed = np.random.SeedSequence(
            rep["seed"]["entropy"], spawn_key=tuple(rep["seed"]["spawn_key"])
        )
        theta, y, _ = simulated(sim, seed)
        kept = {var: np.asarray(a) for var, a in rep["draws"].items()}
        for name, rank in rank_truth(sim, kept, theta, y, seed, quantity_fn).items():
            out.setdefault(name, []).append(rank)
    return {name: np.asarray(r, dtype=int) for name, r in out.items()}


def _fields(
    result: SbcRun | Mapping[str, Any],
) -> tuple[list[dict[str, Any]], str | None, str | None]:
    if isinstance(result, Mapping):
        if "replications" not in result:
            raise ValueError("result must be an SBC result or its JSON document")
        return result["replications"], result.get("pair"), result.get("method")
    try:
        return result.replications, result.pair, result.method
    except AttributeError:
        raise ValueError(
            f"result must be an SBC result or its JSON document, got {type(result).__name__}"
        ) from None


# ------------------------------------------------------------- the ECDF band test


@functools.lru_cache(maxsize=64)
def _tail_table(n: int, L: int) -> np.ndarray:
    """Two-sided binomial tail probability of ``c`` ranks below ``i / (L + 1)``: (L, n + 1)."""
    z = np.arange(1, L + 1) / (L + 1)
    c = np.arange(n + 1)
    lower = stats.binom.cdf(c[None, :], n, z[:, None])
    upper = stats.binom.sf(c[None, :] - 1, n, z[:, None])
    return np.minimum(1.0, 2 * np.minimum(lower, upper))


def min_tail_probability(ranks: np.ndarray, L: int = SBC_RANK_DRAWS) -> np.ndarray:
    """Return the band test's statistic, the smallest pointwise two-sided binomial tail probability.

    Parameters
    ----------
    ranks : ndarray, shape (..., n)
        Ranks in ``0 .. L``; the last axis holds one sample.
    L : int

    Returns
    -------
    ndarray, shape (...)
        ``min_i 2 min(F(c_i), 1 - F(c_i - 1))`` with ``c_i`` the number of ranks
        below ``i``, ``F`` the Binomial(n, i / (L + 1)) CDF, ``i = 1 .. L``.
    """
    ranks = np.asarray(ranks)
    n = ranks.shape[-1]
    flat = ranks.reshape(-1, n)
    rows = len(flat)
    offsets = (np.arange(rows) * (L + 1))[:, None]
    counts = np.bincount((flat + offsets).ravel(), minlength=rows * (L + 1))
    below = np.cumsum(counts.reshape(rows, L + 1), axis=1)[:, :L]  # ranks <= i - 1, i.e. < i
    stat = _tail_table(n, L)[np.arange(L), below].min(axis=1)
    return stat.reshape(ranks.shape[:-1])


@functools.lru_cache(maxsize=64)
def null_statistics(n: int, L: int = SBC_RANK_DRAWS) -> np.ndarray:
    """Sorted band statistics of :data:`BAND_SIMULATIONS` samples of ``n`` uniform ranks.

    Fixed seed (:data:`BAND_SEED`), cached per ``(n, L)``.
    """
    rng = np.random.default_rng([BAND_SEED, n, L])
    table = _tail_table(n, L)
    out = np.empty(BAND_SIMULATIONS)
    chunk = 10_000
    for start in range(0, BAND_SIMULATIONS, chunk):
        size = min(chunk, BAND_SIMULATIONS - start)
        counts = rng.multinomial(n, np.full(L + 1, 1.0 / (L + 1)), size=size)
        below = np.cumsum(counts, axis=1)[:, :L]
        out[start : start + size] = table[np.arange(L), below].min(axis=1)
    return np.sort(out)


def band_p_value(ranks: np.ndarray, L: int = SBC_RANK_DRAWS) -> np.ndarray:
    """Monte Carlo p-value of the band test: ``(1 + #{null <= observed}) / (1 + simulations)``.

    Parameters
    ----------
    ranks : ndarray, shape (..., n)
    L : int

    Returns
    -------
    ndarray, shape (...)
    """
    ranks = np.asarray(ranks)
    null = null_statistics(ranks.shape[-1], L)
    stat = min_tail_probability(ranks, L)
    return (1 + np.searchsorted(null, stat, side="right")) / (1 + len(null))


def band_gamma(n: int, alpha: float, L: int = SBC_RANK_DRAWS) -> float:
    """Return the adjusted pointwise level: uniform ranks leave its band with probability alpha.

    The band at ``i / (L + 1)`` holds the counts whose two-sided tail
    probability is at least ``gamma``; a sample leaves it exactly when its
    band statistic is below ``gamma``, i.e. when :func:`band_p_value` <= ``alpha``.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    null = null_statistics(n, L)
    k = int(np.floor(alpha * (len(null) + 1))) - 1  # p-value <= alpha for the k+1 smallest
    return 0.0 if k < 0 else float(null[k])


def ecdf_band(n: int, alpha: float, L: int = SBC_RANK_DRAWS) -> tuple[np.ndarray, ...]:
    """Simultaneous ``1 - alpha`` band of ECDF(rank / (L + 1)) - uniform CDF.

    Returns
    -------
    z, lower, upper : ndarray, shape (L,)
        Evaluation points ``i / (L + 1)`` and the band's limits of the ECDF
        difference.
    """
    gamma = band_gamma(n, alpha, L)
    inside = _tail_table(n, L) >= gamma
    c = np.arange(n + 1)
    lo = np.where(inside, c, n + 1).min(axis=1)
    hi = np.where(inside, c, -1).max(axis=1)
    z = np.arange(1, L + 1) / (L + 1)
    return z, lo / n - z, hi / n - z


def ecdf_difference(ranks: np.ndarray, L: int = SBC_RANK_DRAWS) -> tuple[np.ndarray, np.ndarray]:
    """``z = i / (L + 1)`` and ECDF(rank / (L + 1)) - z at ``z``, ``i = 1 .. L``."""
    ranks = np.asarray(ranks)
    z = np.arange(1, L + 1) / (L + 1)
    below = np.searchsorted(np.sort(ranks), np.arange(1, L + 1), side="left")
    return z, below / len(ranks) - z


def chi2_p_value(ranks: np.ndarray, bins: int, L: int = SBC_RANK_DRAWS) -> np.ndarray:
    """Chi-square p-value of ``bins`` equal bins of ranks; the last axis holds one sample."""
    ranks = np.asarray(ranks)
    width = (L + 1) // bins
    flat = ranks.reshape(-1, ranks.shape[-1]) // width
    counts = np.zeros((len(flat), bins))
    np.add.at(counts, (np.arange(len(flat))[:, None], flat), 1)
    return np.asarray(stats.chisquare(counts, axis=1).pvalue).reshape(ranks.shape[:-1])


def default_bins(n: int, L: int = SBC_RANK_DRAWS) -> int:
    """Return the largest divisor of ``L + 1`` up to 20 that leaves at least 5 ranks per bin."""
    divisors = [b for b in range(2, 21) if (L + 1) % b == 0 and n / b >= 5]
    return max(divisors, default=2)


# ------------------------------------------------------------- the verdict's checks


def sbc_checks(
    replications: Sequence[Mapping[str, Any]],
    alpha: float = agreement.ALPHA,
    bins: int | None = None,
    statement: dict[str, Any] | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Judge SBC ranks: one ECDF band test per quantity, Holm-corrected; refusals counted.

    Parameters
    ----------
    replications : sequence of mapping
        Outputs of :func:`sbc_replication` (refused ones have ``ranks`` ``None``).
    alpha : float
        Family-wise false-alarm rate.
    bins : int, optional
        Bins of the chi-square shown beside the verdict (must divide ``L + 1``;
        default :func:`default_bins`).
    statement : dict, optional
        :func:`sensitivity` of these replications at ``alpha`` when already
        computed (``replications="auto"`` computes it to decide when to stop).

    Returns
    -------
    checks : pandas.DataFrame
        ``quantity``, ``statistic`` (``"ecdf band"``: the smallest pointwise
        binomial tail probability, which fails when below ``threshold``, the
        band's adjusted level at the check's Holm level), ``value``,
        ``threshold``, ``p``, ``passed``. When more than
        :data:`MAX_REFUSED_FRACTION` of replications are refused, a failed row
        ``quantity="replications"``, ``statistic="refused fraction"``.
    details : dict
        ``ranks`` (R, Q) of the ranked replications as lists, ``quantities``,
        ``L``, ``bins``, ``chi2`` (per quantity ``{"quantity", "value", "p"}``),
        ``ranked``, ``refused`` (count), ``refused_replications`` (their
        ``index``), ``max_refused_fraction``, ``rerun`` (replications rerun
        with more draws), ``rerun_replications`` (their ``index``),
        ``draws_used`` (``{draws per chain: replications}``), ``sensitivity``
        (:func:`sensitivity`: the smallest shift and sd ratio the run detects
        with 80 % power, or ``None``), ``not_converged``
        (more than :data:`MAX_REFUSED_FRACTION` refused, or fewer than two
        ranked: the verdict is :data:`NOT_CONVERGED` unless a band test
        fails), ``message`` (advice, or ``""``).

    Raises
    ------
    ValueError
        ``bins`` does not divide ``L + 1``; ``alpha`` outside (0, 1).
    """
    _check_sbc_arguments(replications, alpha, bins)
    ranked = [r for r in replications if r.get("ranks") is not None]
    refused = [r for r in replications if r.get("ranks") is None]
    names = (ranked or replications)[0]["quantities"]
    ranks = np.array([r["ranks"] for r in ranked], dtype=int).reshape(len(ranked), len(names))
    details = _bookkeeping(replications, ranked, refused, names, ranks)
    rows = []
    if len(ranked) >= 2:
        rows = _band_rows(ranks, names)
        details["bins"] = bins = bins or default_bins(len(ranked))
        details["chi2"] = _chi2_rows(ranks, names, bins)
    checks = _holm_band(pd.DataFrame(rows), alpha, len(ranked))
    details["sensitivity"] = statement if statement is not None else sensitivity(ranked, alpha)
    return _count_refusals(checks, details, replications, refused, len(ranked))


def _check_sbc_arguments(
    replications: Sequence[Mapping[str, Any]], alpha: float, bins: int | None
) -> None:
    """Raise ValueError on ``alpha`` outside (0, 1), no replications, or bad ``bins``.

    ``bins`` (when given) must be at least 2 and divide ``L + 1``.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if not replications:
        raise ValueError("replications must not be empty")
    n_values = SBC_RANK_DRAWS + 1
    if bins is not None and (n_values % bins or bins < 2):
        raise ValueError(f"bins must divide {n_values}, got {bins}")


def _bookkeeping(
    replications: Sequence[Mapping[str, Any]],
    ranked: list[Mapping[str, Any]],
    refused: list[Mapping[str, Any]],
    names: list[str],
    ranks: np.ndarray,
) -> dict[str, Any]:
    """Return :func:`sbc_checks`'s details before any test: ranks, refusals, reruns, draws used.

    ``ranks`` is (R, Q), R ranked replications by the quantities ``names``. The
    tests' entries (``bins``, ``chi2``, ``sensitivity``) and the refusals'
    verdict (``not_converged``, ``message``) start empty.
    """
    rerun = [r for r in replications if r.get("reruns")]
    used = sorted({r["draws_used"] for r in replications if "draws_used" in r})
    return {
        "ranks": ranks.tolist(),
        "quantities": names,
        "L": SBC_RANK_DRAWS,
        "ranked": len(ranked),
        "refused": len(refused),
        "refused_replications": [r.get("index") for r in refused],
        "max_refused_fraction": MAX_REFUSED_FRACTION,
        "rerun": len(rerun),
        "rerun_replications": [r.get("index") for r in rerun],
        "draws_used": {str(d): sum(r.get("draws_used") == d for r in replications) for d in used},
        "not_converged": False,
        "message": "",
        "chi2": [],
    }


def _band_rows(ranks: np.ndarray, names: list[str]) -> list[dict[str, Any]]:
    """One ECDF band test per quantity of ``ranks`` (R, Q): rows of a check, before Holm's levels.

    Each row has ``quantity``, ``statistic`` (:data:`ECDF_BAND`), ``value`` (the
    smallest pointwise tail probability) and ``p`` (:func:`band_p_value`).
    """
    p = band_p_value(ranks.T)
    stat = min_tail_probability(ranks.T)
    return [
        {"quantity": n, "statistic": ECDF_BAND, "value": float(stat[k]), "p": float(p[k])}
        for k, n in enumerate(names)
    ]


def _chi2_rows(ranks: np.ndarray, names: list[str], bins: int) -> list[dict[str, Any]]:
    """Chi-square of ``bins`` equal bins of each quantity's ranks (R, Q), shown beside the verdict.

    One ``{"quantity", "value", "p"}`` per quantity.
    """
    chi2_p = chi2_p_value(ranks.T, bins)
    width = (SBC_RANK_DRAWS + 1) // bins
    return [
        {
            "quantity": n,
            "value": float(
                stats.chisquare(np.bincount(ranks[:, k] // width, minlength=bins)).statistic
            ),
            "p": float(chi2_p[k]),
        }
        for k, n in enumerate(names)
    ]


def _count_refusals(
    checks: pd.DataFrame,
    details: dict[str, Any],
    replications: Sequence[Mapping[str, Any]],
    refused: list[Mapping[str, Any]],
    n_ranked: int,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Advise on refused replications; too many (or fewer than two ranked) is not converged.

    Sets ``details["message"]``; when more than :data:`MAX_REFUSED_FRACTION` of
    the replications are refused, or fewer than two are ranked, sets
    ``details["not_converged"]`` and puts a failed ``refused fraction`` row
    first in ``checks``. Returns the checks and the details.
    """
    fraction = len(refused) / len(replications)
    reached = max((r.get("draws_used", 0) for r in refused), default=0)
    at = f" at {reached} draws per chain" if reached else ""
    if refused:
        details["message"] = (
            f"{len(refused)} of {len(replications)} replications refused (fewer than "
            f"{SBC_RANK_DRAWS} effective draws{at}, so their ranks would pile up at the ends); "
            "raise --max-draws or --draws, or use longer chains."
        )
    if fraction > MAX_REFUSED_FRACTION or n_ranked < 2:
        details["not_converged"] = True
        details["message"] = (
            f"The sampler mixes too slowly for SBC at {reached or 'these'} draws"
            f"{' per chain' if reached else ''}: {len(refused)} of {len(replications)} "
            f"replications ({fraction:.0%}, more than {MAX_REFUSED_FRACTION:.0%}) have fewer "
            f"than {SBC_RANK_DRAWS} effective draws even after doubling their draws up to "
            "that budget, and were refused. That says nothing of the sampler's calibration: "
            "raise --max-draws (or --draws), or make the sampler mix faster."
        )
        row = {
            "quantity": "replications", "statistic": REFUSED_FRACTION, "value": fraction,
            "threshold": MAX_REFUSED_FRACTION, "p": np.nan, "passed": False,
        }  # fmt: skip
        checks = pd.concat([pd.DataFrame([row]), checks], ignore_index=True)
    return checks, details


def _holm_band(checks: pd.DataFrame, alpha: float, n: int) -> pd.DataFrame:
    """Holm's step-down correction; ``threshold`` is the band's level at each check's Holm level."""
    columns = ["quantity", "statistic", "value", "threshold", "p", "passed"]
    m = len(checks)
    if m == 0:
        return pd.DataFrame(columns=columns).astype({"passed": bool})
    p = checks["p"].to_numpy()
    order = np.argsort(p, kind="stable")
    level = alpha / (m - np.arange(m))
    rejected = np.cumprod(p[order] <= level).astype(bool)
    passed = np.empty(m, dtype=bool)
    threshold = np.empty(m)
    passed[order] = ~rejected
    threshold[order] = [band_gamma(n, a) for a in level]
    return checks.assign(threshold=threshold, passed=passed)[columns]


# ------------------------------------------------------------- what a run can detect


def sensitivity(
    replications: Sequence[Mapping[str, Any]],
    alpha: float = agreement.ALPHA,
    *,
    resamples: int = SENSITIVITY_RESAMPLES,
    power: float = SENSITIVITY_POWER,
) -> dict[str, Any] | None:
    r"""Return the smallest miscalibration the run detects with ``power``: shift and sd ratio.

    Distortions of one test quantity at a time (its posterior mean shifted, its
    sd scaled) are planted into each ranked replication's own kept draws, and
    new SBC runs of the same size simulated under them are judged by the run's
    own test; the design is in :func:`_quantity_thresholds`, the run's
    statement (the worst quantity's) in :func:`_run_statement`. About 6 band
    tests of ``resamples x R`` ranks per curve: two seconds for 200
    replications of 11 quantities.

    Parameters
    ----------
    replications : sequence of mapping
        Outputs of :func:`sbc_replication`; ranked ones carry ``quantity_draws``.
    alpha : float
        The run's family-wise level.
    resamples : int
        Simulated runs per distortion.
    power : float
        The power the thresholds are stated at.

    Returns
    -------
    dict or None
        ``None`` with fewer than two ranked replications (or no stored
        quantity draws). Else ``power``, ``shift`` (posterior sds),
        ``sd_ratio`` (``[low, high]``: ratios at or below ``low``, at or above
        ``high`` are detected), ``sd_ratio_measured`` (some quantity is not
        discrete), ``quantities`` (per quantity ``quantity``, ``shift``,
        ``sd_ratio_low``, ``sd_ratio_high``, ``informative`` (not constant),
        ``lattice`` (discrete)), ``curves`` (per quantity, ``[distortion,
        power]`` at the grid values the bisection evaluated), ``grid``,
        ``resamples``, ``replications``, ``level``, ``seed``; a threshold not
        reached on the grid is ``None``.

    Raises
    ------
    ValueError
        ``alpha`` or ``power`` outside (0, 1), ``resamples`` < 1.
    """
    _check_sensitivity_arguments(alpha, power, resamples)
    ranked = [r for r in replications if r.get("ranks") is not None and QUANTITY_DRAWS in r]
    if len(ranked) < 2:
        return None
    names = list(ranked[0]["quantities"])
    n, m = len(ranked), len(names)
    values = np.asarray([r[QUANTITY_DRAWS] for r in ranked], dtype=float)  # (n, L, Q)
    level = alpha / m
    gamma = band_gamma(n, level, SBC_RANK_DRAWS)
    pick, jitter = _simulated_truths(resamples, n, m)
    per_quantity, curves = [], {}
    for k, name in enumerate(names):
        z, varies = _standardised(values[:, :, k])
        planted = _Planted(z, varies, pick, jitter, gamma, [SENSITIVITY_SEED, n, m, k])
        row, curves[name] = _quantity_thresholds(name, planted, varies, power)
        per_quantity.append(row)
    return {
        "power": power,
        **_run_statement(per_quantity),
        "quantities": per_quantity,
        "curves": curves,
        "grid": {
            "shift": list(SHIFT_GRID),
            "sd_ratio_low": list(NARROW_GRID),
            "sd_ratio_high": list(WIDE_GRID),
        },
        "resamples": resamples,
        "replications": n,
        "level": level,
        "seed": SENSITIVITY_SEED,
    }


def _check_sensitivity_arguments(alpha: float, power: float, resamples: int) -> None:
    """Raise ValueError on ``alpha`` or ``power`` outside (0, 1), or ``resamples`` < 1."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    if not 0 < power < 1:
        raise ValueError(f"power must lie in (0, 1), got {power!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be an integer >= 1, got {resamples!r}")


def _simulated_truths(resamples: int, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Which kept draw is each simulated run's true value, and its randomised PIT's uniform.

    Both (resamples, n), for ``n`` ranked replications of ``m`` quantities, from
    the fixed seed :data:`SENSITIVITY_SEED`: the same truths and uniforms for
    every quantity and every distortion.
    """
    rng = np.random.default_rng([SENSITIVITY_SEED, n, m])
    pick = rng.integers(0, SBC_RANK_DRAWS, size=(resamples, n))  # which kept draw is the truth
    jitter = rng.random((resamples, n))  # the randomised PIT's uniform
    return pick, jitter


def _standardised(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Standardise each row of one quantity's kept draws ``x`` (n, L) by its mean and sd.

    Returns the standardised draws (n, L), each row sorted, and which rows
    vary (n,) (bool): a row whose draws are constant (or not finite) is all
    zeros.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = x.std(axis=1, ddof=1)
        varies = np.isfinite(sd) & (sd > 0)
        z = np.where(varies[:, None], (x - x.mean(axis=1, keepdims=True)) / sd[:, None], 0.0)
    z = np.sort(np.nan_to_num(z, nan=0.0, posinf=0.0, neginf=0.0), axis=1)
    return z, varies


def _quantity_thresholds(
    name: str, planted: _Planted, varies: np.ndarray, power: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    r"""Return one quantity's smallest distortions detected with ``power``, and its power curves.

    Design. A miscalibrated sampler is modelled by planting a distortion into
    each ranked replication's own kept draws of one test quantity at a time,
    the draws ``x`` standardised by their own mean and sd (the replication's
    posterior sd; a replication whose kept draws are constant is never
    distorted):

    * *shift* ``s``: the sampler's draws sit ``s`` posterior sds above (and,
      separately, below) the posterior, ``x + s``;
    * *sd ratio* ``r``: they are spread ``r`` times the posterior sd about the
      posterior mean, ``r x`` (``r < 1`` too narrow, ``r > 1`` too wide).

    A new SBC run of the same size is then simulated ``resamples`` times: in
    each, replication ``i`` gets a fresh true value ``T``, one of its kept
    draws at random (under calibration the truth is one more posterior draw),
    its randomised PIT under the distorted draws, ``U = G(T-) + W (G(T) -
    G(T-))`` with ``G`` the CDF of the distorted kept draws (for a shift,
    ``G(t) = F(t - s)``; for a ratio, ``F(t / r)``; ``F`` their ECDF) and
    ``W ~ U(0, 1)``, and a rank ``~ Binomial(L, U)`` (``L`` fresh draws of the
    distorted posterior, as near-independent as the thinned kept draws).
    Undistorted, ``U`` is exactly uniform, and so are the ranks: the simulation
    has the test's size. A discrete quantity (kept draws with fewer distinct
    values than :data:`LATTICE_DISTINCT` of ``L``, on average) would be moved
    off its lattice by a shift, which any test sees at once; its mean is moved
    instead by exponential tilting of the kept draws' weights
    (:func:`_tilt`), and it gets no sd ratio (a lattice's spread is tied to its
    mean). Each simulated run is judged by the run's own test, the ECDF band
    test, at the level the planted quantity meets first in Holm's step-down over
    the run's ``Q`` quantities, ``alpha / Q`` (conservative: a rejection of
    another quantity is not counted). Power is the fraction of simulated runs
    that reject; every simulated run is resampled from fixed seeds
    (:data:`SENSITIVITY_SEED`, the same truths and PIT uniforms for every
    distortion), so the result is a function of the stored draws alone, the
    same on any number of workers.

    The stated threshold of a quantity is the smallest grid distortion
    (:data:`SHIFT_GRID`, :data:`NARROW_GRID`, :data:`WIDE_GRID`) whose power is
    at least ``power``, found by bisection (power grows with the distortion);
    ``None`` when the grossest falls short ("not reached on the grid"). A
    shift counts when both directions reach it.

    Parameters
    ----------
    name : str
    planted : _Planted
        The quantity's standardised kept draws, simulated truths and band level.
    varies : ndarray of bool (n,)
        Replications whose kept draws of the quantity are not constant.
    power : float

    Returns
    -------
    row : dict
        ``quantity``, ``shift``, ``sd_ratio_low``, ``sd_ratio_high`` (``None``
        when not reached, or for a lattice's ratios), ``informative``, ``lattice``.
    curves : dict
        Per distortion, ``[distortion, power]`` at the grid values evaluated.
    """
    curve = {"shift": _Curve(SHIFT_GRID, planted.shift)}
    if not planted.lattice:  # a lattice's spread cannot be scaled: its sd is its mean's
        curve["sd_ratio_low"] = _Curve(NARROW_GRID, planted.ratio)
        curve["sd_ratio_high"] = _Curve(WIDE_GRID, planted.ratio)
    row = {
        "quantity": name, "shift": None, "sd_ratio_low": None, "sd_ratio_high": None,
        **{key: c.threshold(power) for key, c in curve.items()},
        "informative": bool(varies.any()), "lattice": planted.lattice,
    }  # fmt: skip
    return row, {key: c.evaluated() for key, c in curve.items()}


def _run_statement(per_quantity: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the run's ``shift``, ``sd_ratio`` and ``sd_ratio_measured``: its worst quantity's.

    The run's statement is the worst over its quantities (constant quantities
    carry no information and are left out; discrete ones have no sd ratio): a
    shift of that many posterior sds in any one quantity is detected with
    ``power``. A threshold some quantity does not reach is ``None``.
    """
    informative = [q for q in per_quantity if q["informative"]]
    continuous = [q for q in informative if not q["lattice"]]
    return {
        "shift": _worst("shift", informative, max),
        "sd_ratio": [
            _worst("sd_ratio_low", continuous, min),
            _worst("sd_ratio_high", continuous, max),
        ],
        "sd_ratio_measured": bool(continuous),
    }


def _worst(
    key: str, among: list[dict[str, Any]], pick_worst: Callable[[list[float]], float]
) -> float | None:
    """``pick_worst`` of the quantities' ``key``; ``None`` if there are none or one is ``None``."""
    found = [q[key] for q in among]
    return None if not found or None in found else pick_worst(found)


def _tilt(z: np.ndarray, target: float) -> np.ndarray:
    """Weights ``w_ij ∝ exp(a_i z_ij)`` of each row of ``z`` (n, L) with weighted mean ``target``.

    The rows are standardised, so the mean moves by ``target`` sds; the weighted
    mean grows with ``a_i`` (its derivative is the weighted variance), so
    ``a_i`` is found by bisection. A mean a row cannot take (beyond its largest
    value) is approached as far as ``|a_i| <= 50`` goes.
    """
    lo, hi = np.full(len(z), -50.0), np.full(len(z), 50.0)

    def weights(a: np.ndarray) -> np.ndarray:
        e = a[:, None] * z
        w = np.exp(e - e.max(axis=1, keepdims=True))
        return w / w.sum(axis=1, keepdims=True)

    for _ in range(40):  # |a| known to 1e-10
        a = (lo + hi) / 2
        above = (weights(a) * z).sum(axis=1) > target
        lo, hi = np.where(above, lo, a), np.where(above, a, hi)
    return weights((lo + hi) / 2)


class _Planted:
    """One quantity's standardised kept draws, and the power against distortions planted in them.

    Parameters
    ----------
    z : ndarray (n, L)
        Standardised kept draws, each row sorted.
    varies : ndarray of bool (n,)
        Rows whose draws are not constant (the others are never distorted).
    pick, jitter : ndarray (resamples, n)
        Which kept draw is each simulated run's true value, and the uniform of its randomised PIT.
    gamma : float
        The band test's pointwise level at the quantity's Holm level.
    key : list of int
        Seed of the binomial rank draws (with a stream number per distortion).
    """

    def __init__(
        self,
        z: np.ndarray,
        varies: np.ndarray,
        pick: np.ndarray,
        jitter: np.ndarray,
        gamma: float,
        key: list[int],
    ) -> None:
        self.z, self.pick, self.jitter, self.gamma, self.key = z, pick, jitter, gamma, key
        self.n, self.L = z.shape
        self.moves = np.asarray(varies, dtype=float)[:, None]
        self.ecdf = _RowEcdf(z)
        distinct = np.mean([np.unique(row).size / self.L for row in z])
        self.lattice = bool(varies.any() and distinct < LATTICE_DISTINCT)
        self.below, self.upto = self.ecdf.counts(z)  # the truth's place among the draws

    def power(self, lo_cdf: np.ndarray, hi_cdf: np.ndarray, stream: int) -> float:
        """Power when truth ``j`` of replication ``i`` has its PIT in ``[lo_cdf, hi_cdf][i, j]``."""
        rows = np.arange(self.n)[None, :]
        lo, hi = lo_cdf[rows, self.pick], hi_cdf[rows, self.pick]  # (resamples, n)
        u = np.clip(lo + self.jitter * (hi - lo), 0.0, 1.0)
        ranks = np.random.default_rng([*self.key, stream]).binomial(self.L, u)
        return float(np.mean(min_tail_probability(ranks, self.L) < self.gamma))

    def moved(self, q: np.ndarray, stream: int) -> float:
        """Power when the draws move so that truth ``z_ij`` ranks as ``q_ij`` among them."""
        below, upto = self.ecdf.counts(q)
        return self.power(below / self.L, upto / self.L, stream)

    def tilted(self, target: float, stream: int) -> float:
        """Power when the draws are reweighted to a mean of ``target`` sds (:func:`_tilt`)."""
        weights = _tilt(self.z, target)  # rows of constant draws keep equal weights
        cdf = np.concatenate([np.zeros((self.n, 1)), np.cumsum(weights, axis=1)], axis=1)
        lo = np.take_along_axis(cdf, self.below, axis=1)
        hi = np.take_along_axis(cdf, self.upto, axis=1)
        return self.power(lo, hi, stream)

    def shift(self, s: float, stream: int) -> float:
        """Power against the mean moved ``s`` sds up and down (the smaller of the two)."""
        if self.lattice:
            return min(self.tilted(s, stream), self.tilted(-s, 1000 + stream))
        # draws s sd above: the truth ranks as z - s among the undistorted draws
        up = self.moved(self.z - s * self.moves, stream)
        return min(up, self.moved(self.z + s * self.moves, 1000 + stream))

    def ratio(self, r: float, stream: int) -> float:
        """Power against the sd scaled by ``r`` about the mean (not for a lattice)."""
        stream += 2000 if r < 1 else 3000
        return self.moved(self.z / r, stream)  # r x: the truth ranks as z / r


class _Curve:
    """Power against a grid of distortions (mild to gross), evaluated lazily and bisected.

    ``power_at(value, g)`` is the power against distortion ``value``, grid index ``g``.
    """

    def __init__(self, grid: Sequence[float], power_at: Callable[[float, int], float]):
        self.grid, self.power_at = grid, power_at
        self.known: dict[int, float] = {}

    def power(self, g: int) -> float:
        """Power at grid index ``g`` (computed once)."""
        if g not in self.known:
            self.known[g] = self.power_at(self.grid[g], g)
        return self.known[g]

    def threshold(self, power: float) -> float | None:
        """Smallest grid distortion with at least ``power``, by bisection (power grows with it).

        ``None`` when the grossest one falls short.
        """
        lo, hi = -1, len(self.grid) - 1
        if self.power(hi) < power:
            return None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if self.power(mid) >= power else (mid, hi)
        return float(self.grid[hi])

    def evaluated(self) -> list[list[float]]:
        """``[distortion, power]`` at the grid values evaluated."""
        return [[float(self.grid[g]), self.known[g]] for g in sorted(self.known)]


class _RowEcdf:
    """Counts below and up to query values in each row of sorted ``z`` (R, L), vectorised."""

    def __init__(self, z: np.ndarray):
        self.lo, self.hi = z[:, :1] - 1.0, z[:, -1:] + 1.0
        span = float((self.hi - self.lo).max()) + 1.0
        self.L = z.shape[1]
        self.offset = np.arange(len(z))[:, None] * span
        self.flat = (z - self.lo + self.offset).ravel()

    def counts(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``#(z_i < q_ij)`` and ``#(z_i <= q_ij)`` for queries ``q`` (R, L), each row sorted."""
        shifted = (np.clip(q, self.lo, self.hi) - self.lo + self.offset).ravel()
        base = np.repeat(np.arange(len(q)) * self.L, q.shape[1])
        below = np.searchsorted(self.flat, shifted, side="left") - base
        upto = np.searchsorted(self.flat, shifted, side="right") - base
        return below.reshape(q.shape), upto.reshape(q.shape)
