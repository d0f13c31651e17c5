"""The worked examples beyond the seeds, end to end through the command line, small.

Each example ships a model, data, a correct sampler and a planted bug: the correct
sampler agrees with NUTS and passes SBC; the planted bug is caught by both. The
README's pytest snippet runs as written.
"""

import json
import re
from pathlib import Path

import pytest

from mcmc_pairs.comparisons import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "eight_schools": ROOT / "examples" / "eight_schools" / "data.json",
    "probit": ROOT / "examples" / "probit" / "data.csv",
}


def _args(name, sampler):
    folder = ROOT / "examples" / name
    return [
        "--model", f"{folder}/model.py:build_model",
        "--data", str(EXAMPLES[name]),
        "--sampler", f"{folder}/sampler.py:{sampler}",
        "--name", name,
    ]  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_correct_sampler_agrees(name, tmp_path):
    assert cli.main(["compare", *_args(name, "sample"), "--out", str(tmp_path)]) == 0
    document = json.loads((tmp_path / f"{name}.json").read_text())
    assert document["verdict"] == "agree"
    assert {"log_prior", "log_likelihood"} <= {c["quantity"] for c in document["checks"]}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_planted_bug_disagrees(name, tmp_path):
    assert cli.main(["compare", *_args(name, "sample_planted_bug"), "--out", str(tmp_path)]) == 1
    document = json.loads((tmp_path / f"{name}.json").read_text())
    assert document["verdict"] == "disagree"


SBC = ["--method", "sbc", "--scheduler", "synchronous", "--replications", "60"]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_correct_sampler_passes_sbc_and_the_bug_fails(name, tmp_path):
    good = cli.main(["validate", *_args(name, "sample"), *SBC, "--out", str(tmp_path)])
    assert good == 0
    bad = cli.main(["validate", *_args(name, "sample_planted_bug"), *SBC, "--out", str(tmp_path)])
    assert bad == 1


def test_readme_pytest_example_runs_as_written(monkeypatch):
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    (snippet,) = [b for b in blocks if "assert_agree(" in b and "def test_" in b]
    assert len(snippet.strip().splitlines()) <= 14
    monkeypatch.chdir(ROOT)  # the snippet's paths are relative to the repository's root
    namespace: dict = {}
    exec(compile(snippet, "README.md", "exec"), namespace)  # noqa: S102
    (test,) = [f for name, f in namespace.items() if name.startswith("test_")]
    test()
