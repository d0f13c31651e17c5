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
    assert "What this run detects" in page and "The table's columns:" in page
    doc = json.loads((tmp_path / "bayes_net_sbc.json").read_text())
    assert doc["verdict"] == "pass" and len(doc["replications"]) == 20
    assert doc["refused"] == 0 and doc["ranked"] == 20 and doc["sbc_message"] == ""
    assert len(doc["replications"][0]["draws"]["B"]) == 99
    assert "quantity_draws" not in doc["replications"][0]  # functions of the stored draws
    assert doc["rerun"] == 0 and doc["draws_used"] == {"1000": 20}
    sens = doc["sensitivity"]
    assert sens["replications"] == 20 and sens["power"] == 0.95
    assert all(q["lattice"] for q in sens["quantities"]) and not sens["sd_ratio_measured"]
    # 20 replications of 0/1 nodes: no shift on the grid reaches 95 % power
    assert sens["shift"] is None and doc["certifies"] == (
        "this run reaches 95% power against no distortion on the grid at its 20 ranked "
        "replications; sd ratios are not measured (every quantity is discrete)"
    )
    assert {"quantity", "statistic", "value", "threshold", "passed"} <= set(doc["checks"][0])
    bad = cli.main(
        ["validate", "regression", "--method", "geweke", "--scheduler", SYNCHRONOUS,
         "--sampler", "mcmc_pairs.handrolled.wrong_samplers:regression_blocked_rate_as_scale",
         "--replications", "4", "--steps", "50", "--out", str(tmp_path)]
    )  # fmt: skip
    assert bad == cli.EXIT_DISAGREE
    page = (tmp_path / "regression_geweke.html").read_text()
    assert verdict_text(page).startswith("Verdict: fail. Fails:")
    assert json.loads((tmp_path / "regression_geweke.json").read_text())["verdict"] == "fail"
    capsys.readouterr()


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
