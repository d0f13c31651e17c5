"""The worked examples beyond the seeds, end to end through the command line, small.

Each example ships a model, data, a correct sampler and a planted bug: the correct
sampler agrees with NUTS and passes SBC; the planted bug is caught by both. The
README's pytest snippet runs as written.
"""

import json
import re
import shlex
import subprocess
import sys
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


def readme_commands(folder: Path, program: str = "mcmc-pairs") -> list[tuple[list[str], int]]:
    """Return each ``.venv/bin/<program>`` line of a README: its arguments and stated exit."""
    commands = []
    for line in (folder / "README.md").read_text().splitlines():
        if line.startswith(f".venv/bin/{program} "):
            command, _, comment = line.partition("#")
            stated = re.match(r"\s*exit (\d)", comment)
            commands.append((shlex.split(command)[1:], int(stated.group(1)) if stated else 0))
    return commands


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


def test_the_stored_draws_readme_commands_run_as_written(monkeypatch, tmp_path):
    # A run kept as netCDF as the reference, and posteriordb's reference draws as external
    # truth. Run in a folder of their own (examples/ linked in), so that reports/ is theirs.
    folder = ROOT / "examples" / "stored_draws"
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    for argv, stated in readme_commands(folder, "python"):
        done = subprocess.run([sys.executable, *argv], capture_output=True, text=True)
        assert done.returncode == stated, done.stderr
    commands = readme_commands(folder)
    assert [argv[0] for argv, _ in commands] == ["compare"] * 3
    for argv, stated in commands:
        assert cli.main(argv) == stated, argv
    verdicts = {
        p.stem: json.loads(p.read_text())["verdict"] for p in (tmp_path / "reports").glob("*.json")
    }
    assert verdicts == {
        "schools_vs_stored": "agree",
        "schools_bug_vs_stored": "disagree",
        "kidiq_momiq": "agree",
    }
    document = json.loads((tmp_path / "reports" / "kidiq_momiq.json").read_text())
    assert document["sides"]["pymc"]["sampler"].startswith("stored draws: posteriordb:")


def test_a_numpyro_ports_readme_commands_run_as_written(monkeypatch, tmp_path):
    folder = ROOT / "examples" / "numpyro_port"
    commands = readme_commands(folder)
    assert [argv[0] for argv, _ in commands] == ["compare", "compare"]
    monkeypatch.chdir(ROOT)
    for argv, stated in commands:
        assert cli.main([*argv, "--out", str(tmp_path)]) == stated, argv
    good = json.loads((tmp_path / "numpyro_port.json").read_text())
    assert good["verdict"] == "agree"
    assert good["sides"]["user"]["sampler"] == "numpyro:examples/numpyro_port/model.py:model"
    assert json.loads((tmp_path / "numpyro_port_bug.json").read_text())["verdict"] == "disagree"
