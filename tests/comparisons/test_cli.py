"""End to end through the command line: exit codes, one-line errors, JSON and HTML."""

import json
import os
import sys

import pytest

from mcmc_pairs.comparisons import cli
from mcmc_pairs.comparisons.kinds import HONESTY_KINDS

WRONG = "mcmc_pairs.handrolled.wrong_samplers"
MALFORMED = "tests/malformed_samplers.py"


@pytest.fixture(scope="module")
def agreed(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.delenv("MCMC_PAIRS_FIGURES", raising=False)  # the page as a user gets it
        code = cli.main(["compare", "bivariate_normal", "--out", str(out)])
    return code, out


def test_compare_bivariate_normal_agrees(agreed):
    code, out = agreed
    assert code == 0
    document = json.loads((out / "bivariate_normal.json").read_text())
    assert document["verdict"] == "agree"
    assert document["pair"] == "bivariate_normal"
    assert document["settings"] == {
        "draws": 1000,
        "tune": 1000,
        "chains": 4,
        "seed": 20261122,
        "tolerance": 0.2,
        "max_draws": 16000,
        "max_seconds": None,
        "timeout": None,
    }
    assert [look["draws"] for look in document["looks"]] == [1000]
    assert document["resolution"]["tolerance"]["mean"] == 0.2
    certified = [c for c in document["checks"] if c["equivalent"] is not None]
    assert certified and all(c["equivalent"] for c in certified)
    assert all(c["resolution"] < c["tolerance"] for c in certified)
    assert {"handrolled:gibbs", "pymc"} == set(document["timings"])


def test_json_checks_follow_the_design(agreed):
    _, out = agreed
    checks = json.loads((out / "bivariate_normal.json").read_text())["checks"]
    assert checks and all(
        {"quantity", "statistic", "value", "threshold", "passed"} <= set(c) for c in checks
    )
    kinds = {c["kind"] for c in checks}
    assert kinds == {"agreement", "exact", "multivariate", "diagnostic", "support"} | set(
        HONESTY_KINDS
    )
    quantities = {c["quantity"] for c in checks}
    assert {"x[0]", "x[1]", "x[0]*x[1]", "logp"} <= quantities


def test_html_is_self_contained(agreed):
    _, out = agreed
    page = (out / "bivariate_normal.html").read_text()
    assert "Verdict: agree" in page
    assert page.count("data:image/png;base64,") >= 2
    assert "http://" not in page and "https://" not in page
    assert not list(out.glob(".*.tmp"))


def test_wrong_sampler_is_caught_with_exit_1(tmp_path, capsys):
    code = cli.main(
        [
            "compare",
            "bivariate_normal",
            "--sampler",
            f"{WRONG}:bivariate_gibbs_without_shrinkage",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 1
    captured = capsys.readouterr()
    assert "verdict: disagree" in captured.out
    # A summary by kind and the worst ten checks in words, not hundreds of rows.
    lines = captured.out.splitlines()
    assert any(line.startswith("  by kind: agreement ") for line in lines)
    worst = [line for line in lines if line.startswith("    FAILED: ") or "passed: " in line]
    assert 1 <= len(worst) <= 10 and worst[0].startswith("    FAILED: ")
    assert "against its Holm threshold" in worst[0] and "p = " in worst[0]
    # PyMC's own log lines are kept out; its step methods are named once, by the run.
    assert "Sequential sampling" not in captured.err and "Multiprocess" not in captured.err
    named = [line for line in captured.err.splitlines() if "pymc: done in" in line]
    assert sum("(NUTS" in line for line in named) == 1
    document = json.loads((tmp_path / "bivariate_normal.json").read_text())
    assert document["verdict"] == "disagree"
    assert any(not c["passed"] and c["kind"] == "agreement" for c in document["checks"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module:sample", "does not import"),
        ("tests/no_such_file.py:sample", "does not exist"),
        (f"{MALFORMED}:no_such_function", "has no callable named 'no_such_function'"),
        ("just-a-name", "must look like package.module:function"),
        (f"{MALFORMED}:bivariate_wrong_name", "did not return variable(s) ['x']"),
        (f"{MALFORMED}:bivariate_wrong_shape", "expected (4, 1000, 2)"),
        (f"{MALFORMED}:bivariate_raises", "raised RuntimeError: step size became negative"),
        (f"{MALFORMED}:bivariate_exits", "bivariate_exits raised SystemExit: 0"),
        (f"{MALFORMED}:bivariate_object_dtype", "returned x of dtype object"),
        (f"{MALFORMED}:bivariate_complex", "returned x of dtype complex128"),
        (f"{MALFORMED}:bivariate_strings", "returned x of dtype <U3"),
        ("pymc-step:tests/no_such_file.py:Step", "does not exist"),
        ("pymc-step:mcmc_pairs.comparisons.pair:Pair", "Pair is a class but not a PyMC step"),
        (f"pymc-step:{MALFORMED}:bivariate_raises", "bivariate_raises raised TypeError"),
    ],
)
def test_bad_sampler_exits_2_with_one_line(spec, message, tmp_path, capsys):
    code = cli.main(["compare", "bivariate_normal", "--sampler", spec, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    lines = [ln for ln in err.splitlines() if ln.startswith("mcmc-pairs: error:")]
    assert len(lines) == 1 and message in lines[0]
    assert "Traceback" not in err
    assert not any(tmp_path.iterdir()), "nothing is written when a run fails"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "no_such_pair"], "unknown pair 'no_such_pair'"),
        (["compare", "bivariate_normal", "--draws", "0"], "draws must be an integer >= 1"),
        (["compare", "bivariate_normal", "--chains", "1"], "chains must be >= 2"),
        (["compare", "bivariate_normal", "--seed", "-1"], "seed must be an integer >= 0"),
        (["compare", "bivariate_normal", "--tune", "ten"], "argument --tune"),
        (["frobnicate"], "invalid choice"),
        ([], "the following arguments are required"),
    ],
)
def test_usage_errors_exit_2_with_one_line(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_a_bad_figures_switch_exits_2_with_one_line_before_any_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MCMC_PAIRS_FIGURES", "no")
    assert cli.main(["compare", "bivariate_normal", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mcmc-pairs: error: $MCMC_PAIRS_FIGURES='no': expected 'on' or 'off'"]
    assert not any(tmp_path.iterdir())


def test_list_names_every_registered_pair(capsys):
    from mcmc_pairs.comparisons.registry import PAIRS

    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(p.name in out for p in PAIRS)


def test_console_script_is_installed():
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "mcmc-pairs"
    assert script.exists() or shutil.which("mcmc-pairs")
    result = subprocess.run(
        [str(script), "compare", "bivariate_normal", "--draws", "-1"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "mcmc-pairs: error: draws must be an integer >= 1, got -1"


def test_validate_sampler_pymc_runs_the_twin(tmp_path, capsys):
    code = cli.main(
        ["validate", "bayes_net", "--sampler", "pymc", "--method", "sbc",
         "--scheduler", "synchronous", "--replications", "20",
         "--seed", "5", "--out", str(tmp_path)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr()
    document = json.loads((tmp_path / "bayes_net_sbc.json").read_text())
    assert document["sampler"] == "pymc twin of bayes_net (BinaryGibbsMetropolis)"
    assert document["verdict"] == "pass" and len(document["replications"]) == 20
    assert (
        "pymc twin of bayes_net (BinaryGibbsMetropolis)"
        in (tmp_path / "bayes_net_sbc.html").read_text()
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mh_normal", "--method", "sbc"], "pair 'mh_normal' samples a fixed target"),
        (["regression", "--method", "geweke"], "--sampler pymc runs with --method sbc only"),
    ],
)
def test_validate_sampler_pymc_bad_input_exits_2_with_one_line(argv, message, tmp_path, capsys):
    code = cli.main(["validate", *argv, "--sampler", "pymc", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and message in err[0]
    assert not any(tmp_path.iterdir())


WRONG_OUTPUTS = "tests/comparisons/wrong_outputs.py"


@pytest.mark.parametrize("name", ["nan_draws", "inf_draws"])
def test_non_finite_draws_get_a_disagree_verdict_and_a_report(name, tmp_path, capsys):
    spec = f"{WRONG_OUTPUTS}:{name}"
    code = cli.main(["compare", "bivariate_normal", "--sampler", spec, "--out", str(tmp_path)])
    assert code == 1
    document = json.loads((tmp_path / "bivariate_normal.json").read_text())
    assert document["verdict"] == "disagree"
    support = [c for c in document["checks"] if c["kind"] == "support" and not c["passed"]]
    assert support and all(c["side"] == "user" for c in support)
    assert "Verdict: disagree" in (tmp_path / "bivariate_normal.html").read_text()


def test_a_sampler_that_writes_into_its_data_changes_nothing_else(tmp_path):
    spec = f"{WRONG_OUTPUTS}:mutates_its_data"
    code = cli.main(["compare", "bivariate_normal", "--sampler", spec, "--out", str(tmp_path)])
    assert code == 0  # PyMC and the exact answer saw the data as it was


def test_an_output_directory_that_cannot_be_written_fails_before_any_sampling(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = cli.main(["compare", "lda", "--out", str(blocker / "reports")])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.splitlines() == [
        f"mcmc-pairs: error: --out '{blocker / 'reports'}' cannot be written: Not a directory"
    ]


def test_a_sampler_that_hangs_is_stopped_by_the_timeout(tmp_path, capsys):
    import time

    spec = f"{MALFORMED}:bivariate_hangs"
    start = time.perf_counter()
    code = cli.main(
        ["compare", "bivariate_normal", "--sampler", spec, "--timeout", "1", "--out", str(tmp_path)]
    )
    assert time.perf_counter() - start < 30
    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        f"mcmc-pairs: error: sampler {spec} did not finish within 1 s (--timeout); it was stopped"
    )
    assert not any(tmp_path.iterdir())


def test_under_a_timeout_a_resumable_sampler_keeps_its_state_and_its_draws(tmp_path):
    from mcmc_pairs.comparisons.registry import get_pair
    from mcmc_pairs.comparisons.run import resolve_settings, run_pair

    pair = get_pair("bivariate_normal")
    settings = resolve_settings(pair, draws=100, tune=50, chains=2, seed=5, max_draws=200)
    settings = settings.replace(tolerance=1e-3)  # a run that grows: it resumes
    plain = run_pair(pair, settings, progress=lambda e: None)
    timed = run_pair(pair, settings.replace(timeout=60), progress=lambda e: None)
    assert [look["draws"] for look in timed.looks] == [100, 200]
    for label in ("handrolled:gibbs",):
        a = plain.sides[label].tree["posterior"]["x"].values
        b = timed.sides[label].tree["posterior"]["x"].values
        assert (a == b).all()


def test_a_background_report_worker_yields_the_cpu_once_niced():
    """report's short pairs run niced (BACKGROUND_NICE), twice niced is still that."""
    import subprocess

    code = (
        "import os; from comparisons import cli; cli._lower_priority(); cli._lower_priority(); "
        "print(os.getpriority(os.PRIO_PROCESS, 0))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == max(cli.BACKGROUND_NICE, os.getpriority(os.PRIO_PROCESS, 0))


def test_a_reader_that_leaves_the_pipe_gets_no_traceback():
    import subprocess
    import sys

    # stdout is a pipe whose reader has gone: the first write fails with EPIPE
    code = (
        "import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1)\n"
        "from mcmc_pairs.comparisons.cli import main; sys.exit(main(['list']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (141, "")


def test_validate_refuses_geweke_for_a_step_method_with_one_line(tmp_path, capsys):
    folder = "examples/conjugate_step"
    argv = ["validate", "--model", f"{folder}/model.py:build_model"]
    argv += ["--data", f"{folder}/data.json", "--method", "geweke", "--out", str(tmp_path)]
    assert cli.main([*argv, "--sampler", f"pymc-step:{folder}/step.py:ConjugateGibbs"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "runs with --method sbc only, not 'geweke'" in err[0]
    assert not any(tmp_path.iterdir())


def test_a_report_worker_that_dies_costs_a_rerun_not_every_pair(tmp_path, capsys):
    """Issue 39: one worker killed turned all six pairs into ``error``, with nothing said.

    The pairs lost with the broken pool run again in a fresh one, after one line on
    stderr; a pair whose worker dies twice is an ``error`` alone, with its line.
    """
    import argparse

    from mcmc_pairs.comparisons.registry import PAIRS
    from tests.comparisons import dying_worker

    pairs = list(PAIRS)
    args = argparse.Namespace(out=str(tmp_path), victims={pairs[0].name})
    done = cli.report_in_workers(pairs, args, workers=2, run=dying_worker.report_pair)
    captured = capsys.readouterr()
    assert [done[i][0]["verdict"] for i in range(len(pairs))] == ["agree"] * len(pairs)
    assert captured.err.count("a report worker died") == 1 and pairs[0].name in captured.err
    assert sorted(captured.out.splitlines()) == sorted(f"{p.name}: agree" for p in pairs)

    done = cli.report_in_workers(
        pairs[1:2], args, workers=2, run=dying_worker.report_pair_dying_always
    )
    err = capsys.readouterr().err
    assert [done[0][0]["verdict"]] == ["error"]
    assert f"error in pair {pairs[1].name}: its worker died twice" in err


TABLE_BY_COIN = """
import pymc as pm
import pytensor.tensor as pt


def build_model(data):
    with pm.Model() as model:
        coin = pm.Bernoulli("coin", p=data["p"])
        pm.Potential("table", pt.as_tensor([0.0, 0.5])[coin])  # indexes by the 0/1 node
    return model


def metropolis(model):
    return pm.Metropolis(model.free_RVs)  # proposes 2 and -1 too: IndexError
"""


def test_a_step_that_raises_while_sampling_is_one_line_and_exit_2(tmp_path, capsys):
    """Found certifying PyMC's steps (issue 41): a traceback, exit 1, and no line naming it."""
    (tmp_path / "coin.py").write_text(TABLE_BY_COIN)
    (tmp_path / "data.json").write_text('{"p": 0.5}')
    argv = ["compare", "--model", f"{tmp_path}/coin.py:build_model"]
    argv += ["--data", str(tmp_path / "data.json"), "--out", str(tmp_path / "out")]
    argv += ["--sampler", f"pymc-step:{tmp_path}/coin.py:metropolis", "--seed", "1"]
    assert cli.main(argv) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(errors) == 1 and "metropolis raised IndexError" in errors[0], errors
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
