r"""Validate a sampler on its own: Geweke's joint-distribution test and SBC.

Both checks need a pair that conditions on data and declares a prior and a data
simulator (:mod:`comparisons.simulators`); the sampler under test has the
contract's signature ``sample(data, *, draws, tune, chains, random_seed)``.
The pair's PyMC twin runs through the same SBC loop (``sampler="pymc"``,
:class:`comparisons.run.PymcTwin`), so both sides are calibrated the same way;
Geweke's test is refused for it (every step would compile a new model).

Geweke (2004), "Getting it right"
---------------------------------
Two simulators of the joint distribution p(theta, y):

* *marginal-conditional*: ``theta ~ prior``, ``y ~ p(y | theta)``, independent draws;
* *successive-conditional*: a chain that alternates ``y ~ p(y | theta)`` and a
  transition of the sampler under test, ``theta ~ K(theta, . | y)``.

If the sampler leaves p(theta | y) invariant, both simulate p(theta, y), so
every test function g(theta, y) has the same mean under both. The test
functions are each scalar parameter, its square (skipped for 0/1 variables,
whose square is itself), the pairwise products, and the pair's log density of
the draw (its ``derived`` quantity ``logp``, a function of theta and y); a pair
with exchangeable labels (LDA) replaces the parameters' components by
label-invariant functions of them (the pair's ``test_params``). For
each, ``z = (mean_mc - mean_sc) / sqrt(mcse_mc**2 + mcse_sc**2)``; the MCSE of
the autocorrelated successive chain comes from :func:`arviz_stats.mcse` over
its independent replications (chains), the marginal one is ``sd / sqrt(n)``.
Each ``z`` gets a Student-t p-value with :data:`comparisons.agreement.Z_DF`
degrees of freedom and the family gets Holm's correction
(:func:`comparisons.agreement.holm`), as in the harness.

*The contract has no initial state.* A sampler whose signature accepts an
``initial`` keyword gets ``initial={variable: value}`` and ``tune=0``, and its
single draw is one exact transition of the successive-conditional chain. Any
other sampler restarts from its own dispersed start at every step and runs
``tune`` transitions before the kept draw: theta then follows
``K^(tune+1)(start(y), . | y)``, which approaches p(theta | y) as ``tune``
grows, so the chain is an *approximate* successive-conditional simulator (a
data-augmentation chain on (theta, y)). A correct sampler that has not
converged within ``tune`` transitions fails it; raise ``tune``. Each
replication is one successive-conditional chain started at a prior draw (so it
starts in the stationary distribution) plus as many marginal-conditional draws.

Simulation-based calibration (Talts et al. 2018; Modrák et al. 2023)
--------------------------------------------------------------------
Each replication draws ``theta* ~ prior`` and ``y ~ p(y | theta*)``, runs the
sampler (``chains`` chains of ``draws`` after ``tune``), thins the draws to
near-independence by their smallest bulk ESS (:func:`arviz_stats.ess`) and
keeps :data:`SBC_RANK_DRAWS` (``L``) of them evenly spaced, and records the
rank of ``theta*`` among them for every test quantity: each scalar parameter,
the pairwise products (and sums) of the components, and ``logp``. Ties (discrete
variables) are broken uniformly at random, so ranks of a calibrated sampler are
uniform on ``0 .. L``. Per quantity a chi-square test on ``bins`` equal bins of
ranks; Holm's correction over the quantities. Replications whose ESS was too
small for ``L`` thinned draws keep the thinnest spacing that still gives ``L``
and are counted in ``under_thinned`` (autocorrelation makes ranks pile up at the
ends).

Scale
-----
Replications run in chunks (one task per chunk, so a worker imports and
JIT-compiles the sampler once per process, not once per replication) through a
``dask.distributed`` client: a LocalCluster of processes by default, an
existing scheduler by address, or in-process with ``scheduler="synchronous"``.
Replication ``i`` draws all its random numbers from child ``i`` of
``np.random.SeedSequence(seed)``, so the results do not depend on the number of
workers or on how replications are chunked. If a replication fails, the
finished ones are kept and written with the error
(:class:`ValidationError` carries them).
"""

from __future__ import annotations

import html
import inspect
import itertools
import json
import logging
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import arviz_stats as azs
import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from comparisons import agreement
from comparisons.errors import one_line
from comparisons.loading import load_callable
from comparisons.pair import Pair
from comparisons.run import PYMC, PymcTwin, SamplerError
from comparisons.run import check_output as check_sampler_output

METHODS = ("geweke", "sbc")
PASS, FAIL, ERROR = "pass", "fail", "error"
SYNCHRONOUS = "synchronous"
"""``scheduler`` value that runs every replication in this process, without Dask."""
CONNECT_TIMEOUT_S = 5
"""Seconds to wait for an existing Dask scheduler before giving up."""
DEFAULT_WORKERS = 2
SBC_RANK_DRAWS = 99
"""Posterior draws a prior draw is ranked among (ranks 0 .. 99, 100 values)."""

