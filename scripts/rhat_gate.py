"""Measured false alarms of the R-hat gate on correct chains: ``python scripts/rhat_gate.py``.

Correct chains are stationary AR(1) processes (4 chains, independent across
quantities, lag-one correlation ``rho``): every R-hat alarm on them is a false
one. For each setting the script counts the runs in which at least one of the
side's ``m`` quantities fails the gate, under the fixed rule (R-hat < 1.01) and
under the rule of :func:`mcmc_pairs.comparisons.agreement.rhat_threshold` (1.01, raised
for many quantities or few effective draws so that the family-wise rate stays
at most ``alpha``), and writes ``benchmarks/rhat_gate.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import xarray as xr
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcmc_pairs.comparisons import agreement  # noqa: E402
from mcmc_pairs.comparisons.files import write_atomic  # noqa: E402

SETTINGS = ((1, 0.0), (1, 0.8), (50, 0.5), (50, 0.8), (650, 0.5))
"""(quantities, rho) of each row: with rho <= 0.8 the chains' bulk ESS is about 440
or more, above the ESS gate (400), so the R-hat gate alone decides."""


def ar1_chains(rng: np.random.Generator, chains: int, draws: int, m: int, rho: float):
    """Return stationary AR(1) draws, shape (chains, draws, m), unit marginal variance."""
    x = np.empty((chains, draws, m))
    x[:, 0] = rng.standard_normal((chains, m))
    noise = np.sqrt(1.0 - rho**2) * rng.standard_normal((chains, draws, m))
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    return x


def alarms(m: int, rho: float, runs: int, chains: int, draws: int, seed: int) -> dict:
    """Count runs with an R-hat alarm under the fixed 1.01 and under the scaled rule."""
    rng = np.random.default_rng([seed, m, int(1000 * rho)])
    fixed = scaled = 0
    for _ in range(runs):
        draws_ = ar1_chains(rng, chains, draws, m, rho)
        quantities = xr.DataArray(draws_, dims=("chain", "draw", "quantity"))
        summary = agreement.summarize(quantities.assign_coords(quantity=np.arange(m)))
        gates = agreement.diagnostic_checks({"side": summary}, chains, draws)
        r_hat = gates[gates["statistic"] == "r_hat"]
        fixed += bool((r_hat["value"] >= agreement.RHAT_MAX).any())
        scaled += bool((~r_hat["passed"]).any())
    return {"m": m, "rho": rho, "runs": runs, "fixed": fixed, "scaled": scaled}


def main(argv=None) -> int:
    """Measure every setting of :data:`SETTINGS` and write the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--runs-large", type=int, default=50, help="runs with 650 quantities")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "rhat_gate.md")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = []
    for m, rho in SETTINGS:
        runs = args.runs_large if m > 100 else args.runs
        rows.append(alarms(m, rho, runs, 4, args.draws, args.seed))
        print(rows[-1], file=sys.stderr, flush=True)
    lines = [
        "# False alarms of the R-hat gate on correct chains",
        "",
        f"4 chains x {args.draws} draws of independent stationary AR(1) quantities; a run "
        "raises an alarm when any of its m quantities fails the gate. Nominal family-wise "
        f"rate of the scaled rule: {agreement.ALPHA}. Produced by `python scripts/rhat_gate.py` "
        f"in {(time.perf_counter() - start) / 60:.1f} min on 2 cores.",
        "",
        "| quantities | rho | runs | R-hat < 1.01 | scaled rule | 95% upper bound (scaled) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        ci = stats.binomtest(r["scaled"], r["runs"]).proportion_ci(method="exact")
        high = ci.high
        lines.append(
            f"| {r['m']} | {r['rho']} | {r['runs']} | {r['fixed']}/{r['runs']} | "
            f"{r['scaled']}/{r['runs']} | {high:.3f} |"
        )
    text = "\n".join(lines) + "\n"
    write_atomic(args.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
