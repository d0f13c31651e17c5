"""Measured false alarms, sensitivity and power of every check: ``make power`` (not in tests).

Writes ``benchmarks/power.md`` and ``benchmarks/power.json``:

* **False alarms of ``compare``** under its sequential design, at the pair's
  default settings: every correct sampler a pair declares (``Pair.handrolled``)
  over many seeds; a false alarm is the verdict ``disagree``; ``inconclusive``
  and ``not converged`` are counted apart as *undecided* (failures to certify,
  not alarms). 95 % Clopper-Pearson intervals per sampler, per pair and pooled.
* **Sensitivity of ``compare``**: the pair's first hand-rolled sampler with a
  planted shift of a mean, an sd or a correlation of size ``s``
  (:mod:`scripts.planted`), over a grid of ``s`` and seeds; detected = ``disagree``.
* **Catalogue bugs** (``Pair.wrong``): detected by ``compare`` (``disagree``;
  not-``agree`` shown too), by Geweke's test and by SBC.
* **Geweke and SBC** (:func:`comparisons.validation.validate`, sizes in
  :data:`SIZES`) on the pairs that declare a prior, correct and wrong samplers;
  SBC of the PyMC twin (``--sampler pymc``) on :data:`TWIN_SBC`.

One task per (pair, seed) runs PyMC once and compares every sampler of that
seed (correct, wrong, planted) against that run (``run_pair(pymc_from=...)``);
Geweke and SBC are one task per (pair, sampler, check, seed). Tasks run on a
pool of single-threaded worker processes, ordered so that every group advances
at the same pace; with ``--max-minutes`` no task starts after the deadline and
the tables count what finished.

Usage: ``python scripts/power.py [--seeds N] [--seeds-lda N] [--seeds-planted N]
[--seeds-wrong N] [--seeds-validate N] [--seeds-twin N] [--workers N] [--max-minutes M]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core per worker process

import planted  # noqa: E402

from comparisons import agreement, run  # noqa: E402
from comparisons import validation as v  # noqa: E402
from comparisons.contract import SamplerError  # noqa: E402
from comparisons.files import write_atomic  # noqa: E402
from comparisons.registry import PAIRS, get_pair  # noqa: E402

TWIN_SBC = ("regression", "bayes_net")
"""Pairs whose PyMC twin (``--sampler pymc``) goes through SBC here, ``--seeds-twin`` times."""
SIZES = {
    "geweke": {"replications": 10, "steps": 200, "tune": 20},
    "sbc": {"replications": 200, "draws": 1000, "tune": 100, "chains": 1},
}
"""Validation sizes used here (Geweke smaller than the CLI default; SBC at its default draws)."""
GRID = (0.05, 0.1, 0.2, 0.3, 0.5)
"""Planted shift sizes ``s`` (posterior sd for means and sds, correlation for ``corr``)."""
GRID_LDA = (0.1, 0.2, 0.3)
"""LDA's grid: three sizes (each look of its NUTS reference costs minutes, and a planted shift
below the tolerance may run to 16 times the draws; planted LDA runs are continued, not rerun)."""
SLOW = ("lda",)
"""Pairs run with ``--seeds-lda`` seeds instead of ``--seeds`` (about 100 s of NUTS a seed)."""
UNDECIDED = (agreement.INCONCLUSIVE, agreement.NOT_CONVERGED)
FIRST_SEED = 1000


def _short(sampler: str) -> str:
    return sampler.split(":")[-1]


def compare_task(pair_name: str, seed: int, wrong: bool, grid: Sequence[float]) -> list[dict]:
    """Every sampler of ``pair_name`` at ``seed`` against one PyMC run; a record each."""
    pair = get_pair(pair_name)
    reference = None
    jobs = [("correct", spec, None, None) for spec in pair.handrolled.items()]
    if wrong:
        jobs += [("wrong", spec, None, None) for spec in pair.wrong.items()]
    first = next(iter(pair.handrolled.values()))
    moments = planted.exact_moments(pair) if grid else {}
    for kind in planted.KINDS:
        if grid and planted.method(pair_name, kind) is not None:
            jobs += [("planted", ("first", first), kind, s) for s in grid]
    records = []
    for group, (name, spec), kind, s in jobs:
        sampler = (
            spec
            if kind is None
            else planted.planted(spec, pair_name, kind, s, moments, resume=pair_name in SLOW)
        )
        start = time.perf_counter()
        try:
            result = run.run_pair(
                pair, sampler=sampler, seed=seed, progress=lambda event: None, pymc_from=reference
            )
        except SamplerError as exc:  # a sampler that breaks the contract or crashes
            verdict, looks, draws = f"error: {exc}"[:200], 0, 0
        else:
            reference = reference or result
            verdict, looks = result.verdicts["user"], len(result.looks)
            draws = result.looks[-1]["draws"] if result.looks else 0
        records.append(
            {
                "check": "compare",
                "group": group,
                "pair": pair_name,
                "sampler": name if kind is None else f"{_short(spec)}+{kind}",
                "kind": kind,
                "s": s,
                "seed": seed,
                "verdict": verdict,
                "looks": looks,
                "draws": draws,
                "seconds": time.perf_counter() - start,
            }
        )
    return records


def validate_task(
    check: str, group: str, pair_name: str, name: str, sampler: str, seed: int
) -> list[dict]:
    """Geweke's test or SBC on one sampler at one seed, in this process."""
    start = time.perf_counter()
    try:
        result = v.validate(
            get_pair(pair_name),
            sampler,
            method=check,
            scheduler="synchronous",
            seed=seed,
            progress=lambda event: None,
            **SIZES[check],
        )
        verdict = result.verdict
    except v.ValidationError as exc:
        verdict = f"error: {exc}"[:200]
    return [
        {
            "check": check,
            "group": group,
            "pair": pair_name,
            "sampler": name,
            "seed": seed,
            "verdict": verdict,
            "alarm": verdict != v.PASS,
            "seconds": time.perf_counter() - start,
        }
    ]


