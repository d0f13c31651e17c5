"""The pytest plugin: statistical tests that share one false-alarm budget per session.

Installed with the suite (the ``pytest11`` entry point ``mcmc_pairs``), so every
pytest session in an environment with mcmc-pairs has:

* the marker ``@pytest.mark.mcmc_pairs`` (``runs=N`` for a test that compares
  ``N`` times) and the fixture ``mcmc_pairs``, whose :meth:`StatisticalTest.compare`
  and :meth:`StatisticalTest.assert_agree` take the arguments of
  :func:`mcmc_pairs.compare` and :func:`mcmc_pairs.assert_agree` and add the
  session's reference cache, the test's share of the false-alarm budget and a
  report (HTML and JSON) in the session's reports directory;
* ``--mcmc-pairs-cache DIR`` (default
  :func:`~.reference_cache.default_cache_dir`, as the command line's, read
  when a test compares: ``$MCMC_PAIRS_CACHE`` set by a test or a conftest is
  honoured), ``--mcmc-pairs-rate RATE`` (ini ``mcmc_pairs_rate``, default 1 %)
  and ``--mcmc-pairs-reports DIR`` (ini ``mcmc_pairs_reports``, default a
  folder under pytest's temporary directory);
* a line in the terminal summary: how many statistical tests, the family-wise
  rate and each run's level.

**The budget.** A statistical test is one that has the marker or uses the
fixture; they are counted when the session has collected (and deselected) its
tests. With ``M`` runs in all (a test's ``runs``, 1 unless marked otherwise),
each run gets the level ``rate / M`` as its ``alpha``
(:func:`~.budget.levels`: a correct sampler's run ends ``disagree`` with
probability at most ``alpha``, the z-checks' Holm family spent over the
looks, the energy check and the honesty checks together). By the union bound
(Bonferroni) the probability that any run of the session raises a false alarm
is at most ``M * rate / M = rate``, **under any dependence between the runs**
(shared data, a shared reference, the same seed): a suite of many statistical
tests fails a correct sampler at most as often as one. ``inconclusive`` and
``not converged`` are not false alarms: more draws decide them, and a failing
test says how.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from mcmc_pairs.comparisons.result import PairResult

MARKER = "mcmc_pairs"
"""The marker's name, and the fixture's."""
DEFAULT_RATE = 0.01
"""The session's family-wise false-alarm rate unless ``--mcmc-pairs-rate`` says otherwise."""
LEVEL_PROPERTY = "mcmc_pairs_level"
"""The ``user_properties`` entry of a statistical test's reports: its runs' level.

pytest-xdist's controller collects no tests; it reads the count from the
workers' reports (:func:`pytest_runtest_logreport`)."""
RUNS_PROPERTY = "mcmc_pairs_runs"
"""The ``user_properties`` entries with the session's runs in all and this test's."""
SESSION_SET = ("alpha", "cache", "out")
"""Keywords of :func:`mcmc_pairs.compare` that the session sets, refused from a test."""
_BUDGET = pytest.StashKey["Budget"]()


