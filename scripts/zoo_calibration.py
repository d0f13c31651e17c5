"""Are the checks calibrated on a zoo model's real chains? ``scripts/zoo_calibration.py``.

The zoo study (``make power``) counts false alarms: whole verdicts. When a
model's count comes out above its target, the question is whether a check
misbehaves on that model's posterior (a tail quantile's MCSE, the energy
check's permutation null on NUTS chains) or the count is chance. This script
answers it from the check table itself: per seed it runs ``compare`` at one
look (``max_draws = draws``) of a zoo model's correct sampler against NUTS,
exactly as a user's run does (:func:`mcmc_pairs.comparisons.byom.model_pair`,
:func:`mcmc_pairs.comparisons.run.run_pair`), and keeps every side-against-side z-score
and the energy check's p-value. For a correct sampler each z should be about
Student-t (sd about 1; :data:`mcmc_pairs.comparisons.agreement.Z_DF`) and the energy
p-values uniform: the script writes, per (quantity, statistic), the z-scores'
mean, sd and how many exceed 3 and 4 in absolute value against what the
statistic's t distribution predicts, and the energy check's rejection counts at
5, 1 and 0.1 %.

Usage: ``python scripts/zoo_calibration.py [--model boundary] [--seeds 200]
[--workers 2] [--out FILE]`` (default ``benchmarks/zoo_calibration_<model>.md``;
about 1.5 s a seed on one core for ``boundary``).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import zoo  # noqa: E402
from mcmc_pairs.comparisons import agreement, errors  # noqa: E402
from mcmc_pairs.comparisons.files import write_atomic  # noqa: E402

FIRST_SEED = 5000
"""Seeds apart from the power study's (1000 onwards)."""
LEVELS = (0.05, 0.01, 0.001)


def one_seed(name: str, seed: int) -> tuple[pd.DataFrame, float]:
    """Return one seed's z-checks (quantity, statistic, z) and its energy p-value."""
    from mcmc_pairs.comparisons import run
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data

    model = next(m for m in zoo.MODELS if m.name == name)
    pair = model_pair(model.model, read_data(model.data), name=name)
    errors.quiet_third_party()
    settings = run.resolve_settings(pair, seed=seed)
    settings = settings.replace(max_draws=settings.draws)  # one look
    result = run.run_pair(pair, settings, sampler=model.sampler())
    checks = result.checks
    both = checks["comparison"].str.contains(" vs ")
    z = checks[both & (checks["kind"] == "agreement")][["quantity", "statistic", "value"]]
    energy = checks[both & (checks["kind"] == "multivariate")]
    return z.rename(columns={"value": "z"}), float(energy["p"].iloc[0])


def render(name: str, zs: pd.DataFrame, ps: np.ndarray, seconds: float, command: str) -> str:
    """Return the markdown page: a row per (quantity, statistic), then the energy check."""
    n = len(ps)
    lines = [
        f"# Calibration of the checks on the zoo's `{name}`",
        "",
        f"`{command}`: {n} seeds of `compare` at one look (the correct sampler against "
        f"NUTS), {seconds / 60:.1f} min. Every z below is side against side; a correct "
        "sampler's should be about Student-t with the statistic's degrees of freedom "
        "(`mcmc_pairs.comparisons.agreement.Z_DF`). Expected counts are that t's.",
        "",
        "| quantity | statistic | n | mean z | sd z | abs z > 3 (expected) "
        "| abs z > 4 (expected) |",
        "|---|---|---|---|---|---|---|",
    ]
    for (quantity, statistic), g in zs.groupby(["quantity", "statistic"], sort=False):
        z = g["z"].to_numpy(dtype=float)
        z = z[np.isfinite(z)]
        df = agreement.z_df(statistic)
        expect = [len(z) * 2 * stats.t.sf(c, df) for c in (3, 4)]
        lines.append(
            f"| {quantity} | {statistic} | {len(z)} | {z.mean():+.3f} | {z.std(ddof=1):.3f} | "
            f"{np.sum(np.abs(z) > 3)} ({expect[0]:.1f}) | {np.sum(np.abs(z) > 4)} "
            f"({expect[1]:.1f}) |"
        )
    lines += [
        "",
        "The energy check (block-permutation p-values; rejected when p <= the level):",
        "",
        "| level | rejected | expected |",
        "|---|---|---|",
    ]
    for level in LEVELS:
        lines.append(f"| {level:g} | {int(np.sum(ps <= level))} of {n} | {n * level:.1f} |")
    ks = stats.kstest(ps, "uniform")
    lines += ["", f"Kolmogorov-Smirnov test of uniform p-values: p = {ks.pvalue:.2g}.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the seeds on a process pool; write and print the page."""
    names = [m.name for m in zoo.MODELS]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=names, default="boundary")
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.workers < 1:
        parser.error("--seeds and --workers must be 1 or more")
    out = args.out or ROOT / "benchmarks" / f"zoo_calibration_{args.model}.md"
    start = time.perf_counter()
    seeds = range(FIRST_SEED, FIRST_SEED + args.seeds)
    if args.workers == 1:
        results = [one_seed(args.model, seed) for seed in seeds]
    else:  # spawned, not forked: PyMC's and numba's threads do not survive a fork
        with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
            results = list(pool.map(one_seed, [args.model] * len(seeds), seeds))
    zs = pd.concat([z for z, _ in results], ignore_index=True)
    ps = np.array([p for _, p in results])
    command = " ".join(["python scripts/zoo_calibration.py", *(argv or sys.argv[1:])])
    page = render(args.model, zs, ps, time.perf_counter() - start, command)
    write_atomic(out, page)
    print(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