def tasks(args) -> list[tuple]:
    """Every task, ``(position, function, arguments)``, sorted so each group advances evenly."""
    out = []
    for order, pair_name in enumerate(args.pairs):
        pair = get_pair(pair_name)
        n = args.seeds_lda if pair_name in SLOW else args.seeds
        grid = GRID_LDA if pair_name in SLOW else GRID
        n_wrong = min(n, args.seeds_wrong)
        n_planted = min(n, args.seeds_planted)
        for k in range(n):
            wrong, plant = k < n_wrong, grid if k < n_planted else ()
            args_ = (pair_name, FIRST_SEED + k, wrong, tuple(plant))
            out.append((k / n, order, compare_task, args_))
        if pair.prior is None:
            continue
        seeds_validate = args.seeds_validate_lda if pair_name in SLOW else args.seeds_validate
        samplers = [("correct", s) for s in pair.handrolled.items()]
        samplers += [("wrong", s) for s in pair.wrong.items()]
        for check in ("geweke", "sbc"):
            for group, (name, sampler) in samplers:
                for k in range(seeds_validate):
                    args_ = (check, group, pair_name, name, sampler, FIRST_SEED + k)
                    out.append(((k + 0.5) / seeds_validate, order, validate_task, args_))
        if pair_name in TWIN_SBC:
            for k in range(args.seeds_twin):
                args_ = ("sbc", "correct", pair_name, "pymc twin", run.PYMC, FIRST_SEED + k)
                out.append(((k + 0.75) / max(args.seeds_twin, 1), order, validate_task, args_))
    out.sort(key=lambda t: (t[0], t[1]))
    done = set()
    for record in args.resume_records:
        if record["check"] == "compare":
            done.add((record["pair"], record["seed"]))
        else:
            done.add((record["check"], record["pair"], record["sampler"], record["seed"]))

    def key(task):
        a = task[3]
        return (a[0], a[1]) if task[2] is compare_task else (a[0], a[2], a[3], a[5])

    return [task for task in out if key(task) not in done]


