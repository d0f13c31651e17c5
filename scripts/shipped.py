"""Measure the catalogue of bugs that shipped (``shipped/``) and write its tables.

Each entry's folder has an ``entry.json`` (title, project, issue, fix, shipped,
model, the ``bug`` and ``fixed`` samplers as ``--sampler`` specs relative to the
folder, extra ``options``). This script runs, each as the command a user types,
in a fresh process, timed as a whole:

- ``compare``: the bug at seed 1 and the fix at seeds 1, 2, 3, at the defaults;
- ``hand``: the checks a user makes by hand, on one fixed-size run at the
  defaults (4 chains x 1,000 draws after 1,000 tuning, ``--max-draws 1000``):
  every variable's posterior mean equal to NUTS's at two decimals, R-hat below
  1.01, bulk ESS above 400; the bug and the fix at seed 1;
- ``sbc``: ``validate --method sbc`` at the defaults, the bug at seed 1 and the
  fix at seeds 1, 2, 3.

Results go to ``shipped/results.json``, one record per run, keyed by entry, job,
version and seed, with a digest of the entry's code and data: a run is done again
only when missing or stale, so an interrupted measurement resumes. ``render``
writes the tables between the markers of ``shipped/README.md``; ``page DIR``
the report's page ``DIR/shipped.html`` (``make report``).

    python scripts/shipped.py run [--entries NAME ...] [--jobs compare hand sbc]
    python scripts/shipped.py render
    python scripts/shipped.py page reports
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from command import run as command_run  # noqa: E402

from mcmc_pairs.comparisons.files import write_atomic  # noqa: E402

SHIPPED = ROOT / "shipped"
RESULTS = SHIPPED / "results.json"
JOBS = ("compare", "hand", "sbc")
FIX_SEEDS = (1, 2, 3)
HAND_RHAT, HAND_ESS, HAND_DECIMALS = 1.01, 400, 2
"""The checks by hand: R-hat < 1.01, bulk ESS > 400, means equal at two decimals."""
FIXED_TARGET = "samples a fixed target"
"""``validate``'s refusal of a model without observed data: SBC does not apply (exit 2)."""
START, END = "<!-- shipped:table:start -->", "<!-- shipped:table:end -->"


@dataclass(frozen=True)
class Entry:
    """One folder of the catalogue, read from its ``entry.json``."""

    name: str
    meta: dict

    @property
    def folder(self) -> Path:
        """Return the entry's folder."""
        return SHIPPED / self.name

    def sampler(self, version: str) -> str:
        """Return the ``--sampler`` spec of ``version`` (``"bug"``, ``"fixed"``), path absolute."""
        spec = self.meta[version]
        prefix = "pymc-step:" if spec.startswith("pymc-step:") else ""
        return prefix + str(self.folder / spec.removeprefix(prefix))

    def digest(self) -> str:
        """SHA-256 of the entry's code and data (not its README): a changed entry is rerun."""
        h = hashlib.sha256()
        for path in sorted(self.folder.glob("*")):
            if path.suffix in (".py", ".json") and path.name != "README.md":
                h.update(path.name.encode() + b"\0" + path.read_bytes())
        return h.hexdigest()[:16]


def entries(names: Sequence[str] | None = None) -> list[Entry]:
    """Return the catalogue's entries (every folder with an ``entry.json``), by name."""
    found = {p.parent.name: p for p in sorted(SHIPPED.glob("*/entry.json"))}
    unknown = sorted(set(names or ()) - set(found))
    if unknown:
        raise SystemExit(f"--entries: no entry {', '.join(unknown)} in {SHIPPED}")
    return [Entry(n, json.loads(found[n].read_text())) for n in (names or found)]


def runs(
    entry: Entry, jobs: Sequence[str], fix_seeds: Sequence[int] = FIX_SEEDS
) -> Iterator[tuple[str, str, int]]:
    """Yield the (job, version, seed) runs of ``entry``: bug at seed 1, fix at ``fix_seeds``."""
    for job in jobs:
        yield job, "bug", 1
        for seed in (1,) if job == "hand" else fix_seeds:
            yield job, "fixed", seed


