"""Measured false alarms, sensitivity and power of every check: ``make power`` (not in tests).

Writes ``benchmarks/power.md`` and ``benchmarks/power.json``, in three sections
(``--sections``, all by default):

* ``pairs``: ``compare`` on the registered pairs.

  - **False alarms** under its sequential design, at the pair's default
    settings: every correct sampler a pair declares (``Pair.handrolled``) over
    many seeds; a false alarm is the verdict ``disagree``; ``inconclusive`` and
    ``not converged`` are counted apart as *undecided* (failures to certify, not
    alarms). 95 % Clopper-Pearson intervals per sampler, per pair and pooled.
  - **Sensitivity**: the pair's first hand-rolled sampler with a planted shift
    of a mean, an sd or a correlation of size ``s`` (:mod:`scripts.planted`),
    over a grid of ``s`` and seeds; detected = ``disagree``.
  - **Catalogue bugs** (``Pair.wrong``): detected by ``compare`` (``disagree``;
    not-``agree`` shown too).

* ``validation``: Geweke's test and SBC (:func:`mcmc_pairs.comparisons.validation.validate`,
  sizes in :data:`SIZES`) on the pairs that declare a prior, correct and wrong
  samplers; SBC of the PyMC twin (``--sampler pymc``) on :data:`TWIN_SBC`.
* ``zoo``: every model of the calibration zoo (:data:`zoo.MODELS`), brought to
  the harness as a user's model is (:func:`mcmc_pairs.comparisons.byom.model_pair` with its
  data file): false alarms of its correct sampler over ``--zoo-seeds`` seeds
  against the 1 % target, its undecided rates, the planted bug's catch rate
  against the 95 % target, and SBC's false-fail rate on the correct sampler
  (``--zoo-sbc-seeds``, where the model has a proper prior).

**Tasks.** One task per (pair, seed) runs PyMC once and compares every sampler
of that seed (correct, wrong, planted) against that run
(``run_pair(pymc_from=...)``); one per (zoo model, seed) likewise for the correct
sampler and the planted bug; Geweke and SBC are one task per (pair or model,
sampler, check, seed). A task's randomness comes from its seed only and it runs
on one BLAS thread, so every record is the same on any number of workers.

**Where they run.** On a Dask client from
:func:`mcmc_pairs.comparisons.parallel.open_client`, the layer ``validate`` uses: by default
a LocalCluster of ``--workers`` single-threaded processes (one per core);
``--scheduler ADDRESS`` a running cluster (its workers must see this checkout at
the same path, with the project installed; ``scripts/power.py`` and
``scripts/planted.py`` are uploaded to them); ``--scheduler synchronous`` in this
process. With ``--max-minutes`` no task starts after the deadline (counted from
this invocation's start) and the tables count what finished. Exit status 0; 2 on
bad input (one line naming the argument, nothing run); 1 when a task raised (it
is reported, not journaled, and the tables count the others).

**Journal and resuming.** Every finished task's records are appended, one JSON
line per task (one ``write`` on an ``O_APPEND`` descriptor, then ``fsync``), to
``--journal`` (default ``OUT/power_journal.jsonl``)::

    {"task": {"function": ..., "identity": [...], "settings": {...}},
     "commit": "<git describe of the checkout>", "seconds": ..., "records": [...]}

``task`` is the key: what the task computes (pair or model, sampler, seed, grid)
and the settings that change its records (alpha, tolerance, budget factor,
validation sizes, :data:`ZOO_RUN`; for a zoo model a digest of its model, data
and sampler files, so an edited model is measured again). A rerun skips the
tasks whose key is in the journal and builds the tables from the journal's
records and the new ones, in the order of the task list, so the tables depend
neither on the order tasks finished nor on how often the study was interrupted;
lines of other tasks stay in the journal for the runs that want them. A line cut
short by a crash is skipped (and cut off before the next append). ``--fresh``
deletes the journal first: do that after changing the code the records depend
on (each line keeps the commit it was made at; ``power.json`` lists them).

Usage: ``python scripts/power.py [--sections S ...] [--seeds N] [--seeds-lda N]
[--seeds-planted N] [--seeds-wrong N] [--seeds-validate N] [--seeds-twin N]
[--zoo-seeds N [NAME=N ...]] [--zoo-sbc-seeds N] [--zoo-models NAME ...] [--scheduler ADDRESS]
[--workers N] [--max-minutes M] [--journal PATH] [--fresh] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib
import json
import math
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core per worker process

import planted  # noqa: E402

from mcmc_pairs.comparisons import agreement, run  # noqa: E402
from mcmc_pairs.comparisons import validation as v  # noqa: E402
from mcmc_pairs.comparisons.contract import SamplerError  # noqa: E402
from mcmc_pairs.comparisons.errors import one_line  # noqa: E402
from mcmc_pairs.comparisons.files import writable_dir, write_atomic  # noqa: E402
from mcmc_pairs.comparisons.parallel import SYNCHRONOUS, open_client  # noqa: E402
from mcmc_pairs.comparisons.registry import PAIRS, get_pair  # noqa: E402
from mcmc_pairs.comparisons.settings import BUDGET_FACTOR, TOLERANCE  # noqa: E402

SECTIONS = ("pairs", "validation", "zoo")
"""What ``--sections`` may name: ``compare`` on the pairs, Geweke and SBC on them, the zoo."""
TWIN_SBC = ("regression", "bayes_net")
"""Pairs whose PyMC twin (``--sampler pymc``) goes through SBC here, ``--seeds-twin`` times."""
SIZES = {
    "geweke": {"replications": 10, "steps": 200, "tune": 20},
    "sbc": {"replications": 200, "draws": 1000, "tune": 100, "chains": 1},
}
"""Validation sizes used here (Geweke smaller than the CLI default; SBC at its default draws)."""
ZOO_RUN: dict = {}
"""Settings passed to ``run_pair`` for the zoo (``draws``, ``tune``, ...); empty: each model's
defaults, as a user gets them. Part of a zoo task's key (the tests make it small)."""
GRID = (0.05, 0.1, 0.2, 0.3, 0.5)
"""Planted shift sizes ``s`` (posterior sd for means and sds, correlation for ``corr``)."""
GRID_LDA = (0.1, 0.2, 0.3)
"""LDA's grid: three sizes (each look of its NUTS reference costs minutes, and a planted shift
below the tolerance may run to 16 times the draws; planted LDA runs are continued, not rerun)."""
SLOW = ("lda",)
"""Pairs run with ``--seeds-lda`` seeds instead of ``--seeds`` (about 100 s of NUTS a seed)."""
UNDECIDED = (agreement.INCONCLUSIVE, agreement.NOT_CONVERGED, agreement.REFERENCE_FAILED)
"""Verdicts that neither certify nor alarm (``reference failed``, issue 31, blames PyMC)."""
COUNTED = (agreement.INCONCLUSIVE, agreement.NOT_CONVERGED, agreement.AGREE)
"""The verdicts the false-alarm tables count in a column each, besides ``disagree``."""
FIRST_SEED = 1000
FALSE_ALARM_TARGET = 0.01
"""At most this rate of ``disagree`` for a correct sampler (per pair, per zoo model)."""
CATCH_TARGET = 0.95
"""At least this rate of ``disagree`` for a planted or catalogue bug."""
JOURNAL = "power_journal.jsonl"
"""The journal's file name in ``--out`` (``--journal`` overrides)."""


