"""``run_pair``: sides with roles, progress as events, per-side verdicts from the checks' sides."""

import pytest

from mcmc_pairs.comparisons import agreement, run, sides
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.settings import Settings

SMALL = Settings.resolve(draws=200, tune=200, chains=2, seed=4, max_draws=200)


@pytest.fixture(scope="module")
def mh_normal():
    """A small run of a pair with two hand-rolled variants and a second PyMC reference."""
    events = []
    result = run.run_pair(get_pair("mh_normal"), SMALL, progress=events.append)
    return result, events


def test_sides_have_roles_and_labels(mh_normal):
    result, _ = mh_normal
    roles = {label: side.role for label, side in result.sides.items()}
    assert roles == {
        "handrolled:random_walk": run.HANDROLLED,
        "handrolled:independence": run.HANDROLLED,
        "pymc": run.PYMC,
        "pymc:metropolis": run.PYMC_STEP,
    }
    assert all(side.label == label for label, side in result.sides.items())
    assert result.sides["pymc:metropolis"].variant == "metropolis"


def test_progress_is_a_start_and_a_done_event_per_side(mh_normal):
    result, events = mh_normal
    assert [(e.side, e.stage) for e in events] == [
        (label, stage) for label in result.sides for stage in ("start", "done")
    ]
    start, done = events[0], events[1]
    assert str(start) == "[mh_normal] handrolled:random_walk: 2 chains x 200 draws"
    assert done.seconds == result.sides["handrolled:random_walk"].timings["total_s"]
    assert str(done) == f"[mh_normal] handrolled:random_walk: done in {done.seconds:.2f} s"


def test_verdicts_are_per_side_and_the_pair_takes_the_worst_sampler(mh_normal):
    result, _ = mh_normal
    assert set(result.verdicts) == {"handrolled:random_walk", "handrolled:independence",
                                    "pymc:metropolis"}  # fmt: skip
    expected = agreement.side_verdicts(result.checks, list(result.sides), reference=run.PYMC)
    assert result.verdicts == expected
    samplers = [result.verdicts[k] for k in ("handrolled:random_walk", "handrolled:independence")]
    assert result.verdict == max(samplers, key=run.SEVERITY.index)
    assert set(result.checks["side"]) == set(result.sides)


def test_reused_pymc_draws_send_no_pymc_events(mh_normal):
    result, _ = mh_normal
    events = []
    again = run.run_pair(
        get_pair("mh_normal"),
        SMALL,
        sampler="mcmc_pairs.handrolled.mh_normal:sample",
        progress=events.append,
        pymc_from=result,
    )
    assert [(e.side, e.stage) for e in events] == [("user", "start"), ("user", "done")]
    assert again.sides["user"].role == run.USER and set(again.verdicts) == {
        "user",
        "pymc:metropolis",
    }


def test_settings_are_checked():
    pair = get_pair("mh_normal")
    with pytest.raises(ValueError, match="draws must be an integer >= 1, got 0"):
        run.resolve_settings(pair, draws=0)
    with pytest.raises(ValueError, match="chains must be >= 2"):
        run.resolve_settings(pair, chains=1)


COINS = """
import pymc as pm


def build_model(data):
    with pm.Model() as model:
        pm.Bernoulli("x", float(data["p"]))
        pm.Bernoulli("y", float(data["p"]))
    return model


def steps(model):
    from pymc.step_methods.metropolis import BinaryGibbsMetropolis

    return [BinaryGibbsMetropolis([model["x"], model["y"]])]
"""


@pytest.mark.parametrize("own_stream", [True, False])
def test_a_pymc_step_under_test_draws_apart_from_the_reference(tmp_path, monkeypatch, own_stream):
    """PyMC's default for 0/1 variables is BinaryGibbsMetropolis: the reference runs it too.

    With the run's seed on both sides their draws were the same and the copy check
    failed the step (found certifying PyMC's steps, issue 41); the run under test
    has its own stream of the seed now (``sides.own_seed``).
    """
    from mcmc_pairs.comparisons.byom import model_pair

    (tmp_path / "coins.py").write_text(COINS)
    if not own_stream:
        monkeypatch.setattr(sides, "own_seed", lambda settings: settings)
    step = f"pymc-step:{tmp_path}/coins.py:steps"
    pair = model_pair(f"{tmp_path}/coins.py:build_model", {"p": 0.5}, sampler=step)
    settings = run.resolve_settings(pair, seed=3, draws=500, tune=100, max_draws=500)
    result = run.run_pair(pair, settings, sampler=step)
    copy = result.checks[result.checks["kind"] == "copy"]
    if own_stream:
        assert copy["passed"].all() and result.verdict == "agree", result.checks
        assert sides.own_seed(run.resolve_settings(pair, seed=3)).seed != 3
    else:
        assert not copy["passed"].all() and result.verdict == "disagree"
