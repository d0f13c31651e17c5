"""Measured power and false alarms of every check: ``make power`` (not in the quick tests).

Runs each check on every correct sampler over many seeds (false-alarm rate) and
on every deliberately wrong sampler of the catalogue (detection rate), as each
pair declares them (``Pair.handrolled`` and ``Pair.wrong``), and writes
``benchmarks/power.md`` and ``benchmarks/power.json``.

Checks:

* ``compare``: ``mcmc-pairs compare NAME --sampler SPEC --seed S`` at the pair's
  default settings, against NUTS and, where the pair has one, the exact answer
  (z-checks of mean, sd and quantiles of every component, centred product and
  derived quantity, Holm-corrected, plus the R-hat and ESS gates); any verdict
  but ``agree`` is an alarm. PyMC runs once per pair and seed; every sampler of
  that pair and seed is compared with the same run (``run_pair(pymc_from=...)``).
* ``geweke`` and ``sbc``: :func:`comparisons.validation.validate` at the sizes
  below, on pairs that declare a prior and a simulator; LDA's validation corpus
  and label-invariant quantities are in :mod:`comparisons.pairs.lda`.

Usage: ``python scripts/power.py [--seeds-correct N] [--seeds-wrong N] [--pairs NAME ...]
[--scheduler ADDRESS]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from comparisons import agreement, run  # noqa: E402
from comparisons import validation as v  # noqa: E402
from comparisons.contract import SamplerError  # noqa: E402
from comparisons.files import write_atomic  # noqa: E402
from comparisons.parallel import open_client  # noqa: E402
from comparisons.registry import PAIRS, get_pair  # noqa: E402

TWIN_SBC = ("regression", "bayes_net")
"""Pairs whose PyMC twin (``--sampler pymc``) goes through SBC here, ``--seeds-twin`` times.

Every replication compiles the twin's model (about 1.8 s on regression, 0.24 s
on bayes_net); LDA's 15 s a replication is left out.
"""
SIZES = {
    "geweke": {"replications": 10, "steps": 200, "tune": 20},
    "sbc": {"replications": 200, "draws": 1000, "tune": 100, "chains": 1},
}
"""Validation sizes used here (smaller than the CLI defaults: the study fits in an hour)."""


def compare(pair_name: str, sampler: str, seed: int, references: dict) -> bool:
    """Run ``mcmc-pairs compare`` on ``sampler``; True when its verdict is not ``agree``.

    The PyMC run of each (pair, seed) is made once and reused for every sampler
    (``run_pair(..., pymc_from=...)``): NUTS is deterministic given the seed.
    """
    pair = get_pair(pair_name)
    reference = references.get((pair_name, seed))
    try:
        result = run.run_pair(
            pair, sampler=sampler, seed=seed, progress=lambda event: None, pymc_from=reference
        )
    except SamplerError:
        return True  # a sampler that breaks the contract or crashes is caught
    references[(pair_name, seed)] = result
    return result.verdicts["user"] != agreement.AGREE


def alarm(check: str, pair: str, sampler: str, seed: int, client, references: dict) -> bool | None:
    """Run one check once; True = alarm, None = not applicable."""
    if sampler == run.PYMC and check != "sbc":
        return None  # the twin is compare's reference, and Geweke refuses it
    if check == "compare":
        return compare(pair, sampler, seed, references)
    p = get_pair(pair)
    if p.prior is None:
        return None
    try:
        result = v.validate(p, sampler, method=check, client=client, seed=seed, **SIZES[check])
    except v.ValidationError:
        return True
    return result.verdict != v.PASS


def jobs(pairs: Sequence[str], seeds_correct: int, seeds_wrong: int, seeds_twin: int) -> list:
    """(kind, pair, sampler, seeds) of every run, grouped by pair so PyMC runs are shared."""
    out = []
    for pair in pairs:
        declared = get_pair(pair)
        out += [
            ("correct", pair, sampler, seeds_correct) for sampler in declared.handrolled.values()
        ]
        if pair in TWIN_SBC and seeds_twin > 0:
            out.append(("correct", pair, run.PYMC, seeds_twin))
        out += [("wrong", pair, sampler, seeds_wrong) for sampler in declared.wrong.values()]
    return out


def main(argv=None) -> int:
    """Run every check on every sampler; write ``power.md`` and ``power.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds-correct", type=int, default=10)
    parser.add_argument("--seeds-wrong", type=int, default=10)
    parser.add_argument("--seeds-twin", type=int, default=3)
    names = [pair.name for pair in PAIRS]
    parser.add_argument("--pairs", nargs="+", choices=names, default=names)
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks")
    args = parser.parse_args(argv)
    client, cluster = open_client(args.scheduler)
    start = time.perf_counter()
    rows = []
    references: dict = {}  # (pair, seed) -> PairResult whose PyMC draws are reused
    try:
        todo = jobs(args.pairs, args.seeds_correct, args.seeds_wrong, args.seeds_twin)
        for kind, pair, sampler, n_seeds in todo:
            if references and next(iter(references))[0] != pair:
                references.clear()
            name = sampler if kind == "correct" else sampler.split(":")[-1]
            row = {"kind": kind, "pair": pair, "sampler": name, "runs": n_seeds}
            per_seed = []
            for check in ("compare", "geweke", "sbc"):
                t = time.perf_counter()
                alarms = [
                    alarm(check, pair, sampler, 1000 + k, client, references)
                    for k in range(n_seeds)
                ]
                row[check] = None if alarms[0] is None else int(np.sum(alarms))
                row[f"{check}_s"] = time.perf_counter() - t
                if alarms[0] is not None:
                    per_seed.append(alarms)
            row["any"] = int(np.sum(np.any(per_seed, axis=0)))
            print(json.dumps(row), file=sys.stderr, flush=True)
            rows.append(row)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    elapsed = time.perf_counter() - start
    doc = {"alpha": agreement.ALPHA, "sizes": SIZES, "rows": rows, "total_s": elapsed}
    write_atomic(args.out / "power.json", json.dumps(doc, indent=2))
    write_atomic(args.out / "power.md", render(doc, args))
    print(render(doc, args))
    return 0


