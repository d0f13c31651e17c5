"""The interrupt policy (comparisons/interrupts.py): SIGINT and SIGTERM at any moment end a run.

End to end: ``compare`` (a tiny model and sampler written to a temporary
directory), ``report`` on two workers and ``validate --method sbc`` on the
local Dask cluster run as subprocesses and get SIGINT or SIGTERM (to the
process, or Ctrl-C to its process group) at moments drawn with a fixed seed
across importing, the user's sampler, numba compiling nutpie's model, NUTS
inside nutpie, the summaries and the writing of the report. Each must end
within 5 s with exit 130 and ``mcmc-pairs: interrupted``, print no verdict,
leave the old JSON and HTML both old or both new and no temporary file, and
leave no process (each carries a unique tag in its environment) or zombie.

The scenarios run concurrently (a module fixture starts them all), so the
module costs about its longest scenario; the unit tests of the checkpoints
run in this process.
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from mcmc_pairs.comparisons import interrupts

ROOT = Path(__file__).resolve().parents[2]
TAG = "MCMC_PAIRS_TEST_TAG"
EXIT_WITHIN_S = 5.0
OLD = "OLD"

MODEL = """
import numpy as np
import pymc as pm

def build_model(data):
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("y", mu, 1.0, observed=np.asarray(data["y"], dtype=float))
    return model
"""

SAMPLER = """
import threading
import time

import numpy as np

def sample(data, *, draws, tune, chains, random_seed):
    time.sleep(0.4)  # the sampler's own time: a moment to be interrupted in
    y = np.asarray(data["y"], dtype=float)
    rng = np.random.default_rng(random_seed)
    scale = (len(y) + 1) ** -0.5
    return {"mu": y.sum() / (len(y) + 1) + scale * rng.standard_normal((chains, draws))}

def sample_ignoring_sigterm(data, *, draws, tune, chains, random_seed):
    import os
    import signal
    from pathlib import Path

    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # "my sampler must not be interrupted"
    Path(os.environ["SAMPLER_STARTED"]).touch()
    time.sleep(3.0)
    return sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)

def sample_leaving_processes(data, *, draws, tune, chains, random_seed):
    import multiprocessing
    import subprocess

    subprocess.Popen(["sleep", "600"])  # holds stdout
    multiprocessing.get_context("fork").Process(target=time.sleep, args=(600,)).start()
    return sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)

def sample_leaving_a_thread(data, *, draws, tune, chains, random_seed):
    threading.Thread(target=time.sleep, args=(600,), name="left-behind").start()
    return sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)
"""

SMALL = ["--draws", "200", "--tune", "200", "--max-draws", "200", "--seed", "3"]


@pytest.fixture(scope="module")
def user(tmp_path_factory) -> Path:
    """A user's model, sampler, data (small, and large enough for NUTS to take a while)."""
    root = tmp_path_factory.mktemp("user")
    (root / "tiny.py").write_text(textwrap.dedent(MODEL))
    (root / "exact.py").write_text(textwrap.dedent(SAMPLER))
    y = np.random.default_rng(0).normal(0.3, 1.0, size=200_000)
    (root / "small.json").write_text(json.dumps({"y": y[:5].tolist()}))
    np.savez(root / "large.npz", y=y)
    import arviz_base as azb

    exact = y[:5].sum() / 6 + 6**-0.5 * np.random.default_rng(1).standard_normal((4, 200))
    azb.from_dict({"posterior": {"mu": exact}}).to_netcdf(root / "ref.nc", engine="h5netcdf")
    return root


@dataclass
class Outcome:
    """What one scenario saw."""

    returncode: int | None
    stdout: str
    stderr: list[str]
    exit_s: float | None = None  # from the signal to the exit
    stage: str = ""
    tagged_at_signal: list[int] = field(default_factory=list)
    tagged_after: list[int] = field(default_factory=list)
    left_at_signal: list[int] = field(default_factory=list)  # tagged then, not gone now


