"""Tails of correct samplers' z-scores against exact answers: ``python scripts/z_calibration.py``.

A z-score ``(estimate - exact) / mcse`` has heavier tails than a normal because
the MCSE in its denominator is itself estimated, and how much heavier depends on
the statistic: a mean's MCSE rests on one ESS, a quantile's on the ESS of an
indicator and the spacing of order statistics, an sd's on the ESS of squared
deviations and a fourth moment. :data:`mcmc_pairs.comparisons.agreement.Z_DF` gives each
statistic the degrees of freedom of the Student-t its p-values come from.

For each correct sampler with an exact reference (its pair's default draws,
tune and chains; a new seed per run) this script computes every z-score of
every component against the exact answer, counts those beyond 3, 3.5, 4, 4.5
and 5 per statistic (the 5 % and 95 % quantiles pooled: their MCSEs are
estimated alike), and sets them beside what a Student-t with each candidate
number of degrees of freedom predicts. A statistic's degrees of freedom are the
largest candidate whose predictions are not exceeded significantly at any of
those points (one-sided Poisson test at 0.05): the far tail decides, since
Holm's thresholds lie between 4 and 5.5. The choice and the counts go to
``benchmarks/z_calibration.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import arviz_base as azb
import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcmc_pairs.comparisons import agreement  # noqa: E402
from mcmc_pairs.comparisons.files import write_atomic  # noqa: E402
from mcmc_pairs.comparisons.loading import resolve  # noqa: E402
from mcmc_pairs.comparisons.registry import get_pair  # noqa: E402
from mcmc_pairs.comparisons.run import resolve_settings  # noqa: E402

SAMPLERS = (
    ("bivariate_normal", "gibbs"),
    ("regression", "blocked"),
    ("mh_normal", "random_walk"),
    ("mh_normal", "independence"),
    ("mh_beta", "independence"),
)
"""Correct samplers of continuous targets whose components all have exact marginals."""
POINTS = (3.0, 3.5, 4.0, 4.5, 5.0)
FAMILIES = {"mean": ("mean",), "sd": ("sd",), "q50": ("q50",), "q5, q95": ("q5", "q95")}
"""Statistics whose z-scores are pooled: the two tail quantiles share one df."""
LEVEL = 0.05
CANDIDATES = (8, 10, 12, 15, 20, 25, 30)
"""Degrees of freedom tried; none lighter-tailed than the 30 measured for the mean before."""


def z_scores(pair_name: str, variant: str, runs: int, seed: int) -> pd.DataFrame:
    """Return every z-score of ``runs`` runs of one correct sampler against its exact answer."""
    pair = get_pair(pair_name)
    data = pair.load_data()
    reference = pair.reference(data)
    settings = resolve_settings(pair)
    sampler = resolve(pair.handrolled[variant], argument="sampler")
    frames = []
    for run in range(runs):
        out = sampler(
            data,
            draws=settings.draws,
            tune=settings.tune,
            chains=settings.chains,
            random_seed=seed + run,
        )
        tree = out if isinstance(out, xr.DataTree) else azb.from_dict({"posterior": out})
        posterior = tree["posterior"].to_dataset()  # as the harness converts it
        components = agreement.scalar_components(posterior, pair.variables)
        summary = agreement.summarize(components)
        checks = agreement.z_checks({"side": summary}, [], reference)
        frames.append(checks[["quantity", "statistic", "z"]].assign(run=run))
    return pd.concat(frames, ignore_index=True).assign(sampler=f"{pair_name}:{variant}")


def tail_table(z: pd.DataFrame) -> pd.DataFrame:
    """Count |z| beyond each of :data:`POINTS` per family of statistics, with each sample's size."""
    rows = []
    for statistic, members in FAMILIES.items():
        group = z[z["statistic"].isin(members)]
        values = np.abs(group["z"].to_numpy(dtype=float))
        values = values[np.isfinite(values)]
        rows.append(
            {"statistic": statistic, "n": values.size}
            | {f">{x:g}": int((values > x).sum()) for x in POINTS}
        )
    return pd.DataFrame(rows).set_index("statistic")


