"""The ``mcmc-pairs`` command line.

Exit status: 0 when the samplers agree (``validate``: passes), 1 when they
disagree, are inconclusive or a side has not converged (``validate``: fails;
``report``: a pair that does not agree or whose run failed), 2 on a usage or
input error (one line on stderr, no traceback), 3 when ``validate`` is ``not
converged`` (SBC: too many replications short of effective draws even at
``--max-draws``; the sampler mixes too slowly to be judged, which is not a
miscalibration), 4 when ``compare``'s reference failed (PyMC failed its own
gates or exact checks while every side under test passed its own; ``report``:
every pair agrees or has a failed reference, and one has), 130 when interrupted
(Ctrl-C, SIGTERM), 141 when the reader of the output left. The contracts:
docs/contracts.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from mcmc_pairs.comparisons.errors import (
    one_line,
    printable,
    printable_stdout,
    quiet_third_party,
)
from mcmc_pairs.comparisons.interrupts import EXIT_OUTPUT_CLOSED
from mcmc_pairs.comparisons.kinds import SEVERITY, Verdict

if TYPE_CHECKING:
    from mcmc_pairs.comparisons.pair import Pair
    from mcmc_pairs.comparisons.report import IndexEntry
    from mcmc_pairs.comparisons.result import PairResult
    from mcmc_pairs.comparisons.validation import ValidationResult

EXIT_AGREE, EXIT_DISAGREE, EXIT_USAGE, EXIT_NOT_CONVERGED = 0, 1, 2, 3
EXIT_REFERENCE_FAILED = 4
"""``compare``: the reference (PyMC) failed its own checks, and no side under test its own."""
VERDICT_EXIT: dict[str, int] = {
    Verdict.AGREE: EXIT_AGREE,
    Verdict.REFERENCE_FAILED: EXIT_REFERENCE_FAILED,
}
"""The exit status of ``compare``'s verdicts; every other verdict (and ``error``) is 1."""
EXIT_BROKEN_PIPE = EXIT_OUTPUT_CLOSED  # 141
EXIT_INTERRUPTED = 130
"""What a shell reports for a process its pipe's reader left (128 + SIGPIPE)."""
VALIDATE_EXIT = """exit status: 0 passes; 1 fails (a test rejects: miscalibrated); 2 usage or
input error; 3 not converged (SBC: more than 5% of the replications have fewer than 99
effective draws even at --max-draws, and no rank test of the others rejects: the
sampler mixes too slowly for SBC there)"""


