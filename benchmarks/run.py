"""``make bench``: every benchmark in one run, ratios side by side, JSON and Markdown out.

Runs, each in its own process (so that its peak memory can be read, and a
crash in one does not lose the others):

1. :func:`benchmarks.ess_per_second.measure_pair` for every registered pair:
   ESS per second of each hand-rolled sampler and of PyMC, and their ratio,
   measured in the same run, repeated;
2. :func:`benchmarks.ess_per_second.gibbs_ess_per_draw`: the bivariate Gibbs
   sampler's ESS per draw against 0.6;
3. :func:`benchmarks.ess_per_second.regression_size_scaling`: time against N;
4. :func:`benchmarks.ess_per_second.chain_scaling`: 1 and 2 chains;
5. ``benchmarks/lda_throughput.py`` (tokens per second against tomotopy and
   ``lda``, on Reuters and on the generated 1 M-token corpus, K = 10 to 1,000),
   when it exists and imports: run as a script, its ``--json`` read. It gets
   its own time limit (``--lda-timeout``, an hour): about 20 minutes here.

Each process's peak resident memory is its ``ru_maxrss`` from ``os.wait4``.
The pair processes get a fresh, empty ``NUMBA_CACHE_DIR``, so their first run
includes the real numba compilation of the hand-rolled kernels.

Writes ``benchmarks/results.json`` and ``benchmarks/results.md`` (atomically:
temporary file, then rename) and prints the Markdown. Exit status 0 when every
section ran (targets missed are reported, not fatal: these machines are
noisy), 1 when a section failed, 2 on bad arguments.

Usage::

    python -m benchmarks.run [--repeats 3] [--quick] [--pairs NAME ...]
                             [--skip SECTION ...] [--timeout S] [--lda-timeout S]
                             [--out-dir DIR]
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import importlib.util
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcmc_pairs.comparisons.files import write_atomic
from mcmc_pairs.pairdata.checks import check_integer, check_positive

ROOT = Path(__file__).resolve().parents[1]
"""The repository (the processes run there)."""

LDA_SCRIPT = ROOT / "benchmarks" / "lda_throughput.py"

SECTIONS = ("pairs", "gibbs", "size", "chains", "lda")
"""Sections of a run, in order; ``--skip`` takes these names."""

PAIR_BUDGET_S = 60.0
"""A pair stops repeating once its timed runs took this long (LDA's NUTS: minutes a run)."""

CHAINS_LEFT_OUT = ("lda",)
"""Pairs left out of the 1-and-2-chains section by default: NUTS on the marginalised LDA
model takes minutes per run; LDA's per-core throughput is the LDA section's subject."""

TARGET_RATIO = 100.0
"""The conjugate Gibbs samplers should reach this multiple of NUTS's ESS/s."""

TARGET_SIDES = (("bivariate_normal", "handrolled:gibbs"), ("regression", "handrolled:blocked"))
"""The (pair, side) held to :data:`TARGET_RATIO`."""

FULL = {
    "pair": [],
    "gibbs-ess": ["--draws", "20000"],
    "regression-size": ["--sizes", "100", "1000", "10000", "100000", "1000000"],
    "chains": ["--draws", "10000"],
    "lda": ["--corpus", "reuters", "generated", "--lda-iterations", "10"],
}
"""Extra arguments of every section in a full run (the defaults of each tool otherwise).

The ``lda`` package runs 10 iterations above K = 100 (its O(K) sweep would take
minutes a run on the generated corpus): its speed is its own, its log
likelihood is left out of the peers' spread (:func:`lda_ratios`)."""

QUICK = {
    "pair": ["--draws", "100", "--tune", "100"],
    "gibbs-ess": ["--draws", "1000"],
    "regression-size": ["--sizes", "10", "100", "--draws", "100", "--tune", "100"],
    "chains": ["--draws", "100", "--tune", "100"],
    "lda": ["--topics", "3", "--iterations", "2"],
}
"""Extra arguments of every section with ``--quick`` (tiny: proves the code runs)."""


# ------------------------------------------------------------- processes


@dataclass
class Child:
    """A finished process: exit status, output, wall time and peak memory."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    peak_rss_mb: float | None
    timed_out: bool = False


def run_child(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 900.0
) -> Child:
    """Run ``argv`` in :data:`ROOT`; return its output, wall time and peak resident memory.

    The peak is the child's own ``ru_maxrss`` (``os.wait4``; KiB on Linux),
    not the maximum over every child so far that ``RUSAGE_CHILDREN`` gives.

    Parameters
    ----------
    argv : sequence of str
        Command and arguments.
    env : mapping, optional
        Environment (default: this process's).
    timeout : float
        Seconds after which the process is killed, > 0.

    Returns
    -------
    Child
    """
    check_positive("timeout", timeout, "number of seconds")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(argv), cwd=ROOT, env=dict(env) if env is not None else None, stdout=out, stderr=err
        )
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            proc.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    peak = usage.ru_maxrss / 1024.0 if sys.platform.startswith("linux") else None
    return Child(proc.returncode, stdout, stderr, wall, peak, killed.is_set())


def _tail(text: str, lines: int = 5) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _measure(args: Sequence[str], *, env=None, timeout: float) -> dict[str, Any]:
    """Run one ``benchmarks.ess_per_second`` subcommand; return its JSON plus process facts."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        child = run_child(
            [sys.executable, "-m", "benchmarks.ess_per_second", *args, "--out", str(out)],
            env=env,
            timeout=timeout,
        )
        process = {"wall_s": child.wall_s, "peak_rss_mb": child.peak_rss_mb}
        if child.returncode != 0 or not out.exists():
            reason = "timed out" if child.timed_out else f"exit {child.returncode}"
            return {"status": "failed", "error": f"{reason}: {_tail(child.stderr)}", **process}
        return {"status": "ok", "result": json.loads(out.read_text()), **process}


# ------------------------------------------------------------------ LDA


def lda_benchmark_available() -> tuple[bool, str]:
    """Return whether ``benchmarks/lda_throughput.py`` can run, and if not, why.

    It must import, and the ``lda`` package that ships its Reuters corpus (the
    ``bench`` extra) must be installed.

    Returns
    -------
    tuple of (bool, str)
        Availability and, when unavailable, the reason.
    """
    if not LDA_SCRIPT.exists():
        return False, f"{LDA_SCRIPT.relative_to(ROOT)} does not exist"
    try:
        module = importlib.import_module("benchmarks.lda_throughput")
    except Exception as exc:  # any import failure means: not usable now
        return False, f"benchmarks.lda_throughput does not import: {type(exc).__name__}: {exc}"
    if not callable(getattr(module, "main", None)):
        return False, "benchmarks.lda_throughput has no main function"
    if importlib.util.find_spec("lda") is None:
        return False, "the lda package (Reuters corpus) is not installed: pip install -e '.[bench]'"
    return True, ""


LDA_TARGETS = (1.2, 3.0)
"""Throughput the default hand-rolled call must reach: times tomotopy's, times ``lda``'s."""
LDA_DEFAULT = "handrolled default"
"""The row of ``sample()`` with its default kernel (``lda_throughput.DEFAULT``)."""


def lda_ratios(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per corpus and K, the default hand-rolled call's throughput over tomotopy's and ``lda``'s.

    The default call (row :data:`LDA_DEFAULT`) is what a user gets; rows
    without it (a run with ``--kernels`` that leaves ``auto`` out) are scored by
    their fastest kernel.

    Parameters
    ----------
    rows : sequence of mapping
        The ``rows`` of :func:`benchmarks.lda_throughput.measure`: ``K``,
        ``sampler``, ``handrolled``, ``mtokens_per_s``, ``loglik_per_token``,
        ``loglik_min``, ``loglik_max``.

    Returns
    -------
    list of dict
        ``corpus`` (the rows' ``corpus``, ``""`` when they name none), ``K``,
        ``handrolled`` (the scored row's sampler name),
        ``vs_tomotopy`` and ``vs_lda`` (``None`` where the peer is missing),
        ``loglik`` (its median final log likelihood per token),
        ``peers_loglik`` (``[lowest, highest]`` over both peers' seeds; a
        peer's ``short_run``, fewer iterations than the rest, counts for its
        speed but not here), ``loglik_vs_peers`` (``"within"``, ``"above"`` or
        ``"below"`` that range, ``None`` without full peer runs) and
        ``meets_targets``: at least
        :data:`LDA_TARGETS` times tomotopy's and ``lda``'s throughput, and a
        final log likelihood not below the peers' range (``None`` when a peer
        is missing).
    """
    out = []
    corpora = list(dict.fromkeys(row.get("corpus", "") for row in rows))
    for corpus, K in ((c, K) for c in corpora for K in sorted({row["K"] for row in rows})):
        at_k = [row for row in rows if row["K"] == K and row.get("corpus", "") == corpus]
        mine = [row for row in at_k if row["handrolled"]]
        peers = {row["sampler"]: row for row in at_k if not row["handrolled"]}
        if not mine:
            continue
        default = [row for row in mine if row["sampler"] == LDA_DEFAULT]
        best = default[0] if default else max(mine, key=lambda row: row["mtokens_per_s"])
        tomotopy, lda = peers.get("tomotopy"), peers.get("lda")
        vs_tomotopy = best["mtokens_per_s"] / tomotopy["mtokens_per_s"] if tomotopy else None
        vs_lda = best["mtokens_per_s"] / lda["mtokens_per_s"] if lda else None
        ll, span, position = best["loglik_per_token"], None, None
        full_runs = [p for p in peers.values() if not p.get("short_run")]
        if full_runs:
            span = [
                min(p["loglik_min"] for p in full_runs),
                max(p["loglik_max"] for p in full_runs),
            ]
            position = "below" if ll < span[0] else "above" if ll > span[1] else "within"
        meets = None
        if vs_tomotopy is not None and vs_lda is not None:
            meets = (
                vs_tomotopy >= LDA_TARGETS[0] and vs_lda >= LDA_TARGETS[1] and position != "below"
            )
        out.append(
            {
                "corpus": corpus,
                "K": K,
                "handrolled": best["sampler"],
                "vs_tomotopy": vs_tomotopy,
                "vs_lda": vs_lda,
                "loglik": ll,
                "peers_loglik": span,
                "loglik_vs_peers": position,
                "meets_targets": meets,
            }
        )
    return out


def run_lda(extra: Sequence[str], *, timeout: float) -> dict[str, Any]:
    """Run ``benchmarks/lda_throughput.py`` as a script when it is available; read its JSON.

    Returns
    -------
    dict
        ``status`` (``"ok"``, ``"failed"``, ``"skipped"``), ``command``,
        ``wall_s``, ``peak_rss_mb``, ``stdout`` (its printed table, shown in the
        Markdown), and from its ``--json``: ``rows``, ``topics`` and
        ``ratios`` (:func:`lda_ratios`).
    """
    ok, reason = lda_benchmark_available()
    if not ok:
        return {"status": "skipped", "error": reason}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "lda.json"
        child = run_child(
            [sys.executable, str(LDA_SCRIPT), *extra, "--json", str(out)], timeout=timeout
        )
        measured = json.loads(out.read_text()) if out.exists() else {}
    rows = measured.get("rows", [])
    result = {
        "command": " ".join(["python", str(LDA_SCRIPT.relative_to(ROOT)), *extra]),
        "wall_s": child.wall_s,
        "peak_rss_mb": child.peak_rss_mb,
        "stdout": child.stdout,
        "rows": rows,
        "topics": measured.get("topics", []),
        "ratios": lda_ratios(rows),
    }
    if child.returncode != 0 or not rows:
        reason = "timed out" if child.timed_out else f"exit {child.returncode}"
        if child.returncode == 0:
            reason = "no rows were measured"
        return {"status": "failed", "error": f"{reason}: {_tail(child.stderr)}", **result}
    return {"status": "ok", **result}


# ------------------------------------------------------------------ the run


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for name in ("numpy", "numba", "pymc", "nutpie", "pytensor", "arviz-stats", "lda", "tomotopy"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def run_benchmarks(
    *,
    repeats: int = 3,
    quick: bool = False,
    pairs: Sequence[str] | None = None,
    skip: Sequence[str] = (),
    timeout: float = 900.0,
    lda_timeout: float = 3600.0,
    say=print,
) -> dict[str, Any]:
    """Run every section in its own process and gather the results.

    Parameters
    ----------
    repeats : int
        Timed repeats of every measurement, >= 1 (the LDA script gets it too).
    quick : bool
        Tiny sizes (:data:`QUICK`): proves the code runs; the numbers mean nothing.
    pairs : sequence of str, optional
        Registered pairs to measure (default all).
    skip : sequence of str
        Sections of :data:`SECTIONS` to leave out.
    timeout : float
        Seconds allowed to each process but the LDA script's.
    lda_timeout : float
        Seconds allowed to the LDA script (every K on two corpora).
    say : callable
        Receives one progress line per finished process.

    Returns
    -------
    dict
        ``meta`` (date, machine, versions, settings), ``pairs``, ``gibbs_ess``,
        ``regression_size``, ``chains``, ``lda`` (each with ``status``) and
        ``targets``.

    Raises
    ------
    ValueError
        Bad repeats or time limits, unknown pairs or sections.
    """
    from mcmc_pairs.comparisons.registry import PAIRS, get_pair

    check_integer("repeats", repeats, 1)
    check_positive("timeout", timeout, "number of seconds")
    check_positive("lda_timeout", lda_timeout, "number of seconds")
    unknown = sorted(set(skip) - set(SECTIONS))
    if unknown:
        raise ValueError(f"skip names unknown section(s) {unknown}; known: {list(SECTIONS)}")
    names = [p.name for p in PAIRS] if pairs is None else [get_pair(n).name for n in pairs]
    extra = QUICK if quick else FULL
    common = ["--repeats", str(repeats)]
    started = time.perf_counter()
    results: dict[str, Any] = {
        "meta": {
            "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "machine": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_start": _loadavg(),
            "versions": _versions(),
            "repeats": repeats,
            "quick": quick,
            "command": "python -m benchmarks.run " + " ".join(sys.argv[1:]),
        }
    }
    if "pairs" not in skip:
        results["pairs"] = {}
        for name in names:
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "NUMBA_CACHE_DIR": cache}
                args = ["pair", name, "--budget", str(PAIR_BUDGET_S), *common, *extra["pair"]]
                entry = _measure(args, env=env, timeout=timeout)
            results["pairs"][name] = entry
            say(_pair_line(name, entry))
    sections = (
        ("gibbs", "gibbs_ess", "gibbs-ess"),
        ("size", "regression_size", "regression-size"),
        ("chains", "chains", "chains"),
    )
    for section, key, command in sections:
        if section in skip:
            continue
        args = [command, *common, *extra[command]]
        if command == "chains":
            chosen = names if pairs is not None else [n for n in names if n not in CHAINS_LEFT_OUT]
            args += ["--pairs", *chosen]
        results[key] = _measure(args, timeout=timeout)
        say(f"{key}: {results[key]['status']} in {results[key]['wall_s']:.1f} s")
    if "lda" not in skip:
        results["lda"] = run_lda([*common, *extra["lda"]], timeout=lda_timeout)
        say(f"lda: {results['lda']['status']}")
    results["targets"] = targets(results)
    results["meta"]["wall_s"] = time.perf_counter() - started
    results["meta"]["load_average_end"] = _loadavg()
    return results


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _pair_line(name: str, entry: Mapping[str, Any]) -> str:
    if entry["status"] != "ok":
        return f"{name}: FAILED ({entry['error']})"
    parts = []
    for label, side in entry["result"]["sides"].items():
        if label != "pymc":
            parts.append(f"{label} {_num(side['ratio_to_nuts']['median'])}x NUTS")
    return f"{name}: " + ", ".join(parts) + f" ({entry['wall_s']:.0f} s)"


def targets(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the issue's targets, each with the measured value and whether it is met.

    Parameters
    ----------
    results : mapping
        As returned by :func:`run_benchmarks` (sections may be missing).

    Returns
    -------
    list of dict
        ``target``, ``value``, ``threshold``, ``met`` (``None`` when not measured).
    """
    out = []
    for name, label in TARGET_SIDES:
        entry = results.get("pairs", {}).get(name, {})
        value = None
        if entry.get("status") == "ok" and label in entry["result"]["sides"]:
            value = entry["result"]["sides"][label]["ratio_to_nuts"]["median"]
        out.append(
            {
                "target": f"{name} {label}: ESS/s over NUTS's (median)",
                "value": value,
                "threshold": f">= {TARGET_RATIO:g}",
                "met": None if value is None else value >= TARGET_RATIO,
            }
        )
    gibbs = results.get("gibbs_ess", {})
    if gibbs.get("status") == "ok":
        g = gibbs["result"]
        worst = max(g["relative_error"].values(), key=abs)
        out.append(
            {
                "target": f"bivariate Gibbs ESS/draw against {g['analytic']:.3g}: relative error",
                "value": worst,
                "threshold": f"within ±{g['tolerance']:.0%}",
                "met": g["within_tolerance"],
                "percent": True,
            }
        )
    lda = results.get("lda", {})
    for row in lda.get("ratios", []) if lda.get("status") == "ok" else []:
        out.append(
            {
                "target": f"LDA {row.get('corpus', '')} K={row['K']}: {row['handrolled']} "
                f"over tomotopy / lda, call to result (final log lik. "
                f"{row['loglik_vs_peers'] or '?'} the peers' spread)",
                "value": [row["vs_tomotopy"], row["vs_lda"]],
                "threshold": f">= {LDA_TARGETS[0]:g} / >= {LDA_TARGETS[1]:g}, not below",
                "met": row["meets_targets"],
            }
        )
    for row in lda.get("topics", []) if lda.get("status") == "ok" else []:
        out.append(
            {
                "target": f"LDA {row.get('corpus', '')} K={row['K']}: {row['kernel']} topics "
                "to the peers' / peers' to "
                "each other (mean Hellinger distance after alignment)",
                "value": [row["ours"], row["peers_hi"]],
                "threshold": "first <= largest peer-to-peer",
                "met": row["ours"] <= row["peers_hi"],
            }
        )
    return out


# -------------------------------------------------------------- Markdown


def _num(x: float | None) -> str:
    """Three significant digits, with k/M suffixes for large numbers."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    size = abs(x)
    if size >= 1e6:
        return f"{x / 1e6:.3g} M"
    if size >= 1e4:
        return f"{x / 1e3:.3g} k"
    if size >= 100:
        return f"{x:.0f}"
    if size == 0:
        return "0"
    return f"{x:#.3g}"


def _rng(s: Mapping[str, Any] | None) -> str:
    """``median [min–max]`` of a :func:`benchmarks.ess_per_second.spread`."""
    if not s or s.get("median") is None:
        return "–"
    if len(s.get("values", [])) <= 1:
        return _num(s["median"])
    return f"{_num(s['median'])} [{_num(s['min'])}–{_num(s['max'])}]"


def _seconds(x: float | None) -> str:
    if x is None:
        return "–"
    if x < 0.01:
        return f"{x * 1e3:.2g} ms"
    return f"{x:.3g} s"


def _srng(s: Mapping[str, Any] | None) -> str:
    if not s or s.get("median") is None:
        return "–"
    if len(s.get("values", [])) <= 1:
        return _seconds(s["median"])
    return f"{_seconds(s['median'])} [{_seconds(s['min'])}–{_seconds(s['max'])}]"


def render_markdown(results: Mapping[str, Any]) -> str:
    """Render the results as Markdown tables (the file ``benchmarks/results.md``).

    Parameters
    ----------
    results : mapping
        As returned by :func:`run_benchmarks`.

    Returns
    -------
    str
    """
    meta = results["meta"]
    v = meta["versions"]
    lines = [
        "# Benchmark results",
        "",
        f"`{meta['command'].strip()}` on {meta['date']}, {meta['machine']}, "
        f"{meta['cpus']} CPUs (load average {meta['load_average_start']} at the start, "
        f"{meta.get('load_average_end')} at the end); whole run {meta.get('wall_s', 0):.0f} s. "
        f"Python {v['python']}, numpy {v['numpy']}, numba {v['numba']}, PyMC {v['pymc']}, "
        f"nutpie {v['nutpie']}, lda {v['lda']}, tomotopy {v['tomotopy']}. "
        f"Median [min–max] over {meta['repeats']} repeats."
        + (" **Quick mode: tiny sizes, the numbers mean nothing.**" if meta["quick"] else ""),
        "",
    ]
    if results.get("targets"):
        lines += ["## Targets", "", "| target | measured | threshold | met |", "|---|---|---|---|"]
        for t in results["targets"]:
            value = t["value"]
            if isinstance(value, list):
                shown = " / ".join(_num(x) for x in value)
            elif t.get("percent") and value is not None:
                shown = f"{value:+.1%}"
            else:
                shown = _num(value)
            met = {True: "yes", False: "**no**", None: "–"}[t["met"]]
            lines.append(f"| {t['target']} | {shown} | {t['threshold']} | {met} |")
        lines.append("")
    if "pairs" in results:
        lines += _pairs_markdown(results["pairs"])
    if "gibbs_ess" in results:
        lines += _gibbs_markdown(results["gibbs_ess"])
    if "regression_size" in results:
        lines += _size_markdown(results["regression_size"])
    if "chains" in results:
        lines += _chains_markdown(results["chains"])
    if "lda" in results:
        lines += _lda_markdown(results["lda"])
    return "\n".join(lines).rstrip() + "\n"


def _pairs_markdown(pairs: Mapping[str, Any]) -> list[str]:
    lines = [
        "## ESS per second, every pair",
        "",
        "Each pair's default data and settings (`mcmc-pairs compare`), both sides in the same "
        "run. ESS = minimum bulk ESS over the compared quantities (components, centred products, "
        "derived ones); seconds = sampling wall time, tune + draws, compilation excluded. "
        "× NUTS = that side's ESS/s over NUTS's in the same run. First run = wall time of an "
        "untimed 20-draw run in a fresh process (numba compilation with an empty cache; "
        "PyTensor/nutpie compilation). Peak RSS Δ = peak resident memory during the side "
        "over the resident size before it; process = the whole process's peak.",
        "",
        "| pair | side | draws × chains, runs | ESS (min, quantity) | seconds | ESS/s | × NUTS "
        "| first run | peak RSS Δ | verdicts |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in pairs.items():
        if entry["status"] != "ok":
            lines.append(f"| {name} | failed: {entry['error']} | | | | | | | | |")
            continue
        r = entry["result"]
        runs = f"{r['repeats']} run" + ("s" if r["repeats"] != 1 else "")
        shape = f"{r['settings']['draws']} × {r['settings']['chains']}, {runs}"
        verdicts = ", ".join(sorted(set(r["verdicts"])))
        for label, side in r["sides"].items():
            ratio = "1" if label == "pymc" else _rng(side["ratio_to_nuts"])
            mem = side["peak_rss_increment_mb"]["median"]
            lines.append(
                f"| {name} | {label} | {shape} | {_num(side['ess_bulk_min']['median'])} "
                f"({side['ess_min_quantity']}) | {_srng(side['sampling_s'])} | "
                f"{_rng(side['ess_per_s'])} | {ratio} | {_seconds(side['first_run_s'])} | "
                f"{'–' if mem is None else f'{mem:.1f} MB'} | {verdicts} |"
            )
        lines.append(
            f"| {name} | (process) | | | {entry['wall_s']:.1f} s wall | | | | "
            f"{_num(entry['peak_rss_mb'])} MB peak | |"
        )
    return [*lines, ""]


def _gibbs_markdown(entry: Mapping[str, Any]) -> list[str]:
    lines = ["## Bivariate Gibbs: ESS per draw against the AR(1) value", ""]
    if entry["status"] != "ok":
        return [*lines, f"failed: {entry['error']}", ""]
    g = entry["result"]
    lines += [
        f"rho = {g['rho']}, analytic (1 - rho²)/(1 + rho²) = {g['analytic']:.3g}; "
        f"{g['chains']} chains × {g['draws']} draws, {g['repeats']} seeds.",
        "",
        "| component | ESS per draw | relative error of the median |",
        "|---|---|---|",
    ]
    for q, s in g["ess_per_draw"].items():
        lines.append(f"| {q} | {_rng(s)} | {g['relative_error'][q]:+.1%} |")
    return [*lines, ""]


def _size_markdown(entry: Mapping[str, Any]) -> list[str]:
    lines = ["## Regression: time against the number of data points N", ""]
    if entry["status"] != "ok":
        return [*lines, f"failed: {entry['error']}", ""]
    r = entry["result"]
    s = r["settings"]
    lines += [
        f"Synthetic data (`mcmc_pairs.pairdata.regression.synthetic_data`), {s['draws']} draws + "
        f"{s['tune']} tune × {s['chains']} chains. Hand-rolled seconds include the O(N) "
        "sufficient statistics; NUTS compile = `nutpie.compile_pymc_model`, not in seconds.",
        "",
        "| N | side | seconds | ESS/s | compile |",
        "|---|---|---|---|---|",
    ]
    for size in r["sizes"]:
        for label, side in size["sides"].items():
            lines.append(
                f"| {size['n']:,} | {label} | {_srng(side['sampling_s'])} | "
                f"{_rng(side['ess_per_s'])} | {_seconds(side.get('compile_s'))} |"
            )
    return [*lines, ""]


def _chains_markdown(entry: Mapping[str, Any]) -> list[str]:
    lines = ["## 1 and 2 chains on the 2 cores", ""]
    if entry["status"] != "ok":
        return [*lines, f"failed: {entry['error']}", ""]
    r = entry["result"]
    counts = [str(c) for c in r["chain_counts"]]
    head = " | ".join(f"seconds ({c})" for c in counts)
    rate = " | ".join(f"ESS/s ({c})" for c in counts)
    lines += [
        "Hand-rolled samplers with their default `cores`: the numba ones (bivariate normal, "
        "both regression samplers) run their chains on threads when a chain makes at least "
        "`mcmc_pairs.handrolled._common.PARALLEL_MIN_STEPS` updates "
        "(here the one-at-a-time regression "
        "sampler, many sweeps a kept draw), else one after the other, as the others do; NUTS "
        "through nutpie with `cores = chains` (threads), the Bayes net through PyMC's own sampler "
        "(`cores = chains` processes). time ratio = seconds with the most chains over seconds "
        "with one.",
        "",
        f"| pair | side | draws | {head} | time ratio | {rate} |",
        "|---|---|---|" + "---|" * (2 * len(counts) + 1),
    ]
    for name, p in r["pairs"].items():
        for label, per in p["sides"].items():
            t = [per[c]["sampling_s"]["median"] for c in counts]
            ratio = t[-1] / t[0] if t[0] else None
            lines.append(
                f"| {name} | {label} | {p['settings']['draws']} | "
                + " | ".join(_srng(per[c]["sampling_s"]) for c in counts)
                + f" | {_num(ratio)} | "
                + " | ".join(_rng(per[c]["ess_per_s"]) for c in counts)
                + " |"
            )
    return [*lines, ""]


def _lda_markdown(entry: Mapping[str, Any]) -> list[str]:
    lines = ["## LDA: tokens per second (benchmarks/lda_throughput.py)", ""]
    if entry["status"] == "skipped":
        return [*lines, f"skipped: {entry['error']}", ""]
    if entry["status"] != "ok":
        lines += [f"failed: {entry['error']}", ""]
    if entry.get("ratios"):
        lines += [
            "| corpus | K | fastest hand-rolled | × tomotopy | × lda | final log lik./token "
            "| peers' spread | targets met |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in entry["ratios"]:
            span = row["peers_loglik"]
            shown = "–" if span is None else f"{span[0]:.4f} .. {span[1]:.4f}"
            position = {"below": "**below**", None: "–"}.get(
                row["loglik_vs_peers"], row["loglik_vs_peers"]
            )
            met = {True: "yes", False: "**no**", None: "–"}[row["meets_targets"]]
            lines.append(
                f"| {row.get('corpus', '')} | {row['K']} | {row['handrolled']} | "
                f"{_num(row['vs_tomotopy'])} | "
                f"{_num(row['vs_lda'])} | {row['loglik']:.4f} ({position}) | {shown} | {met} |"
            )
        lines.append("")
    if entry.get("stdout"):
        peak = entry.get("peak_rss_mb")
        lines += [
            f"`{entry['command']}`: {entry['wall_s']:.0f} s, process peak RSS "
            f"{_num(peak)} MB. Its output:",
            "",
            "```",
            entry["stdout"].rstrip(),
            "```",
        ]
    return [*lines, ""]


# ---------------------------------------------------------- command line


def write_results(results: Mapping[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """Write ``results.json`` and ``results.md`` into ``out_dir`` (each atomically).

    Returns
    -------
    tuple of Path
        The JSON and Markdown paths.
    """
    json_path, md_path = out_dir / "results.json", out_dir / "results.md"
    write_atomic(json_path, json.dumps(results, indent=1) + "\n")
    write_atomic(md_path, render_markdown(results))
    return json_path, md_path


class UsageError(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``python -m benchmarks.run``."""
    parser = _Parser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (default 3)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: check that it runs")
    parser.add_argument("--pairs", nargs="+", metavar="NAME", help="pairs to measure")
    parser.add_argument("--skip", nargs="+", default=[], choices=SECTIONS, help="sections to skip")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per process")
    parser.add_argument(
        "--lda-timeout", type=float, default=3600.0, help="seconds for the LDA script"
    )
    parser.add_argument(
        "--out-dir", type=Path, default=ROOT / "benchmarks", help="where results.* go"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks, write the results, print the Markdown; return the exit status."""
    try:
        args = build_parser().parse_args(argv)
        results = run_benchmarks(
            repeats=args.repeats,
            quick=args.quick,
            pairs=args.pairs,
            skip=args.skip,
            timeout=args.timeout,
            lda_timeout=args.lda_timeout,
            say=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except (UsageError, ValueError) as exc:
        print(f"benchmarks.run: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    json_path, md_path = write_results(results, args.out_dir)
    print(render_markdown(results))
    print(f"wrote {json_path} and {md_path}", file=sys.stderr)
    failed = [
        key
        for key in ("gibbs_ess", "regression_size", "chains", "lda")
        if results.get(key, {}).get("status") == "failed"
    ] + [n for n, e in results.get("pairs", {}).items() if e["status"] != "ok"]
    if failed:
        print(f"benchmarks.run: failed sections: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
