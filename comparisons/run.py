"""Run both sides of a pair with the same settings and compare them.

The hand-rolled side runs first (it is cheap, and a user's sampler that returns
the wrong names or shapes should fail before NUTS compiles), then the PyMC twin.
Both become DataTrees; the compared variables become *quantities* (scalar
components plus derived quantities) and :mod:`comparisons.agreement` judges them.
"""

from __future__ import annotations

import copy
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import arviz_base as azb
import numpy as np
import pandas as pd
import xarray as xr

from comparisons import agreement
from comparisons.loading import load_callable
from comparisons.pair import ExactMarginal, Pair
from comparisons.witness import LOG_DENSITIES, ModelWitness
from comparisons.witness import build as build_model

PYMC = "pymc"
DEFAULT_SETTINGS = {"draws": 1000, "tune": 1000, "chains": 4, "seed": 20261122}


class SamplerError(ValueError):
    """A sampler under test failed or returned output that breaks the contract."""


@dataclass
class Side:
    """One side of a comparison: its draws and how long they took."""

    label: str
    sampler: str
    tree: xr.DataTree
    timings: dict[str, float]
    quantities: xr.DataArray | None = None

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
        value = settings[key]
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise ValueError(f"{key} must be an integer >= {low}, got {value!r}")
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
    progress: Callable[[str], None] | None = None,
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
        Receives one line per stage (default: print to stderr).
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
        Bad settings or data; :class:`SamplerError` if the sampler under test
        fails or returns the wrong names or shapes.
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
        samplers = {f"handrolled:{name}": spec for name, spec in pair.handrolled.items()}
    else:
        samplers = {"user": sampler}

    sides: dict[str, Side] = {}
    for label, spec in samplers.items():
        func = load_callable(spec) if isinstance(spec, str) else spec
        say(f"[{pair.name}] {label}: {settings['chains']} chains x {settings['draws']} draws")
        sides[label] = _run_handrolled(label, spec, func, data, settings, pair.variables, shapes)
        say(f"[{pair.name}] {label}: done in {sides[label].timings['total_s']:.2f} s")
    for label, step in {
        PYMC: None,
        **{f"{PYMC}:{k}": v for k, v in pair.pymc_steps.items()},
    }.items():
        if pymc_from is not None:
            sides[label] = replace(pymc_from.sides[label], quantities=None)
            continue
        say(f"[{pair.name}] {label}: {settings['chains']} chains x {settings['draws']} draws")
        sides[label] = _run_pymc(label, model, settings, pair, step)
        say(f"[{pair.name}] {label}: done in {sides[label].timings['total_s']:.2f} s")

    reference = dict(pair.reference(data)) if pair.reference else {}
    _attach_quantities(pair, data, sides, reference, witness)
    compared = [(label, PYMC) for label in sides if label != PYMC]
    _, checks, summaries = agreement.compare_draws(
        {label: side.quantities for label, side in sides.items()},
        compared,
        reference,
        statistics=pair.statistics,
    )
    verdicts = {label: _side_verdict(checks, label) for label in sides if label != PYMC}
    verdict = max((verdicts[label] for label in samplers), key=SEVERITY.index)
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


def _side_verdict(checks: pd.DataFrame, label: str) -> str:
    """Verdict of one side against NUTS: its own checks and those of the NUTS side."""
    mine = checks["comparison"].str.startswith(f"{label} ") | checks["comparison"].isin(
        [label, PYMC, f"{PYMC} vs exact"]
    )
    subset = checks[mine]
    kind = subset["kind"]
    return agreement.verdict(
        subset[kind.isin(["agreement", "exact"])],
        subset[kind == "diagnostic"],
        subset[kind == "support"],
    )


def _run_handrolled(label, spec, func, data, settings, variables, shapes) -> Side:
    kwargs = {"draws": settings["draws"], "tune": settings["tune"], "chains": settings["chains"]}
    name = spec if isinstance(spec, str) else label
    start = time.perf_counter()
    _call_sampler(name, func, data, draws=1, tune=0, chains=1, random_seed=0)  # JIT warm-up
    warmup = time.perf_counter() - start
    start = time.perf_counter()
    output = _call_sampler(name, func, data, random_seed=settings["seed"], **kwargs)
    sampling = time.perf_counter() - start
    tree = to_datatree(output, variables, shapes, settings["chains"], settings["draws"], name)
    timings = {"compile_s": warmup, "sampling_s": sampling, "total_s": warmup + sampling}
    return Side(label=label, sampler=name, tree=tree, timings=timings)


