"""Certify PyMC's own step methods: each against nutpie's NUTS on every model of the suite.

    python scripts/certify.py [--steps NAME ...] [--models NAME ...] [--seed 1]
                              [--workers 2] [--scheduler ADDRESS] [--max-minutes M] [--fresh]

For every built-in PyMC step method (:data:`STEPS`) and every model (the zoo, the
posteriordb set, the six seed pairs), ``compare`` runs the model with that step
under test, exactly as ``--sampler pymc-step:scripts/certify.py:<step>`` does,
against PyMC's reference (nutpie's NUTS), at the default settings and ``--seed``.
The step takes every free variable it is competent for (``competence`` above
``INCOMPATIBLE``, as ``pm.sample`` judges it); PyMC's default assignment takes
the rest (a discrete variable of a model run under ``HamiltonianMC``, say). A step
competent for no variable of a model is ``not applicable``; ``default`` is
``pm.sample``'s own assignment with PyMC's NUTS (not nutpie).

One task per (step, model), run on a Dask client like ``make power``
(``scripts/power.py``'s journal and executor: resumable, ``--scheduler`` for a
cluster). Writes ``benchmarks/certify.json`` and ``benchmarks/certify.md``: step ×
model → verdict, draws per chain needed, the step's bulk ESS per second, the
variables it took. A ``disagree`` is either a real PyMC defect (then a
reproduction in ``shipped/found/``) or a false alarm of the suite: each is
explained in the Markdown's notes (:data:`NOTES`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import command  # noqa: E402
import power  # noqa: E402

from mcmc_pairs.comparisons.execution import open_client  # noqa: E402
from mcmc_pairs.comparisons.files import writable_dir, write_atomic  # noqa: E402

JOURNAL = "certify_journal.jsonl"
HERE = Path(__file__).resolve()

STEPS: dict[str, tuple[str, dict]] = {
    "Metropolis": ("Metropolis", {}),
    "Slice": ("Slice", {}),
    "DEMetropolis": ("DEMetropolis", {}),
    "DEMetropolisZ": ("DEMetropolisZ", {}),
    "BinaryMetropolis": ("BinaryMetropolis", {}),
    "BinaryGibbsMetropolis": ("BinaryGibbsMetropolis", {}),
    "CategoricalGibbsMetropolis": ("CategoricalGibbsMetropolis", {}),
    "CategoricalGibbsMetropolis(proportional)": (
        "CategoricalGibbsMetropolis",
        {"proposal": "proportional"},
    ),
    "HamiltonianMC": ("HamiltonianMC", {}),
    "NUTS": ("NUTS", {}),
    "default": ("", {}),
}
"""Step name → (PyMC class name, keyword arguments); ``default`` is ``pm.sample``'s choice."""

NOTES: dict[str, str] = {
    "DEMetropolis": (
        "A live PyMC defect: the population sampler steps every chain from the previous "
        "iteration's points (a simultaneous update), which is not a Metropolis-Hastings move "
        "on the product space; with 4 chains the draws are too narrow (on N(0, I_3) sd about "
        "0.88 at every seed and over 400,000 draws; DE-MC in NumPy: second moment 0.75 all at "
        "once, 0.99 one by one). Reproduction: "
        "`shipped/found/pymc_demetropolis_parallel_update/repro.py`."
    ),
    "CategoricalGibbsMetropolis(proportional)": (
        "A live PyMC defect: the proportional proposal's acceptance ratio uses the rescaled "
        "probability p_j / (1 - p_i) where Liu's ratio needs p_j; on Categorical(0.2, 0.3, 0.5) "
        "it samples (0.236, 0.343, 0.420) at every seed. Reproduction: "
        "`shipped/found/pymc_categorical_proportional/repro.py`."
    ),
}
"""What each ``disagree`` is, by step (a PyMC defect) or by ``step/model`` (a false alarm)."""


