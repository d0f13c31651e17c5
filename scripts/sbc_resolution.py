"""Check that SBC catches the zoo's planted bugs larger than the resolution it states.

Issue 40: an SBC ``pass`` states, per quantity, the smallest shift of the posterior
mean (in posterior sds) it detects with 80 % power
(:func:`mcmc_pairs.comparisons.sbc.sensitivity`).
The claim is checked here on bugs nobody planted for SBC: each zoo model's
``sample_planted_bug`` (``zoo/README.md`` gives its size, measured on the zoo's
data set), run through ``validate --method sbc`` at the defaults of the power
study (200 replications of 1,000 draws after 100, one chain) at ``--seeds``
seeds. Per run: the verdict, and for the quantity the bug moves most
(:data:`BUG_SHIFTS`) the shift the run states it resolves there. A bug at least as
large as the stated shift should be caught (verdict ``fail``) in at least 80 %
of runs; a smaller one may pass, and the statement then says so ("not shifts
below").

Caveats, stated on the page: the bug's size is measured on one data set, and
SBC's replications simulate other data sets, on which the same bug moves the
posterior by other amounts; the statement is about shifts of one quantity at a
time.

Usage: ``python scripts/sbc_resolution.py [--models NAME ...] [--seeds 5]
[--workers 2] [--out benchmarks/sbc_resolution.md]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import zoo  # noqa: E402
from mcmc_pairs.comparisons.files import write_atomic  # noqa: E402

BUG_SHIFTS = {
    "changepoint": ("switchpoint", 0.46),
    "mixture": ("mu[0]", 0.28),
    "hierarchical": ("tau2", 0.28),
    "heavy_tailed": ("sigma2", 0.24),
    "boundary": ("q", 0.35),
    "counts": ("beta", 0.44),
    "deterministic_dims": ("sigma2", 0.31),
    "correlated": ("beta[1]", 0.32),
    "growth": ("tau2_beta", 0.30),
}
"""Per zoo model, the quantity its planted bug moves most and by how many posterior sds
(``zoo/README.md``, on the zoo's data set)."""
SIZES = {"replications": 200, "draws": 1000, "tune": 100, "chains": 1}
"""``validate``'s settings: the power study's (``scripts/power.py``)."""
FIRST_SEED = 7000


def one_run(name: str, seed: int, planted_bug: bool = True) -> dict:
    """SBC of a zoo model's planted bug (or its correct sampler) at ``seed``.

    Returns the verdict, the stated shift of the bug's quantity, and per ranked
    replication that quantity's kept draws' mean and sd (``moments``, by index):
    the correct sampler's, at the same seed, are the posterior the bug's are
    measured against (replication ``i`` simulates the same data in both runs).
    """
    from mcmc_pairs.comparisons import errors
    from mcmc_pairs.comparisons import validation as v
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data
    from mcmc_pairs.comparisons.parallel import SYNCHRONOUS
    from mcmc_pairs.comparisons.sbc import QUANTITY_DRAWS

    errors.quiet_third_party()
    model = zoo.get(name)
    sampler = model.sampler(planted_bug=planted_bug)
    pair = model_pair(model.model, read_data(model.data), sampler=sampler, name=name)
    start = time.perf_counter()
    result = v.validate(
        pair, sampler, method="sbc", scheduler=SYNCHRONOUS, seed=seed,
        progress=lambda event: None, **SIZES,
    )  # fmt: skip
    quantity, _ = BUG_SHIFTS[name]
    sens = result.details.get("sensitivity") or {"quantities": []}
    stated = {q["quantity"]: q["shift"] for q in sens["quantities"]}
    failed = sorted(set(result.checks.loc[~result.checks["passed"], "quantity"]))
    moments = {}
    for r in result.replications:
        if r.get("ranks") is not None and QUANTITY_DRAWS in r:
            draws = np.asarray(r[QUANTITY_DRAWS], dtype=float)[:, r["quantities"].index(quantity)]
            moments[r["index"]] = (float(draws.mean()), float(draws.std(ddof=1)))
    return {
        "model": name, "seed": seed, "planted_bug": planted_bug, "verdict": result.verdict,
        "stated": stated.get(quantity), "worst": sens.get("shift"), "failed": failed,
        "moments": moments, "seconds": time.perf_counter() - start,
    }  # fmt: skip


def sbc_size(bug: dict, correct: dict) -> float | None:
    """Return the bug's mean shift of its quantity over SBC's data sets, in posterior sds.

    Replication by replication, the bug's kept draws' mean minus the correct
    sampler's, over the correct sampler's sd, averaged (``None`` without common
    replications): how far the bug moves the posterior on the data SBC simulates,
    which can differ much from its size on the zoo's data set.
    """
    shifts = [
        (bug["moments"][i][0] - mean) / sd
        for i, (mean, sd) in correct["moments"].items()
        if i in bug["moments"] and sd > 0
    ]
    return float(np.mean(shifts)) if shifts else None


def render(runs: list[dict], command: str, seconds: float) -> str:
    """Return the page: one row per model, then the claim's check over every run."""
    lines = [
        "# Does SBC catch the bugs larger than the resolution it states?",
        "",
        f"`{command}` ({seconds / 60:.1f} min): SBC (`validate --method sbc`, "
        f"{SIZES['replications']} replications of {SIZES['draws']:,} draws after "
        f"{SIZES['tune']}, one chain) of each zoo model's planted bug, and of its correct "
        f"sampler at the first seed ({FIRST_SEED}; *correct*: its verdict). *stated* is "
        "the smallest shift of the bug's quantity the bug's run says it detects with 80 % "
        "power (its range over the runs). *zoo data* is the bug's shift of that quantity on "
        "the zoo's data set (`zoo/README.md`); *SBC data* its mean shift over SBC's "
        "simulated data sets (replication by replication, the bug's kept draws' mean minus "
        "the correct sampler's at the same seed, over the correct sampler's sd): the size "
        "SBC sees. The claim: a bug whose SBC-data shift is at least the stated one is "
        "caught (`fail`) in at least 80 % of runs.",
        "",
        "| model | quantity | zoo data (sd) | SBC data (sd) | stated (sd) | correct | bug runs "
        "| caught | SBC-data shift >= stated | caught among those |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    above, caught_above = 0, 0
    for name in dict.fromkeys(r["model"] for r in runs):
        quantity, size = BUG_SHIFTS[name]
        bugs = [r for r in runs if r["model"] == name and r["planted_bug"]]
        correct = next((r for r in runs if r["model"] == name and not r["planted_bug"]), None)
        same_seed = next((r for r in bugs if correct and r["seed"] == correct["seed"]), None)
        seen = sbc_size(same_seed, correct) if same_seed and correct else None
        stated = [r["stated"] for r in bugs if r["stated"] is not None]
        span = f"{min(stated):g}–{max(stated):g}" if stated else "not reached"
        big = [r for r in bugs if seen is not None and r["stated"] is not None]
        big = [r for r in big if abs(seen) >= r["stated"]]
        caught = sum(r["verdict"] == "fail" for r in bugs)
        caught_big = sum(r["verdict"] == "fail" for r in big)
        above += len(big)
        caught_above += caught_big
        lines.append(
            f"| {name} | `{quantity}` | {size:g} | "
            f"{'–' if seen is None else f'{seen:+.2f}'} | {span} | "
            f"{correct['verdict'] if correct else '–'} | {len(bugs)} | {caught} | {len(big)} | "
            f"{caught_big} of {len(big)} |"
        )
    rate = f"{caught_above / above:.0%}" if above else "n/a"
    lines += [
        "",
        f"Over every run whose stated shift the bug's SBC-data shift reaches: caught "
        f"{caught_above} of {above} ({rate}); the claim is at least 80 %.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the SBC runs on a process pool; write and print the page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=sorted(BUG_SHIFTS), default=None)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "sbc_resolution.md")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.workers < 1:
        parser.error("--seeds and --workers must be 1 or more")
    names = args.models or [m.name for m in zoo.MODELS if m.name in BUG_SHIFTS]
    jobs = [(name, FIRST_SEED, False) for name in names]  # the correct samplers first
    jobs += [(name, FIRST_SEED + k, True) for k in range(args.seeds) for name in names]
    start = time.perf_counter()
    command = " ".join(["python scripts/sbc_resolution.py", *(argv or sys.argv[1:])])
    runs: list[dict] = []
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
        for run in pool.map(one_run, *zip(*jobs, strict=True)):  # in order, as they finish
            print({k: v for k, v in run.items() if k != "moments"}, flush=True)
            runs.append(run)
            ordered = sorted(
                runs, key=lambda r: (names.index(r["model"]), r["planted_bug"], r["seed"])
            )
            page = render(ordered, command, time.perf_counter() - start)
            write_atomic(args.out, page)  # the runs so far: an interrupted study keeps them
    print(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