def _call_sampler(name, func, data, **kwargs):
    try:
        return func(copy.deepcopy(data), **kwargs)  # its own copy: nothing reaches the other side
    except Exception as exc:
        raise SamplerError(f"sampler {name} raised {type(exc).__name__}: {exc}") from exc


def to_datatree(output, variables, shapes, chains: int, draws: int, name: str) -> xr.DataTree:
    """Check a sampler's output against the contract and return it as a DataTree.

    See :func:`check_output` for the parameters and the checks; a returned
    DataTree is kept as it is (with its ``sample_stats``), a dict is converted
    with ``arviz_base.from_dict``.
    """
    arrays = check_output(output, variables, shapes, chains, draws, name)
    if isinstance(output, xr.DataTree):
        return output
    return azb.from_dict({"posterior": arrays})


def check_output(
    output, variables, shapes, chains: int, draws: int, name: str
) -> dict[str, np.ndarray]:
    """Check a sampler's output against the contract; return ``{variable: ndarray}``.

    Parameters
    ----------
    output : mapping of str to ndarray, or DataTree
        What the sampler returned.
    variables : sequence of str
        Variables it must contain.
    shapes : mapping of str to tuple
        Event shape of each variable (from the PyMC twin).
    chains, draws : int
        Expected leading dimensions.
    name : str
        The sampler's name, for messages.

    Raises
    ------
    SamplerError
        On missing variables, wrong shapes or non-finite draws.
    """
    if isinstance(output, xr.DataTree):
        if "posterior" not in output.children:
            raise SamplerError(f"sampler {name} returned a DataTree without a posterior group")
        arrays = {v: output["posterior"][v].values for v in variables if v in output["posterior"]}
    elif isinstance(output, Mapping):
        arrays = {v: np.asarray(output[v]) for v in variables if v in output}
    else:
        raise SamplerError(
            f"sampler {name} must return a dict of arrays or a DataTree, "
            f"got {type(output).__name__}"
        )
    missing = [v for v in variables if v not in arrays]
    if missing:
        raise SamplerError(
            f"sampler {name} did not return variable(s) {missing}; expected {list(variables)}"
        )
    returned = output["posterior"].data_vars if isinstance(output, xr.DataTree) else output
    extra = [str(v) for v in returned if v not in arrays]
    if extra:
        raise SamplerError(
            f"sampler {name} returned variable(s) {extra} that the model does not have; "
            f"expected {list(variables)}"
        )
    for var, values in arrays.items():
        expected = (chains, draws, *shapes[var])
        if values.shape != expected:
            raise SamplerError(
                f"sampler {name} returned {var} with shape {values.shape}, expected {expected} "
                "(chains, draws, *event_shape)"
            )
        if not np.all(np.isfinite(values)):
            raise SamplerError(f"sampler {name} returned non-finite values in {var}")
    return {v: arrays[v] for v in variables}


def _run_pymc(label: str, model, settings, pair: Pair, step: str | None) -> Side:
    start = time.perf_counter()
    tree = _pymc_sample(model, pair, settings, step, progressbar=sys.stderr.isatty())
    total = time.perf_counter() - start
    sampling = float(tree["posterior"].attrs.get("sampling_time", total))
    timings = {"compile_s": total - sampling, "sampling_s": sampling, "total_s": total}
    library = tree["posterior"].attrs.get("inference_library")
    sampler = _pymc_method(model, step, library)
    return Side(label=label, sampler=sampler, tree=tree, timings=timings)


def _pymc_sample(model, pair: Pair, settings, step: str | None = None, **extra) -> xr.DataTree:
    """Run ``pm.sample`` on ``model`` with ``settings`` and the pair's ``pymc_kwargs``.

    ``step`` names a step method of ``pymc`` that replaces ``pymc_kwargs`` (a
    second reference); ``extra`` (``progressbar``, ``cores``...) overrides both.
    """
    import pymc as pm

    with model:  # a step method binds to the model on the context stack
        kwargs = dict(pair.pymc_kwargs) if step is None else {"step": getattr(pm, step)()}
        kwargs = {"progressbar": False, "compute_convergence_checks": False, **kwargs, **extra}
        return pm.sample(
            draws=settings["draws"],
            tune=settings["tune"],
            chains=settings["chains"],
            random_seed=settings["seed"],
            **kwargs,
        )


