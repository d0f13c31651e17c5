"""A PyMC step method under test (``examples/conjugate_step``): its README runs as written."""

import json
import re

from mcmc_pairs.comparisons import cli
from tests.examples.end_to_end import ROOT, readme_commands


def test_a_step_methods_readme_commands_run_as_written(monkeypatch, tmp_path):
    # The PyMC step method under test (pymc-step:...): compare and SBC, correct and planted bug.
    folder = ROOT / "examples" / "conjugate_step"
    commands = readme_commands(folder)
    assert [argv[0] for argv, _ in commands] == ["compare", "compare", "validate", "validate"]
    monkeypatch.chdir(ROOT)  # the README's paths are relative to the repository's root
    for argv, stated in commands:
        assert cli.main([*argv, "--out", str(tmp_path)]) == stated, argv
    verdicts = {p.name: json.loads(p.read_text())["verdict"] for p in tmp_path.glob("*.json")}
    assert verdicts == {
        "conjugate_step.json": "agree",
        "conjugate_step_bug.json": "disagree",
        "conjugate_step_sbc.json": "pass",
        "conjugate_step_bug_sbc.json": "fail",
    }
    sampler = json.loads((tmp_path / "conjugate_step.json").read_text())["sides"]["user"]
    assert sampler["sampler"] == "pymc-step:examples/conjugate_step/step.py:ConjugateGibbs"


def test_a_step_methods_readme_python_snippet_runs_as_written(monkeypatch):
    readme = (ROOT / "examples" / "conjugate_step" / "README.md").read_text()
    (snippet,) = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    monkeypatch.chdir(ROOT)
    exec(compile(snippet, "README.md", "exec"), {})  # noqa: S102 - raises unless they agree
