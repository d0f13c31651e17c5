"""Tokens per second of the hand-rolled LDA samplers against tomotopy and ``lda``.

Runs every sampler single-threaded on the Reuters corpus that ships inside the
PyPI ``lda`` package (395 documents, 4,258 words, 84,010 tokens) for each K,
with the same alpha, beta and number of iterations, and prints, side by side,
the median tokens per second over repeats (JIT compilation excluded: the
kernels are compiled on a tiny corpus first) and the collapsed log joint
``log p(w, z) / N`` after the last iteration, computed from each sampler's own
final topic assignments with the same formula. Then, per K, whether the
hand-rolled sampler's topics match the peers': every run's topics
``(n_kv + beta) / (n_k + V beta)`` are aligned to every other run's by Hungarian
matching on Hellinger distance (:func:`comparisons.pairs.lda.topic_permutation`),
and the mean distance between hand-rolled and peer runs is printed next to the
distances between peer runs (other seeds, other package), their spread.

Usage::

    python benchmarks/lda_throughput.py [--topics 10 20 50 100] [--iterations 100]
                                        [--repeats 3] [--alpha 0.1] [--beta 0.01]
                                        [--json FILE]

``--json FILE`` writes the measurements (:func:`measure`'s result) for
:mod:`benchmarks.run`, which reads them rather than the printed table.

Needs ``pip install lda tomotopy``; a peer that is not installed is skipped.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from comparisons.files import write_atomic  # noqa: E402
from handrolled.lda import (  # noqa: E402
    build_topic_lists,
    initial_counts,
    log_joint,
    sweep_fast,
    sweep_plain,
    sweep_sparse,
    validate_data,
)


def load_reuters() -> np.ndarray:
    """Return the Reuters document-word counts, shape (395, 4258), from the ``lda`` package."""
    import lda.datasets

    return np.asarray(lda.datasets.load_reuters())


def counts_to_docs(X: np.ndarray) -> list[np.ndarray]:
    """Return one array of word ids per document, shape (N_m,) each."""
    return [np.repeat(np.arange(X.shape[1]), X[m]) for m in range(X.shape[0])]


def final_log_joint(n_mk, n_kv, alpha, beta) -> float:
    """Collapsed ``log p(w, z)`` of final counts ``n_mk`` (D, K), ``n_kv`` (K, V), per token."""
    n_mk = np.ascontiguousarray(n_mk, dtype=np.int32)
    n_kv = np.ascontiguousarray(n_kv, dtype=np.int32)
    n_k = n_kv.sum(axis=1).astype(np.int32)
    return log_joint(n_mk, n_kv, n_k, alpha, beta) / n_k.sum()


def topics_of(n_kv, beta) -> np.ndarray:
    """Return the topics ``phi`` (K, V) of final counts ``n_kv`` (K, V)."""
    n_kv = np.asarray(n_kv, dtype=float)
    return (n_kv + beta) / (n_kv.sum(axis=1, keepdims=True) + n_kv.shape[1] * beta)


def topic_distance(phi_a: np.ndarray, phi_b: np.ndarray) -> float:
    """Mean Hellinger distance between matched topics of two runs, each (K, V)."""
    from comparisons.pairs.lda import hellinger_matrix, topic_permutation

    matched = phi_b[topic_permutation(phi_b, phi_a)]
    return float(np.mean(np.diag(hellinger_matrix(phi_a, matched))))


def run_handrolled(d, kernel, iterations, seed):
    """Run ``iterations`` sweeps; return (seconds, final log joint per token, topics).

    The timing covers the sweeps and the uniforms they consume, not the setup.
    """
    rng = np.random.default_rng(seed)
    K, V, N = d["K"], d["V"], d["N"]
    words, offsets, alpha, beta = d["words"], d["offsets"], d["alpha"], d["beta"]
    z = rng.integers(0, K, size=N).astype(np.int32)
    n_mk = np.zeros((d["D"], K), dtype=np.int32)
    n_kv = np.zeros((K, V), dtype=np.int32)
    n_k = np.zeros(K, dtype=np.int32)
    initial_counts(words, offsets, z, n_mk, n_kv, n_k)
    n_vk = np.ascontiguousarray(n_kv.T)
    inv = 1.0 / (n_k + V * beta)
    nz_topics, nz_pos = np.empty_like(n_vk), np.empty_like(n_vk)
    nz_len = np.empty(V, dtype=np.int32)
    build_topic_lists(n_vk, nz_topics, nz_len, nz_pos)
    u = np.empty(N)
    start = time.perf_counter()
    for _ in range(iterations):
        rng.random(out=u)  # one buffer for every sweep: no fresh pages to fault in
        if kernel == "plain":
            sweep_plain(words, offsets, z, n_mk, n_kv, n_k, alpha, beta, u)
        elif kernel == "fast":
            sweep_fast(words, offsets, z, n_mk, n_vk, n_k, inv, alpha, beta, u)
        else:
            sweep_sparse(
                words, offsets, z, n_mk, n_vk, n_k, inv, nz_topics, nz_len, nz_pos, alpha, beta, u
            )
    seconds = time.perf_counter() - start
    if kernel != "plain":
        n_kv = n_vk.T
    return seconds, final_log_joint(n_mk, n_kv, alpha, beta), topics_of(n_kv, beta)


def run_lda_package(X, K, alpha, beta, iterations, seed):
    """Fit ``lda.LDA``; return (seconds, final log joint per token, topics)."""
    import logging

    import lda

    logging.getLogger("lda").setLevel(logging.WARNING)
    model = lda.LDA(
        n_topics=K, n_iter=iterations, alpha=alpha, eta=beta, random_state=seed, refresh=10**9
    )
    start = time.perf_counter()
    model.fit(X)
    seconds = time.perf_counter() - start
    return (
        seconds,
        final_log_joint(model.ndz_, model.nzw_, alpha, beta),
        topics_of(model.nzw_, beta),
    )


def run_tomotopy(docs, V, K, alpha, beta, iterations, seed):
    """Train tomotopy's LDAModel with one worker, hyperparameters fixed; as above."""
    import tomotopy as tp

    model = tp.LDAModel(k=K, alpha=alpha, eta=beta, seed=seed)
    model.optim_interval = 0  # keep alpha fixed, like the other samplers
    for doc in docs:
        model.add_doc([str(w) for w in doc])
    model.train(0, workers=1, parallel=tp.ParallelScheme.NONE)
    start = time.perf_counter()
    model.train(iterations, workers=1, parallel=tp.ParallelScheme.NONE)
    seconds = time.perf_counter() - start
    vocab = np.array([int(w) for w in model.used_vocabs])
    n_mk = np.zeros((len(docs), K), dtype=np.int64)
    n_kv = np.zeros((K, V), dtype=np.int64)
    for m, doc in enumerate(model.docs):
        topics = np.asarray(doc.topics)
        np.add.at(n_mk[m], topics, 1)
        np.add.at(n_kv, (topics, vocab[np.asarray(doc.words)]), 1)
    return seconds, final_log_joint(n_mk, n_kv, alpha, beta), topics_of(n_kv, beta)


