"""An interrupted run leaves no half-written file: killed in the middle of writing a report."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRITER = """
import signal, sys
from mcmc_pairs.comparisons import cli, files
signal.signal(signal.SIGTERM, cli._terminated)
print("ready", flush=True)
files.write_atomic(sys.argv[1], "x" * 400_000_000)
"""


@pytest.mark.parametrize("delay", [0.05, 0.2])
def test_a_report_killed_while_it_is_written_leaves_no_file_behind(tmp_path, delay):
    target = tmp_path / "lda.html"
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline().strip() == "ready"
    time.sleep(delay)
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=60)
    left = sorted(p.name for p in tmp_path.iterdir())
    if target.exists():  # it finished before the signal: then it is whole
        assert target.stat().st_size == 400_000_000 and left == ["lda.html"]
    else:
        assert left == [], f"half-written files left behind: {left}"
        assert child.returncode != 0
