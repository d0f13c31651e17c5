"""``make power`` (scripts/power.py, scripts/planted.py) at tiny sizes.

The full study takes an hour; here the planted shifts are checked on plain NumPy
draws (no sampler run), the table is rendered from a fake document, one
(pair, seed) task runs end to end with a one-point grid, and the zoo section runs
on a stand-in registry (``examples/eight_schools``) in this process: end to end,
interrupted and resumed from its journal.
"""

import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from mcmc_pairs.comparisons.registry import PAIRS

ROOT = Path(__file__).resolve().parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


planted = _load("planted")
power = _load("power")


def _gaussian(chains=4, draws=20_000, rho=0.5, seed=0):
    rng = np.random.default_rng(seed)
    cov = [[1.0, 2 * rho], [2 * rho, 4.0]]
    x = rng.multivariate_normal([5.0, -1.0], cov, size=(chains, draws))
    return {"x": x}


def test_clopper_pearson_matches_closed_forms():
    assert power.clopper_pearson(0, 10)[1] == pytest.approx(1 - 0.025 ** (1 / 10))
    assert power.clopper_pearson(10, 10)[0] == pytest.approx(0.025 ** (1 / 10))
    low, high = power.clopper_pearson(3, 20)
    assert stats.binom.sf(2, 20, low) == pytest.approx(0.025)  # P(X >= 3 | low)
    assert stats.binom.cdf(3, 20, high) == pytest.approx(0.025)


def test_every_pair_has_a_plan():
    assert all(pair.planted is not None for pair in PAIRS)


def test_planted_mean_moves_the_first_component_by_s_sd():
    rng = np.random.default_rng(1)
    before = _gaussian()
    after = planted.plant(_gaussian(), "bivariate_normal", "mean", 0.3, rng, {"x[0]": (5.0, 1.0)})
    shift = after["x"][..., 0] - before["x"][..., 0]
    np.testing.assert_allclose(shift, 0.3)  # exact sd 1: 0.3 sd
    np.testing.assert_array_equal(after["x"][..., 1], before["x"][..., 1])


def _lda_draws(rng, chains=4, draws=500):
    """LDA-shaped draws whose chains label the same three topics differently (rolled by c)."""
    phi = rng.dirichlet(np.full(6, 0.3), size=3)  # (K, V)
    theta_mean = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])  # (D, K)
    phis, thetas = [], []
    for c in range(chains):
        perm = np.roll(np.arange(3), c)
        phis.append(np.broadcast_to(phi[perm], (draws, 3, 6)))
        rows = [rng.dirichlet(200 * row[perm], size=draws) for row in theta_mean]
        thetas.append(np.stack(rows, axis=1))
    return {"theta": np.stack(thetas), "phi": np.stack(phis)}  # (chain, draw, D, K), (.., K, V)


def test_lda_plant_lands_on_one_topic_whatever_each_chain_calls_it():
    rng = np.random.default_rng(3)
    draws = _lda_draws(rng)
    before = planted.align_chains({k: v.copy() for k, v in draws.items()}, "lda")
    # aligned: every chain's topic 0 is chain 0's topic 0
    np.testing.assert_allclose(before["phi"][:, 0], before["phi"][0:1, 0].repeat(4, 0))
    after = planted.plant({k: v.copy() for k, v in draws.items()}, "lda", "mean", 0.5, rng)
    np.testing.assert_allclose(after["theta"].sum(-1), 1.0)
    assert (after["theta"] >= 0).all()
    moved = after["theta"][..., 0, 0].mean(axis=1) - before["theta"][..., 0, 0].mean(axis=1)
    sd = before["theta"][..., 0, 0].std()
    np.testing.assert_allclose(moved, 0.5 * sd, rtol=0.05)  # the same shift in every chain
    np.testing.assert_array_equal(after["theta"][..., 1, :], before["theta"][..., 1, :])
    shrunk = planted.plant({k: v.copy() for k, v in draws.items()}, "lda", "sd", 0.3, rng)
    np.testing.assert_allclose(shrunk["theta"].sum(-1), 1.0)
    assert (shrunk["theta"] >= 0).all()
    assert shrunk["theta"][..., 0, 0].std() == pytest.approx(0.7 * sd, rel=0.01)


def test_planted_sd_scales_deviations_by_one_plus_s():
    before = _gaussian()
    after = planted.plant(_gaussian(), "bivariate_normal", "sd", 0.2, None, {})
    u, w = before["x"][..., 0], after["x"][..., 0]
    assert w.std() == pytest.approx(1.2 * u.std())
    assert w.mean() == pytest.approx(u.mean())


