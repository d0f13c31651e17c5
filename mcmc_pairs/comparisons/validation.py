"""Validate a sampler on its own: Geweke's joint-distribution test or SBC, end to end.

Both checks need a pair that conditions on data (:mod:`mcmc_pairs.comparisons.simulation`
reads its data, prior and simulator); the sampler under test has the
contract's signature ``sample(data, *, draws, tune, chains, random_seed)``.
The pair's PyMC twin runs through the same SBC loop (``sampler="pymc"``,
:class:`mcmc_pairs.comparisons.pymc_runner.PymcTwin`), so both sides are calibrated the
same way; Geweke's test is refused for it (a whole ``pm.sample`` run at every step).

:func:`validate` resolves the settings
(:class:`~mcmc_pairs.comparisons.settings.ValidationSettings`), runs the replications
(:mod:`mcmc_pairs.comparisons.parallel`) of the method (:mod:`mcmc_pairs.comparisons.geweke`,
:mod:`mcmc_pairs.comparisons.sbc`) and judges them; :mod:`mcmc_pairs.comparisons.validation_report`
writes the result. If a replication fails, the finished ones are kept:
:class:`ValidationError` carries them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from mcmc_pairs.comparisons import agreement
from mcmc_pairs.comparisons.contract import sampler_name
from mcmc_pairs.comparisons.geweke import geweke_checks, geweke_replication
from mcmc_pairs.comparisons.kinds import ValidationVerdict
from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.parallel import open_client, run_replications
from mcmc_pairs.comparisons.pymc_runner import PYMC, PymcTwin
from mcmc_pairs.comparisons.sbc import (
    NOT_CONVERGED,
    REFUSED_FRACTION,
    sbc_checks,
    sbc_replication,
    sensitivity,
)
from mcmc_pairs.comparisons.settings import (
    LOWEST,
    GewekeSettings,
    SbcSettings,
    ValidationSettings,
)
from mcmc_pairs.comparisons.side_kinds import sampler_under_test
from mcmc_pairs.comparisons.simulation import Simulator, simulator_for
from mcmc_pairs.pairdata.checks import check_integer

PASS, FAIL, ERROR = ValidationVerdict.PASS, ValidationVerdict.FAIL, ValidationVerdict.ERROR
VERDICTS = tuple(ValidationVerdict)
"""``not converged``: SBC with more than ``sbc.MAX_REFUSED_FRACTION`` of its replications
short of effective draws even at ``max_draws`` (the sampler mixes too slowly to judge)."""
REPLICATIONS: dict[str, Callable[..., dict]] = {
    "geweke": geweke_replication,
    "sbc": sbc_replication,
}
AUTO = "auto"
"""``replications="auto"`` (SBC): grow the run until it resolves :data:`AUTO_RESOLUTION`."""
AUTO_START = 50
"""Replications of an automatic run's first stage; each further stage doubles them."""
AUTO_RESOLUTION = 0.5
"""Default shift, in posterior sds, an automatic run grows until it rules out in every
quantity (:func:`~.sbc.sensitivity`'s statement): the zoo's planted bugs are 0.23-0.46 sd."""
AUTO_MAX_REPLICATIONS = 800
"""Default budget of an automatic run: it stops at this many replications, resolved or not."""
CHECKS = {"geweke": geweke_checks, "sbc": sbc_checks}


@dataclass(frozen=True)
class ValidationEvent:
    """Progress of :func:`validate`, for its ``progress`` callback.

    ``str(event)`` is the line the command line prints:
    ``[regression sbc] 25/200 replications``.

    Attributes
    ----------
    pair, method : str
    done, total : int
        Replications finished, and asked for.
    """

    pair: str
    method: str
    done: int
    total: int

    def __str__(self) -> str:
        return f"[{self.pair} {self.method}] {self.done}/{self.total} replications"


class ValidationError(ValueError):
    """A validation run failed midway; ``result`` holds the replications that finished."""

    def __init__(self, message: str, result: ValidationResult | None = None):
        super().__init__(message)
        self.result = result