def topic_agreement(
    ours: Sequence[np.ndarray], peers: Sequence[np.ndarray]
) -> tuple[list[float], list[float]]:
    """Distances from our runs' topics to the peers' runs, and between the peers' runs.

    Parameters
    ----------
    ours : sequence of ndarray
        The hand-rolled sampler's topics (K, V), one per seed.
    peers : sequence of ndarray
        Every peer run's topics (K, V), all packages and seeds together.

    Returns
    -------
    ours_to_peers, peer_to_peer : list of float
        Mean Hellinger distances after alignment, one per pair of runs.
    """
    ours_to_peers = [topic_distance(a, b) for a in ours for b in peers]
    peer_to_peer = [
        topic_distance(peers[i], peers[j])
        for i in range(len(peers))
        for j in range(i + 1, len(peers))
    ]
    return ours_to_peers, peer_to_peer


def warm_up() -> None:
    """Compile every kernel on a tiny corpus, so no timing includes the JIT."""
    d = validate_data(
        {"docs": [np.array([0, 1, 2]), np.array([2, 3])], "V": 4, "K": 2, "alpha": 0.1, "beta": 0.1}
    )
    for kernel in ("plain", "fast", "sparse"):
        run_handrolled(d, kernel, 2, 0)


KERNELS = {"handrolled fast": "fast", "handrolled sparse": "sparse", "handrolled plain": "plain"}
"""The hand-rolled samplers, by their name in the table, and their sweep."""
JUDGED = "handrolled sparse"
"""The hand-rolled sampler whose topics are compared with the peers'."""


