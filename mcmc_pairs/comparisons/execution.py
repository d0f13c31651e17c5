"""Work the harness runs outside the calling thread, and the policy it runs it under.

The policy, in one place:

* **Fresh interpreters by default.** A child process is a spawned (fresh)
  interpreter, so it inherits none of the parent's threads (numba's, BLAS's,
  PyMC's): ``report``'s workers (:func:`spawned_pool`), the summaries' child
  (:class:`ChildInterpreter`) and Dask's workers (:func:`open_client`, used by
  ``comparisons/parallel.py`` for replications).
* **Fork only for what cannot be re-imported.** A sampler under a timeout
  (:func:`call_in_fork`) may be a function loaded from a user's file, which a
  fresh interpreter could not import by name; the forked child runs that one
  call and nothing else, so the threads fork does not copy are not needed.
* **Cores and niceness.** ``report`` runs one worker per available core
  (:func:`available_cores`, which also decides the summaries' child and nutpie's
  chains), every pair but the longest at niceness +5; Dask runs one
  single-threaded worker per core; every replication and the energy check
  run on one BLAS thread, so no number depends on how many there are.
* **Timeouts.** A hand-written sampler has one (``--timeout``): its child
  is killed when the time is up, and the run ends with an error naming it.
  Nothing else is waited on for ever: the summaries' child is given up on
  (:meth:`ChildInterpreter.result`), a ``--scheduler`` is probed before Dask
  connects (:func:`probe_scheduler`) and replications on Dask end with exit 2
  when the cluster has no worker or makes no progress
  (``comparisons/parallel.py``).
* **Failures.** A child that raises, dies or overruns is an error named with
  what it ran (:class:`ChildFailed`), except where the child only shares work
  the caller can do itself (the summaries): then the caller does it, and the
  result is the same (:meth:`ChildInterpreter.result`). No failure is dropped
  silently.
* **Interrupts.** One policy, ``comparisons/interrupts.py``: SIGINT and
  SIGTERM at any moment end the process within seconds, exit 130. Every
  descendant process (``report``'s workers and their children, Dask's
  workers, the summaries' child, a forked sampler, multiprocessing's resource
  tracker) is ended and reaped, every temporary file removed, and no report
  is committed half-way. ``report``'s workers run under the same policy
  (their initializer installs it), and the parent never waits on a broken
  pool: it ends its workers itself.
* **Threads a sampler leaves.** After the run, :func:`stray_threads` waits at
  most :data:`STRAY_THREAD_WAIT_S` for the non-daemon threads still running
  (idle worker threads of a thread pool excepted: the interpreter ends them);
  ``cli.program`` names the ones left and ends with exit 2 instead of hanging.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import socket
    import threading
    from collections.abc import Collection
    from multiprocessing.connection import Connection

    from dask.distributed import Client, LocalCluster

from mcmc_pairs.comparisons import interrupts
from mcmc_pairs.comparisons.errors import one_line

SYNCHRONOUS = "synchronous"
"""``scheduler`` value that runs every replication in this process, without Dask."""
CONNECT_TIMEOUT_S = 5
"""Seconds to wait for an existing Dask scheduler before giving up."""
DEFAULT_WORKERS = 2
CHILD_WAIT_FLOOR_S = 60.0
"""Seconds :meth:`ChildInterpreter.result` waits for a child at least."""
CHILD_WAIT_FACTOR = 4.0
"""A child whose share of the work takes this many times the caller's is given up on."""
STRAY_THREAD_WAIT_S = 3.0
"""Seconds the end of a run waits for the non-daemon threads a sampler left running."""