def _count(value, runs: int) -> str:
    return "n/a" if value is None else f"{value}/{runs}"


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval of a binomial rate from ``k`` of ``n``."""
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def render(doc, args) -> str:
    """Markdown tables of false alarms and detections, as counts of runs."""
    rows = doc["rows"]
    correct = [r for r in rows if r["kind"] == "correct"]
    checks = ("compare", "geweke", "sbc")
    alarms = sum(r[c] for r in correct for c in checks if r[c] is not None)
    runs = sum(r["runs"] for r in correct for c in checks if r[c] is not None)
    high = clopper_pearson(alarms, runs)[1] if runs else float("nan")
    lines = [
        "# Measured false alarms and power",
        "",
        f"Nominal family-wise false-alarm rate per check: {doc['alpha']}. Sizes: compare = "
        "`mcmc-pairs compare` at the pair's default settings, against NUTS (one PyMC run per "
        "pair and seed, shared by the samplers) and the exact answer where there is one; "
        f"Geweke = {SIZES['geweke']}; SBC = {SIZES['sbc']}. Produced by `make power` "
        f"(`scripts/power.py --seeds-correct {args.seeds_correct} --seeds-wrong "
        f"{args.seeds_wrong} --seeds-twin {args.seeds_twin}`) in {doc['total_s'] / 60:.1f} min "
        "on 2 cores. Entries count runs (seeds) with an alarm.",
        "",
        "## False alarms of correct samplers (lower is better; nominal 0.01 per check)",
        "",
        "| pair | sampler | compare | Geweke | SBC |",
        "|---|---|---|---|---|",
    ]
    for r in correct:
        lines.append(
            f"| {r['pair']} | `{r['sampler']}` | "
            + " | ".join(_count(r[c], r["runs"]) for c in checks)
            + " |"
        )
    lines += [
        "",
        f"Pooled over every correct sampler and check: {alarms} false alarms in {runs} runs "
        f"(95% Clopper-Pearson upper bound {high:.3f}).",
        "",
        "## Detections of wrong samplers (higher is better; target: any check in >= 95% of runs)",
        "",
        "| pair | wrong sampler | compare | Geweke | SBC | any | 95% lower bound of 'any' |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["kind"] == "wrong":
            low = clopper_pearson(r["any"], r["runs"])[0]
            lines.append(
                f"| {r['pair']} | `{r['sampler']}` | "
                + " | ".join(_count(r[c], r["runs"]) for c in (*checks, "any"))
                + f" | {low:.2f} |"
            )
    lines.append("")
    lines.append(
        "'any': runs in which at least one check raised an alarm. n/a: the pair samples a "
        "fixed target, so Geweke and SBC do not apply; `pymc` is the pair's PyMC twin "
        "(`validate --sampler pymc`), calibrated by SBC only. LDA is validated (Geweke, SBC) on a "
        "small corpus (6 documents of 24 tokens, V = 9, K = 3) with label-invariant test "
        "quantities; its compare runs on the pair's bars corpus."
    )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
