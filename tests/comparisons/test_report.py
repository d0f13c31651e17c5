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
