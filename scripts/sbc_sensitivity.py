"""Measure what an SBC pass certifies on regression, and check it by planting shifts.

1. The statement of :func:`comparisons.sbc.sensitivity` (the smallest mean shift
   and sd ratios detected with 95 % power) for runs of ``regression``'s correct
   blocked Gibbs at 50, 100, 200 and 800 replications (seed 11, 1,000 draws,
   tune 50).
2. The check: the correct sampler with its ``beta0`` draws shifted by 0.4 and
   by 0.2 posterior sd (that run's own sd), SBC at 200 replications over seeds
   100, 101, ...: how many runs fail.

Run: ``.venv/bin/python scripts/sbc_sensitivity.py [--seeds 20]`` (about 6
minutes on 2 cores; in one process, ``scheduler="synchronous"``). Prints one
JSON line per result; the README's numbers come from it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from comparisons import validation as v  # noqa: E402
from comparisons.registry import get_pair  # noqa: E402

SETTINGS = {"draws": 1000, "tune": 50}
RIGHT = "handrolled.regression:sample_blocked"


def shifted(shift: float):
    """Return the correct blocked Gibbs with ``beta0`` moved ``shift`` of its draws' sd."""

    def sample(data, *, draws, tune, chains, random_seed):
        from handrolled import regression

        out = regression.sample_blocked(
            data, draws=draws, tune=tune, chains=chains, random_seed=random_seed
        )
        return {**out, "beta0": out["beta0"] + shift * out["beta0"].std()}

    return sample


def run(sampler, replications: int, seed: int):
    """SBC of ``sampler`` on regression, in this process."""
    return v.validate(
        get_pair("regression"), sampler, method="sbc", scheduler="synchronous",
        replications=replications, seed=seed, progress=None, **SETTINGS,
    )  # fmt: skip


def main(argv=None) -> None:
    """Print the statements and the planted shifts' catch counts as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="seeds per planted shift")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds must be >= 1, got {args.seeds}")
    for replications in (50, 100, 200, 800):
        result = run(RIGHT, replications, 11)
        sens = result.details["sensitivity"]
        line = {"replications": replications, "verdict": result.verdict, "shift": sens["shift"]}
        print(json.dumps({**line, "sd_ratio": sens["sd_ratio"]}), flush=True)
    for shift in (0.4, 0.2):
        caught = sum(
            run(shifted(shift), 200, seed).verdict == v.FAIL
            for seed in range(100, 100 + args.seeds)
        )
        print(json.dumps({"planted_shift": shift, "caught": caught, "runs": args.seeds}))


if __name__ == "__main__":
    main()
