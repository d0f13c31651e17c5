"""THE interrupt policy of mcmc-pairs: SIGINT and SIGTERM (SIGHUP, SIGQUIT) end a run, exit 130.

Whatever the run is doing when the signal comes (importing, a user's
sampler, NUTS inside nutpie, numba compiling, summaries, writing, waiting on
``report``'s workers or Dask's), the process ends within a few seconds with
status 130 and ``mcmc-pairs: interrupted`` on stderr; no verdict is printed,
no report is half written, no temporary file and no child process is left.

How:

* :func:`install` (first thing in ``python -m mcmc_pairs``, in ``cli.program``
  and in each ``report`` worker) points SIGINT and SIGTERM at a handler and
  starts a daemon **watchdog** thread woken by the signal itself
  (:func:`signal.set_wakeup_fd`: the C-level handler writes to it even while
  the main thread is stuck in C code, or when a library swallows the
  interrupt, as nutpie and PyMC do, returning a partial trace padded with
  NaN, or numba, printing "Exception ignored"). The watchdog and the
  handler (in the main thread) both call :func:`shutdown`; the first one
  ends the process, the other waits. The main thread stops where it is:
  nothing after the signal runs to its end.
* :func:`shutdown` takes the commit lock, ends every descendant process
  (SIGTERM, then SIGKILL after :data:`TERM_WAIT_S`; every one reaped, orphans
  included, as this process becomes their subreaper; Dask's nannies told not
  to restart their workers; multiprocessing's resource tracker last, left to
  clean up), removes the registered temporary files (:func:`register`),
  prints the line and leaves with ``os._exit(130)``.
* Commits are all or nothing: :func:`critical` holds the commit lock with
  the interrupt deferred to its end, and refuses to start once the run is
  interrupted, so a JSON and its HTML are renamed into place together or
  not at all (``comparisons/files.py``), and no temporary file is created or
  removed unseen by :func:`shutdown`.
* :func:`check` ends the process once the run is interrupted (or raises
  ``KeyboardInterrupt`` where :func:`install` did not run): called after the
  calls that may swallow an interrupt (PyMC's and a user's sampler) and
  before the verdict is printed, for the moments before the watchdog has
  ended the process.

A closed output ends a run the same way, with status 141 (:func:`guard_output`): a
write to a stdout or stderr whose reader has gone (``... 2>&1 | head -1``) ends
the process, and no commit starts once the reader is gone.

Not covered: a signal before ``mcmc_pairs`` is imported (the interpreter's
own start, about a tenth of a second: Python's defaults apply), and a main
thread that holds the GIL in C code for good (the watchdog needs the GIL).
"""

from __future__ import annotations

# ctypes, multiprocessing.util and psutil are loaded with this module, never while ending
# the process: a SIGTERM can arrive while the main thread is inside an import (a fresh pool
# worker importing numpy), and an import in the handler's path would wait forever for the
# import lock that import holds (a report pool's worker killed that way hung the pool's
# shutdown: test_cli's dying-worker test).
import contextlib
import ctypes
import errno
import multiprocessing.util  # noqa: F401
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, NoReturn, NotRequired, TextIO, TypedDict

try:
    import psutil
except ImportError:  # a checkout imported without its dependencies (tests/test_package.py)
    psutil = None  # type: ignore[assignment]

