"""The sides of a comparison: where draws come from, and what one side's draws are.

A run (:func:`mcmc_pairs.comparisons.run.run_pair`) asks each of its sides for
draws, look after look, through one protocol, :class:`DrawSource`: a label, a
role, whether its chains continue or rerun from the start, whether it can grow
at all, ``rerun``, the fresh call of the reproducibility check
(:mod:`~mcmc_pairs.comparisons.honesty`) or None, and one method,
``grow(draws, say) -> Side``, that returns the side with ``draws`` draws per
chain. Three sources implement it: :class:`HandwrittenSource` (a sampler under
the contract of ``docs/contracts.md``, continued when it accepts ``state``),
:class:`PymcSource` (``pm.sample`` on the pair's model, with PyMC's samplers or
a user's step method, rerun with the same seed, reused from a cache across
runs) and :class:`~mcmc_pairs.comparisons.stored.StoredSource`
(draws read from a file, which cannot grow). A new kind of side (another PPL)
is a new class with these members and an entry of the table of side kinds
(:data:`mcmc_pairs.comparisons.side_kinds.SIDE_KINDS`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons import contract, reuse
from mcmc_pairs.comparisons.contract import SamplerError, call_sampler, to_datatree
from mcmc_pairs.comparisons.kinds import Role
from mcmc_pairs.comparisons.loading import load_callable, resolve
from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.pymc_runner import (
    PYMC,
    PymcTwin,
    StepMethod,
    pymc_cores,
    pymc_method,
    pymc_sample,
)
from mcmc_pairs.comparisons.settings import Sampling, Settings
from mcmc_pairs.comparisons.witness import ModelWitness

if TYPE_CHECKING:
    from mcmc_pairs.comparisons.compile_once import CompileCache

HANDROLLED, USER, PYMC_STEP = Role.HANDROLLED, Role.USER, Role.PYMC_STEP
Draws = dict[str, np.ndarray]
"""A sampler's output under the contract: ``{variable: (chain, draw, *shape) array}``."""
Rerun = Callable[[int, int], Draws]
"""``rerun(draws, tune)``: a source's fresh call with the run's seed (:class:`DrawSource`)."""


def side_label(role: Role, variant: str) -> str:
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
    role : Role
        What the side is.
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
    stored : bool
        Draws read from a file (:mod:`mcmc_pairs.comparisons.stored`): no sampling
        time, so no ESS per second.
    from_cache : bool
        PyMC's draws read back from the reference cache
        (:mod:`~mcmc_pairs.comparisons.reference_cache`); its timings are those of
        the run that stored them.
    """

    role: Role
    variant: str
    sampler: str
    tree: xr.DataTree
    timings: dict[str, float]
    quantities: xr.DataArray | None = None
    stored: bool = False
    from_cache: bool = False

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


class Stage(StrEnum):
    """The stage of a run a :class:`RunEvent` tells of (written as its word)."""

    START = "start"
    """A side starts drawing."""
    DONE = "done"
    """A side has its draws."""
    CACHED = "cached"
    """PyMC's run is read back from the reference cache."""
    LOOK = "look"
    """A look left the run undecided: it extends."""


