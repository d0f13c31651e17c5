r"""What every hand-written sampler does the same way: one random stream per chain, and continuing.

Streams
-------
Chain ``c`` draws from ``np.random.default_rng(random_seed).spawn(chains)[c]``
(:func:`chain_rngs`), so one chain's draws do not depend on how many chains run.

Continuing a chain (the optional ``state`` keyword of the sampler contract)
----------------------------------------------------------------------------
Every public sampler of ``handrolled`` that a pair registers also accepts::

    sample(data, *, draws, tune, chains, random_seed, state=None)

so that a caller can extend a run by *continuing* its chains instead of
restarting them. ``state`` is a dict owned by the caller and written by the
sampler:

- ``state=None`` (the default): the sampler behaves exactly as without the
  keyword: the same draws bit for bit, the same return type.
- ``state`` an empty dict: the sampler starts fresh exactly as with
  ``state=None`` (the same draws), and before returning stores in the dict what
  it needs to go on: each chain's last point (and any other per-chain state,
  e.g. a frozen proposal scale, LDA's topic assignments and counts), each
  chain's ``numpy.random.Generator`` objects as they stand, ``chains``, and
  ``sampler``, the name of the sampler that wrote it.
- ``state`` a dict filled by an earlier call of the *same* sampler: the sampler
  continues those chains, ``tune`` discarded iterations (a caller extending a
  run passes 0; a continuation never adapts) and then ``draws`` kept ones,
  ignores ``random_seed`` (still validated), and updates the dict in place.
  ``chains`` must equal the state's chain count, and a non-empty dict that this
  sampler did not write raises ``ValueError`` naming ``state``. The state holds
  its own arrays, never views of the caller's data or of returned draws.

The data must be the same in every call of one continued run; the sampler does
not check that. With the same seed, ``sample(draws=a, tune=t, state=s)`` then
``sample(draws=b, tune=0, state=s)`` give, concatenated along the draw axis,
exactly the draws and the per-draw ``sample_stats`` of one
``sample(draws=a + b, tune=t)`` call, for every sampler whose random numbers
form one stream per chain whatever the run length (a NumPy Generator gives the
same numbers in one call or in several calls of the same method). The
samplers that draw two blocks of different kinds per run (the
Metropolis–Hastings drivers of :mod:`mcmc_pairs.handrolled.mh`: ``tune + draws`` normals or
proposals, then as many uniforms; the regression Gibbs samplers: normals, then
gammas) cannot give that without changing today's draws for a seed: the
uniforms of a run of ``a`` draws are not the first uniforms of a run of
``a + b``. They continue the same chain from its last point with its own
Generator (a valid Markov continuation), tested as such; their docstrings say so.

:func:`resume_state` reads a state (``None`` for a fresh start) and
:func:`save_state` writes one; :func:`chain_streams` returns the per-chain
Generators, fresh or resumed.

Chains in parallel
------------------
:func:`map_chains` runs the chains of one call on threads, one chain per task,
when their compiled kernels release the GIL (``@njit(nogil=True)``). A chain
reads only its own Generator and writes only its own slice of the output, so
the draws are the same bit for bit on one thread or many; the samplers that
use it take ``cores`` (default: every core this process may run on,
:func:`available_cores`). The calling thread runs chains too and the helper
threads are kept between calls; chains of fewer than
:data:`PARALLEL_MIN_STEPS` updates run in the calling thread alone, since
handing them to a helper costs more than it saves.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from mcmc_pairs.pairdata.checks import check_integer


def chain_rngs(random_seed: int | None, chains: int) -> list[np.random.Generator]:
    """Return one independent Generator per chain, spawned from ``random_seed``."""
    return np.random.default_rng(random_seed).spawn(chains)


def resume_state(
    state: MutableMapping | None, sampler: str, chains: int, keys: Iterable[str]
) -> MutableMapping | None:
    """Return ``state`` if it is one to continue from, ``None`` for a fresh start.

    Parameters
    ----------
    state : dict or None
        The caller's ``state`` argument (module docstring).
    sampler : str
        Name of the sampler asking, e.g. ``"mcmc_pairs.handrolled.bivariate_normal:sample"``;
        a state written under another name is refused.
    chains : int
        The ``chains`` argument, which must equal the state's.
    keys : iterable of str
        Keys the sampler stores besides ``sampler`` and ``chains``.

    Returns
    -------
    dict or None
        ``state`` when it is non-empty (and valid), ``None`` when it is ``None``
        or empty.

    Raises
    ------
    ValueError
        Naming ``state``: not a mutable mapping, not written by ``sampler``
        (other name or keys), or written for another number of chains.
    """
    if state is None:
        return None
    if not isinstance(state, MutableMapping):
        raise ValueError(f"state must be None or a dict, got {type(state).__name__}")
    if not state:
        return None
    expected = {"sampler", "chains", *keys}
    if set(state) != expected or state["sampler"] != sampler:
        raise ValueError(
            f"state was not written by {sampler}: it has keys {sorted(map(str, state))} "
            f"(sampler {state.get('sampler')!r}), expected {sorted(expected)}"
        )
    if state["chains"] != chains:
        raise ValueError(
            f"state holds {state['chains']} chains but chains={chains}: "
            "continue with the state's chain count"
        )
    return state


def save_state(state: MutableMapping | None, sampler: str, chains: int, **values: Any) -> None:
    """Write ``values``, ``sampler`` and ``chains`` into ``state`` in place (nothing if ``None``).

    Parameters
    ----------
    state : dict or None
        The caller's ``state`` argument.
    sampler : str
        Name of the sampler writing it (see :func:`resume_state`).
    chains : int
        Number of chains.
    **values
        What the sampler needs to go on; arrays should be the sampler's own.
    """
    if state is None:
        return
    state.update(values)
    state["sampler"] = sampler
    state["chains"] = chains


def chain_streams(
    random_seed: int | None, chains: int, resumed: MutableMapping | None
) -> list[np.random.Generator]:
    """Return the per-chain Generators: fresh from ``random_seed``, or the state's ``rngs``.

    Parameters
    ----------
    random_seed : int or None
        Seed of a fresh start (ignored when ``resumed`` is given).
    chains : int
        Number of chains.
    resumed : dict or None
        What :func:`resume_state` returned; its ``rngs`` are continued as they stand.

    Returns
    -------
    list of numpy.random.Generator
    """
    if resumed is None:
        return chain_rngs(random_seed, chains)
    return list(resumed["rngs"])


def available_cores() -> int:
    """Return how many processors this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_helpers: ThreadPoolExecutor | None = None
