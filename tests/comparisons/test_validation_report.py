"""The validate report: JSON as docs/contracts.md states it, a self-contained page, exit codes."""

import json
from html.parser import HTMLParser

import pandas as pd

from mcmc_pairs.comparisons import cli, validation_report
from mcmc_pairs.comparisons.parallel import SYNCHRONOUS
from mcmc_pairs.comparisons.validation import ERROR, ValidationResult


class _Verdict(HTMLParser):
    """The text of the page's element of class ``verdict``."""

    def __init__(self):
        super().__init__()
        self.inside, self.text = False, []

    def handle_starttag(self, tag, attrs):
        self.inside = self.inside or dict(attrs).get("class") == "verdict"

    def handle_endtag(self, tag):
        self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text.append(data)


def verdict_text(page: str) -> str:
    parser = _Verdict()
    parser.feed(page)
    return "".join(parser.text)


def test_cli_validate_writes_reports_and_exit_codes(tmp_path, capsys):
    ok = cli.main(
        ["validate", "bayes_net", "--method", "sbc", "--scheduler", SYNCHRONOUS,
         "--replications", "20", "--seed", "5", "--out", str(tmp_path)]
    )  # fmt: skip
    assert ok == cli.EXIT_AGREE
    page = (tmp_path / "bayes_net_sbc.html").read_text()
    assert verdict_text(page).startswith("Verdict: pass. Passes: no miscalibration detected; ")
    assert "sd ratios are not measured (every quantity is discrete)" in verdict_text(page)
    assert page.count("data:image/png") == 2  # rank histograms and the ECDF difference
    assert "simultaneous bands" in page and "not part of the verdict" in page
    assert "What this run rules out" in page and "The table's columns:" in page
    doc = json.loads((tmp_path / "bayes_net_sbc.json").read_text())
    assert doc["verdict"] == "pass" and len(doc["replications"]) == 20
    assert doc["refused"] == 0 and doc["ranked"] == 20 and doc["sbc_message"] == ""
    assert len(doc["replications"][0]["draws"]["B"]) == 99
    assert "quantity_draws" not in doc["replications"][0]  # functions of the stored draws
    assert doc["rerun"] == 0 and doc["draws_used"] == {"1000": 20}
    sens = doc["sensitivity"]
    assert sens["replications"] == 20 and sens["power"] == 0.8
    assert all(q["lattice"] for q in sens["quantities"]) and not sens["sd_ratio_measured"]
    # 20 replications of 0/1 nodes: a shift of 1.5 sd is ruled out (measured), no sd ratio
    assert sens["shift"] is not None and doc["certifies"].startswith(
        "this run rules out, with 80% power at its 20 ranked replications, a shift of the "
        f"posterior mean by >= {sens['shift']:g} posterior sd in any one quantity ("
    )
    assert doc["certifies"].endswith(
        "; not shifts below; sd ratios are not measured (every quantity is discrete)"
    )
    assert {"quantity", "statistic", "value", "threshold", "passed"} <= set(doc["checks"][0])
    capsys.readouterr()
    bad = cli.main(
        ["validate", "regression", "--method", "geweke", "--scheduler", SYNCHRONOUS,
         "--sampler", "mcmc_pairs.handrolled.wrong_samplers:regression_blocked_rate_as_scale",
         "--replications", "4", "--steps", "50", "--out", str(tmp_path)]
    )  # fmt: skip
    assert bad == cli.EXIT_DISAGREE
    page = (tmp_path / "regression_geweke.html").read_text()
    assert verdict_text(page).startswith("Verdict: fail. Fails:")
    assert json.loads((tmp_path / "regression_geweke.json").read_text())["verdict"] == "fail"
    out = capsys.readouterr().out.splitlines()
    header = next(line for line in out if "statistic" in line).split()  # failed tests' table
    assert header[header.index("statistic") + 1 :][:2] == ["z", "p-value"]
    assert "<th>z</th>" in page and "<th>value</th>" not in page


def test_a_stopped_run_is_reported_without_tests(tmp_path):
    result = ValidationResult(
        pair="regression", method="sbc", sampler="s", settings={"replications": 3},
        verdict=ERROR, checks=pd.DataFrame(), replications=[{"index": 0, "ranks": [1]}],
        error="1 of 3 replications failed; first: boom",
    )  # fmt: skip
    html_path, json_path = validation_report.write_validation_report(result, tmp_path)
    doc = json.loads(json_path.read_text())
    assert doc["verdict"] == "error" and doc["error"].endswith("boom") and doc["checks"] == []
    page = html_path.read_text()
    assert verdict_text(page).startswith("Verdict: error. Stopped:")
    assert "<h2>Tests</h2>" not in page and "boom" in page


