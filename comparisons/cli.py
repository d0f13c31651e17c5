"""The ``mcmc-pairs`` command line.

Exit status: 0 when the samplers agree, 1 when they disagree or a side has not
converged, 2 on a usage or input error (one line on stderr, no traceback).
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        args = build_parser().parse_args(argv)
        if args.command == "list":
            return _list()
        if args.command == "compare":
            return _compare(args)
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


def _report(args) -> int:
    from comparisons.registry import PAIRS
    from comparisons.report import write_index

    entries, worst = [], EXIT_AGREE
    for pair in PAIRS:
        start = time.perf_counter()
        result = _run(pair, args)
        _write(result, args.out)
        _print_summary(result)
        entries.append(
            {
                "name": pair.name,
                "title": pair.title,
                "verdict": result.verdict,
                "seconds": time.perf_counter() - start,
            }
        )
        if result.verdict != "agree":
            worst = EXIT_DISAGREE
    index = write_index(entries, args.out)
    print(f"wrote {index}")
    return worst


if __name__ == "__main__":
    sys.exit(main())