EXIT_INTERRUPTED = 130
EXIT_OUTPUT_CLOSED = 128 + signal.SIGPIPE
"""The status of a run whose stdout or stderr was closed (``compare ... | head -1``): 141, as
a shell reports a process that SIGPIPE ended (Python ignores SIGPIPE, so it is set here)."""
OUTPUT_CLOSED = b"mcmc-pairs: output closed (its reader has gone): ended, nothing written\n"
MESSAGE = b"mcmc-pairs: interrupted\n"
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
"""The signals that end a run under the policy: Ctrl-C, kill, a closed terminal, Ctrl-\\
(SIGHUP and SIGQUIT would otherwise end it at once, leaving temporary files and workers)."""
IGNORABLE = (signal.SIGHUP, signal.SIGQUIT)
"""Signals left ignored when the process starts with them ignored (``nohup``)."""
TERM_WAIT_S = 1.5
"""Seconds a child has to end after SIGTERM before it is killed."""
QUIET_ROUNDS = 5
"""Checks 20 ms apart that must find no child before the children count as ended (a Dask
nanny starts a new worker when its worker dies)."""
SECOND_WAIT_S = 4.0
"""Seconds a second caller of :func:`shutdown` waits for the first to end the process."""
LOCK_WAIT_S = 1.0
"""Seconds :func:`shutdown` waits for a commit in progress (renames take microseconds)."""
_SignalHandler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
"""What ``signal.signal`` takes and returns: a function, ``SIG_DFL``/``SIG_IGN`` or None."""

_lock = threading.RLock()  # the commit lock; shutdown takes it and never gives it back
_once = threading.Lock()
_interrupted = threading.Event()
_temporary: set[str] = set()
_deferred = 0  # the main thread's depth in critical sections


class _Owner(TypedDict):
    """The process under the policy: its pid, its watchdog's pipe (read, write), its line."""

    pid: int | None
    pipe: tuple[int, int] | None
    message: bytes
    skip_teardown: NotRequired[bool]


_owner: _Owner = {"pid": None, "pipe": None, "message": MESSAGE}
# the thread ending the process: a signal then changes nothing
_ending: dict[str, int | None] = {"thread": None}


def install(*, announce: bool = True) -> None:
    """Put this process under the policy: SIGINT and SIGTERM end it (see the module).

    A closed stdout or stderr ends it too, with :data:`EXIT_OUTPUT_CLOSED`
    (:func:`guard_output`).

    Idempotent; does nothing outside the main thread (signal handlers can only
    be set there: the caller's own handlers then stay). ``announce=False``
    (``report``'s workers) leaves the line on stderr to the parent.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    _owner["message"] = MESSAGE if announce else b""
    pipe = _owner["pipe"] if _owner["pid"] == os.getpid() else None  # both set together
    start = pipe is None
    if pipe is None:
        pipe = os.pipe()
        os.set_blocking(pipe[1], False)
        _owner["pid"], _owner["pipe"] = os.getpid(), pipe
    signal.set_wakeup_fd(pipe[1], warn_on_full_buffer=False)
    for signum in SIGNALS:  # before the watchdog starts: the handler alone can end the process
        if signum in IGNORABLE and signal.getsignal(signum) is signal.SIG_IGN:
            continue  # nohup's SIGHUP stays ignored
        signal.signal(signum, _handler)
    guard_output()
    if start:
        watchdog = threading.Thread(target=_watch, args=(pipe[0],), name="mcmc-pairs-watchdog")
        watchdog.daemon = True
        watchdog.start()


def _handler(signum: int, frame: FrameType | None) -> None:
    """End the process from the main thread (after the critical section it is in, if any)."""
    _interrupted.set()
    pipe = _owner["pipe"]
    if _owner["pid"] == os.getpid() and pipe is not None:  # wake the watchdog, if a library
        with contextlib.suppress(OSError):  # replaced the wakeup fd
            os.write(pipe[1], bytes([signum]))
    if not _deferred and _ending["thread"] != threading.get_ident():  # not while it ends it
        _stop()  # the watchdog may be ending the process already: then this thread waits


def _stop() -> None:
    """End the process (:func:`shutdown`); without a watchdog here, raise ``KeyboardInterrupt``."""
    if _owner["pid"] == os.getpid():
        shutdown()
    raise KeyboardInterrupt


def _watch(read: int) -> None:
    """Wait for SIGINT or SIGTERM (woken by the signal itself), then end the process."""
    while True:
        data = os.read(read, 64)
        if not data:  # the pipe was closed: nothing to watch
            return
        if any(byte in SIGNALS for byte in data):
            break
    _interrupted.set()
    shutdown()


def _forget_after_fork() -> None:
    """Detach a forked child from its parent's watchdog: its signals must not wake it."""
    pipe, _owner["pipe"], _owner["pid"] = _owner["pipe"], None, None
    if pipe is None:
        return
    with contextlib.suppress(ValueError):  # forked from another thread: not allowed, not needed
        old = signal.set_wakeup_fd(-1)
        if old not in pipe:  # not ours: put it back
            signal.set_wakeup_fd(old)
    for fd in pipe:
        with contextlib.suppress(OSError):
            os.close(fd)


