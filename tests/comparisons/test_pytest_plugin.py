"""The pytest plugin: a session's statistical tests share one false-alarm budget.

Inner sessions (``pytester``) on a conjugate normal mean whose exact posterior
a few lines sample i.i.d.; PyMC runs its own NUTS on one core (no nutpie
compile), 2 chains x 2,000 draws at one look. Sessions that sample run in a
subprocess: an in-process session drops the modules it imported when it ends
(pytester's snapshot of ``sys.modules``), and importing compiled libraries
such as h5py a second time aborts the interpreter.
"""

import json
import re
from pathlib import Path

import pytest

from mcmc_pairs.comparisons import agreement, budget, energy, honesty
from mcmc_pairs.comparisons.pytest_plugin import StatisticalTest
from mcmc_pairs.comparisons.testing import compare

pytest_plugins = ["pytester"]

MODEL = """
import numpy as np
import pymc as pm

PYMC_KWARGS = {"nuts_sampler": "pymc", "cores": 1}


def build_model(data):
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 10.0)
        pm.Normal("y", mu, 1.0, observed=np.asarray(data["y"], dtype=float))
    return model
"""
SAMPLER = """
import numpy as np


def sample(data, *, draws, tune, chains, random_seed, spread=1.0):
    y = np.asarray(data["y"], dtype=float)
    precision = y.size + 1 / 100  # N(0, 10^2) prior, unit noise: the posterior is exact
    rng = np.random.default_rng(random_seed)
    noise = rng.standard_normal((chains, draws)) / np.sqrt(precision)
    return {"mu": y.sum() / precision + spread * noise}


def sample_planted_bug(data, *, draws, tune, chains, random_seed):
    return sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed, spread=2.0)
"""
TESTS = """
from pathlib import Path

import pytest

HERE = Path(__file__).parent
DATA = {"y": [0.3, -0.2, 1.1, 0.5, 0.0]}
SETTINGS = dict(draws=2000, tune=300, chains=2, seed=1, max_draws=2000)


def compare(mcmc_pairs, sampler, **settings):
    return mcmc_pairs.assert_agree(
        f"{HERE}/model.py:build_model", f"{HERE}/sampler.py:{sampler}", DATA, **SETTINGS | settings
    )
"""


@pytest.fixture
def project(pytester):
    pytester.makepyfile(model=MODEL, sampler=SAMPLER, helpers=TESTS)
    return pytester


def test_correct_sampler_passes_and_the_planted_bug_fails_with_its_report(
    project, tmp_path, monkeypatch
):
    project.makepyfile(
        test_samplers="""
        import pytest
        from helpers import compare

        def test_correct(mcmc_pairs):
            compare(mcmc_pairs, "sample")

        @pytest.mark.mcmc_pairs
        def test_planted_bug(mcmc_pairs):
            compare(mcmc_pairs, "sample_planted_bug")
        """
    )
    env_cache = tmp_path / "env_cache"
    monkeypatch.setenv("MCMC_PAIRS_CACHE", str(env_cache))  # no --mcmc-pairs-cache: the env's
    result = project.runpytest_subprocess("--strict-markers", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "mcmc-pairs: 2 statistical tests, family-wise false-alarm rate 1 %: "
            "each run at level 0.5 % (1 % / 2, Bonferroni)",
            "mcmc-pairs: reports in *mcmc-pairs-reports",
        ]
    )
    bug = result.stdout.str()
    assert "The samplers disagree:" in bug  # report.verdict_sentence, as plain text
    assert "verdict 'disagree'" in bug and "FAILED: user vs pymc, z(sd) of mu" in bug
    assert "false-alarm level of this run: 0.5 % (the session's 1 % over 2 runs)" in bug
    # once in the failure, and again in the short summary where pytest does not truncate it
    # (CI set in the environment)
    (page,) = set(re.findall(r"report: (\S+\.html) \(JSON: ", bug))
    page = Path(page)
    assert page.parent.name == "test_samplers.py_test_planted_bug" and page.is_file()
    document = json.loads(page.with_suffix(".json").read_text())
    assert document["verdict"] == "disagree"
    assert document["looks"][0]["alpha"] == pytest.approx(budget.levels(0.005).z)
    (energy_check,) = [c for c in document["checks"] if c["kind"] == "multivariate"]
    assert energy_check["level"] == pytest.approx(budget.levels(0.005).energy)
    assert list(env_cache.iterdir()), "the reference went to $MCMC_PAIRS_CACHE"


def test_each_run_gets_the_rate_over_the_sessions_runs(pytester):
    pytester.makepyfile(
        test_levels="""
        import pytest

        def test_one(mcmc_pairs):
            assert mcmc_pairs.level == pytest.approx(0.02 / 4) and mcmc_pairs.total == 4

        @pytest.mark.parametrize("k", [1])
        def test_two(mcmc_pairs, k):
            assert mcmc_pairs.runs == 1

        @pytest.mark.mcmc_pairs(runs=2)
        def test_twice(mcmc_pairs):
            assert mcmc_pairs.runs == 2 and mcmc_pairs.rate == 0.02

        def test_not_statistical():
            pass

        def test_deselected(mcmc_pairs):
            pass
        """
    )
    args = ["--strict-markers", "--mcmc-pairs-rate", "0.02", "-k", "not deselected", "-v"]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=4, deselected=1)
    result.stdout.fnmatch_lines(
        [
            "mcmc-pairs: 3 statistical tests (4 runs), family-wise false-alarm rate 2 %: "
            "each run at level 0.5 % (2 % / 4, Bonferroni)",
            "  test_levels.py::test_twice: 2 run(s) at 0.5 %",
        ]
    )


def test_a_session_without_statistical_tests_says_nothing(pytester):
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "statistical test" not in result.stdout.str()