DEFAULTS: dict[str, dict[str, int]] = {
    "geweke": {"replications": 20, "steps": 250, "tune": 20, "seed": 20261122},
    "sbc": {"replications": 200, "draws": 1000, "tune": 200, "chains": 1, "seed": 20261122},
}
"""Default settings per method; ``steps`` is the length of each successive-conditional chain."""


class ValidationError(ValueError):
    """A validation run failed midway; ``result`` holds the replications that finished."""

    def __init__(self, message: str, result: ValidationResult | None = None):
        super().__init__(message)
        self.result = result


@dataclass(frozen=True)
class Simulator:
    """What a validation needs from a pair: its data, prior, simulator and quantities."""

    pair: Pair
    data: dict
    prior: Callable[[Mapping, np.random.Generator], dict]
    simulate: Callable[[Mapping, Mapping, np.random.Generator], dict]
    test_params: Callable[[Mapping, Mapping], dict] | None = None
    """Label-invariant replacement of the variables' components (LDA), or ``None``."""
    witness: Any = None
    """The :class:`comparisons.witness.ModelWitness` that simulates, when the model does;
    its ``log_prior`` and ``log_likelihood`` join the test quantities."""


@dataclass
class ValidationResult:
    """Everything a report needs about one validation run.

    Attributes
    ----------
    pair, method, sampler : str
    settings : dict
    verdict : str
        ``"pass"``, ``"fail"``, or ``"error"`` when replications failed.
    checks : pandas.DataFrame
        One row per test: ``quantity``, ``statistic``, ``value``, ``threshold``,
        ``p``, ``passed`` (Holm-corrected at ``alpha``).
    replications : list of dict
        Per finished replication, JSON-ready.
    details : dict
        Method-specific arrays for plots (Geweke means; SBC ranks).
    timings : dict
    error : str or None
    """

    pair: str
    method: str
    sampler: str
    settings: dict[str, Any]
    verdict: str
    checks: pd.DataFrame
    replications: list[dict]
    details: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    error: str | None = None


# ----------------------------------------------------------------- set-up


def simulator_for(pair: Pair) -> Simulator:
    """Return the pair's validation data, prior and simulator.

    A pair that declares ``validation_data``, ``prior`` and ``simulate`` uses
    them. Any other pair is simulated from its model's prior predictive
    (:class:`comparisons.witness.ModelWitness`) under its own data, with
    ``validation_data`` (when declared) as the design: every free and every
    observed variable is drawn, and each observed draw goes into the data under
    its own name.

    Raises
    ------
    ValueError
        If the model has no observed variable (a fixed target), has a
        potential or an improper prior, or names an observed variable after no
        data key.
    """
    from comparisons.witness import ModelWitness

    def load(spec):
        return load_callable(spec, argument="pair simulator") if isinstance(spec, str) else spec

    specs = (pair.validation_data, pair.prior, pair.simulate)
    test_params = None if pair.test_params is None else load(pair.test_params)
    if None not in specs:
        data_fn, prior, simulate = (load(s) for s in specs)
        return Simulator(
            pair=pair, data=data_fn(), prior=prior, simulate=simulate, test_params=test_params
        )
    data = load(pair.validation_data)() if pair.validation_data is not None else pair.load_data()
    witness = ModelWitness(pair.model, data, argument="model")
    if not witness.observed and not witness.potentials:
        raise ValueError(
            f"pair {pair.name!r} samples a fixed target: there is no data to simulate, so "
            f"Geweke's test and SBC do not apply; its exact-answer checks run with "
            f"`mcmc-pairs compare {pair.name}`"
        )
    witness.check_generative()
    return Simulator(
        pair=pair,
        data=data,
        prior=witness.draw_prior,
        simulate=witness.simulate,
        test_params=test_params,
        witness=witness,
    )