def command(entry: Entry, job: str, version: str, seed: int) -> list[str]:
    """Return the arguments of one run (``command.run`` adds the program and ``--out``)."""
    name = f"{entry.name}_{version}_{job}_{seed}"
    model = ["--model", f"{entry.folder / 'model.py'}:build_model"]
    model += ["--data", str(entry.folder / "data.json")]
    common = [*model, "--sampler", entry.sampler(version), "--name", name, "--seed", str(seed)]
    if job == "sbc":
        return ["validate", "--method", "sbc", *common]
    extra = ["--max-draws", "1000"] if job == "hand" else []
    return ["compare", *common, *entry.meta["options"], *extra]


def measure(entry: Entry, job: str, version: str, seed: int, limit: float | None = None) -> dict:
    """Run one command; return its record (verdict, exit, time, and what the job reads).

    A command still running after ``limit`` seconds is stopped: verdict ``"timeout"``.
    """
    ran = command_run(command(entry, job, version, seed), ROOT, limit)
    record = {
        "entry": entry.name, "job": job, "version": version, "seed": seed,
        "digest": entry.digest(), "seconds": round(ran.seconds, 1),
        "command": " ".join(a.replace(str(ROOT) + "/", "") for a in ran.argv[1:]),
    }  # fmt: skip
    if ran.timed_out:
        return record | {"exit": None, "verdict": "timeout", "limit": limit}
    record["exit"] = ran.exit
    document = ran.document
    if document is None:
        return record | {"verdict": "error", "error": ran.error}
    record["verdict"] = document["verdict"]
    if job == "sbc":
        record["replications"] = document["settings"].get("replications")
        record["failed"] = sum(not c.get("passed", True) for c in document["checks"])
        record["statement"] = document.get("certifies") or document.get("sbc_message")
        return record
    record["looks"] = len(document["looks"])
    record["draws"] = document["looks"][-1]["draws"] if document["looks"] else None
    record["failed"] = failed_checks(document)
    if job == "hand":
        record["hand"] = hand_checks(document)
    return record


def failed_checks(document: dict, shown: int = 3) -> dict:
    """Count the failed checks and name the ``shown`` worst (largest value over threshold)."""
    failed = [c for c in document["checks"] if not c.get("passed", True)]

    def excess(check: dict) -> float:
        value, threshold = check.get("value"), check.get("threshold")
        try:
            return abs(float(value)) / max(abs(float(threshold)), 1e-12)
        except (TypeError, ValueError):
            return 0.0

    worst = sorted(failed, key=excess, reverse=True)[:shown]
    named = [f"{c.get('statistic')} of {c.get('quantity')} ({c.get('kind')})" for c in worst]
    return {"count": len(failed), "of": len(document["checks"]), "worst": named}


def model_variables(summary: dict) -> list[str]:
    """Return the model's variables among a side's summary rows (no products, densities)."""
    from mcmc_pairs.comparisons.witness import LOG_DENSITIES

    derived = set(LOG_DENSITIES)
    return [q for q in summary if "*" not in q and not q.startswith("P(") and q not in derived]


def hand_checks(document: dict) -> dict:
    """Return the checks by hand on the side under test, against NUTS (the ``pymc`` side).

    ``mean``: every variable's posterior mean equal to NUTS's when both are rounded to
    two decimals; ``rhat``: every R-hat below 1.01; ``ess``: every bulk ESS above 400.
    Each gives ``flags`` (the check would have raised the alarm) and its worst value.
    """
    sides = document["sides"]
    mine = next(s["summary"] for label, s in sides.items() if label != "pymc")
    nuts = sides["pymc"]["summary"]
    names = [q for q in model_variables(mine) if q in nuts]
    gaps = {q: abs(mine[q]["mean"] - nuts[q]["mean"]) for q in names}
    differ = [
        q
        for q in names
        if round(mine[q]["mean"], HAND_DECIMALS) != round(nuts[q]["mean"], HAND_DECIMALS)
    ]
    rhat = max(mine[q]["r_hat"] for q in names)
    ess = min(mine[q]["ess_bulk"] for q in names)
    worst = max(gaps, key=gaps.get)
    return {
        "mean": {"flags": bool(differ), "worst": worst, "gap": gaps[worst], "differ": len(differ),
                 "of": len(names)},
        "rhat": {"flags": not rhat < HAND_RHAT, "worst": rhat},
        "ess": {"flags": not ess > HAND_ESS, "worst": ess},
    }  # fmt: skip