@dataclass(frozen=True)
class RunEvent:
    """A stage of :func:`run_pair`, for its ``progress`` callback.

    ``str(event)`` is the line the command line prints:
    ``[lda] handrolled:gibbs: 4 chains x 2000 draws`` at the start of a side,
    ``[lda] handrolled:gibbs: done in 3.21 s`` when it is done,
    ``[lda] pymc: 4 chains x 2000 draws from the reference cache (NUTS (nutpie))``
    when PyMC's run is read back from the cache (``stage="cached"``), and
    ``[lda] undecided at 2000 draws (...): extending`` between looks
    (``stage="look"``, with every side's ``verdicts`` at that look).

    Attributes
    ----------
    pair : str
    side : str
        The side's label (:attr:`Side.label`).
    stage : Stage
    chains, draws : int
    seconds : float or None
        The side's wall time (compilation included), when ``"done"``.
    """

    pair: str
    side: str
    stage: Stage
    chains: int
    draws: int
    seconds: float | None = None
    verdicts: Mapping[str, str] | None = None
    method: str | None = None
    """The sampler that ran, named once per side: PyMC's step methods on its first run."""

    def __str__(self) -> str:
        if self.stage == Stage.START:
            return f"[{self.pair}] {self.side}: {self.chains} chains x {self.draws} draws"
        if self.stage == Stage.CACHED:
            return (
                f"[{self.pair}] {self.side}: {self.chains} chains x {self.draws} draws "
                f"from the reference cache ({self.method})"
            )
        if self.stage == Stage.LOOK:
            open_ = ", ".join(f"{k}: {v}" for k, v in (self.verdicts or {}).items())
            return f"[{self.pair}] undecided at {self.draws} draws ({open_}): extending"
        method = f" ({self.method})" if self.method else ""
        return f"[{self.pair}] {self.side}: done in {self.seconds:.2f} s{method}"


@dataclass(frozen=True)
class SideUnderTest:
    """What a side under test of a ``compare`` run is made from, besides its spec.

    Attributes
    ----------
    pair : Pair
    role : Role
        ``handrolled`` (a variant of the pair) or ``user`` (``--sampler``).
    variant : str
        The variant's name, or ``"user"``.
    data : mapping
        The run's data.
    settings : Settings
        The run's settings.
    witness : ModelWitness
        The pair's model built on the data.
    shapes : mapping of str to tuple of int
        The compared variables' shapes.
    reference : str or None
        The stored draws given instead of PyMC's reference (``--reference``), if any.
    rename : mapping of str to str or None
        ``--rename`` for stored draws (:func:`~.stored.check_draws`).
    """

    pair: Pair
    role: Role
    variant: str
    data: Mapping[str, Any]
    settings: Settings
    witness: ModelWitness
    shapes: Mapping[str, tuple[int, ...]]
    reference: str | None
    rename: Mapping[str, str | None]


class RunStore(Protocol):
    """Where a PyMC side keeps its runs for later processes.

    A :class:`~mcmc_pairs.comparisons.reference_cache.ReferenceCache`.
    """

    def load(self, label: str, draws: int) -> Side | None:
        """Return the side ``label``'s run at ``draws`` draws per chain, or None."""
        ...

    def save(self, label: str, draws: int, side: Side) -> None:
        """Keep the side ``label``'s run at ``draws`` draws per chain."""
        ...


@runtime_checkable
class DrawSource(Protocol):
    """Where one side's draws come from, look after look (:func:`~.run.run_pair`).

    Attributes
    ----------
    label : str
        The side's key in the run (:func:`side_label`).
    role : Role
        What the side is.
    continues : bool
        True when a later look extends the chains already drawn; False when it
        draws them again from the start, longer (same seed).
    grows : bool
        False for a side that cannot give more draws (stored draws,
        :class:`~mcmc_pairs.comparisons.stored.StoredSource`): later looks keep
        its draws and grow only the other sides.
    rerun : callable or None
        ``rerun(draws, tune) -> {variable: draws}``: a fresh, short call of the
        side's sampler with the run's seed, chains and data, for the
        reproducibility check (:mod:`~mcmc_pairs.comparisons.honesty`); None
        when the check has nothing to call again (stored draws) or the user's
        code cannot make the draws irreproducible (its kind's ``rerun`` in
        :data:`~mcmc_pairs.comparisons.side_kinds.SIDE_KINDS` is False).
    """

    label: str
    role: Role
    continues: bool
    grows: bool
    rerun: Rerun | None

    def grow(self, draws: int, say: Callable[[RunEvent], None]) -> Side:
        """Return the side with ``draws`` draws per chain, announcing it through ``say``."""
        ...