def resolve_settings(method: str, **overrides: int | None) -> dict[str, int]:
    """Merge :data:`DEFAULTS` of ``method`` with explicit overrides and check them."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    settings = dict(DEFAULTS[method])
    for key, value in overrides.items():
        if value is None:
            continue
        if key not in settings:
            raise ValueError(f"{key} is not a setting of {method}; settings: {sorted(settings)}")
        settings[key] = value
    lows = {"replications": 2, "steps": 2, "draws": 1, "tune": 0, "chains": 1, "seed": 0}
    for key, value in settings.items():
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lows[key]:
            raise ValueError(f"{key} must be an integer >= {lows[key]}, got {value!r}")
    return {k: int(v) for k, v in settings.items()}


def _sampler_name(sampler: str | Callable) -> str:
    if isinstance(sampler, str):
        return sampler
    if isinstance(sampler, PymcTwin):
        return f"{PYMC} twin of {sampler.pair_name}"
    return f"{getattr(sampler, '__module__', '?')}:{getattr(sampler, '__qualname__', sampler)}"


_LOADED: dict[str, Callable] = {}


def _load_sampler(sampler: str | Callable) -> Callable:
    """Import a sampler once per process (a file spec re-imported would re-JIT)."""
    if not isinstance(sampler, str):
        return sampler
    if sampler not in _LOADED:
        _LOADED[sampler] = load_callable(sampler)
    return _LOADED[sampler]


# ------------------------------------------------------------ test quantities


def test_quantities(
    sim: Simulator,
    params: Mapping[str, np.ndarray],
    data: Mapping,
    *,
    squares: bool,
    sums: bool,
) -> tuple[np.ndarray, list[str]]:
    """Return the test functions of every draw in ``params``.

    Parameters
    ----------
    sim : Simulator
        Its pair gives the variables and the ``derived`` quantities (``logp``);
        its ``test_params`` (when given) replace the variables' components by
        those of ``test_params(params, data) -> {name: ndarray (chain, draw,
        *shape)}`` (label-invariant quantities for exchangeable labels,
        the pair's ``test_params``; ``derived`` still sees
        ``params``); its ``witness`` (when the model simulates) adds PyMC's
        ``log_prior`` and ``log_likelihood`` of every draw given ``data``.
    params : mapping of str to ndarray
        Parameter draws, each shaped (chain, draw, *event_shape).
    data : mapping
        The data the draws are conditioned on (or were simulated with).
    squares : bool
        Add the square of each component (Geweke's second moments).
    sums : bool
        Add pairwise sums of components (SBC's derived quantities).

    Returns
    -------
    values : ndarray, shape (chain, draw, quantity)
        Components, ``a^2`` for each component (if ``squares``), ``a*b`` (and
        ``a+b`` if ``sums``) for each pair of components (up to
        :data:`comparisons.agreement.MAX_COMPONENTS_FOR_PRODUCTS` components),
        then the pair's derived quantities.
    names : list of str
        The quantity names, labelled like :func:`comparisons.agreement.scalar_components`.
    """
    pair, test_params, witness = sim.pair, sim.test_params, sim.witness
    blocks, names = [], []
    components = dict(test_params(params, data)) if test_params is not None else params
    for var in components if test_params is not None else pair.variables:
        a = np.asarray(components[var], dtype=float)
        event = a.shape[2:]
        blocks.append(a.reshape(*a.shape[:2], -1))
        if not event:
            names.append(var)
        else:
            names.extend(f"{var}[{', '.join(map(str, i))}]" for i in np.ndindex(*event))
    comp = np.concatenate(blocks, axis=-1)
    out, labels = [comp], list(names)
    if squares:
        out.append(comp**2)
        labels += [f"{n}^2" for n in names]
    if len(names) <= agreement.MAX_COMPONENTS_FOR_PRODUCTS:
        for i, j in itertools.combinations(range(len(names)), 2):
            out.append(comp[..., i : i + 1] * comp[..., j : j + 1])
            labels.append(f"{names[i]}*{names[j]}")
            if sums:
                out.append(comp[..., i : i + 1] + comp[..., j : j + 1])
                labels.append(f"{names[i]}+{names[j]}")
    if pair.derived is not None or witness is not None:
        ds = xr.Dataset(
            {
                var: (("chain", "draw", *(f"{var}_dim_{k}" for k in range(np.ndim(v) - 2))), v)
                for var, v in params.items()
            }
        )
        derived = {} if witness is None else dict(witness.log_density(ds, data))
        if pair.derived is not None:
            derived.update(pair.derived(ds, data, dict.fromkeys(names, 0.0)))
        for qname, da in derived.items():
            out.append(np.asarray(da.transpose("chain", "draw").values, float)[..., None])
            labels.append(qname)
    return np.concatenate(out, axis=-1), labels


def _one_draw(params: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """One draw ``{name: value}`` shaped (chain=1, draw=1, *event_shape)."""
    return {name: np.asarray(v)[None, None] for name, v in params.items()}


def check_output(output, params: Mapping, name: str, chains: int, draws: int) -> dict:
    """Check a sampler's output against the contract; return ``{variable: ndarray}``.

    Parameters
    ----------
    output : mapping or DataTree
        What the sampler returned.
    params : mapping
        A prior draw: the expected variables and their event shapes.
    name : str
        The sampler, for messages.
    chains, draws : int

    Returns
    -------
    dict of str to ndarray
        Each shaped (chains, draws, *event_shape).

    Raises
    ------
    SamplerError
        Missing variables, wrong shapes, non-finite draws (as :func:`comparisons.run.to_datatree`).
    """
    shapes = {v: np.shape(p) for v, p in params.items()}
    return check_sampler_output(output, list(params), shapes, chains, draws, name)


# ------------------------------------------------------------- replications


def _call(sampler_name, func, data, **kwargs):
    try:
        return func(data, **kwargs)
    except Exception as exc:
        raise SamplerError(f"sampler {sampler_name} raised {type(exc).__name__}: {exc}") from exc


def _child(seed: np.random.SeedSequence, k: int) -> np.random.SeedSequence:
    """Child ``k`` of ``seed``, without the side effect of ``seed.spawn`` (reruns agree)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, k))


