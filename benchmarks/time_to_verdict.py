"""Time to verdict (issue 30): CLI commands of this tree against an earlier commit, side by side.

Each case is a ``mcmc-pairs`` command a user types, run in a fresh process
from the tree's directory (its outputs in temporary directories):

* ``list``: ``mcmc-pairs list``;
* ``eight_schools``, ``probit``: the example's ``compare`` twice in a row, the
  *first* and the *second* run of an unchanged model and data;
* ``changepoint``: the zoo's change-point model (discrete), one ``compare``;
* ``inprocess_eight_schools``, ``inprocess_probit``, ``inprocess_changepoint``
  (issue 38): ``compare(...)`` of the Python API twice in one fresh process
  (:data:`INPROCESS`), the *first* and the *second* call, each call's wall
  timed inside the process (imports aside); a tree whose ``compare`` takes
  ``cache`` gets a fresh directory, the baseline none (it has no such keyword);
* ``sbc_regression``, ``sbc_lda``: ``validate NAME --sampler pymc --method sbc``
  at two replication counts; the difference gives the seconds per replication
  (and replications per second) without the fixed start-up cost (imports, the
  Dask cluster, a first compilation), which is reported apart.

The baseline is ``git archive REV`` unpacked into a temporary directory
(:func:`benchmarks.report_time.unpack`); both trees run with this interpreter,
``PYTHONPATH`` set to the tree. A tree whose ``compare --help`` lists
``--cache`` gets ``--cache DIR`` on every ``compare``, a fresh directory for
each first/second pair of runs: the first run meets a cold reference cache,
the second a warm one; a tree without the flag runs the same command twice.
Per case, ``--warmup`` unrecorded runs of each tree (numba's and PyTensor's
caches warm, as on a user's second day), then ``--runs`` rounds alternating
the trees (this tree, the baseline, this tree, ...), so a drift of the
machine's speed hits both. Wall time, CPU time (user + system, children
included) and peak memory come from ``os.wait4``.

The ratio of a case is the median over rounds of this tree / baseline. A case
run twice also has the row ``share``: the second run's wall over the first's,
within each tree (its target is on this tree's median, not on a ratio).
Exit codes and printed verdicts of both trees must be the same in every case
(the issue changes speed, not verdicts): a difference is printed loudly and
makes the exit status 1, as does a case that fails; a missed target does not.

Usage::

    python -m benchmarks.time_to_verdict [--baseline REV] [--runs 3] [--warmup 1]
        [--cases list eight_schools ...] [--json FILE]

Writes ``benchmarks/time_to_verdict.json`` (every run) and ``.md`` (the
tables, also printed). About 25–30 minutes for the defaults on 2 idle cores.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the benchmarks package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.report_time import ROOT, cli_module, unpack  # noqa: E402

BASELINE = "ed9ead0"
"""The code before issue 30."""
HERE = Path(__file__).resolve().parent
OK_EXIT = {"compare": (0, 1), "validate": (0, 1, 3), "list": (0,)}
"""Exit codes that are verdicts (timed), per subcommand; anything else fails the case."""


@dataclass(frozen=True)
class Target:
    """A row's target: ``ratio`` (this tree / baseline) or ``absolute`` (s) <= ``limit``."""

    kind: str
    limit: float
    text: str

    def met(self, ratio: float | None, this_median: float | None) -> bool | None:
        """Whether the target is met (``None``: no figure to judge)."""
        value = ratio if self.kind == "ratio" else this_median
        return None if value is None else value <= self.limit


@dataclass(frozen=True)
class Case:
    """One benchmark case: a command (``args``, relative to the tree) and how it is run.

    ``kind`` is ``single`` (one run), ``twice`` (a first and a second ``compare``)
    or ``sbc`` (``validate`` at ``replications`` = (low, high)).
    """

    name: str
    kind: str
    args: tuple[str, ...]
    targets: dict[str, Target]
    labels: dict[str, str]
    replications: tuple[int, int] = (0, 0)
    settings: dict[str, int] = field(default_factory=dict)


