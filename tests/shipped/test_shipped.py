"""Bugs that shipped (``shipped/``), end to end through the command line, at seed 1.

Each bug is caught (exit 1, ``disagree``) and its fix agrees (exit 0): the two PyMC
step methods at the defaults, Stan 2.10-2.13's subtree bug at ``--tolerance 0.1``
(the defaults miss it: 0.04 posterior sd, ``shipped/stan_nuts_subtree/README.md``).
The NumPyro ensemble and Stan's dense metric take minutes; they are measured in their
folders, not tested here (issue 41).
"""

import json
from pathlib import Path

import pytest

from mcmc_pairs.comparisons import cli

SHIPPED = Path(__file__).resolve().parents[2] / "shipped"

CASES = [
    (
        "pymc_slice_interval",
        "pymc-step:{folder}/{version}.py:{name}",
        ("SliceBefore5816", "SliceAfter5816"),
        (),
    ),
    (
        "pymc_binary_gibbs_alternation",
        "pymc-step:{folder}/{version}.py:{name}",
        ("steps", "steps"),
        (),
    ),
    (
        "stan_nuts_subtree",
        "{folder}/{version}.py:{name}",
        ("sample", "sample"),
        ("--tolerance", "0.1"),
    ),
]


def _compare(entry, version, tmp_path):
    name, spec, functions, extra = next(c for c in CASES if c[0] == entry)
    folder = SHIPPED / name
    function = functions[0] if version == "bug" else functions[1]
    report = f"{name}_{version}"
    args = [
        "compare",
        "--model", f"{folder}/model.py:build_model",
        "--data", str(folder / "data.json"),
        "--sampler", spec.format(folder=folder, version=version, name=function),
        "--name", report,
        "--seed", "1",
        "--out", str(tmp_path),
        *extra,
    ]  # fmt: skip
    status = cli.main(args)
    return status, json.loads((tmp_path / f"{report}.json").read_text())


@pytest.mark.parametrize("entry", [c[0] for c in CASES])
def test_the_bug_is_caught(entry, tmp_path):
    status, document = _compare(entry, "bug", tmp_path)
    assert document["verdict"] == "disagree" and status == 1


@pytest.mark.parametrize("entry", [c[0] for c in CASES])
def test_the_fix_agrees(entry, tmp_path):
    status, document = _compare(entry, "fixed", tmp_path)
    assert document["verdict"] == "agree", [c for c in document["checks"] if not c["passed"]]
    assert status == 0
