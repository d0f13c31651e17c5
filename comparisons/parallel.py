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
from collections.abc import Callable, Sequence

import numpy as np

from mcmc_pairs.comparisons.errors import one_line, quiet_third_party
from mcmc_pairs.comparisons.execution import SYNCHRONOUS, open_client  # noqa: F401 - its API

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


def _run_one(replication: Replication, args: Sequence, index: int, seed) -> dict:
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
    client=None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> tuple[list[dict], str | None]:
    """Run ``replications`` replications, in this process or on ``client``'s workers.

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

    Returns
    -------
    finished : list of dict
        The replications that finished, sorted by ``index``.
    error : str or None
        How many failed and the first error, when any did.
    """
    n = replications
    seeds = list(enumerate(np.random.SeedSequence(seed).spawn(n)))
    if client is None:
        chunk_ranges = chunks(n, 1 if n < 8 else max(1, n // 8))
    else:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        chunk_ranges = chunks(n, 4 * workers)
    done: list[dict] = []
    if client is None:
        for r in chunk_ranges:
            done += run_chunk(replication, args, [seeds[i] for i in r])
            progress(len(done), n)
    else:
        from dask.distributed import as_completed

        futures = [
            client.submit(run_chunk, replication, args, [seeds[i] for i in r], pure=False)
            for r in chunk_ranges
        ]
        try:
            for future in as_completed(futures):
                done += future.result()
                progress(len(done), n)
        except Exception as exc:  # a worker died, a task did not pickle, ...
            failed = {r["index"] for r in done}
            done += [
                {"index": i, "error": f"replication {i}: {type(exc).__name__}: {one_line(exc)}"}
                for i in range(n)
                if i not in failed
            ]
    done.sort(key=lambda r: r["index"])
    errors = [r["error"] for r in done if "error" in r]
    finished = [r for r in done if "error" not in r]
    if not errors:
        return finished, None
    return finished, f"{len(errors)} of {n} replications failed; first: {errors[0]}"