os.register_at_fork(after_in_child=_forget_after_fork)


@contextlib.contextmanager
def kept_handlers() -> Iterator[None]:
    """Within the block (a user's sampler running), SIGINT and SIGTERM keep the policy's handlers.

    A sampler that calls ``signal.signal(SIGTERM, SIG_IGN)`` made the kernel
    drop the run's SIGTERM: the run went on to ``agree``, exit 0. For the block,
    ``signal.signal`` leaves SIGINT and SIGTERM as they are (it returns their
    handler and changes nothing; other signals pass); after it, the policy's
    handlers are put back, whatever C code did meanwhile. A sampler that bound
    ``signal.signal`` before the run, or sets handlers from C, can still drop a
    signal that comes while its handler is in place. Does nothing where
    :func:`install` did not run, or outside the main thread.
    """
    mine = _owner["pid"] == os.getpid() and threading.current_thread() is threading.main_thread()
    if not mine:
        yield
        return
    original = signal.signal
    ours = [signum for signum in SIGNALS if signal.getsignal(signum) is _handler]  # not nohup's

    def keep(signalnum: int | signal.Signals, handler: _SignalHandler) -> _SignalHandler:
        if signalnum in SIGNALS:
            return signal.getsignal(signalnum)
        return original(signalnum, handler)

    signal.signal = keep
    try:
        yield
    finally:
        signal.signal = original
        for signum in ours:
            if signal.getsignal(signum) is not _handler:
                original(signum, _handler)


def guard_output() -> None:
    """Make a closed stdout or stderr end the run as a signal does, with status 141.

    ``validate ... 2>&1 | head -1`` closes the pipe after one line: the next
    progress line raised ``BrokenPipeError`` inside a replication, which was
    counted as a failed replication, and an ``error`` report replaced the
    previous one. Now a write or flush that finds the reader gone ends the
    process (:func:`output_closed`), and no commit starts once it is gone
    (:func:`critical` asks :func:`reader_gone`): a closed output never changes
    a verdict or a file.
    """
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name, None)
        if stream is not None and not isinstance(stream, _Guarded):
            setattr(sys, name, _Guarded(stream))


