"""Effective samples per second of the hand-rolled samplers against PyMC, measured side by side.

Four measurements, each a public function returning a JSON-ready dict, and each
a subcommand of this module's command line (``python -m
benchmarks.ess_per_second SUBCOMMAND ... --out FILE``) so that
:mod:`benchmarks.run` can run every one in its own process and read that
process's peak memory:

- :func:`measure_pair` (``pair NAME``): :func:`mcmc_pairs.comparisons.run.run_pair` on the
  pair's default data and settings, once untimed at 20 draws (it compiles the
  numba kernels and the PyMC model and warms every cache; its wall time is the
  *first-run overhead*), then ``repeats`` times with seeds ``seed, seed + 1,
  ...``. Each run gives every side's sampling wall time (tune + draws; for
  PyMC the posterior attribute ``sampling_time``, which excludes compilation),
  its minimum bulk ESS over the compared quantities
  (:meth:`mcmc_pairs.comparisons.result.PairResult.ess_per_second`) and the ratio of each
  side's ESS/s to NUTS's *in the same run*.
- :func:`gibbs_ess_per_draw` (``gibbs-ess``): the bivariate Gibbs sampler's
  bulk ESS per draw against the AR(1) value ``(1 - rho**2) / (1 + rho**2)``.
- :func:`regression_size_scaling` (``regression-size``): sampling time and
  ESS/s of the regression samplers and of NUTS as the number of data points N
  grows (data from :func:`mcmc_pairs.pairdata.regression.synthetic_data`).
- :func:`chain_scaling` (``chains``): wall time and ESS/s with 1 and 2 chains.
  The LDA, bivariate-normal and regression samplers run their chains on
  threads (``cores`` every available core) when a chain makes at least
  :data:`mcmc_pairs.handrolled._common.PARALLEL_MIN_STEPS` updates, the others one after
  the other; nutpie runs them in parallel threads (``cores = chains``).

Memory: Linux keeps a process's peak resident set size (``VmHWM``) and lets
the process reset it (write ``5`` to ``/proc/self/clear_refs``), so
:class:`PeakMemory` resets it before each side and reads the peak increment
over the resident size at that moment afterwards (on the ``start`` and ``done``
:class:`mcmc_pairs.comparisons.run.RunEvent` of ``run_pair``): the memory the side itself
needed (draws, DataTree, sampler workspace, and compilation where it happens
then). Where that is unavailable the fields are ``None``.

No function here asserts anything about time: the test suite runs them at
tiny sizes only to prove that they work.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons.files import write_atomic
from mcmc_pairs.comparisons.pymc_runner import PYMC, pymc_sample
from mcmc_pairs.comparisons.run import HANDROLLED, RunEvent, side_label
from mcmc_pairs.pairdata.checks import check_integer, check_positive

DEFAULT_SEED = 20261122
"""Seed of the first timed repeat (the harness's default seed)."""

WARMUP_DRAWS = 20
"""Draws (and tuning draws) of the untimed first run that compiles everything."""

CHAIN_COUNTS = (1, 2)
"""Chain counts of :func:`chain_scaling`: the machine has two cores."""

REGRESSION_SIZES = (100, 1_000, 10_000, 100_000)
"""Numbers of data points of :func:`regression_size_scaling`."""


# ------------------------------------------------------------------ helpers


def spread(values: Sequence[float | None]) -> dict[str, Any]:
    """Return the median, minimum and maximum of ``values`` (``None`` entries dropped).

    Parameters
    ----------
    values : sequence of float or None
        One value per repeat, shape (repeats,).

    Returns
    -------
    dict
        ``median``, ``min``, ``max`` (``None`` when no value is left) and
        ``values`` (the finite inputs, in order).
    """
    kept = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not kept:
        return {"median": None, "min": None, "max": None, "values": []}
    return {
        "median": statistics.median(kept),
        "min": min(kept),
        "max": max(kept),
        "values": kept,
    }


class PeakMemory:
    """Peak resident memory of a stretch of code, from Linux's ``VmHWM``.

    ``reset()`` marks the start (it resets the kernel's high-water mark and
    notes the current resident size); ``increment_mb()`` returns the peak over
    that start since then, in MiB. Both are no-ops returning ``None`` where
    ``/proc/self/clear_refs`` cannot be written.
    """

    def __init__(self) -> None:
        self._start_kb: int | None = None

    @staticmethod
    def _status_kb(field: str) -> int | None:
        try:
            with open("/proc/self/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def reset(self) -> None:
        """Reset the high-water mark and note the current resident size."""
        try:
            with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
                refs.write("5")
        except OSError:
            self._start_kb = None
            return
        self._start_kb = self._status_kb("VmRSS")

    def increment_mb(self) -> float | None:
        """Return the peak resident size since :meth:`reset` minus the size then, in MiB."""
        peak = self._status_kb("VmHWM")
        if self._start_kb is None or peak is None:
            return None
        return max(peak - self._start_kb, 0) / 1024.0


def _pair(name: str):
    from mcmc_pairs.comparisons.registry import get_pair

    return get_pair(name)


def _posterior(output: Any) -> xr.Dataset:
    """Posterior draws of a sampler's output (dict of arrays or DataTree) as a Dataset."""
    if isinstance(output, xr.DataTree):
        return output["posterior"].to_dataset()
    import arviz_base as azb

    return azb.from_dict({"posterior": {k: np.asarray(v) for k, v in output.items()}})[
        "posterior"
    ].to_dataset()


def min_ess_bulk(posterior: xr.Dataset, variables: Sequence[str]) -> tuple[float, str]:
    """Return the smallest bulk ESS over the scalar components of ``variables``, and its name.

    Parameters
    ----------
    posterior : xarray.Dataset
        Draws with dims ``(chain, draw, ...)``.
    variables : sequence of str
        Variables whose scalar components are considered.

    Returns
    -------
    tuple of (float, str)
        The ESS (arviz_stats, rank-normalised split bulk ESS) and the component.
    """
    import arviz_stats as azs

    from mcmc_pairs.comparisons.agreement import scalar_components

    components = scalar_components(posterior, variables)
    ess = azs.ess(xr.Dataset({"q": components}), method="bulk")["q"]
    values = np.asarray(ess.values, dtype=float)
    i = int(np.nanargmin(values))
    return float(values[i]), str(components["quantity"].values[i])


# --------------------------------------------------------- ESS/s per pair


def measure_pair(
    name: str,
    *,
    repeats: int = 3,
    seed: int = DEFAULT_SEED,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    budget_s: float | None = None,
) -> dict[str, Any]:
    """ESS per second of every side of pair ``name``, repeated, with NUTS's in the same run.

    Runs :func:`mcmc_pairs.comparisons.run.run_pair` once at :data:`WARMUP_DRAWS` draws
    (untimed: it compiles and warms every cache) and then ``repeats`` times at
    the pair's settings with seeds ``seed + r``.

    Parameters
    ----------
    name : str
        A registered pair.
    repeats : int
        Timed runs, >= 1.
    seed : int
        Seed of the first timed run, >= 0.
    draws, tune, chains : int, optional
        Override the pair's settings (both sides get the same ones).
    budget_s : float, optional
        Stop repeating once the timed runs have taken this many seconds (at
        least one run is made): the LDA pair's NUTS takes minutes per run.

    Returns
    -------
    dict
        ``pair``, ``settings``, ``repeats`` and ``sides``: per side label, the
        ``sampler``, ``first_run_s`` (wall time of the untimed first run,
        compilation included), ``compile_s`` (per timed run: hand-rolled, the
        numba warm-up call; PyMC, ``pm.sample`` wall minus ``sampling_time``),
        ``sampling_s``, ``ess_bulk_min``, ``ess_min_quantity``,
        ``ess_per_s``, ``ratio_to_nuts`` (that side's ESS/s over NUTS's in the
        same run), ``peak_rss_increment_mb`` (see :class:`PeakMemory`), each
        summarised by :func:`spread`, ``verdicts``, and ``repeats`` (the runs
        made, fewer than asked when the budget ran out).

    Raises
    ------
    ValueError
        Unknown pair or bad settings.
    """
    from mcmc_pairs.comparisons.run import resolve_settings, run_pair

    pair = _pair(name)
    fixed = resolve_settings(pair, draws=draws).draws  # one look: speed, not a verdict
    repeats = check_integer("repeats", repeats, 1)
    seed = check_integer("seed", seed, 0)
    if budget_s is not None:
        check_positive("budget_s", budget_s, "number of seconds")
    memory = PeakMemory()
    peaks: dict[str, float | None] = {}

    def progress(event: RunEvent) -> None:
        if event.stage == "start":
            memory.reset()
        elif event.stage == "done":
            peaks[event.side] = memory.increment_mb()

    warm = run_pair(
        pair,
        resolve_settings(
            pair,
            draws=WARMUP_DRAWS,
            tune=WARMUP_DRAWS,
            chains=chains or 2,
            seed=seed,
            max_draws=WARMUP_DRAWS,
        ),
        progress=progress,
    )
    first_run = {label: side.timings["total_s"] for label, side in warm.sides.items()}
    runs = []
    started = time.perf_counter()
    for r in range(repeats):
        if runs and budget_s is not None and time.perf_counter() - started > budget_s:
            break
        peaks = {}
        result = run_pair(
            pair,
            resolve_settings(
                pair, draws=draws, tune=tune, chains=chains, seed=seed + r, max_draws=fixed
            ),
            progress=progress,
        )
        runs.append((result, dict(peaks)))
    settings = runs[0][0].settings.as_json()
    for key in ("seed", "tolerance", "max_draws", "max_seconds", "timeout"):
        settings.pop(key, None)
    sides: dict[str, Any] = {}
    for label in runs[0][0].sides:
        rows = []
        for result, peak in runs:
            side = result.sides[label]
            ess = result.summaries[label]["ess_bulk"]
            eps = result.ess_per_second(label)
            rows.append(
                {
                    "compile_s": side.timings["compile_s"],
                    "sampling_s": side.timings["sampling_s"],
                    "ess_bulk_min": float(ess.min()),
                    "ess_min_quantity": str(ess.idxmin()),
                    "ess_per_s": eps,
                    "ratio_to_nuts": eps / result.ess_per_second(PYMC),
                    "peak_rss_increment_mb": peak.get(label),
                }
            )
        sides[label] = {
            "sampler": runs[0][0].sides[label].sampler,
            "first_run_s": first_run.get(label),
            "ess_min_quantity": rows[0]["ess_min_quantity"],
            **{
                key: spread([row[key] for row in rows])
                for key in (
                    "compile_s",
                    "sampling_s",
                    "ess_bulk_min",
                    "ess_per_s",
                    "ratio_to_nuts",
                    "peak_rss_increment_mb",
                )
            },
        }
    return {
        "pair": name,
        "settings": settings,
        "repeats": len(runs),
        "seeds": [seed + r for r in range(len(runs))],
        "sides": sides,
        "verdicts": [result.verdict for result, _ in runs],
    }


# ------------------------------------------------- bivariate Gibbs ESS/draw


def analytic_ess_per_draw(rho: float) -> float:
    """ESS per draw of an AR(1) chain with coefficient ``rho**2``: ``(1 - rho**2) / (1 + rho**2)``.

    Parameters
    ----------
    rho : float
        Correlation of the bivariate normal, in (-1, 1).

    Returns
    -------
    float
    """
    if not (isinstance(rho, int | float) and -1.0 < rho < 1.0):
        raise ValueError(f"rho must be a number in (-1, 1), got {rho!r}")
    r2 = rho * rho
    return (1.0 - r2) / (1.0 + r2)


def gibbs_ess_per_draw(
    *,
    draws: int = 20_000,
    chains: int = 4,
    repeats: int = 5,
    seed: int = DEFAULT_SEED,
    tolerance: float = 0.10,
) -> dict[str, Any]:
    """Bulk ESS per draw of the bivariate Gibbs sampler against its analytic value.

    The systematic scan makes each coordinate an AR(1) chain with coefficient
    ``rho**2``, whose ESS per draw is :func:`analytic_ess_per_draw` (0.6 at
    the default ``rho = 0.5``).

    Parameters
    ----------
    draws, chains : int
        Per run, >= 1 (and draws >= 100, so that the ESS means something).
    repeats : int
        Runs with seeds ``seed + r``, >= 1; the median is compared.
    seed : int
        First seed, >= 0.
    tolerance : float
        Allowed relative error of the median ESS per draw, > 0.

    Returns
    -------
    dict
        ``rho``, ``analytic``, per component ``x[0]``, ``x[1]`` the
        :func:`spread` of ESS per draw over runs, ``relative_error`` (of the
        median, per component), ``tolerance`` and ``within_tolerance``.
    """
    import arviz_stats as azs

    from mcmc_pairs.comparisons.agreement import scalar_components
    from mcmc_pairs.handrolled.bivariate_normal import sample
    from mcmc_pairs.pairdata.bivariate_normal import default_data

    draws = check_integer("draws", draws, 100)
    chains = check_integer("chains", chains, 1)
    repeats = check_integer("repeats", repeats, 1)
    seed = check_integer("seed", seed, 0)
    check_positive("tolerance", tolerance)
    data = default_data()
    rho = float(data["rho"])
    analytic = analytic_ess_per_draw(rho)
    per_component: dict[str, list[float]] = {}
    for r in range(repeats):
        out = sample(data, draws=draws, tune=1000, chains=chains, random_seed=seed + r)
        components = scalar_components(_posterior(out), ("x",))
        ess = azs.ess(xr.Dataset({"q": components}), method="bulk")["q"]
        for q, value in zip(components["quantity"].values, ess.values, strict=True):
            per_component.setdefault(str(q), []).append(float(value) / (draws * chains))
    summary = {q: spread(v) for q, v in per_component.items()}
    errors = {q: s["median"] / analytic - 1.0 for q, s in summary.items()}
    return {
        "rho": rho,
        "analytic": analytic,
        "draws": draws,
        "chains": chains,
        "repeats": repeats,
        "ess_per_draw": summary,
        "relative_error": errors,
        "tolerance": tolerance,
        "within_tolerance": all(abs(e) <= tolerance for e in errors.values()),
    }


# ------------------------------------------------------------ PyMC helpers


def _uses_nutpie(pair) -> bool:
    return pair.pymc_kwargs.get("nuts_sampler", "nutpie") == "nutpie"


class _NutsRunner:
    """NUTS on one model: compiled once, warmed up, then timed call by call.

    With nutpie, ``nutpie.compile_pymc_model`` is timed as the compilation and
    a first 10-draw ``nutpie.sample`` call (nutpie compiles part of the model
    lazily on first use) as the warm-up; every later call times
    ``nutpie.sample`` alone. Without nutpie (discrete models: PyMC's own step
    methods), every call is ``pm.sample`` as ``compare`` runs it
    (:func:`mcmc_pairs.comparisons.pymc_runner.pymc_sample`) and its time is the posterior's
    ``sampling_time``.
    """

    def __init__(self, model, pair) -> None:
        self.model = model
        self.pair = pair
        self.nutpie = _uses_nutpie(pair)
        self.compiled = None
        self.compile_s = 0.0
        self.warmup_s = 0.0

    def compile(self) -> None:
        if self.nutpie:
            import nutpie

            start = time.perf_counter()
            self.compiled = nutpie.compile_pymc_model(self.model, backend="numba")
            self.compile_s = time.perf_counter() - start
        start = time.perf_counter()
        self.sample(draws=10, tune=10, chains=1, seed=0)
        self.warmup_s = time.perf_counter() - start

    def sample(self, *, draws: int, tune: int, chains: int, seed: int) -> tuple[xr.Dataset, float]:
        if self.nutpie:
            import nutpie

            nuts = dict(self.pair.pymc_kwargs.get("nuts", {}))
            start = time.perf_counter()
            tree = nutpie.sample(
                self.compiled,
                draws=draws,
                tune=max(tune, 1),
                chains=chains,
                cores=chains,
                seed=seed,
                progress_bar=False,
                **nuts,
            )
            seconds = time.perf_counter() - start
            return tree["posterior"].to_dataset(), seconds
        settings = {"draws": draws, "tune": tune, "chains": chains, "seed": seed}
        tree = pymc_sample(self.model, settings, self.pair.pymc_kwargs, cores=chains)
        post = tree["posterior"]
        return post.to_dataset(), float(post.attrs["sampling_time"])


def _time_side(
    run: Callable[[int], tuple[xr.Dataset, float]],
    variables: Sequence[str],
    repeats: int,
    seed: int,
) -> dict[str, Any]:
    """Call ``run(seed + r)`` ``repeats`` times; summarise seconds, ESS, ESS/s and memory."""
    memory = PeakMemory()
    seconds, ess, peaks = [], [], []
    for r in range(repeats):
        memory.reset()
        post, s = run(seed + r)
        peaks.append(memory.increment_mb())
        seconds.append(s)
        ess.append(min_ess_bulk(post, variables)[0])
    return {
        "sampling_s": spread(seconds),
        "ess_bulk_min": spread(ess),
        "ess_per_s": spread([e / max(s, 1e-9) for e, s in zip(ess, seconds, strict=True)]),
        "peak_rss_increment_mb": spread(peaks),
    }


def _handrolled_runner(func, data, *, draws, tune, chains):
    def run(seed: int) -> tuple[xr.Dataset, float]:
        start = time.perf_counter()
        out = func(data, draws=draws, tune=tune, chains=chains, random_seed=seed)
        seconds = time.perf_counter() - start
        return _posterior(out), seconds

    return run


def _nuts_run(nuts: _NutsRunner, *, draws, tune, chains):
    def run(seed: int) -> tuple[xr.Dataset, float]:
        return nuts.sample(draws=draws, tune=tune, chains=chains, seed=seed)

    return run


def _warm_handrolled(func, data) -> float:
    start = time.perf_counter()
    func(data, draws=1, tune=0, chains=1, random_seed=0)
    return time.perf_counter() - start


# ---------------------------------------------------- regression and N


def regression_size_scaling(
    *,
    sizes: Sequence[int] = REGRESSION_SIZES,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    repeats: int = 3,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Measure sampling time and ESS/s of the regression samplers and NUTS as N grows.

    The hand-rolled samplers reduce the data to six sufficient statistics once
    (O(N)), after which every sweep is O(1); NUTS evaluates the O(N)
    log-likelihood gradient at every leapfrog step.

    Parameters
    ----------
    sizes : sequence of int
        Numbers of data points, each >= 3.
    draws, tune, chains : int
        Settings of every run (>= 1, >= 0, >= 1).
    repeats : int
        Timed runs per sampler and size (seeds ``seed + r``), >= 1.
    seed : int
        Seed of the synthetic data (the same data for every sampler) and first
        run seed, >= 0.

    Returns
    -------
    dict
        ``settings`` and ``sizes``: one entry per N with ``n`` and ``sides``
        (per side: ``compile_s`` and ``warmup_s`` where they apply, and the
        :func:`spread` of ``sampling_s``, ``ess_bulk_min``, ``ess_per_s``,
        ``peak_rss_increment_mb``).
    """
    from mcmc_pairs.comparisons.loading import load_callable
    from mcmc_pairs.pairdata.regression import synthetic_data

    if isinstance(sizes, str | bytes) or not isinstance(sizes, Sequence) or not sizes:
        raise ValueError(f"sizes must be a non-empty sequence of integers >= 3, got {sizes!r}")
    sizes = [check_integer("sizes", n, 3) for n in sizes]
    draws = check_integer("draws", draws, 1)
    tune = check_integer("tune", tune, 0)
    chains = check_integer("chains", chains, 1)
    repeats = check_integer("repeats", repeats, 1)
    seed = check_integer("seed", seed, 0)
    pair = _pair("regression")
    build_model = load_callable(pair.model, argument="model")
    out = []
    for n in sizes:
        data = synthetic_data(n, rng=np.random.default_rng(seed))
        sides: dict[str, Any] = {}
        for variant, spec in pair.handrolled.items():
            func = load_callable(spec)
            warm = _warm_handrolled(func, data)
            run = _handrolled_runner(func, data, draws=draws, tune=tune, chains=chains)
            sides[side_label(HANDROLLED, variant)] = {
                "compile_s": warm,
                **_time_side(run, pair.variables, repeats, seed),
            }
        nuts = _NutsRunner(build_model(data), pair)
        nuts.compile()
        sides[PYMC] = {
            "compile_s": nuts.compile_s,
            "warmup_s": nuts.warmup_s,
            **_time_side(
                _nuts_run(nuts, draws=draws, tune=tune, chains=chains),
                pair.variables,
                repeats,
                seed,
            ),
        }
        out.append({"n": n, "sides": sides})
    return {
        "pair": "regression",
        "settings": {"draws": draws, "tune": tune, "chains": chains},
        "repeats": repeats,
        "sizes": out,
    }


# ------------------------------------------------------------ 1 and 2 chains


def chain_scaling(
    *,
    names: Sequence[str] | None = None,
    chain_counts: Sequence[int] = CHAIN_COUNTS,
    repeats: int = 3,
    seed: int = DEFAULT_SEED,
    draws: int | None = None,
    tune: int | None = None,
) -> dict[str, Any]:
    """Wall time and ESS/s of every pair's samplers with 1 and 2 chains.

    The numba samplers run their chains on threads when a chain makes at least
    :data:`mcmc_pairs.handrolled._common.PARALLEL_MIN_STEPS` updates (see
    :func:`mcmc_pairs.handrolled._common.map_chains`); otherwise, and for the other
    hand-rolled samplers, the time grows linearly with the chains. nutpie
    samples chains in parallel threads (``cores = chains``); PyMC's own step
    methods (the Bayes net) with ``cores = chains`` processes.

    Parameters
    ----------
    names : sequence of str, optional
        Pairs to run; default all registered pairs.
    chain_counts : sequence of int
        Chain counts, each >= 1.
    repeats : int
        Timed runs per sampler and chain count, >= 1.
    seed : int
        First run seed, >= 0.
    draws, tune : int, optional
        Override the pairs' settings.

    Returns
    -------
    dict
        ``pairs``: per pair, ``settings`` and ``sides``: per side and chain
        count (as a string key) the :func:`spread` of ``sampling_s``,
        ``ess_bulk_min``, ``ess_per_s``, ``peak_rss_increment_mb``.
    """
    from mcmc_pairs.comparisons.loading import load_callable
    from mcmc_pairs.comparisons.registry import PAIRS
    from mcmc_pairs.comparisons.settings import Settings

    names = [p.name for p in PAIRS] if names is None else list(names)
    pairs = [_pair(n) for n in names]
    if isinstance(chain_counts, str | bytes) or not chain_counts:
        raise ValueError(f"chain_counts must be a non-empty sequence, got {chain_counts!r}")
    chain_counts = [check_integer("chain_counts", c, 1) for c in chain_counts]
    repeats = check_integer("repeats", repeats, 1)
    seed = check_integer("seed", seed, 0)
    out = {}
    for pair in pairs:
        defaults = Settings.resolve(pair.settings)
        n_draws = defaults.draws if draws is None else check_integer("draws", draws, 1)
        n_tune = defaults.tune if tune is None else check_integer("tune", tune, 0)
        data = pair.load_data()
        sides: dict[str, Any] = {}
        for variant, spec in pair.handrolled.items():
            func = load_callable(spec)
            _warm_handrolled(func, data)
            sides[side_label(HANDROLLED, variant)] = {
                str(c): _time_side(
                    _handrolled_runner(func, data, draws=n_draws, tune=n_tune, chains=c),
                    pair.variables,
                    repeats,
                    seed,
                )
                for c in chain_counts
            }
        nuts = _NutsRunner(load_callable(pair.model, argument="model")(data), pair)
        nuts.compile()
        sides[PYMC] = {
            str(c): _time_side(
                _nuts_run(nuts, draws=n_draws, tune=n_tune, chains=c),
                pair.variables,
                repeats,
                seed,
            )
            for c in chain_counts
        }
        out[pair.name] = {
            "settings": {"draws": n_draws, "tune": n_tune},
            "nuts_backend": "nutpie" if nuts.nutpie else "pymc",
            "sides": sides,
        }
    return {"chain_counts": chain_counts, "repeats": repeats, "pairs": out}


# ------------------------------------------------------------ command line


class UsageError(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of this module's command line."""
    parser = _Parser(prog="python -m benchmarks.ess_per_second", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    pair = sub.add_parser("pair", help="ESS/s of one pair's sides, repeated")
    pair.add_argument("name")
    pair.add_argument("--budget", type=float, help="stop repeating after this many seconds")
    for flag in ("--draws", "--tune", "--chains"):
        pair.add_argument(flag, type=int)
    gibbs = sub.add_parser("gibbs-ess", help="bivariate Gibbs ESS per draw against 0.6")
    gibbs.add_argument("--draws", type=int, default=20_000)
    size = sub.add_parser("regression-size", help="regression time and ESS/s against N")
    size.add_argument("--sizes", type=int, nargs="+", default=list(REGRESSION_SIZES))
    size.add_argument("--draws", type=int, default=1000)
    size.add_argument("--tune", type=int, default=1000)
    chains = sub.add_parser("chains", help="1 and 2 chains")
    chains.add_argument("--pairs", nargs="+")
    chains.add_argument("--draws", type=int)
    chains.add_argument("--tune", type=int)
    for p in (pair, gibbs, size, chains):
        p.add_argument("--repeats", type=int, default=3)
        p.add_argument("--seed", type=int, default=DEFAULT_SEED)
        p.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one measurement and write its JSON; return the exit status (2 on bad input)."""
    try:
        args = build_parser().parse_args(argv)
        common = {"repeats": args.repeats, "seed": args.seed}
        if args.command == "pair":
            result = measure_pair(
                args.name,
                draws=args.draws,
                tune=args.tune,
                chains=args.chains,
                budget_s=args.budget,
                **common,
            )
        elif args.command == "gibbs-ess":
            result = gibbs_ess_per_draw(draws=args.draws, **common)
        elif args.command == "regression-size":
            result = regression_size_scaling(
                sizes=args.sizes, draws=args.draws, tune=args.tune, **common
            )
        else:
            result = chain_scaling(names=args.pairs, draws=args.draws, tune=args.tune, **common)
    except (UsageError, ValueError) as exc:
        message = " ".join(str(exc).split())
        print(f"ess_per_second: error: {message}", file=sys.stderr)
        return 2
    text = json.dumps(result, indent=1, default=_jsonable)
    if args.out is None:
        print(text)
    else:
        write_atomic(args.out, text + "\n")
    return 0


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


if __name__ == "__main__":
    sys.exit(main())