@dataclass
class ValidationResult:
    """Everything a report needs about one validation run.

    Attributes
    ----------
    pair, method, sampler : str
    settings : dict
        The JSON's ``settings``: the run's :class:`~.settings.ValidationSettings`
        (``as_json``), with ``replications="auto"`` its ``auto`` record, then
        ``alpha`` and ``scheduler``.
    verdict : ValidationVerdict
        ``"pass"``, ``"fail"``, ``"not converged"`` (SBC: too many replications
        refused for too few effective draws even at ``max_draws``, and no rank
        test of the others rejects; one that rejects makes it ``"fail"``), or
        ``"error"`` when replications failed.
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
    verdict: ValidationVerdict
    checks: pd.DataFrame
    replications: list[dict]
    details: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    error: str | None = None


def validate(
    pair: Pair,
    sampler: str | Callable | None = None,
    *,
    method: str,
    scheduler: str | None = None,
    client: Any = None,
    alpha: float = agreement.ALPHA,
    progress: Callable[[ValidationEvent], None] | None = None,
    resolution: float = AUTO_RESOLUTION,
    max_replications: int = AUTO_MAX_REPLICATIONS,
    **overrides: int | str | None,
) -> ValidationResult:
    """Run Geweke's test or SBC on a sampler of ``pair``.

    Parameters
    ----------
    pair : Pair
        A pair that declares a prior and a simulator.
    sampler : str or callable, optional
        The sampler under test (contract signature); default the pair's first
        hand-rolled variant. ``"pymc"`` (or a :class:`mcmc_pairs.comparisons.pymc_runner.PymcTwin`)
        runs the pair's PyMC twin through the same loop (SBC only).
    method : {"geweke", "sbc"}
    scheduler : str, optional
        See :func:`mcmc_pairs.comparisons.parallel.open_client`; ignored when ``client`` is given.
    client : dask.distributed.Client, optional
        An open client to use (not closed here).
    alpha : float
        Family-wise false-alarm rate of the method's tests.
    progress : callable, optional
        Receives a :class:`ValidationEvent` as replications finish.
    resolution, max_replications : float, int
        ``replications="auto"`` (:class:`AutoReplications`): shift to resolve, budget.
    **overrides : int
        Override the method's :class:`~.settings.GewekeSettings` or :class:`~.settings.SbcSettings`
        defaults; SBC's ``replications`` may be ``"auto"`` (:data:`AUTO`).

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
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    auto = AutoReplications.asked_for(method, overrides, resolution, max_replications, alpha)
    settings = ValidationSettings.resolve(method, **overrides)
    sim = simulator_for(pair)
    sampler, name = _sampler_under_test(pair, sampler, method, sim)
    say = _reporter(progress, pair.name, method)
    start = time.perf_counter()
    done, error = _run_on_cluster(method, sim, sampler, settings, scheduler, client, say, auto)
    elapsed = time.perf_counter() - start
    ran = len(done) if error is None else None
    base: dict[str, Any] = {
        "pair": pair.name,
        "method": method,
        "sampler": name,
        "settings": _settings_json(settings, auto, ran, alpha, scheduler),
        "replications": done,
        "timings": {"total_s": elapsed},
    }
    if error is not None:
        result = ValidationResult(verdict=ERROR, checks=_empty_checks(), error=error, **base)
        raise ValidationError(f"{method} on {pair.name}: {error}", result)
    start = time.perf_counter()
    checks, details = CHECKS[method](done, alpha, **(auto.known() if auto else {}))
    base["timings"]["checks_s"] = time.perf_counter() - start  # SBC: its sensitivity too
    return ValidationResult(
        verdict=verdict_of(checks, details), checks=checks, details=details, **base
    )


def _settings_json(
    settings: GewekeSettings | SbcSettings,
    auto: AutoReplications | None,
    ran: int | None,
    alpha: float,
    scheduler: str | None,
) -> dict[str, Any]:
    """Return the JSON's ``settings``: the record's, an automatic run's, ``alpha``, ``scheduler``.

    An automatic run adds its ``auto`` record, and its ``replications`` are those
    it ran (``ran``; ``None``: it stopped, those its last stage asked for).
    """
    recorded: dict[str, Any] = settings.as_json()
    if auto is not None:
        recorded["replications"] = auto.asked if ran is None else ran
        recorded["auto"] = auto.record()
    return {**recorded, "alpha": alpha, "scheduler": scheduler or "LocalCluster"}


