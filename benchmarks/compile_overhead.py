"""A process's first nutpie compile, with numba's shape error cached on disk and without.

Each round starts two fresh interpreters in turn: both build a small PyMC
model (the eight-schools example, ``examples/eight_schools``), compile it for
nutpie and sample it with a fixed seed; one calls
:func:`mcmc_pairs.comparisons.compile_once.cache_shape_error_on_disk` first.
A warm-up of each fills PyTensor's and numba's caches, as any earlier run on a
machine has, so the rounds time what every later process pays. Prints the
compile's wall time per arm (median [min-max]), their ratio, and whether the
draws are the same bits.

Usage: ``.venv/bin/python -m benchmarks.compile_overhead [--rounds 5]`` (about a
minute on 2 cores); exit 0 when both arms draw the same bits, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = """
import hashlib, json, sys, time
import numpy as np
import nutpie
from mcmc_pairs.comparisons.compile_once import cache_shape_error_on_disk
from mcmc_pairs.comparisons.datafile import read_data
from mcmc_pairs.comparisons.loading import load_callable
from mcmc_pairs.comparisons.witness import exact_arithmetic

if sys.argv[1] == "cached":
    cache_shape_error_on_disk()
build = load_callable("examples/eight_schools/model.py:build_model", argument="model")
model = build(read_data("examples/eight_schools/data.json", argument="data"))
with exact_arithmetic():
    start = time.perf_counter()
    compiled = nutpie.compile_pymc_model(model)
    seconds = time.perf_counter() - start
trace = nutpie.sample(compiled, draws=200, tune=200, chains=2, seed=1, progress_bar=False)
draws = np.ascontiguousarray(trace.posterior["mu"].values)
print(json.dumps({"compile": seconds, "sha": hashlib.sha256(draws.tobytes()).hexdigest()}))
"""

ARMS = ("uncached", "cached")


def run(arm: str) -> dict:
    """Run :data:`PROGRAM` in a fresh interpreter; return its compile time and draws' digest."""
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM, arm], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Time both arms side by side; exit 1 when their draws differ."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    for arm in ARMS:  # warm-up: PyTensor's and numba's caches as a machine keeps them
        run(arm)
    results: dict[str, list[dict]] = {arm: [] for arm in ARMS}
    for _ in range(args.rounds):
        for arm in ARMS:
            results[arm].append(run(arm))
    print(f"first nutpie compile of a fresh process, {args.rounds} rounds (wall s)")
    medians = {}
    for arm, runs in results.items():
        seconds = [r["compile"] for r in runs]
        medians[arm] = statistics.median(seconds)
        print(f"  {arm:9s} median {medians[arm]:5.2f}  [{min(seconds):.2f}-{max(seconds):.2f}]")
    print(f"  ratio cached / uncached: {medians['cached'] / medians['uncached']:.2f}")
    digests = {r["sha"] for runs in results.values() for r in runs}
    print(f"  the same draws in every run: {'yes' if len(digests) == 1 else 'NO'}")
    return 0 if len(digests) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