@dataclass(frozen=True)
class PymcTwin:
    """The PyMC twin of a pair, as a sampler with the contract's signature.

    ``PymcTwin("regression")(data, draws=..., tune=..., chains=..., random_seed=...)``
    builds the pair's model from ``data`` and runs ``pm.sample`` with the pair's
    ``pymc_kwargs``, as :func:`run_pair` does, on one core and quietly (Dask
    already runs one replication per worker process). It holds a registered
    pair's name (looked up in :mod:`comparisons.registry` when called) or a
    :class:`~comparisons.pair.Pair` itself (a user's pair, whose model is an
    import string), so it pickles. Every call builds and compiles a new model:
    that, not sampling, is most of its cost (README, validate).

    Parameters
    ----------
    pair_ref : str or Pair
        A registered pair's name, or a pair.
    """

    pair_ref: str | Pair

    @property
    def pair(self) -> Pair:
        """The pair (a registered one through :func:`comparisons.registry.get_pair`)."""
        if isinstance(self.pair_ref, Pair):
            return self.pair_ref
        from comparisons.registry import get_pair

        return get_pair(self.pair_ref)

    @classmethod
    def of(cls, pair: Pair) -> PymcTwin:
        """Return the twin of ``pair``: by name when it is registered, else holding it."""
        from comparisons.registry import PAIRS

        return cls(pair.name) if any(p is pair for p in PAIRS) else cls(pair)

    @property
    def pair_name(self) -> str:
        """The pair's name."""
        return self.pair_ref.name if isinstance(self.pair_ref, Pair) else self.pair_ref

    def __call__(self, data, *, draws, tune, chains, random_seed) -> dict[str, np.ndarray]:
        """Sample the twin's posterior given ``data``.

        Returns
        -------
        dict of str to ndarray
            ``pair.variables``, each shaped (chains, draws, *event_shape).
        """
        pair = self.pair
        model = build_model(pair.model, data, argument="model")
        settings = {"draws": draws, "tune": tune, "chains": chains, "seed": random_seed}
        posterior = _pymc_sample(model, pair, settings, cores=1, quiet=True)["posterior"]
        return {v: posterior[v].transpose("chain", "draw", ...).values for v in pair.variables}

    def describe(self, data) -> str:
        """Name the sampler the twin runs on ``data``, as the compare report does.

        For example ``"NUTS (nutpie)"`` or ``"BinaryGibbsMetropolis"``; the model
        is built but not compiled.
        """
        pair = self.pair
        model = build_model(pair.model, data, argument="model")
        return _pymc_method(model, None, pair.pymc_kwargs.get("nuts_sampler", _default_nuts()))


def _default_nuts() -> str:
    """Return the library ``pm.sample`` runs NUTS with when not told (its own test, mirrored)."""
    from pymc.sampling import mcmc
    from pytensor.compile.mode import get_mode
    from pytensor.link.jax.linker import JAXLinker
    from pytensor.link.numba.linker import NumbaLinker

    meets = getattr(mcmc, "_nutpie_meets_min_version", lambda: mcmc.NUTPIE_INSTALLED)
    linker = isinstance(get_mode(None).linker, NumbaLinker | JAXLinker)
    return "nutpie" if linker and meets() else "pymc"


def _pymc_method(model, step: str | None, library: str | None) -> str:
    """Name the PyMC sampler that ran: ``"NUTS (nutpie)"``, ``"BinaryGibbsMetropolis"``...

    ``library`` is the posterior's ``inference_library``; it is named only for NUTS
    run outside PyMC.
    """
    if step is not None:
        return step
    from pymc.sampling.mcmc import assign_step_methods

    with model:
        methods = sorted(cls.__name__ for cls in assign_step_methods(model)[1])
    name = " + ".join(methods) or "pm.sample"
    return f"{name} ({library})" if methods == ["NUTS"] and library not in (None, "pymc") else name


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


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