def measure(
    X: np.ndarray,
    *,
    topics: Sequence[int],
    iterations: int,
    repeats: int,
    alpha: float,
    beta: float,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Time every sampler on the corpus ``X`` for each K; print the table as it goes.

    Parameters
    ----------
    X : ndarray, shape (D, V)
        Document-word counts.
    topics : sequence of int
        The numbers of topics K.
    iterations, repeats : int
        Sweeps per run, and runs (seeds 1 .. repeats) per sampler and K.
    alpha, beta : float
        Symmetric Dirichlet hyperparameters.
    say : callable
        Receives the lines of the printed table.

    Returns
    -------
    dict
        ``corpus`` (``documents``, ``words``, ``tokens``), ``settings``,
        ``rows`` (per K and sampler: ``K``, ``sampler``, ``handrolled``,
        ``mtokens_per_s`` (median), ``loglik_per_token`` (median final
        ``log p(w, z) / N``), ``loglik_min``, ``loglik_max``), ``topics`` (per
        K with peers: ``K``, ``kernel``, the mean, lowest and highest distance
        of :data:`JUDGED`'s topics to the peers' ``ours``, ``ours_lo``,
        ``ours_hi`` and between peers ``peers``, ``peers_lo``, ``peers_hi``)
        and ``not_installed`` (peers that were skipped).
    """
    docs = counts_to_docs(X)
    N = int(X.sum())
    warm_up()
    runners = {
        name: lambda d, K, s, kernel=kernel: run_handrolled(d, kernel, iterations, s)
        for name, kernel in KERNELS.items()
    }
    runners["lda"] = lambda d, K, s: run_lda_package(X, K, alpha, beta, iterations, s)
    not_installed = []
    try:
        import tomotopy  # noqa: F401

        runners["tomotopy"] = lambda d, K, s: run_tomotopy(
            docs, X.shape[1], K, alpha, beta, iterations, s
        )
    except ImportError:
        not_installed.append("tomotopy")
    say(
        f"Reuters: {X.shape[0]} documents, {X.shape[1]} words, {N} tokens; "
        f"alpha={alpha}, beta={beta}, {iterations} iterations, "
        f"median of {repeats} repeats, one thread"
    )
    say(f"{'K':>4}  {'sampler':<18} {'Mtokens/s':>10} {'log p(w,z)/N':>13} (spread over seeds)")
    rows, topic_rows = [], []
    for K in topics:
        d = validate_data({"docs": docs, "V": X.shape[1], "K": K, "alpha": alpha, "beta": beta})
        # Round robin: repeat r of every sampler runs before repeat r + 1 of any, so a
        # slow spell of the machine hits all samplers alike, not one of them.
        runs: dict[str, list] = {name: [] for name in runners}
        for seed in range(1, repeats + 1):
            for name in list(runs):
                try:
                    runs[name].append(runners[name](d, K, seed))
                except ImportError:
                    say(f"{K:>4}  {name:<18} {'not installed':>10}")
                    not_installed.append(name)
                    del runs[name]
        found = {}
        for name, results in runs.items():
            rate = N * iterations / statistics.median(r[0] for r in results) / 1e6
            ll = [r[1] for r in results]
            found[name] = [r[2] for r in results]
            row = {
                "K": K,
                "sampler": name,
                "handrolled": name in KERNELS,
                "mtokens_per_s": rate,
                "loglik_per_token": statistics.median(ll),
                "loglik_min": min(ll),
                "loglik_max": max(ll),
            }
            rows.append(row)
            say(
                f"{K:>4}  {name:<18} {rate:>10.2f} {row['loglik_per_token']:>13.4f} "
                f"({row['loglik_min']:.4f} .. {row['loglik_max']:.4f})"
            )
        peers = [phi for name, runs_ in found.items() if name not in KERNELS for phi in runs_]
        ours_to_peers, peer_to_peer = topic_agreement(found[JUDGED], peers)
        if ours_to_peers and peer_to_peer:
            row = {
                "K": K,
                "kernel": KERNELS[JUDGED],
                "ours": float(np.mean(ours_to_peers)),
                "ours_lo": min(ours_to_peers),
                "ours_hi": max(ours_to_peers),
                "peers": float(np.mean(peer_to_peer)),
                "peers_lo": min(peer_to_peer),
                "peers_hi": max(peer_to_peer),
            }
            topic_rows.append(row)
            say(
                f"topics K={K}: {JUDGED} to peers {row['ours']:.3f} "
                f"({row['ours_lo']:.3f} .. {row['ours_hi']:.3f}); "
                f"peer to peer {row['peers']:.3f} "
                f"({row['peers_lo']:.3f} .. {row['peers_hi']:.3f})"
            )
    return {
        "corpus": {"documents": int(X.shape[0]), "words": int(X.shape[1]), "tokens": N},
        "settings": {
            "topics": list(topics),
            "iterations": iterations,
            "repeats": repeats,
            "alpha": alpha,
            "beta": beta,
        },
        "rows": rows,
        "topics": topic_rows,
        "not_installed": sorted(set(not_installed)),
    }


def main(argv=None) -> int:
    """Print the table (and write its JSON with ``--json``); return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 20, 50, 100])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--beta", type=float, default=0.01)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results here")
    args = parser.parse_args(argv)
    try:
        X = load_reuters()
    except ImportError:
        print("the Reuters corpus comes with the lda package: pip install lda", file=sys.stderr)
        return 2
    result = measure(
        X,
        topics=args.topics,
        iterations=args.iterations,
        repeats=args.repeats,
        alpha=args.alpha,
        beta=args.beta,
        say=lambda line: print(line, flush=True),
    )
    if "tomotopy" in result["not_installed"]:
        print("tomotopy not installed: skipped", file=sys.stderr)
    if args.json is not None:
        write_atomic(args.json, json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