ERRORS: dict[str, str] = {
    "appears with different types": (
        "a live PyMC defect: `pm.sample` refuses a compound of `Metropolis` (for the model's "
        "discrete variables) and this step, whose `accepted` statistic is `bool` where "
        "`Metropolis`'s is `float64`; reproduction `shipped/found/pymc_compound_stats_dtype`"
    ),
    "index is out of bounds": (
        "`Metropolis` proposes values outside a 0/1 variable's support (2, -1), and the model "
        "indexes a probability table with them before the variable's log density can reject "
        "them: PyMC assigns `BinaryGibbsMetropolis` there by default"
    ),
}
"""What each ``error`` is, by a part of its message."""


class NotApplicable(ValueError):
    """The step is competent for no free variable of the model."""


def competent_variables(model, name: str) -> list:
    """Return the value variables of ``model`` the step class ``name`` can take."""
    import pymc as pm
    from pymc.step_methods.compound import Competence
    from pymc.vartypes import discrete_types

    cls = getattr(pm, name)
    taken = []
    for var in model.value_vars:
        has_grad = var.dtype not in discrete_types
        rv = model.values_to_rvs[var]  # what pm.sample's assignment asks, as it asks it
        if cls._competence(rv, has_grad)[0] > Competence.INCOMPATIBLE:
            taken.append(var)
    return taken


def make_step(step: str) -> Callable:
    """Return the ``pymc-step:`` factory ``(model) -> step`` of :data:`STEPS`' ``step``."""

    def factory(model):
        import pymc as pm
        from pymc.sampling.mcmc import assign_step_methods, instantiate_steppers

        name, kwargs = STEPS[step]
        if not name:
            return instantiate_steppers(model, *assign_step_methods(model, step=None))
        taken = competent_variables(model, name)
        if not taken:
            raise NotApplicable(f"{name} is competent for no free variable")
        return getattr(pm, name)(taken, **kwargs)

    factory.__name__ = factory.__qualname__ = _attribute(step)
    return factory


def _attribute(step: str) -> str:
    """Return the module attribute of ``step``'s factory: ``step_Slice``, ``step_default``."""
    return "step_" + "".join(c if c.isalnum() else "_" for c in step).strip("_")


for _step in STEPS:  # the factories, as module attributes: ``pymc-step:certify.py:step_Slice``
    globals()[_attribute(_step)] = make_step(_step)


def models() -> dict[str, dict]:
    """Every model to certify on: name → ``group`` and how to make its pair."""
    from mcmc_pairs.comparisons.registry import PAIRS
    from mcmc_pairs.pairdata import posteriordb

    found: dict[str, dict] = {}
    for m in power.zoo_models():
        if m.name not in found and m.correct == "sample":  # one entry per zoo model
            found[m.name] = {"group": "zoo", "model": f"{m.folder}/model.py:build_model",
                             "data": str(m.folder / m.data_file)}  # fmt: skip
    for name in posteriordb.POSTERIORS:
        found[name] = {"group": "posteriordb", "model": posteriordb.model_spec(name),
                       "data": f"posteriordb:{name}"}  # fmt: skip
    for pair in PAIRS:
        found[pair.name] = {"group": "pairs"}
    return found


LIMIT = 300.0
"""Seconds a ``compare`` may take before it is stopped: ``timeout`` in the table."""


def certify_task(step: str, name: str, spec: dict, seed: int) -> list[dict]:
    """Run ``compare`` of ``name`` with ``step`` under test, as a command; return its record.

    The command runs in a fresh process (an honest wall time, and a run that overruns
    :data:`LIMIT` is stopped); the step's competence is judged here first.
    """
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data
    from mcmc_pairs.comparisons.registry import get_pair
    from mcmc_pairs.comparisons.witness import ModelWitness

    if spec["group"] == "pairs":
        pair = get_pair(name)
        data = pair.load_data()
    else:
        data = read_data(spec["data"])  # a file, or posteriordb:NAME
        pair = model_pair(spec["model"], data, name=name)
    record = {"step": step, "model": name, "group": spec["group"], "seed": seed}
    model = ModelWitness(pair.model, data, argument="model").model
    class_name, _ = STEPS[step]
    if class_name:
        taken = competent_variables(model, class_name)
        record["took"] = f"{len(taken)} of {len(model.value_vars)}"
        if not taken:
            return [record | {"verdict": "not applicable"}]
    return [record | _compare(step, name, spec, seed)]


