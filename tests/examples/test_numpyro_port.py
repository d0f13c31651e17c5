"""A NumPyro model as a side (``examples/numpyro_port``): its README runs as written."""

import json

from mcmc_pairs.comparisons import cli
from tests.examples.end_to_end import ROOT, readme_commands


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