"""The helper threads of :func:`map_chains`, started on first use and kept."""

_helper_count = 0
"""How many threads :data:`_helpers` has at most."""

_helpers_lock = threading.Lock()


def _forget_helpers() -> None:
    """In a forked child: the parent's helper threads do not exist there."""
    global _helpers, _helper_count
    _helpers, _helper_count = None, 0


os.register_at_fork(after_in_child=_forget_helpers)


def _helper_pool(threads: int) -> ThreadPoolExecutor:
    """Return the kept pool of helper threads, grown to at least ``threads``."""
    global _helpers, _helper_count
    with _helpers_lock:
        if _helpers is None or _helper_count < threads:
            # A smaller pool is dropped, not shut down: a call still holding it may submit to
            # it, and its idle threads exit once it is collected.
            _helpers = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="chain")
            _helper_count = threads
        return _helpers


PARALLEL_MIN_STEPS = 20_000
"""Fewer updates than this a chain, and :func:`map_chains` runs the chains in the calling thread.

Handing chains to a thread that has been idle costs up to milliseconds here: it
waits for the interpreter lock while the calling thread runs Python between
its compiled calls. Measured with the bivariate Gibbs sampler, 4 chains, after
30 ms idle (about 45 ns an update): 2,000 sweeps a chain take 0.38 ms in one
thread and 0.42 ms on two; 51,000 take 7.2 and 4.6 ms; 201,000 take 27.8 and
14.1 ms.
"""


def map_chains(
    run: Callable[[int], Any], chains: int, cores: int | None = None, steps: int | None = None
) -> list[Any]:
    """Return ``[run(0), ..., run(chains - 1)]``, the chains run on up to ``cores`` threads.

    ``run(c)`` must touch only chain ``c``'s Generator and output, so that the
    results do not depend on ``cores`` or on the order the threads run in; it
    gains from threads only where its compiled kernels release the GIL. The
    calling thread and ``cores - 1`` kept helper threads take the chains in
    turn (a helper that has not started when this thread runs out of chains
    is cancelled, so a busy pool, or a nested call, never makes it wait).
    After a chain fails, or this thread is interrupted, no other chain starts;
    a chain's failure is raised once the threads running chains have stopped.

    Parameters
    ----------
    run : callable
        ``run(c)`` runs chain ``c`` and returns what the sampler keeps of it.
    chains : int
        Number of chains.
    cores : int or None
        Threads at most; ``None`` is :func:`available_cores`, 1 runs the
        chains one after the other in this thread.
    steps : int or None
        Roughly how many compiled updates one chain makes (its sweeps, times
        its tokens for LDA); below :data:`PARALLEL_MIN_STEPS` the chains run in
        this thread, as with ``cores=1``. ``None``: unknown, use the threads.

    Returns
    -------
    list
        ``run(c)`` for every chain, in chain order.

    Raises
    ------
    ValueError
        If ``cores`` is not an integer >= 1; whatever a chain raises.
    """
    workers = available_cores() if cores is None else check_integer("cores", cores, 1)
    workers = min(workers, chains)
    if workers <= 1 or (steps is not None and steps < PARALLEL_MIN_STEPS):
        return [run(c) for c in range(chains)]
    results: list[Any] = [None] * chains
    failures: list[BaseException] = []
    untaken = iter(range(chains))
    lock = threading.Lock()

    def take_chains() -> None:
        while True:
            with lock:
                chain = None if failures else next(untaken, None)
            if chain is None:
                return
            try:
                results[chain] = run(chain)
            except BaseException as exc:  # an interrupt too: stop the other threads
                with lock:
                    failures.append(exc)
                return

    pool = _helper_pool(workers - 1)
    helpers = [pool.submit(take_chains) for _ in range(workers - 1)]
    try:
        take_chains()
        for helper in helpers:
            if not helper.cancel():  # a helper still queued (pool busy) has nothing left to take
                helper.result()
    except BaseException as exc:  # interrupted while waiting: the helpers take no more
        with lock:
            failures.append(exc)
        raise
    if failures:
        raise failures[0]
    return results