def _tagged(tag: str) -> list[int]:
    """Return the pids of the processes whose environment carries ``tag``."""
    needle = f"{TAG}={tag}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if needle in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def _still_there(pids: list[int]) -> list[int]:
    """Return the pids that still exist, zombies included."""
    return [pid for pid in pids if Path(f"/proc/{pid}").exists()]


def _catches_sigterm(pid: int) -> bool:
    """Return True once process ``pid`` has a handler for SIGTERM (its SigCgt mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1)


@dataclass
class Scenario:
    """A command, the moment to signal it (a marker, then a delay) and the signal."""

    argv: list[str]
    marker: str
    """When the delay starts: "" at launch; "installed" once the policy is installed (the
    process catches SIGTERM: the interpreter's own start is not covered); "line:TEXT" a
    stderr line; "tmp:DIR" a temporary file in DIR; "new:FILE" FILE no longer holds OLD;
    "threads" nutpie's threads start (after "pymc: 4 chains")."""
    delay: float
    signum: int
    group: bool
    cwd: Path
    command: tuple[str, ...] = ("-m", "mcmc_pairs")
    """How the interpreter runs the program: ``python -m mcmc_pairs``, or :data:`SLOW_DISK`."""

    def run(self) -> Outcome:
        tag = uuid.uuid4().hex
        env = {**os.environ, TAG: tag, "TMPDIR": str(self.cwd / "tmp")}
        child = subprocess.Popen(
            [sys.executable, *self.command, *self.argv],
            cwd=self.cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        lines: list[str] = []
        seen = threading.Event()
        reader = threading.Thread(target=self._read, args=(child, lines, seen), daemon=True)
        reader.start()
        outcome = Outcome(None, "", lines, stage=self.describe())
        if self._wait_for_moment(child, seen):
            outcome.tagged_at_signal = _tagged(tag)
            sent = time.monotonic()
            (os.killpg if self.group else os.kill)(child.pid, self.signum)
            try:
                child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
            else:
                outcome.exit_s = time.monotonic() - sent
        else:  # it ended before the moment came
            child.wait(timeout=600)
        reader.join(timeout=10)
        outcome.returncode, outcome.stdout = child.returncode, child.stdout.read()
        time.sleep(0.2)
        outcome.tagged_after = _tagged(tag)
        outcome.left_at_signal = _still_there(outcome.tagged_at_signal)
        return outcome

    def describe(self) -> str:
        how = (
            ("Ctrl-C to the group" if self.group else "SIGINT")
            if self.signum == signal.SIGINT
            else "SIGTERM"
        )
        return f"{how} {self.delay:.3f} s after {self.marker or 'launch'}"

    def _read(self, child, lines: list[str], seen: threading.Event) -> None:
        wanted = self.marker[5:] if self.marker.startswith("line:") else "pymc: 4 chains"
        for line in child.stderr:
            lines.append(line.rstrip("\n"))
            if wanted in line:
                seen.set()

    def _wait_for_moment(self, child, seen: threading.Event) -> bool:
        """Wait for the marker and the delay; return False if the process ended first."""
        kind, _, what = self.marker.partition(":")
        threads = None
        while child.poll() is None:
            if kind == "" or kind == "line" and seen.is_set():
                break
            if kind == "installed" and _catches_sigterm(child.pid):
                break
            if kind == "tmp" and any(Path(what).glob(".*.tmp")):
                break
            if kind == "new" and Path(what).read_text() != OLD:
                break
            if kind == "threads" and seen.is_set():
                count = len(os.listdir(f"/proc/{child.pid}/task"))
                threads = count if threads is None else threads
                if count >= threads + 2:  # nutpie's chains started
                    break
            time.sleep(0.005 if kind in ("tmp", "new") else 0.02)
        time.sleep(self.delay)
        return child.poll() is None


SLOW_DISK = (
    "-c",
    """
import time
from mcmc_pairs.comparisons import interrupts
interrupts.install()
from mcmc_pairs.comparisons import files
stage = files._stage
def slow_stage(path, text):  # a slow disk: each staged file stays 0.5 s before the commit
    tmp = stage(path, text)
    time.sleep(0.5)
    return tmp
files._stage = slow_stage
from mcmc_pairs.comparisons.cli import program
program()
""",
)
"""``mcmc-pairs`` on a slow disk: the 'writing' moment falls between the staged files and the
commit every time (on a fast disk that window is a few milliseconds, and a poll misses it)."""


RNG = random.Random(31)
SIGNALS = [(signal.SIGINT, True), (signal.SIGINT, False), (signal.SIGTERM, False)]
COMPARE_MOMENTS = {  # name: (marker, delay, reference: stored draws or PyMC's NUTS, data)
    "import": ("installed", RNG.uniform(0.2, 2.0), "stored", "small.json"),  # numpy, PyMC...
    "sampler": ("line:user: 4 chains", RNG.uniform(0.0, 0.7), "stored", "small.json"),
    "numba": ("line:pymc: 4 chains", RNG.uniform(0.3, 2.5), "nuts", "small.json"),
    "nuts": ("threads", RNG.uniform(0.0, 0.3), "nuts", "large.npz"),
    "summaries": ("line:pymc: done", RNG.uniform(0.0, 1.5), "stored", "small.json"),
    "writing": ("tmp:out", RNG.uniform(0.0, 0.9), "stored", "small.json"),  # SLOW_DISK: staged
}
HOW = {name: RNG.choice(SIGNALS) for name in COMPARE_MOMENTS}


def _compare_argv(user: Path, sampler: str, reference: str, data: str) -> list[str]:
    argv = ["compare", "--model", f"{user}/tiny.py:build_model", "--data", f"{user}/{data}"]
    argv += ["--sampler", f"{user}/exact.py:{sampler}", "--name", "tiny", "--out", "out"]
    argv += ["--reference", f"{user}/ref.nc"] if reference == "stored" else []
    return argv + SMALL + ["--no-cache"]


def _workdir(root: Path, name: str) -> Path:
    """A scenario's working directory: its TMPDIR, and out/ holding an old JSON and HTML."""
    cwd = root / name
    (cwd / "tmp").mkdir(parents=True)
    (cwd / "out").mkdir()
    for suffix in ("json", "html"):
        (cwd / "out" / f"tiny.{suffix}").write_text(OLD)
    return cwd


def _scenarios(user: Path, root: Path) -> dict[str, Scenario]:
    made = {}
    for name, (marker, delay, reference, data) in COMPARE_MOMENTS.items():
        cwd = _workdir(root, name)
        marker = marker.replace("tmp:out", f"tmp:{cwd / 'out'}")
        marker = marker.replace("new:out", f"new:{cwd / 'out'}")
        argv = _compare_argv(user, "sample", reference, data)
        command = SLOW_DISK if name == "writing" else ("-m", "mcmc_pairs")
        made[name] = Scenario(argv, marker, delay, *HOW[name], cwd, command)
    cwd = _workdir(root, "threads")
    argv = _compare_argv(user, "sample_leaving_a_thread", "stored", "small.json")
    made["threads"] = Scenario(argv, f"new:{cwd / 'out' / 'tiny.json'}", 0.0, 0, False, cwd)
    report = ["report", "--out", "out", "--no-cache"]
    made["report"] = Scenario(
        report,
        "line:chains x",
        RNG.uniform(0.5, 2.0),
        signal.SIGINT,
        True,
        _workdir(root, "report"),
    )
    validate = [
        "validate",
        "--model",
        f"{user}/tiny.py:build_model",
        "--data",
        f"{user}/small.json",
    ]
    validate += ["--sampler", f"{user}/exact.py:sample", "--method", "sbc", "--out", "out"]
    validate += ["--replications", "400", "--draws", "100", "--seed", "5"]
    made["validate"] = Scenario(
        validate, "line:replications", RNG.uniform(0.0, 0.5), signal.SIGINT, False,
        _workdir(root, "validate"),
    )  # fmt: skip
    return made


@pytest.fixture(scope="module")
def outcomes(user, tmp_path_factory):
    """Start every scenario now, four at a time; each test waits for its own."""
    scenarios = _scenarios(user, tmp_path_factory.mktemp("runs"))
    pool = ThreadPoolExecutor(max_workers=4)
    longest_first = ["nuts", "validate", "threads", "report", "writing", "summaries", "numba"]
    order = longest_first + [name for name in scenarios if name not in longest_first]
    futures = {name: pool.submit(scenarios[name].run) for name in order}
    yield scenarios, futures
    pool.shutdown(wait=True)


def _assert_interrupted(outcome: Outcome, cwd: Path) -> None:
    """Exit 130 soon after the signal, the line, no verdict, no process or temporary file left."""
    context = f"{outcome.stage}; stderr tail: {outcome.stderr[-5:]}"
    assert outcome.exit_s is not None, f"ended before the signal ({context})"
    assert outcome.returncode == 130, context
    assert outcome.exit_s < EXIT_WITHIN_S, context
    assert outcome.stderr[-1] == "mcmc-pairs: interrupted", context
    assert "verdict:" not in outcome.stdout, context
    assert outcome.tagged_after == [], f"processes left: {outcome.tagged_after} ({context})"
    assert outcome.left_at_signal == [], f"zombies left: {outcome.left_at_signal} ({context})"
    assert not list((cwd / "out").glob(".*.tmp")), context
    assert not [p.name for p in (cwd / "tmp").iterdir() if p.name.startswith("mcmc-pairs")]
    old = {p.suffix: p.read_text() == OLD for p in (cwd / "out").glob("tiny.*")}
    assert len(old) in (0, 2) and len(set(old.values())) <= 1, f"a half-replaced pair: {old}"


@pytest.mark.parametrize("name", list(COMPARE_MOMENTS))
def test_compare_interrupted_at_a_random_moment_ends_at_once_and_cleanly(outcomes, name):
    scenarios, futures = outcomes
    _assert_interrupted(futures[name].result(), scenarios[name].cwd)


def test_report_interrupted_by_ctrl_c_to_its_process_group_does_not_hang(outcomes):
    scenarios, futures = outcomes
    _assert_interrupted(futures["report"].result(), scenarios["report"].cwd)


def test_validate_interrupted_during_dask_replications_leaves_no_worker(outcomes):
    scenarios, futures = outcomes
    _assert_interrupted(futures["validate"].result(), scenarios["validate"].cwd)


def test_a_thread_the_sampler_leaves_running_ends_the_run_with_one_line(outcomes):
    outcome = outcomes[1]["threads"].result()
    assert outcome.returncode == 2, outcome.stderr[-3:]
    assert outcome.exit_s is not None and outcome.exit_s < 10, outcome.exit_s
    errors = [line for line in outcome.stderr if line.startswith("mcmc-pairs: error")]
    assert len(errors) == 1 and "'left-behind'" in errors[0], outcome.stderr[-3:]
    assert "verdict:" in outcome.stdout  # the run itself finished and said so
    assert outcome.tagged_after == []


def test_signal_to_exit_times(outcomes):
    """The measured time from the signal to the exit, printed for the record (pytest -s)."""
    times = {n: f.result().exit_s for n, f in outcomes[1].items() if n != "threads"}
    measured = [t for t in times.values() if t is not None]
    print(
        f"\nsignal to exit: median {statistics.median(measured):.2f} s, max {max(measured):.2f} s "
        f"over {len(measured)} runs: " + ", ".join(f"{n} {t:.2f}" for n, t in times.items() if t)
    )
    assert max(measured) < EXIT_WITHIN_S


# The checkpoints, in this process (where no watchdog ends it: they raise KeyboardInterrupt).


@pytest.fixture
def interrupted(monkeypatch):
    """This process as if SIGINT had come and a library had swallowed the KeyboardInterrupt."""
    monkeypatch.setitem(interrupts._owner, "pid", None)  # no watchdog here: check() raises
    interrupts._interrupted.set()
    yield
    interrupts._interrupted.clear()


def test_an_interrupted_run_commits_no_report_and_leaves_no_temporary_file(tmp_path, interrupted):
    from mcmc_pairs.comparisons.files import write_report

    for suffix in ("json", "html"):
        (tmp_path / f"tiny.{suffix}").write_text(OLD)
    with pytest.raises(KeyboardInterrupt):
        write_report(tmp_path, "tiny", {"verdict": "agree"}, "<p>new</p>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.html", "tiny.json"]
    assert {p.read_text() for p in tmp_path.iterdir()} == {OLD}
    assert not interrupts._temporary


def test_a_report_written_before_the_interrupt_is_whole(tmp_path):
    from mcmc_pairs.comparisons.files import write_report

    write_report(tmp_path, "tiny", {"verdict": "agree"}, "<p>new</p>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.html", "tiny.json"]
    assert not interrupts._temporary


def test_a_sampler_that_swallows_the_interrupt_does_not_reach_a_verdict(interrupted):
    from mcmc_pairs.comparisons.contract import call_sampler

    def swallowing(data, *, draws, tune, chains, random_seed):  # as nutpie: cut short, padded
        return {"mu": np.full((chains, draws), np.nan)}

    with pytest.raises(KeyboardInterrupt):
        call_sampler("swallowing", swallowing, {}, draws=3, tune=0, chains=2, random_seed=1)


def test_no_verdict_is_printed_after_an_interrupt(interrupted, capsys):
    from mcmc_pairs.comparisons import cli

    with pytest.raises(KeyboardInterrupt):
        cli._say_summary(None)  # stops before it reads anything
    assert capsys.readouterr().out == ""


def test_a_busy_thread_is_a_stray_an_idle_pool_worker_is_not():
    from mcmc_pairs.comparisons.execution import stray_threads

    stop = threading.Event()
    with ThreadPoolExecutor(1, thread_name_prefix="idle") as idle:
        idle.submit(int).result()  # its worker now waits for work
        busy = threading.Thread(target=stop.wait, name="busy")
        busy.start()
        try:
            assert stray_threads(wait=0.2) == ["busy"]
        finally:
            stop.set()
            busy.join()
        assert stray_threads(wait=0.2) == []


WRITER = """
import sys
from mcmc_pairs.comparisons import files, interrupts
interrupts.install()
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
        assert child.returncode == 130


# ------------------------------------------- a closed output (issue 39, item 5)


def _first_line_then_close(argv: list[str], both: bool) -> tuple[int, str]:
    """Run ``python -m mcmc_pairs ARGV | head -1`` (``2>&1`` too when ``both``): exit, line."""
    process = subprocess.Popen(
        [sys.executable, "-m", "mcmc_pairs", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if both else subprocess.DEVNULL,
        cwd=ROOT,
    )
    line = process.stdout.readline().decode()
    process.stdout.close()  # head has read its line and gone
    return process.wait(timeout=120), line


def test_a_closed_output_ends_compare_with_141_and_leaves_the_old_report(user, tmp_path):
    """``compare ... 2>&1 | head -1``: the first progress line is read, the pipe closed.

    Before, the next progress line raised ``BrokenPipeError`` inside the run. Now
    the run ends at that write with 141 and writes no report. (With stdout alone
    piped, the run writes its report and then its summary, which fits in the
    pipe's buffer: a whole run, its verdict's exit status.)
    """
    out = tmp_path / "out"
    out.mkdir()
    for suffix in ("json", "html"):
        (out / f"tiny.{suffix}").write_text(OLD)
    argv = [
        "compare", "--model", f"{user}/tiny.py:build_model", "--data", f"{user}/small.json",
        "--sampler", f"{user}/exact.py:sample", "--name", "tiny", "--no-cache",
        "--out", str(out), *SMALL,
    ]  # fmt: skip
    code, line = _first_line_then_close(argv, both=True)
    assert line and code == interrupts.EXIT_OUTPUT_CLOSED
    assert sorted(p.name for p in out.iterdir()) == ["tiny.html", "tiny.json"]
    assert {p.read_text() for p in out.iterdir()} == {OLD}  # no report, no temporary file


def test_a_closed_output_does_not_turn_validate_replications_into_errors(tmp_path):
    """``validate ... 2>&1 | head -1`` was exit 1 and an ``error`` report over the ``pass``."""
    out = tmp_path / "out"
    argv = ["validate", "regression", "--method", "sbc", "--replications", "20", "--out", str(out)]
    code, _ = _first_line_then_close(argv, both=True)
    assert code == interrupts.EXIT_OUTPUT_CLOSED
    assert not out.exists() or not any(out.iterdir())


def test_without_the_policy_a_closed_output_is_a_broken_pipe_error():
    """In a library's process (no :func:`interrupts.install`), the error stays the caller's."""

    class Closed:
        def write(self, text):
            raise BrokenPipeError

        flush = write

    guarded = interrupts._Guarded(Closed())
    with pytest.raises(BrokenPipeError):
        guarded.write("x")
    interrupts._interrupted.clear()


def test_child_processes_the_sampler_leaves_running_are_ended_with_one_line(user, tmp_path):
    """Issue 39: ``compare ... | tail`` hung on a child holding stdout; a non-daemon
    multiprocessing child kept the program alive after ``agree`` was written."""
    tag = uuid.uuid4().hex
    argv = [
        sys.executable, "-m", "mcmc_pairs", "compare", "--model", f"{user}/tiny.py:build_model",
        "--data", f"{user}/small.json", "--sampler", f"{user}/exact.py:sample_leaving_processes",
        "--no-cache", "--out", str(tmp_path), *SMALL,
    ]  # fmt: skip
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        env={**os.environ, TAG: tag},
    )  # fmt: skip
    out, err = process.communicate(timeout=120)  # EOF on both: no child holds them
    assert process.returncode == 2
    assert "mcmc-pairs: error: the run left process(es)" in err.decode()
    assert "verdict:" in out.decode()  # the run itself ended: its report is written
    assert not _still_there(_tagged(tag))


def test_a_sampler_that_ignores_sigterm_cannot_drop_the_runs_sigterm(user, tmp_path):
    """Issue 39: the sampler's SIG_IGN dropped SIGTERM; the run ended ``agree``, exit 0."""
    started = tmp_path / "started"
    argv = [
        sys.executable, "-m", "mcmc_pairs", "compare", "--model", f"{user}/tiny.py:build_model",
        "--data", f"{user}/small.json", "--sampler", f"{user}/exact.py:sample_ignoring_sigterm",
        "--no-cache", "--out", str(tmp_path / "out"), *SMALL,
    ]  # fmt: skip
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "SAMPLER_STARTED": str(started)},
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists()
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=EXIT_WITHIN_S + 3)
    assert process.returncode == interrupts.EXIT_INTERRUPTED
    assert "mcmc-pairs: interrupted" in err.decode() and "verdict" not in out.decode()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGQUIT])
