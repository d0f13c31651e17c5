"""Run both sides of a pair with the same settings and compare them.

The hand-rolled side runs first (it is cheap, and a user's sampler that returns
the wrong names or shapes should fail before NUTS compiles), then the PyMC twin
(:mod:`comparisons.pymc_runner`). Both become DataTrees; the compared variables
become *quantities* (scalar components plus derived quantities) and
:mod:`comparisons.agreement` judges them. Each side has a *role*: the
hand-rolled variants of the pair (``handrolled``), a sampler under test
(``user``), the PyMC reference (``pymc``) and PyMC's second references
(``pymc_step``); the pair's verdict is its worst ``handrolled``/``user`` side's.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from comparisons import agreement
from comparisons.contract import call_sampler, to_datatree
from comparisons.loading import resolve
from comparisons.pair import ExactMarginal, Pair
from comparisons.pymc_runner import PYMC, pymc_method, pymc_sample
from comparisons.witness import LOG_DENSITIES, ModelWitness
from pairdata.checks import check_integer

DEFAULT_SETTINGS = {"draws": 1000, "tune": 1000, "chains": 4, "seed": 20261122}
HANDROLLED, USER, PYMC_STEP = "handrolled", "user", "pymc_step"
ROLES = (HANDROLLED, USER, PYMC, PYMC_STEP)
"""What a side is: a hand-rolled variant of the pair, a sampler under test, the PyMC
reference (label ``"pymc"``), or a second PyMC reference (a step method)."""
UNDER_TEST = (HANDROLLED, USER)
"""The roles whose verdicts make the pair's verdict."""


def side_label(role: str, variant: str) -> str:
    """Return a side's key: ``handrolled:<variant>``, ``user``, ``pymc`` or ``pymc:<step>``."""
    if role == HANDROLLED:
        return f"{HANDROLLED}:{variant}"
    if role == PYMC_STEP:
        return f"{PYMC}:{variant}"
    return role


@dataclass
class Side:
    """One side of a comparison: what it is, its draws and how long they took.

    Attributes
    ----------
    role : str
        One of :data:`ROLES`.
    variant : str
        The hand-rolled variant's or the step method's name in the pair
        (``"gibbs"``, ``"metropolis"``); the role itself for ``user`` and ``pymc``.
    sampler : str
        What ran: an import string, ``"NUTS (nutpie)"``...
    tree : xarray.DataTree
        The draws (``posterior``, maybe ``sample_stats``).
    timings : dict
        ``compile_s``, ``sampling_s``, ``total_s``.
    quantities : xarray.DataArray or None
        The compared quantities, (chain, draw, quantity), once attached.
    """

    role: str
    variant: str
    sampler: str
    tree: xr.DataTree
    timings: dict[str, float]
    quantities: xr.DataArray | None = None

    @property
    def label(self) -> str:
        """The side's key in a run (:func:`side_label`)."""
        return side_label(self.role, self.variant)

    @property
    def acceptance_rate(self) -> float | None:
        """Mean acceptance of a Metropolis-type side (``acceptance_rate`` or ``accepted``)."""
        if "sample_stats" not in self.tree.children:
            return None
        stats = self.tree["sample_stats"]
        for name in ("acceptance_rate", "accepted"):
            if name in stats.data_vars:
                return float(stats[name].astype(float).mean())
        return None


@dataclass(frozen=True)
class RunEvent:
    """A stage of :func:`run_pair`, for its ``progress`` callback.

    ``str(event)`` is the line the command line prints:
    ``[lda] handrolled:gibbs: 4 chains x 2000 draws`` at the start of a side,
    ``[lda] handrolled:gibbs: done in 3.21 s`` when it is done.

    Attributes
    ----------
    pair : str
    side : str
        The side's label (:attr:`Side.label`).
    stage : {"start", "done"}
    chains, draws : int
    seconds : float or None
        The side's wall time (compilation included), when ``"done"``.
    """

    pair: str
    side: str
    stage: str
    chains: int
    draws: int
    seconds: float | None = None

    def __str__(self) -> str:
        if self.stage == "start":
            return f"[{self.pair}] {self.side}: {self.chains} chains x {self.draws} draws"
        return f"[{self.pair}] {self.side}: done in {self.seconds:.2f} s"