def _quiet(event) -> None:
    """Say nothing (a ``progress`` callback)."""


def _short(sampler: str) -> str:
    return sampler.split(":")[-1]


def _compare_record(section, group, pair_name, sampler_name, seed, run_once, kind=None, s=None):
    """Run ``run_once()`` (a ``run_pair`` call) and describe its verdict in one record."""
    start = time.perf_counter()
    result = None
    try:
        result = run_once()
    except SamplerError as exc:  # a sampler that breaks the contract or crashes
        verdict, looks, draws = f"error: {exc}"[:200], 0, 0
    else:
        verdict, looks = result.verdicts["user"], len(result.looks)
        draws = result.looks[-1]["draws"] if result.looks else 0
    record = {
        "check": "compare",
        "section": section,
        "group": group,
        "pair": pair_name,
        "sampler": sampler_name,
        "kind": kind,
        "s": s,
        "seed": seed,
        "verdict": verdict,
        "looks": looks,
        "draws": draws,
        "seconds": time.perf_counter() - start,
    }
    return record, result


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

        settings = run.resolve_settings(pair, seed=seed)
        once = functools.partial(
            run.run_pair, pair, settings, sampler=sampler, progress=_quiet, pymc_from=reference
        )
        label = name if kind is None else f"{_short(spec)}+{kind}"
        record, result = _compare_record("pairs", group, pair_name, label, seed, once, kind, s)
        reference = reference or result
        records.append(record)
    return records


def zoo_task(
    name: str, model: str, data: str, correct: str, bug: str, seed: int, settings: dict
) -> list[dict]:
    """Compare a zoo model's correct sampler and its planted bug at ``seed`` with one PyMC run."""
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data

    pair = model_pair(model, read_data(data), name=name)
    reference = None
    records = []
    for group, spec in (("correct", correct), ("bug", bug)):
        once = functools.partial(
            run.run_pair,
            pair,
            run.resolve_settings(pair, **settings, seed=seed),
            sampler=spec,
            progress=_quiet,
            pymc_from=reference,
        )
        record, result = _compare_record("zoo", group, name, _short(spec), seed, once)
        reference = reference or result
        records.append(record)
    return records


def _validate_record(section, check, group, pair_name, name, seed, run_once) -> list[dict]:
    start = time.perf_counter()
    try:
        verdict = run_once().verdict
    except v.ValidationError as exc:
        verdict = f"error: {exc}"[:200]
    return [
        {
            "check": check,
            "section": section,
            "group": group,
            "pair": pair_name,
            "sampler": name,
            "seed": seed,
            "verdict": verdict,
            "alarm": verdict == v.FAIL or verdict.startswith("error"),  # not `not converged`
            "seconds": time.perf_counter() - start,
        }
    ]


