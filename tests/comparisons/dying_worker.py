"""A stand-in for ``report``'s per-pair work whose worker dies once, as an out-of-memory kill.

Imported by name in ``report``'s spawned workers (``tests/comparisons/test_cli.py``).
"""

import os
import signal
from pathlib import Path


def report_pair(pair, args, background=False):
    """Return the pair's entry and summary; the first call for each of ``args.victims`` dies."""
    marker = Path(args.out) / f"{pair.name}.died"
    if pair.name in args.victims and not marker.exists():
        marker.write_text("once")
        os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no exception: the kernel's way
    entry = {"name": pair.name, "title": pair.title, "verdict": "agree", "seconds": 0.0}
    return entry, f"{pair.name}: agree\n"


def report_pair_dying_always(pair, args, background=False):
    """Die at every call (a pair whose run always takes more memory than there is)."""
    os.kill(os.getpid(), signal.SIGKILL)