def load() -> list[dict]:
    """Return the records of ``shipped/results.json`` (none when it does not exist)."""
    return json.loads(RESULTS.read_text())["records"] if RESULTS.exists() else []


def save(records: list[dict]) -> None:
    """Write the records, sorted, to ``shipped/results.json`` in one step."""
    key = lambda r: (r["entry"], JOBS.index(r["job"]), r["version"] != "bug", r["seed"])  # noqa: E731
    text = json.dumps({"records": sorted(records, key=key)}, indent=1, ensure_ascii=False)
    write_atomic(RESULTS, text + "\n")


def run(args: argparse.Namespace) -> int:
    """Measure every missing or stale run of the entries (``run``)."""
    records = load()
    for entry in entries(args.entries):
        digest = entry.digest()
        for job, version, seed in runs(entry, args.jobs, args.fix_seeds):
            key = (entry.name, job, version, seed)
            old = [r for r in records if (r["entry"], r["job"], r["version"], r["seed"]) == key]
            if old and old[0]["digest"] == digest and not args.again:
                continue
            record = measure(entry, job, version, seed, args.limit)
            records = [r for r in records if r not in old] + [record]
            save(records)
            print(
                f"{entry.name:34s} {job:7s} {version:5s} seed {seed}: {record['verdict']} "
                f"(exit {record['exit']}, {record['seconds']} s)",
                flush=True,
            )
    return 0


# ---------------------------------------------------------------- rendering


def _find(records, entry, job, version, seed=1) -> dict | None:
    for r in records:
        if (r["entry"], r["job"], r["version"], r["seed"]) == (entry, job, version, seed):
            return r
    return None


def _run_cell(r: dict | None, digest: str) -> str:
    """Return one run's cell: verdict, exit status, looks or replications, wall time."""
    if r is None:
        return "not run"
    stale = "" if r["digest"] == digest else " (stale)"
    if r["verdict"] == "timeout":
        return f"did not finish in {r['limit']:.0f} s (stopped){stale}"
    if r["verdict"] == "error" and FIXED_TARGET in r.get("error", ""):
        return f"not applicable: a fixed target, no data to simulate{stale}"
    if r["job"] == "sbc":
        reps = f", {r['replications']} replications" if r.get("replications") else ""
        return f"{r['verdict']} (exit {r['exit']}{reps}, {r['seconds']:.0f} s){stale}"
    looks = (
        f", {r['looks']} look{'s' * (r['looks'] != 1)} to {r['draws']:,}" if "looks" in r else ""
    )
    return f"{r['verdict']} (exit {r['exit']}{looks}, {r['seconds']:.0f} s){stale}"


def _seeds_cell(cells: list[str]) -> str:
    """Join the cells of the fix's seeds; a run that does not apply is said once."""
    if cells and cells[0].startswith("not applicable"):
        return cells[0]
    return "; ".join(cells)


def _caught(r: dict | None) -> str:
    """Return ``"yes"`` (``disagree``, SBC ``fail``), ``"not converged"`` or ``"**no**"``."""
    if r is None or r["exit"] != 1:
        return "**no**"
    return {"disagree": "yes", "fail": "yes", "not converged": "not converged"}.get(
        r["verdict"], "**no**"
    )


CAUGHT = ("yes", "not converged", "**no**")
"""How a bug fared, best first: caught, told apart as not mixing, missed."""


