"""The execution policy's two tools: a forked call with a timeout, a child interpreter."""

import os
import time

import pytest

from mcmc_pairs.comparisons import execution
from mcmc_pairs.comparisons.execution import (
    ChildFailed,
    ChildInterpreter,
    ChildTimedOut,
    call_in_fork,
)


def test_a_forked_call_returns_raises_dies_or_overruns_by_name():
    assert call_in_fork(lambda: {"x": [1, 2]}, timeout=30) == {"x": [1, 2]}

    def raises():
        raise ValueError("bad draws")

    with pytest.raises(ChildFailed, match="raised ValueError: bad draws") as raised:
        call_in_fork(raises, timeout=30)
    assert not isinstance(raised.value, ChildTimedOut)  # a timeout is told by its type
    with pytest.raises(ChildFailed, match=r"died without returning \(exit code 3\)"):
        call_in_fork(lambda: os._exit(3), timeout=30)
    start = time.perf_counter()
    with pytest.raises(ChildTimedOut, match="did not finish within 0.5 s") as overran:
        call_in_fork(lambda: time.sleep(60), timeout=0.5)
    assert time.perf_counter() - start < 30  # killed, not waited for
    assert isinstance(overran.value, ChildFailed)  # what an except clause of before catches


def test_a_child_that_fails_or_writes_something_else_costs_time_not_the_answer(tmp_path):
    # `python -m json.tool FILE` exits 2 on a pickle: no result, so the caller's own
    with ChildInterpreter("json.tool", {"a": 1}) as child:
        assert child.result(instead=lambda: "here") == "here"
    # `python -m this FILE` exits 0 and prints a poem: not a pickle either
    with ChildInterpreter("this", {"a": 1}) as child:
        assert child.result(instead=lambda: "here") == "here"
        path = child.path
    assert not os.path.exists(path)  # the payload's file is removed


def test_the_harness_counts_the_cores_this_process_may_run_on(monkeypatch):
    assert execution.available_cores() == len(os.sched_getaffinity(0))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set())
    assert execution.available_cores() == 1  # at least one, whatever the affinity says
