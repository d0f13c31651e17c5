"""Report files are written atomically; JSON numbers are finite or null."""

import json
import math

import numpy as np
import pytest

from mcmc_pairs.comparisons.files import finite_or_none, write_atomic, write_report


def test_write_atomic_leaves_nothing_behind_on_failure(tmp_path):
    target = tmp_path / "page.html"
    write_atomic(target, "old")

    with pytest.raises(TypeError):
        write_atomic(target, object())  # not text: fails while writing
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


def test_write_report_writes_both_files_readable(tmp_path):
    html_path, json_path = write_report(tmp_path / "new", "pair", {"verdict": "agree"}, "<p>")
    assert (html_path.name, json_path.name) == ("pair.html", "pair.json")
    assert json.loads(json_path.read_text()) == {"verdict": "agree"}
    assert html_path.read_text() == "<p>"
    assert html_path.stat().st_mode & 0o044  # readable by others, not mkstemp's 0600


def test_write_report_writes_nothing_when_the_document_is_not_json(tmp_path):
    with pytest.raises(TypeError):
        write_report(tmp_path, "pair", {"value": object()}, "<p>")
    assert list(tmp_path.iterdir()) == []


def test_finite_or_none():
    assert finite_or_none(np.float64(1.5)) == 1.5 and isinstance(finite_or_none(2), float)
    assert finite_or_none(math.inf) is None and finite_or_none(np.nan) is None