@dataclass
class PairResult:
    """Everything a report needs about one run of a pair."""

    pair: Pair
    settings: dict[str, Any]
    sides: dict[str, Side]
    verdict: str
    verdicts: dict[str, str]
    checks: pd.DataFrame
    summaries: dict[str, pd.DataFrame]
    reference: Mapping[str, ExactMarginal] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    data: Mapping[str, Any] = field(default_factory=dict)

    def ess_per_second(self, label: str) -> float:
        """Minimum bulk ESS over the compared quantities per second of sampling."""
        seconds = self.sides[label].timings["sampling_s"]
        return float(self.summaries[label]["ess_bulk"].min() / max(seconds, 1e-9))


def resolve_settings(pair: Pair, **overrides: int | None) -> dict[str, int]:
    """Merge the global defaults, the pair's defaults and explicit overrides, and check them."""
    settings = {**DEFAULT_SETTINGS, **pair.settings}
    settings.update({k: v for k, v in overrides.items() if v is not None})
    for key, low in (("draws", 1), ("tune", 0), ("chains", 1), ("seed", 0)):
        check_integer(key, settings[key], low)
    if settings["chains"] < 2:
        raise ValueError(
            f"chains must be >= 2 so that R-hat can be computed, got {settings['chains']}"
        )
    return settings


def run_pair(
    pair: Pair,
    *,
    sampler: str | Callable | None = None,
    data: Mapping | None = None,
    draws: int | None = None,
    tune: int | None = None,
    chains: int | None = None,
    seed: int | None = None,
    progress: Callable[[RunEvent], None] | None = None,
    pymc_from: PairResult | None = None,
) -> PairResult:
    """Run the PyMC twin and the hand-rolled side(s) of ``pair`` and compare them.

    Parameters
    ----------
    pair : Pair
        The registered pair.
    sampler : str or callable, optional
        A sampler under test (import string or callable with the contract's
        signature). It replaces the registered hand-rolled variants.
    data : mapping, optional
        Data for both sides; default ``pair.load_data()``.
    draws, tune, chains, seed : int, optional
        Override the pair's default settings; both sides get the same ones.
    progress : callable, optional
        Receives a :class:`RunEvent` at the start and the end of every side
        (default: print it to stderr).
    pymc_from : PairResult, optional
        An earlier run of the same pair with the same settings and data: its
        PyMC draws (deterministic given the seed) are reused instead of compiling
        and sampling again, so several samplers can face one reference cheaply.

    Returns
    -------
    PairResult

    Raises
    ------
    ValueError
        Bad settings or data; :class:`comparisons.contract.SamplerError` if the
        sampler under test fails or returns the wrong names or shapes.
    """
    say = progress or _stderr
    settings = resolve_settings(pair, draws=draws, tune=tune, chains=chains, seed=seed)
    if pymc_from is not None:
        if pymc_from.pair.name != pair.name or pymc_from.settings != settings:
            raise ValueError(
                f"pymc_from ran {pymc_from.pair.name} with {pymc_from.settings}; "
                f"this run is {pair.name} with {settings}"
            )
        if data is not None and data is not pymc_from.data:
            raise ValueError("pymc_from ran on other data; pass data=None to reuse its data")
        data = pymc_from.data
    data = pair.load_data() if data is None else data
    witness = ModelWitness(pair.model, data, argument="model")  # builds it: checks the data
    model = witness.model
    unknown = [v for v in pair.variables if v not in witness.variables]
    if unknown:
        raise ValueError(
            f"pair {pair.name}: variables {unknown} are not free variables of its model "
            f"{witness.name} (free variables: {list(witness.variables)})"
        )
    shapes = {name: witness.variables[name] for name in pair.variables}

    if sampler is None:
        samplers = [(HANDROLLED, name, spec) for name, spec in pair.handrolled.items()]
    else:
        samplers = [(USER, USER, sampler)]
    references = [(PYMC, PYMC, None), *((PYMC_STEP, k, v) for k, v in pair.pymc_steps.items())]

    chains, draws = settings["chains"], settings["draws"]
    sides: dict[str, Side] = {}
    for role, variant, spec in [*samplers, *references]:
        label = side_label(role, variant)
        if role in (PYMC, PYMC_STEP):
            if pymc_from is not None:
                sides[label] = replace(pymc_from.sides[label], quantities=None)
                continue
            say(RunEvent(pair.name, label, "start", chains, draws))
            side = _run_pymc(role, variant, model, settings, pair, spec)
        else:
            func = resolve(spec)
            say(RunEvent(pair.name, label, "start", chains, draws))
            side = _run_handrolled(role, variant, spec, func, data, settings, shapes)
        sides[label] = side
        say(RunEvent(pair.name, label, "done", chains, draws, side.timings["total_s"]))

    reference = dict(pair.reference(data)) if pair.reference else {}
    _attach_quantities(pair, data, sides, reference, witness)
    compared = [(label, PYMC) for label, side in sides.items() if side.role != PYMC]
    _, checks, summaries = agreement.compare_draws(
        {label: side.quantities for label, side in sides.items()},
        compared,
        reference,
        statistics=pair.statistics,
    )
    verdicts = agreement.side_verdicts(checks, list(sides), reference=PYMC)
    under_test = [verdicts[label] for label, side in sides.items() if side.role in UNDER_TEST]
    verdict = max(under_test, key=SEVERITY.index)
    return PairResult(
        pair=pair,
        settings=settings,
        sides=sides,
        verdict=verdict,
        verdicts=verdicts,
        checks=checks,
        summaries=summaries,
        reference=reference,
        timings={label: side.timings["total_s"] for label, side in sides.items()},
        data=data,
    )