class UsageError(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage block
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mcmc-pairs`` and its subcommands."""
    from mcmc_pairs import __version__

    parser = _Parser(prog="mcmc-pairs", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"mcmc-pairs {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="list the registered pairs")

    _add_compare_parser(sub)
    report = sub.add_parser("report", help="compare every registered pair and write index.html")
    report.add_argument("--out", type=Path, default=Path("reports"), help="report directory")
    _add_cache_arguments(report)

    validate = sub.add_parser(
        "validate",
        help="Geweke's joint-distribution test or SBC of one sampler",
        epilog=VALIDATE_EXIT,
    )
    validate.add_argument(
        "name", nargs="?", help="pair name (a pair that conditions on data), or use --model"
    )
    _add_model_arguments(validate)
    validate.add_argument(
        "--sampler",
        metavar="SPEC",
        help="sampler under test, package.module:function or path/to/file.py:function "
        "(default: the pair's hand-rolled sampler); 'pymc' runs the pair's PyMC twin, "
        "pymc-step:FILE.py:NAME the model with your PyMC step method (--method sbc only)",
    )
    validate.add_argument("--method", required=True, choices=("geweke", "sbc"))
    validate.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address (default: $MCMC_PAIRS_SCHEDULER, else a local cluster of "
        "2 processes; 'synchronous' runs in this process)",
    )
    validate.add_argument(
        "--replications",
        type=_replications,
        help="independent replications (SBC runs; Geweke chains); SBC: 'auto' grows them "
        "from 50, doubling, until the run rules out shifts of --resolution posterior sd in "
        "every quantity, or --max-replications",
    )
    validate.add_argument(
        "--resolution",
        type=float,
        default=None,
        help="SBC with --replications auto: the shift, in posterior sd, to rule out (default 0.5)",
    )
    validate.add_argument(
        "--max-replications",
        type=int,
        default=None,
        help="SBC with --replications auto: the budget of replications (default 800)",
    )
    for flag, help_text in (
        ("--steps", "Geweke: steps of each successive-conditional chain"),
        ("--draws", "SBC: kept draws per sampler run"),
        ("--tune", "discarded tuning draws per sampler run (Geweke: per step)"),
        ("--chains", "SBC: chains per sampler run"),
        ("--seed", "random seed of the whole validation"),
        (
            "--max-draws",
            "SBC: draws per chain a replication with fewer than 99 effective draws is rerun "
            "with, doubling (default 16 x --draws; equal to --draws for no rerun)",
        ),
    ):
        validate.add_argument(flag, type=int, help=help_text)
    validate.add_argument("--out", type=Path, default=Path("reports"), help="report directory")
    return parser


def _add_compare_parser(sub: argparse._SubParsersAction[_Parser]) -> None:
    """Add ``compare``: a pair NAME or --model, the sides, the settings and --out."""
    compare = sub.add_parser(
        "compare",
        help="run both sides of one pair (or your --model against your --sampler) and compare",
    )
    compare.add_argument("name", nargs="?", help="pair name (see `mcmc-pairs list`)")
    compare.add_argument(
        "--sampler",
        metavar="SPEC",
        help="your sampler, package.module:function or path/to/file.py:function; a PyMC "
        "step method, pymc-step:FILE.py:NAME; a NumPyro model, numpyro:FILE.py:MODEL; stored "
        "draws, FILE (see --reference); it replaces the hand-rolled side",
    )
    compare.add_argument(
        "--reference",
        metavar="FILE",
        help="stored draws instead of PyMC's reference run: .nc or .zarr (ArviZ), CmdStan "
        ".csv (a quoted glob for several chains), posteriordb .json or .json.zip, or "
        "posteriordb:NAME; --sampler FILE puts stored draws under test the same way",
    )
    compare.add_argument(
        "--rename",
        metavar="OLD=NEW",
        action="append",
        help="rename a variable of stored draws to the model's name (OLD= leaves it out); "
        "repeat for several",
    )
    _add_model_arguments(compare)
    from mcmc_pairs.comparisons import settings  # not at import: numpy, before main() runs

    settings.add_flags(compare)  # --draws ... --timeout: one flag per Settings field
    compare.add_argument("--out", type=Path, default=Path("reports"), help="report directory")
    _add_cache_arguments(compare)


def _add_cache_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--cache DIR`` and ``--no-cache``: where PyMC's reference runs are kept."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--cache",
        type=Path,
        metavar="DIR",
        help="the reference cache: PyMC's reference runs are kept there and reused by a later "
        "run with the same model files, data, settings and seed (default: $MCMC_PAIRS_CACHE, "
        "else $XDG_CACHE_HOME/mcmc-pairs/references, else ~/.cache/mcmc-pairs/references)",
    )
    group.add_argument(
        "--no-cache", action="store_true", help="run PyMC's reference again; read or write no cache"
    )


def _cache_dir(args: argparse.Namespace) -> Path | None:
    """Return the reference cache's directory the flags ask for (None: ``--no-cache``)."""
    from mcmc_pairs.comparisons.reference_cache import default_cache_dir

    if getattr(args, "no_cache", False):
        return None
    return getattr(args, "cache", None) or default_cache_dir()


def _add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--model``, ``--data`` and ``--name``: bring your own model instead of NAME."""
    parser.add_argument(
        "--model",
        metavar="SPEC",
        help="your PyMC model instead of a pair NAME: build_model(data) -> pm.Model, "
        "as path/to/file.py:function or package.module:function (needs --data, --sampler)",
    )
    parser.add_argument(
        "--data", metavar="FILE", help="data for --model: a .json, .npz or .csv file"
    )
    parser.add_argument(
        "--name", dest="report_name", metavar="NAME",
        help="report name with --model (default: the model's folder, module and function, "
        "e.g. changepoint.model.build_model)",
    )  # fmt: skip


def _pair_and_data(args: argparse.Namespace) -> tuple[Pair, dict[str, Any] | None]:
    """Return ``(pair, data)``: a registered pair (data None) or the user's --model pair."""
    model, data_file, report_name = args.model, args.data, args.report_name
    if args.name is not None:
        if model is not None:
            raise UsageError(
                f"give a pair NAME or --model, not both (got {args.name!r} and --model)"
            )
        for flag, value in (("--data", data_file), ("--name", report_name)):
            if value is not None:
                raise UsageError(f"{flag} goes with --model, not with a pair NAME")
        from mcmc_pairs.comparisons.registry import get_pair

        return get_pair(args.name), None
    if model is None:
        raise UsageError(
            "give a pair NAME (see `mcmc-pairs list`) or --model SPEC --data FILE --sampler SPEC"
        )
    if data_file is None:
        raise UsageError("--model needs --data FILE (.json, .npz or .csv)")
    if args.sampler is None:
        raise UsageError("--model needs --sampler SPEC, the sampler to compare with the model")
    from mcmc_pairs.comparisons.byom import model_pair
    from mcmc_pairs.comparisons.datafile import read_data

    data = read_data(data_file)
    sampler = None if args.sampler == "pymc" else args.sampler
    return model_pair(model, data, sampler, name=report_name), data


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line in this process; return the exit status.

    Called in-process (a test, a user's script), it leaves the caller's
    signal handlers and threads alone: Ctrl-C ends the run as a
    ``KeyboardInterrupt``, status 130. The ``mcmc-pairs`` program is
    :func:`program`, which adds the interrupt policy.
    """
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("mcmc-pairs: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def program() -> NoReturn:
    """Run the ``mcmc-pairs`` program (and ``python -m mcmc_pairs``): :func:`main`, then exit.

    SIGINT and SIGTERM end the process at any moment with exit 130
    (:mod:`~mcmc_pairs.comparisons.interrupts`); a sampler's thread or child
    process still running after the run ends it with exit 2
    (:func:`_no_stray_threads`, :func:`_no_stray_processes`).
    """
    from mcmc_pairs.comparisons import interrupts

    interrupts.install()
    before = set(threading.enumerate())
    children = {child.pid for child in interrupts.children()}
    try:
        status = _main(None)
    except KeyboardInterrupt:
        interrupts.shutdown()  # never returns: children ended, temporary files removed, 130
    _no_stray_threads(before)
    _no_stray_processes(children)
    interrupts.end_program(status)


def _main(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its command; return the exit status."""
    quiet_third_party()
    _importable_cwd()
    try:
        args = build_parser().parse_args(argv)
        from mcmc_pairs.comparisons.html import figures_off

        figures_off()  # a bad $MCMC_PAIRS_FIGURES is exit 2 before any run
        command = {"list": _list, "compare": _compare, "validate": _validate}
        status = command.get(args.command, _report)(args)
        sys.stdout.flush()  # here, where a reader that left is caught below
        return status
    except (UsageError, ValueError) as exc:
        print(f"mcmc-pairs: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version print and stop here
        sys.stdout.flush()
        return exc.code if isinstance(exc.code, int) else EXIT_AGREE
    except BrokenPipeError:  # `mcmc-pairs list | head -1`: the reader left; no traceback
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _no_stray_threads(before: set[threading.Thread]) -> None:
    """End with exit 2 and one line when the run left non-daemon threads running.

    The interpreter would wait for them at exit, for ever; they get
    :data:`~.execution.STRAY_THREAD_WAIT_S` seconds instead. Threads that ran
    ``before`` the command are not counted.
    """
    from mcmc_pairs.comparisons.execution import STRAY_THREAD_WAIT_S, stray_threads

    names = stray_threads(ignore=before)
    if not names:
        return

    shown = ", ".join(repr(name) for name in names[:5]) + (" ..." if len(names) > 5 else "")
    _exit_after_run(
        f"the sampler left thread(s) {shown} running {STRAY_THREAD_WAIT_S:g} s after the run; "
        "a sampler must join the threads it starts (or make them daemon threads)"
    )


def _exit_after_run(message: str) -> NoReturn:
    """Print ``mcmc-pairs: error: MESSAGE``, flush, and leave with exit 2 at once.

    At once: the interpreter's exit would wait for what the run left behind.
    """
    print(f"mcmc-pairs: error: {message}", file=sys.stderr)
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(EXIT_USAGE)


def _no_stray_processes(before: set[int]) -> None:
    """End with exit 2 and one line when the run left child processes running; end them.

    A sampler (or a model) that starts a process and returns without waiting
    for it leaves a child that keeps the program alive (multiprocessing joins a
    non-daemon child at exit, for ever) or holds its stdout open (``compare ...
    | tail`` waits for it). They get :data:`~.execution.STRAY_THREAD_WAIT_S`
    seconds to end; then every descendant is ended and reaped
    (:func:`~.interrupts.end_children`). Children that ran ``before`` the
    command, and multiprocessing's resource tracker, are not counted.
    """
    from mcmc_pairs.comparisons import interrupts
    from mcmc_pairs.comparisons.execution import STRAY_THREAD_WAIT_S

    deadline = time.monotonic() + STRAY_THREAD_WAIT_S
    while left := [c for c in interrupts.children() if c.pid not in before]:
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if not left:
        return
    shown = ", ".join(f"{c.pid} ({interrupts.process_name(c)})" for c in left[:5])
    interrupts.end_children()
    _exit_after_run(
        f"the run left process(es) {shown}{' ...' if len(left) > 5 else ''} running "
        f"{STRAY_THREAD_WAIT_S:g} s after it ended (started by the sampler or the model, never "
        "waited for); they were ended. A sampler must wait for the processes it starts (join, "
        "wait, communicate)"
    )


def _importable_cwd() -> None:
    """Let ``package.module:function`` name a module of the working directory, as ``python -m``.

    (``python -m mcmc_pairs`` puts the working directory first on ``sys.path``;
    the ``mcmc-pairs`` script does not, so a user's ``models.mine:build_model``
    would not import from the project's root.)
    """
    import os

    cwd = os.getcwd()
    if not any(os.path.abspath(entry or os.curdir) == cwd for entry in sys.path):
        sys.path.insert(0, cwd)


def _list(args: argparse.Namespace | None = None) -> int:
    from mcmc_pairs.comparisons.registry import PAIRS

    width = max(len(p.name) for p in PAIRS)
    for pair in PAIRS:
        variants = ", ".join(pair.handrolled)
        print(f"{pair.name:<{width}}  {pair.title}  [hand-rolled: {variants}]")
    return EXIT_AGREE


def _compare(args: argparse.Namespace) -> int:
    from mcmc_pairs.comparisons.files import writable_dir

    pair, data = _pair_and_data(args)
    writable_dir(args.out)
    _refuse_report_name(args, pair.name)
    result = _run(pair, args, data)
    html_path, json_path = _write(result, args.out)  # both files or neither, even interrupted
    _say_summary(result)
    print(f"wrote {html_path} and {json_path}")
    return exit_status(result.verdict)


def exit_status(verdict: str) -> int:
    """Return the exit status of a ``compare`` verdict (:data:`VERDICT_EXIT`)."""
    return VERDICT_EXIT.get(verdict, EXIT_DISAGREE)


def report_exit_status(verdicts: Sequence[str]) -> int:
    """Return ``report``'s exit status: that of its worst pair's verdict (``error`` worst).

    0 when every pair agrees; 4 when every pair agrees or has a failed reference,
    and one has; 1 otherwise (:data:`~mcmc_pairs.comparisons.kinds.SEVERITY`).
    """
    rank: dict[str, int] = {verdict: i for i, verdict in enumerate(SEVERITY)}
    worst = max(verdicts, key=lambda v: rank.get(v, len(SEVERITY)), default=Verdict.AGREE)
    return exit_status(worst)


def _refuse_report_name(args: argparse.Namespace, name: str, stem: str | None = None) -> None:
    """Refuse, before any sampling, a report name that would replace another's or is too long."""
    from mcmc_pairs.comparisons.preflight import refuse_bad_report_name

    argument = "--name" if args.report_name is not None else "--model"
    user = args.model is not None
    refuse_bad_report_name(name, args.out, user=user, stem=stem, argument=argument)


def _run(pair: Pair, args: argparse.Namespace, data: Mapping[str, Any] | None = None) -> PairResult:
    from mcmc_pairs.comparisons import settings
    from mcmc_pairs.comparisons.run import run_pair
    from mcmc_pairs.comparisons.stored import parse_rename

    reference = getattr(args, "reference", None)
    rename = parse_rename(getattr(args, "rename", None))
    sampler = getattr(args, "sampler", None)
    cache = _cache_dir(args)
    checked = settings.from_args(args, pair.settings)
    return run_pair(
        pair, checked, sampler=sampler, data=data, cache=cache, reference=reference, rename=rename
    )


def _write(result: PairResult, out: Path) -> tuple[Path, Path]:
    from mcmc_pairs.comparisons.report import write_pair_report

    return write_pair_report(result, out)


def _say_summary(result: PairResult) -> None:
    """Print :func:`_print_summary` in one write, unless the run was interrupted meanwhile."""
    import io

    from mcmc_pairs.comparisons import interrupts

    interrupts.check()  # an interrupt a library swallowed: no verdict
    summary = io.StringIO()
    with contextlib.redirect_stdout(summary):
        _print_summary(result)
    interrupts.check()
    sys.stdout.write(printable(summary.getvalue()))  # a user's names, without terminal escapes


def _print_summary(result: PairResult) -> None:
    """Print the checks by kind, the worst ten in words, and the verdicts."""
    from mcmc_pairs.comparisons.kinds import HONESTY_KINDS
    from mcmc_pairs.comparisons.report import WORST, check_records, describe_check, worst_checks

    checks = result.checks
    failed = checks[~checks["passed"]]
    print(f"{result.pair.name}: {len(checks)} checks, {len(failed)} failed")
    kinds = []
    for kind, group in checks.groupby("kind", sort=False):
        bad = int((~group["passed"]).sum())
        kinds.append(f"{kind} {len(group)}" + (f" ({bad} failed)" if bad else ""))
    print("  by kind: " + ", ".join(kinds))
    honest = checks[checks["kind"].isin(HONESTY_KINDS)]
    for side, rows in honest.groupby("side", sort=False):  # failed ones in words below
        passed = rows.groupby("kind", sort=False)["passed"].all()  # copy: two rows
        said = ", ".join(f"{kind} {'passed' if ok else 'FAILED'}" for kind, ok in passed.items())
        print(f"  honesty of {side}: {said}")
    if result.discrete:
        shown = ", ".join(result.discrete[:WORST])
        shown += " ..." if len(result.discrete) > WORST else ""
        print(f"  compared as discrete (mean, sd, P(X <= k)): {shown}")
    if result.cannot_grow:
        print(
            f"  stored draws cannot grow: {', '.join(result.cannot_grow)}; their own Monte "
            "Carlo error limits the resolution"
        )
    print(f"  worst {min(WORST, len(checks))} (all in the JSON):")
    for row in check_records(worst_checks(checks)):
        print(f"    {describe_check(row)}")
    for label, verdict in result.verdicts.items():
        print(f"{label}: {verdict}")
    print(f"verdict: {result.verdict}")
    if result.verdict == Verdict.REFERENCE_FAILED:
        from mcmc_pairs.comparisons.report import reference_advice

        print(reference_advice(result))


SCHEDULER_ENV = "MCMC_PAIRS_SCHEDULER"
"""The default of ``validate --scheduler`` when set: ``synchronous`` or a scheduler's address
(a test suite or CI whose cores are already busy runs replications in the process itself)."""


def _replications(text: str) -> int | str:
    """``--replications``: an integer, or ``auto``."""
    if text.strip() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an integer or 'auto', got {text!r}") from None


def _validate(args: argparse.Namespace) -> int:
    from mcmc_pairs.comparisons.files import writable_dir
    from mcmc_pairs.comparisons.settings import GewekeSettings, SbcSettings
    from mcmc_pairs.comparisons.validation import FAIL, PASS, ValidationError, validate
    from mcmc_pairs.comparisons.validation_report import write_validation_report

    scheduler = args.scheduler or os.environ.get(SCHEDULER_ENV, "").strip() or None
    if scheduler not in (None, "synchronous"):  # before any import of PyMC: at once
        from mcmc_pairs.comparisons.execution import probe_scheduler

        probe_scheduler(scheduler, name="--scheduler" if args.scheduler else f"${SCHEDULER_ENV}")
    pair, _ = _pair_and_data(args)
    writable_dir(args.out)
    _refuse_report_name(args, pair.name, stem=f"{pair.name}_{args.method}")
    names = dict.fromkeys([*GewekeSettings.DEFAULTS, *SbcSettings.DEFAULTS])  # either method's
    overrides = {k: getattr(args, k) for k in names if getattr(args, k) is not None}
    for key in ("resolution", "max_replications"):
        if getattr(args, key) is not None:
            if args.replications != "auto":
                flag = "--" + key.replace("_", "-")
                raise ValueError(f"{flag} goes with --replications auto")
            overrides[key] = getattr(args, key)
    try:
        result = validate(
            pair,
            args.sampler,
            method=args.method,
            scheduler=scheduler,
            progress=lambda event: print(printable(str(event)), file=sys.stderr),
            **overrides,
        )
    except ValidationError as exc:
        if exc.result is None:
            raise
        _, json_path = write_validation_report(exc.result, args.out)
        raise ValueError(f"{exc}; the finished replications are in {json_path}") from None
    html_path, json_path = write_validation_report(result, args.out)
    with printable_stdout():  # a user's names, without terminal escapes
        _print_validation(result, pair.name, args.method)
    print(f"wrote {html_path} and {json_path}")
    if result.verdict == PASS:
        return EXIT_AGREE
    return EXIT_DISAGREE if result.verdict == FAIL else EXIT_NOT_CONVERGED


def _print_validation(result: ValidationResult, name: str, method: str) -> None:
    """Print the failed tests of ``validate``, its message, sensitivity and verdict."""
    failed = result.checks[~result.checks["passed"]]
    print(f"{name} {method}: {len(result.checks)} tests, {len(failed)} failed")
    if len(failed):
        from mcmc_pairs.comparisons.validation_report import SHOWN_COLUMNS

        shown = failed.rename(columns=SHOWN_COLUMNS[method])
        print(shown.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    message = result.details.get("message")
    if message:
        print(message)
    if result.details.get("sensitivity"):
        from mcmc_pairs.comparisons.validation_report import certificate

        print(f"sensitivity: {certificate(result.details['sensitivity'])}")
    print(f"verdict: {result.verdict}")


def _report(args: argparse.Namespace) -> int:
    """Run every registered pair, on up to as many worker processes as there are cores.

    Each pair runs and writes its pages in one worker (:func:`_report_pair`),
    with the same seed and settings as alone, so its results do not depend on
    the workers; its checks summary is printed here, in registry order. The
    pairs are handed out longest first (the registry lists LDA, whose PyMC
    twin is most of the report's time, last), so that the other pairs fill the
    other cores meanwhile.
    """
    from mcmc_pairs.comparisons.execution import available_cores
    from mcmc_pairs.comparisons.files import writable_dir
    from mcmc_pairs.comparisons.registry import PAIRS
    from mcmc_pairs.comparisons.report import write_index

    writable_dir(args.out)
    pairs = list(PAIRS)
    workers = min(available_cores(), len(pairs))
    done: dict[int, tuple[IndexEntry, str]] = {}
    if workers <= 1:
        for i, pair in enumerate(pairs):
            done[i] = _report_pair(pair, args)
            print(done[i][1], end="", flush=True)
    else:
        done = report_in_workers(pairs, args, workers)
    entries = [done[i][0] for i in range(len(pairs))]
    worst = report_exit_status([e["verdict"] for e in entries])
    index = write_index(entries, args.out)
    print(f"wrote {index}")
    return worst


class PairReport(Protocol):
    """What :func:`report_in_workers` runs per pair: :func:`_report_pair`'s signature."""

    def __call__(
        self, pair: Pair, args: argparse.Namespace, background: bool = False
    ) -> tuple[IndexEntry, str]:
        """Run ``pair`` and write its pages: (its index entry, its printed summary)."""
        ...


def report_in_workers(
    pairs: Sequence[Pair], args: argparse.Namespace, workers: int, run: PairReport | None = None
) -> dict[int, tuple[IndexEntry, str]]:
    """Run ``run(pair, args, background=...)`` for every pair on ``workers`` processes.

    Each pair's summary is printed as it arrives, in the registry's order. A
    worker that dies (killed, as the kernel's out-of-memory killer does) breaks
    the pool and every pair not yet finished: those run once more, in a fresh
    pool, after one line on stderr saying so; a pair lost twice is an ``error``
    entry with its own line. The longest pair (the registry's last) is handed
    out first and the others yield to it (:func:`_report_pair`'s ``background``).
    ``run`` defaults to :func:`_report_pair` (a test gives its own).
    """
    from concurrent.futures.process import BrokenProcessPool

    from mcmc_pairs.comparisons import interrupts
    from mcmc_pairs.comparisons.execution import spawned_pool

    run = _report_pair if run is None else run
    done: dict[int, tuple[IndexEntry, str]] = {}
    todo, last = list(range(len(pairs))), len(pairs) - 1
    for attempt in (1, 2):
        lost: dict[int, BaseException] = {}
        with spawned_pool(min(workers, len(todo)), initializer=_worker) as pool:
            futures = {
                i: pool.submit(run, pairs[i], args, background=i != last) for i in reversed(todo)
            }
            for i in todo:
                try:
                    done[i] = futures[i].result()
                except BrokenProcessPool as exc:  # a worker died: this pair is lost with it
                    interrupts.check()  # ... ended by an interrupt: so does this process
                    lost[i] = exc
                    continue
                except Exception as exc:
                    interrupts.check()
                    print(f"mcmc-pairs: error in pair {pairs[i].name}: {one_line(exc)}",
                          file=sys.stderr)  # fmt: skip
                    done[i] = _error_entry(pairs[i], 0.0, exc), ""
                print(done[i][1], end="", flush=True)
        names = ", ".join(pairs[i].name for i in lost)
        if lost and attempt == 1:
            print(f"mcmc-pairs: a report worker died (killed, or out of memory?); "
                  f"running again: {names}", file=sys.stderr)  # fmt: skip
        for i, died in lost.items() if attempt == 2 else ():
            print(f"mcmc-pairs: error in pair {pairs[i].name}: its worker died twice",
                  file=sys.stderr)  # fmt: skip
            done[i] = _error_entry(pairs[i], 0.0, died), ""
            print(done[i][1], end="", flush=True)
        todo = sorted(lost)
        if not todo:
            break
    return done


def _worker() -> None:
    """Set up a ``report`` worker: under the interrupt policy, as the parent (which says so)."""
    from mcmc_pairs.comparisons import interrupts

    interrupts.install(announce=False)
    quiet_third_party()


def _report_pair(
    pair: Pair, args: argparse.Namespace, background: bool = False
) -> tuple[IndexEntry, str]:
    """Run one pair of ``report`` and write its pages: (its index entry, its printed summary).

    A failing pair becomes an entry with verdict ``"error"`` (one broken pair must
    not hide the others), its message on stderr. A ``background`` pair runs at a
    lower scheduling priority (:data:`BACKGROUND_NICE`), and so does its worker from
    then on: the longest pair's threads and processes (LDA's NUTS on every core,
    its summaries' child) take the cores when they want them, and the short pairs
    fill the gaps, so the report ends when the longest pair does. Nothing else
    changes: a pair's results do not depend on when its work runs.
    """
    import contextlib
    import io

    from mcmc_pairs.comparisons.report import index_entry

    if background:
        _lower_priority()

    start = time.perf_counter()
    try:
        result = _run(pair, args)
    except Exception as exc:
        print(f"mcmc-pairs: error in pair {pair.name}: {one_line(exc)}", file=sys.stderr)
        return _error_entry(pair, time.perf_counter() - start, exc), ""
    seconds = time.perf_counter() - start
    _write(result, args.out)
    summary = io.StringIO()
    with contextlib.redirect_stdout(summary):
        _print_summary(result)
    return index_entry(result, seconds), summary.getvalue()


BACKGROUND_NICE = 10
"""Niceness of a ``report`` worker once it runs a pair other than the longest."""


def _lower_priority() -> None:
    """Make this worker (and the threads and processes it starts) yield the CPU: nice it."""
    import os

    try:
        if os.getpriority(os.PRIO_PROCESS, 0) < BACKGROUND_NICE:
            os.setpriority(os.PRIO_PROCESS, 0, BACKGROUND_NICE)
    except (AttributeError, OSError):  # not on this platform, or not allowed: run as is
        pass


def _error_entry(pair: Pair, seconds: float, exc: BaseException) -> IndexEntry:
    """Return the index entry of a pair whose run failed."""
    return {
        "name": pair.name,
        "title": pair.title,
        "verdict": "error",
        "seconds": seconds,
        "error": one_line(exc),
    }


if __name__ == "__main__":
    program()
