"""benchmarks/time_to_verdict.py: flag detection, the SBC split, verdict checks, the tables.

The whole benchmark runs compare and SBC many times (25–30 minutes), so here
only the ``list`` case runs for real, once per tree, against this tree's own
HEAD as the baseline; nothing asserts a time.
"""

import json

import pytest

from benchmarks import time_to_verdict as ttv


def fake_tree(root, compare_options):
    """A tree whose ``mcmc_pairs.comparisons.cli compare --help`` lists ``compare_options``."""
    package = root / "mcmc_pairs" / "comparisons"
    package.mkdir(parents=True)
    (root / "mcmc_pairs" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    adds = "".join(
        f"compare.add_argument({option!r}, action='store_true')\n" for option in compare_options
    )
    (package / "cli.py").write_text(
        "import argparse\n"
        "parser = argparse.ArgumentParser(prog='mcmc-pairs')\n"
        "sub = parser.add_subparsers()\n"
        "compare = sub.add_parser('compare')\n"
        f"{adds}"
        "parser.parse_args()\n"
    )
    return root


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--cache", "--no-cache"], True),
        (["--cache"], True),
        (["--no-cache"], False),
        (["--cache-dir"], False),
        ([], False),
    ],
)
def test_cache_flag_is_detected_from_compare_help(tmp_path, options, expected):
    assert ttv.has_cache_flag(fake_tree(tmp_path, options)) is expected


def test_compare_gets_a_fresh_cache_directory_only_when_the_tree_has_the_flag(
    monkeypatch, tmp_path
):
    calls = []
    monkeypatch.setattr(
        ttv, "run_cli", lambda tree, args, ok: calls.append(args) or {"wall": 1.0, "exit": 0}
    )
    case = ttv.CASES["eight_schools"]
    ttv.run_case(case, tmp_path, True, tmp_path / "a")
    ttv.run_case(case, tmp_path, False, tmp_path / "b")
    first, second, plain, _ = calls
    assert first == second  # the second run meets the cache the first one filled
    assert first[first.index("--cache") + 1] == str(tmp_path / "a" / "cache")
    assert "--cache" not in plain
    assert plain[: len(case.args)] == list(case.args)


def test_sbc_split_takes_the_fixed_cost_out():
    low = {"wall": 14.0, "replications": 4}
    high = {"wall": 30.0, "replications": 20}
    split = ttv.sbc_split(low, high)
    assert split["s_per_replication"] == pytest.approx(1.0)
    assert split["replications_per_s"] == pytest.approx(1.0)
    assert split["fixed_s"] == pytest.approx(10.0)
    noisy = ttv.sbc_split(low, {"wall": 13.0, "replications": 20})
    assert noisy["replications_per_s"] is None


def run(wall, verdict="agree", code=0):
    return {"wall": wall, "cpu": wall, "peak_mb": 100.0, "exit": code, "verdict": verdict}


def sbc_run(low_wall, high_wall, verdict="pass"):
    return {
        "per_replication": {
            "low": {**run(low_wall, verdict), "replications": 4},
            "high": {**run(high_wall, verdict), "replications": 20},
        }
    }


def test_summary_ratios_targets_and_tables():
    es = ttv.CASES["eight_schools"]
    rounds = {
        "this": [{"first": run(6.0), "second": run(2.0)}, {"first": run(8.0), "second": run(3.0)}],
        "baseline": [{"first": run(10.0), "second": run(10.0)}] * 2,
    }
    rows = ttv.summarise(es, rounds)
    assert rows["first"]["ratio"] == pytest.approx(0.7)  # median of 0.6 and 0.8
    assert rows["first"]["met"] is True
    assert rows["second"]["ratio"] == pytest.approx(0.25)
    assert rows["second"]["this"] == {"median": 2.5, "min": 2.0, "max": 3.0}

    sbc = ttv.CASES["sbc_regression"]
    sbc_rounds = {"this": [sbc_run(12.0, 16.0)], "baseline": [sbc_run(14.0, 30.0)]}
    sbc_rows = ttv.summarise(sbc, sbc_rounds)
    assert sbc_rows["per_replication"]["ratio"] == pytest.approx(0.25)  # 4x, not 5x
    assert sbc_rows["per_replication"]["met"] is False

    listing = ttv.CASES["list"]
    list_rows = ttv.summarise(
        listing, {"this": [{"run": run(0.5, None)}], "baseline": [{"run": run(2.0, None)}]}
    )
    assert list_rows["run"]["met"] is True  # an absolute target: 0.5 s <= 1 s

    document = {
        "meta": {
            "baseline": "ed9ead0", "this_rev": "abc", "date": "today", "runs": 2, "warmup": 1,
            "cpus": 2, "load_start": 1.0, "load_end": 2.0, "seconds": 60.0,
            "cache_flag": {"this": True, "baseline": False}, "note": "development run",
        },
        "cases": {
            "eight_schools": {"name": "eight_schools", "rows": rows,
                              "verdicts": ttv.verdict_check(rounds)},
            "sbc_regression": {"name": "sbc_regression", "rows": sbc_rows,
                               "verdicts": ttv.verdict_check(sbc_rounds)},
            "probit": {"name": "probit", "error": "exited 2: boom"},
        },
    }  # fmt: skip
    text = ttv.markdown(document)
    assert "**development run**" in text
    assert "`--cache DIR` passed to: this." in text
    first = "| eight schools, first `compare` | 10.00 s | 7.00 [6.00–8.00] s | **0.70** | ≤ 0.70 |"
    assert first + " yes |" in text
    assert "| PyMC SBC `regression`, s per replication | 1.00 s/rep |" in text
    low, high = sbc.replications
    settings = f"R = {low} / {high}, draws 1000, tune 200, max-draws 1000"
    assert f"| sbc_regression | this | {settings} | 12.0 / 16.0 | 0.25 | 4.00 | 11.0 |" in text
    assert "| probit | **failed**: exited 2: boom |" in text
    assert "VERDICT CHANGED" not in text
    json.dumps(document)