@pytest.mark.parametrize("option", [["--mcmc-pairs-rate", "1.5"], ["--mcmc-pairs-rate", "x"]])
def test_a_rate_outside_0_1_is_a_usage_error_naming_the_option(pytester, option):
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest(*option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcmc-pairs-rate must be a false-alarm rate in (0, 1)*"])


def test_the_ini_sets_the_rate(pytester):
    pytester.makeini("[pytest]\nmcmc_pairs_rate = 0.05\n")
    pytester.makepyfile(test_one="def test_one(mcmc_pairs):\n    assert mcmc_pairs.level == 0.05\n")
    pytester.runpytest().assert_outcomes(passed=1)


def test_bad_runs_is_a_usage_error_naming_the_test(pytester):
    pytester.makepyfile(
        test_runs="import pytest\n\n@pytest.mark.mcmc_pairs(runs=0)\ndef test_zero():\n    pass\n"
    )
    result = pytester.runpytest()
    assert result.ret != 0
    assert "test_runs.py::test_zero: runs of @pytest.mark.mcmc_pairs must be a whole number" in (
        result.stdout.str() + result.stderr.str()
    )


def test_the_fixture_refuses_what_the_session_sets_and_runs_beyond_those_declared(tmp_path):
    fixture = StatisticalTest("t.py::test", 0.01, 0.01, 1, 1, None, tmp_path)
    for name in ("alpha", "cache", "out"):
        with pytest.raises(ValueError, match=f"{name} is set by the session"):
            fixture.compare("model.py:build_model", "sampler.py:sample", {}, **{name: 1})
    fixture.made = 1
    with pytest.raises(ValueError, match=r"declared 1 run\(s\).*mcmc_pairs\(runs=2\)"):
        fixture.compare("model.py:build_model", "sampler.py:sample", {})


def test_the_second_session_reads_the_cache_and_an_inconclusive_test_says_how_to_decide(
    project, tmp_path
):
    project.makepyfile(
        test_cached="""
        from helpers import compare

        def test_correct(mcmc_pairs):
            result = compare(mcmc_pairs, "sample")
            print("from_cache", result.sides["pymc"].from_cache)
        """
    )
    cache = tmp_path / "session_cache"
    first = project.runpytest_subprocess("-s", "--mcmc-pairs-cache", str(cache))
    first.assert_outcomes(passed=1)
    first.stdout.fnmatch_lines(["*from_cache False*"])
    assert list(cache.iterdir())
    project.makepyfile(
        test_undecided="""
        from helpers import compare

        def test_undecided(mcmc_pairs):
            compare(mcmc_pairs, "sample", tolerance=0.02)
        """
    )
    second = project.runpytest_subprocess("-s", "--mcmc-pairs-cache", str(cache))
    second.assert_outcomes(passed=1, failed=1)
    second.stdout.fnmatch_lines(["*from_cache True*"])
    assert "pymc: 2 chains x 2000 draws from the reference cache" in second.stderr.str()
    out = second.stdout.str()
    assert "Inconclusive: no test detected a difference" in out
    assert "To decide it: more draws (max_draws=, now 2000, reached 2000 per chain" in out
    assert "wider tolerance=, now 0.02 posterior sd. The worst resolution reached is" in out
    assert re.search(r"resolution reached is [0-9.]+ posterior sd for z\(\w+\) of", out)


def test_xdists_controller_states_the_budget_from_the_workers_reports():
    """The controller collects nothing: the count, runs and level come from the reports."""
    from types import SimpleNamespace

    from mcmc_pairs.comparisons.pytest_plugin import (
        LEVEL_PROPERTY,
        RUNS_PROPERTY,
        Budget,
        SessionBudget,
        summary_lines,
    )

    session = SessionBudget(Budget(rate=0.05, cache=None, reports=None))
    for nodeid, runs in [("t.py::a", (4, 1)), ("t.py::b", [4, 3])]:  # a list after xdist
        properties = [("other", 1), (LEVEL_PROPERTY, 0.0125), (RUNS_PROPERTY, runs)]
        session.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, user_properties=properties))
    session.pytest_runtest_logreport(SimpleNamespace(nodeid="t.py::c", user_properties=[]))
    assert session.budget.reported == {"t.py::a": (0.0125, 4), "t.py::b": (0.0125, 4)}
    assert summary_lines(session.budget, verbose=True) == [
        "mcmc-pairs: 2 statistical tests (4 runs), family-wise false-alarm rate 5 %: "
        "each run at level 1.25 % (5 % / 4, Bonferroni)"
    ]


def test_budget_levels_add_up_to_the_runs_rate():
    assert budget.levels(None) == (agreement.ALPHA, energy.ALPHA)
    assert budget.HONESTY_ALPHA == honesty.ALPHA
    for alpha, sides in [(0.01, 1), (0.001 / 7, 1), (0.05, 3)]:
        z, each = budget.levels(alpha, sides)
        assert z + sides * (each + honesty.ALPHA) == pytest.approx(alpha, rel=1e-12)
        assert z / each == pytest.approx(sides * agreement.ALPHA / energy.ALPHA)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 2.0, "0.01", True, 5e-7])
def test_a_bad_alpha_is_refused_naming_it(alpha):
    with pytest.raises(ValueError, match="alpha must"):
        budget.levels(alpha)


def test_compare_refuses_a_bad_alpha_before_sampling(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "sampler.py").write_text(SAMPLER)
    with pytest.raises(ValueError, match=r"alpha must be a false-alarm rate in \(0, 1\)"):
        compare(f"{tmp_path}/model.py:build_model", f"{tmp_path}/sampler.py:sample",
                {"y": [0.1]}, alpha=1.5)  # fmt: skip