SEVERITY = (agreement.AGREE, agreement.NOT_CONVERGED, agreement.DISAGREE)
"""Verdicts from best to worst: the pair's verdict is its worst hand-rolled side's."""


def _run_handrolled(role, variant, spec, func, data, settings, shapes) -> Side:
    kwargs = {"draws": settings["draws"], "tune": settings["tune"], "chains": settings["chains"]}
    name = spec if isinstance(spec, str) else side_label(role, variant)
    start = time.perf_counter()
    call_sampler(name, func, data, draws=1, tune=0, chains=1, random_seed=0)  # JIT warm-up
    warmup = time.perf_counter() - start
    start = time.perf_counter()
    output = call_sampler(name, func, data, random_seed=settings["seed"], **kwargs)
    sampling = time.perf_counter() - start
    tree = to_datatree(output, list(shapes), shapes, settings["chains"], settings["draws"], name)
    timings = {"compile_s": warmup, "sampling_s": sampling, "total_s": warmup + sampling}
    return Side(role=role, variant=variant, sampler=name, tree=tree, timings=timings)


def _run_pymc(role, variant, model, settings, pair: Pair, step: str | None) -> Side:
    start = time.perf_counter()
    tree = pymc_sample(model, settings, pair.pymc_kwargs, step, progressbar=sys.stderr.isatty())
    total = time.perf_counter() - start
    sampling = float(tree["posterior"].attrs.get("sampling_time", total))
    timings = {"compile_s": total - sampling, "sampling_s": sampling, "total_s": total}
    library = tree["posterior"].attrs.get("inference_library")
    sampler = pymc_method(model, step, library)
    return Side(role=role, variant=variant, sampler=sampler, tree=tree, timings=timings)


def _attach_quantities(
    pair: Pair, data, sides: Mapping[str, Side], reference, witness: ModelWitness
) -> None:
    """Give every side its quantities: aligned components, products, derived ones.

    The derived ones are the pair's own ``derived`` quantities and PyMC's
    ``log_prior`` and ``log_likelihood`` of every draw (:mod:`comparisons.witness`).
    """
    posteriors = {label: side.tree["posterior"].to_dataset() for label, side in sides.items()}
    if pair.align is not None:
        target = posteriors[PYMC].isel(chain=[0]).mean(("chain", "draw"))
        posteriors = {label: pair.align(post, target) for label, post in posteriors.items()}
    components = {
        label: agreement.scalar_components(post, pair.variables)
        for label, post in posteriors.items()
    }
    centers = {}
    for name in components[PYMC]["quantity"].values:
        exact = reference.get(str(name))
        centers[str(name)] = (
            exact.mean
            if exact is not None and exact.mean is not None
            else float(components[PYMC].sel(quantity=name).mean())
        )
    log_densities = {label: witness.log_density(post) for label, post in posteriors.items()}
    for name in LOG_DENSITIES:
        values = [ld[name].values for ld in log_densities.values() if name in ld]
        if values and all(np.all(v == values[0].flat[0]) for v in values):
            for ld in log_densities.values():  # constant everywhere (a flat prior): no information
                ld.pop(name, None)
    for label, side in sides.items():
        parts = [components[label], agreement.centred_products(components[label], centers)]
        derived = dict(log_densities[label])
        if pair.derived is not None:
            derived.update(pair.derived(posteriors[label], data, centers))
        for qname, values in derived.items():
            da = values.transpose("chain", "draw").drop_vars(
                [c for c in values.coords if c not in ("chain", "draw")]
            )
            parts.append(da.expand_dims(quantity=[qname], axis=-1))
        parts = [p.drop_vars([c for c in p.coords if c != "quantity"]) for p in parts]
        side.quantities = xr.concat(parts, dim="quantity")


def _stderr(event: RunEvent) -> None:
    print(event, file=sys.stderr, flush=True)
