"""Tokens per second of the hand-rolled LDA samplers against tomotopy and ``lda``, call to result.

Runs every sampler single-threaded with the same alpha, beta and number of
iterations on one or two corpora: the Reuters corpus that ships inside the
PyPI ``lda`` package (395 documents, 4,258 words, 84,010 tokens) and, with
``--corpus generated``, a larger one drawn by LDA's own generative process from
a fixed seed (:func:`generated_corpus`: 5,000 documents, V = 10,000 words with
Zipf-like frequencies, about 1 M tokens). Each sampler is timed *call to
result*, everything a user pays: the whole ``mcmc_pairs.handrolled.lda.sample`` call
(validation, set-up, the sweeps, the Dirichlet draws of theta and phi, the
DataTree), tomotopy's model, ``add_doc`` and ``train``, and ``lda``'s ``fit``
(JIT compilation excluded: the kernels are compiled on a tiny corpus first).
The hand-rolled rows are the default call, ``sample(kernel="auto")``, what a
user gets (the row ``handrolled default``, printed with the kernel it chose,
e.g. ``default (auto→fast)``), and each kernel forced; after each K a line
gives the default's throughput over tomotopy's and ``lda``'s.
Repeats run round robin (repeat r of every sampler before repeat r + 1 of any)
and the median is printed, with the collapsed log joint ``log p(w, z) / N``
after the last iteration, computed from each sampler's own final topic
assignments with the same formula. Then, per K, whether the hand-rolled
sampler's topics match the peers': every run's topics
``(n_kv + beta) / (n_k + V beta)`` are aligned to every other run's by Hungarian
matching on Hellinger distance (:func:`mcmc_pairs.comparisons.pairs.lda.topic_permutation`),
and the mean distance between hand-rolled and peer runs is printed next to the
distances between peer runs (other seeds, other package), their spread.

Usage::

    python benchmarks/lda_throughput.py [--corpus reuters generated] [--documents 5000]
                                        [--topics 10 20 50 100 500 1000]
                                        [--iterations 100] [--repeats 3]
                                        [--alpha 0.1] [--beta 0.01]
                                        [--dense-max-k 100] [--peers tomotopy lda]
                                        [--kernels auto sparse fast plain]
                                        [--lda-iterations N]
                                        [--clock wall|cpu] [--json FILE]

The dense hand-rolled sweeps (``fast``, ``plain``) cost O(K) per token and run
only up to ``--dense-max-k`` when forced (the default call runs at every K,
whichever kernel it picks); ``--kernels`` picks the hand-rolled rows (``auto``:
the default call) and ``--peers`` the packages compared.
``--lda-iterations N`` runs the ``lda`` package for N iterations instead above
``--dense-max-k`` (its O(K) sweep takes minutes a run on the generated corpus
at K = 500 and 1,000): its tokens per second are still its own (tokens times
its iterations over its time), but its final log likelihood and topics come
from a shorter run, so they are printed flagged and left out of the peers'
spread and of the topic comparison.
``--documents N`` draws the generated corpus with N documents instead of
5,000 (the same seed and settings otherwise; its rows name the corpus
``generated (N documents)``).
``--json FILE`` writes the measurements (:func:`measure`'s result, one entry
per corpus under ``corpora``, every row naming its ``corpus``) for
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

from mcmc_pairs.comparisons.files import write_atomic  # noqa: E402
from mcmc_pairs.handrolled.lda import auto_kernel, log_joint, sample, validate_data  # noqa: E402

GENERATED = {
    "seed": 20261124,
    "documents": 5000,
    "mean_length": 200,
    "words": 10000,
    "topics": 50,
    "zipf": 1.0,
    "topic_concentration": 500.0,
    "doc_alpha": 0.1,
}
"""Settings of :func:`generated_corpus` (about 1 M tokens)."""


def load_reuters() -> np.ndarray:
    """Return the Reuters document-word counts, shape (395, 4258), from the ``lda`` package."""
    import lda.datasets

    return np.asarray(lda.datasets.load_reuters())


def generated_corpus(
    *,
    seed: int,
    documents: int,
    mean_length: int,
    words: int,
    topics: int,
    zipf: float,
    topic_concentration: float,
    doc_alpha: float,
):
    r"""Draw a corpus by LDA's generative process; return its counts, shape (D, V), as CSR.

    Word ``v`` (0-based) has base frequency :math:`f_v \propto (v + 1)^{-s}`
    (Zipf with exponent ``zipf``); every topic is
    :math:`\varphi_k \sim \mathrm{Dir}(c f)` with ``c = topic_concentration``,
    so that frequent words are frequent in every topic and rare ones belong to
    few; document ``m`` has :math:`1 + \mathrm{Poisson}(\text{mean\_length} - 1)`
    tokens, :math:`\theta_m \sim \mathrm{Dir}(\text{doc\_alpha})` and each token
    :math:`z \sim \mathrm{Cat}(\theta_m)`, :math:`w \sim \mathrm{Cat}(\varphi_z)`.
    Everything comes from ``np.random.default_rng(seed)``.
    """
    import scipy.sparse

    rng = np.random.default_rng(seed)
    base = (np.arange(words) + 1.0) ** -zipf
    base /= base.sum()
    phi = rng.dirichlet(topic_concentration * base, size=topics)
    theta = rng.dirichlet(np.full(topics, doc_alpha), size=documents)
    lengths = 1 + rng.poisson(mean_length - 1, size=documents)
    doc_of = np.repeat(np.arange(documents), lengths)
    cdf_theta = np.cumsum(theta, axis=1)
    z = np.minimum((rng.random(doc_of.size)[:, None] > cdf_theta[doc_of]).sum(axis=1), topics - 1)
    w = np.empty(doc_of.size, dtype=np.int64)
    cdf_phi = np.cumsum(phi, axis=1)
    for k in range(topics):
        at = np.flatnonzero(z == k)
        w[at] = np.minimum(
            np.searchsorted(cdf_phi[k], rng.random(at.size) * cdf_phi[k, -1]), words - 1
        )
    counts = scipy.sparse.coo_matrix(
        (np.ones(w.size, dtype=np.int64), (doc_of, w)), shape=(documents, words)
    )
    return counts.tocsr()


def counts_to_docs(X) -> list[np.ndarray]:
    """Return one array of word ids per document, shape (N_m,) each, from dense or CSR counts."""
    if hasattr(X, "indptr"):
        return [
            np.repeat(
                X.indices[X.indptr[m] : X.indptr[m + 1]], X.data[X.indptr[m] : X.indptr[m + 1]]
            )
            for m in range(X.shape[0])
        ]
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
    """Mean Hellinger distance between matched topics of two runs, each (K, V).

    The topics are matched by Hungarian matching on the Hellinger distance, as
    :func:`mcmc_pairs.comparisons.pairs.lda.topic_permutation` does, with the distances
    from one matrix product (``1 - sqrt(p) . sqrt(q)`` for rows that sum to
    one) instead of a (K, K, V) array, which at K = 1,000 would not fit in memory.
    """
    from scipy.optimize import linear_sum_assignment

    overlap = np.sqrt(phi_a) @ np.sqrt(phi_b).T
    distance = np.sqrt(np.clip(1.0 - overlap, 0.0, None))
    rows, cols = linear_sum_assignment(distance)
    return float(np.mean(distance[rows, cols]))


def run_handrolled(docs, V, K, alpha, beta, kernel, iterations, seed):
    """Call ``mcmc_pairs.handrolled.lda.sample``: ``iterations`` sweeps, one chain, one kept draw.

    Returns (seconds, final log joint per token, topics). The timing covers the
    whole call: validation, set-up (with ``kernel="auto"`` the choice of the
    kernel), sweeps, the Dirichlet draws of theta and phi at the kept sweep and
    the DataTree; the final counts are read from the ``state`` the call fills.
    """
    data = {"docs": docs, "V": V, "K": K, "alpha": alpha, "beta": beta}
    state: dict = {}
    start = CLOCK[0]()
    sample(
        data,
        draws=1,
        tune=iterations - 1,
        chains=1,
        random_seed=seed,
        kernel=kernel,
        state=state,
        cores=1,
    )
    seconds = CLOCK[0]() - start
    chain = state["chain_states"][0]
    n_kv = chain["n_kv"] if state["kernel"] == "plain" else chain["n_vk"].T
    return seconds, final_log_joint(chain["n_mk"], n_kv, alpha, beta), topics_of(n_kv, beta)


def run_lda_package(X, K, alpha, beta, iterations, seed):
    """Fit ``lda.LDA`` (call to result: the model and ``fit``); (seconds, log joint, topics)."""
    import logging

    import lda

    logging.getLogger("lda").setLevel(logging.WARNING)
    start = CLOCK[0]()
    model = lda.LDA(
        n_topics=K, n_iter=iterations, alpha=alpha, eta=beta, random_state=seed, refresh=10**9
    )
    model.fit(X)
    seconds = CLOCK[0]() - start
    return (
        seconds,
        final_log_joint(model.ndz_, model.nzw_, alpha, beta),
        topics_of(model.nzw_, beta),
    )


def run_tomotopy(words, V, K, alpha, beta, iterations, seed):
    """Train tomotopy's LDAModel with one worker, hyperparameters fixed; as above.

    ``words`` holds every document as a list of word strings (tomotopy's input);
    the timing covers the model, every ``add_doc`` and ``train``.
    """
    import tomotopy as tp

    start = CLOCK[0]()
    model = tp.LDAModel(k=K, alpha=alpha, eta=beta, seed=seed)
    model.optim_interval = 0  # keep alpha fixed, like the other samplers
    for doc in words:
        model.add_doc(doc)
    model.train(iterations, workers=1, parallel=tp.ParallelScheme.NONE)
    seconds = CLOCK[0]() - start
    vocab = np.array([int(w) for w in model.used_vocabs])
    n_mk = np.zeros((len(words), K), dtype=np.int64)
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
    docs = [np.array([0, 1, 2]), np.array([2, 3])]
    for kernel in ("plain", "fast", "sparse"):
        run_handrolled(docs, 4, 2, 0.1, 0.1, kernel, 2, 0)


KERNELS = {
    "handrolled default": "auto",
    "handrolled fast": "fast",
    "handrolled sparse": "sparse",
    "handrolled plain": "plain",
}
"""The hand-rolled samplers, by their name in the rows, and their ``kernel`` argument:
the default call (``"auto"``), then each sweep forced."""
DEFAULT = "handrolled default"
"""The default call's row, whose throughput over the peers' is printed after each K."""
JUDGED = "handrolled sparse"
"""The hand-rolled sampler whose topics are compared with the peers'."""
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
"""``--clock``: wall time, or this process's CPU time (every sampler runs on one thread
here, so on a machine other jobs load, its CPU time is what it would take alone)."""
CLOCK = [CLOCKS["wall"]]
"""The clock the runs are timed with (set by ``--clock``)."""
PEERS = ("lda", "tomotopy")
"""The packages compared with."""


def measure(
    X,
    *,
    name: str = "Reuters",
    topics: Sequence[int],
    iterations: int,
    repeats: int,
    alpha: float,
    beta: float,
    dense_max_k: int = 100,
    peers: Sequence[str] = PEERS,
    kernels: Sequence[str] = tuple(KERNELS.values()),
    lda_iterations: int | None = None,
    say: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Time every sampler on the corpus ``X`` for each K; print the table as it goes.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix, shape (D, V)
        Document-word counts.
    name : str
        The corpus's name in the table and the rows.
    topics : sequence of int
        The numbers of topics K.
    iterations, repeats : int
        Sweeps per run, and runs (seeds 1 .. repeats) per sampler and K.
    alpha, beta : float
        Symmetric Dirichlet hyperparameters.
    dense_max_k : int
        The dense sweeps (``fast``, ``plain``, O(K) per token) run up to this K.
    peers : sequence of str
        Which of :data:`PEERS` to run.
    kernels : sequence of str
        Which hand-rolled sweeps to run (``sparse``, ``fast``, ``plain``).
    lda_iterations : int, optional
        Iterations of the ``lda`` package above ``dense_max_k`` (default
        ``iterations``); a shorter run's row carries ``iterations`` and
        ``short_run``, and its log likelihood and topics are not the peers'.
    say : callable
        Receives the lines of the printed table.

    Returns
    -------
    dict
        ``corpus`` (``name``, ``documents``, ``words``, ``tokens``), ``settings``,
        ``rows`` (per K and sampler: ``corpus``, ``K``, ``sampler``,
        ``handrolled``, ``kernel`` (the sweep that ran, the default's choice
        included; ``None`` for a peer), ``iterations``, ``short_run``, ``mtokens_per_s``
        (median), ``seconds`` (median call to result), ``loglik_per_token``
        (median final ``log p(w, z) / N``), ``loglik_min``, ``loglik_max``),
        ``topics`` (per K with peers:
        ``corpus``, ``K``, ``kernel``, the mean, lowest and highest distance of
        :data:`JUDGED`'s topics to the peers' ``ours``, ``ours_lo``,
        ``ours_hi`` and between peers ``peers``, ``peers_lo``, ``peers_hi``)
        ``default`` (per K with the default row: ``corpus``, ``K``,
        ``kernel`` it chose, ``mtokens_per_s``, ``vs_tomotopy`` and ``vs_lda``,
        ``None`` where the peer is missing) and ``not_installed`` (peers that
        were skipped).
    """
    docs = counts_to_docs(X)
    words = [[str(w) for w in doc] for doc in docs]  # tomotopy's input, made once
    V = X.shape[1]
    N = int(X.sum())
    warm_up()
    runners = {
        label: lambda K, s, kernel=kernel: run_handrolled(
            docs, V, K, alpha, beta, kernel, iterations, s
        )
        for label, kernel in KERNELS.items()
        if kernel in kernels
    }
    not_installed = []
    if "lda" in peers:
        runners["lda"] = lambda K, s: run_lda_package(X, K, alpha, beta, lda_its(K), s)

    def lda_its(K: int) -> int:
        return lda_iterations if lda_iterations is not None and K > dense_max_k else iterations

    def iterations_of(label: str, K: int) -> int:
        return lda_its(K) if label == "lda" else iterations

    if "tomotopy" in peers:
        try:
            import tomotopy  # noqa: F401

            runners["tomotopy"] = lambda K, s: run_tomotopy(words, V, K, alpha, beta, iterations, s)
        except ImportError:
            not_installed.append("tomotopy")
    say(
        f"{name}: {X.shape[0]} documents, {V} words, {N} tokens; "
        f"alpha={alpha}, beta={beta}, {iterations} iterations, call to result "
        f"({'CPU' if CLOCK[0] is time.process_time else 'wall'} time), "
        f"median of {repeats} repeats run round robin, one thread"
    )
    say(
        f"{'K':>5}  {'sampler':<26} {'Mtokens/s':>10} {'seconds':>9} "
        f"{'log p(w,z)/N':>13} (spread over seeds)"
    )
    rows, topic_rows, default_rows = [], [], []
    for K in topics:
        active = [
            label
            for label in runners
            if label not in KERNELS or KERNELS[label] in ("auto", "sparse") or K <= dense_max_k
        ]
        data = {"docs": docs, "V": V, "K": K, "alpha": alpha, "beta": beta}
        chosen = auto_kernel(validate_data(data))  # what the default call runs at this K
        shown = {DEFAULT: f"default (auto→{chosen})"}  # the table's name of a row

        # Round robin: repeat r of every sampler runs before repeat r + 1 of any, so a
        # slow spell of the machine hits all samplers alike, not one of them.
        runs: dict[str, list] = {label: [] for label in active}
        for seed in range(1, repeats + 1):
            for label in list(runs):
                try:
                    runs[label].append(runners[label](K, seed))
                except ImportError:
                    say(f"{K:>5}  {label:<26} {'not installed':>10}")
                    not_installed.append(label)
                    del runs[label]
        found = {}
        for label, results in runs.items():
            its = iterations_of(label, K)
            seconds = statistics.median(r[0] for r in results)
            rate = N * its / seconds / 1e6
            ll = [r[1] for r in results]
            if its == iterations:  # a shorter run's topics are not the peers'
                found[label] = [r[2] for r in results]
            row = {
                "corpus": name,
                "K": K,
                "sampler": label,
                "handrolled": label in KERNELS,
                "kernel": (chosen if label == DEFAULT else KERNELS[label])
                if label in KERNELS
                else None,
                "iterations": its,
                "short_run": its != iterations,
                "mtokens_per_s": rate,
                "seconds": seconds,
                "loglik_per_token": statistics.median(ll),
                "loglik_min": min(ll),
                "loglik_max": max(ll),
            }
            rows.append(row)
            say(
                f"{K:>5}  {shown.get(label, label):<26} {rate:>10.2f} {seconds:>9.3f} "
                f"{row['loglik_per_token']:>13.4f} "
                f"({row['loglik_min']:.4f} .. {row['loglik_max']:.4f})"
                + (f" after {its} iterations: not a peer's log lik." if its != iterations else "")
            )
        at_k = {row["sampler"]: row for row in rows if row["K"] == K}
        if DEFAULT in at_k:
            mine = at_k[DEFAULT]["mtokens_per_s"]
            ratios = {
                peer: mine / at_k[peer]["mtokens_per_s"] if peer in at_k else None
                for peer in ("tomotopy", "lda")
            }
            default_rows.append(
                {
                    "corpus": name,
                    "K": K,
                    "kernel": chosen,
                    "mtokens_per_s": mine,
                    "vs_tomotopy": ratios["tomotopy"],
                    "vs_lda": ratios["lda"],
                }
            )
            say(
                f"default K={K}: {shown[DEFAULT]} "
                + ", ".join(
                    f"{ratio:.2f}x {peer}" for peer, ratio in ratios.items() if ratio is not None
                )
                if any(r is not None for r in ratios.values())
                else f"default K={K}: {shown[DEFAULT]}, no peer measured"
            )
        peer_topics = [
            phi for label, runs_ in found.items() if label not in KERNELS for phi in runs_
        ]
        ours_to_peers, peer_to_peer = topic_agreement(found.get(JUDGED, []), peer_topics)
        if ours_to_peers and peer_to_peer:
            row = {
                "corpus": name,
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
        "corpus": {"name": name, "documents": int(X.shape[0]), "words": V, "tokens": N},
        "settings": {
            "topics": list(topics),
            "iterations": iterations,
            "repeats": repeats,
            "alpha": alpha,
            "beta": beta,
            "dense_max_k": dense_max_k,
            "lda_iterations": lda_iterations,
            "timing": "call to result",
            "clock": "cpu" if CLOCK[0] is time.process_time else "wall",
        },
        "rows": rows,
        "topics": topic_rows,
        "default": default_rows,
        "not_installed": sorted(set(not_installed)),
    }


def main(argv=None) -> int:
    """Print the table (and write its JSON with ``--json``); return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", nargs="+", choices=("reuters", "generated"), default=["reuters"]
    )
    parser.add_argument("--documents", type=int, default=GENERATED["documents"], metavar="N")
    parser.add_argument("--topics", type=int, nargs="+", default=[10, 20, 50, 100, 500, 1000])
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--alpha", type=float, default=0.1)
    parser.add_argument("--beta", type=float, default=0.01)
    parser.add_argument("--dense-max-k", type=int, default=100)
    parser.add_argument("--peers", nargs="*", choices=PEERS, default=list(PEERS))
    parser.add_argument(
        "--kernels", nargs="+", choices=tuple(KERNELS.values()), default=list(KERNELS.values())
    )
    parser.add_argument("--lda-iterations", type=int, metavar="N")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results here")
    args = parser.parse_args(argv)
    CLOCK[0] = CLOCKS[args.clock]
    try:
        import lda  # noqa: F401
    except ImportError:
        print("the Reuters corpus comes with the lda package: pip install lda", file=sys.stderr)
        return 2
    corpora = []
    for corpus in args.corpus:
        if corpus == "reuters":
            X, name = load_reuters(), "Reuters"
        else:
            X = generated_corpus(**(GENERATED | {"documents": args.documents}))
            name = "generated"
            if args.documents != GENERATED["documents"]:
                name = f"generated ({args.documents} documents)"
        corpora.append(
            measure(
                X,
                name=name,
                topics=args.topics,
                iterations=args.iterations,
                repeats=args.repeats,
                alpha=args.alpha,
                beta=args.beta,
                dense_max_k=args.dense_max_k,
                peers=args.peers,
                kernels=args.kernels,
                lda_iterations=args.lda_iterations,
                say=lambda line: print(line, flush=True),
            )
        )
    not_installed = sorted({n for c in corpora for n in c["not_installed"]})
    if "tomotopy" in not_installed:
        print("tomotopy not installed: skipped", file=sys.stderr)
    if args.json is not None:
        result = {
            "corpora": corpora,
            "rows": [row for c in corpora for row in c["rows"]],
            "topics": [row for c in corpora for row in c["topics"]],
            "default": [row for c in corpora for row in c["default"]],
            "not_installed": not_installed,
        }
        write_atomic(args.json, json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