@dataclass
class Budget:
    """The session's false-alarm budget and where its statistical tests keep things.

    Attributes
    ----------
    rate : float
        The family-wise false-alarm rate of all the session's runs.
    cache : Path or None
        ``--mcmc-pairs-cache``; None: the default directory when a test compares.
    reports : Path or None
        ``--mcmc-pairs-reports`` (or its ini); None: a folder under pytest's temp dir.
    runs : dict of str to int
        Each statistical test's node id and its runs, from collection.
    reported : dict of str to tuple
        ``(level, runs in all)`` per test, read from reports (pytest-xdist's controller).
    used : Path or None
        The reports directory, once a test has used the fixture.
    """

    rate: float
    cache: Path | None
    reports: Path | None
    runs: dict[str, int] = field(default_factory=dict)
    reported: dict[str, tuple[float, int]] = field(default_factory=dict)
    used: Path | None = None

    @property
    def total(self) -> int:
        """Return the session's runs in all: the union bound's number of terms."""
        return sum(self.runs.values())

    @property
    def level(self) -> float:
        """Return each run's false-alarm level, ``rate / total`` (Bonferroni)."""
        return self.rate / max(self.total, 1)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the options ``--mcmc-pairs-cache``, ``--mcmc-pairs-rate``, ``--mcmc-pairs-reports``."""
    group = parser.getgroup("mcmc-pairs", "mcmc-pairs statistical tests")
    group.addoption(
        "--mcmc-pairs-cache",
        metavar="DIR",
        default=None,
        help="the reference cache of the session's statistical tests (default as the CLI's: "
        "$MCMC_PAIRS_CACHE, else $XDG_CACHE_HOME/mcmc-pairs/references, else "
        "~/.cache/mcmc-pairs/references)",
    )
    group.addoption(
        "--mcmc-pairs-rate",
        metavar="RATE",
        default=None,
        help=f"family-wise false-alarm rate of the session's statistical tests, in (0, 1) "
        f"(default {DEFAULT_RATE:g}; ini mcmc_pairs_rate)",
    )
    group.addoption(
        "--mcmc-pairs-reports",
        metavar="DIR",
        default=None,
        help="where each statistical test writes its report, in a folder of its own (default "
        "a folder under pytest's temporary directory; ini mcmc_pairs_reports)",
    )
    parser.addini("mcmc_pairs_rate", "family-wise false-alarm rate of statistical tests")
    parser.addini("mcmc_pairs_reports", "directory of the statistical tests' reports")


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker and set up the session's :class:`Budget`."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(runs=1): a statistical test of mcmc-pairs, sharing the session's "
        "false-alarm budget (runs: how many comparisons it makes)",
    )
    budget = Budget(
        rate=session_rate(config), cache=_option_path(config, "cache"), reports=_reports(config)
    )
    config.stash[_BUDGET] = budget
    config.pluginmanager.register(SessionBudget(budget), f"{MARKER}-budget-{id(config)}")


def session_rate(config: pytest.Config) -> float:
    """Return the family-wise rate: ``--mcmc-pairs-rate``, its ini, or :data:`DEFAULT_RATE`.

    Raises
    ------
    pytest.UsageError
        A rate that is not a number in (0, 1), naming the option (or ini) it came from.
    """
    given, source = config.getoption("mcmc_pairs_rate"), "--mcmc-pairs-rate"
    if given is None:
        given, source = config.getini("mcmc_pairs_rate") or None, "ini mcmc_pairs_rate"
    if given is None:
        return DEFAULT_RATE
    try:
        rate = float(given)
    except ValueError:
        rate = float("nan")
    if not 0 < rate < 1:
        raise pytest.UsageError(f"{source} must be a false-alarm rate in (0, 1), got {given!r}")
    return rate


def _option_path(config: pytest.Config, name: str) -> Path | None:
    """Return the path option ``--mcmc-pairs-NAME``, from the invocation directory; or None."""
    value = config.getoption(f"mcmc_pairs_{name}")
    if value is None:
        return None
    if not str(value).strip():
        raise pytest.UsageError(f"--mcmc-pairs-{name} must name a directory, got {value!r}")
    return config.invocation_params.dir / Path(value).expanduser()


def _reports(config: pytest.Config) -> Path | None:
    """Return the reports directory: the option, else the ini (from its file's folder), or None."""
    given = _option_path(config, "reports")
    if given is not None:
        return given
    value = config.getini("mcmc_pairs_reports")
    if not value:
        return None
    base = config.inipath.parent if config.inipath else config.rootpath
    return base / Path(value).expanduser()


def is_statistical(item: pytest.Item) -> bool:
    """Return True for a test with the marker or the fixture: one that spends the budget."""
    return item.get_closest_marker(MARKER) is not None or MARKER in getattr(
        item, "fixturenames", ()
    )


def declared_runs(item: pytest.Item) -> int:
    """Return how many comparisons a statistical test declares (``runs=``, default 1).

    Raises
    ------
    pytest.UsageError
        ``runs`` not a whole number >= 1, naming the test.
    """
    marker = item.get_closest_marker(MARKER)
    runs = 1 if marker is None else marker.kwargs.get("runs", 1)
    if marker is not None and (marker.args or set(marker.kwargs) - {"runs"}):
        raise pytest.UsageError(
            f"{item.nodeid}: @pytest.mark.{MARKER} takes only runs=N, got "
            f"args {marker.args} and keywords {sorted(marker.kwargs)}"
        )
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise pytest.UsageError(
            f"{item.nodeid}: runs of @pytest.mark.{MARKER} must be a whole number >= 1, "
            f"got {runs!r}"
        )
    return runs


class SessionBudget:
    """The hooks that count one session's statistical tests and state its budget."""

    def __init__(self, budget: Budget):
        self.budget = budget

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Count the session's statistical tests and their runs: the budget's denominator."""
        budget = self.budget
        budget.runs = {
            item.nodeid: declared_runs(item) for item in session.items if is_statistical(item)
        }
        for item in session.items:
            if item.nodeid in budget.runs:
                runs = (budget.total, budget.runs[item.nodeid])
                item.user_properties += [(LEVEL_PROPERTY, budget.level), (RUNS_PROPERTY, runs)]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note a statistical test's level from its report (what pytest-xdist's controller sees)."""
        properties = dict(report.user_properties)
        level, runs = properties.get(LEVEL_PROPERTY), properties.get(RUNS_PROPERTY)
        if isinstance(level, float) and isinstance(runs, tuple | list):  # a list after xdist
            self.budget.reported[report.nodeid] = (level, runs[0])

    def pytest_terminal_summary(
        self,
        terminalreporter: pytest.TerminalReporter,
        exitstatus: pytest.ExitCode,
        config: pytest.Config,
    ) -> None:
        """State the session's statistical tests, its family-wise rate and each run's level."""
        lines = summary_lines(self.budget, verbose=config.getoption("verbose") > 0)
        if lines and self.budget.used is not None:
            lines.append(f"mcmc-pairs: reports in {self.budget.used}")
        for line in lines:
            terminalreporter.write_line(line)


def summary_lines(budget: Budget, verbose: bool = False) -> list[str]:
    """Return the terminal summary's lines: the tests, the family-wise rate, each run's level."""
    if budget.runs:
        runs, tests, level = budget.total, len(budget.runs), budget.level
    elif budget.reported:  # pytest-xdist's controller: from the workers' reports
        (level, runs), tests = next(iter(budget.reported.values())), len(budget.reported)
    else:
        return []
    count = f"{tests} statistical test{'s' * (tests != 1)}"
    if runs != tests:
        count += f" ({runs} runs)"
    lines = [
        f"mcmc-pairs: {count}, family-wise false-alarm rate {percent(budget.rate)}: "
        f"each run at level {percent(level)} ({percent(budget.rate)} / {runs}, Bonferroni)"
    ]
    if verbose and budget.runs:
        lines += [
            f"  {nodeid}: {n} run(s) at {percent(level)}" for nodeid, n in budget.runs.items()
        ]
    return lines


def percent(rate: float) -> str:
    """Return a rate as a percentage with three significant digits: ``0.01`` is ``1 %``."""
    return f"{rate * 100:.3g} %"


@pytest.fixture
def mcmc_pairs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> StatisticalTest:
    """Compare a sampler with a PyMC model within the session's false-alarm budget.

    ``mcmc_pairs.compare(...)`` and ``mcmc_pairs.assert_agree(...)`` take the
    arguments of :func:`mcmc_pairs.compare` and add the session's reference
    cache, this test's level and a report in its own folder of the session's
    reports directory.
    """
    budget = request.config.stash[_BUDGET]
    nodeid = request.node.nodeid
    if nodeid not in budget.runs:
        pytest.fail(
            f"{nodeid} uses the {MARKER} fixture but was not counted when the session "
            f"collected (a fixture requested at run time): mark it @pytest.mark.{MARKER}",
            pytrace=False,
        )
    if budget.used is None:
        budget.used = budget.reports or tmp_path_factory.getbasetemp() / "mcmc-pairs-reports"
    folder = budget.used / safe_name(nodeid)
    return StatisticalTest(
        nodeid=nodeid,
        level=budget.level,
        rate=budget.rate,
        total=budget.total,
        runs=budget.runs[nodeid],
        cache=budget.cache,
        reports=folder,
    )


def safe_name(nodeid: str) -> str:
    """Return a test's node id as one folder name: letters, digits, ``_ - .`` (at most 120)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("._") or "test"
    return name[-120:]


@dataclass
class StatisticalTest:
    """What the ``mcmc_pairs`` fixture gives a test: compare and assert within its budget.

    Attributes
    ----------
    nodeid : str
    level : float
        Each of its runs' false-alarm rate (the ``alpha`` of :func:`mcmc_pairs.compare`).
    rate, total : float, int
        The session's family-wise rate and its runs in all.
    runs : int
        The runs the test declared (``@pytest.mark.mcmc_pairs(runs=N)``, default 1).
    cache : Path or None
        The session's reference cache (None: the default directory, read at each run).
    reports : Path
        This test's reports folder.
    made : int
        The runs made so far.
    """

    nodeid: str
    level: float
    rate: float
    total: int
    runs: int
    cache: Path | None
    reports: Path
    made: int = 0

    def __repr__(self) -> str:
        return f"<mcmc_pairs fixture of {self.nodeid}: {self.runs} run(s) at {self.level:.3g}>"

    def compare(
        self,
        build_model: str | Callable,
        sampler: str | Callable,
        data: Mapping | str | Path,
        **kwargs: Any,
    ) -> PairResult:
        """Run :func:`mcmc_pairs.compare` at this test's level; return its result.

        Parameters
        ----------
        build_model, sampler, data, **kwargs
            As for :func:`mcmc_pairs.compare`, but for ``alpha``, ``cache`` and
            ``out``, which the session sets.

        Returns
        -------
        mcmc_pairs.comparisons.result.PairResult

        Raises
        ------
        ValueError
            A keyword the session sets, or a run beyond those the test declared.
        """
        from mcmc_pairs.comparisons import testing

        for name in SESSION_SET:
            if name in kwargs:
                raise ValueError(
                    f"{name} is set by the session for the {MARKER} fixture "
                    f"(--mcmc-pairs-rate, --mcmc-pairs-cache, --mcmc-pairs-reports); "
                    f"call mcmc_pairs.compare itself to choose it"
                )
        if self.made >= self.runs:
            raise ValueError(
                f"{self.nodeid} declared {self.runs} run(s) and makes another: the budget "
                f"counts runs at collection, so mark it @pytest.mark.{MARKER}"
                f"(runs={self.runs + 1}) or more"
            )
        self.made += 1
        cache = True if self.cache is None else self.cache  # True: the CLI's, read at each run
        return testing.compare(
            build_model, sampler, data, alpha=self.level, cache=cache, out=self.reports, **kwargs
        )

    def assert_agree(
        self,
        build_model: str | Callable,
        sampler: str | Callable,
        data: Mapping | str | Path,
        **kwargs: Any,
    ) -> PairResult:
        """Assert that the sampler agrees with the model at this test's level; return the result.

        Parameters
        ----------
        build_model, sampler, data, **kwargs
            As for :meth:`compare`.

        Returns
        -------
        mcmc_pairs.comparisons.result.PairResult

        Raises
        ------
        AssertionError
            Unless the verdict is ``agree``: the verdict sentence, the worst checks,
            how to decide an undecided run, and the report's path.
        """
        __tracebackhide__ = True
        result = self.compare(build_model, sampler, data, **kwargs)
        if result.verdict != "agree":
            raise AssertionError(self.failure(result))
        return result

    def failure(self, result: PairResult) -> str:
        """Return what a failed test prints: verdict sentence, worst checks, advice, report."""
        from mcmc_pairs.comparisons.report import verdict_sentence
        from mcmc_pairs.comparisons.testing import failure_message

        lines = [plain(verdict_sentence(result)), failure_message(result, limit=10)]
        lines += decide_advice(result)
        name = result.pair.name
        lines.append(
            f"report: {self.reports / f'{name}.html'} (JSON: {self.reports / f'{name}.json'})"
        )
        lines.append(
            f"false-alarm level of this run: {percent(self.level)} (the session's "
            f"{percent(self.rate)} over {self.total} run{'s' * (self.total != 1)})"
        )
        return "\n".join(lines)


def plain(text: str) -> str:
    """Return the page's HTML sentence as terminal text: tags dropped, entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def decide_advice(result: PairResult) -> list[str]:
    """Say how to decide an ``inconclusive`` or ``not converged`` run from a test's keywords.

    ``inconclusive``: more draws (``max_draws``, ``max_seconds``) or a wider
    ``tolerance``, naming the worst resolution reached against its tolerance.
    """
    settings = result.settings
    draws = result.looks[-1]["draws"] if result.looks else settings.draws
    if result.verdict == "inconclusive":
        checks = result.checks[result.checks["equivalent"].eq(False)]
        excess = checks["resolution"] / checks["tolerance"]
        worst = checks.iloc[excess.argmax()] if len(checks) else None
        reached = (
            f" The worst resolution reached is {worst['resolution']:.3g} posterior sd for "
            f"{worst['statistic']} of {worst['quantity']}, against a tolerance of "
            f"{worst['tolerance']:.3g}."
            if worst is not None
            else ""
        )
        return [
            f"To decide it: more draws (max_draws=, now {settings.max_draws}, reached "
            f"{draws} per chain; or max_seconds=, now {settings.max_seconds}), or a "
            f"wider tolerance=, now {settings.tolerance:g} posterior sd.{reached}"
        ]
    if result.verdict == "not converged":
        return [
            f"To decide it: run longer (draws=, tune=, max_draws=; the run reached {draws} "
            f"draws per chain of max_draws={settings.max_draws})."
        ]
    return []
