"""Run both sides of a pair with the same settings and compare them.

The hand-rolled side runs first (it is cheap, and a user's sampler that returns
the wrong names or shapes should fail before NUTS compiles), then the PyMC twin
(:mod:`mcmc_pairs.comparisons.pymc_runner`). Both become DataTrees; the compared variables
become *quantities* (scalar components plus derived quantities) and
:mod:`mcmc_pairs.comparisons.agreement` judges them. Each side has a *role*: the
hand-rolled variants of the pair (``handrolled``), a sampler under test
(``user``), the PyMC reference (``pymc``) and PyMC's second references
(``pymc_step``); the pair's verdict is its worst ``handrolled``/``user`` side's.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from mcmc_pairs.comparisons import agreement, budget, datafile, honesty, preflight, reuse
from mcmc_pairs.comparisons.errors import printable
from mcmc_pairs.comparisons.kinds import UNDER_TEST, CheckKind, Role, Statistic, Verdict
from mcmc_pairs.comparisons.loading import resolve
from mcmc_pairs.comparisons.pair import ExactMarginal, Pair
from mcmc_pairs.comparisons.pymc_runner import PYMC
from mcmc_pairs.comparisons.reference_cache import ReferenceCache, reference_key
from mcmc_pairs.comparisons.result import PairResult
from mcmc_pairs.comparisons.settings import Settings
from mcmc_pairs.comparisons.side_kinds import SamplerSpec, source_under_test
from mcmc_pairs.comparisons.sides import (
    HANDROLLED,
    PYMC_STEP,
    USER,
    DrawSource,
    PymcSource,
    RunEvent,
    Side,
    SideUnderTest,
    Stage,
    side_label,
)
from mcmc_pairs.comparisons.stored import stored_source
from mcmc_pairs.comparisons.witness import LOG_DENSITIES, ModelWitness

REFERENCE_SHARE = 0.2
"""PyMC's reference grows at a look only when its squared MCSE is at least this share of
the variance of a difference that is still undecided (:func:`_reference_limits`)."""
ROLES = (HANDROLLED, USER, PYMC, PYMC_STEP)
"""What a side is: a hand-rolled variant of the pair, a sampler under test, the PyMC
reference (label ``"pymc"``), or a second PyMC reference (a step method)."""
SEVERITY = agreement.VERDICTS  # = kinds.SEVERITY: best to worst; the pair's is its worst side's
DECIDED = (agreement.AGREE, agreement.DISAGREE)
"""The verdicts that end a sequential run (every side under test has one)."""
FUTILITY = 2.0
"""A run stops growing when, from its second look on, every side under test is ``not
converged`` and the smallest ESS of each, grown in proportion to its draws up to
``max_draws``, would still fall short of the gate by this factor (:meth:`_Comparison.futile`).
ESS grows about linearly in the draws once a chain has found its stationary distribution:
a side that will pass the gate at ``max_draws`` does not look hopeless by a factor 2 at
its second look. A chain that is not mixing at all (R-hat about 2 at every look: Stan's
dense-metric bug, ``shipped/stan_dense_metric``) is told so after 2 looks, not 5."""


def resolve_settings(pair: Pair, **overrides: Any) -> Settings:
    """Return the checked :class:`~mcmc_pairs.comparisons.settings.Settings` of a run of ``pair``.

    The defaults of :data:`~mcmc_pairs.comparisons.settings.FIELDS`, then the
    pair's own (``Pair.settings``), then ``overrides`` (``None`` keeps the default).
    """
    return Settings.resolve(pair.settings, **overrides)


def look_draws(draws: int, max_draws: int) -> list[int]:
    """Return the draws per chain at each look: ``draws`` doubled until ``max_draws``.

    >>> look_draws(1000, 8000)
    [1000, 2000, 4000, 8000]
    >>> look_draws(1000, 5000)
    [1000, 2000, 4000, 5000]
    """
    looks = [draws]
    while looks[-1] < max_draws:
        looks.append(min(2 * looks[-1], max_draws))
    return looks


def spent(look: int, looks: int, alpha: float) -> float:
    """Return the error rate spent at ``look`` (1-based) of at most ``looks``.

    ``alpha / (k (k + 1))`` at look ``k`` before the last, and what is left,
    ``alpha / looks``, at the last: the levels sum to ``alpha``, so by the
    union bound the run errs with probability at most ``alpha`` however many
    looks it takes. One look spends all of ``alpha``: a fixed-size run.
    """
    if look == looks:
        return alpha / looks
    return alpha / (look * (look + 1))


def run_pair(
    pair: Pair,
    settings: Settings | None = None,
    *,
    sampler: SamplerSpec | None = None,
    data: Mapping[str, Any] | None = None,
    progress: Callable[[RunEvent], None] | None = None,
    pymc_from: PairResult | None = None,
    reference: str | None = None,
    rename: Mapping[str, str | None] | None = None,
    cache: str | Path | None = None,
    alpha: float | None = None,
) -> PairResult:
    """Run the PyMC twin and the hand-rolled side(s) of ``pair`` and compare them until decided.

    The run is sequential (:class:`_Comparison` names its steps): it compares the sides at
    ``draws`` per chain, and while a side under test is neither ``agree`` nor ``disagree``
    it doubles the draws (:func:`look_draws`) and looks again, until ``max_draws`` or
    ``max_seconds``. Each look spends part of the error rates (:func:`spent`), so the
    verdict's error rates hold over all the looks. The energy check runs at the last look only.

    Parameters
    ----------
    pair : Pair
    settings : Settings, optional
        Both sides' settings (:func:`resolve_settings` makes them from the pair's
        defaults and overrides); default the pair's.
    sampler : str or callable, optional
        A sampler under test, instead of the hand-rolled variants: an import string
        or callable, a ``pymc-step:...`` step method, stored draws.
    data : mapping, optional
        Data for both sides; default ``pair.load_data()``.
    progress : callable, optional
        Receives every :class:`RunEvent` (default: print it to stderr).
    pymc_from : PairResult, optional
        An earlier run of the same pair with the same settings and data, whose
        PyMC draws (deterministic given the seed) are reused.
    reference, rename, cache : optional
        Stored draws that replace PyMC's reference run, ``{stored name: the model's, or None
        to leave out}`` for stored draws (:mod:`~.stored`), and the reference cache's
        directory (:mod:`~.reference_cache`) for PyMC's runs (None: PyMC runs every time).
    alpha : float, optional
        The run's false-alarm rate in (0, 1), which :func:`~.budget.levels` splits between
        the z-checks (spent over the looks) and the energy checks; None: the default levels.

    Returns
    -------
    PairResult

    Raises
    ------
    ValueError
        Bad settings or data; :class:`mcmc_pairs.comparisons.contract.SamplerError` if the
        sampler under test fails or returns the wrong names or shapes.
    """
    settings = resolve_settings(pair) if settings is None else settings
    stored = _Options(reference, dict(rename or {}), cache, alpha)
    with reuse.summaries_on_disk(cache):  # summaries kept beside the reference cache
        result = _run_looks(pair, sampler, data, settings, pymc_from, stored, progress)
    result.memo_directory = None if cache is None else Path(cache)
    return result


def _run_looks(
    pair: Pair,
    sampler: SamplerSpec | None,
    data: Mapping[str, Any] | None,
    settings: Settings,
    pymc_from: PairResult | None,
    stored: _Options,
    progress: Callable[[RunEvent], None] | None,
) -> PairResult:
    """Prepare the run and look until decided (:func:`run_pair`'s loop)."""
    run = _Comparison.prepare(pair, sampler, data, settings, pymc_from, stored, progress or _stderr)
    schedule = look_draws(settings.draws, settings.max_draws)
    started = time.perf_counter()
    looks: list[_Look] = []
    to_grow = list(run.growing)  # every side at the first look
    for k, n in enumerate(schedule, start=1):
        looks.append(look := run.look(k, n, len(schedule), to_grow))
        if look.decided or k == len(schedule) or run.out_of_time(started, look):
            break
        if stopped := run.futile(look, schedule[-1]):
            look.stopped = stopped
            break
        to_grow = run.sides_to_grow(look)
        if not to_grow:  # what would decide it is stored draws, which cannot grow
            break
        run.say(
            RunEvent(pair.name, "", Stage.LOOK, settings.chains, n, look.seconds, look.verdicts)
        )
    return run.finish(looks)


@dataclass(frozen=True)
class _Options:
    """:func:`run_pair`'s stored draws, reference cache and error rate (see its parameters)."""

    reference: str | None
    rename: dict[str, str | None]
    cache: str | Path | None
    alpha: float | None


@dataclass
class _Look:
    """One look of :func:`run_pair`: what it grew, spent and found."""

    k: int
    draws: int
    grown: list[str]
    alpha: float
    alpha_equivalence: float
    seconds: float
    verdicts: dict[str, Verdict]
    decided: bool
    checks: pd.DataFrame
    summaries: dict[str, pd.DataFrame]
    quantities: dict[str, xr.DataArray]
    compared: list[tuple[str, Role]]
    stopped: str | None = None
    """Why the run stopped growing at this look although undecided (:meth:`_Comparison.futile`)."""
    held: dict[str, float] = field(default_factory=dict)
    """Sides that agreed but were held for their lead, by label (:func:`~.agreement.held_sides`)."""

    def record(self) -> dict[str, Any]:
        """Return the look as the JSON report's ``looks`` entry."""
        record: dict[str, Any] = {
            "look": self.k,
            "draws": self.draws,
            "grown": self.grown,
            "alpha": self.alpha,
            "alpha_equivalence": self.alpha_equivalence,
            "seconds": self.seconds,
            "verdicts": dict(self.verdicts),
        }
        if self.held:
            record["held"] = dict(self.held)
        return record | ({"stopped": self.stopped} if self.stopped else {})


@dataclass
class _Comparison:
    """One run of :func:`run_pair`, in named steps: prepare, look, grow, finish.

    :meth:`prepare` checks the data against the model and makes every side a
    :class:`~mcmc_pairs.comparisons.sides.DrawSource`; :meth:`look` grows some
    sides and compares them all (:mod:`mcmc_pairs.comparisons.agreement` decides);
    :meth:`sides_to_grow` chooses the next look's sides; :meth:`finish` adds
    the energy check and makes the :class:`PairResult`. A sampler that accepts
    ``state`` continues its chains
    (:func:`mcmc_pairs.comparisons.contract.resumable`); any other side,
    PyMC's included, is rerun from the start with the same seed and more draws.

    Attributes
    ----------
    growing : dict of str to DrawSource
        Every side by label: the samplers under test, then PyMC's reference and
        its second references.
    sides : dict of str to Side
        Each side's draws at its latest growth.
    cache : dict of (str, int) to Side
        PyMC's runs by (label, draws), reused by a later run's ``pymc_from``.
    """

    pair: Pair
    data: Mapping[str, Any]
    settings: Settings
    witness: ModelWitness
    reference: dict[str, ExactMarginal]
    growing: dict[str, DrawSource]
    cache: dict[tuple[str, int], Side]
    say: Callable[[RunEvent], None]
    sides: dict[str, Side] = field(default_factory=dict)
    cannot_grow: list[str] = field(default_factory=list)
    levels: budget.Levels = budget.DEFAULT
    """The z-checks' and energy checks' levels (:func:`~.budget.levels` of the run's alpha)."""

    @classmethod
    def prepare(
        cls,
        pair: Pair,
        sampler: SamplerSpec | None,
        data: Mapping[str, Any] | None,
        settings: Settings,
        pymc_from: PairResult | None,
        stored: _Options,
        say: Callable[[RunEvent], None],
    ) -> _Comparison:
        """Check the data against the pair's model and make every side; nothing sampled yet.

        ``stored`` holds ``reference`` (stored draws instead of PyMC's run, or
        ``None``), ``rename`` (:func:`~.stored.check_draws`), ``cache`` (the
        reference cache's directory, or ``None``) and ``alpha`` (:func:`~.budget.levels`).
        """
        under_test = len(pair.handrolled) if sampler is None else 1
        levels = budget.levels(stored.alpha, sides=under_test)  # a bad alpha: before all
        data, cache = _reused_pymc(pymc_from, pair, settings, data)
        witness, shapes = _witness(pair, data)
        preflight.refuse_unfit_model(
            witness.model, witness.variables, pair, settings, under_test, argument="model"
        )  # nothing sampled yet: a run that cannot store or hold its draws stops here
        growing = _sides_under_test(pair, sampler, data, settings, witness, shapes, stored)
        store = _reference_store(stored.cache, pair, data, settings, witness)
        witness.memo = None if store is None else store.log_densities()
        growing |= _reference_sides(pair, settings, witness, cache, stored, store)
        reference = dict(pair.reference(data)) if pair.reference else {}
        return cls(pair, data, settings, witness, reference, growing, cache, say, levels=levels)

    def look(self, k: int, n: int, looks: int, to_grow: list[str]) -> _Look:
        """Grow the sides ``to_grow`` to ``n`` draws, compare all; a :class:`_Look`.

        Look ``k`` of at most ``looks`` spends its share of both error rates
        (:func:`spent`); the energy check and the honesty checks wait for the
        last look (:meth:`finish`).
        """
        look_start = time.perf_counter()
        for label in self.growing:  # in the run's order of sides, whatever the order of to_grow
            if label in to_grow:
                self.sides[label] = self.growing[label].grow(n, self.say)
        products, quantities = _attach_quantities(
            self.pair, self.data, self.sides, self.reference, self.witness
        )
        compared = [(label, PYMC) for label, side in self.sides.items() if side.role != PYMC]
        alpha = spent(k, looks, self.levels.z)
        alpha_equivalence = spent(k, looks, agreement.ALPHA_EQUIVALENCE)
        _, checks, summaries = agreement.compare_draws(
            quantities,
            compared,
            self.reference,
            statistics=self.pair.statistics,
            alpha=alpha,
            tolerance=self.settings.tolerance,
            alpha_equivalence=alpha_equivalence,
            means_only=products,
            multivariate=False,
        )
        if len(divergences := self.divergences()):
            checks = pd.concat([checks, divergences], ignore_index=True)
        verdicts = agreement.side_verdicts(checks, list(self.sides), reference=PYMC)
        labels = self.under_test()
        held = agreement.held_sides(checks, verdicts, labels) if k < looks else {}
        decided = all(verdicts[label] in DECIDED and label not in held for label in labels)
        return _Look(
            k=k,
            draws=n,
            grown=list(self.sides) if k == 1 else list(to_grow),
            alpha=alpha,
            alpha_equivalence=alpha_equivalence,
            seconds=time.perf_counter() - look_start,
            verdicts=verdicts,
            decided=decided or agreement.diverged(checks),  # more draws cannot mend it
            checks=checks,
            summaries=summaries,
            quantities=quantities,
            compared=compared,
            held=held,
        )

    def divergences(self) -> pd.DataFrame:
        """Return the reference's divergence gate (:func:`~.agreement.divergence_checks`).

        A reference whose NUTS diverged is biased where the posterior narrows,
        and a longer run with the same seed diverges again: it fails its own
        gate (``reference failed``), never convicts a side, and the run stops.
        """
        rows = agreement.divergence_checks(PYMC, self.sides[PYMC].tree)
        return rows.assign(gross=False, note="")

    def honesty(self, quantities: Mapping[str, xr.DataArray]) -> pd.DataFrame:
        """Return the honesty checks of the sides under test (:mod:`~.honesty`).

        Independence, copies and reproducibility, at the last look: for
        reproducibility, every side whose source has a ``rerun``
        (:class:`~mcmc_pairs.comparisons.sides.DrawSource`: two short calls each).
        """
        seed = self.settings.seed
        reproducibility = [
            honesty.reproducibility_check(label, rerun, seed)
            for label in self.under_test()
            if (rerun := self.growing[label].rerun) is not None
        ]
        return honesty.honesty_checks(quantities, self.under_test(), PYMC, reproducibility)

    def under_test(self) -> list[str]:
        """Return the labels of the sides whose verdicts make the run's."""
        return [label for label, side in self.sides.items() if side.role in UNDER_TEST]

    def out_of_time(self, started: float, look: _Look) -> bool:
        """Return True when another look, at twice this one's time, would pass ``max_seconds``."""
        budget = self.settings.max_seconds
        return budget is not None and (time.perf_counter() - started) + 2 * look.seconds > budget

    def futile(self, look: _Look, max_draws: int) -> str | None:
        """Return why growing to ``max_draws`` cannot mend the look's sides, else None.

        From the second look on, when every side under test is ``not converged``
        and each one's smallest bulk or tail ESS times ``max_draws / draws`` is
        below the gate (:data:`~.agreement.ESS_PER_CHAIN_MIN` per chain) divided by
        :data:`FUTILITY`. A side that is undecided for another reason
        (``inconclusive``) keeps the run growing.
        """
        labels = self.under_test()
        if look.k < 2 or any(look.verdicts[label] != agreement.NOT_CONVERGED for label in labels):
            return None
        gate = agreement.ESS_PER_CHAIN_MIN * self.settings.chains
        projected: dict[str, float] = {}
        for label in labels:
            summary = look.summaries[label]
            ess = np.nan_to_num(summary[["ess_bulk", "ess_tail"]].to_numpy(dtype=float), nan=0.0)
            draws = self.sides[label].tree["posterior"].sizes["draw"]
            projected[label] = float(ess.min()) * max_draws / draws
            if projected[label] >= gate / FUTILITY:
                return None
        said = ", ".join(f"{label} {value:.0f}" for label, value in projected.items())
        return (
            f"futile: at {max_draws} draws per chain the smallest ESS would reach about {said}, "
            f"below the gate of {gate} by more than a factor {FUTILITY:g}"
        )

    def sides_to_grow(self, look: _Look) -> list[str]:
        """Return the sides the next look grows: those under test, and PyMC when it limits them.

        A side that cannot grow (stored draws) is left out and named in
        :attr:`cannot_grow`: its own Monte Carlo error limits the resolution.
        """
        labels = self.under_test()
        if _reference_limits(look.checks, look.summaries, labels, held=list(look.held)):
            labels.append(PYMC)
        self.cannot_grow = [label for label in labels if not self.growing[label].grows]
        return [label for label in labels if self.growing[label].grows]

    def finish(self, looks: list[_Look]) -> PairResult:
        """Add the energy and honesty checks to the last look's; return the :class:`PairResult`.

        Both judge the last look's draws only: an earlier look that would have
        failed an honesty check ends ``agree`` or undecided and the run grows on;
        the verdict the run ends with always has them (the independence check
        costs about a second per side and look at LDA's size).
        """
        last = looks[-1]
        checks = agreement.with_energy_checks(
            last.checks, last.quantities, last.compared, last.summaries, self.levels.energy
        )
        checks = pd.concat([checks, self.honesty(last.quantities)], ignore_index=True)
        verdicts = agreement.side_verdicts(checks, list(self.sides), reference=PYMC)
        last.verdicts = verdicts
        undecided = any(verdicts[label] not in DECIDED for label in self.under_test())
        if undecided:
            self.sides_to_grow(last)  # names the stored sides whose error limits the resolution
        return PairResult(
            pair=self.pair,
            settings=self.settings,
            sides=self.sides,
            verdict=max((verdicts[label] for label in self.under_test()), key=SEVERITY.index),
            verdicts=verdicts,
            checks=checks,
            summaries=last.summaries,
            reference=self.reference,
            timings={label: side.timings["total_s"] for label, side in self.sides.items()},
            data=self.data,
            looks=[look.record() for look in looks],
            pymc_runs=self.cache,
            discrete=agreement.discrete_quantities(last.quantities),
            cannot_grow=list(self.cannot_grow) if undecided else [],
        )


def _reused_pymc(
    pymc_from: PairResult | None, pair: Pair, settings: Settings, data: Mapping[str, Any] | None
) -> tuple[Mapping[str, Any], dict[tuple[str, int], Side]]:
    """Return the run's data and PyMC cache: ``pymc_from``'s when given (and compatible)."""
    if pymc_from is None:
        return (pair.load_data() if data is None else data), {}
    same = ("draws", "tune", "chains", "seed")
    differs = any(getattr(pymc_from.settings, k) != getattr(settings, k) for k in same)
    if pymc_from.pair.name != pair.name or differs:
        raise ValueError(
            f"pymc_from ran {pymc_from.pair.name} with {pymc_from.settings.as_json()}; "
            f"this run is {pair.name} with {settings.as_json()}"
        )
    if data is not None and data is not pymc_from.data:
        raise ValueError("pymc_from ran on other data; pass data=None to reuse its data")
    return pymc_from.data, pymc_from.pymc_runs


def _witness(
    pair: Pair, data: Mapping[str, Any]
) -> tuple[ModelWitness, dict[str, tuple[int, ...]]]:
    """Build the pair's model on ``data`` (checking both); return it and the compared shapes."""
    datafile.refuse_non_finite(data)  # before PyMC sees an inf (a crash) or a NaN (imputed)
    witness = ModelWitness(pair.model, data, argument="model")  # builds it: checks the data
    witness.check_observed_types()  # PyMC would truncate 2.5 to 2 for a Poisson; the sampler not
    unknown = [v for v in pair.variables if v not in witness.variables]
    if unknown:
        raise ValueError(
            f"pair {pair.name}: variables {unknown} are not free variables of its model "
            f"{witness.name} (free variables: {list(witness.variables)})"
        )
    return witness, {name: witness.variables[name] for name in pair.variables}


def _sides_under_test(
    pair: Pair,
    sampler: SamplerSpec | None,
    data: Mapping[str, Any],
    settings: Settings,
    witness: ModelWitness,
    shapes: dict[str, tuple[int, ...]],
    stored: _Options,
) -> dict[str, DrawSource]:
    """Return the sides under test by label, as :class:`DrawSource` s.

    The pair's hand-written samplers, or the user's ``sampler``: any spec of the
    table of side kinds (:data:`~mcmc_pairs.comparisons.side_kinds.SIDE_KINDS`), a
    function, a PyMC step method, a NumPyro model, stored draws, or ``"pymc"``:
    PyMC's own sampler on the model, against a stored reference.
    """
    if sampler is None:
        samplers = [(HANDROLLED, name, spec) for name, spec in pair.handrolled.items()]
    else:
        samplers = [(USER, USER, sampler)]
    reference, rename = stored.reference, stored.rename
    growing: dict[str, DrawSource] = {}
    for role, variant, spec in samplers:
        side = SideUnderTest(
            pair, role, variant, data, settings, witness, shapes, reference, rename
        )
        growing[side_label(role, variant)] = source_under_test(spec, side)
    return growing


def _reference_store(
    directory: str | Path | None,
    pair: Pair,
    data: Mapping[str, Any],
    settings: Settings,
    witness: ModelWitness,
) -> ReferenceCache | None:
    """Return the reference cache's entry for this run, or None (no directory, no model file)."""
    if directory is None:
        return None
    try:
        model = resolve(witness.build_model, argument="model")
        key = reference_key(model, data, settings, pair, witness.reads)
    except ValueError:  # a model without a source file (typed at a prompt): not cached
        return None
    return ReferenceCache(Path(directory), key)


def _reference_sides(
    pair: Pair,
    settings: Settings,
    witness: ModelWitness,
    cache: dict[tuple[str, int], Side],
    stored: _Options,
    store: ReferenceCache | None,
) -> dict[str, DrawSource]:
    """Return PyMC's reference (or the stored draws given instead) and its second references.

    PyMC's runs are kept in ``store`` (:class:`~.reference_cache.ReferenceCache`, or None).
    """
    growing: dict[str, DrawSource] = {}
    if stored.reference is not None:
        growing[PYMC] = stored_source(
            pair.name, PYMC, PYMC, stored.reference, witness, stored.rename,
            argument="--reference",
        )  # fmt: skip
    else:
        growing[PYMC] = PymcSource(PYMC, PYMC, witness.model, settings, pair, None, cache, store)
    for variant, step in pair.pymc_steps.items():
        growing[side_label(PYMC_STEP, variant)] = PymcSource(
            PYMC_STEP, variant, witness.model, settings, pair, step, cache, store
        )
    return growing


def _reference_limits(
    checks: pd.DataFrame,
    summaries: Mapping[str, pd.DataFrame],
    labels: list[str],
    held: Sequence[str] = (),
) -> bool:
    """Return True when more PyMC draws would help decide the sides ``labels``.

    That is when PyMC fails a gate or an exact check of its own is not within
    its tolerance, or when, in a comparison of one of ``labels`` with PyMC that
    is not yet within its tolerance (every comparison of a side ``held`` for its
    lead, :func:`~.agreement.held_sides`), PyMC's squared MCSE is at least
    :data:`REFERENCE_SHARE` of the difference's variance. Otherwise the
    undecided sides' own Monte Carlo error is what keeps them undecided, and
    only they grow: NUTS is usually far ahead of a hand-written sampler, and
    rerunning it is the costly part of a look.
    """
    mine = checks[checks["side"] == PYMC]
    if not mine["passed"].all() or mine["equivalent"].eq(False).any():
        return True
    open_ = checks[
        checks["side"].isin(labels)
        & (checks["kind"] == CheckKind.AGREEMENT)
        & (checks["equivalent"].eq(False) | checks["side"].isin(held))
    ]
    reference = summaries[PYMC]
    rows = zip(open_["side"], open_["quantity"], open_["statistic"], strict=True)
    for side, quantity, statistic in rows:
        column = Statistic.of_check(statistic).mcse
        theirs = _mcse(reference, quantity, column) ** 2
        if theirs >= REFERENCE_SHARE * (theirs + _mcse(summaries[side], quantity, column) ** 2):
            return True
    return False


def _mcse(summary: pd.DataFrame, quantity: str, column: str) -> float:
    """Return the MCSE ``column`` of ``quantity`` in a side's ``summary`` (a row per quantity)."""
    return float(summary[column].astype(float)[quantity])


def _attach_quantities(
    pair: Pair,
    data: Mapping[str, Any],
    sides: Mapping[str, Side],
    reference: Mapping[str, ExactMarginal],
    witness: ModelWitness,
) -> tuple[list[str], dict[str, xr.DataArray]]:
    """Give every side its quantities: aligned components, products, derived ones.

    Returns the names of the centred products (whose mean alone ``agree``
    certifies, :func:`mcmc_pairs.comparisons.agreement.resolutions`) and every
    side's quantities by label, shape (chain, draw, quantity).

    The derived ones are the pair's own ``derived`` quantities and PyMC's
    ``log_prior`` and ``log_likelihood`` of every draw (:mod:`mcmc_pairs.comparisons.witness`).
    """
    posteriors = {label: side.tree["posterior"].to_dataset() for label, side in sides.items()}
    if pair.align is not None:
        target = posteriors[PYMC].isel(chain=[0]).mean(("chain", "draw"))
        posteriors = {label: pair.align(post, target) for label, post in posteriors.items()}
    components = {
        label: agreement.scalar_components(post, pair.variables)
        for label, post in posteriors.items()
    }
    centers: dict[str, float] = {}
    for name in components[PYMC]["quantity"].values:
        exact = reference.get(str(name))
        centers[str(name)] = (
            exact.mean
            if exact is not None and exact.mean is not None
            else float(components[PYMC].sel(quantity=name).mean())
        )
    log_densities = {label: witness.log_density(post) for label, post in posteriors.items()}
    for name in LOG_DENSITIES:
        arrays = [ld[name].values for ld in log_densities.values() if name in ld]
        if arrays and all(np.all(a == arrays[0].flat[0]) for a in arrays):
            for ld in log_densities.values():  # constant everywhere (a flat prior): no information
                ld.pop(name, None)
    products: list[str] = []
    quantities: dict[str, xr.DataArray] = {}
    for label, side in sides.items():
        product = agreement.centred_products(components[label], centers)
        products = [str(q) for q in product["quantity"].values]
        parts = [components[label], product]
        derived = dict(log_densities[label])
        if pair.derived is not None:
            derived.update(pair.derived(posteriors[label], data, centers))
        for qname, values in derived.items():
            da = values.transpose("chain", "draw").drop_vars(
                [c for c in values.coords if c not in ("chain", "draw")]
            )
            parts.append(da.expand_dims(quantity=[qname], axis=-1))
        parts = [p.drop_vars([c for c in p.coords if c != "quantity"]) for p in parts]
        side.quantities = quantities[label] = xr.concat(parts, dim="quantity")
    return products, quantities


def _stderr(event: RunEvent) -> None:
    print(printable(str(event)), file=sys.stderr, flush=True)  # a user's names: no escapes
