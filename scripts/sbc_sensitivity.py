"""Measure what an SBC pass certifies on regression, and check it by planting shifts.

1. The statement of :func:`mcmc_pairs.comparisons.sbc.sensitivity` (the smallest mean shift
   and sd ratios detected with 80 % power) for runs of ``regression``'s correct
   blocked Gibbs at 50, 100, 200 and 800 replications (seed 11, 1,000 draws,
   tune 50).
2. The check: the correct sampler with its ``beta0`` draws shifted by 0.4 and
   by 0.2 posterior sd (that run's own sd), SBC at 200 replications over seeds
   100, 101, ... (``--seeds``, 20): how many runs fail; and with them spread
   0.7 and 1.75 times about their mean (``--ratio-seeds``, 10).

Run: ``.venv/bin/python scripts/sbc_sensitivity.py`` (about 8 minutes on 2
cores; in one process, ``scheduler="synchronous"``). Prints one JSON line per
result; the README's numbers come from it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcmc_pairs.comparisons import validation as v  # noqa: E402
from mcmc_pairs.comparisons.registry import get_pair  # noqa: E402

SETTINGS = {"draws": 1000, "tune": 50}
RIGHT = "mcmc_pairs.handrolled.regression:sample_blocked"


def distorted(shift: float = 0.0, scale: float = 1.0):
    """Return the correct blocked Gibbs with ``beta0`` moved ``shift`` sd, spread ``scale``."""

    def sample(data, *, draws, tune, chains, random_seed):
        from mcmc_pairs.handrolled import regression

        out = regression.sample_blocked(
            data, draws=draws, tune=tune, chains=chains, random_seed=random_seed
        )
        b = out["beta0"]
        mean, sd = b.mean(), b.std()
        return {**out, "beta0": mean + scale * (b - mean) + shift * sd}

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
    parser.add_argument("--ratio-seeds", type=int, default=10, help="seeds per planted ratio")
    args = parser.parse_args(argv)
    for flag, value in (("--seeds", args.seeds), ("--ratio-seeds", args.ratio_seeds)):
        if value < 1:
            parser.error(f"{flag} must be >= 1, got {value}")
    for replications in (50, 100, 200, 800):
        result = run(RIGHT, replications, 11)
        sens = result.details["sensitivity"]
        line = {"replications": replications, "verdict": result.verdict, "shift": sens["shift"]}
        print(json.dumps({**line, "sd_ratio": sens["sd_ratio"]}), flush=True)
    planted = [({"shift": s}, args.seeds) for s in (0.4, 0.2)]
    planted += [({"scale": r}, args.ratio_seeds) for r in (0.7, 1.75)]
    for distortion, seeds in planted:
        caught = sum(
            run(distorted(**distortion), 200, seed).verdict == v.FAIL
            for seed in range(100, 100 + seeds)
        )
        print(json.dumps({"planted": distortion, "caught": caught, "runs": seeds}), flush=True)


if __name__ == "__main__":
    main()