FIRST = Target("ratio", 0.70, "≤ 0.70")
SECOND = Target("ratio", 0.25, "≤ 0.25")
CLI_SHARE = Target("absolute", 0.35, "≤ 0.35 of the first")
INPROCESS_SHARE = Target("absolute", 0.10, "≤ 0.10 of the first")
NO_SLOWER = Target("ratio", 1.10, "≤ 1.10 (no slower)")
"""An in-process first call: the reuse must not cost the first call time."""
INPROCESS_SECOND = Target("ratio", 0.50, "≤ 0.50")
"""An in-process second call against the baseline's (which reuses PyTensor's in-memory caches)."""
INPROCESS = """
import inspect, json, sys, time
from mcmc_pairs import compare
folder, data, cache = sys.argv[1], sys.argv[2], sys.argv[3]
kwargs = {"cache": cache} if "cache" in inspect.signature(compare).parameters else {}
runs = []
for _ in range(2):
    start = time.perf_counter()
    result = compare(f"{folder}/model.py:build_model", f"{folder}/sampler.py:sample",
                     f"{folder}/{data}", progress=lambda event: None, **kwargs)
    runs.append({"wall": time.perf_counter() - start, "verdict": result.verdict})
print("INPROCESS " + json.dumps(runs))
"""
"""The in-process cases' program: ``compare`` twice in one process, each call timed."""


def _example(folder: str, data: str, name: str) -> tuple[str, ...]:
    return (
        "compare",
        "--model", f"{folder}/model.py:build_model",
        "--data", f"{folder}/{data}",
        "--sampler", f"{folder}/sampler.py:sample",
        *(("--name", name) if name else ()),
    )  # fmt: skip


def _sbc(pair: str, replications, draws: int, tune: int, label: str, target: Target) -> Case:
    settings = {"draws": draws, "tune": tune, "max_draws": draws}
    return Case(
        f"sbc_{pair}",
        "sbc",
        ("validate", pair, "--sampler", "pymc", "--method", "sbc"),
        {"per_replication": target},
        {"per_replication": label},
        replications=replications,
        settings=settings,
    )


INPROCESS_EXAMPLES = (
    ("eight_schools", "examples/eight_schools", "data.json", "eight schools"),
    ("probit", "examples/probit", "data.csv", "probit"),
    ("changepoint", "zoo/changepoint", "data.json", "zoo change point"),
)


def _inprocess(name: str, folder: str, data: str, label: str) -> Case:
    """Return an in-process case: ``compare`` twice in one fresh process (:data:`INPROCESS`)."""
    what = f"{label}, `compare(...)` in one process"
    return Case(
        f"inprocess_{name}",
        "inprocess",
        ("python", folder, data),
        {"first": NO_SLOWER, "second": INPROCESS_SECOND, "share": INPROCESS_SHARE},
        {"first": f"{what}, first", "second": f"{what}, second",
         "share": f"{what}, second / first"},
    )  # fmt: skip


CASES: dict[str, Case] = {
    case.name: case
    for case in (
        Case("list", "single", ("list",), {"run": Target("absolute", 1.0, "≤ 1 s")},
             {"run": "`mcmc-pairs list`"}),
        Case("eight_schools", "twice",
             _example("examples/eight_schools", "data.json", "es"),
             {"first": FIRST, "second": SECOND, "share": CLI_SHARE},
             {"first": "eight schools, first `compare`",
              "second": "eight schools, second `compare`",
              "share": "eight schools, second / first `compare`"}),
        Case("probit", "twice", _example("examples/probit", "data.csv", "probit"),
             {"first": FIRST, "second": SECOND, "share": CLI_SHARE},
             {"first": "probit, first `compare`", "second": "probit, second `compare`",
              "share": "probit, second / first `compare`"}),
        Case("changepoint", "single", _example("zoo/changepoint", "data.json", ""),
             {"run": FIRST}, {"run": "zoo change point (discrete), first `compare`"}),
        # max_draws = draws: no rerun of a refused replication, so each one is the same work
        # (LDA's verdict at 200 draws is then "not converged", exit 3: still a verdict).
        *(_inprocess(*example) for example in INPROCESS_EXAMPLES),
        _sbc("regression", (4, 36), 1000, 200, "PyMC SBC `regression`, s per replication",
             Target("ratio", 0.20, "≤ 0.20 (≥ 5× rep/s)")),
        _sbc("lda", (2, 8), 200, 100, "PyMC SBC `lda`, s per replication",
             Target("ratio", 1 / 3, "≤ 0.33 (≥ 3× rep/s)")),
    )
}  # fmt: skip