class _Guarded:
    """A text stream whose ``BrokenPipeError`` ends the run (:func:`output_closed`)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            output_closed()

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            output_closed()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def output_closed() -> NoReturn:
    """End the run because its output was closed: :func:`shutdown` with status 141.

    Where :func:`install` did not run, raise ``BrokenPipeError`` instead.
    """
    _interrupted.set()
    if _owner["pid"] == os.getpid():
        shutdown(EXIT_OUTPUT_CLOSED, OUTPUT_CLOSED)
    raise BrokenPipeError(errno.EPIPE, "output closed")


def reader_gone() -> bool:
    """Return True when stdout or stderr is a pipe whose reader has gone (``POLLERR``)."""
    import select

    poller = select.poll()
    for fd in (1, 2):
        with contextlib.suppress(ValueError, OSError):
            poller.register(fd, 0)  # POLLERR and POLLHUP are always reported
    return any(event & select.POLLERR for _, event in poller.poll(0))


def skip_teardown() -> None:
    """Have :func:`end_program` leave without the interpreter's teardown.

    After nutpie fails to start (no initial point with a finite log density),
    its Rust threads crash the interpreter's final garbage collection with a
    segmentation fault (exit 139) after the run has said what went wrong.
    """
    _owner["skip_teardown"] = True


def end_program(status: int) -> NoReturn:
    """Exit with ``status``: normally, or, after :func:`skip_teardown`, at once (flushed)."""
    if not _owner.get("skip_teardown"):
        sys.exit(status)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def interrupted() -> bool:
    """Return True once SIGINT or SIGTERM has come."""
    return _interrupted.is_set()


def check() -> None:
    """End the process if it was interrupted (an interrupt a library swallowed).

    Where :func:`install` ran, this is :func:`shutdown`; elsewhere (a forked
    child, a library's caller) it raises ``KeyboardInterrupt``.
    """
    if _interrupted.is_set():
        _stop()


@contextlib.contextmanager
def critical(*, commit: bool = True) -> Iterator[None]:
    """Run the block whole or not at all: under the commit lock, interrupts deferred to its end.

    With ``commit`` (renames into place), an interrupted run does not enter
    the block, and an interrupt that came meanwhile takes effect at its end
    (:func:`check`). Without it (creating or removing a temporary file, which
    must be registered or gone whatever happens), the block always runs and
    the watchdog alone ends the process.
    """
    global _deferred
    main = threading.current_thread() is threading.main_thread()
    _lock.acquire()
    if commit and _interrupted.is_set():
        _lock.release()
        _stop()
    if commit and _owner["pid"] == os.getpid() and reader_gone():
        _lock.release()
        output_closed()  # a closed output must not leave a report behind (guard_output)
    _deferred += main
    try:
        yield
    finally:
        _deferred -= main
        _lock.release()
    if main and commit:
        check()


def register(path: str | os.PathLike) -> None:
    """Have :func:`shutdown` remove ``path`` (a temporary file); call in :func:`critical`."""
    _temporary.add(os.fspath(path))


def unregister(path: str | os.PathLike) -> None:
    """Forget ``path``: renamed into place or removed; call in :func:`critical`."""
    _temporary.discard(os.fspath(path))


def discard(path: str | os.PathLike) -> None:
    """Remove the temporary file ``path`` (if it is there) and forget it."""
    with critical(commit=False):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        unregister(path)


def shutdown(status: int = EXIT_INTERRUPTED, message: bytes | None = None) -> NoReturn:
    """End the process now: children ended and reaped, temporary files removed, ``status``.

    Never returns. A second caller (the main thread and the watchdog both
    come here) waits for the first to end the process, at most
    :data:`SECOND_WAIT_S` seconds.
    """
    if not _once.acquire(timeout=SECOND_WAIT_S):  # the other caller is ending it; if it
        _exit(status, message)  # is stuck (frozen by the interpreter's exit), end it here
    _ending["thread"] = threading.get_ident()
    _lock.acquire(timeout=LOCK_WAIT_S)  # a commit in progress ends first; held for good
    try:
        end_children()
    except Exception:  # noqa: BLE001 - the exit below must happen whatever failed here
        pass
    _exit(status, message)


def _exit(status: int, message: bytes | None) -> NoReturn:
    """Remove the registered temporary files, print the line, end the process."""
    for path in list(_temporary):
        with contextlib.suppress(OSError):
            os.unlink(path)
    with contextlib.suppress(OSError):
        os.write(2, _owner["message"] if message is None else message)
    os._exit(status)


def end_children(wait: float = TERM_WAIT_S) -> None:
    """End every descendant process: SIGTERM, SIGKILL after ``wait`` s, all reaped.

    This process first becomes a subreaper (Linux), so a grandchild whose
    parent dies comes here to be ended and reaped instead of to init, and a
    process started meanwhile (a Dask nanny restarting its worker) is ended
    too. multiprocessing's resource tracker ignores signals: it goes last,
    when this process's semaphores are removed and its pipe closed.
    """
    _become_subreaper()
    _no_restarts()
    tracker = _resource_tracker()
    _end(lambda: [p for p in _descendants() if p.pid != tracker], wait)
    if tracker is not None:
        _close_tracker()
        _end(lambda: [p for p in _descendants() if p.pid == tracker], 1.0, signum=None)
    _end(_descendants, 0.0)  # one started meanwhile: killed at once


def _end(
    find: Callable[[], list[psutil.Process]], wait: float, signum: int | None = signal.SIGTERM
) -> None:
    """Send ``signum`` to what ``find()`` lists, SIGKILL after ``wait`` s; reap every one.

    Returns when all are gone (a zombie counts as gone: reaped here when it
    is a child) or half a second after the SIGKILL.
    """
    deadline, killed, quiet = time.monotonic() + wait, False, 0
    signalled: set[int] = set()
    while True:
        _reap()
        alive: list[psutil.Process] = []
        for process in find():
            with contextlib.suppress(psutil.Error):
                if process.status() != psutil.STATUS_ZOMBIE:
                    alive.append(process)
        late = time.monotonic() >= deadline
        quiet = 0 if alive else quiet + 1
        if quiet >= QUIET_ROUNDS or late and killed:  # none for a while: no restart coming
            return
        for process in alive:
            with contextlib.suppress(psutil.Error):
                if late:
                    process.kill()
                elif signum is not None and process.pid not in signalled:
                    process.send_signal(signum)
                    signalled.add(process.pid)
        if late:
            killed, deadline = True, time.monotonic() + 0.5
        time.sleep(0.02)


def children() -> list[psutil.Process]:
    """Return this process's live descendants but multiprocessing's resource tracker.

    ``psutil.Process`` objects; ended ones are reaped first (a zombie is not live).
    """
    _reap()
    tracker = _resource_tracker()
    live: list[psutil.Process] = []
    for child in _descendants():
        with contextlib.suppress(psutil.Error):
            if child.pid != tracker and child.status() != psutil.STATUS_ZOMBIE:
                live.append(child)
    return live


def process_name(process: psutil.Process) -> str:
    """Return a process's command line, shortened, for a message (its name if unreadable)."""
    with contextlib.suppress(psutil.Error):
        line = " ".join(process.cmdline()) or process.name()
        return line if len(line) <= 60 else line[:57] + "..."
    return "?"


def _descendants() -> list[psutil.Process]:
    with contextlib.suppress(psutil.Error):
        return psutil.Process().children(recursive=True)
    return []


def _reap() -> None:
    """Reap every child that has ended (ours, and orphans adopted as their subreaper)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _no_restarts() -> None:
    """Mark this process's Dask nannies closing: a nanny restarts a worker that dies, else."""
    import sys

    nanny, core = sys.modules.get("distributed.nanny"), sys.modules.get("distributed.core")
    if nanny is None or core is None:
        return
    for instance in list(getattr(nanny.Nanny, "_instances", ())):
        with contextlib.suppress(Exception):
            instance.status = core.Status.closing


def _become_subreaper() -> None:
    """Adopt orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``); elsewhere nothing."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _resource_tracker() -> int | None:
    """Return the pid of multiprocessing's resource tracker, if this process started one."""
    import sys

    module = sys.modules.get("multiprocessing.resource_tracker")
    return getattr(getattr(module, "_resource_tracker", None), "_pid", None)


def _close_tracker() -> None:
    """Remove this process's semaphores, close its end of the tracker's pipe: the tracker exits.

    (What the interpreter's exit would do; without it the tracker warns of
    leaked semaphores.)
    """
    import sys

    util = sys.modules.get("multiprocessing.util")
    for finalizer in list(getattr(util, "_finalizer_registry", {}).values()):
        callback = getattr(finalizer, "_callback", None)
        if getattr(callback, "__qualname__", "") == "SemLock._cleanup":
            with contextlib.suppress(Exception):
                finalizer()
    tracker = sys.modules["multiprocessing.resource_tracker"]._resource_tracker
    with contextlib.suppress(OSError, TypeError):
        os.close(tracker._fd)
