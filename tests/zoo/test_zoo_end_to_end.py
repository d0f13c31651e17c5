"""The calibration zoo, end to end through the command line.

Per model (``zoo.MODELS``): the correct sampler agrees with PyMC (exit 0,
``agree``; a sampler built to mix slowly is ``not converged``, exit 1, as its
``ModelFolder.verdict`` says: never ``disagree``) and the planted bug is caught
(exit 1, ``disagree``), at a fixed seed and the default settings. Both compare
with the same PyMC reference, read from the session's reference cache by
whichever comes second (``conftest.py``).
"""

import json

import pytest

import zoo
from mcmc_pairs.comparisons import cli

SEED = 1
"""The seed of every command-line run."""

XFAIL: dict[tuple[str, str], str] = {}
"""(model, sampler) -> the harness weakness that makes its CLI test fail (issue 26)."""


def _compare(name, planted_bug, tmp_path):
    model = zoo.get(name)
    report = f"{name}_bug" if planted_bug else name
    args = [
        "compare",
        "--model", model.model,
        "--data", str(model.data),
        "--sampler", model.sampler(planted_bug),
        "--name", report,
        "--seed", str(SEED),
        "--out", str(tmp_path),
    ]  # fmt: skip
    status = cli.main(args)
    return status, json.loads((tmp_path / f"{report}.json").read_text())


def _cases(planted_bug):
    kind = "sample_planted_bug" if planted_bug else "sample"
    cases = []
    for model in zoo.MODELS:
        reason = XFAIL.get((model.name, kind))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        if model.verdict != "agree" and not planted_bug:  # 5 looks to 16,000 draws: 30-50 s
            marks.append(pytest.mark.slow)
        cases.append(pytest.param(model.name, marks=marks, id=model.name))
    return cases


@pytest.mark.parametrize("name", _cases(planted_bug=False))
def test_correct_sampler_agrees(name, tmp_path):
    status, document = _compare(name, False, tmp_path)
    expected = zoo.get(name).verdict
    assert document["verdict"] == expected, [c for c in document["checks"] if not c["passed"]]
    assert status == (0 if expected == "agree" else 1)


@pytest.mark.parametrize("name", _cases(planted_bug=True))
def test_planted_bug_disagrees(name, tmp_path):
    status, document = _compare(name, True, tmp_path)
    assert document["verdict"] == "disagree"
    assert status == 1
