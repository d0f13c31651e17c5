"""Running replications: a Dask client, chunks of replications, their results gathered.

Replications run in chunks (one task per chunk, so a worker imports and
JIT-compiles the sampler once per process, not once per replication) through a
``dask.distributed`` client (:func:`mcmc_pairs.comparisons.execution.open_client`):
a LocalCluster of processes by default, an existing scheduler by address, or
in-process with ``scheduler="synchronous"``.
Replication ``i`` draws all its random numbers from child ``i`` of
``np.random.SeedSequence(seed)``, so the results do not depend on the number of
workers or on how replications are chunked; every chunk runs on one BLAS thread, as
Dask's workers do, so a replication's matrix products round the same wherever it
runs. If a replication fails, the
finished ones are kept and returned with the error.

A replication is a module-level function ``replication(*args, seed) -> dict``
(:func:`mcmc_pairs.comparisons.geweke.geweke_replication`,
:func:`mcmc_pairs.comparisons.sbc.sbc_replication`), so that it and its ``args`` pickle.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from mcmc_pairs.comparisons.errors import one_line, quiet_third_party
from mcmc_pairs.comparisons.execution import SYNCHRONOUS, open_client  # noqa: F401 - its API

if TYPE_CHECKING:
    from distributed import Client, Future

Replication = Callable[..., dict]
"""``replication(*args, seed: numpy.random.SeedSequence) -> dict`` (JSON-ready)."""


def run_chunk(
    replication: Replication,
    args: Sequence,
    seeds: Sequence[tuple[int, np.random.SeedSequence]],
) -> list[dict]:
    """Run the replications ``seeds`` (index, seed) in order; the unit of work of a task.

    A replication that raises becomes ``{"index": i, "error": message}`` and the
    chunk goes on, so which replications finish does not depend on the chunking.

    Returns
    -------
    list of dict
        Per seed, ``{"index": i, **replication(*args, seed)}`` or the error.
    """
    import warnings

    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        quiet_third_party()  # a Dask worker prints to the user's terminal too
        return [_run_one(replication, args, index, seed) for index, seed in seeds]


def _run_one(
    replication: Replication, args: Sequence, index: int, seed: np.random.SeedSequence
) -> dict:
    try:
        result = replication(*args, seed)
    except Exception as exc:
        return {"index": index, "error": f"replication {index}: {one_line(exc)}"}
    return {"index": index, **result}


def chunks(n: int, parts: int) -> list[range]:
    """Split ``range(n)`` into at most ``parts`` consecutive ranges of near-equal length."""
    parts = max(1, min(n, parts))
    bounds = np.linspace(0, n, parts + 1).round().astype(int)
    return [range(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def run_replications(
    replication: Replication,
    args: Sequence,
    *,
    replications: int,
    seed: int,
    client: Client | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
    draws_per_replication: int = 0,
    start: int = 0,
) -> tuple[list[dict], str | None]:
    """Run replications ``start .. replications - 1``, in this process or on ``client``'s workers.

    Parameters
    ----------
    replication : callable
        ``replication(*args, seed) -> dict``, a module-level function.
    args : sequence
        Its leading arguments (picklable).
    replications : int
        How many; replication ``i`` gets child ``i`` of ``SeedSequence(seed)``.
    seed : int
    client : dask.distributed.Client, optional
        ``None``: run in this process.
    progress : callable
        ``progress(done, total)``, called as chunks finish.
    draws_per_replication : int
        The sampler's draws a replication may take, all chains and tuning
        included: the waits' bound (:func:`stall_limit`).
    start : int
        The first index to run (earlier ones ran before: ``--replications auto``).

    Returns
    -------
    finished : list of dict
        The replications that finished, sorted by ``index``.
    error : str or None
        How many failed and the first error, when any did.

    Raises
    ------
    SchedulerStalled
        On ``client``: no worker for :data:`WORKERLESS_S` seconds, or no chunk
        finished within :func:`stall_limit` (the unfinished ones are cancelled).
    """
    n = replications
    seeds = list(enumerate(np.random.SeedSequence(seed).spawn(n)))
    todo = n - start
    chunk_ranges = _chunk_ranges(todo, start, client)
    done: list[dict] = []
    if client is None:
        for r in chunk_ranges:
            done += run_chunk(replication, args, [seeds[i] for i in r])
            progress(start + len(done), n)
    else:
        futures = [
            client.submit(run_chunk, replication, args, [seeds[i] for i in r], pure=False)
            for r in chunk_ranges
        ]
        limit = stall_limit(max(len(r) for r in chunk_ranges), draws_per_replication)
        try:
            for future in _as_finished(client, futures, limit):
                done += future.result()
                progress(start + len(done), n)
        except SchedulerStalled:
            client.cancel(futures)
            raise
        except Exception as exc:  # a worker died, a task did not pickle, ...
            failed = {r["index"] for r in done}
            done += [
                {"index": i, "error": f"replication {i}: {type(exc).__name__}: {one_line(exc)}"}
                for i in range(start, n)
                if i not in failed
            ]
    done.sort(key=lambda r: r["index"])
    errors = [r["error"] for r in done if "error" in r]
    finished = [r for r in done if "error" not in r]
    if not errors:
        return finished, None
    return finished, f"{len(errors)} of {todo} replications failed; first: {errors[0]}"


def _chunk_ranges(todo: int, start: int, client: Client | None) -> list[range]:
    """Split indices ``start .. start + todo - 1`` into chunks (8 a chunk here, 4 per worker)."""
    if client is None:
        parts = chunks(todo, 1 if todo < 8 else max(1, todo // 8))
    else:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        parts = chunks(todo, 4 * workers)
    return [range(r.start + start, r.stop + start) for r in parts]


WORKERLESS_S = 120.0
"""Seconds a scheduler may have no worker while replications wait before the run gives up."""
STALL_FLOOR_S = 600.0
"""Seconds any chunk of replications may take, however small its settings."""
STALL_S_PER_DRAW = 0.01
"""Seconds per sampler draw a chunk may take besides :data:`STALL_FLOOR_S`: 100 draws a
second, slower than any sampler of the suite (a PyMC step method included)."""
POLL_S = 2.0
"""Seconds between looks at the scheduler while waiting for replications."""


class SchedulerStalled(ValueError):
    """A scheduler has no worker, or its replications make no progress; the message says which."""


def stall_limit(replications_per_chunk: int, draws_per_replication: int) -> float:
    """Return the seconds replications may run without any chunk finishing.

    The rule: :data:`STALL_FLOOR_S` plus :data:`STALL_S_PER_DRAW` for every draw
    of the largest chunk (its replications x their draws, tuning and chains
    included): minutes for the suite's settings, longer only for long runs,
    so a slow sampler is never cut short and a stalled cluster ends the run.
    The clock restarts whenever a chunk finishes.
    """
    return STALL_FLOOR_S + STALL_S_PER_DRAW * replications_per_chunk * draws_per_replication


def _as_finished(
    client: Client, futures: list[Future], limit: float, poll: float | None = None
) -> Iterator[Future]:
    """Yield ``futures`` as they finish; :class:`SchedulerStalled` when none does within ``limit``.

    Every ``poll`` seconds (default :data:`POLL_S`) the scheduler's workers are
    counted: none for :data:`WORKERLESS_S` seconds ends the wait too.
    """
    import time

    from dask.distributed import as_completed

    poll = POLL_S if poll is None else poll
    address = getattr(client.scheduler, "address", None) or str(client)
    finished = as_completed(futures)
    last_progress = last_worker = last_poll = time.monotonic()
    while not finished.is_empty():
        if finished.has_ready():
            yield from finished.next_batch(block=False)
            last_progress = time.monotonic()
            continue
        time.sleep(0.05)
        now = time.monotonic()
        if now - last_poll < poll:
            continue
        last_poll = now
        if _workers(client):
            last_worker = now
        elif now - last_worker > WORKERLESS_S:
            raise SchedulerStalled(
                f"--scheduler {address}: no worker for {WORKERLESS_S:g} s; start workers "
                "(dask worker ADDRESS) or run without --scheduler"
            )
        if now - last_progress > limit:
            raise SchedulerStalled(
                f"--scheduler {address}: no replication finished within {limit:g} s; the "
                "workers are stuck or busy (lower --replications or --draws to run shorter)"
            )


def _workers(client: Client) -> int:
    """Return how many workers ``client``'s scheduler has now (0 when it does not answer)."""
    try:
        return len(client.nthreads(callback_timeout=POLL_S * 5))
    except Exception:  # noqa: BLE001 - a scheduler that does not answer has no worker for us
        return 0