def _hand_cell(r: dict | None) -> str:
    if r is None or "hand" not in r:
        return "not run" if r is None else r["verdict"]
    h = r["hand"]
    m = h["mean"]
    mean = f"{'**flags**' if m['flags'] else 'passes'} ({m['differ']} of {m['of']} differ)"
    rhat = f"{'**flags**' if h['rhat']['flags'] else 'passes'} ({h['rhat']['worst']:.3f})"
    ess = f"{'**flags**' if h['ess']['flags'] else 'passes'} ({h['ess']['worst']:.0f})"
    return f"{mean} / {rhat} / {ess}"


def rows(records: list[dict]) -> list[dict]:
    """One row per entry: its metadata and the cells of the tables."""
    out = []
    for entry in entries():
        m, name, d = entry.meta, entry.name, entry.digest()
        issue = f"[{m['issue']['label']}]({m['issue']['url']})" if m["issue"] else "no issue"
        fix = f"[{m['fix']['label']}]({m['fix']['url']})"
        compare = _find(records, name, "compare", "bug")
        sbc = _find(records, name, "sbc", "bug")
        fixes = [_find(records, name, "compare", "fixed", s) for s in FIX_SEEDS]
        sbc_fixes = [_find(records, name, "sbc", "fixed", s) for s in FIX_SEEDS]
        out.append({
            "name": name, "title": m["title"], "project": m["project"], "issue": issue, "fix": fix,
            "shipped": m["shipped"], "model": m["model"],
            "compare": _run_cell(compare, d), "sbc": _run_cell(sbc, d),
            "caught": min(_caught(compare), _caught(sbc), key=CAUGHT.index),
            "fixes": "; ".join(_run_cell(r, d) for r in fixes),
            "fixes_agree": all(r is not None and r["verdict"] == "agree" for r in fixes),
            "sbc_fixes": _seeds_cell([_run_cell(r, d) for r in sbc_fixes]),
            "hand_bug": _hand_cell(_find(records, name, "hand", "bug")),
            "hand_fix": _hand_cell(_find(records, name, "hand", "fixed")),
        })  # fmt: skip
    return out


def markdown(table: list[dict]) -> str:
    """Return the README's tables: catalogue, caught and how fast, fixes, checks by hand."""
    lines = [
        "| bug | project | issue / fix | shipped | model |",
        "|---|---|---|---|---|",
        *(
            f"| [`{r['name']}`]({r['name']}/README.md): {r['title']} | {r['project']} | "
            f"{r['issue']} / {r['fix']} | {r['shipped']} | {r['model']} |"
            for r in table
        ),
        "",
        "**Caught, and how fast** (the bug at seed 1; verdict, exit status, looks to the draws "
        "per chain, wall time of the whole command):",
        "",
        "| bug | `compare` | `validate --method sbc` | caught |",
        "|---|---|---|---|",
        *(f"| `{r['name']}` | {r['compare']} | {r['sbc']} | {r['caught']} |" for r in table),
        "",
        "**The fixed versions** (seeds 1; 2; 3):",
        "",
        "| fix | `compare` | `validate --method sbc` |",
        "|---|---|---|",
        *(f"| `{r['name']}` | {r['fixes']} | {r['sbc_fixes']} |" for r in table),
        "",
        "**The checks users make by hand**, on one run of 4 chains x 1,000 draws after 1,000 "
        "tuning at seed 1: posterior means equal to NUTS's at two decimals (how many of the "
        "variables differ) / every R-hat < 1.01 (the largest) / every bulk ESS > 400 (the "
        "smallest). **flags** means the check would have raised the alarm:",
        "",
        "| entry | the bug | the fix |",
        "|---|---|---|",
        *(f"| `{r['name']}` | {r['hand_bug']} | {r['hand_fix']} |" for r in table),
    ]
    caught = sum(r["caught"] == "yes" for r in table)
    flagged = sum(r["caught"] == "not converged" for r in table)
    agree = sum(r["fixes_agree"] for r in table)
    projects = sorted({r["project"] for r in table})
    summary = (
        f"{len(table)} bugs from {len(projects)} projects ({', '.join(projects)}); caught at the "
        f"defaults (`disagree` or SBC's `fail`): {caught} of {len(table)}, and {flagged} more "
        f"`not converged` (exit 1, the chains do not mix); fixed versions that "
        f"agree at seeds 1, 2 and 3: {agree} of {len(table)}. Generated by "
        "`python scripts/shipped.py render` from `shipped/results.json`."
    )
    return "\n".join([summary, "", *lines])