class HandwrittenSource:
    """A hand-written sampler's chains across looks: continued if it can, else rerun.

    A :class:`DrawSource`: ``spec`` is the sampler (an import string or the
    callable, named ``name`` in reports: default the import string or the side's
    label); each call runs under the contract (:func:`~.contract.call_sampler`).
    """

    def __init__(
        self,
        pair_name: str,
        role: Role,
        variant: str,
        spec: str | Callable[..., Any],
        data: Mapping[str, Any],
        settings: Settings,
        shapes: Mapping[str, tuple[int, ...]],
        name: str | None = None,
    ) -> None:
        self.pair_name, self.role, self.variant, self.data = pair_name, role, variant, data
        self.func = resolve(spec)
        self.settings, self.shapes = settings, shapes
        self.name = name or (spec if isinstance(spec, str) else side_label(role, variant))
        self.state: dict | None = {} if contract.resumable(self.func) else None
        self.side: Side | None = None
        self.label = side_label(role, variant)
        self.continues = self.state is not None  # the sampler accepts state=
        self.grows = True
        self.rerun: Rerun | None = self._rerun

    def _call(self, draws: int, tune: int) -> tuple[xr.DataTree, float]:
        """Return the sampler's draws as a DataTree and the seconds of the sampler's call alone."""
        start = time.perf_counter()
        output = self._sampler_output(draws, tune, self.state)
        seconds = time.perf_counter() - start
        chains = self.settings.chains
        tree = to_datatree(output, list(self.shapes), self.shapes, chains, draws, self.name)
        return tree, seconds

    def _sampler_output(self, draws: int, tune: int, state: dict | None) -> Any:
        """Call the sampler with the run's data, chains, seed and timeout (and ``state=``)."""
        extra = {} if state is None else {"state": state}
        return call_sampler(
            self.name,
            self.func,
            self.data,
            draws=draws,
            tune=tune,
            chains=self.settings.chains,
            random_seed=self.settings.seed,
            timeout=self.settings.timeout,
            **extra,
        )

    def _rerun(self, draws: int, tune: int) -> Draws:
        """Return ``{variable: draws}`` of a fresh call with the run's seed, chains and data.

        The reproducibility check's call (:mod:`~.honesty`): a resumable sampler
        starts from an empty ``state``, and ``--timeout`` holds as for any call.
        """
        chains = self.settings.chains
        output = self._sampler_output(draws, tune, None if self.state is None else {})
        shapes = self.shapes
        return contract.check_output(
            output, list(shapes), shapes, chains, draws, self.name, finite=False
        )

    def grow(self, draws: int, say: Callable[[RunEvent], None]) -> Side:
        """Return the side with ``draws`` draws per chain: its chains continued, or rerun."""
        label, chains = self.label, self.settings.chains
        say(RunEvent(self.pair_name, label, Stage.START, chains, draws))
        if self.side is None:  # JIT warm-up, timed apart
            begin = time.perf_counter()
            call_sampler(
                self.name,
                self.func,
                self.data,
                draws=1,
                tune=0,
                chains=1,
                random_seed=0,
                timeout=self.settings.timeout,
            )
            timings = {"compile_s": time.perf_counter() - begin, "sampling_s": 0.0}
            tree = None
        else:
            timings, tree = dict(self.side.timings), self.side.tree
        if tree is not None and self.state is not None:
            have = tree["posterior"].sizes["draw"]
            more, seconds = self._call(draws - have, 0)
            tree = contract.concat_draws(tree, more)
        else:
            tree, seconds = self._call(draws, self.settings.tune)
        before = timings.get("total_s", 0.0)  # the first look's event counts the warm-up too
        timings["sampling_s"] += seconds  # the sampler's calls only, as ESS per second needs
        timings["total_s"] = timings["compile_s"] + timings["sampling_s"]
        self.side = Side(self.role, self.variant, self.name, tree, timings)
        say(RunEvent(self.pair_name, label, Stage.DONE, chains, draws, timings["total_s"] - before))
        return self.side