def test_planted_corr_moves_the_correlation_and_keeps_the_second_marginal():
    before = _gaussian()
    after = planted.plant(_gaussian(), "bivariate_normal", "corr", 0.2, None, {})
    v, w = before["x"][..., 1].ravel(), after["x"][..., 1].ravel()
    assert w.mean() == pytest.approx(v.mean()) and w.std() == pytest.approx(v.std())
    assert stats.ks_2samp(v, w).pvalue > 1e-3  # still normal with the same moments
    rho = np.corrcoef(before["x"][..., 0].ravel(), v)[0, 1]
    new = np.corrcoef(after["x"][..., 0].ravel(), w)[0, 1]
    assert new == pytest.approx(rho - 0.2)
    a, b = planted.mix_coefficients(-0.99, -0.9)
    assert a**2 + b**2 + 2 * a * b * -0.99 == pytest.approx(1.0)
    assert a * -0.99 + b == pytest.approx(-0.9)


def test_planted_shifts_keep_the_support():
    rng = np.random.default_rng(2)
    beta = {"x": rng.beta(2.31, 0.627, size=(4, 5000))}
    mean, sd = beta["x"].mean(), beta["x"].std()
    moved = planted.plant({"x": beta["x"].copy()}, "mh_beta", "mean", 0.3, rng, {})
    assert ((moved["x"] > 0) & (moved["x"] < 1)).all()
    assert moved["x"].mean() == pytest.approx(mean - 0.3 * sd, abs=0.01 * sd)
    shrunk = planted.plant({"x": beta["x"].copy()}, "mh_beta", "sd", 0.3, rng, {})
    assert ((shrunk["x"] > 0) & (shrunk["x"] < 1)).all()
    nodes = {
        k: (rng.random((4, 20_000)) < p).astype(np.int64)
        for k, p in zip("BCD", (0.7, 0.9, 0.5), strict=True)
    }
    b_mean, b_sd = nodes["B"].mean(), nodes["B"].std()
    flipped = planted.plant({k: v.copy() for k, v in nodes.items()}, "bayes_net", "mean", 0.2, rng)
    assert set(np.unique(flipped["B"])) <= {0, 1} and flipped["B"].dtype == np.int64
    assert flipped["B"].mean() == pytest.approx(b_mean - 0.2 * b_sd, abs=0.01)
    copied = planted.plant({k: v.copy() for k, v in nodes.items()}, "bayes_net", "corr", 0.2, rng)
    corr = np.corrcoef(copied["B"].ravel(), copied["C"].ravel())[0, 1]
    assert corr == pytest.approx(
        np.corrcoef(nodes["B"].ravel(), nodes["C"].ravel())[0, 1] + 0.2, abs=0.02
    )
    with pytest.raises(ValueError, match="no sd shift"):
        planted.plant(nodes, "bayes_net", "sd", 0.1, rng)


def test_planted_wraps_a_sampler_with_the_contracts_signature():
    def sample(data, *, draws, tune, chains, random_seed):
        return _gaussian(chains, draws, seed=random_seed)

    wrapped = planted.planted(sample, "bivariate_normal", "mean", 0.5, {"x[0]": (5.0, 1.0)})
    out = wrapped({}, draws=100, tune=0, chains=2, random_seed=3)
    np.testing.assert_allclose(out["x"][..., 0] - _gaussian(2, 100, seed=3)["x"][..., 0], 0.5)
    assert wrapped({}, draws=1, tune=0, chains=1, random_seed=0)["x"].shape == (1, 1, 2)


def _fake_doc():
    def rec(group, sampler, verdict, seed, kind=None, s=None, pair="bivariate_normal"):
        return {"check": "compare", "group": group, "pair": pair, "sampler": sampler,
                "kind": kind, "s": s, "seed": seed, "verdict": verdict, "looks": 1}  # fmt: skip

    records = [rec("correct", "gibbs", "agree", k) for k in range(19)]
    records.append(rec("correct", "gibbs", "inconclusive", 19))
    records += [rec("wrong", "independent_marginals", "disagree", k) for k in range(20)]
    for s, hits in ((0.1, 10), (0.2, 19)):
        records += [
            rec("planted", "sample+mean", "disagree" if k < hits else "agree", k, "mean", s)
            for k in range(20)
        ]
    records.append(
        {
            "check": "sbc",
            "group": "correct",
            "pair": "regression",
            "sampler": "gibbs",
            "seed": 0,
            "verdict": "pass",
            "alarm": False,
        }  # fmt: skip
    )
    return {
        "command": "python scripts/power.py", "alpha": 0.01, "tolerance": 0.2,
        "budget_factor": 16, "sizes": power.SIZES, "workers": 2, "total_s": 60.0,
        "seeds": {"seeds": 20, "seeds_lda": 0, "seeds_planted": 20, "seeds_wrong": 20,
                  "seeds_validate": 1, "seeds_validate_lda": 0, "seeds_twin": 0},
        "records": records,
    }  # fmt: skip