def validate_task(
    check: str, group: str, pair_name: str, name: str, sampler: str, seed: int
) -> list[dict]:
    """Geweke's test or SBC on one sampler of a pair at one seed, in this process."""

    def once():
        return v.validate(
            get_pair(pair_name),
            sampler,
            method=check,
            scheduler=SYNCHRONOUS,
            seed=seed,
            progress=lambda event: None,
            **SIZES[check],
        )

    return _validate_record("validation", check, group, pair_name, name, seed, once)


def zoo_sbc_task(
    name: str, model: str, data: str, sampler: str, seed: int, sizes: dict
) -> list[dict]:
    """SBC of a zoo model's correct sampler at one seed, in this process."""
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data

    def once():
        pair = model_pair(model, read_data(data), sampler=sampler, name=name)
        return v.validate(
            pair,
            sampler,
            method="sbc",
            scheduler=SYNCHRONOUS,
            seed=seed,
            progress=lambda event: None,
            **sizes,
        )

    return _validate_record("zoo", "sbc", "correct", name, _short(sampler), seed, once)


TASKS: dict[str, Callable[..., list[dict]]] = {
    f.__name__: f for f in (compare_task, validate_task, zoo_task, zoo_sbc_task)
}
"""The task functions by name (what a journal line's ``task.function`` names)."""


def run_task(function: str, args: Sequence, deadline: float | None = None) -> list[dict] | None:
    """Run ``TASKS[function](*args)`` on one BLAS thread; ``None`` if past ``deadline``.

    ``deadline`` is a ``time.time()``; a task that would start after it does not
    start (a worker may pick a queued task up after the deadline).
    """
    if deadline is not None and time.time() >= deadline:
        return None
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _task(function)(*args)


def _task(function: str) -> Callable[..., list[dict]]:
    """Return ``TASKS[function]``, or ``module:name`` imported (another script's tasks)."""
    if function in TASKS:
        return TASKS[function]
    module, _, name = function.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Task:
    """One unit of work: ``TASKS[function](*args)``, known to the journal by :attr:`key`.

    Attributes
    ----------
    order : tuple
        Position in the study (so that every group advances at the same pace).
    function : str
        A key of :data:`TASKS`.
    args : tuple
        Its arguments (picklable; paths are absolute).
    identity : list
        What the task computes, without machine-specific paths.
    settings : dict
        The settings its records depend on besides ``identity``.
    """

    order: tuple
    function: str
    args: tuple
    identity: list
    settings: dict = field(default_factory=dict)

    @property
    def label(self) -> dict:
        """The journal line's ``task``."""
        return {"function": self.function, "identity": self.identity, "settings": self.settings}

    @property
    def key(self) -> str:
        """:attr:`label` as canonical JSON."""
        return task_key(self.label)


def task_key(label: dict) -> str:
    """Canonical JSON of a journal line's ``task`` (tuples and lists alike)."""
    return json.dumps(label, sort_keys=True, separators=(",", ":"))


def _compare_settings() -> dict:
    return {
        "alpha": agreement.ALPHA,
        "tolerance": TOLERANCE,
        "budget_factor": BUDGET_FACTOR,
    }


def tasks(args) -> list[Task]:
    """Every task of the study, sorted so that each group advances evenly."""
    out = []
    sections = set(args.sections)
    for order, pair_name in enumerate(args.pairs):
        pair = get_pair(pair_name)
        if "pairs" in sections:
            n = args.seeds_lda if pair_name in SLOW else args.seeds
            grid = GRID_LDA if pair_name in SLOW else GRID
            n_wrong = min(n, args.seeds_wrong)
            n_planted = min(n, args.seeds_planted)
            for k in range(n):
                wrong, plant = k < n_wrong, tuple(grid) if k < n_planted else ()
                args_ = (pair_name, FIRST_SEED + k, wrong, plant)
                out.append(
                    Task((k / n, order), "compare_task", args_, list(args_), _compare_settings())
                )
        if pair.prior is None or "validation" not in sections:
            continue
        seeds_validate = args.seeds_validate_lda if pair_name in SLOW else args.seeds_validate
        samplers = [("correct", s) for s in pair.handrolled.items()]
        samplers += [("wrong", s) for s in pair.wrong.items()]
        jobs = [
            (check, group, name, sampler, seeds_validate, 0.5)
            for check in ("geweke", "sbc")
            for group, (name, sampler) in samplers
        ]
        if pair_name in TWIN_SBC:
            jobs.append(("sbc", "correct", "pymc twin", run.PYMC, args.seeds_twin, 0.75))
        for check, group, name, sampler, n, offset in jobs:
            settings = {"alpha": agreement.ALPHA, "sizes": SIZES[check]}
            for k in range(n):
                args_ = (check, group, pair_name, name, sampler, FIRST_SEED + k)
                out.append(
                    Task(((k + offset) / n, order), "validate_task", args_, list(args_), settings)
                )
    if "zoo" in sections:
        out += zoo_tasks(args, first_order=len(args.pairs))
    out.sort(key=lambda task: task.order)
    return out