class PymcSource:
    """A PyMC side across looks: rerun with the same seed and more draws, or found in ``cache``.

    A :class:`DrawSource`; ``cache`` maps (label, draws) to a run, shared with
    later runs of the same pair (``run_pair(pymc_from=...)``); ``store``, a
    :class:`~.reference_cache.ReferenceCache`, keeps the runs on disk for later
    processes. nutpie compiles the model once for all looks, and for every later
    run of a model of the same structure in this process, whatever its data
    (:data:`~.reuse.NUTPIE`).
    """

    def __init__(
        self,
        role: Role,
        variant: str,
        model: Any,
        settings: Settings,
        pair: Pair,
        step: str | StepMethod | None,
        cache: dict[tuple[str, int], Side],
        store: RunStore | None = None,
    ) -> None:
        self.role, self.variant, self.model, self.settings = role, variant, model, settings
        self.pair, self.step, self.cache, self.store = pair, step, cache, store
        self.label = side_label(role, variant)
        self.continues = False  # rerun with the same seed and more draws
        self.grows = True
        self.total = 0.0
        self.compiles = reuse.NUTPIE
        self.rerun: Rerun | None = self._rerun

    def grow(self, draws: int, say: Callable[[RunEvent], None]) -> Side:
        """Return the side with ``draws`` draws per chain (all looks' time in its timings)."""
        key = (self.label, draws)
        if key not in self.cache:
            self.cache[key] = self._cached(draws, say) or self._run(draws, say)
        side = self.cache[key]
        self.total += side.timings["total_s"]
        compile_s = side.timings["compile_s"]
        timings = {"compile_s": compile_s, "sampling_s": self.total - compile_s}
        timings["total_s"] = self.total
        return replace(side, quantities=None, timings=timings)

    def _rerun(self, draws: int, tune: int) -> Draws:
        """Return ``{variable: draws}`` of a fresh PyMC run with the seed, for :mod:`~.honesty`."""
        settings = replace(self.settings, draws=draws, tune=tune)
        cores = pymc_cores(self.pair.pymc_kwargs, self.step)
        tree = pymc_sample(
            self.model,
            settings,
            self.pair.pymc_kwargs,
            self.step,
            self.compiles,
            quiet=True,
            **cores,
        )  # quiet: no warning that 20 draws are few
        posterior = tree["posterior"].to_dataset()
        return {name: posterior[name].to_numpy() for name in self.pair.variables}

    def _cached(self, draws: int, say: Callable[[RunEvent], None]) -> Side | None:
        """Return the run at ``draws`` from the reference cache, or None."""
        side = None if self.store is None else self.store.load(self.label, draws)
        if side is not None:
            chains = self.settings.chains
            say(
                RunEvent(
                    self.pair.name, self.label, Stage.CACHED, chains, draws, method=side.sampler
                )
            )
        return side

    def _run(self, draws: int, say: Callable[[RunEvent], None]) -> Side:
        """Run PyMC at ``draws`` (and keep the run in the reference cache)."""
        chains = self.settings.chains
        say(RunEvent(self.pair.name, self.label, Stage.START, chains, draws))
        settings = replace(self.settings, draws=draws)
        side = run_pymc(
            self.role, self.variant, self.model, settings, self.pair, self.step, self.compiles
        )
        method = None if self.total else side.sampler  # named once
        say(
            RunEvent(
                self.pair.name,
                self.label,
                Stage.DONE,
                chains,
                draws,
                side.timings["total_s"],
                None,
                method,
            )
        )
        if self.store is not None:
            self.store.save(self.label, draws, side)
        return side


