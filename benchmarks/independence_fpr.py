"""False-positive rate of the independence check on every correct sampler of the suite and the zoo.

For every hand-written sampler of the six registered pairs
(``comparisons/registry.py``) and every zoo model's correct sampler
(``zoo/*/sampler.py:sample``), at the pair's default draws, tune and chains and
several seeds, the sampler runs alone (no PyMC sampling), its draws become the
quantities ``compare`` would judge (components, centred products, the pair's
derived quantities and PyMC's ``log_prior``/``log_likelihood`` of each draw, by
``run._attach_quantities`` with the side as its own reference) and
:func:`mcmc_pairs.comparisons.honesty.independence_check` judges them. Printed:
one row per sampler (seeds run, seeds flagged, the largest ``|r| / threshold``
over the seeds, its chain correlation, the runs the near-copy check flagged
against an independent run of the same sampler, and the quantity) and the totals.

    .venv/bin/python -m benchmarks.independence_fpr --seeds 1 2 3 4 5

A correct sampler's chains are independent, so every flag is a false positive.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np

from mcmc_pairs.comparisons import honesty, registry, run
from mcmc_pairs.comparisons.agreement import discrete_quantities
from mcmc_pairs.comparisons.contract import to_datatree
from mcmc_pairs.comparisons.loading import resolve
from mcmc_pairs.comparisons.pymc_runner import PYMC
from mcmc_pairs.comparisons.sides import Side
from mcmc_pairs.comparisons.witness import ModelWitness


def samplers() -> list[tuple[str, object, object]]:
    """Return ``(name, pair, sampler spec)`` for every correct sampler of the suite and the zoo."""
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data
    from zoo import MODELS

    found = []
    for pair in registry.PAIRS:
        for variant, spec in pair.handrolled.items():
            found.append((f"{pair.name}:{variant}", pair, spec))
    for model in MODELS:
        pair = model_pair(model.model, read_data(model.data), name=f"zoo_{model.name}")
        found.append((f"zoo:{model.name}", pair, model.sampler()))
    return found


def quantities_of(pair, spec, seed: int, witness: ModelWitness, data):
    """Run ``spec`` at the pair's default settings and ``seed``; return its compared quantities."""
    settings = run.resolve_settings(pair, seed=seed)
    shapes = {name: witness.variables[name] for name in pair.variables}
    output = resolve(spec)(
        copy.deepcopy(data),
        draws=settings.draws,
        tune=settings.tune,
        chains=settings.chains,
        random_seed=seed,
    )
    tree = to_datatree(output, list(shapes), shapes, settings.chains, settings.draws, str(spec))
    side = Side(PYMC, PYMC, str(spec), tree, {})
    reference = dict(pair.reference(data)) if pair.reference else {}
    run._attach_quantities(pair, data, {PYMC: side}, reference, witness)
    return side.quantities


OTHER_SEED = 10_000
"""Added to a seed for the independent run the near-copy check is tried against."""


def judge(pair, spec, seed: int, witness: ModelWitness, data) -> dict:
    """Return the independence row of ``spec`` at ``seed``, with the near-copy check's verdict.

    The row also has ``max_z``, the largest ``|r| / sd`` over every chain pair and
    tested quantity (the test alone, without the floor :data:`~.honesty.R_FLOOR`),
    ``tests``, their number, and ``near``, whether
    :func:`~mcmc_pairs.comparisons.honesty.near_copy_check` flagged the run against
    an independent run of the same sampler (seed + :data:`OTHER_SEED`), standing
    in for an independent reference.
    """
    quantities = quantities_of(pair, spec, seed, witness, data)
    row = honesty.independence_check(PYMC, quantities, discrete_quantities({PYMC: quantities}))
    values = np.asarray(quantities.transpose("chain", "draw", "quantity").values, dtype=float)
    keep = honesty.testable(values)
    _, r, sd = honesty.chain_correlations(values[..., keep])
    other = quantities_of(pair, spec, seed + OTHER_SEED, witness, data)
    near = honesty.near_copy_check(PYMC, quantities, other)
    return row | {
        "max_z": float(np.max(np.abs(r / sd))),
        "tests": r.size,
        "near": not near["passed"],
    }


def main(argv: list[str] | None = None) -> None:
    """Print one row per sampler, then the total of runs flagged.

    Columns: seeds, flagged, tests per run, the largest ``|z|`` and Bonferroni's
    critical z, the worst ``|r| / threshold`` over the seeds, its r and quantity, seconds.
    """
    from scipy import stats

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--only", help="run only the samplers whose name contains this")
    args = parser.parse_args(argv)
    print(
        f"{'sampler':30} {'seeds':>5} {'flagged':>7} {'tests':>6} {'max|z|':>6} {'z crit':>6} "
        f"{'worst':>6} {'r':>7} {'near':>4}  quantity  (s)"
    )
    runs = flagged = near = 0
    for name, pair, spec in samplers():
        if args.only and args.only not in name:
            continue
        data = pair.load_data()
        witness = ModelWitness(pair.model, data, argument="model")
        start = time.perf_counter()
        rows = [judge(pair, spec, seed, witness, data) for seed in args.seeds]
        ratios = [abs(row["value"]) / row["threshold"] for row in rows]
        worst = rows[int(np.nanargmax(ratios))] if not np.all(np.isnan(ratios)) else rows[0]
        bad = sum(not row["passed"] for row in rows)
        runs, flagged = runs + len(rows), flagged + bad
        copies = sum(row["near"] for row in rows)
        near += copies
        tests = max(row["tests"] for row in rows)
        critical = stats.norm.isf(honesty.ALPHA / (2 * tests))
        print(
            f"{name:30} {len(rows):5d} {bad:7d} {tests:6d} {max(r['max_z'] for r in rows):6.2f} "
            f"{critical:6.2f} {np.nanmax(ratios):6.3f} {worst['value']:7.3f} {copies:4d}  "
            f"{worst['quantity']}  ({time.perf_counter() - start:.0f})",
            flush=True,
        )
    print(f"total: {flagged} of {runs} runs flagged; near copies: {near} of {runs}")


if __name__ == "__main__":
    main()