class RunFailed(RuntimeError):
    """A command exited with a code that is not a verdict."""


def run_cli(tree: Path, args: list[str], ok: tuple[int, ...] = (0, 1), module: bool = True) -> dict:
    """Run ``mcmc-pairs ARGS`` of ``tree`` from its directory; return its timing and verdict.

    Wall time (monotonic clock), CPU time (user + system of the command and every
    process it waited for) and the peak resident memory of its largest process,
    from ``os.wait4``; the exit code and the last ``verdict: ...`` line printed.
    Raises :class:`RunFailed` when the exit code is not in ``ok``. With
    ``module=False``, ``args`` go to the interpreter itself (``-c PROGRAM ...``)
    and the result also holds the printed ``stdout``.
    """
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            [sys.executable, *(["-m", cli_module(tree)] if module else []), *args],
            cwd=tree,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            text=True,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = code = os.waitstatus_to_exitcode(status)  # reaped here
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if code not in ok:
        tail = (stderr.strip() or stdout.strip())[-600:]
        raise RunFailed(f"`{' '.join(args[:2])} ...` in {tree} exited {code}: {tail}")
    verdicts = re.findall(r"^verdict: (.+)$", stdout, flags=re.MULTILINE)
    run = {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "exit": code,
        "verdict": verdicts[-1].strip() if verdicts else None,
    }
    return run if module else {**run, "stdout": stdout}


def run_inprocess(tree: Path, folder: str, data: str, cache: Path) -> dict:
    """Run :data:`INPROCESS` in a fresh process of ``tree``: ``{"first": run, "second": run}``.

    Each run's ``wall`` is the call's own (timed in the process); ``cpu`` and
    ``peak_mb`` are the whole process's, on both rows.
    """
    process = run_cli(tree, ["-c", INPROCESS, folder, data, str(cache)], (0,), module=False)
    calls = json.loads(process.pop("stdout").split("INPROCESS ", 1)[1])
    return {
        row: {**process, "wall": call["wall"], "verdict": call["verdict"]}
        for row, call in zip(("first", "second"), calls, strict=True)
    }


def has_cache_flag(tree: Path) -> bool:
    """Whether ``compare --help`` of ``tree`` lists ``--cache`` (not only ``--no-cache``)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    helped = subprocess.run(
        [sys.executable, "-m", cli_module(tree), "compare", "--help"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if helped.returncode != 0:
        raise RunFailed(f"`compare --help` in {tree} exited {helped.returncode}: {helped.stderr}")
    return re.search(r"(?<![\w-])--cache(?![\w-])", helped.stdout) is not None


def run_case(case: Case, tree: Path, cache: bool, tmp: Path, warmup: bool = False) -> dict:
    """Run ``case`` once on ``tree``; return ``{row: run}`` (``sbc``: ``{"low": .., "high": ..}``).

    ``cache``: pass ``--cache DIR`` to ``compare`` (a fresh directory for this call).
    A warm-up of an SBC case runs the low replication count only.
    """
    tmp.mkdir(parents=True, exist_ok=True)
    sub = case.args[0]
    args = list(case.args)
    if case.kind == "inprocess":
        return run_inprocess(tree, args[1], args[2], tmp / "cache")
    if sub == "compare":
        args += ["--out", str(tmp / "out")]
        if cache:
            args += ["--cache", str(tmp / "cache")]
    if case.kind == "single":
        return {"run": run_cli(tree, args, OK_EXIT[sub])}
    if case.kind == "twice":
        first = run_cli(tree, args, OK_EXIT[sub])
        return {"first": first, "second": run_cli(tree, args, OK_EXIT[sub])}
    runs = {}
    for label, count in zip(("low", "high"), case.replications, strict=True):
        out = tmp / f"out-{count}"
        settings = [f"--{key.replace('_', '-')}={value}" for key, value in case.settings.items()]
        run = run_cli(
            tree, [*args, "--replications", str(count), *settings, "--out", str(out)], OK_EXIT[sub]
        )
        run.update(replications=count, **validation_timings(out / f"{case.args[1]}_sbc.json"))
        runs[label] = run
        if warmup:
            break
    return {"per_replication": runs}


def validation_timings(path: Path) -> dict:
    """Return the validation JSON's ``timings`` and its median replication's seconds."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    seconds = [r["seconds"] for r in doc.get("replications", []) if "seconds" in r]
    return {
        "json_timings": doc.get("timings"),
        "json_replication_s_median": statistics.median(seconds) if seconds else None,
    }