@dataclass
class AutoReplications:
    """How ``replications="auto"`` grows an SBC run: a stage, then the next, until resolved.

    The first stage runs :data:`AUTO_START` replications; after each, the run's
    statement (:func:`~.sbc.sensitivity`, the largest shift over the quantities
    that an SBC of this size detects with 80 % power) is computed from the
    replications so far, and the run stops when it is at most ``resolution``
    or ``max_replications`` have run; else the replications double (at most to
    the budget). Replication ``i`` has the seed it has in a run of fixed size.

    Why the test keeps its size: the rule reads only the kept draws' shapes
    (each replication's draws standardised by their own mean and sd), never
    the true values' ranks. Given the simulated data, a calibrated sampler's
    rank of the true value is uniform whatever its draws look like, so the
    ranks are independent of when the run stopped, and the one band test at the
    end has its stated level.

    Attributes
    ----------
    resolution : float
        The shift, in posterior sds, to rule out in every quantity.
    max_replications : int
        The budget.
    alpha : float
        The run's family-wise level (the sensitivity's test).
    stages : list of dict
        Per stage, ``replications`` and the ``shift`` it rules out (``None``: none on the grid).
    asked : int
        The replications the current stage asked for.
    last : dict or None
        The last stage's :func:`~.sbc.sensitivity`: the final run's statement, not
        computed again by :func:`~.sbc.sbc_checks`.
    """

    resolution: float
    max_replications: int
    alpha: float
    stages: list[dict] = field(default_factory=list)
    asked: int = 0
    last: dict | None = None

    def __post_init__(self) -> None:
        if isinstance(self.resolution, bool) or not isinstance(self.resolution, int | float):
            raise ValueError(f"resolution must be a number > 0, got {self.resolution!r}")
        if not (math.isfinite(self.resolution) and self.resolution > 0):
            raise ValueError(f"resolution must be a number > 0, got {self.resolution!r}")
        self.max_replications = check_integer(
            "max_replications", self.max_replications, LOWEST["replications"]
        )

    @classmethod
    def asked_for(
        cls,
        method: str,
        overrides: dict[str, int | str | None],
        resolution: float,
        max_replications: int,
        alpha: float,
    ) -> AutoReplications | None:
        """Return the rule if ``overrides`` ask for ``replications="auto"``, at its first stage.

        ``None`` when they do not (else ``overrides`` ask for the first stage's
        replications); ValueError for a method other than SBC.
        """
        if overrides.get("replications") != AUTO:
            return None
        if method != "sbc":
            raise ValueError(f"replications 'auto' is for --method sbc, not {method!r}")
        auto = cls(resolution, max_replications, alpha)
        overrides["replications"] = min(AUTO_START, auto.max_replications)
        return auto

    def next_total(self, done: list[dict]) -> int | None:
        """Return how many replications the run should have after the next stage; ``None``: stop."""
        sens = self.last = sensitivity(done, self.alpha)
        shift = None if sens is None else sens["shift"]
        self.stages.append({"replications": len(done), "shift": shift})
        if shift is not None and shift <= self.resolution:
            return None
        if len(done) >= self.max_replications:
            return None
        return min(2 * len(done), self.max_replications)

    def known(self) -> dict:
        """Return :func:`~.sbc.sbc_checks`' ``statement`` argument: the last stage's, if any."""
        return {} if self.last is None else {"statement": self.last}

    def record(self) -> dict:
        """Return the settings' ``auto`` entry: the rule, the stages and whether it was resolved."""
        last = self.stages[-1]["shift"] if self.stages else None
        return {
            "resolution": self.resolution,
            "max_replications": self.max_replications,
            "start": AUTO_START,
            "stages": self.stages,
            "resolved": last is not None and last <= self.resolution,
        }


def _sampler_under_test(
    pair: Pair, sampler: str | Callable | None, method: str, sim: Simulator
) -> tuple[str | Callable, str]:
    """Return the sampler :func:`validate` runs and its name for reports.

    ``None`` is the pair's first hand-rolled variant; any other spec is made a
    sampler by its kind (:func:`~mcmc_pairs.comparisons.side_kinds.sampler_under_test`):
    ``"pymc"`` is the pair's :class:`mcmc_pairs.comparisons.pymc_runner.PymcTwin`,
    ``"pymc-step:..."`` the twin with the user's step method (both checked by
    :func:`_check_twin`), and an import string is loaded once, to fail fast with
    a clear message.
    """
    if sampler is None:
        sampler = next(iter(pair.handrolled.values()))
    made = sampler_under_test(sampler, pair)
    if isinstance(made, PymcTwin):
        return made, _check_twin(made, pair, method, sim)
    return made, sampler_name(made)