def _compare(step: str, name: str, spec: dict, seed: int) -> dict:
    """Run the command of one certification; return what the table reads from its JSON.

    ``spec["script"]`` is this file in the checkout (a Dask worker imports a copy of it
    from its scratch directory, where ``--sampler`` could not import it).
    """
    script = Path(spec["script"])
    what = [name] if spec["group"] == "pairs" else ["--model", spec["model"]]
    what += [] if spec["group"] == "pairs" else ["--data", spec["data"], "--name", name]
    sampler = f"pymc-step:{script}:{_attribute(step)}"
    ran = command.run(["compare", *what, "--seed", str(seed), "--sampler", sampler],
                      script.parents[1], LIMIT)  # fmt: skip
    if ran.timed_out:
        return {"verdict": "timeout", "seconds": ran.seconds}
    if (document := ran.document) is None:
        return {"verdict": "error", "error": ran.error[:300], "seconds": ran.seconds}
    side = next(label for label in document["sides"] if label != "pymc")
    rows = document["sides"][side]["summary"].values()
    return {
        "verdict": document["verdict"],
        # a chain that never moves has no R-hat or ESS (null in the JSON): infinite, none
        "rhat_max": max(math.inf if row["r_hat"] is None else row["r_hat"] for row in rows),
        "ess_min": min(0.0 if row["ess_bulk"] is None else row["ess_bulk"] for row in rows),
        "looks": len(document["looks"]),
        "draws": document["looks"][-1]["draws"],
        "stopped": bool(document["looks"][-1].get("stopped")),
        "ess_per_second": document["sides"][side]["ess_bulk_per_second"],
        "seconds": ran.seconds,
        "failed": sum(not c["passed"] for c in document["checks"]),
        "checks": len(document["checks"]),
    }


def tasks(steps: Sequence[str], chosen: dict[str, dict], seed: int) -> list[power.Task]:
    """One task per (model, step), models in the outer loop (a model's reference is cached)."""
    return [
        power.Task(
            order=(i, j),
            function="certify:certify_task",  # power.run_task imports it on a worker
            args=(step, name, spec | {"script": str(HERE)}, seed),
            identity=["certify", step, name, seed],
            settings={"files": power.files_digest(*_files(spec)), "step": list(STEPS[step])},
        )
        for i, (name, spec) in enumerate(chosen.items())
        for j, step in enumerate(steps)
    ]


def _files(spec: dict) -> list[str]:
    """Return the model file of a zoo model's spec (its part of the task's key)."""
    return [spec["model"]] if "model" in spec and ":" in spec["model"] else []


