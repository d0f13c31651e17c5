"""Do two trees write the same reports? ``scripts/same_json.py [--baseline REV]``.

A refactoring of the harness must leave every number it writes unchanged. This
script unpacks ``git archive REV`` (default ``HEAD``: the last commit, against
the working tree) into a temporary directory and runs, in both trees with this
interpreter (``PYTHONPATH`` set to the tree, as ``benchmarks/report_time.py``
does), the same commands:

* ``compare NAME`` for every registered pair at small settings
  (:data:`COMPARE_ARGS`; ``--max-draws`` equal to ``--draws``, one look);
* ``compare --model ...`` of the eight-schools example (bring your own model),
  once at one look and once growing from 50 draws (:data:`GROWING_ARGS`);
* ``validate NAME --method sbc`` and ``--method geweke`` at small sizes, on the
  synchronous scheduler, for every pair that conditions on data (a fixed target
  answers exit 2 in both trees and writes nothing) and for the eight-schools
  example; SBC once more on ``regression`` with short runs that are rerun longer
  (:data:`RERUN_ARGS`), and with ``--sampler pymc`` (the PyMC side of SBC).

Then it compares every JSON the two trees wrote, key by key, after removing what
measures time (:data:`TIMING_KEYS`). Exit 0 when every document is identical,
1 otherwise (the differing paths are printed), 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.report_time import cli_module, unpack  # noqa: E402 - one copy of each

COMPARE_ARGS = ["--draws", "300", "--tune", "300", "--max-draws", "300", "--seed", "3"]
GROWING_ARGS = ["--draws", "50", "--tune", "100", "--max-draws", "1600", "--seed", "3"]
"""A run that looks more than once (undecided at 50 draws), so the sequential design runs too."""
VALIDATE_ARGS = ["--scheduler", "synchronous", "--seed", "3"]
SBC_ARGS = ["--method", "sbc", "--replications", "20", "--draws", "200", "--tune", "50"]
GEWEKE_ARGS = ["--method", "geweke", "--replications", "4", "--steps", "40", "--tune", "5"]
RERUN_ARGS = ["--method", "sbc", "--replications", "10", "--draws", "100", "--tune", "20"]
"""SBC whose short runs fall below the effective-draws floor and are rerun, doubling (one
chain: every replication of regression at seed 3 is rerun once, at 200 draws)."""
PYMC_SBC_ARGS = ["--method", "sbc", "--replications", "4", "--draws", "200", "--tune", "200"]
EXAMPLE = "examples/eight_schools"
TIMING_KEYS = frozenset(
    {"seconds", "timings", "ess_bulk_per_second", "wall_s", "total_s", "compile_s", "sampling_s"}
)
"""Keys whose values measure time (removed wherever they appear before comparing)."""
SOURCE_KEYS = frozenset({"from_cache"})
"""Keys that say where a side's draws came from (issue 30's reference cache), not what
they are: removed too. Each tree runs on an empty cache of its own, so every reference
is computed."""


def commands(tree: Path, out: Path) -> list[list[str]]:
    """Return the CLI argument lists to run in ``tree``, every report written under ``out``."""
    listed = run_cli(tree, ["list"], capture=True).stdout.split("\n")
    names = [line.split()[0] for line in listed if line.strip()]
    example = EXAMPLE  # relative to the tree (the working directory): the JSON names it so
    byom = [
        "compare",
        "--model",
        f"{example}/model.py:build_model",
        "--data",
        f"{example}/data.json",
        "--sampler",
        f"{example}/sampler.py:sample",
        "--name",
        "eight_schools",
    ]
    runs = [["compare", name, *COMPARE_ARGS] for name in names] + [[*byom, *COMPARE_ARGS]]
    runs += [[*byom[:-1], "eight_schools_grown", *GROWING_ARGS]]
    own = [*byom[1:-1], "eight_schools_validated"]
    for method in (SBC_ARGS, GEWEKE_ARGS):
        runs += [["validate", name, *method, *VALIDATE_ARGS] for name in names]
        runs += [["validate", *own, *method, *VALIDATE_ARGS]]
    runs = [[*argv, "--out", str(out)] for argv in runs]
    runs += [["validate", "regression", *RERUN_ARGS, *VALIDATE_ARGS, "--out", str(out / "rerun")]]
    sbc_pymc = ["validate", "regression", *PYMC_SBC_ARGS, "--sampler", "pymc", *VALIDATE_ARGS]
    return [*runs, [*sbc_pymc, "--out", str(out / "pymc")]]


def run_cli(
    tree: Path, argv: list[str], capture: bool = False, cache: Path | None = None
) -> subprocess.CompletedProcess:
    """Run ``python -m <tree's CLI> argv`` in ``tree``; a verdict's exit status expected.

    ``compare``: 0, 1 or 4 (``reference failed``: ``bivariate_normal`` at
    :data:`COMPARE_ARGS` in both trees); ``validate``: 0, 1, 3, or 2 for a pair
    that samples a fixed target (nothing is written, and a document written by
    one tree only is a difference).
    """
    env = {**os.environ, "PYTHONPATH": str(tree)}
    if cache is not None:  # the reference cache (issue 30): the tree's own, empty at first
        env["MCMC_PAIRS_CACHE"] = str(cache)
    done = subprocess.run(
        [sys.executable, "-m", cli_module(tree), *argv],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    validating = argv[0] == "validate"
    if done.returncode not in ((0, 1, 2, 3) if validating else (0, 1, 4)):
        raise RuntimeError(f"{tree}: {' '.join(argv)} exited {done.returncode}: {done.stderr}")
    return done


def without_timings(value):
    """Return ``value`` without the keys of :data:`TIMING_KEYS` and :data:`SOURCE_KEYS`."""
    if isinstance(value, dict):
        dropped = TIMING_KEYS | SOURCE_KEYS
        return {k: without_timings(v) for k, v in value.items() if k not in dropped}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def differences(a, b, path: str = "") -> list[str]:
    """Return the paths where two JSON values differ (key order counts: it is written order)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return [f"{path or '/'}: keys {list(a)} != {list(b)}"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}/{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b or (a != a and b != b) else [f"{path}: {a!r} != {b!r}"]


def write_reports(tree: Path, out: Path, say) -> None:
    """Run every command of :func:`commands` in ``tree``, reports under ``out``."""
    for argv in commands(tree, out):
        start = time.perf_counter()
        run_cli(tree, argv, cache=out.with_name(f"{out.name}-cache"))
        say(f"{tree.name}: {' '.join(argv[:2])} ({time.perf_counter() - start:.0f} s)")


def compare_reports(a: Path, b: Path) -> dict[str, list[str]]:
    """Return, per JSON file in either directory (its relative path), its differences."""
    names = sorted({str(p.relative_to(d)) for d in (a, b) for p in d.rglob("*.json")})
    found = {}
    for name in names:
        if not (a / name).is_file() or not (b / name).is_file():
            found[name] = ["written by one tree only"]
            continue
        docs = [without_timings(json.loads((d / name).read_text())) for d in (a, b)]
        found[name] = differences(*docs)
    return found


def main(argv: list[str] | None = None) -> int:
    """Write both trees' reports and compare them; print a line per document."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD", help="git revision (default HEAD)")
    args = parser.parse_args(argv)
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{args.baseline}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if rev.returncode != 0:
        print(f"same_json.py: error: --baseline {args.baseline!r} is not a commit", file=sys.stderr)
        return 2

    def say(message: str) -> None:
        print(f"[same_json] {message}", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="same-json-") as tmp:
        base = unpack(rev.stdout.strip(), Path(tmp) / "baseline")
        write_reports(ROOT, Path(tmp) / "this", say)
        write_reports(base, Path(tmp) / "base", say)
        found = compare_reports(Path(tmp) / "this", Path(tmp) / "base")
    for name, diffs in found.items():
        print(f"{name}: {'identical' if not diffs else f'{len(diffs)} differences'}")
        for d in diffs[:10]:
            print(f"    {d}")
    same = all(not d for d in found.values())
    print(
        f"{sum(not d for d in found.values())} of {len(found)} documents identical "
        f"(timings aside) against {args.baseline}"
    )
    return 0 if same and found else 1


if __name__ == "__main__":
    raise SystemExit(main())