def geweke_replication(
    sim: Simulator,
    sampler: str | Callable,
    settings: Mapping[str, int],
    seed: np.random.SeedSequence,
) -> dict:
    """Run one successive-conditional chain and as many marginal-conditional draws.

    Parameters
    ----------
    sim : Simulator
    sampler : str or callable
        The sampler under test.
    settings : mapping
        ``steps`` (chain length) and ``tune`` (transitions per step when the
        sampler takes no ``initial``).
    seed : numpy.random.SeedSequence
        This replication's seed.

    Returns
    -------
    dict
        ``successive`` and ``marginal``: lists of ``steps`` rows of test
        functions; ``quantities``: their names; ``seconds``.
    """
    start = time.perf_counter()
    func = _load_sampler(sampler)
    name = _sampler_name(sampler)
    takes_initial = "initial" in inspect.signature(func).parameters
    ss_mc, ss_sc, ss_seeds = (_child(seed, k) for k in range(3))
    rng_mc, rng_sc = np.random.default_rng(ss_mc), np.random.default_rng(ss_sc)
    steps = settings["steps"]
    seeds = np.random.default_rng(ss_seeds).integers(0, 2**32, size=steps)
    data = sim.data

    marginal = []
    for _ in range(steps):
        theta = sim.prior(data, rng_mc)
        y = sim.simulate(data, theta, rng_mc)
        values, names = test_quantities(sim, _one_draw(theta), y, squares=True, sums=False)
        marginal.append(values[0, 0])
    successive = []
    theta = sim.prior(data, rng_sc)  # starts in the stationary distribution
    for t in range(steps):
        y = sim.simulate(data, theta, rng_sc)
        kwargs = {"draws": 1, "chains": 1, "random_seed": int(seeds[t])}
        if takes_initial:
            kwargs.update(tune=0, initial={k: np.asarray(v) for k, v in theta.items()})
        else:
            kwargs.update(tune=settings["tune"])
        post = check_output(_call(name, func, y, **kwargs), theta, name, 1, 1)
        theta = {k: post[k][0, 0] for k in theta}
        values, names = test_quantities(sim, post, y, squares=True, sums=False)
        successive.append(values[0, 0])
    return {
        "quantities": names,
        "marginal": np.array(marginal).tolist(),
        "successive": np.array(successive).tolist(),
        "seconds": time.perf_counter() - start,
    }


def sbc_replication(
    sim: Simulator,
    sampler: str | Callable,
    settings: Mapping[str, int],
    seed: np.random.SeedSequence,
) -> dict:
    """Run one SBC replication: prior draw, simulated data, sampler, ranks.

    Parameters
    ----------
    sim : Simulator
    sampler : str or callable
    settings : mapping
        ``draws``, ``tune``, ``chains`` of the sampler run.
    seed : numpy.random.SeedSequence

    Returns
    -------
    dict
        ``ranks`` (quantity -> rank in ``0 .. L``), ``quantities``, ``ess``
        (smallest bulk ESS), ``thin``, ``under_thinned``, ``seconds``.
    """
    start = time.perf_counter()
    func = _load_sampler(sampler)
    name = _sampler_name(sampler)
    ss_prior, ss_ties = _child(seed, 0), _child(seed, 1)
    rng = np.random.default_rng(ss_prior)
    theta = sim.prior(sim.data, rng)
    y = sim.simulate(sim.data, theta, rng)
    draws, chains = settings["draws"], settings["chains"]
    sampler_seed = int(rng.integers(0, 2**32))
    output = _call(
        name, func, y, draws=draws, tune=settings["tune"], chains=chains,
        random_seed=sampler_seed,
    )  # fmt: skip
    post = check_output(output, theta, name, chains, draws)
    q_post, names = test_quantities(sim, post, y, squares=False, sums=True)
    q_true, _ = test_quantities(sim, _one_draw(theta), y, squares=False, sums=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant quantities have NaN ESS
        ess = azs.ess(q_post, method="bulk")
    finite = ess[np.isfinite(ess)]
    min_ess = float(finite.min()) if finite.size else float(chains * draws)
    total = chains * draws
    thin = max(1, math.ceil(total / max(min_ess, 1.0)))
    flat = q_post.reshape(total, -1)  # chain-major: chains concatenated
    under_thinned = total // thin < SBC_RANK_DRAWS
    if total < SBC_RANK_DRAWS:
        raise ValueError(
            f"chains * draws must be >= {SBC_RANK_DRAWS} for SBC ranks, got {chains} * {draws}"
        )
    thinned = flat[::thin] if not under_thinned else flat[:: total // SBC_RANK_DRAWS]
    keep = np.linspace(0, len(thinned) - 1, SBC_RANK_DRAWS).round().astype(int)
    kept = thinned[keep]
    truth = q_true[0, 0]
    rng_ties = np.random.default_rng(ss_ties)
    below = (kept < truth).sum(axis=0)
    ties = (kept == truth).sum(axis=0)
    ranks = below + rng_ties.integers(0, ties + 1)
    return {
        "quantities": names,
        "ranks": [int(r) for r in ranks],
        "ess": min_ess,
        "thin": int(thin),
        "under_thinned": bool(under_thinned),
        "seconds": time.perf_counter() - start,
    }


REPLICATIONS = {"geweke": geweke_replication, "sbc": sbc_replication}


def run_chunk(
    method: str,
    sim: Simulator,
    sampler: str | Callable,
    settings: Mapping[str, int],
    seeds: Sequence[tuple[int, np.random.SeedSequence]],
) -> list[dict]:
    """Run the replications ``seeds`` (index, seed) in order; the unit of work of a task.

    A replication that raises becomes ``{"index": i, "error": message}`` and the
    chunk goes on, so which replications finish does not depend on the chunking.
    """
    done = []
    for index, seed in seeds:
        try:
            result = REPLICATIONS[method](sim, sampler, settings, seed)
        except Exception as exc:
            done.append({"index": index, "error": f"replication {index}: {one_line(exc)}"})
            continue
        done.append({"index": index, **result})
    return done


# ------------------------------------------------------------------ client


def open_client(scheduler: str | None, *, workers: int = DEFAULT_WORKERS):
    """Return a Dask client (and the LocalCluster it owns, or ``None``).

    Parameters
    ----------
    scheduler : str or None
        ``None``: a new LocalCluster of ``workers`` single-threaded processes;
        :data:`SYNCHRONOUS`: no client (run in this process); otherwise the
        address of an existing scheduler (``tcp://host:port``).
    workers : int

    Raises
    ------
    ValueError
        If the scheduler cannot be reached within :data:`CONNECT_TIMEOUT_S` seconds.
    """
    if scheduler == SYNCHRONOUS:
        return None, None
    from dask.distributed import Client, LocalCluster

    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: never clash with another cluster
            silence_logs=logging.CRITICAL,
        )
        return Client(cluster), cluster
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ValueError(f"--scheduler must be an address or {SYNCHRONOUS!r}, got {scheduler!r}")
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT_S), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise ValueError(
            f"--scheduler {scheduler!r}: cannot connect within {CONNECT_TIMEOUT_S} s "
            f"({type(exc).__name__}: {' '.join(str(exc).split())[:160]})"
        ) from None


