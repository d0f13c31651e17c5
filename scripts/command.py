"""Run one ``mcmc-pairs`` command as a user types it, in a fresh process, timed as a whole.

Shared by ``scripts/shipped.py`` (the catalogue's runs) and ``scripts/certify.py`` (a
step method on a model): the command writes its report into a temporary ``--out``
directory, and what comes back is its JSON document, or the last line it printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Ran:
    """What one command did.

    Attributes
    ----------
    argv : list of str
        The command line, ``--out`` included.
    seconds : float
        Wall time of the whole command.
    exit : int or None
        Its exit status; None when it was stopped at its time limit.
    document : dict or None
        The JSON report it wrote, if any.
    error : str
        The last line it printed on stderr when it wrote no report.
    """

    argv: list[str]
    seconds: float
    exit: int | None
    document: dict | None
    error: str = ""

    @property
    def timed_out(self) -> bool:
        """Return True when the command was stopped at its time limit."""
        return self.exit is None


def run(args: Sequence[str], cwd: Path, limit: float | None = None) -> Ran:
    """Run ``python -m mcmc_pairs ARGS --out TMP`` in ``cwd``, stopped after ``limit`` s."""
    with tempfile.TemporaryDirectory() as out:
        argv = [sys.executable, "-m", "mcmc_pairs", *args, "--out", out]
        start = time.perf_counter()
        try:
            done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            return Ran(argv, time.perf_counter() - start, None, None)
        seconds = time.perf_counter() - start
        reports = list(Path(out).glob("*.json"))
        document = json.loads(reports[0].read_text()) if reports else None
    error = "" if document else (done.stderr.strip().splitlines() or ["no output"])[-1]
    return Ran(argv, seconds, done.returncode, document, error)