def test_a_changed_verdict_is_flagged():
    rounds = {
        "this": [{"first": run(1.0, "agree", 0), "second": run(1.0, "agree", 0)}],
        "baseline": [{"first": run(1.0, "disagree", 1), "second": run(1.0, "agree", 0)}],
    }
    check = ttv.verdict_check(rounds)
    assert check["same"] is False
    assert check["rows"]["first"] == {"this": [[0, "agree"]], "baseline": [[1, "disagree"]]}
    document = {
        "meta": {
            "baseline": "x", "this_rev": "y", "date": "d", "runs": 1, "warmup": 0, "cpus": 2,
            "load_start": 0.0, "load_end": 0.0, "seconds": 1.0, "cache_flag": {}, "note": "",
        },
        "cases": {"probit": {"name": "probit", "rows": {}, "verdicts": check}},
    }  # fmt: skip
    assert (
        "| probit | first | disagree (exit 1) | agree (exit 0) | **NO: VERDICT CHANGED** |"
        in ttv.markdown(document)
    )


def test_a_failing_command_is_one_error(tmp_path):
    with pytest.raises(ttv.RunFailed, match="exited 2"):
        ttv.run_cli(ttv.ROOT, ["compare", "--no-such-flag"], ok=(0, 1))


def test_list_case_runs_against_this_trees_own_head(tmp_path, capsys):
    out = tmp_path / "ttv.json"
    status = ttv.main(
        [
            "--cases",
            "list",
            "--runs",
            "1",
            "--warmup",
            "0",
            "--baseline",
            "HEAD",
            "--json",
            str(out),
        ]
    )
    assert status == 0
    document = json.loads(out.read_text())
    row = document["cases"]["list"]["rows"]["run"]
    assert row["this"]["median"] > 0 and row["ratio"] > 0
    assert document["cases"]["list"]["verdicts"]["same"] is True
    assert document["meta"]["cache_flag"] == {"this": False, "baseline": False}  # not asked
    assert out.with_suffix(".md").read_text() == capsys.readouterr().out.rstrip("\n") + "\n"


@pytest.mark.parametrize("argv", [["--runs", "0"], ["--warmup", "-1"], ["--cases", "nope"]])
def test_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        ttv.main(argv)
    assert exc.value.code == 2


def test_inprocess_case_times_both_calls_of_one_process_and_their_share(monkeypatch, tmp_path):
    seen = []

    def fake_cli(tree, args, ok, module=True):
        seen.append((args, module))
        calls = [{"wall": 10.0, "verdict": "agree"}, {"wall": 0.5, "verdict": "agree"}]
        stdout = "noise\nINPROCESS " + json.dumps(calls) + "\n"
        return {"wall": 12.0, "cpu": 11.0, "peak_mb": 1.0, "exit": 0, "verdict": None,
                "stdout": stdout}  # fmt: skip

    monkeypatch.setattr(ttv, "run_cli", fake_cli)
    case = ttv.CASES["inprocess_eight_schools"]
    runs = ttv.run_case(case, tmp_path, True, tmp_path / "a")
    ((args, module),) = seen
    assert not module and args[:2] == ["-c", ttv.INPROCESS]
    assert args[2:4] == ["examples/eight_schools", "data.json"]
    assert args[4] == str(tmp_path / "a" / "cache")
    assert runs["first"]["wall"] == 10.0 and runs["second"]["wall"] == 0.5
    assert runs["second"]["cpu"] == 11.0 and "stdout" not in runs["second"]
    rounds = {"this": [runs], "baseline": [{**runs, "second": {**runs["second"], "wall": 9.0}}]}
    rows = ttv.summarise(case, rounds)
    assert rows["share"]["this"]["median"] == pytest.approx(0.05)
    assert rows["share"]["met"] is True  # an absolute target on this tree: <= 0.10
    assert rows["second"]["ratio"] == pytest.approx(0.5 / 9.0)
    assert {"inprocess_probit", "inprocess_changepoint"} <= set(ttv.CASES)