def execute(
    todo: list[tuple], workers: int, deadline: float, log, before_s: float = 0.0
) -> list[dict]:
    """Run ``todo`` on ``workers`` processes (in this one if ``workers`` is 0)."""
    records: list[dict] = []

    def keep(new: list[dict]) -> None:
        records.extend(new)
        for r in new:
            r["elapsed_s"] = time.perf_counter() - START + before_s
            log.write(json.dumps(r) + "\n")
        log.flush()

    if workers == 0:
        for _, _, func, args_ in todo:
            if time.perf_counter() < deadline:
                keep(func(*args_))
        return records
    queue = list(todo)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        running = set()
        while queue or running:
            while queue and len(running) < workers and time.perf_counter() < deadline:
                _, _, func, args_ = queue.pop(0)
                running.add(pool.submit(func, *args_))
            if not running:
                break
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                keep(future.result())
            print(
                f"[power] {len(records)} records, {len(queue)} tasks left, "
                f"{time.perf_counter() - START:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    return records


START = time.perf_counter()


def main(argv=None) -> int:
    """Run the study; write ``power.md`` and ``power.json``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [pair.name for pair in PAIRS]
    parser.add_argument("--pairs", nargs="+", choices=names, default=names)
    parser.add_argument("--seeds", type=int, default=100, help="seeds per cheap pair")
    parser.add_argument("--seeds-lda", type=int, default=3)
    parser.add_argument("--seeds-planted", type=int, default=10)
    parser.add_argument("--seeds-wrong", type=int, default=20)
    parser.add_argument("--seeds-validate", type=int, default=2)
    parser.add_argument("--seeds-validate-lda", type=int, default=1)
    parser.add_argument("--seeds-twin", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-minutes", type=float, default=float("inf"))
    parser.add_argument("--records", type=Path, default=None, help="also log records here")
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        help="records (JSON lines) of an interrupted run: its tasks are kept, not rerun",
    )
    parser.add_argument("--render", type=Path, default=None, help="only render this power.json")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks")
    args = parser.parse_args(argv)
    if args.render is not None:
        doc = json.loads(args.render.read_text())
        write_atomic(args.out / "power.md", render(doc))
        return 0
    start = time.perf_counter()
    args.resume_records = []
    before_s = 0.0
    if args.resume is not None:
        lines = args.resume.read_text().splitlines()
        args.resume_records = [json.loads(line) for line in lines if line.strip()]
        before_s = max((r.get("elapsed_s", 0.0) for r in args.resume_records), default=0.0)
    todo = tasks(args)
    log = open(args.records, "a") if args.records else open(os.devnull, "w")  # noqa: SIM115
    try:
        deadline = start + 60 * args.max_minutes - before_s
        records = args.resume_records + execute(todo, args.workers, deadline, log, before_s)
    finally:
        log.close()
    doc = {
        "command": " ".join(["python scripts/power.py", *(sys.argv[1:] if argv is None else argv)]),
        "alpha": agreement.ALPHA,
        "tolerance": agreement.TOLERANCE,
        "budget_factor": run.BUDGET_FACTOR,
        "sizes": SIZES,
        "grid": list(GRID),
        "grid_lda": list(GRID_LDA),
        "seeds": {
            k: getattr(args, k)
            for k in ("seeds", "seeds_lda", "seeds_planted", "seeds_wrong")
            + ("seeds_validate", "seeds_validate_lda", "seeds_twin")
        },
        "workers": args.workers,
        "tasks": len(todo),
        "records": records,
        "total_s": time.perf_counter() - start + before_s,
    }
    write_atomic(args.out / "power.json", json.dumps(doc, indent=1))
    write_atomic(args.out / "power.md", render(doc))
    print(render(doc))
    return 0


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) two-sided interval of a binomial rate from ``k`` of ``n``."""
    if n == 0:
        return float("nan"), float("nan")
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return float(ci.low), float(ci.high)


def _ci(k: int, n: int) -> str:
    low, high = clopper_pearson(k, n)
    return "–" if n == 0 else f"{low:.3f}–{high:.3f}"


def _frac(k: int, n: int) -> str:
    return "n/a" if n == 0 else f"{k}/{n}"


def _is_disagree(r: dict) -> bool:
    return r["verdict"] == agreement.DISAGREE or r["verdict"].startswith("error")


def render(doc: dict) -> str:
    """Markdown tables: false alarms, sensitivity, catalogue bugs, Geweke and SBC."""
    records = doc["records"]
    cmp_ = [r for r in records if r["check"] == "compare"]
    val = [r for r in records if r["check"] != "compare"]
    order = [pair.name for pair in PAIRS]
    pairs = sorted(
        {r["pair"] for r in records},
        key=lambda p: (p not in order, order.index(p) if p in order else p),
    )
    by = defaultdict(list)
    for r in cmp_:
        by[(r["group"], r["pair"], r["sampler"], r["kind"], r["s"])].append(r)
    vby = defaultdict(list)
    for r in val:
        vby[(r["check"], r["pair"], r["sampler"])].append(r)

    def vcount(check, pair, sampler):
        rs = vby.get((check, pair, sampler), [])
        return _frac(sum(r["alarm"] for r in rs), len(rs))

    seeds = doc["seeds"]
    lines = [
        "# Measured false alarms, sensitivity and power",
        "",
        f"Produced by `make power` (`{doc['command']}`) in {doc['total_s'] / 60:.1f} min of wall "
        f"time on {doc['workers']} worker processes (2 cores). `compare` runs at each pair's "
        "default settings with its sequential design (looks at 1, 2, 4, ... "
        f"{doc['budget_factor']} times the draws while a side is undecided; family-wise "
        f"false-alarm rate {doc['alpha']}, "
        f"tolerance {doc['tolerance']} posterior sd), against NUTS (one PyMC run per pair and "
        "seed, shared by every sampler of that seed through `run_pair(pymc_from=...)`) and the "
        "exact answer where there is one. Seeds: "
        f"{seeds['seeds']} per cheap pair for false alarms, {seeds['seeds_lda']} for LDA; "
        f"{seeds['seeds_wrong']} for catalogue bugs and {seeds['seeds_planted']} per planted "
        f"cell (at most the pair's seeds); Geweke = {doc['sizes']['geweke']} and SBC = "
        f"{doc['sizes']['sbc']} at {seeds['seeds_validate']} seeds per sampler "
        f"({seeds.get('seeds_validate_lda', 1)} on LDA), the PyMC twin's "
        f"SBC at {seeds['seeds_twin']}. Counts below are what finished.",
        "",
        "## False alarms of correct samplers (`compare`, sequential)",
        "",
        "A false alarm is `disagree`; *undecided* (`inconclusive`, `not converged`) is a failure "
        "to certify, not an alarm. Interval: 95 % Clopper-Pearson of the false-alarm rate.",
        "",
        "| pair | sampler | runs | disagree | inconclusive | not converged | agree "
        "| false-alarm rate, 95 % CI | mean looks |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    total_k = total_n = 0
    for pair in pairs:
        keys = [k for k in by if k[0] == "correct" and k[1] == pair]
        pair_k = pair_n = 0
        for key in keys:
            rs = by[key]
            k = sum(_is_disagree(r) for r in rs)
            counts = [sum(r["verdict"] == x for r in rs) for x in UNDECIDED + (agreement.AGREE,)]
            looks = sum(r["looks"] for r in rs) / len(rs)
            lines.append(
                f"| {pair} | `{key[2]}` | {len(rs)} | {k} | {counts[0]} | {counts[1]} | "
                f"{counts[2]} | {_ci(k, len(rs))} | {looks:.2f} |"
            )
            pair_k, pair_n = pair_k + k, pair_n + len(rs)
        if len(keys) > 1:
            lines.append(f"| {pair} | all | {pair_n} | {pair_k} | | | | {_ci(pair_k, pair_n)} | |")
        total_k, total_n = total_k + pair_k, total_n + pair_n
    lines += [
        f"| pooled | all | {total_n} | {total_k} | | | | {_ci(total_k, total_n)} | |",
        "",
        "## Sensitivity of `compare` to planted shifts",
        "",
        "The pair's first hand-rolled sampler with a shift planted in its draws "
        "(`scripts/planted.py`): *mean*, the first component moved by s posterior sd; *sd*, its "
        "deviations from its mean scaled by 1 + s; *corr*, the correlation of the first two "
        "components moved by s towards 0 (the second mixed with the first, its mean and sd "
        "kept). Detected = `disagree`. 'smallest s' is the smallest s of the grid detected in "
        ">= 95 % of its runs (at 10 runs a cell that is all 10, at 20 runs 19), '>' when none "
        "is; n/a where the kind is not planted in that pair (`scripts/planted.py` says why).",
        "",
    ]
    grid_all = sorted({r["s"] for r in cmp_ if r["group"] == "planted"})
    lines += [
        "| pair | kind | component | smallest s | "
        + " | ".join(f"s = {s:g}" for s in grid_all)
        + " |",
        "|---|---|---|---|" + "---|" * len(grid_all),
    ]
    for pair in pairs:
        plan = planted.PLANS.get(pair)
        for kind in planted.KINDS:
            cells, smallest = [], None
            for s in grid_all:
                rs = [r for key, rr in by.items() if key[0] == "planted" and key[1] == pair
                      and key[3] == kind and key[4] == s for r in rr]  # fmt: skip
                k = sum(_is_disagree(r) for r in rs)
                cells.append(_frac(k, len(rs)) if rs else "–")
                if rs and smallest is None and k >= 0.95 * len(rs):
                    smallest = s
            how = planted.method(pair, kind) if plan else None
            if how is None:
                lines.append(f"| {pair} | {kind} | n/a | n/a |" + " – |" * len(grid_all))
                continue
            comp = planted.label(plan.first)
            if kind == "corr":
                comp += f", {planted.label(plan.second)}"
            tested = [s for s, c in zip(grid_all, cells, strict=True) if c != "–"]
            best = f"{smallest:g}" if smallest is not None else f"> {max(tested, default=0):g}"
            best = best if tested else "–"
            lines.append(
                f"| {pair} | {kind} ({how}) | {comp} | {best} | " + " | ".join(cells) + " |"
            )
    lines += [
        "",
        "## Catalogue bugs (`Pair.wrong`)",
        "",
        "Caught by `compare` = `disagree` (a crash counts as caught); not-agree adds the "
        "undecided runs. Lower bound: 95 % Clopper-Pearson of the `compare` detection rate. "
        "Geweke and SBC: runs that fail.",
        "",
        "| pair | wrong sampler | disagree | not agree | lower bound (disagree) | Geweke | SBC |",
        "|---|---|---|---|---|---|---|",
    ]
    for key in sorted((k for k in by if k[0] == "wrong"), key=lambda k: pairs.index(k[1])):
        rs = by[key]
        k = sum(_is_disagree(r) for r in rs)
        na = sum(r["verdict"] != agreement.AGREE for r in rs)
        low = clopper_pearson(k, len(rs))[0]
        lines.append(
            f"| {key[1]} | `{key[2]}` | {k}/{len(rs)} | {na}/{len(rs)} | {low:.3f} | "
            f"{vcount('geweke', key[1], key[2])} | {vcount('sbc', key[1], key[2])} |"
        )
    lines += [
        "",
        "## Geweke and SBC on correct samplers (runs that fail; nominal 0.01 per check)",
        "",
        "| pair | sampler | Geweke | SBC |",
        "|---|---|---|---|",
    ]
    for check_pair, sampler in dict.fromkeys(
        (r["pair"], r["sampler"]) for r in val if r["group"] == "correct"
    ):
        lines.append(
            f"| {check_pair} | `{sampler}` | {vcount('geweke', check_pair, sampler)} | "
            f"{vcount('sbc', check_pair, sampler)} |"
        )
    lines += ["", *against_targets(by, pairs)]
    return "\n".join(lines) + "\n"


def against_targets(by: dict, pairs: list[str]) -> list[str]:
    """Read the targets off (false alarms <= 1 % per pair, catalogue bugs caught >= 95 %)."""
    lines = ["## Against the targets", ""]
    for pair in pairs:
        rs = [r for key, rr in by.items() if key[0] == "correct" and key[1] == pair for r in rr]
        if not rs:
            continue
        k = sum(_is_disagree(r) for r in rs)
        undecided = sum(r["verdict"] in UNDECIDED for r in rs)
        low, high = clopper_pearson(k, len(rs))
        if high <= 0.01:
            verdict = "target shown"
        elif k / len(rs) <= 0.01:
            verdict = "point estimate within target; too few runs to show <= 1 %"
        elif low > 0.01:
            verdict = "**target missed**"
        else:
            verdict = "**point estimate above target**, interval includes 1 %"
        lines.append(
            f"- {pair}: {k} false alarms in {len(rs)} runs of its correct samplers "
            f"({100 * k / len(rs):.1f} %, 95 % CI {100 * low:.1f}–{100 * high:.1f} %), "
            f"{undecided} undecided: {verdict}."
        )
    missed = []
    for key in (k for k in by if k[0] == "wrong"):
        rs = by[key]
        k = sum(_is_disagree(r) for r in rs)
        if k < 0.95 * len(rs):
            missed.append(f"`{key[2]}` ({key[1]}) {k}/{len(rs)}")
    wrong = [key for key in by if key[0] == "wrong"]
    if wrong and not missed:
        lines.append(
            f"- Every one of the {len(wrong)} catalogue bugs is caught (`disagree`) in at least "
            "95 % of its runs."
        )
    elif missed:
        lines.append("- **Caught in fewer than 95 % of runs**: " + ", ".join(missed) + ".")
    lines.append("")
    return lines


if __name__ == "__main__":
    sys.exit(main())