def page(table: list[dict]) -> str:
    """Return the report's page ``shipped.html``: the same tables, as HTML."""
    from mcmc_pairs.comparisons import html as pages

    def cell(text: str) -> str:
        text = html.escape(text)
        text = re.sub(r"\[([^\]]+)\]\(([^)]+)\)", r'<a href="\2">\1</a>', text)
        text = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)
        return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)

    def grid(head: Sequence[str], body: list[list[str]]) -> str:
        top = "".join(f"<th>{cell(h)}</th>" for h in head)
        rows_ = "".join("<tr>" + "".join(f"<td>{cell(c)}</td>" for c in r) + "</tr>" for r in body)
        return f"<table><thead><tr>{top}</tr></thead><tbody>{rows_}</tbody></table>"

    body = [
        "<h1>Bugs that shipped</h1>",
        "<p>Sampler bugs that reached users of PyMC, NumPyro, Stan, BlackJAX and emcee, "
        "re-created from their fixes' diffs (<code>shipped/</code> in the repository), and what "
        "the suite's checks and the checks users make by hand say about each.</p>",
        '<p><a href="index.html">All pairs</a></p>',
        grid(
            ["bug", "project", "issue / fix", "shipped", "model"],
            [[f"{r['name']}: {r['title']}", r["project"], f"{r['issue']} / {r['fix']}",
              r["shipped"], r["model"]] for r in table],
        ),
        "<h2>Caught, and how fast (the bug at seed 1)</h2>",
        grid(["bug", "compare", "validate --method sbc", "caught"],
             [[r["name"], r["compare"], r["sbc"], r["caught"]] for r in table]),
        "<h2>The fixed versions (seeds 1; 2; 3)</h2>",
        grid(["fix", "compare", "validate --method sbc"],
             [[r["name"], r["fixes"], r["sbc_fixes"]] for r in table]),
        "<h2>The checks users make by hand</h2>",
        "<p>One run of 4 chains × 1,000 draws after 1,000 tuning at seed 1: posterior means "
        "equal to NUTS's at two decimals / every R-hat &lt; 1.01 / every bulk ESS &gt; 400.</p>",
        grid(["entry", "the bug", "the fix"],
             [[r["name"], r["hand_bug"], r["hand_fix"]] for r in table]),
    ]  # fmt: skip
    return pages.page("Bugs that shipped", body)


def render(args: argparse.Namespace) -> int:
    """Write the tables into ``shipped/README.md`` (``render``)."""
    readme = SHIPPED / "README.md"
    text = readme.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"{readme}: the markers {START} and {END} are missing")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    write_atomic(readme, f"{head}{START}\n{markdown(rows(load()))}\n{END}{tail}")
    return 0


def write_page(args: argparse.Namespace) -> int:
    """Write the report's page ``DIR/shipped.html`` from ``shipped/results.json`` (``page``)."""
    out = Path(args.directory)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "shipped.html", page(rows(load())))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    r = sub.add_parser("run", help="measure the entries (resumable)")
    r.add_argument("--entries", nargs="+", help="entry folders (default: all)")
    r.add_argument("--jobs", nargs="+", choices=JOBS, default=list(JOBS))
    r.add_argument("--again", action="store_true", help="rerun runs already recorded")
    r.add_argument("--fix-seeds", nargs="+", type=int, default=list(FIX_SEEDS))
    r.add_argument("--limit", type=float, help="seconds after which a run is stopped")
    sub.add_parser("render", help="write shipped/README.md's tables")
    p = sub.add_parser("page", help="write the report's page shipped.html")
    p.add_argument("directory", help="the report directory (make report: reports)")
    args = parser.parse_args(argv)
    return {"run": run, "render": render, "page": write_page}[args.action](args)


if __name__ == "__main__":
    sys.exit(main())
