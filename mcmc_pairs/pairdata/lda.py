"""Data of the ``lda`` pair (seeds 000 and 002): a corpus, its vocabulary size, K and the priors.

The default corpus is the "bars" corpus of Griffiths and Steyvers (2004),
simulated from a fixed seed (see ``files/README_lda.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

import numpy as np

from mcmc_pairs.pairdata.checks import check_mapping, integer_at_least, positive_scalar

BARS_SIDE = 5
"""Side of a bars image: V = 25 words (pixels), K = 10 bars."""


class BarsSettings(TypedDict):
    """How the bars corpus is simulated and which Dirichlet priors the model gets."""

    n_docs: int
    doc_length: int
    corpus_alpha: float
    alpha: float
    beta: float
    seed: int


DEFAULT_BARS: BarsSettings = {
    "n_docs": 40,
    "doc_length": 100,
    "corpus_alpha": 0.1,
    "alpha": 1.0,
    "beta": 1.0,
    "seed": 20040406,
}
"""The pair's default data: the corpus is simulated with ``corpus_alpha`` (and its
own fixed ``seed``, not the sampler's), the model uses ``alpha`` and ``beta``."""


def bars_topics(side: int = BARS_SIDE) -> np.ndarray:
    """Return the bar topics: uniform over the pixels of one row or one column.

    Parameters
    ----------
    side : int
        Side of the square image; ``V = side**2`` words, ``K = 2 * side`` topics.

    Returns
    -------
    ndarray, shape (2 * side, side**2)
        Rows ``0..side-1`` are the horizontal bars, the others the vertical ones.
    """
    topics = np.zeros((2 * side, side * side))
    for r in range(side):
        image = np.zeros((side, side))
        image[r, :] = 1.0 / side
        topics[r] = image.ravel()
        topics[side + r] = image.T.ravel()
    return topics


def bars_corpus(
    n_docs: int, doc_length: int, alpha: float, rng: np.random.Generator, side: int = BARS_SIDE
) -> tuple[list[np.ndarray], np.ndarray]:
    """Simulate the bars corpus of Griffiths and Steyvers (2004) from the LDA model.

    Parameters
    ----------
    n_docs, doc_length : int
        Number of documents and tokens per document.
    alpha : float
        Symmetric Dirichlet parameter of each document's topic proportions.
    rng : numpy.random.Generator
    side : int
        Side of the square images.

    Returns
    -------
    docs : list of ndarray of int64, each shape (doc_length,)
        Word (pixel) ids.
    topics : ndarray, shape (2 * side, side**2)
        The true topics, :func:`bars_topics`.
    """
    topics = bars_topics(side)
    K, V = topics.shape
    theta = rng.dirichlet(np.full(K, alpha), size=n_docs)
    docs = []
    for m in range(n_docs):
        z = rng.choice(K, size=doc_length, p=theta[m])
        u = rng.random(doc_length)
        cum = np.cumsum(topics[z], axis=1)
        words = (cum <= (u * cum[:, -1])[:, None]).sum(axis=1)
        docs.append(np.minimum(words, V - 1).astype(np.int64))
    return docs, topics


def default_data() -> dict:
    """Return the pair's default data: a small bars corpus, K = 10, alpha = beta = 1.

    Forty documents of a hundred tokens each (4,000 tokens, simulated with
    document proportions ~ Dir(0.1), so most documents show one to three bars)
    keep NUTS on the marginalised model within a couple
    of minutes, and identify the ten bars well enough that every chain of either
    side settles in the same mode up to label switching. With alpha = beta = 1
    the Dirichlet priors are flat; smaller values give NUTS long exponential
    tails in the unconstrained space and cost it several times more steps.
    """
    rng = np.random.default_rng(DEFAULT_BARS["seed"])
    docs, topics = bars_corpus(
        DEFAULT_BARS["n_docs"], DEFAULT_BARS["doc_length"], DEFAULT_BARS["corpus_alpha"], rng
    )
    return {
        "docs": docs,
        "V": topics.shape[1],
        "K": topics.shape[0],
        "alpha": DEFAULT_BARS["alpha"],
        "beta": DEFAULT_BARS["beta"],
        "true_phi": topics,
    }


def validate_data(data: Mapping) -> dict:
    """Return a checked copy of ``data`` with the corpus flattened.

    Parameters
    ----------
    data : mapping
        ``docs`` (sequence of 1-D integer arrays of word ids), ``V`` (vocabulary
        size), ``K`` (number of topics, >= 2), ``alpha`` and ``beta`` (symmetric
        Dirichlet parameters, > 0). Other keys (such as ``true_phi``) are kept.

    Returns
    -------
    dict
        The input keys normalised, plus ``words`` (int32, shape (N,)), ``offsets``
        (int64, shape (D + 1,)), ``D`` and ``N``.

    Raises
    ------
    ValueError
        Naming the key: a missing key, an empty corpus or document, word ids that
        are not integers or lie outside ``[0, V)``, ``K < 2``, ``alpha`` or
        ``beta`` not > 0.
    """
    check_mapping(data)
    for key in ("docs", "V", "K", "alpha", "beta"):
        if key not in data:
            raise ValueError(f"data is missing the key {key!r}")
    V = integer_at_least(data, "V", 1)
    K = integer_at_least(data, "K", 2)
    alpha = positive_scalar(data, "alpha")
    beta = positive_scalar(data, "beta")
    raw = data["docs"]
    if isinstance(raw, (str, bytes)) or not isinstance(raw, (Sequence, np.ndarray)):
        raise ValueError(f"docs must be a sequence of 1-D integer arrays, got {type(raw).__name__}")
    if len(raw) == 0:
        raise ValueError("docs must hold at least one document, got an empty corpus")
    docs = []
    for m, doc in enumerate(raw):
        arr = np.asarray(doc)
        if arr.ndim != 1:
            raise ValueError(f"docs[{m}] must be 1-D, got shape {arr.shape}")
        if arr.size == 0:
            raise ValueError(f"docs[{m}] is empty: every document needs at least one word")
        if not np.issubdtype(arr.dtype, np.integer):
            if not np.issubdtype(arr.dtype, np.floating) or not np.all(arr == np.round(arr)):
                raise ValueError(f"docs[{m}] must hold integer word ids, got {arr[:5]!r}...")
        docs.append(arr.astype(np.int64))
    lengths = np.array([d.size for d in docs], dtype=np.int64)
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    words = np.concatenate(docs)
    bad = np.flatnonzero((words < 0) | (words >= V))  # one pass over the corpus, not per document
    if bad.size:
        m = int(np.searchsorted(offsets, bad[0], side="right")) - 1
        raise ValueError(f"docs[{m}] has word id {int(words[bad[0]])} outside [0, V={V})")
    out = dict(data)
    out.update(
        docs=docs,
        V=V,
        K=K,
        alpha=alpha,
        beta=beta,
        words=words.astype(np.int32),
        offsets=offsets,
        D=len(docs),
        N=int(offsets[-1]),
    )
    return out