def run_pymc(
    role: Role,
    variant: str,
    model: Any,
    settings: Sampling,
    pair: Pair,
    step: str | StepMethod | None,
    compiles: CompileCache | None = None,
) -> Side:
    """Run one PyMC side; PyMC's own log lines are kept out (the run's events say it once)."""
    import logging

    start = time.perf_counter()
    log = logging.getLogger("pymc")
    level = log.level
    log.setLevel(max(level, logging.WARNING))
    try:
        tree = pymc_sample(
            model,
            settings,
            pair.pymc_kwargs,
            step,
            compiles,
            progressbar=sys.stderr.isatty(),
            **pymc_cores(pair.pymc_kwargs, step),
        )
    except Exception as exc:
        if not isinstance(step, StepMethod) or isinstance(exc, ValueError):
            raise
        # a step under test that fails while sampling is a sampler that raised (PyMC's
        # Metropolis proposing 2 for a 0/1 node that indexes a table: IndexError)
        raise SamplerError(f"sampler {step} raised {type(exc).__name__}: {exc}") from exc
    finally:
        log.setLevel(level)
    total = time.perf_counter() - start
    sampling = float(tree["posterior"].attrs.get("sampling_time", total))
    timings = {"compile_s": total - sampling, "sampling_s": sampling, "total_s": total}
    library = tree["posterior"].attrs.get("inference_library")
    sampler = pymc_method(model, step, library)
    return Side(role=role, variant=variant, sampler=sampler, tree=tree, timings=timings)


UNDER_TEST_STREAM = 1
"""The child of the run's seed that a PyMC run under test draws from (:func:`own_seed`)."""


def own_seed(settings: Settings) -> Settings:
    """Return ``settings`` with the seed of a PyMC run under test: its own stream.

    PyMC's reference and a PyMC sampler under test (``pymc-step:...``, or
    ``pymc`` against stored draws made with the run's seed) drew from the
    same seed. Where the reference runs the same step (PyMC's default for 0/1
    variables is ``BinaryGibbsMetropolis``, which a certification puts under
    test), the two runs were the same draws, and the copy check called the
    step a copy of the reference. The run under test now draws from child
    :data:`UNDER_TEST_STREAM` of the seed: independent of the reference, and
    the same bits for the same seed.
    """
    stream = np.random.SeedSequence([settings.seed, UNDER_TEST_STREAM])
    return replace(settings, seed=int(stream.generate_state(1)[0]))


def pymc_under_test(twin: PymcTwin, side: SideUnderTest) -> PymcSource:
    """Return PyMC on the pair's model as the side under test (the ``pymc`` side kind).

    ``twin`` names what runs: PyMC's own sampler (``--sampler pymc``, which needs
    stored draws to compare with, ``--reference``) or a user's step method
    (``pymc-step:...``); it draws from its own stream of the seed (:func:`own_seed`).
    """
    if twin.step is None and side.reference is None:
        raise ValueError(
            "--sampler pymc puts PyMC's own sampler under test: it needs --reference "
            "FILE, the stored draws to compare it with"
        )
    model, settings = side.witness.model, own_seed(side.settings)
    return PymcSource(side.role, side.variant, model, settings, side.pair, twin.step, {})


def python_under_test(spec: str | Callable[..., Any], side: SideUnderTest) -> HandwrittenSource:
    """Return a Python sampler (an import string or a callable) as the side under test."""
    return HandwrittenSource(
        side.pair.name, side.role, side.variant, spec, side.data, side.settings, side.shapes
    )


def python_spec(spec: str | Callable[..., Any], pair: Pair) -> str | Callable[..., Any]:
    """Return ``spec``: any spec no other side kind claims is a Python sampler's."""
    return spec


def python_sampler(spec: str | Callable[..., Any]) -> str | Callable[..., Any]:
    """Return a Python sampler for ``validate``: an import string is loaded here, to fail fast."""
    if isinstance(spec, str):
        load_callable(spec)  # fail fast here with a clear message
    elif not callable(spec):
        raise ValueError(f"--sampler must be an import string or a callable, got {spec!r}")
    return spec
