"""Wall and CPU time of ``mcmc-pairs report``: this tree against an earlier commit, side by side.

The baseline is ``git archive REV`` unpacked into a temporary directory; both
trees run with this interpreter (the same packages), ``PYTHONPATH`` set to the
tree. The runs alternate (this tree, the baseline, this tree, ...) after
``--warmup`` unrecorded runs of each (numba's caches of both trees are then
warm), so a drift of the machine's speed hits both. Per run: the wall time
(a monotonic clock around the whole command), the CPU time (user + system of
the command and every process it waited for: its workers, the summaries'
child) and the peak resident memory of its largest process, all from the
operating system's accounting of the finished command (``os.wait4``).
Printed: min, median and max of each, and the median of the per-pair ratios
this tree / baseline (the figure to quote; issue 17's target is a wall ratio
of at most 0.5).

Usage::

    python benchmarks/report_time.py [--baseline REV] [--runs 3] [--warmup 1]

The report's own output goes to temporary directories; the command prints
only the table. About ``(runs + warmup) x (new + old)`` report runs: 8 to 10
minutes for the defaults on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli_module(tree: Path) -> str:
    """Return the CLI module of ``tree``: under ``mcmc_pairs`` since issue 27, top level before."""
    return "mcmc_pairs.comparisons.cli" if (tree / "mcmc_pairs").is_dir() else "comparisons.cli"


def unpack(rev: str, into: Path) -> Path:
    """Unpack ``git archive rev`` of this repository into ``into`` (created); return it."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run_report(tree: Path, out: Path) -> dict[str, float]:
    """Run ``report`` of ``tree`` once; return its wall, CPU (s) and peak memory (MB).

    ``os.wait4`` gives the command's own accounting: its CPU time with that of
    every process it waited for (its workers, the summaries' child), and the
    largest resident set among them.
    """
    env = {**os.environ, "PYTHONPATH": str(tree)}  # mcmc_pairs finds the tree's folders
    env["MCMC_PAIRS_CACHE"] = str(out / "reference_cache")  # empty: every run computes PyMC
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", cli_module(tree), "report", "--out", str(out)],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    if process.returncode not in (0, 1):  # 1 is a disagreeing pair: a verdict, still timed
        raise SystemExit(f"report in {tree} exited {process.returncode}: {stderr[-500:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "peak_mb": usage.ru_maxrss / 1024}


def spread(values: list[float]) -> str:
    """``median [min–max]`` of ``values``."""
    return f"{statistics.median(values):.1f} [{min(values):.1f}–{max(values):.1f}]"


def main(argv: list[str] | None = None) -> int:
    """Run both reports in turn and print the table; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline",
        default="7114603",
        help="git revision to compare with (default: before issue 17)",
    )
    parser.add_argument("--runs", type=int, default=3, help="recorded runs of each")
    parser.add_argument("--warmup", type=int, default=1, help="unrecorded runs of each first")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be >= 1 and --warmup >= 0")
    with tempfile.TemporaryDirectory(prefix="report-time-") as tmp:
        tmp = Path(tmp)
        trees = {"this tree": ROOT, f"baseline {args.baseline}": unpack(args.baseline, tmp / "old")}
        runs: dict[str, list[dict[str, float]]] = {label: [] for label in trees}
        for k in range(args.warmup + args.runs):
            for i, (label, tree) in enumerate(trees.items()):
                result = run_report(tree, tmp / f"out-{i}-{k}")
                if k >= args.warmup:
                    runs[label].append(result)
                print(
                    f"{'warm-up' if k < args.warmup else 'run'} {k + 1}: {label}: "
                    f"wall {result['wall']:.1f} s, CPU {result['cpu']:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
    new, old = runs.values()
    print(f"mcmc-pairs report, {args.runs} runs of each in turn after {args.warmup} warm-up")
    print(f"{os.cpu_count()} CPUs, load average at the end {os.getloadavg()[0]:.2f}\n")
    print("| | wall (s) | CPU, user + system (s) | peak RSS (MB) |")
    print("|---|---|---|---|")
    for label, rows in runs.items():
        cells = [spread([r[key] for r in rows]) for key in ("wall", "cpu", "peak_mb")]
        print(f"| {label} | " + " | ".join(cells) + " |")
    wall = statistics.median(a["wall"] / b["wall"] for a, b in zip(new, old, strict=True))
    cpu = statistics.median(a["cpu"] / b["cpu"] for a, b in zip(new, old, strict=True))
    print(f"| ratio, median of pairs | **{wall:.2f}** | {cpu:.2f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