def render(records: list[dict], steps: Sequence[str], names: Sequence[str]) -> str:
    """Return ``certify.md``: step × model → verdict, draws per chain, ESS per second."""
    by = {(r["step"], r["model"]): r for r in records}
    lines = [
        "# PyMC's step methods, certified against nutpie's NUTS",
        "",
        "Generated by `python scripts/certify.py` (`make certify`). Each cell: the verdict of "
        "`compare` with the step under test at the default settings, the draws per chain it "
        "needed, and its bulk ESS per second; `not applicable` where the step is competent for "
        "no free variable. `(k of n)`: the variables the step took, PyMC's default the rest.",
        "",
        "| model | " + " | ".join(steps) + " |",
        "|---|" + "---|" * len(steps),
    ]
    for name in names:
        cells = []
        for step in steps:
            r = by.get((step, name))
            cells.append("not run" if r is None else _cell(r))
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    counts: dict[str, int] = {}
    for r in records:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    lines += ["", "Verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), ""]
    disagree = [r for r in records if r["verdict"] == "disagree"]
    lines += ["## Every `disagree`, explained", ""]
    for r in disagree:
        note = NOTES.get(f"{r['step']}/{r['model']}") or NOTES.get(r["step"]) or _stuck(r)
        lines.append(f"- `{r['step']}` on `{r['model']}`: {note}")
    if not disagree:
        lines.append("None.")
    errors = [r for r in records if r["verdict"] == "error"]
    lines += ["", "## Every `error`, explained", ""]
    for r in errors:
        why = next((n for key, n in ERRORS.items() if key in r.get("error", "")), "**unexplained**")
        lines.append(f"- `{r['step']}` on `{r['model']}`: {why} (`{r.get('error', '')[:120]}`)")
    if not errors:
        lines.append("None.")
    return "\n".join(lines) + "\n"


STUCK_RHAT = 1.1
"""Above this largest R-hat, a ``disagree`` is a step whose chains have not converged."""


def _stuck(r: dict) -> str:
    """Explain a ``disagree`` of a step whose chains have not mixed, else say it is unexplained."""
    rhat, ess = r.get("rhat_max"), r.get("ess_min")
    if rhat is None or not rhat > STUCK_RHAT:
        return "**unexplained**"
    return (
        f"the step has not converged here at the defaults (largest R-hat {rhat:.2f}, smallest "
        f"bulk ESS {ess:.0f} at {r['draws']:,} draws per chain): its chains still carry their "
        "starting points or drift, far enough from the posterior for a gross z-difference, so "
        "`disagree` is the true statement about these draws; a method too slow for this "
        "shape at PyMC's default tuning, not a defect of its code"
    )


def _cell(r: dict) -> str:
    """Return one cell of the table: verdict, draws per chain, ESS per second, variables taken."""
    if r["verdict"] in ("not applicable", "error"):
        return r["verdict"]
    if r["verdict"] == "timeout":
        return f"timeout (> {LIMIT:.0f} s)"
    ess = r.get("ess_per_second")
    speed = f", {ess:.0f} ESS/s" if ess is not None and math.isfinite(ess) else ""
    k, _, n = r.get("took", "").partition(" of ")
    took = f" ({r['took']})" if n and k != n else ""
    verdict = f"**{r['verdict']}**" if r["verdict"] == "disagree" else r["verdict"]
    return f"{verdict}, {r['draws']:,}{speed}{took}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the certification; write ``certify.json`` and ``certify.md``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", nargs="+", choices=list(STEPS), default=list(STEPS))
    parser.add_argument("--models", nargs="+", help="model names (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--max-minutes", type=float, default=math.inf)
    parser.add_argument("--fresh", action="store_true", help="ignore the journal")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks")
    parser.add_argument(
        "--render", action="store_true", help="write the table from the journal, run nothing"
    )
    args = parser.parse_args(argv)
    every = models()
    unknown = sorted(set(args.models or ()) - set(every))
    if unknown:
        print(f"certify.py: error: --models: unknown {unknown}; known: {list(every)}")
        return 2
    chosen = {n: every[n] for n in (args.models or every)}
    writable_dir(args.out)
    everything = tasks(args.steps, chosen, args.seed)
    journal = power.Journal(args.out / JOURNAL)
    kept, _ = ({}, 0) if args.fresh else journal.load()
    done = {t.key: kept[t.key] for t in everything if t.key in kept}
    todo = [] if args.render else [t for t in everything if t.key not in done]
    deadline = None if math.isinf(args.max_minutes) else time.time() + 60 * args.max_minutes
    client = cluster = None
    print(f"{len(everything)} tasks; {len(done)} finished before; {len(todo)} to run", flush=True)
    try:
        if todo:
            client, cluster = open_client(args.scheduler, workers=args.workers)
            for name in ("planted.py", "power.py", "command.py", "certify.py"):
                client.upload_file(str(ROOT / "scripts" / name), load=False)
        new, failures = power.execute(todo, client, deadline, journal, power._say)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    lines = {**done, **new}
    records = [r for t in everything if t.key in lines for r in lines[t.key]["records"]]
    doc = {"command": " ".join(["python scripts/certify.py", *(argv or sys.argv[1:])]),
           "seed": args.seed, "failed": failures, "records": records}  # fmt: skip
    write_atomic(args.out / "certify.json", json.dumps(doc, indent=1))
    markdown = render(records, args.steps, list(chosen))
    write_atomic(args.out / "certify.md", markdown)
    print(markdown)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