def _chunks(n: int, parts: int) -> list[range]:
    parts = max(1, min(n, parts))
    bounds = np.linspace(0, n, parts + 1).round().astype(int)
    return [range(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def _run_replications(method, sim, sampler, settings, client, progress) -> tuple[list, str | None]:
    """Run all replications; return (finished replications sorted by index, error or None)."""
    n = settings["replications"]
    seeds = list(enumerate(np.random.SeedSequence(settings["seed"]).spawn(n)))
    if client is None:
        chunk_ranges = _chunks(n, 1 if n < 8 else max(1, n // 8))
    else:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        chunk_ranges = _chunks(n, 4 * workers)
    done: list[dict] = []
    if client is None:
        for r in chunk_ranges:
            done += run_chunk(method, sim, sampler, settings, [seeds[i] for i in r])
            progress(f"{len(done)}/{n} replications")
    else:
        from dask.distributed import as_completed

        futures = [
            client.submit(
                run_chunk, method, sim, sampler, settings, [seeds[i] for i in r], pure=False
            )
            for r in chunk_ranges
        ]
        try:
            for future in as_completed(futures):
                done += future.result()
                progress(f"{len(done)}/{n} replications")
        except Exception as exc:  # a worker died, a task did not pickle, ...
            failed = {r["index"] for r in done}
            done += [
                {"index": i, "error": f"replication {i}: {type(exc).__name__}: {one_line(exc)}"}
                for i in range(n)
                if i not in failed
            ]
    done.sort(key=lambda r: r["index"])
    errors = [r["error"] for r in done if "error" in r]
    finished = [r for r in done if "error" not in r]
    if not errors:
        return finished, None
    return finished, f"{len(errors)} of {n} replications failed; first: {errors[0]}"


# -------------------------------------------------------------- the tests


def geweke_checks(replications: Sequence[Mapping], alpha: float = agreement.ALPHA) -> tuple:
    """Judge Geweke replications: one Holm-corrected z-test per test function.

    Parameters
    ----------
    replications : sequence of mapping
        Outputs of :func:`geweke_replication` (at least two).
    alpha : float
        Family-wise false-alarm rate.

    Returns
    -------
    checks : pandas.DataFrame
        ``quantity``, ``statistic`` (``"z(mean)"``), ``value`` (z), ``threshold``,
        ``p``, ``passed``, and ``marginal``, ``successive``, ``mcse_marginal``,
        ``mcse_successive``, ``ess_successive``.
    details : dict
        The means per quantity, for reports.
    """
    names = replications[0]["quantities"]
    mc = np.concatenate([np.asarray(r["marginal"], float) for r in replications])  # (n, Q)
    sc = np.stack([np.asarray(r["successive"], float) for r in replications])  # (R, S, Q)
    sc_da = xr.Dataset({"g": xr.DataArray(sc, dims=("chain", "draw", "quantity"))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mcse_sc = azs.mcse(sc_da, method="mean")["g"].values
        ess_sc = azs.ess(sc_da, method="bulk")["g"].values
    mean_mc, mean_sc = mc.mean(0), sc.mean((0, 1))
    mcse_mc = mc.std(0, ddof=1) / np.sqrt(len(mc))
    rows = []
    for k, name in enumerate(names):
        if np.ptp(mc[:, k]) == 0 and np.ptp(sc[..., k]) == 0:
            continue  # a constant test function carries no information
        if name.endswith("^2") and np.array_equal(mc[:, k], mc[:, names.index(name[:-2])]):
            continue  # the square of a 0/1 variable is the variable
        se = math.hypot(mcse_mc[k], mcse_sc[k])
        diff = mean_mc[k] - mean_sc[k]
        z = 0.0 if diff == 0 else (diff / se if np.isfinite(se) and se > 0 else math.inf)
        rows.append(
            {
                "quantity": name,
                "statistic": "z(mean)",
                "value": z,
                "p": float(2 * stats.t.sf(abs(z), agreement.Z_DF)),
                "marginal": mean_mc[k],
                "successive": mean_sc[k],
                "mcse_marginal": mcse_mc[k],
                "mcse_successive": mcse_sc[k],
                "ess_successive": ess_sc[k],
            }
        )
    checks = agreement.holm(pd.DataFrame(rows), alpha)
    return checks, {"quantities": [r["quantity"] for r in rows]}


def sbc_checks(
    replications: Sequence[Mapping], alpha: float = agreement.ALPHA, bins: int | None = None
) -> tuple:
    """Judge SBC ranks: one Holm-corrected chi-square uniformity test per quantity.

    Parameters
    ----------
    replications : sequence of mapping
        Outputs of :func:`sbc_replication`.
    alpha : float
        Family-wise false-alarm rate.
    bins : int, optional
        Number of equal bins of the ``L + 1`` rank values; must divide ``L + 1``.
        Default: the largest divisor of ``L + 1`` up to 20 that leaves at least
        5 replications per bin.

    Returns
    -------
    checks : pandas.DataFrame
        ``quantity``, ``statistic`` (``"chi2(ranks)"``), ``value``, ``threshold``
        (the chi-square critical value at the check's Holm level), ``p``, ``passed``.
    details : dict
        ``ranks`` (R, Q) as lists, ``quantities``, ``bins``, ``L``.
    """
    names = replications[0]["quantities"]
    ranks = np.array([r["ranks"] for r in replications], dtype=int)  # (R, Q)
    n_values = SBC_RANK_DRAWS + 1
    if bins is None:
        divisors = [b for b in range(2, 21) if n_values % b == 0 and len(ranks) / b >= 5]
        bins = max(divisors, default=2)
    if n_values % bins:
        raise ValueError(f"bins must divide {n_values}, got {bins}")
    width = n_values // bins
    rows = []
    for k, name in enumerate(names):
        counts = np.bincount(ranks[:, k] // width, minlength=bins)
        chi2, p = stats.chisquare(counts)
        rows.append(
            {"quantity": name, "statistic": "chi2(ranks)", "value": float(chi2), "p": float(p)}
        )
    checks = agreement.holm(pd.DataFrame(rows), alpha)
    level = 2 * stats.t.sf(checks["threshold"].to_numpy(), agreement.Z_DF)
    checks["threshold"] = stats.chi2.isf(level, bins - 1)
    details = {"ranks": ranks.tolist(), "quantities": names, "bins": bins, "L": SBC_RANK_DRAWS}
    return checks, details


# ------------------------------------------------------------------- entry


def validate(
    pair: Pair,
    sampler: str | Callable | None = None,
    *,
    method: str,
    scheduler: str | None = None,
    client=None,
    alpha: float = agreement.ALPHA,
    progress: Callable[[str], None] | None = None,
    **settings: int | None,
) -> ValidationResult:
    """Run Geweke's test or SBC on a sampler of ``pair``.

    Parameters
    ----------
    pair : Pair
        A pair that declares a prior and a simulator.
    sampler : str or callable, optional
        The sampler under test (contract signature); default the pair's first
        hand-rolled variant. ``"pymc"`` (or a :class:`comparisons.run.PymcTwin`)
        runs the pair's PyMC twin through the same loop (SBC only).
    method : {"geweke", "sbc"}
    scheduler : str, optional
        See :func:`open_client`; ignored when ``client`` is given.
    client : dask.distributed.Client, optional
        An open client to use (not closed here).
    alpha : float
        Family-wise false-alarm rate of the method's tests.
    progress : callable, optional
        Receives progress lines.
    **settings : int
        Override :data:`DEFAULTS` of the method (``replications``, ``steps``,
        ``draws``, ``tune``, ``chains``, ``seed``).

    Returns
    -------
    ValidationResult

    Raises
    ------
    ValueError
        Bad arguments, a pair without prior or simulator, an unreachable
        scheduler; :class:`ValidationError` (a ValueError) when a replication
        fails, carrying a result with the finished replications.
    """
    settings = resolve_settings(method, **settings)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    sim = simulator_for(pair)
    if sampler is None:
        sampler = next(iter(pair.handrolled.values()))
    if sampler == PYMC:
        sampler = PymcTwin.of(pair)
    if isinstance(sampler, PymcTwin):
        name = _check_twin(sampler, pair, method, sim)
    else:
        if isinstance(sampler, str):
            load_callable(sampler)  # fail fast here with a clear message
        elif not callable(sampler):
            raise ValueError(f"--sampler must be an import string or a callable, got {sampler!r}")
        name = _sampler_name(sampler)
    say = progress or (lambda line: None)
    start = time.perf_counter()
    own_cluster = None
    if client is None:
        client, own_cluster = open_client(scheduler)
        owned = client
    else:
        owned = None
    try:
        done, error = _run_replications(method, sim, sampler, settings, client, say)
    finally:
        if owned is not None:
            owned.close()
        if own_cluster is not None:
            own_cluster.close()
    elapsed = time.perf_counter() - start
    base = {
        "pair": pair.name,
        "method": method,
        "sampler": name,
        "settings": {**settings, "alpha": alpha, "scheduler": scheduler or "LocalCluster"},
        "replications": done,
        "timings": {"total_s": elapsed},
    }
    if error is not None:
        result = ValidationResult(verdict=ERROR, checks=_empty_checks(), error=error, **base)
        raise ValidationError(f"{method} on {pair.name}: {error}", result)
    judge = geweke_checks if method == "geweke" else sbc_checks
    checks, details = judge(done, alpha)
    if method == "sbc":
        details["under_thinned"] = int(sum(r["under_thinned"] for r in done))
    verdict = PASS if bool(checks["passed"].all()) else FAIL
    return ValidationResult(verdict=verdict, checks=checks, details=details, **base)


def _check_twin(twin: PymcTwin, pair: Pair, method: str, sim: Simulator) -> str:
    """Check that ``twin`` can run ``method`` on ``pair``; return its name for reports.

    Geweke's test is refused: its successive-conditional chain simulates new data
    at every step, so the twin would build and compile a new model at every one
    of ``replications * steps`` steps (measured: 2.2 s a step on regression; on
    lda compilation is most of a 15 s SBC replication; hours at the default
    20 x 250 steps).
    """
    if twin.pair_name != pair.name:
        raise ValueError(
            f"--sampler: the PyMC twin of {twin.pair_name!r} cannot validate pair {pair.name!r}"
        )
    if method != "sbc":
        raise ValueError(
            f"--sampler {PYMC} runs with --method sbc only, not {method!r}: every Geweke step "
            "simulates new data, so the twin would compile a new model at each of the "
            "replications x steps steps (hours at the defaults)"
        )
    return f"{_sampler_name(twin)} ({twin.describe(sim.data)})"


def _empty_checks() -> pd.DataFrame:
    return pd.DataFrame(columns=["quantity", "statistic", "value", "threshold", "p", "passed"])


# ----------------------------------------------------------------- report


def to_json(result: ValidationResult) -> dict:
    """Return the JSON document of a validation run (DESIGN.md's keys plus details)."""
    checks = [
        {
            "quantity": row.quantity,
            "statistic": row.statistic,
            "value": _finite_or_none(row.value),
            "threshold": _finite_or_none(row.threshold),
            "p": _finite_or_none(row.p),
            "passed": bool(row.passed),
        }
        for row in result.checks.itertuples()
    ]
    doc = {
        "pair": result.pair,
        "method": result.method,
        "sampler": result.sampler,
        "verdict": result.verdict,
        "checks": checks,
        "settings": result.settings,
        "timings": result.timings,
        "replications": result.replications,
    }
    if result.error is not None:
        doc["error"] = result.error
    if result.method == "sbc" and "under_thinned" in result.details:
        doc["under_thinned"] = result.details["under_thinned"]
    return doc


def _finite_or_none(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def write_validation_report(result: ValidationResult, out: Path) -> tuple[Path, Path]:
    """Write ``out/<pair>_<method>.json`` and ``.html`` atomically; return both paths."""
    from comparisons.report import write_atomic

    out = Path(out)
    stem = f"{result.pair}_{result.method}"
    json_path, html_path = out / f"{stem}.json", out / f"{stem}.html"
    write_atomic(json_path, json.dumps(to_json(result), indent=2))
    write_atomic(html_path, render_validation(result))
    return html_path, json_path


VERDICT_WORDS = {
    PASS: "Passes: no test function shows a difference its Monte Carlo error cannot explain.",
    FAIL: "Fails: at least one test rejects at the Holm-corrected level. The sampler does not "
    "sample the posterior it is meant to (or, for Geweke without an initial-state argument, "
    "has not converged within tune transitions).",
    ERROR: "Stopped: a replication failed. The finished replications are in the JSON file.",
}
VERDICT_COLOURS = {PASS: "#1a7f37", FAIL: "#cf222e", ERROR: "#9a6700"}


def render_validation(result: ValidationResult) -> str:
    """Return the self-contained HTML page of a validation run."""
    from comparisons.report import _checks_table, _img, _page

    s = result.settings
    method_text = {
        "geweke": "Geweke's joint-distribution test compares the marginal-conditional simulator "
        "(parameters from the prior, data from the likelihood) with the successive-conditional "
        "simulator (data given parameters, then the sampler's draw given the data). Each test "
        "function's means must agree within their Monte Carlo errors (the successive chain's "
        "from arviz_stats over its replications); Holm's correction over the test functions.",
        "sbc": "Simulation-based calibration draws parameters from the prior, simulates data, "
        "runs the sampler and ranks the prior draw among posterior draws thinned by ESS. A "
        "calibrated sampler gives uniform ranks: chi-square test per quantity, Holm-corrected, "
        "and the Δ-ECDF of the normalised ranks should stay near zero.",
    }[result.method]
    settings_text = ", ".join(f"{k} {v}" for k, v in s.items())
    body = [
        f"<h1>{html.escape(result.method.upper())} validation of "
        f"<code>{html.escape(result.sampler)}</code> on "
        f"<code>{html.escape(result.pair)}</code></h1>",
        f'<p class="verdict" style="background:{VERDICT_COLOURS[result.verdict]}">Verdict: '
        f"{result.verdict}. {html.escape(VERDICT_WORDS[result.verdict])}</p>",
        f"<p>{html.escape(method_text)}</p>",
        f"<p>Settings: {html.escape(settings_text)}. {len(result.replications)} replications in "
        f"{result.timings.get('total_s', 0):.1f} s.</p>",
    ]
    if result.error:
        body.append(f"<p><strong>Error:</strong> {html.escape(result.error)}</p>")
    if len(result.checks):
        body += ["<h2>Tests</h2>", _checks_table(result.checks)]
        fig = geweke_figure(result) if result.method == "geweke" else sbc_figure(result)
        body += ["<h2>Figure</h2>", _img(fig)]
        if result.method == "sbc":
            ecdf = sbc_ecdf_figure(result)
            if ecdf is not None:
                body += [
                    "<h2>Δ-ECDF of the normalised ranks (arviz_plots, pot_c test)</h2>",
                    _img(ecdf),
                ]
    body.append(f'<p><a href="{result.pair}_{result.method}.json">JSON</a></p>')
    return _page(f"{result.pair} {result.method}: {result.verdict}", body)


def geweke_figure(result: ValidationResult):
    """z-score of every test function against its Holm threshold."""
    import matplotlib.pyplot as plt

    checks = result.checks
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(checks) + 1.2))
    y = np.arange(len(checks))
    colours = np.where(checks["passed"], "#1a7f37", "#cf222e")
    ax.barh(y, checks["value"].clip(-20, 20), color=colours)
    ax.plot(checks["threshold"], y, "k|")
    ax.plot(-checks["threshold"], y, "k|")
    ax.set_yticks(y, checks["quantity"], fontsize=8)
    ax.set_xlabel("z = (marginal-conditional - successive-conditional) / MCSE (clipped at 20)")
    fig.tight_layout()
    return fig


def sbc_figure(result: ValidationResult):
    """Rank histograms per quantity, with the 99 % band of a uniform bin count."""
    import matplotlib.pyplot as plt

    ranks = np.asarray(result.details["ranks"])
    names = result.details["quantities"]
    bins = result.details["bins"]
    width = (SBC_RANK_DRAWS + 1) // bins
    cols = min(4, len(names))
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.3 * rows), squeeze=False)
    n = len(ranks)
    lo, hi = stats.binom.ppf([0.005, 0.995], n, 1 / bins)
    for ax, k in zip(axes.flat, range(len(names)), strict=False):
        counts = np.bincount(ranks[:, k] // width, minlength=bins)
        ax.axhspan(lo, hi, color="0.85")
        ax.bar(np.arange(bins), counts, width=1.0, color="#0969da")
        ax.set_title(names[k], fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes.flat[len(names) :]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def sbc_ecdf_figure(result: ValidationResult):
    """Δ-ECDF of the PIT values (ranks), by ``arviz_plots.plot_ecdf_pit`` with ``pot_c``.

    Returns ``None`` when arviz_plots cannot draw it.
    """
    try:
        import arviz_plots as azp

        ranks = np.asarray(result.details["ranks"], dtype=float)
        names = result.details["quantities"]
        pit = (ranks + 0.5) / (SBC_RANK_DRAWS + 1)
        ds = xr.Dataset(
            {_safe(name): (("chain", "draw"), pit[None, :, k]) for k, name in enumerate(names[:8])}
        )
        tree = xr.DataTree.from_dict({"prior_sbc": ds})
        # "pot_c" (arviz_plots' recommended test; suspicious points highlighted): the
        # legacy "envelope" bands raise a TypeError in arviz_plots 1.3.2.
        pc = azp.plot_ecdf_pit(tree, method="pot_c", backend="matplotlib")
        return pc.viz["figure"].item() if hasattr(pc.viz["figure"], "item") else pc.viz["figure"]
    except Exception:  # a plotting failure must not lose the verdict
        return None


def _safe(name: str) -> str:
    return name.replace("*", " x ").replace("+", " plus ").replace("^", " pow ")