def test_refused_replications_are_counted_and_named(tmp_path, capsys):
    code = cli.main(
        ["validate", "regression", "--method", "sbc", "--scheduler", SYNCHRONOUS,
         "--sampler", "tests/comparisons/test_sbc.py:very_sticky_regression",
         "--replications", "6", "--seed", "3", "--max-draws", "4000", "--out", str(tmp_path)]
    )  # fmt: skip
    assert code == cli.EXIT_NOT_CONVERGED == 3
    out = capsys.readouterr().out
    assert "refused fraction" in out and "verdict: not converged" in out
    # issue 44: three probabilities, named for what each is (the JSON keeps value/threshold/p)
    assert "smallest tail probability" in out and "pointwise level" in out and "band p-value" in out
    assert "mixes too slowly for SBC at 4000 draws per chain" in out
    page = (tmp_path / "regression_sbc.html").read_text()
    assert verdict_text(page).startswith(
        "Verdict: not converged. The sampler mixes too slowly for SBC at 4000 draws per chain"
    )
    assert "Refused replications:" in page and "raise --max-draws" in page
    assert "6 of 6 replications were rerun with doubled draws" in page
    doc = json.loads((tmp_path / "regression_sbc.json").read_text())
    assert doc["verdict"] == "not converged" and doc["refused"] == 6 and doc["ranked"] == 0
    assert doc["refused_replications"] == list(range(6)) and doc["max_refused_fraction"] == 0.05
    assert doc["rerun"] == 6 and doc["draws_used"] == {"4000": 6}
    assert doc["settings"]["max_draws"] == 4000
    assert {(r["draws_used"], r["reruns"]) for r in doc["replications"]} == {(4000, 2)}
    assert "mixes too slowly" in doc["sbc_message"]


def test_validate_max_draws_bad_input_and_the_exit_statuses_in_the_help(tmp_path, capsys):

    for argv, message in (
        (["--draws", "1000", "--max-draws", "500"], "max_draws must be an integer >= 1000"),
        (["--method", "geweke", "--max-draws", "10"], "max_draws is not a setting of geweke"),
    ):
        method = [] if "--method" in argv else ["--method", "sbc"]
        code = cli.main(["validate", "regression", *method, *argv, "--out", str(tmp_path)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == cli.EXIT_USAGE and len(err) == 1 and message in err[0], err
    assert not any(tmp_path.iterdir())
    assert cli.main(["validate", "--help"]) == 0  # printed, and returned: no SystemExit
    text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 passes; 1 fails" in text and "3 not converged" in text
    assert "--max-draws" in text


def _statement(shifts, low=None, high=None, discrete=False):
    """A sensitivity statement with the given per-quantity shifts (``None``: not reached)."""
    reached = [x for x in shifts.values() if x is not None]
    return {
        "power": 0.8, "replications": 100,
        "shift": max(reached) if reached and len(reached) == len(shifts) else None,
        "sd_ratio": [low, high], "sd_ratio_measured": not discrete,
        "quantities": [
            {"quantity": q, "shift": x, "informative": True, "lattice": discrete}
            for q, x in shifts.items()
        ],
        "grid": {"shift": [0.05, 3.0], "sd_ratio_low": [0.95, 0.3], "sd_ratio_high": [1.05, 4.0]},
    }  # fmt: skip


def test_the_certificate_names_each_quantitys_threshold_and_what_it_cannot_see():
    words = validation_report.certificate(_statement({"a": 0.3, "b": 0.5, "c": 0.3}, 0.8, 1.3))
    assert words == (
        "this run rules out, with 80% power at its 100 ranked replications, a shift of the "
        "posterior mean by >= 0.5 posterior sd in any one quantity (>= 0.3 in a, c; >= 0.5 in "
        "b) and an sd ratio outside [0.8, 1.3]; not shifts below"
    )
    words = validation_report.certificate(_statement({"a": 0.3, "b": None}, 0.8, None))
    assert words == (
        "this run rules out, with 80% power at its 100 ranked replications, a shift of the "
        "posterior mean by >= 0.3 posterior sd in any one quantity but b and an sd ratio <= 0.8; "
        "not shifts below; not shifts up to 3 sd in b (no shift on the grid reaches that "
        "power there); not sd ratios up to 4"
    )
    assert validation_report.certificate(_statement({"a": None}, discrete=True)) == (
        "this run rules out no distortion on the grid with 80% power at its 100 ranked "
        "replications; sd ratios are not measured (every quantity is discrete)"
    )
    assert validation_report.certificate(_statement({"a": None}, 0.5, 2.0)) == (
        "this run rules out, with 80% power at its 100 ranked replications, an sd ratio "
        "outside [0.5, 2]; no shift of a posterior mean"
    )
    many = {f"q{i}": 0.4 for i in range(6)} | {"z": 0.6}
    words = validation_report.certificate(_statement(many))
    assert ">= 0.4 in q0, q1, q2, q3 and 2 more; >= 0.6 in z" in words