def _reporter(
    progress: Callable[[ValidationEvent], None] | None, pair_name: str, method: str
) -> Callable[[int, int], None]:
    """Return the ``progress(done, total)`` callback that hands ``progress`` a ValidationEvent."""

    def say(done: int, total: int) -> None:
        if progress is not None:
            progress(ValidationEvent(pair_name, method, done, total))

    return say


def _run_on_cluster(
    method: str,
    sim: Simulator,
    sampler: str | Callable,
    settings: GewekeSettings | SbcSettings,
    scheduler: str | None,
    client: Any,
    say: Callable[[int, int], None],
    auto: AutoReplications | None = None,
) -> tuple[list[dict], str | None]:
    """Run the method's replications on ``client``, or on a cluster opened (and closed) here.

    Each replication runs ``REPLICATIONS[method](sim, sampler, settings, seed)``;
    with ``auto``, in stages until it says stop. Returns the finished
    replications and the first error (``None`` when all finished), as
    :func:`mcmc_pairs.comparisons.parallel.run_replications` does.
    """
    own_cluster = None
    if client is None:
        client, own_cluster = open_client(scheduler)
        owned = client
    else:
        owned = None
    try:
        done: list[dict] = []
        total: int | None = settings.replications
        while total is not None:
            if auto is not None:
                auto.asked = total
            finished, error = run_replications(
                REPLICATIONS[method],
                (sim, sampler, settings),
                replications=total,
                seed=settings.seed,
                client=client,
                progress=say,
                draws_per_replication=_draws_per_replication(settings),
                start=len(done),
            )
            done += finished
            if error is not None or auto is None:
                return done, error
            total = auto.next_total(done)
        return done, None
    finally:
        if owned is not None:
            owned.close()
        if own_cluster is not None:
            own_cluster.close()


def _draws_per_replication(settings: GewekeSettings | SbcSettings) -> int:
    """Return the sampler draws a replication may take, tuning, chains and reruns included.

    Geweke: ``steps`` calls of ``tune + 1`` draws; SBC: ``chains`` chains of up to
    ``max_draws`` kept draws, reruns doubling to it (at most twice ``max_draws``
    in all) each with its tuning. The bound of the waits on Dask
    (:func:`mcmc_pairs.comparisons.parallel.stall_limit`).
    """
    if isinstance(settings, GewekeSettings):
        return settings.steps * (settings.tune + 1)
    runs = 1 + max(0, math.ceil(math.log2(settings.max_draws / settings.draws)))
    return settings.chains * (2 * settings.max_draws + runs * settings.tune)


def verdict_of(checks: pd.DataFrame, details: dict) -> ValidationVerdict:
    """Return the verdict of a method's checks and details.

    ``pass`` when every check passes; ``not converged`` when SBC refused too
    many replications (``details["not_converged"]``) and every rank test of the
    others passes; else ``fail`` (a rejecting rank test is a miscalibration
    however many replications were refused).
    """
    tests = checks.loc[checks["statistic"] != REFUSED_FRACTION, "passed"]
    if not bool(tests.all()):
        return FAIL
    if details.get("not_converged"):
        return NOT_CONVERGED
    return PASS if bool(checks["passed"].all()) else FAIL


def _check_twin(twin: PymcTwin, pair: Pair, method: str, sim: Simulator) -> str:
    """Check that ``twin`` can run ``method`` on ``pair``; return its name for reports.

    Geweke's test is refused: its successive-conditional chain simulates new data
    at every step, and the twin, which takes no initial state, would rerun
    ``pm.sample`` from its start, tuning included, at every one of
    ``replications * steps`` steps (5,000 at the defaults). The compile is
    shared (:data:`~.reuse.NUTPIE`); the runs are not.
    """
    if twin.pair.name != pair.name:
        raise ValueError(
            f"--sampler: the PyMC twin of {twin.pair.name!r} cannot validate pair {pair.name!r}"
        )
    if method != "sbc":
        name = PYMC if twin.step is None else twin.step
        raise ValueError(
            f"--sampler {name} runs with --method sbc only, not {method!r}: every Geweke step "
            "simulates new data and would rerun pm.sample from its start, tuning included, "
            "replications x steps times (5,000 at the defaults)"
        )
    return str(twin) if twin.step is not None else f"{twin} ({twin.describe(sim.data)})"


def _empty_checks() -> pd.DataFrame:
    return pd.DataFrame(columns=["quantity", "statistic", "value", "threshold", "p", "passed"])
