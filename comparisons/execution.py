"""Work the harness runs outside the calling thread, and the policy it runs it under.

The policy, in one place:

* **Fresh interpreters by default.** A child process is a spawned (fresh)
  interpreter, so it inherits none of the parent's threads (numba's, BLAS's,
  PyMC's): ``report``'s workers (``comparisons/cli.py``), the summaries' child
  (:class:`ChildInterpreter`) and Dask's workers (``comparisons/parallel.py``).
* **Fork only for what cannot be re-imported.** A sampler under a timeout
  (:func:`call_in_fork`) may be a function loaded from a user's file, which a
  fresh interpreter could not import by name; the forked child runs that one
  call and nothing else, so the threads fork does not copy are not needed.
* **Cores and niceness.** ``report`` runs one worker per available core
  (``handrolled._common.available_cores``), every pair but the longest at
  niceness +5; Dask runs one single-threaded worker per core; every
  replication and the energy check run on one BLAS thread, so no number
  depends on how many there are.
* **Timeouts.** Only a hand-written sampler has one (``--timeout``): its child
  is killed when the time is up, and the run ends with an error naming it.
* **Failures.** A child that raises, dies or overruns is an error named with
  what it ran (:class:`ChildFailed`), except where the child only shares work
  the caller can do itself (the summaries): then the caller does it, and the
  result is the same (:meth:`ChildInterpreter.result`). No failure is dropped
  silently.
* **Interrupts.** Ctrl-C and SIGTERM end the children with the parent; a
  child killed while writing leaves no file (``comparisons/files.py``).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from typing import Any


class ChildFailed(Exception):
    """A child process raised, died or overran its time; the message says which."""


def call_in_fork(target: Callable[[], Any], timeout: float) -> Any:
    """Return ``target()`` computed in a forked child, killed after ``timeout`` seconds.

    ``target`` is not pickled (the child is a fork of this process); its
    return value is, on the way back.

    Raises
    ------
    ChildFailed
        ``"did not finish within ... s"``, ``"died without returning (exit code
        N)"``, or ``"raised Type: message"`` for what ``target`` raised.
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
            raise ChildFailed(f"did not finish within {timeout:g} s")
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


def _forked(send, target: Callable[[], Any]) -> None:
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

        fd, self.path = tempfile.mkstemp(prefix="mcmc-pairs-child-", suffix=".pickle")
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
        return self

    def result(self, instead: Callable[[], Any]) -> Any:
        """Return the child's result; ``instead()`` when it failed or wrote something else.

        For work the caller can do itself: a child that exits non-zero, or
        whose stdout is not a whole pickle (cut short, or written to by
        someone else), costs time, never a different answer.
        """
        out, _ = self.process.communicate()
        if self.process.returncode != 0:
            return instead()
        try:
            return pickle.loads(out)
        except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
            return instead()

    def __exit__(self, *exc) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.unlink(self.path)