def zoo_models(names: Sequence[str] | None = None) -> list:
    """Return the zoo's models (``zoo.MODELS``, read now), or those named ``names``, in order."""
    import zoo

    models = list(zoo.MODELS)
    if names is None:
        return models
    known = [m.name for m in models]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"--zoo-models: no zoo model {unknown[0]!r}; known: {known}")
    return [m for m in models if m.name in names]


def zoo_tasks(args, first_order: int = 0) -> list[Task]:
    """One compare task per (zoo model, seed); one SBC task per (model, seed) where it applies."""
    out = []
    for i, model in enumerate(args.zoo_models):
        order = first_order + i
        paths = (model.model, str(model.data))
        correct, bug = model.sampler(), model.sampler(planted_bug=True)
        files = files_digest(model.model, model.data, correct, bug)
        settings = {**_compare_settings(), "run": dict(ZOO_RUN), "files": files}
        n = args.zoo_seeds_of.get(model.name, args.zoo_seeds)
        for k in range(n):
            seed = FIRST_SEED + k
            args_ = (model.name, *paths, correct, bug, seed, dict(ZOO_RUN))
            identity = [model.name, _short(correct), _short(bug), seed]
            out.append(Task((k / n, order), "zoo_task", args_, identity, settings))
        if not getattr(model, "sbc", True):
            continue
        n = args.zoo_sbc_seeds
        sizes = dict(SIZES["sbc"])
        for k in range(n):
            seed = FIRST_SEED + k
            args_ = (model.name, *paths, correct, seed, sizes)
            identity = [model.name, _short(correct), seed]
            settings = {"alpha": agreement.ALPHA, "sizes": sizes, "files": files}
            out.append(Task(((k + 0.5) / n, order), "zoo_sbc_task", args_, identity, settings))
    return out