def test_a_closed_terminal_or_ctrl_backslash_ends_a_run_under_the_policy(signum):
    """Issue 39: SIGHUP or SIGQUIT ended the process at once, leaving ``report``'s workers
    and a cache write's temporary file; now they go through the policy (exit 130), unless
    the process started with them ignored (``nohup``)."""
    code = (
        "import time; from mcmc_pairs.comparisons import interrupts; interrupts.install(); "
        "exec('with interrupts.kept_handlers(): pass')\n"  # a sampler's call: nohup's stays
        "print('ready', flush=True); time.sleep(30)"
    )

    def start(ignored: bool) -> subprocess.Popen:
        def disposition():  # whatever this test inherits (CI's jobs run under nohup, or with &)
            signal.signal(signum, signal.SIG_IGN if ignored else signal.SIG_DFL)

        process = subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=disposition,
        )  # fmt: skip
        assert process.stdout.readline() == b"ready\n"
        return process

    policy = start(ignored=False)
    policy.send_signal(signum)
    assert policy.wait(timeout=EXIT_WITHIN_S) == interrupts.EXIT_INTERRUPTED
    assert b"mcmc-pairs: interrupted" in policy.stderr.read()
    nohup = start(ignored=True)
    nohup.send_signal(signum)
    with pytest.raises(subprocess.TimeoutExpired):
        nohup.wait(timeout=1.0)  # still running: the signal stays ignored
    nohup.terminate()
    assert nohup.wait(timeout=EXIT_WITHIN_S) == interrupts.EXIT_INTERRUPTED
    for process in (policy, nohup):
        process.stdout.close(), process.stderr.close()
