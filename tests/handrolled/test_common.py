"""mcmc_pairs.handrolled._common.map_chains: chains on the calling thread and helper threads."""

import os
import signal
import threading
import time

import pytest

from mcmc_pairs.handrolled import _common


def sleepy(chain):
    """A chain that releases the GIL for 50 ms (as a compiled nogil kernel does)."""
    time.sleep(0.05)
    return chain, threading.current_thread().name


@pytest.mark.parametrize("cores", [1, 2, 3, 8])
@pytest.mark.parametrize("chains", [1, 2, 5])
def test_results_come_in_chain_order_whatever_the_threads(cores, chains):
    assert _common.map_chains(lambda c: c * c, chains, cores) == [c * c for c in range(chains)]


def test_the_calling_thread_and_a_helper_share_the_chains():
    here = threading.current_thread().name
    found = _common.map_chains(sleepy, 4, 2)
    assert [c for c, _ in found] == [0, 1, 2, 3]
    threads = {name for _, name in found}
    assert here in threads and len(threads) == 2  # a helper starts within 150 ms


def test_chains_of_few_steps_run_in_the_calling_thread():
    """Below PARALLEL_MIN_STEPS a hand-off costs more than it saves: no helper."""
    here = threading.current_thread().name
    few = _common.map_chains(sleepy, 4, 2, steps=_common.PARALLEL_MIN_STEPS - 1)
    assert {name for _, name in few} == {here}
    enough = _common.map_chains(sleepy, 4, 2, steps=_common.PARALLEL_MIN_STEPS)
    assert len({name for _, name in enough}) == 2


def test_helper_threads_are_kept_between_calls():
    _common.map_chains(sleepy, 2, 2)
    pool, before = _common._helpers, threading.active_count()
    for _ in range(20):
        _common.map_chains(sleepy, 2, 2)
    assert _common._helpers is pool
    assert threading.active_count() <= before + _common._helper_count


def test_a_failing_chain_is_raised_and_no_chain_starts_after_it():
    started = []

    def run(chain):
        started.append(chain)
        if chain == 1:
            raise ValueError("chain 1 failed")
        time.sleep(0.02)
        return chain

    with pytest.raises(ValueError, match="chain 1 failed"):
        _common.map_chains(run, 20, 2)
    assert len(started) < 20


def test_a_nested_call_on_a_busy_pool_does_not_wait_for_it():
    """A chain that maps chains itself: its queued helper is cancelled, not awaited."""
    out = []
    worker = threading.Thread(
        target=lambda: out.append(
            _common.map_chains(lambda c: sum(_common.map_chains(lambda d: d, 3, 4)), 4, 4)
        ),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=30)
    assert out == [[3, 3, 3, 3]]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_child_starts_its_own_helpers():
    """The parent's helper threads do not exist in a fork: the child starts new ones.

    (Without them the child's calling thread would run every chain alone.)
    """
    _common.map_chains(sleepy, 2, 2)  # the parent's helpers exist
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the chains and threads; killed by the alarm if it hangs
        signal.alarm(20)
        try:
            found = _common.map_chains(sleepy, 4, 2)
            os.write(write, repr([[c for c, _ in found], len({t for _, t in found})]).encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read) as pipe:
        assert pipe.read() == "[[0, 1, 2, 3], 2]"
    assert os.waitstatus_to_exitcode(status) == 0


def test_cores_is_checked():
    with pytest.raises(ValueError, match="cores"):
        _common.map_chains(lambda c: c, 2, 0)
