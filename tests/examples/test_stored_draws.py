"""Stored draws as a side (``examples/stored_draws``): its README runs as written."""

import json
import subprocess
import sys

from mcmc_pairs.comparisons import cli
from tests.examples.end_to_end import ROOT, readme_commands


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
