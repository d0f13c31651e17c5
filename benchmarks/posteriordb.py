"""PyMC 6 against posteriordb's reference draws: ``python -m benchmarks.posteriordb``.

For every posterior shipped in :mod:`mcmc_pairs.pairdata.posteriordb`, runs
``compare`` with the PyMC model written here from its Stan model under test
(``--sampler pymc``: PyMC's own sampler, NUTS through nutpie) and posteriordb's
reference draws as the reference (``--reference posteriordb:NAME``: 10 chains
of 1,000 draws, thinned and checked by posteriordb), exactly as

    mcmc-pairs compare --model mcmc_pairs.models.posteriordb.<module>:build_model
        --data posteriordb:NAME --reference posteriordb:NAME --sampler pymc

does, at the default settings and seed. Per posterior: the verdict, the worst
resolution reached (in posterior sds, over the certified checks), the number of
checks and of failed ones, the largest |z| over its Holm threshold, and the
wall time. Writes ``benchmarks/posteriordb.json`` and ``benchmarks/posteriordb.md``
(``--out-dir``) and prints the Markdown. Exit 0 when every posterior ran (a
verdict other than ``agree`` is a finding, reported and explained in the
Markdown's notes, not a failure), 1 when one raised, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(name: str, *, seed: int | None = None) -> dict:
    """Run one posterior's comparison; return its row of the table."""
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.kinds import Z_KINDS
    from mcmc_pairs.comparisons.report import resolution_table
    from mcmc_pairs.comparisons.run import resolve_settings, run_pair
    from mcmc_pairs.pairdata import posteriordb

    start = time.perf_counter()
    data = posteriordb.load_data(name)
    pair = model_pair(posteriordb.model_spec(name), data, None, name=name)
    reference = f"posteriordb:{name}"
    result = run_pair(
        pair,
        resolve_settings(pair, seed=seed),
        sampler="pymc",
        data=data,
        reference=reference,
        progress=lambda e: None,
    )
    seconds = time.perf_counter() - start
    checks = result.checks
    z = checks[checks["kind"].isin(Z_KINDS)]
    excess = (z["value"].abs() / z["threshold"]).max() if len(z) else float("nan")
    table = resolution_table(result)
    return {
        "posterior": name,
        "variables": {v: list(s) for v, s in _shapes(result).items()},
        "verdict": str(result.verdict),
        "worst_resolution": None if table.empty else float(table.max().max()),
        "checks": len(checks),
        "failed": int((~checks["passed"]).sum()),
        "max_z_over_threshold": float(excess),
        "pymc": result.sides["user"].sampler,
        "looks": len(result.looks),
        "draws": result.looks[-1]["draws"],
        "seconds": seconds,
    }


def _shapes(result) -> dict[str, tuple[int, ...]]:
    posterior = result.sides["pymc"].tree["posterior"]
    return {v: tuple(posterior[v].shape[2:]) for v in result.pair.variables}


def markdown(rows: list[dict]) -> str:
    """Return the table as Markdown."""
    lines = [
        "# PyMC 6 against posteriordb's reference draws",
        "",
        "`python -m benchmarks.posteriordb` (part of `make bench`): each PyMC model written",
        "here from posteriordb's Stan model, sampled by PyMC's default sampler at the",
        "default settings (4 chains x 1,000 draws after 1,000 tuning, growing while",
        "undecided), compared with posteriordb's reference draws (10 x 1,000).",
        "Resolution: the largest difference, in posterior sds, that `agree` rules out",
        "at 95 % confidence (mean, sd, median: target 0.2; 5 % and 95 % quantiles: 0.4).",
        "",
        "| posterior | parameters | verdict | worst resolution | failed / checks "
        "| max abs(z) / threshold | PyMC | draws | time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        size = sum(math.prod(s) for s in r["variables"].values())
        resolution = "–" if r["worst_resolution"] is None else f"{r['worst_resolution']:.2f}"
        lines.append(
            f"| {r['posterior']} | {size} | {r['verdict']} | {resolution} | "
            f"{r['failed']} / {r['checks']} | {r['max_z_over_threshold']:.2f} | {r['pymc']} | "
            f"{r['draws']} | {r['seconds']:.1f} s |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Measure every shipped posterior (or ``--posteriors``); write JSON and Markdown."""
    from mcmc_pairs.comparisons.files import write_atomic
    from mcmc_pairs.pairdata import posteriordb

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posteriors", nargs="+", default=list(posteriordb.POSTERIORS))
    parser.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks")
    args = parser.parse_args(argv)
    unknown = [p for p in args.posteriors if p not in posteriordb.POSTERIORS]
    if unknown:
        print(f"posteriordb.py: error: --posteriors {unknown} are not shipped", file=sys.stderr)
        return 2
    rows, failed = [], []
    for name in args.posteriors:
        try:
            rows.append(measure(name))
            status = f"{rows[-1]['verdict']} in {rows[-1]['seconds']:.1f} s"
        except Exception as exc:  # a posterior that fails is reported, the others go on
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
            status = "failed"
        print(f"[posteriordb] {name}: {status}", file=sys.stderr, flush=True)
    text = markdown(rows)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out_dir / "posteriordb.json", json.dumps(rows, indent=1) + "\n")
    write_atomic(args.out_dir / "posteriordb.md", text)
    print(text)
    for line in failed:
        print(f"failed: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