def sbc_split(low: dict, high: dict) -> dict:
    """Seconds per replication (difference of the two counts) and the fixed cost left over."""
    per = (high["wall"] - low["wall"]) / (high["replications"] - low["replications"])
    return {
        "s_per_replication": per,
        "replications_per_s": 1 / per if per > 0 else None,
        "fixed_s": low["wall"] - low["replications"] * per,
    }


def row_value(case: Case, row: str, run: dict) -> float:
    """Return the timed figure of one recorded run of a row: wall s, or s per replication."""
    if case.kind == "sbc":
        return sbc_split(run["low"], run["high"])["s_per_replication"]
    return run["wall"]


def round_value(case: Case, row: str, runs: dict) -> float:
    """Return a row's figure in one round (``{row: run}``): ``share`` is second / first."""
    if row == "share":
        return runs["second"]["wall"] / runs["first"]["wall"]
    return row_value(case, row, runs[row])


def _stats(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def summarise(case: Case, rounds: dict[str, list[dict]]) -> dict[str, dict]:
    """Per row of ``case``: each tree's median/min/max, the ratio, the target and whether met.

    ``rounds`` maps ``"this"`` and ``"baseline"`` to the recorded runs in order
    (``{row: run}`` each). The ratio is the median over rounds of this / baseline
    (``None`` when a baseline figure is not positive, as a noisy difference can be).
    """
    out = {}
    for row, target in case.targets.items():
        this = [round_value(case, row, r) for r in rounds["this"]]
        base = [round_value(case, row, r) for r in rounds["baseline"]]
        pairs = [(a, b) for a, b in zip(this, base, strict=True) if b > 0]
        ratio = statistics.median(a / b for a, b in pairs) if pairs else None
        summary = {
            "label": case.labels[row],
            "unit": "s/replication" if case.kind == "sbc" else "" if row == "share" else "s",
            "this": _stats(this),
            "baseline": _stats(base),
            "ratio": ratio,
            "target": target.text,
            "met": target.met(ratio, statistics.median(this)),
        }
        if case.kind == "sbc":
            summary["sbc"] = {
                tree: sbc_detail([r[row] for r in runs]) for tree, runs in rounds.items()
            }
            summary["sbc"]["settings"] = {"replications": case.replications, **case.settings}
        out[row] = summary
    return out


def sbc_detail(runs: list[dict]) -> dict:
    """Medians over rounds of an SBC row's walls, split and JSON timings."""
    splits = [sbc_split(r["low"], r["high"]) for r in runs]
    detail = {
        "wall_low": statistics.median(r["low"]["wall"] for r in runs),
        "wall_high": statistics.median(r["high"]["wall"] for r in runs),
        "fixed_s": statistics.median(s["fixed_s"] for s in splits),
        "s_per_replication": statistics.median(s["s_per_replication"] for s in splits),
    }
    per = detail["s_per_replication"]
    detail["replications_per_s"] = 1 / per if per > 0 else None
    json_s = [r["high"].get("json_replication_s_median") for r in runs]
    detail["json_replication_s_median"] = (
        statistics.median(json_s) if all(v is not None for v in json_s) else None
    )
    return detail


def verdict_check(rounds: dict[str, list[dict]]) -> dict:
    """Return the distinct (exit code, verdict) per row and tree, and whether the trees agree."""
    seen: dict[str, dict[str, list]] = {}
    for tree, runs in rounds.items():
        for run in runs:
            for row, result in run.items():
                for one in result.values() if "wall" not in result else [result]:
                    pair = [one["exit"], one["verdict"]]
                    bucket = seen.setdefault(row, {}).setdefault(tree, [])
                    if pair not in bucket:
                        bucket.append(pair)
    same = all(
        sorted(map(tuple, by.get("this", []))) == sorted(map(tuple, by.get("baseline", [])))
        for by in seen.values()
    )
    return {"rows": seen, "same": same}


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _spread(stats: dict, digits: int = 2) -> str:
    return f"{stats['median']:.{digits}f} [{stats['min']:.{digits}f}–{stats['max']:.{digits}f}]"


def _verdicts(pairs: list) -> str:
    return ", ".join(f"{verdict or '—'} (exit {code})" for code, verdict in pairs)


def markdown(result: dict) -> str:
    """Return the tables of a result document (see :func:`main`) as Markdown."""
    meta = result["meta"]
    cached = ", ".join(tree for tree, flag in meta["cache_flag"].items() if flag)
    lines = [
        f"# Time to verdict: this tree against {meta['baseline']}",
        "",
        f"{meta['date']}, {meta['runs']} rounds (this tree, baseline alternating) after "
        f"{meta['warmup']} warm-up of each; {meta['cpus']} CPUs, load average "
        f"{meta['load_start']:.2f} at the start, {meta['load_end']:.2f} at the end; "
        f"{meta['seconds'] / 60:.1f} minutes. This tree: {meta['this_rev']}. "
        f"`--cache DIR` passed to: {cached or 'neither tree'}.",
        "",
    ]
    if meta.get("note"):
        lines += [f"**{meta['note']}**", ""]
    lines += [
        "| case | baseline, median | this tree, median [min–max] | ratio | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for name, case in result["cases"].items():
        if "error" in case:
            lines.append(f"| {name} | **failed**: {case['error'][:200]} | | | | |")
            continue
        for row in case["rows"].values():
            met = {True: "yes", False: "**no**", None: "n/a"}[row["met"]]
            unit = {"s/replication": " s/rep", "": ""}.get(row["unit"], " s")
            lines.append(
                f"| {row['label']} | {row['baseline']['median']:.2f}{unit} | "
                f"{_spread(row['this'])}{unit} | **{_num(row['ratio'])}** | "
                f"{row['target']} | {met} |"
            )
    sbc = [
        (case, row)
        for case in result["cases"].values()
        if "rows" in case
        for row in case["rows"].values()
        if "sbc" in row
    ]
    if sbc:
        lines += [
            "",
            "PyMC SBC: wall of the whole command at the two replication counts (medians); "
            "s/rep from their difference, fixed = start-up cost left over; JSON rep s = the "
            "median replication's own `seconds` in the validation JSON (in a worker, two run "
            "at once).",
            "",
            "| case | tree | settings | wall low / high (s) | s/rep | rep/s | fixed (s) "
            "| JSON rep s |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for case, row in sbc:
            s = row["sbc"]["settings"]
            text = (
                f"R = {s['replications'][0]} / {s['replications'][1]}, draws {s['draws']}, "
                f"tune {s['tune']}, max-draws {s['max_draws']}"
            )
            for tree in ("baseline", "this"):
                d = row["sbc"][tree]
                lines.append(
                    f"| {case['name']} | {tree} | {text} | {d['wall_low']:.1f} / "
                    f"{d['wall_high']:.1f} | {d['s_per_replication']:.2f} | "
                    f"{_num(d['replications_per_s'])} | {d['fixed_s']:.1f} | "
                    f"{_num(d['json_replication_s_median'])} |"
                )
    lines += ["", "Verdicts (distinct over all runs, warm-ups included):", ""]
    lines += ["| case | row | baseline | this tree | same |", "|---|---|---|---|---|"]
    for name, case in result["cases"].items():
        for row, by in case.get("verdicts", {}).get("rows", {}).items():
            same = sorted(map(tuple, by.get("this", []))) == sorted(
                map(tuple, by.get("baseline", []))
            )
            flag = "yes" if same else "**NO: VERDICT CHANGED**"
            lines.append(
                f"| {name} | {row} | {_verdicts(by.get('baseline', []))} | "
                f"{_verdicts(by.get('this', []))} | {flag} |"
            )
    return "\n".join(lines) + "\n"


def _git_rev() -> str:
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{rev or 'unknown'}{' + uncommitted changes' if dirty else ''}"


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure_case(case: Case, trees: dict[str, Path], cache: dict[str, bool], tmp: Path, args):
    """Warm up and run the rounds of ``case``; return its section of the result document."""
    all_runs: dict[str, list[dict]] = {tree: [] for tree in trees}
    recorded: dict[str, list[dict]] = {tree: [] for tree in trees}
    for k in range(args.warmup + args.runs):
        warm = k < args.warmup
        for tree, path in trees.items():
            run = run_case(case, path, cache[tree], tmp / f"{case.name}-{tree}-{k}", warm)
            all_runs[tree].append(run)
            if not warm:
                recorded[tree].append(run)
            walls = ", ".join(
                f"{row} {r['wall']:.1f} s" if "wall" in r
                else f"{row} " + " / ".join(f"{v['wall']:.1f} s" for v in r.values())
                for row, r in run.items()
            )  # fmt: skip
            step = f"warm-up {k + 1}" if warm else f"round {k - args.warmup + 1}"
            _say(f"{case.name}: {step}, {tree}: {walls}")
    verdicts = verdict_check(all_runs)
    if not verdicts["same"]:
        _say(f"!!! {case.name}: THE VERDICTS OR EXIT CODES DIFFER BETWEEN THE TREES !!!")
        _say(json.dumps(verdicts["rows"], indent=1))
    return {
        "name": case.name,
        "command": " ".join(case.args),
        "rows": summarise(case, recorded),
        "verdicts": verdicts,
        "runs": recorded,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line (exit 2 on bad arguments)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline", default=BASELINE, help=f"git revision to compare with (default {BASELINE})"
    )
    parser.add_argument("--runs", type=int, default=3, help="recorded rounds of each case")
    parser.add_argument("--warmup", type=int, default=1, help="unrecorded runs of each first")
    parser.add_argument(
        "--cases", nargs="+", choices=list(CASES), default=list(CASES), metavar="CASE",
        help=f"cases to run (default all: {' '.join(CASES)})",
    )  # fmt: skip
    parser.add_argument(
        "--json", type=Path, default=HERE / "time_to_verdict.json",
        help="result file (default benchmarks/time_to_verdict.json; the .md beside it)",
    )  # fmt: skip
    parser.add_argument("--note", default="", help="a line for the top of the .md")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.warmup < 0:
        parser.error("--runs must be >= 1 and --warmup >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the chosen cases on both trees, print and write the tables; return the exit status."""
    args = parse_args(argv)
    started = time.perf_counter()
    load_start = os.getloadavg()[0]
    cases = [CASES[name] for name in dict.fromkeys(args.cases)]
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="time-to-verdict-") as tmp:
        tmp = Path(tmp)
        trees = {"this": ROOT, "baseline": unpack(args.baseline, tmp / "baseline")}
        needs_flags = any(case.args[0] == "compare" for case in cases)
        cache = {tree: needs_flags and has_cache_flag(path) for tree, path in trees.items()}
        for case in cases:
            try:
                results[case.name] = measure_case(case, trees, cache, tmp, args)
            except RunFailed as exc:
                _say(f"!!! {case.name} failed: {exc}")
                results[case.name] = {"name": case.name, "error": str(exc)}
    meta = {
        "baseline": args.baseline,
        "this_rev": _git_rev(),
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "runs": args.runs,
        "warmup": args.warmup,
        "cpus": os.cpu_count(),
        "load_start": load_start,
        "load_end": os.getloadavg()[0],
        "seconds": time.perf_counter() - started,
        "cache_flag": cache,
        "note": args.note,
    }
    document = {"meta": meta, "cases": results}
    text = markdown(document)
    print(text)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(document, indent=1) + "\n")
    args.json.with_suffix(".md").write_text(text)
    _say(f"wrote {args.json} and {args.json.with_suffix('.md')}")
    failed = [name for name, case in results.items() if "error" in case]
    changed = [
        name for name, case in results.items() if not case.get("verdicts", {}).get("same", True)
    ]
    if changed:
        _say(f"!!! VERDICTS CHANGED in {', '.join(changed)}: the issue forbids it !!!")
    if failed:
        _say(f"failed cases: {', '.join(failed)}")
    return 1 if failed or changed else 0


if __name__ == "__main__":
    sys.exit(main())