def chosen_df(counts: pd.Series, n: int, level: float = LEVEL) -> int:
    """Return the largest candidate df whose predicted tail counts the observed don't exceed.

    Exceeding means a one-sided Poisson test rejects at ``level`` at one of :data:`POINTS`.
    """
    best = CANDIDATES[0]
    for df in CANDIDATES:
        expected = [n * 2 * stats.t.sf(x, df) for x in POINTS]
        observed = [counts[f">{x:g}"] for x in POINTS]
        if all(stats.poisson.sf(o - 1, e) > level for o, e in zip(observed, expected, strict=True)):
            best = df
    return best


def render(z: pd.DataFrame, runs: int, seconds: float, command: str) -> str:
    """Return the Markdown page: counts per statistic, t predictions and the chosen df."""
    table = tail_table(z)
    lines = [
        "# Tails of z-scores of correct samplers against exact answers",
        "",
        f"Produced by `{command}` in {seconds:.0f} s: {runs} runs of each of "
        + ", ".join(f"`{s}:{v}`" for s, v in SAMPLERS)
        + " at its pair's default settings, every component's mean, sd and 5/50/95 % "
        "quantiles against the exact answer, MCSEs from `arviz_stats.mcse` "
        "(`scripts/z_calibration.py`).",
        "",
        "Counts of |z| beyond each point; below each, what a Student-t predicts with the "
        "statistic's chosen degrees of freedom (df) and with 30. *chosen df*: the largest "
        f"of {', '.join(map(str, CANDIDATES))} whose predictions no count exceeds "
        f"significantly (one-sided Poisson test at {LEVEL:g} at each point); "
        "`mcmc_pairs.comparisons.agreement.Z_DF` uses it.",
        "",
        "| statistic | z-scores | "
        + " | ".join(f"\\|z\\| > {x:g}" for x in POINTS)
        + " | chosen df | in Z_DF |",
        "|---|---|" + "---|" * len(POINTS) + "---|---|",
    ]
    for statistic, row in table.iterrows():
        df = chosen_df(row, int(row["n"]))
        used = ", ".join(str(agreement.z_df(m)) for m in FAMILIES[statistic])
        observed = " | ".join(str(row[f">{x:g}"]) for x in POINTS)
        lines.append(f"| {statistic} | {int(row['n'])} | {observed} | {df} | {used} |")
        for nu in sorted({df, 30}):
            predicted = " | ".join(f"{row['n'] * 2 * stats.t.sf(x, nu):.1f}" for x in POINTS)
            lines.append(f"| ↳ t({nu}) predicts | | {predicted} | | |")
    lines += [
        "",
        "Per sampler (|z| > 4 and > 4.5, all statistics):",
        "",
        "| sampler | z-scores | \\|z\\| > 4 | \\|z\\| > 4.5 |",
        "|---|---|---|---|",
    ]
    for sampler, group in z.groupby("sampler", sort=False):
        values = np.abs(group["z"].to_numpy(dtype=float))
        lines.append(
            f"| `{sampler}` | {values.size} | {int((values > 4).sum())} "
            f"| {int((values > 4.5).sum())} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    """Measure every sampler of :data:`SAMPLERS` and write the Markdown page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="runs per sampler")
    parser.add_argument("--seed", type=int, default=50_000)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    frames = []
    for pair_name, variant in SAMPLERS:
        frames.append(z_scores(pair_name, variant, args.runs, args.seed))
        print(f"{pair_name}:{variant}: {time.perf_counter() - start:.0f} s", flush=True)
    z = pd.concat(frames, ignore_index=True)
    command = "python scripts/z_calibration.py" + (
        f" --runs {args.runs}" if args.runs != 2000 else ""
    )
    page = render(z, args.runs, time.perf_counter() - start, command)
    write_atomic(args.out / "z_calibration.md", page)
    print(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
