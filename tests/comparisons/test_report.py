"""`mcmc-pairs report`: every registered pair, then index.html linking each."""

import json

import pytest

from comparisons import cli, registry
from comparisons.report import write_atomic


def test_report_writes_index_and_every_pair(tmp_path, monkeypatch):
    small = registry.get_pair("bivariate_normal")
    monkeypatch.setattr(registry, "PAIRS", (small,))
    code = cli.main(["report", "--out", str(tmp_path)])
    assert code in (0, 1)
    index = (tmp_path / "index.html").read_text()
    assert 'href="bivariate_normal.html"' in index
    verdict = json.loads((tmp_path / "bivariate_normal.json").read_text())["verdict"]
    assert verdict in index


def test_write_atomic_leaves_nothing_behind_on_failure(tmp_path):
    target = tmp_path / "page.html"
    write_atomic(target, "old")

    with pytest.raises(TypeError):
        write_atomic(target, object())  # not text: fails while writing
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


def test_index_shows_speed_ratios_below_one(tmp_path):
    from comparisons.report import write_index

    entry = {
        "name": "regression", "title": "t", "verdict": "agree", "seconds": 1.0,
        "ess_per_second": {"handrolled:gibbs": 4.7e3, "handrolled:blocked": 2.4e6, "pymc": 1e4},
    }  # fmt: skip
    page = write_index([entry], tmp_path).read_text()
    assert "gibbs: 4.7k/s (0.47x PyMC)" in page
    assert "blocked: 2.4M/s (240x PyMC)" in page