def test_render_counts_alarms_undecided_and_sensitivity():
    table = power.render(_fake_doc())
    assert "| bivariate_normal | `gibbs` | 20 | 0 | 1 | 0 | 19 | 0.000–0.168 | 1.00 |" in table
    assert "| bivariate_normal | mean (add) | x[0] | 0.2 | 10/20 | 19/20 |" in table
    assert "| bivariate_normal | corr (mix) | x[0], x[1] | – | – | – |" in table
    assert (
        "| bivariate_normal | `independent_marginals` | 20/20 | 20/20 | 0.832 | n/a | n/a |"
        in table
    )
    assert "| regression | `gibbs` | n/a | 0/1 |" in table


def test_one_task_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setattr(power, "GRID", (0.5,))
    argv = ["--pairs", "bivariate_normal", "--seeds", "1", "--seeds-wrong", "0"]
    argv += ["--sections", "pairs", "--scheduler", "synchronous"]
    assert power.main([*argv, "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "power.json").read_text())
    verdicts = {r["sampler"]: r["verdict"] for r in doc["records"]}
    assert verdicts["gibbs"] == "agree"
    assert verdicts["sample+mean"] == verdicts["sample+corr"] == "disagree"
    assert len(doc["records"]) == 4  # the correct sampler and three planted shifts, one PyMC run
    assert "## Sensitivity" in (tmp_path / "power.md").read_text()


EIGHT_SCHOOLS = ROOT / "examples" / "eight_schools"


@dataclass(frozen=True)
class StandIn:
    """A zoo model (``zoo.ZooModel``'s interface) that is the eight-schools example."""

    name: str = "eight_schools"
    shape: str = "hierarchical normal | stand-in"
    bug: str = "tau2's conditional without the 1/2"
    sbc: bool = True
    data_file: str = "data.json"

    @property
    def model(self) -> str:
        return f"{EIGHT_SCHOOLS / 'model.py'}:build_model"

    @property
    def data(self) -> Path:
        return EIGHT_SCHOOLS / self.data_file

    def sampler(self, planted_bug: bool = False) -> str:
        function = "sample_planted_bug" if planted_bug else "sample"
        return f"{EIGHT_SCHOOLS / 'sampler.py'}:{function}"


ZOO_ARGV = ["--sections", "zoo", "--zoo-seeds", "2", "--zoo-sbc-seeds", "1"]
ZOO_ARGV += ["--scheduler", "synchronous"]


@pytest.fixture(scope="module")
def stand_in_zoo():
    """``zoo.MODELS`` replaced by the stand-in; SBC at 20 replications."""
    import zoo

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(zoo, "MODELS", (StandIn(),))
        mp.setitem(power.SIZES, "sbc", {**power.SIZES["sbc"], "replications": 20})
        yield


def _records(out: Path) -> list[dict]:
    """The records of ``out/power.json`` without their timings."""
    doc = json.loads((out / "power.json").read_text())
    return [{k: v for k, v in r.items() if k != "seconds"} for r in doc["records"]]


@pytest.fixture(scope="module")
def zoo_study(stand_in_zoo, tmp_path_factory):
    """One uninterrupted zoo study: two compare seeds and one SBC seed (3 tasks)."""
    out = tmp_path_factory.mktemp("zoo")
    assert power.main([*ZOO_ARGV, "--out", str(out)]) == 0
    return out


def test_zoo_section_compares_the_correct_sampler_and_the_planted_bug(zoo_study):
    records = _records(zoo_study)
    verdicts = [(r["check"], r["group"], r["sampler"], r["seed"], r["verdict"]) for r in records]
    assert verdicts == [
        ("compare", "correct", "sample", 1000, "agree"),
        ("compare", "bug", "sample_planted_bug", 1000, "disagree"),
        ("compare", "correct", "sample", 1001, "agree"),
        ("compare", "bug", "sample_planted_bug", 1001, "disagree"),
        ("sbc", "correct", "sample", 1000, "pass"),
    ]
    assert {r["section"] for r in records} == {"zoo"} and {r["pair"] for r in records} == {
        "eight_schools"
    }
    page = (zoo_study / "power.md").read_text()
    assert "## The calibration zoo" in page and "## The registered pairs" not in page
    row = "| eight_schools | hierarchical normal \\| stand-in | 2 | 0 | 0.0 % (0.0–84.2 %) | 0/2 |"
    assert row in page
    assert "| eight_schools | tau2's conditional without the 1/2 | 2 | 2 | 100.0 % " in page
    assert "| eight_schools | 1 | 0 | 0 | 1 | 0.0 % (0.0–97.5 %) |" in page
    journal = (zoo_study / "power_journal.jsonl").read_text().splitlines()
    assert len(journal) == 3  # one line per task
    assert json.loads(journal[0])["task"]["function"] == "zoo_task"


def test_an_interrupted_study_resumes_to_the_same_records(
    zoo_study, stand_in_zoo, tmp_path, monkeypatch
):
    real, calls = power.run_task, []

    def interrupted(function, args, deadline=None):
        calls.append(function)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the study stopped during its second task
        return real(function, args, deadline)

    monkeypatch.setattr(power, "run_task", interrupted)
    with pytest.raises(KeyboardInterrupt):
        power.main([*ZOO_ARGV, "--out", str(tmp_path)])
    journal = tmp_path / "power_journal.jsonl"
    assert len(journal.read_text().splitlines()) == 1 and not (tmp_path / "power.json").exists()

    def counted(function, args, deadline=None):
        calls.append(function)
        return real(function, args, deadline)

    calls.clear()
    monkeypatch.setattr(power, "run_task", counted)
    assert power.main([*ZOO_ARGV, "--out", str(tmp_path)]) == 0
    assert calls == ["zoo_task", "zoo_sbc_task"]  # the finished task was not rerun
    assert _records(tmp_path) == _records(zoo_study)
    doc = json.loads((tmp_path / "power.json").read_text())
    assert (doc["tasks"], doc["finished"], doc["from_journal"]) == (3, 3, 1)

    # the journal's lines in another order, one cut short by a crash: the same records,
    # and nothing reruns (no task starts after a deadline of 0 minutes)
    lines = (zoo_study / "power_journal.jsonl").read_text().splitlines()
    other = tmp_path / "reordered"
    other.mkdir()
    (other / "power_journal.jsonl").write_text("\n".join(lines[::-1]) + "\n" + lines[0][:50])
    calls.clear()
    assert power.main([*ZOO_ARGV, "--out", str(other), "--max-minutes", "0"]) == 0
    assert calls == [] and _records(other) == _records(zoo_study)
    assert (other / "power_journal.jsonl").read_text().endswith("\n")

    # --fresh starts over; with a deadline already past nothing runs and nothing is counted
    assert power.main([*ZOO_ARGV, "--out", str(other), "--max-minutes", "0", "--fresh"]) == 0
    assert calls == [] and _records(other) == [] and not (other / "power_journal.jsonl").exists()
    assert (
        "| eight_schools | hierarchical normal \\| stand-in | 0 | 0 | – |"
        in (other / "power.md").read_text()
    )


def test_a_changed_setting_or_model_file_reruns_the_task(stand_in_zoo, monkeypatch, tmp_path):
    args = power.parse(ZOO_ARGV)
    args.zoo_models = power.zoo_models()
    before = {t.key for t in power.tasks(args)}
    monkeypatch.setattr(power, "ZOO_RUN", {"draws": 500})
    after = {t.key: t.function for t in power.tasks(args)}
    assert {f for k, f in after.items() if k not in before} == {"zoo_task"}  # SBC keeps its keys
    assert len(set(after) - before) == 2
    monkeypatch.setattr(power, "ZOO_RUN", {})
    assert {t.key for t in power.tasks(args)} == before
    copy = tmp_path / "data.json"
    copy.write_text(EIGHT_SCHOOLS.joinpath("data.json").read_text().replace("28", "29"))

    class Edited(StandIn):
        @property
        def data(self) -> Path:
            return copy

    args.zoo_models = [Edited()]
    assert {t.key for t in power.tasks(args)}.isdisjoint(before)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler 'tcp://127.0.0.1:1': cannot connect"),
        (["--scheduler", " "], "argument --scheduler"),
        (["--workers", "0"], "argument --workers: must be 1 or more"),
        (["--zoo-seeds", "-1"], "argument --zoo-seeds: must be 0 or more"),
        (["--zoo-models", "nope"], "--zoo-models: no zoo model 'nope'"),
        (["--zoo-seeds", "nope=3"], "--zoo-seeds: no zoo model 'nope'"),
        (["--zoo-seeds", "=3"], "argument --zoo-seeds: expected N or NAME=N, got '=3'"),
        (["--zoo-seeds", "1", "2"], "argument --zoo-seeds: one default count, got 2"),
        (["--sections", "everything"], "argument --sections: invalid choice"),
        (["--journal", "TMP"], "is not a file"),
    ],
)
def test_bad_input_exits_2_with_one_line(stand_in_zoo, tmp_path, capsys, monkeypatch, argv, words):
    from mcmc_pairs.comparisons import execution

    monkeypatch.setattr(execution, "CONNECT_TIMEOUT_S", 1)  # nothing listens on port 1
    argv = [a.replace("TMP", str(tmp_path)) for a in argv]
    assert power.main(["--sections", "zoo", "--zoo-seeds", "1", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("power.py: error: ") and words in err
    assert not any(tmp_path.iterdir())  # nothing written, no journal touched


def test_zoo_seeds_per_model(stand_in_zoo):
    args = power.parse(["--sections", "zoo", "--zoo-seeds", "3", "eight_schools=5"])
    args.zoo_models = power.zoo_models()
    seeds = [t.args[-2] for t in power.zoo_tasks(args) if t.function == "zoo_task"]
    assert seeds == list(range(power.FIRST_SEED, power.FIRST_SEED + 5))
    assert power.parse(["--zoo-seeds", "eight_schools=5"]).zoo_seeds == 100


def test_zoo_targets_in_words():
    assert power.at_most(0, 370, 0.01) == "met (shown: interval below)"
    assert power.at_most(0, 100, 0.01).startswith("met (point estimate")
    assert power.at_most(3, 100, 0.01).startswith("**point estimate above**")
    assert power.at_most(10, 100, 0.01) == "**missed**"
    assert power.at_least(100, 100, 0.95) == "met (shown: interval above)"
    assert power.at_least(96, 100, 0.95).startswith("met (point estimate")
    assert power.at_least(93, 100, 0.95).startswith("**point estimate below**")
    assert power.at_least(80, 100, 0.95) == "**missed**"
    assert power.at_most(0, 0, 0.01) == power.at_least(0, 0, 0.95) == "–"


def test_render_zoo_counts_verdicts_per_model():
    def rec(check, group, model, verdict, seed):
        return {"check": check, "section": "zoo", "group": group, "pair": model,
                "sampler": "s", "kind": None, "s": None, "seed": seed, "verdict": verdict,
                "looks": 2, "alarm": verdict != "pass"}  # fmt: skip

    verdicts = ["agree"] * 97 + ["disagree", "inconclusive", "not converged"]
    records = [rec("compare", "correct", "counts", x, k) for k, x in enumerate(verdicts)]
    records += [rec("compare", "bug", "counts", "disagree", k) for k in range(99)]
    records += [rec("compare", "bug", "counts", "inconclusive", 99)]
    records += [rec("sbc", "correct", "counts", x, k) for k, x in enumerate(["pass", "fail"])]
    records += [rec("compare", "correct", "boundary", "agree", 0)]
    models = [
        {"name": "counts", "shape": "Poisson", "bug": "rate 0.3 sd high", "sbc": True},
        {"name": "boundary", "shape": "p near 1", "bug": "b", "sbc": False},
    ]
    doc = {**_fake_doc(), "sections": ["zoo"], "records": records, "zoo": models}
    doc["seeds"] = {**doc["seeds"], "zoo_seeds": 100, "zoo_sbc_seeds": 2}
    page = power.render(doc)
    assert "## The registered pairs" not in page
    assert (
        "| counts | Poisson | 100 | 1 | 1.0 % (0.0–5.4 %) | 1/100 | 1/100 | 97/100 | 2.00 | "
        "met (point estimate; interval includes it) |" in page
    )
    assert "| counts | rate 0.3 sd high | 100 | 99 | 99.0 % (94.6–100.0 %) | 100/100 |" in page
    assert "| counts | 2 | 1 | 0 | 1 | 50.0 % (1.3–98.7 %) |" in page
    assert "| boundary | n/a | | | | |" in page
    assert "- boundary: false alarms 1/1" not in page and "- boundary: false alarms 0/1" in page


@pytest.mark.slow
def test_worker_processes_give_the_records_of_one_process(zoo_study, stand_in_zoo, tmp_path):
    """The zoo study on a LocalCluster of two worker processes: the same records, in order."""
    argv = [*ZOO_ARGV[: ZOO_ARGV.index("--scheduler")], "--workers", "2"]
    assert power.main([*argv, "--out", str(tmp_path)]) == 0
    assert _records(tmp_path) == _records(zoo_study)
    doc = json.loads((tmp_path / "power.json").read_text())
    assert doc["scheduler"] == "LocalCluster of 2 processes"
