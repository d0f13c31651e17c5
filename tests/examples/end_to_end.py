"""What the examples' end-to-end tests share: paths, arguments, a README's commands.

Each example's tests are a file of their own (``test_<example>.py``), so that
pytest-xdist's workers, which take a file at a time, share them out.
"""

import json
import re
import shlex
from pathlib import Path

from mcmc_pairs.comparisons import cli
from mcmc_pairs.comparisons.registry import ModelFolder, Registry

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES: Registry[ModelFolder] = Registry(
    "example",
    ModelFolder(
        name="eight_schools",
        folder=ROOT / "examples" / "eight_schools",
        data_file="data.json",
        shape="hierarchical normal (Rubin's eight schools, centred), Gibbs",
        bug="tau2's conditional drops the 1/2 in front of the sum of squares",
    ),
    ModelFolder(
        name="probit",
        folder=ROOT / "examples" / "probit",
        data_file="data.csv",
        shape="probit regression (Challenger O-rings), Albert-Chib data-augmentation Gibbs",
        bug="beta's conditional leaves out the prior precision",
    ),
)
"""The examples brought as a user brings a model (a folder, as a zoo model)."""
SBC = ["--method", "sbc", "--scheduler", "synchronous", "--replications", "60"]


def arguments(name, planted_bug=False):
    """Return ``compare``'s ``--model --data --sampler --name`` for example ``name``."""
    example = EXAMPLES.get(name)
    return [
        "--model", example.model,
        "--data", str(example.data),
        "--sampler", example.sampler(planted_bug),
        "--name", name,
    ]  # fmt: skip


def correct_sampler_agrees(name, tmp_path):
    """The example's correct sampler: exit 0, ``agree``, PyMC's log densities compared."""
    assert cli.main(["compare", *arguments(name), "--out", str(tmp_path)]) == 0
    document = json.loads((tmp_path / f"{name}.json").read_text())
    assert document["verdict"] == "agree"
    assert {"log_prior", "log_likelihood"} <= {c["quantity"] for c in document["checks"]}


def planted_bug_disagrees(name, tmp_path):
    """The example's planted bug: exit 1, ``disagree``."""
    args = ["compare", *arguments(name, planted_bug=True), "--out", str(tmp_path)]
    assert cli.main(args) == 1
    document = json.loads((tmp_path / f"{name}.json").read_text())
    assert document["verdict"] == "disagree"


def sbc_passes_correct_and_fails_the_bug(name, tmp_path):
    """SBC of the example: the correct sampler passes (exit 0), the planted bug fails (1)."""
    good = cli.main(["validate", *arguments(name), *SBC, "--out", str(tmp_path)])
    assert good == 0
    bad_args = [*arguments(name, planted_bug=True), *SBC, "--out", str(tmp_path)]
    assert cli.main(["validate", *bad_args]) == 1


def readme_commands(folder: Path, program: str = "mcmc-pairs") -> list[tuple[list[str], int]]:
    """Return each ``.venv/bin/<program>`` line of a README: its arguments and stated exit."""
    commands = []
    for line in (folder / "README.md").read_text().splitlines():
        if line.startswith(f".venv/bin/{program} "):
            command, _, comment = line.partition("#")
            stated = re.match(r"\s*exit (\d)", comment)
            commands.append((shlex.split(command)[1:], int(stated.group(1)) if stated else 0))
    return commands