def files_digest(*specs: str | Path) -> str:
    """Return a short SHA-256 of the files that ``specs`` name (``path`` or ``path:function``).

    Part of a zoo task's key, so that editing a model, its data or its sampler makes
    the journal's records of it stale. A spec that names no file (``package.module:function``)
    enters by its text.
    """
    digest = hashlib.sha256()
    for spec in dict.fromkeys(str(spec) for spec in specs):
        path = Path(spec)
        if not path.is_file() and ":" in spec:
            path = Path(spec.rpartition(":")[0])
        digest.update(path.read_bytes() if path.is_file() else spec.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


class Journal:
    """The study's finished tasks, one JSON line each, appended as they finish.

    Parameters
    ----------
    path : Path
        The journal file (created when the first task finishes).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.commit = _commit()

    def load(self) -> tuple[dict[str, dict], int]:
        """Return ``{key: line}`` of the finished tasks and the number of unreadable lines.

        A key seen twice keeps its first line; a line cut short by a crash is unreadable.
        """
        if not self.path.exists():
            return {}, 0
        lines: dict[str, dict] = {}
        bad = 0
        try:
            raw = self.path.read_bytes()
        except OSError as exc:
            raise ValueError(
                f"--journal {str(self.path)!r} cannot be read: {exc.strerror}"
            ) from None
        for text in raw.decode("utf-8", errors="replace").splitlines():
            if not text.strip():
                continue
            try:
                line = json.loads(text)
                key = task_key(line["task"])
                if not isinstance(line["records"], list):
                    raise TypeError("records is not a list")
            except (ValueError, KeyError, TypeError):
                bad += 1
                continue
            lines.setdefault(key, line)
        return lines, bad

    def repair(self) -> None:
        """Cut a last line left without its newline by a crash, so the next one starts a line."""
        if not self.path.exists():
            return
        with open(self.path, "r+b") as handle:
            raw = handle.read()
            if raw and not raw.endswith(b"\n"):
                handle.truncate(raw.rfind(b"\n") + 1)

    def append(self, task: Task, records: list[dict], seconds: float) -> dict:
        """Append ``task``'s records as one line (one write, then fsync); return the line."""
        line = {
            "task": task.label,
            "commit": self.commit,
            "seconds": round(seconds, 3),
            "records": records,
        }
        data = (json.dumps(line, separators=(",", ":")) + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, data)
            while written < len(data):  # a short write (rare on a regular file)
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        return line


def _commit() -> str | None:
    """``git describe --always --dirty`` of this checkout, or ``None`` outside git."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def execute(
    todo: list[Task],
    client,
    deadline: float | None,
    journal: Journal,
    say: Callable[[str], None],
) -> tuple[dict[str, dict], list[str]]:
    """Run ``todo`` (on ``client``'s workers, or here when it is ``None``), journaling each.

    Returns
    -------
    finished : dict
        ``{key: journal line}`` of the tasks that finished.
    failures : list of str
        One line per task that raised (it is not journaled: a rerun retries it).
    """
    finished: dict[str, dict] = {}
    failures: list[str] = []
    start = time.perf_counter()

    def keep(task: Task, records: list[dict] | None, seconds: float) -> None:
        if records is None:  # not started: past the deadline
            return
        finished[task.key] = journal.append(task, records, seconds)
        say(
            f"{len(finished)} of {len(todo)} tasks finished, "
            f"{time.perf_counter() - start:.0f} s ({task.function} {task.identity})"
        )

    def failed(task: Task, exc: BaseException) -> None:
        failures.append(f"{task.function} {task.identity}: {type(exc).__name__}: {one_line(exc)}")
        say(f"failed: {failures[-1][:300]}")

    if client is None:
        for task in todo:
            if deadline is not None and time.time() >= deadline:
                break
            began = time.perf_counter()
            try:
                records = run_task(task.function, task.args, deadline)
            except Exception as exc:
                failed(task, exc)
                continue
            keep(task, records, time.perf_counter() - began)
        return finished, failures

    from dask.distributed import as_completed

    # every task is submitted at once, in study order (a cluster that scales sees the whole
    # queue); a task picked up after the deadline returns None at once
    futures = {
        client.submit(
            _timed, task.function, task.args, deadline, pure=False, priority=len(todo) - i
        ): task
        for i, task in enumerate(todo)
    }
    for future in as_completed(futures):
        task = futures.pop(future)
        try:
            records, seconds = future.result()
        except Exception as exc:  # the task raised, its worker died, ...
            failed(task, exc)
            continue
        finally:
            future.release()
        keep(task, records, seconds)
    return finished, failures


def _timed(function: str, args: Sequence, deadline: float | None):
    """:func:`run_task` on a worker, with its duration there."""
    began = time.perf_counter()
    records = run_task(function, args, deadline)
    return records, time.perf_counter() - began


def _nonnegative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def _zoo_seeds(text: str) -> int | tuple[str, int]:
    """``N`` (every zoo model) or ``NAME=N`` (one model): compare seeds per zoo model."""
    name, sep, count = text.rpartition("=")
    if sep and not name:
        raise argparse.ArgumentTypeError(f"expected N or NAME=N, got {text!r}")
    return (name, _nonnegative(count)) if sep else _nonnegative(count)


def _minutes(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more minutes, got {text}")
    return value


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``power.py: error: ...``), exit 2."""

    def error(self, message: str):
        print(f"power.py: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line (:class:`SystemExit` 2 with one line on bad input)."""
    parser = _Parser(description=__doc__.splitlines()[0])
    names = [pair.name for pair in PAIRS]
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--pairs", nargs="+", choices=names, default=names)
    parser.add_argument("--seeds", type=_nonnegative, default=100, help="seeds per cheap pair")
    parser.add_argument("--seeds-lda", type=_nonnegative, default=3)
    parser.add_argument("--seeds-planted", type=_nonnegative, default=10)
    parser.add_argument("--seeds-wrong", type=_nonnegative, default=20)
    parser.add_argument("--seeds-validate", type=_nonnegative, default=2)
    parser.add_argument("--seeds-validate-lda", type=_nonnegative, default=1)
    parser.add_argument("--seeds-twin", type=_nonnegative, default=1)
    parser.add_argument(
        "--zoo-seeds",
        nargs="+",
        type=_zoo_seeds,
        default=[100],
        metavar="N|NAME=N",
        help="compare seeds per zoo model, and NAME=N for a model that needs more",
    )
    parser.add_argument(
        "--zoo-sbc-seeds", type=_nonnegative, default=20, help="SBC seeds per zoo model"
    )
    parser.add_argument(
        "--zoo-models", nargs="+", metavar="NAME", default=None, help="default: every zoo model"
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="Dask scheduler address (default: a local cluster of --workers processes; "
        f"'{SYNCHRONOUS}' runs every task in this process)",
    )
    parser.add_argument(
        "--workers",
        type=_positive,
        default=os.cpu_count() or 1,
        help="processes of the local cluster (default: one per core)",
    )
    parser.add_argument(
        "--max-minutes",
        type=_minutes,
        default=float("inf"),
        help="no task starts after this many minutes; the tables count what finished",
    )
    parser.add_argument(
        "--journal", type=Path, default=None, help=f"finished tasks (default OUT/{JOURNAL})"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="delete the journal first: rerun every task"
    )
    parser.add_argument("--render", type=Path, default=None, help="only render this power.json")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks")
    args = parser.parse_args(argv)
    counts = [n for n in args.zoo_seeds if isinstance(n, int)]
    if len(counts) > 1:
        parser.error(f"argument --zoo-seeds: one default count, got {len(counts)}")
    args.zoo_seeds_of = dict(n for n in args.zoo_seeds if not isinstance(n, int))
    args.zoo_seeds = counts[0] if counts else 100
    if args.scheduler is not None and not args.scheduler.strip():
        parser.error(f"argument --scheduler: expected an address or '{SYNCHRONOUS}', got ''")
    return args


def _say(message: str) -> None:
    print(f"[power] {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the study; write ``power.md`` and ``power.json``; 2 on bad input, 1 if a task failed."""
    try:
        args = parse(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    if args.render is not None:
        doc = json.loads(args.render.read_text())
        write_atomic(args.out / "power.md", render(doc))
        return 0
    start, began = time.perf_counter(), time.time()
    try:
        args.zoo_models = zoo_models(args.zoo_models) if "zoo" in args.sections else []
        known = [m.name for m in zoo_models()]
        unknown = [name for name in args.zoo_seeds_of if name not in known]
        if unknown:
            raise ValueError(f"--zoo-seeds: no zoo model {unknown[0]!r}; known: {known}")
    except ValueError as exc:
        print(f"power.py: error: {exc}", file=sys.stderr)
        return 2
    everything = tasks(args)
    journal = Journal(args.journal or args.out / JOURNAL)
    deadline = None if math.isinf(args.max_minutes) else began + 60 * args.max_minutes
    client = cluster = None
    try:
        writable_dir(args.out)
        if args.journal is not None:
            writable_dir(args.journal.parent, "--journal")
        if journal.path.exists() and not journal.path.is_file():
            raise ValueError(f"--journal {str(journal.path)!r} is not a file")
        kept, bad = ({}, 0) if args.fresh else journal.load()
        done = {task.key: kept[task.key] for task in everything if task.key in kept}
        todo = [task for task in everything if task.key not in done]
        if todo and (deadline is None or time.time() < deadline):
            client, cluster = open_client(args.scheduler, workers=args.workers)
    except ValueError as exc:
        print(f"power.py: error: {one_line(exc)}", file=sys.stderr)
        return 2
    if args.fresh:
        journal.path.unlink(missing_ok=True)
    else:
        journal.repair()
    _say(
        f"{len(everything)} tasks; {len(done)} finished before ({journal.path}"
        + (f", {bad} unreadable lines skipped" if bad else "")
        + f"), {len(todo)} to run"
    )
    try:
        if client is not None:
            for name in ("planted.py", "power.py"):  # workers import them by name
                client.upload_file(str(ROOT / "scripts" / name), load=False)
        new, failures = execute(todo, client, deadline, journal, _say)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    lines = {**done, **new}
    finished = [lines[task.key] for task in everything if task.key in lines]
    doc = {
        "command": " ".join(["python scripts/power.py", *(sys.argv[1:] if argv is None else argv)]),
        "sections": list(args.sections),
        "alpha": agreement.ALPHA,
        "tolerance": TOLERANCE,
        "budget_factor": BUDGET_FACTOR,
        "sizes": SIZES,
        "zoo_run": dict(ZOO_RUN),
        "grid": list(GRID),
        "grid_lda": list(GRID_LDA),
        "seeds": {
            k: getattr(args, k)
            for k in ("seeds", "seeds_lda", "seeds_planted", "seeds_wrong")
            + ("seeds_validate", "seeds_validate_lda", "seeds_twin", "zoo_seeds", "zoo_sbc_seeds")
        }
        | {"zoo_seeds_of": dict(args.zoo_seeds_of)},
        "zoo": [
            {
                "name": m.name,
                "shape": getattr(m, "shape", ""),
                "bug": getattr(m, "bug", ""),
                "sbc": bool(getattr(m, "sbc", True)),
            }
            for m in args.zoo_models
        ],
        "scheduler": args.scheduler or f"LocalCluster of {args.workers} processes",
        "workers": args.workers,
        "cores": os.cpu_count(),
        "tasks": len(everything),
        "finished": len(finished),
        "from_journal": len(done),
        "failed": failures,
        "commits": sorted({line.get("commit") or "unknown" for line in finished}),
        "journal": str(journal.path),
        "wall_s": time.perf_counter() - start,
        "task_s": sum(line.get("seconds", 0.0) for line in finished),
        "records": [record for line in finished for record in line["records"]],
    }
    write_atomic(args.out / "power.json", json.dumps(doc, indent=1))
    write_atomic(args.out / "power.md", render(doc))
    print(render(doc))
    if failures:
        _say(f"{len(failures)} tasks failed (not journaled; a rerun retries them)")
        return 1
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
    """Markdown: the study's header, then the tables of the sections it ran."""
    records = doc["records"]
    sections = doc.get("sections", ["pairs", "validation"])  # a power.json from before the zoo
    lines = ["# Measured false alarms, sensitivity and power", "", header(doc), ""]
    pair_records = [r for r in records if r.get("section") != "zoo"]
    if pair_records or {"pairs", "validation"} & set(sections):
        lines += render_pairs(doc, pair_records)
    if "zoo" in sections:
        lines += render_zoo(doc, [r for r in records if r.get("section") == "zoo"])
    return "\n".join(lines) + "\n"


def header(doc: dict) -> str:
    """Say where and how long the study ran, and how much of it came from the journal."""
    wall = doc.get("wall_s", doc.get("total_s", 0.0))
    scheduler = doc.get("scheduler")
    if scheduler is None:  # a power.json from before the Dask layer
        where = f"on {doc.get('workers', '?')} worker processes"
    elif scheduler == SYNCHRONOUS:
        where = "in one process"
    elif scheduler.startswith("LocalCluster"):
        where = f"on a {scheduler}"
    else:
        where = f"on the Dask cluster at {scheduler}"
    cores = doc.get("cores", 2)
    text = (
        f"Produced by `make power` (`{doc['command']}`) in {wall / 60:.1f} min of wall time "
        f"{where} ({cores} cores here)."
    )
    if "tasks" in doc and "finished" in doc:
        text += (
            f" {doc['finished']} of {doc['tasks']} tasks finished, {doc.get('from_journal', 0)} "
            f"of them taken from the journal (`{Path(doc.get('journal', JOURNAL)).name}`, tasks "
            f"of {doc.get('task_s', 0.0) / 60:.1f} min in all)"
        )
        commits = doc.get("commits") or []
        text += f", made at {', '.join(f'`{c}`' for c in commits)}." if commits else "."
    if doc.get("failed"):
        text += f" **{len(doc['failed'])} tasks failed** (listed in power.json)."
    return text + " Counts below are what finished."


def render_pairs(doc: dict, records: list[dict]) -> list[str]:
    """Tables of the registered pairs: false alarms, sensitivity, catalogue bugs, Geweke, SBC."""
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
        "## The registered pairs",
        "",
        "`compare` runs at each pair's "
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
        f"SBC at {seeds['seeds_twin']}.",
        "",
        "### False alarms of correct samplers (`compare`, sequential)",
        "",
        "A false alarm is `disagree`; *undecided* (`inconclusive`, `not converged`, and "
        "`reference failed`, which has no column) is a failure to certify, not an alarm. "
        "Interval: 95 % Clopper-Pearson of the false-alarm rate.",
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
            counts = [sum(r["verdict"] == x for r in rs) for x in COUNTED]
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
        "### Sensitivity of `compare` to planted shifts",
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
        plan = get_pair(pair).planted
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
        "### Catalogue bugs (`Pair.wrong`)",
        "",
        "Caught by `compare` = `disagree` (a crash counts as caught); not-agree adds the "
        "undecided runs. Lower bound: 95 % Clopper-Pearson of the `compare` detection rate. "
        "Geweke and SBC: runs that fail (`fail` or an error; SBC's `not converged` is not a fail).",
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
        "### Geweke and SBC on correct samplers (runs that fail; nominal 0.01 per check)",
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
    return lines


def against_targets(by: dict, pairs: list[str]) -> list[str]:
    """Read the targets off (false alarms <= 1 % per pair, catalogue bugs caught >= 95 %)."""
    lines = ["### Against the targets", ""]
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


def at_most(k: int, n: int, target: float) -> str:
    """Whether a rate of ``k`` in ``n`` meets "at most ``target``", in words."""
    if n == 0:
        return "–"
    low, high = clopper_pearson(k, n)
    if high <= target:
        return "met (shown: interval below)"
    if k / n <= target:
        return "met (point estimate; interval includes it)"
    if low > target:
        return "**missed**"
    return "**point estimate above**, interval includes it"


def at_least(k: int, n: int, target: float) -> str:
    """Whether a rate of ``k`` in ``n`` meets "at least ``target``", in words."""
    if n == 0:
        return "–"
    low, high = clopper_pearson(k, n)
    if low >= target:
        return "met (shown: interval above)"
    if k / n >= target:
        return "met (point estimate; interval includes it)"
    if high < target:
        return "**missed**"
    return "**point estimate below**, interval includes it"


def _pct(k: int, n: int) -> str:
    if n == 0:
        return "–"
    low, high = clopper_pearson(k, n)
    return f"{100 * k / n:.1f} % ({100 * low:.1f}–{100 * high:.1f} %)"


def _cell(text: str) -> str:
    """Return ``text`` fit for a Markdown table cell (one line, ``|`` escaped)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _sbc_fails(r: dict) -> bool:
    """Tell whether an SBC run fails its (correct) sampler: ``fail``, or an error (a crash)."""
    return r["verdict"] == v.FAIL or r["verdict"].startswith("error")


def render_zoo(doc: dict, records: list[dict]) -> list[str]:
    """Render the zoo's tables: false alarms, undecided runs, planted bugs, SBC, targets."""
    seeds = doc["seeds"]
    models = doc.get("zoo") or [
        {"name": name} for name in dict.fromkeys(r["pair"] for r in records)
    ]
    by = defaultdict(list)
    for r in records:
        by[(r["check"], r["group"], r["pair"])].append(r)
    run_settings = doc.get("zoo_run") or {}
    at = (
        "each model's default settings"
        if not run_settings
        else "settings " + ", ".join(f"{k} = {val}" for k, val in sorted(run_settings.items()))
    )
    lines = [
        "## The calibration zoo",
        "",
        "Every model of `zoo/` (`zoo/README.md`), brought to the harness as a user brings a "
        "model (`mcmc_pairs.comparisons.byom.model_pair` with the model's data file): "
        "per seed one PyMC "
        f"run at {at}, against which its correct sampler (`sample`) and its planted bug "
        "(`sample_planted_bug`) are compared (`run_pair(pymc_from=...)`), with the sequential "
        f"design of the pairs. Seeds: {seeds.get('zoo_seeds', 0)} per model for `compare`"
        + "".join(
            f" ({name}: {n})" for name, n in sorted((seeds.get("zoo_seeds_of") or {}).items())
        )
        + ", "
        f"{seeds.get('zoo_sbc_seeds', 0)} for SBC (= {doc['sizes']['sbc']}) on the correct "
        "sampler of each model with a proper prior. Targets: false alarms (`disagree` of the "
        f"correct sampler) at most {100 * FALSE_ALARM_TARGET:g} %, the planted bug caught "
        f"(`disagree`) in at least {100 * CATCH_TARGET:g} % of runs; 'met (shown)' when the 95 % "
        "Clopper-Pearson interval is on the right side of the target, 'met (point estimate)' "
        "when only the observed rate is (at 100 runs without an alarm the interval reaches "
        "3.6 %; showing 1 % takes about 370). A crash counts as `disagree`.",
        "",
    ]
    if not models:
        return [*lines, "No zoo model is registered (`zoo.MODELS` is empty).", ""]
    lines += [
        "### False alarms and undecided runs of the correct samplers",
        "",
        "| model | shape | runs | disagree | false-alarm rate (95 % CI) | inconclusive "
        "| not converged | agree | mean looks | target <= 1 % |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in models:
        rs = by[("compare", "correct", m["name"])]
        k = sum(_is_disagree(r) for r in rs)
        counts = [sum(r["verdict"] == x for r in rs) for x in COUNTED]
        looks = f"{sum(r['looks'] for r in rs) / len(rs):.2f}" if rs else "–"
        lines.append(
            f"| {m['name']} | {_cell(m.get('shape', ''))} | {len(rs)} | {k} | {_pct(k, len(rs))} | "
            f"{_frac(counts[0], len(rs))} | {_frac(counts[1], len(rs))} | "
            f"{_frac(counts[2], len(rs))} | {looks} | "
            f"{at_most(k, len(rs), FALSE_ALARM_TARGET)} |"
        )
    lines += [
        "",
        "### The planted bugs",
        "",
        "| model | planted bug | runs | disagree | catch rate (95 % CI) | not agree "
        "| target >= 95 % |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in models:
        rs = by[("compare", "bug", m["name"])]
        k = sum(_is_disagree(r) for r in rs)
        na = sum(r["verdict"] != agreement.AGREE for r in rs)
        lines.append(
            f"| {m['name']} | {_cell(m.get('bug', ''))} | {len(rs)} | {k} | {_pct(k, len(rs))} | "
            f"{_frac(na, len(rs))} | {at_least(k, len(rs), CATCH_TARGET)} |"
        )
    lines += [
        "",
        "### SBC on the correct samplers",
        "",
        f"A false fail is `fail` (or an error) of a correct sampler; SBC's tests run at a "
        f"family-wise rate of {doc['alpha']}. `not converged` (replications refused for too "
        "few effective draws) is counted apart; n/a where the model has no proper prior.",
        "",
        "| model | runs | fail | not converged | pass | false-fail rate (95 % CI) |",
        "|---|---|---|---|---|---|",
    ]
    for m in models:
        if not m.get("sbc", True):
            lines.append(f"| {m['name']} | n/a | | | | |")
            continue
        rs = by[("sbc", "correct", m["name"])]
        k = sum(_sbc_fails(r) for r in rs)
        nc = sum(r["verdict"].startswith(agreement.NOT_CONVERGED) for r in rs)
        ok = sum(r["verdict"] == v.PASS for r in rs)
        lines.append(f"| {m['name']} | {len(rs)} | {k} | {nc} | {ok} | {_pct(k, len(rs))} |")
    lines += ["", "### The zoo against the targets", ""]
    for m in models:
        good = by[("compare", "correct", m["name"])]
        bad = by[("compare", "bug", m["name"])]
        k_good = sum(_is_disagree(r) for r in good)
        k_bad = sum(_is_disagree(r) for r in bad)
        undecided = sum(r["verdict"] in UNDECIDED for r in good)
        text = (
            f"- {m['name']}: false alarms {_frac(k_good, len(good))}, "
            f"{at_most(k_good, len(good), FALSE_ALARM_TARGET)}; {undecided} undecided; "
            f"planted bug caught {_frac(k_bad, len(bad))}, "
            f"{at_least(k_bad, len(bad), CATCH_TARGET)}"
        )
        if m.get("sbc", True):
            sbc = by[("sbc", "correct", m["name"])]
            text += f"; SBC false fails {_frac(sum(_sbc_fails(r) for r in sbc), len(sbc))}"
        lines.append(text + ".")
    lines.append("")
    return lines


if __name__ == "__main__":
    import power  # the tasks pickle by reference as power.<function>: workers import it

    sys.exit(power.main())
