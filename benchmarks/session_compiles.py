"""A pytest session of 20 ``assert_agree`` tests on 4 models: how many compiles (issue 38).

Writes a throw-away project with one test file: four models (the examples'
eight schools and probit, the zoo's counts and heavy-tailed), five tests each:
three seeds on the shipped data and two data sets whose *observed* values
differ (the same shapes), as a test suite parametrised over seeds and data
sets would. The tests run in one pytest session (one process) with a fresh
reference cache; a ``conftest.py`` prints, at the end, how many compiles the
session made and reused (:mod:`mcmc_pairs.comparisons.reuse`: nutpie's
compile of the reference, PyMC's log density of the witness).

Target: nutpie compiles 4 models, not 20; the log density 4 as well.

Usage: ``.venv/bin/python -m benchmarks.session_compiles`` (about 4 minutes on
2 cores); exit 0 when every test passed and the target is met, 1 otherwise.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODELS = {
    # name: (folder, data file, observed key, how a data set differs)
    "eight_schools": ("examples/eight_schools", "data.json", "y", "shift"),
    "probit": ("examples/probit", "data.csv", "distress", "flip"),
    "counts": ("zoo/counts", "data.json", "failures", "shift"),
    "heavy_tailed": ("zoo/heavy_tailed", "data.json", "y", "shift"),
}
SEEDS = (1, 2, 3)
VARIANTS = (1, 2)
TARGET = len(MODELS)

CONFTEST = """
from mcmc_pairs.comparisons import reuse


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(
        f"compiles: nutpie made {reuse.NUTPIE.made} reused {reuse.NUTPIE.hits}; "
        f"log density made {reuse.LOG_DENSITIES.made} reused {reuse.LOG_DENSITIES.hits}"
    )
"""

TESTS = """
import pytest

from mcmc_pairs import assert_agree

CASES = {cases!r}


@pytest.mark.parametrize("model, sampler, data, seed", CASES)
def test_agrees(model, sampler, data, seed):
    assert_agree(model, sampler, data, seed=seed, progress=lambda event: None)
"""


def variant(folder: Path, data: str, key: str, how: str, k: int, out: Path) -> Path:
    """Write data set ``k`` of a model: its observed ``key`` shifted by ``k`` or ``k`` flipped."""
    source = folder / data
    if data.endswith(".json"):
        values = json.loads(source.read_text())
        values[key] = [v + k for v in values[key]]
        path = out / f"{folder.name}-{k}.json"
        path.write_text(json.dumps(values))
        return path
    rows = list(csv.DictReader(source.open()))
    for row in rows[k::7]:  # a few outcomes flipped, the same rows
        row[key] = str(1 - int(row[key])) if how == "flip" else row[key]
    path = out / f"{folder.name}-{k}.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def cases(out: Path) -> list[tuple[str, str, str, int]]:
    """Return the 20 tests: (model, sampler, data file, seed)."""
    found = []
    for folder_name, data, key, how in MODELS.values():
        folder = ROOT / folder_name
        model, sampler = f"{folder}/model.py:build_model", f"{folder}/sampler.py:sample"
        found += [(model, sampler, str(folder / data), seed) for seed in SEEDS]
        found += [
            (model, sampler, str(variant(folder, data, key, how, k, out)), 1) for k in VARIANTS
        ]
    return found


def main() -> int:
    """Run the session; print its tests, compiles and whether the target is met."""
    with tempfile.TemporaryDirectory(prefix="mcmc-pairs-session-") as tmp:
        project = Path(tmp)
        (project / "conftest.py").write_text(CONFTEST)
        (project / "test_models.py").write_text(TESTS.format(cases=cases(project)))
        cache = str(project / "cache")
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(project)]
        env = dict(os.environ, MCMC_PAIRS_CACHE=cache)  # assert_agree's default cache
        start = time.perf_counter()
        done = subprocess.run(
            argv, cwd=project, capture_output=True, text=True, check=False, env=env
        )
        seconds = time.perf_counter() - start
    out = done.stdout
    found = re.search(r"compiles: nutpie made (\d+) reused (\d+); log density made (\d+)", out)
    passed = re.search(r"(\d+) passed", out)
    if found is None or passed is None:
        print(out[-3000:], done.stderr[-2000:], sep="\n")
        return 1
    nutpie, reused, log_density = (int(g) for g in found.groups())
    tests = len(MODELS) * (len(SEEDS) + len(VARIANTS))
    print(f"{passed.group(1)} of {tests} tests passed in {seconds:.0f} s (one pytest session)")
    print(f"nutpie compiles: {nutpie} (reused {reused} times); log density compiles: {log_density}")
    met = nutpie <= TARGET and log_density <= TARGET and int(passed.group(1)) == tests
    print(f"target: {TARGET} models compiled, not {tests}: {'met' if met else 'NOT met'}")
    if done.returncode != 0:
        print(out[-3000:])
    return 0 if met and done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
