"""``make power`` (scripts/power.py) runs at tiny sizes and counts what it should.

The full study takes half an hour; here one pair without a prior (so only
``compare`` applies), two seeds: the correct sampler raises no alarm, both wrong
ones are caught, and one PyMC run per seed serves all three samplers.
"""

import importlib.util
import json
from pathlib import Path

import pytest
from scipy import stats

from comparisons.registry import PAIRS

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("power", ROOT / "scripts" / "power.py")
power = importlib.util.module_from_spec(spec)
spec.loader.exec_module(power)


def test_clopper_pearson_matches_closed_forms():
    assert power.clopper_pearson(0, 10)[1] == pytest.approx(1 - 0.025 ** (1 / 10))
    assert power.clopper_pearson(10, 10)[0] == pytest.approx(0.025 ** (1 / 10))
    low, high = power.clopper_pearson(3, 20)
    assert stats.binom.sf(2, 20, low) == pytest.approx(0.025)  # P(X >= 3 | low)
    assert stats.binom.cdf(3, 20, high) == pytest.approx(0.025)


def test_every_sampler_a_pair_declares_has_a_job_grouped_by_pair():
    names = [pair.name for pair in PAIRS]
    jobs = power.jobs(names, 3, 2, 1)
    declared = {s for pair in PAIRS for s in (*pair.handrolled.values(), *pair.wrong.values())}
    assert {j[2] for j in jobs} == declared | {"pymc"}
    assert [j[1] for j in jobs if j[2] == "pymc"] == list(power.TWIN_SBC)
    pairs = [j[1] for j in jobs]
    assert pairs == sorted(pairs, key=names.index)  # one block per pair


def test_power_on_one_pair(tmp_path, monkeypatch):
    calls = []
    original = power.run.run_pair

    def counting(pair, **kwargs):
        calls.append(kwargs["pymc_from"] is None)
        return original(pair, **kwargs)

    monkeypatch.setattr(power.run, "run_pair", counting)
    argv = ["--pairs", "bivariate_normal", "--seeds-correct", "2", "--seeds-wrong", "2"]
    argv += ["--seeds-twin", "1"]  # bivariate_normal has no prior: no twin row
    assert power.main([*argv, "--scheduler", "synchronous", "--out", str(tmp_path)]) == 0
    rows = {r["sampler"]: r for r in json.loads((tmp_path / "power.json").read_text())["rows"]}
    assert rows["handrolled.bivariate_normal:sample"]["compare"] == 0
    for wrong in ("bivariate_gibbs_without_shrinkage", "bivariate_independent_marginals"):
        assert rows[wrong]["compare"] == 2
        assert rows[wrong]["any"] == 2
        assert rows[wrong]["geweke"] is None  # no prior: n/a
    assert sum(calls) == 2  # PyMC compiled and sampled once per seed
    table = (tmp_path / "power.md").read_text()
    assert (
        "| bivariate_normal | `bivariate_gibbs_without_shrinkage` | 2/2 | n/a | n/a | 2/2 |"
        in table
    )
