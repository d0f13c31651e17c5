"""The ``mcmc-pairs`` command line.

Exit status: 0 when the samplers agree (``validate``: passes), 1 when they
disagree or a side has not converged (``validate``: fails), 2 on a usage or
input error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

EXIT_AGREE, EXIT_DISAGREE, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Raised by the argument parser instead of printing usage and exiting."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, no usage block
        raise UsageError(message)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    return value


def build_parser() -> argparse.ArgumentParser:
    """Return the parser of ``mcmc-pairs`` and its subcommands."""
    parser = _Parser(prog="mcmc-pairs", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="list the registered pairs")

    compare = sub.add_parser("compare", help="run both sides of one pair and compare them")
    compare.add_argument("name", help="pair name (see `mcmc-pairs list`)")
    compare.add_argument(
        "--sampler",
        metavar="SPEC",
        help="your sampler, package.module:function or path/to/file.py:function; "
        "it replaces the hand-rolled side",
    )
    for flag, help_text in (
        ("--draws", "kept draws per chain"),
        ("--tune", "discarded tuning draws per chain"),
        ("--chains", "number of chains (>= 2)"),
        ("--seed", "random seed shared by both sides"),
    ):
        compare.add_argument(flag, type=_count, help=help_text)
    compare.add_argument("--out", type=Path, default=Path("reports"), help="report directory")

    report = sub.add_parser("report", help="compare every registered pair and write index.html")
    report.add_argument("--out", type=Path, default=Path("reports"), help="report directory")

    validate = sub.add_parser(
        "validate", help="Geweke's joint-distribution test or SBC of one sampler"
    )
    validate.add_argument("name", help="pair name (a pair that conditions on data)")
    validate.add_argument(
        "--sampler",
        metavar="SPEC",
        help="sampler under test, package.module:function or path/to/file.py:function "
        "(default: the pair's hand-rolled sampler); 'pymc' runs the pair's PyMC twin "
        "(--method sbc only)",
    )
    validate.add_argument("--method", required=True, choices=("geweke", "sbc"))
    validate.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address (default: a local cluster of 2 processes; "
        "'synchronous' runs in this process)",
    )
    for flag, help_text in (
        ("--replications", "independent replications (SBC runs; Geweke chains)"),
        ("--steps", "Geweke: steps of each successive-conditional chain"),
        ("--draws", "SBC: kept draws per sampler run"),
        ("--tune", "discarded tuning draws per sampler run (Geweke: per step)"),
        ("--chains", "SBC: chains per sampler run"),
        ("--seed", "random seed of the whole validation"),
    ):
        validate.add_argument(flag, type=_count, help=help_text)
    validate.add_argument("--out", type=Path, default=Path("reports"), help="report directory")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        args = build_parser().parse_args(argv)
        if args.command == "list":
            return _list()
        if args.command == "compare":
            return _compare(args)
        if args.command == "validate":
            return _validate(args)
        return _report(args)
    except (UsageError, ValueError) as exc:
        print(f"mcmc-pairs: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("mcmc-pairs: interrupted", file=sys.stderr)
        return 130


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _list() -> int:
    from comparisons.registry import PAIRS

    width = max(len(p.name) for p in PAIRS)
    for pair in PAIRS:
        variants = ", ".join(pair.handrolled)
        print(f"{pair.name:<{width}}  {pair.title}  [hand-rolled: {variants}]")
    return EXIT_AGREE


def _compare(args) -> int:
    from comparisons.registry import get_pair

    pair = get_pair(args.name)
    result = _run(pair, args)
    html_path, json_path = _write(result, args.out)
    _print_summary(result)
    print(f"wrote {html_path} and {json_path}")
    return EXIT_AGREE if result.verdict == "agree" else EXIT_DISAGREE


def _run(pair, args):
    from comparisons.run import run_pair

    return run_pair(
        pair,
        sampler=getattr(args, "sampler", None),
        draws=getattr(args, "draws", None),
        tune=getattr(args, "tune", None),
        chains=getattr(args, "chains", None),
        seed=getattr(args, "seed", None),
    )


def _write(result, out: Path):
    from comparisons.report import write_pair_report

    return write_pair_report(result, out)


def _print_summary(result) -> None:
    import pandas as pd

    checks = result.checks
    failed = checks[~checks["passed"]]
    with pd.option_context("display.width", 120, "display.max_rows", 50):
        print(f"{result.pair.name}: {len(checks)} checks, {len(failed)} failed")
        if len(failed):
            print(failed.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    for label, verdict in result.verdicts.items():
        print(f"{label}: {verdict}")
    print(f"verdict: {result.verdict}")


def _validate(args) -> int:
    from comparisons.registry import get_pair
    from comparisons.validation import PASS, ValidationError, validate, write_validation_report

    pair = get_pair(args.name)
    names = ("replications", "steps", "draws", "tune", "chains", "seed")
    overrides = {k: getattr(args, k) for k in names if getattr(args, k) is not None}
    try:
        result = validate(
            pair,
            args.sampler,
            method=args.method,
            scheduler=args.scheduler,
            progress=lambda line: print(f"[{pair.name} {args.method}] {line}", file=sys.stderr),
            **overrides,
        )
    except ValidationError as exc:
        if exc.result is None:
            raise
        _, json_path = write_validation_report(exc.result, args.out)
        raise ValueError(f"{exc}; the finished replications are in {json_path}") from None
    html_path, json_path = write_validation_report(result, args.out)
    failed = result.checks[~result.checks["passed"]]
    print(f"{pair.name} {args.method}: {len(result.checks)} tests, {len(failed)} failed")
    if len(failed):
        print(failed.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"verdict: {result.verdict}")
    print(f"wrote {html_path} and {json_path}")
    return EXIT_AGREE if result.verdict == PASS else EXIT_DISAGREE


def _report(args) -> int:
    from comparisons.registry import PAIRS
    from comparisons.report import index_entry, write_index

    entries, worst = [], EXIT_AGREE
    for pair in PAIRS:
        start = time.perf_counter()
        try:
            result = _run(pair, args)
        except ValueError as exc:  # one broken pair must not hide the others
            print(f"mcmc-pairs: error in pair {pair.name}: {_one_line(exc)}", file=sys.stderr)
            entries.append(
                {
                    "name": pair.name,
                    "title": pair.title,
                    "verdict": "error",
                    "seconds": time.perf_counter() - start,
                    "error": _one_line(exc),
                }
            )
            worst = EXIT_DISAGREE
            continue
        _write(result, args.out)
        _print_summary(result)
        entries.append(index_entry(result, time.perf_counter() - start))
        if result.verdict != "agree":
            worst = EXIT_DISAGREE
    index = write_index(entries, args.out)
    print(f"wrote {index}")
    return worst


if __name__ == "__main__":
    sys.exit(main())
