"""Running PyMC: one ``pm.sample`` call for compare, validate and the benchmarks.

:func:`pymc_sample` runs a pair's model with the pair's ``pymc_kwargs`` (or a
named step method, a second reference, or a user's :class:`StepMethod` under
test); :func:`pymc_method` names what ran (``"NUTS (nutpie)"``,
``"BinaryGibbsMetropolis"``); :class:`PymcTwin` is a pair's PyMC twin (or the
model with a user's step method) as a sampler with the contract's signature, so
SBC can run it like any hand-written sampler.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons import interrupts, reuse
from mcmc_pairs.comparisons.compile_once import CompileCache, compiled_once
from mcmc_pairs.comparisons.kinds import Role
from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.settings import SamplerRun, Sampling
from mcmc_pairs.comparisons.witness import build as build_model
from mcmc_pairs.comparisons.witness import exact_arithmetic, user_transforms

PYMC = Role.PYMC
"""The PyMC side's label in a comparison, and ``--sampler``'s reserved name for the twin."""
STEP_PREFIX = "pymc-step:"
"""``--sampler pymc-step:FILE.py:NAME`` puts a PyMC step method under test (:class:`StepMethod`)."""


@dataclass(frozen=True)
class StepMethod:
    """A user's PyMC step method under test: ``pymc-step:FILE.py:NAME``.

    ``pymc-step:package.module:NAME`` works too. ``NAME`` is a subclass of
    ``pymc.step_methods.compound.BlockedStep`` (an ``ArrayStep`` too), made with
    no arguments inside the model's context, or a function ``(model) -> step or
    list of steps``. ``pm.sample(step=...)`` runs them on the model and assigns
    PyMC's own samplers to every free variable they leave; the side is compared
    with the NUTS reference like any sampler. A step method draws its random
    numbers from ``self.rng``, which PyMC seeds per chain
    (``setup_chain``), so the same seed gives the same draws.

    Parameters
    ----------
    spec : str
        What follows :data:`STEP_PREFIX`: ``path/to/file.py:NAME`` or
        ``package.module:NAME``.
    """

    spec: str

    @classmethod
    def parse(cls, sampler: Any) -> StepMethod | None:
        """Return the step method ``sampler`` names (``"pymc-step:..."``), else ``None``.

        The step is imported here, to fail fast: :class:`ValueError` naming
        ``--sampler`` when it does not import or is neither a step class nor callable.
        """
        if isinstance(sampler, StepMethod):
            return sampler
        if not (isinstance(sampler, str) and sampler.startswith(STEP_PREFIX)):
            return None
        step = cls(sampler.removeprefix(STEP_PREFIX))
        step.load()
        return step

    def __str__(self) -> str:
        return STEP_PREFIX + self.spec

    def load(self) -> Any:
        """Import the step class or factory; :class:`ValueError` naming ``--sampler`` if neither."""
        from pymc.step_methods.compound import BlockedStep

        from mcmc_pairs.comparisons.loading import load_callable

        found = load_callable(self.spec, argument=f"--sampler {STEP_PREFIX}")
        if isinstance(found, type) and not issubclass(found, BlockedStep):
            raise ValueError(
                f"--sampler {self}: {found.__name__} is a class but not a PyMC step method "
                "(a subclass of pymc.step_methods.compound.BlockedStep)"
            )
        return found

    def steps(self, model: Any) -> list:
        """Return the step methods for ``model``, made inside its context (checked)."""
        from pymc.step_methods.compound import BlockedStep, CompoundStep

        found = self.load()
        with model:
            try:
                made = found() if isinstance(found, type) else found(model)
            except Exception as exc:  # the user's code: any failure is bad input
                raise ValueError(f"--sampler {self} raised {type(exc).__name__}: {exc}") from exc
        made = list(made) if isinstance(made, list | tuple) else [made]
        wrong = [m for m in made if not isinstance(m, BlockedStep | CompoundStep)]
        if not made or wrong:
            raise ValueError(
                f"--sampler {self} returned {wrong or made!r}, not a PyMC step method or a "
                "list of them"
            )
        return made


def pymc_sample(
    model: Any,
    settings: Sampling,
    pymc_kwargs: Mapping[str, Any],
    step: str | StepMethod | None = None,
    compiles: CompileCache | None = None,
    **extra: Any,
) -> xr.DataTree:
    """Run ``pm.sample`` on ``model`` with ``settings`` and the pair's ``pymc_kwargs``.

    Parameters
    ----------
    model : pymc.Model
        The model to sample.
    settings : Sampling
        ``draws``, ``tune``, ``chains`` and ``seed``
        (:class:`~mcmc_pairs.comparisons.settings.Settings`, or a
        :class:`~mcmc_pairs.comparisons.settings.SamplerRun`).
    pymc_kwargs : mapping
        The pair's extra keyword arguments of ``pm.sample`` (``Pair.pymc_kwargs``).
    step : str or StepMethod, optional
        Names a step method of ``pymc`` that replaces ``pymc_kwargs`` (a second
        reference, ``Pair.pymc_steps``), or a user's step method under test.
    compiles : CompileCache, optional
        Where nutpie's compile of the model is kept for later calls
        (:mod:`~mcmc_pairs.comparisons.compile_once`); None compiles afresh.
    **extra
        ``progressbar``, ``cores``, ``quiet``...: override both.

    Returns
    -------
    xarray.DataTree
        ``pm.sample``'s result; the posterior's ``(chain, draw, *event)`` draws.
    """
    import pymc as pm

    with model:  # a step method binds to the model on the context stack
        kwargs: dict[str, Any]
        if isinstance(step, StepMethod):
            kwargs = {"step": step.steps(model)}
        else:
            kwargs = dict(pymc_kwargs) if step is None else {"step": getattr(pm, step)()}
        kwargs = {"progressbar": False, "compute_convergence_checks": False, **kwargs, **extra}
        if "initvals" not in kwargs and (origin := origin_initvals(model)):
            kwargs["initvals"] = origin  # PyMC's start is not finite: start where Stan does
        reuse = contextlib.nullcontext() if compiles is None else compiled_once(compiles)
        with exact_arithmetic(), reuse:  # the same draws from fresh compile caches and warm ones
            try:
                tree = pm.sample(
                    draws=settings.draws,
                    tune=settings.tune,
                    chains=settings.chains,
                    random_seed=settings.seed,
                    **kwargs,
                )
            except (RuntimeError, pm.exceptions.SamplingError) as exc:
                if not any(words in str(exc) for words in NO_START):
                    raise
                interrupts.skip_teardown()  # nutpie's threads would crash the exit (139)
                raise ValueError(NO_START_ADVICE.format(what=str(exc).splitlines()[0])) from None
    interrupts.check()  # PyMC and nutpie swallow Ctrl-C and return a trace padded with NaN
    return tree


NO_START = ("initialization points failed", "Initial evaluation of model at starting point failed")
"""What nutpie and PyMC say when no initial point has a finite log density."""
NO_START_ADVICE = (
    "the model: PyMC could not start sampling, no initial point has a finite log density "
    "({what}). Check the data against the model (an observed value outside its "
    "distribution's support, such as a count above a Binomial's n), or give initial values "
    "(PYMC_KWARGS = {{'initvals': {{...}}}} in the model's module, a pair's pymc_kwargs)"
)
"""The one-line error of a reference that cannot start (the command line's exit 2)."""


def origin_initvals(model: Any) -> dict[str, np.ndarray]:
    """Return initial values where Stan starts, for variables whose PyMC start is not finite.

    A variable with a transform the user gave starts at PyMC's default initial
    point mapped by ``forward``, which need not be finite: ``transform=ordered``
    on ``pm.Normal(0, 2, shape=3)`` starts at ``forward([0, 0, 0]) = [0, -inf,
    -inf]``, and no sampler can start there. Such a variable, when it has no
    ``initval`` of its own, is given the origin of its unconstrained space
    (``backward(0)``: ``[0, 1, 2]`` for the cut points), the point Stan starts
    from before its jitter, evaluated with every other variable at its own
    initial point (a ``backward`` may read parameters that are free). The
    model is not changed (a model with initial values would be compiled anew
    for every run: :mod:`~mcmc_pairs.comparisons.compile_once`).

    Returns
    -------
    dict of str to ndarray
        ``pm.sample``'s ``initvals``, in the constrained space, by variable
        name; empty (PyMC's own start, the same draws) for every model whose
        initial point is finite.
    """
    import pytensor.tensor as pt
    from pymc.initial_point import make_initial_point_fn

    given = user_transforms(model)
    own = model.rvs_to_initial_values
    pending = [rv for rv in model.free_RVs if rv.name in given and own.get(rv) is None]
    if not pending:
        return {}
    point = model.initial_point()
    origin: dict[Any, Any] = {}  # by random variable: its symbolic origin
    for rv in pending:
        start = point[model.rvs_to_values[rv].name]
        if not np.all(np.isfinite(start)):
            origin[rv] = given[rv.name].backward(pt.zeros(start.shape), *rv.owner.inputs)
    if not origin:
        return {}
    initial = make_initial_point_fn(
        model=model, overrides=origin, jitter_rvs=set(), return_transformed=False
    )(0)
    return {rv.name: initial[rv.name] for rv in origin}


def default_nuts() -> str:
    """Return the library ``pm.sample`` runs NUTS with when not told (its own test, mirrored)."""
    from pymc.sampling import mcmc
    from pytensor.compile.mode import get_mode
    from pytensor.link.jax.linker import JAXLinker
    from pytensor.link.numba.linker import NumbaLinker

    meets = getattr(mcmc, "_nutpie_meets_min_version", lambda: mcmc.NUTPIE_INSTALLED)
    linker = isinstance(get_mode(None).linker, NumbaLinker | JAXLinker)
    return "nutpie" if linker and meets() else "pymc"


def nutpie_cores(pymc_kwargs: Mapping[str, Any], step: str | None) -> dict[str, int]:
    """Return ``{"cores": n}`` for a ``pm.sample`` call that runs NUTS through nutpie, else ``{}``.

    PyMC's default ``cores`` is half the processors (it takes the other half for
    hyper-threads), one on a 2-core machine, so nutpie would run every chain on one
    thread. nutpie's chains run on threads with their own seeds: the draws are the
    same for any number of cores (tested), only sooner. Other samplers keep PyMC's
    default, whose extra cores are processes that cost more to start than short
    runs gain.
    """
    if step is not None or pymc_kwargs.get("nuts_sampler", default_nuts()) != "nutpie":
        return {}
    from mcmc_pairs.comparisons.execution import available_cores

    return {"cores": available_cores()}


def pymc_cores(pymc_kwargs: Mapping[str, Any], step: str | StepMethod | None) -> dict[str, int]:
    """Return the ``cores`` of a ``pm.sample`` call: one in a daemon, else :func:`nutpie_cores`.

    A daemonic process (a Dask or ``multiprocessing`` worker: the power study,
    a user's cluster) may not start processes, and PyMC's own samplers run
    their chains on ``min(4, cpus)`` of them, also when a model with discrete
    variables sends NUTS back from nutpie to PyMC. There every chain runs in
    turn on one core, as the worker is meant to, with the same draws (PyMC and
    nutpie seed every chain apart: tested). A pair's own ``cores`` in
    ``pymc_kwargs`` is kept. A user's :class:`StepMethod` runs its chains in turn
    too: its class, imported from the user's file, need not pickle to PyMC's
    worker processes.
    """
    import multiprocessing

    if "cores" in pymc_kwargs:
        return {}
    if multiprocessing.current_process().daemon or isinstance(step, StepMethod):
        return {"cores": 1}
    return nutpie_cores(pymc_kwargs, step)


def pymc_method(model: Any, step: str | StepMethod | None, library: str | None) -> str:
    """Name the PyMC sampler that ran: ``"NUTS (nutpie)"``, ``"BinaryGibbsMetropolis"``...

    ``library`` is the posterior's ``inference_library``; it is named only for NUTS
    run outside PyMC.
    """
    if step is not None:
        return str(step)
    from pymc.sampling.mcmc import assign_step_methods

    with model:
        methods = sorted(cls.__name__ for cls in assign_step_methods(model)[1])
    name = " + ".join(methods) or "pm.sample"
    return f"{name} ({library})" if methods == ["NUTS"] and library not in (None, "pymc") else name


@dataclass(frozen=True)
class PymcTwin:
    """The PyMC twin of a pair, as a sampler with the contract's signature.

    ``PymcTwin(pair)(data, draws=..., tune=..., chains=..., random_seed=...)``
    builds the pair's model from ``data`` and runs :func:`pymc_sample` with the
    pair's ``pymc_kwargs``, as ``compare`` does, on one core and quietly (Dask
    already runs one replication per worker process). With ``step``, the model
    runs a user's :class:`StepMethod` instead: a step method under test. It holds
    the pair, which pickles (its functions by reference, a user's model as an
    import string or a module-level function), so it travels to Dask workers.
    Every call builds a new model; compiling it, not sampling, would be most of
    its cost, so the twin keeps nutpie's compile for every later call whose
    model differs only in its data (:data:`~.reuse.NUTPIE`).

    Parameters
    ----------
    pair : Pair
    step : StepMethod, optional
    """

    pair: Pair
    step: StepMethod | None = None

    @classmethod
    def parse(cls, sampler: object, pair: Pair) -> PymcTwin | None:
        """Return the twin ``sampler`` names for ``pair``, else None (a side kind's ``parse``).

        ``"pymc"`` is PyMC's own samplers on the model; ``"pymc-step:..."`` a
        user's step method (:meth:`StepMethod.parse`, which imports it here).
        """
        if sampler == PYMC:
            return cls(pair)
        step = StepMethod.parse(sampler)
        return None if step is None else cls(pair, step)

    def __str__(self) -> str:
        return f"{PYMC} twin of {self.pair.name}" if self.step is None else str(self.step)

    def __call__(
        self, data: Mapping[str, Any], *, draws: int, tune: int, chains: int, random_seed: int
    ) -> dict[str, np.ndarray]:
        """Sample the twin's posterior given ``data``.

        Returns
        -------
        dict of str to ndarray
            ``pair.variables``, each shaped (chains, draws, *event_shape).
        """
        pair = self.pair
        model = build_model(pair.model, data, argument="model")
        settings = SamplerRun(draws, tune, chains, random_seed)
        tree = pymc_sample(
            model, settings, pair.pymc_kwargs, self.step, reuse.NUTPIE, cores=1, quiet=True
        )
        posterior = tree["posterior"]
        return {v: posterior[v].transpose("chain", "draw", ...).values for v in pair.variables}

    def describe(self, data: Mapping[str, Any]) -> str:
        """Name the sampler the twin runs on ``data``, as the compare report does.

        For example ``"NUTS (nutpie)"`` or ``"BinaryGibbsMetropolis"``; the model
        is built but not compiled.
        """
        pair = self.pair
        model = build_model(pair.model, data, argument="model")
        library = pair.pymc_kwargs.get("nuts_sampler", default_nuts())
        return pymc_method(model, self.step, library)