def available_cores() -> int:
    """Return how many processors this process may run on (at least 1).

    The harness's count (``report``'s workers, the summaries' child, nutpie's
    chains). The hand-written samplers count their threads' cores themselves
    (``handrolled._common.available_cores``): a sampler package stands alone and
    imports nothing of the harness.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@contextmanager
def spawned_pool(workers: int, initializer: Callable[[], None]) -> Iterator[ProcessPoolExecutor]:
    """Yield a pool of ``workers`` fresh interpreters, each set up by ``initializer``.

    Leaving the block normally waits for the pool. An interrupt goes on up at
    once, without waiting for the pool: :func:`~.interrupts.shutdown` ends the
    workers (each removes what it was writing) and everything they started.
    Another exception cancels what has not started and ends the workers first.
    """
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no inherited threads
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=initializer)
    try:
        yield pool
    except KeyboardInterrupt:  # no wait on a pool that may be broken: the shutdown ends it
        raise
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        for child in multiprocessing.active_children():
            child.terminate()
        raise
    pool.shutdown()


def stray_threads(
    wait: float = STRAY_THREAD_WAIT_S, ignore: Collection[threading.Thread] = frozenset()
) -> list[str]:
    """Return the names of the non-daemon threads still running after ``wait`` seconds.

    The main thread, daemon threads, the threads in ``ignore`` and idle
    workers of thread pools (``concurrent.futures``: the interpreter ends
    those at exit, as the hand-rolled samplers' chain pools) do not count; a
    pool's worker busy with a task does. Returns at once when there is none.
    """
    import threading
    import time

    deadline = time.monotonic() + wait
    while True:
        left = [t for t in threading.enumerate() if t not in ignore and _keeps_process_alive(t)]
        if not left or time.monotonic() >= deadline:
            return [t.name for t in left]
        left[0].join(min(0.1, max(0.0, deadline - time.monotonic())))


def _keeps_process_alive(thread: threading.Thread) -> bool:
    """Return True for a non-daemon thread the interpreter would wait for at exit."""
    import threading
    from concurrent.futures import thread as pool_thread

    if thread.daemon or thread is threading.main_thread() or not thread.is_alive():
        return False
    frame = None if thread.ident is None else sys._current_frames().get(thread.ident)
    return frame is None or frame.f_code is not pool_thread._worker.__code__  # idle: waits there


class ChildFailed(Exception):
    """A child process raised, died or overran its time; the message says which."""


class ChildTimedOut(ChildFailed):
    """A child process overran its time and was stopped: ``"did not finish within ... s"``."""


def call_in_fork(target: Callable[[], Any], timeout: float) -> Any:
    """Return ``target()`` computed in a forked child, killed after ``timeout`` seconds.

    ``target`` is not pickled (the child is a fork of this process); its
    return value is, on the way back.

    Raises
    ------
    ChildTimedOut
        A :class:`ChildFailed`, ``"did not finish within ... s"``.
    ChildFailed
        ``"died without returning (exit code N)"``, or ``"raised Type: message"``
        for what ``target`` raised.
    """
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_forked, args=(send, target), daemon=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: see above
        child.start()
    send.close()
    try:
        if not receive.poll(timeout):
            raise ChildTimedOut(f"did not finish within {timeout:g} s")
        try:
            kind, payload = receive.recv()
        except EOFError:
            child.join()
            raise ChildFailed(f"died without returning (exit code {child.exitcode})") from None
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receive.close()
    if kind == "error":
        raise ChildFailed(f"raised {payload}")
    return payload


def _forked(send: Connection, target: Callable[[], Any]) -> None:
    """Run ``target`` in the forked child; send back ``("ok", value)`` or the error."""
    try:
        send.send(("ok", target()))
    except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
        send.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        send.close()


class ChildInterpreter:
    """``python -m module PAYLOAD_FILE`` in a fresh interpreter, started on entry.

    The payload travels pickled through a temporary file, the result pickled
    on the child's stdout (the module's ``__main__`` reads the one and writes
    the other). Leaving the block kills a child still running and removes the
    file.
    """

    def __init__(self, module: str, payload: Any):
        self.module, self.payload = module, payload

    def __enter__(self) -> ChildInterpreter:
        import mcmc_pairs

        with interrupts.critical(commit=False):  # an interrupt removes it from here on
            fd, self.path = tempfile.mkstemp(prefix="mcmc-pairs-child-", suffix=".pickle")
            interrupts.register(self.path)
        with os.fdopen(fd, "wb") as f:
            pickle.dump(self.payload, f, protocol=pickle.HIGHEST_PROTOCOL)
        root = os.path.dirname(os.path.dirname(os.path.abspath(mcmc_pairs.__file__)))
        path = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module, self.path],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": path},
        )
        self.started = time.monotonic()
        return self

    def result(self, instead: Callable[[], Any], timeout: float | None = None) -> Any:
        """Return the child's result; ``instead()`` when it failed, overran or wrote something else.

        For work the caller can do itself: a child that exits non-zero, does
        not finish within ``timeout`` seconds (default :meth:`patience`; it is
        killed), or whose stdout is not a whole pickle (cut short, or written to
        by someone else), costs time, never a different answer.
        """
        try:
            out, _ = self.process.communicate(
                timeout=self.patience() if timeout is None else timeout
            )
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.communicate()
            return instead()
        if self.process.returncode != 0:
            return instead()
        try:
            return pickle.loads(out)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
            return instead()

    def patience(self) -> float:
        """Return the seconds :meth:`result` waits from now.

        :data:`CHILD_WAIT_FACTOR` times the time since the child started (the
        caller did its own share meanwhile), at least :data:`CHILD_WAIT_FLOOR_S`.
        """
        return max(CHILD_WAIT_FLOOR_S, CHILD_WAIT_FACTOR * (time.monotonic() - self.started))

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        interrupts.discard(self.path)


def open_client(
    scheduler: str | None, *, workers: int = DEFAULT_WORKERS
) -> tuple[Client | None, LocalCluster | None]:
    """Return a Dask client (and the LocalCluster it owns, or ``None``).

    Parameters
    ----------
    scheduler : str or None
        ``None``: a new LocalCluster of ``workers`` single-threaded processes;
        :data:`SYNCHRONOUS`: no client (run in this process); otherwise the
        address of an existing scheduler (``tcp://host:port`` or ``host:port``),
        which :func:`probe_scheduler` checks before Dask connects.
    workers : int

    Raises
    ------
    ValueError
        If the address is not ``tcp://``, nothing answers there like a Dask
        scheduler within :data:`PROBE_TIMEOUT_S` seconds, or the client cannot
        connect within :data:`CONNECT_TIMEOUT_S` seconds.
    """
    if scheduler == SYNCHRONOUS:
        return None, None
    if scheduler is not None:
        probe_scheduler(scheduler)
    from dask.distributed import Client, LocalCluster

    if scheduler is None:
        import dask

        # Dask's statistical profiler samples every worker's stack 100 times a second for the
        # dashboard: about a seventh of a small validation's worker time, and nobody reads it here.
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # any free port: never clash with another cluster
                silence_logs=logging.CRITICAL,
            )
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout=CONNECT_TIMEOUT_S), None
    except Exception as exc:  # noqa: BLE001 - whatever Dask raises: one line, exit 2
        raise ValueError(
            f"--scheduler {scheduler!r}: cannot connect within {CONNECT_TIMEOUT_S} s "
            f"({type(exc).__name__}: {one_line(exc)[:160]})"
        ) from None


PROBE_TIMEOUT_S = 5.0
"""Seconds :func:`probe_scheduler` waits to connect, and then for the scheduler's first bytes."""
MAX_HANDSHAKE_BYTES = 1 << 24
"""The largest first message a Dask scheduler plausibly sends (its handshake is a few
hundred bytes; a length beyond this is not Dask's framing)."""
MAX_HANDSHAKE_FRAMES = 1 << 10
"""The most frames a Dask scheduler's first message plausibly has."""
HTTP_PROBE = b"HEAD / HTTP/1.0\r\n\r\n"
"""Sent to a server that stayed silent (a Dask scheduler speaks first): an HTTP server
answers it, which names it."""


def probe_scheduler(
    address: str, timeout: float | None = None, *, name: str = "--scheduler"
) -> None:
    """Check that a Dask scheduler answers at ``address``, with a plain socket and a timeout.

    A Dask scheduler writes its handshake as soon as a client connects: a
    message in Dask's TCP framing (``distributed/comm/tcp.py``: a little-endian
    uint64 total length, then the uint64 count of frames and their lengths, then
    the frames). Nothing within ``timeout`` (default :data:`PROBE_TIMEOUT_S`)
    is no Dask scheduler; bytes that are not that framing (an HTTP reply, a
    banner) are not a Dask scheduler, and an HTTP server is named as such.

    Raises
    ------
    ValueError
        One line naming ``name`` (where the address came from: the flag, or
        ``$MCMC_PAIRS_SCHEDULER``): an unsupported scheme, no port, refused or
        unreachable, silent, or not Dask.
    """
    import socket

    timeout = PROBE_TIMEOUT_S if timeout is None else timeout
    host, port = scheduler_host_port(address, name=name)
    where = f"{name} {address!r}"
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else exc.strerror or str(exc)
        raise ValueError(f"{where}: cannot connect within {timeout:g} s ({reason})") from None
    with sock:
        first = _receive(sock, 16, timeout)
        if not first:
            sock.sendall(HTTP_PROBE)  # not Dask (it would have spoken): is it a web server?
            first = _receive(sock, 16, min(timeout, 2.0))
    problem = greeting_problem(first)
    if problem is None:
        return
    if not first:
        raise ValueError(f"{where}: connected, but no Dask scheduler answered within {timeout:g} s")
    raise ValueError(f"{where} is not a Dask scheduler ({problem})")


def scheduler_host_port(address: str, *, name: str = "--scheduler") -> tuple[str, int]:
    """Return ``(host, port)`` of a ``tcp://HOST:PORT`` or ``HOST:PORT`` address.

    Raises
    ------
    ValueError
        Another scheme (``tls://`` needs certificates the suite does not
        take), no port, or not an address.
    """
    if not isinstance(address, str) or not address.strip():
        raise ValueError(f"{name} must be an address or {SYNCHRONOUS!r}, got {address!r}")
    scheme, sep, location = address.strip().rpartition("://")
    if sep and scheme != "tcp":
        why = {
            "tls": "tls:// needs certificates and keys, which the suite does not take",
            "inproc": "inproc:// is a scheduler inside one process, not one to connect to",
        }.get(scheme, f"{scheme}:// is not supported")
        raise ValueError(f"{name} {address!r}: {why}; give tcp://HOST:PORT")
    host, colon, port = location.rpartition(":")
    host = host.strip("[]")  # [::1]:8786
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{name} {address!r}: give the scheduler as tcp://HOST:PORT")
    return host, int(port)


def _receive(sock: socket.socket, size: int, timeout: float) -> bytes:
    """Return up to ``size`` bytes received within ``timeout`` seconds (fewer at the end)."""
    import time

    data, deadline = b"", time.monotonic() + timeout
    while len(data) < size:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        sock.settimeout(left)
        try:
            chunk = sock.recv(size - len(data))
        except (TimeoutError, OSError):
            break
        if not chunk:
            break
        data += chunk
    return data


def greeting_problem(first: bytes) -> str | None:
    """Return why ``first`` (a server's first bytes) is not a Dask handshake, or None.

    Parameters
    ----------
    first : bytes
        Up to 16 bytes: the message's length and its count of frames.
    """
    import struct

    if not first:
        return "it sent nothing"
    if first[:5] == b"HTTP/":
        return "it answered like an HTTP server: is this the dashboard's port?"
    if len(first) < 16:
        return f"it sent {len(first)} bytes, {first!r}, not a Dask message"
    length, frames = struct.unpack("<QQ", first[:16])
    if not 8 * (frames + 1) <= length <= MAX_HANDSHAKE_BYTES or frames > MAX_HANDSHAKE_FRAMES:
        return f"its first bytes, {first!r}, are not Dask's framing"
    return None
