"""``validate``: settings, samplers and bad input; the methods have their own tests.

Geweke's test, SBC and the replications' machinery are in test_geweke.py,
test_sbc.py and test_parallel.py; the reports in test_validation_report.py.
"""

import json

import pytest

from mcmc_pairs.comparisons import cli
from mcmc_pairs.comparisons import sbc as sbc_module
from mcmc_pairs.comparisons import validation as v
from mcmc_pairs.comparisons.kinds import ValidationVerdict
from mcmc_pairs.comparisons.parallel import SYNCHRONOUS
from mcmc_pairs.comparisons.pymc_runner import PymcTwin
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.settings import (
    BUDGET_FACTOR,
    SEED,
    GewekeSettings,
    SbcSettings,
    ValidationSettings,
)

M = "tests/malformed_samplers.py:"


def test_pymc_twin_bad_input_is_a_clear_error():
    regression = get_pair("regression")
    with pytest.raises(ValueError, match="--sampler pymc runs with --method sbc only"):
        v.validate(regression, "pymc", method="geweke", scheduler=SYNCHRONOUS)
    twin = PymcTwin(get_pair("bayes_net"))
    with pytest.raises(ValueError, match="twin of 'bayes_net' cannot validate pair 'regression'"):
        v.validate(regression, twin, method="sbc", scheduler=SYNCHRONOUS)
    with pytest.raises(ValueError, match="no data to simulate"):
        v.validate(get_pair("bivariate_normal"), "pymc", method="sbc", scheduler=SYNCHRONOUS)


@pytest.mark.parametrize("name", ["bivariate_normal", "mh_normal", "mh_beta"])
def test_fixed_target_has_nothing_to_simulate(name):
    with pytest.raises(ValueError, match=f"no data to simulate.*mcmc-pairs compare {name}"):
        v.validate(get_pair(name), method="sbc", scheduler=SYNCHRONOUS)


def test_bad_method_and_settings():
    pair = get_pair("regression")
    with pytest.raises(ValueError, match="method must be one of"):
        v.validate(pair, method="bogus", scheduler=SYNCHRONOUS)
    with pytest.raises(ValueError, match="replications must be an integer >= 2"):
        v.validate(pair, method="sbc", scheduler=SYNCHRONOUS, replications=1)
    with pytest.raises(ValueError, match="steps is not a setting of sbc"):
        v.validate(pair, method="sbc", scheduler=SYNCHRONOUS, steps=3)
    with pytest.raises(ValueError, match="alpha must lie in"):
        v.validate(pair, method="sbc", scheduler=SYNCHRONOUS, alpha=0)
    with pytest.raises(ValueError, match="--sampler must be an import string or a callable"):
        v.validate(pair, 3, method="sbc", scheduler=SYNCHRONOUS)


def test_validation_settings_merge_defaults_and_overrides():
    settings = ValidationSettings.resolve("geweke", steps=30, tune=None)
    assert settings == GewekeSettings(replications=20, tune=20, seed=SEED, steps=30)
    assert settings.as_json() == {"replications": 20, "steps": 30, "tune": 20, "seed": SEED}
    with pytest.raises(ValueError, match="tune must be an integer >= 0, got -1"):
        ValidationSettings.resolve("sbc", tune=-1)
    sbc = ValidationSettings.resolve("sbc", draws=300)
    assert isinstance(sbc, SbcSettings) and sbc.max_draws == BUDGET_FACTOR * 300 == 16 * 300
    assert list(sbc.as_json()) == ["replications", "draws", "tune", "chains", "seed", "max_draws"]
    assert ValidationSettings.resolve("sbc", draws=300, max_draws=300).max_draws == 300
    with pytest.raises(ValueError, match="max_draws must be an integer >= 300, got 299"):
        ValidationSettings.resolve("sbc", draws=300, max_draws=299)
    with pytest.raises(ValueError, match="max_draws is not a setting of geweke"):
        ValidationSettings.resolve("geweke", max_draws=3000)
    with pytest.raises(ValueError, match="method must be one of geweke, sbc, got 'nuts'"):
        ValidationSettings.resolve("nuts")
    with pytest.raises(AttributeError):
        sbc.draws = 5  # frozen


def test_verdicts_are_words_of_one_enum():
    assert v.VERDICTS == tuple(ValidationVerdict) == ("pass", "fail", "not converged", "error")
    assert json.dumps([v.PASS, sbc_module.NOT_CONVERGED]) == '["pass", "not converged"]'
    assert isinstance(sbc_module.NOT_CONVERGED, ValidationVerdict)


def test_sampler_that_raises_midway_keeps_finished_replications(tmp_path, capsys):
    code = cli.main(
        ["validate", "regression", "--method", "sbc", "--scheduler", SYNCHRONOUS,
         "--sampler", M + "regression_raises_midway", "--replications", "30",
         "--out", str(tmp_path)]
    )  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == cli.EXIT_USAGE
    assert "FloatingPointError" in err and "finished replications are in" in err
    doc = json.loads((tmp_path / "regression_sbc.json").read_text())
    assert doc["verdict"] == v.ERROR
    assert 0 < len(doc["replications"]) < 30
    assert "FloatingPointError" in doc["error"]


def test_sampler_with_wrong_output_is_reported():
    with pytest.raises(v.ValidationError, match="did not return variable"):
        v.validate(
            get_pair("regression"), M + "bivariate_wrong_name", method="sbc",
            scheduler=SYNCHRONOUS, replications=2,
        )  # fmt: skip


def test_progress_is_reported_as_events():
    events = []
    v.validate(
        get_pair("regression"),
        "mcmc_pairs.handrolled.regression:sample_blocked",
        method="sbc",
        scheduler=SYNCHRONOUS,
        progress=events.append,
        replications=16,
        draws=100,
        tune=20,
        seed=1,
    )
    assert all(isinstance(e, v.ValidationEvent) for e in events)
    assert [(e.pair, e.method, e.total) for e in events] == [("regression", "sbc", 16)] * len(
        events
    )
    assert [e.done for e in events] == sorted(e.done for e in events) and events[-1].done == 16
    assert str(events[-1]) == "[regression sbc] 16/16 replications"
