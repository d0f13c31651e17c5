r"""Compiled inner loops of the collapsed Gibbs sampler for LDA.

Notation of the seeds (000 and 002): document :math:`m`, topic :math:`k`, word
:math:`v`; the counts are

- ``n_mk[m, k]``: tokens of document ``m`` assigned to topic ``k``, shape (D, K);
- ``n_kv[k, v]``: tokens of word ``v`` assigned to topic ``k``, shape (K, V);
- ``n_k[k]``: tokens assigned to topic ``k``, shape (K,).

The full conditional of one token :math:`i` (word ``v`` in document ``m``),
with the token itself removed from every count, is

.. math::

    p(z_i = k \mid z_{-i}, w) \propto
    (n_{mk} + \alpha)\,\frac{n_{kv} + \beta}{n_k + V\beta}.

(The seed's second factor :math:`1 / \sum_k (n_{mk} + \alpha)` does not depend
on :math:`k` and drops out.)

Three sweeps implement it:

- :func:`sweep_plain` is the seed's algorithm line by line (decrement, compute
  the K unnormalised probabilities, draw by inversion of the cumulative sum,
  increment), fed one pre-drawn uniform per token. It uses no fast-math, so the
  plain-NumPy sweep :func:`mcmc_pairs.handrolled.lda.gibbs_sweep` reproduces it bit for bit.
- :func:`sweep_fast` draws from the same conditional, faster, for small K:
  word-major counts ``n_vk`` (V, K) so that a token reads one contiguous row,
  the document's factors ``(n_mk + alpha) / (n_k + V beta)`` cached and updated
  only for the topics that change, the K products and their total computed
  from the counts as they stand (vectorised, no store before the loads) with
  only the old topic's weight corrected for the token itself, and the inversion
  trying the token's old topic first, so that a token that keeps its topic
  (most of them, once the chain has mixed) costs no search and changes no count.
- :func:`sweep_sparse` is SparseLDA: the conditional split into a smoothing, a
  document and a word bucket, so a token costs the number of topics its
  document and its word use rather than K; a token that draws its old topic
  again changes no count. A frequent word sits in most topics (on a Zipf
  corpus the most frequent ones in all K), so for a word with more than
  ``dense_from`` topics the word bucket is computed over every topic in one
  vectorised pass and searched block by block instead.

The two fast sweeps draw their uniforms themselves, from a xoshiro256+ stream
per chain (:func:`new_stream`, :func:`stream_uniforms`), instead of reading N
pre-drawn ones per sweep: the stream is a (4,) uint64 array seeded from the
chain's NumPy Generator and advanced in place, so a chain's draws stay the same
bit for bit on any number of threads and across continued runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numba import njit

Search = Callable[[np.ndarray, float, int], int]
"""``search(p, target, full) -> k``: an inversion of :func:`sweep_fast`'s other topics."""

# ------------------------------------------------------------------ uniforms


def new_stream(rng: np.random.Generator) -> np.ndarray:
    """Seed a xoshiro256+ stream (Blackman and Vigna 2021) from a chain's Generator.

    Parameters
    ----------
    rng : numpy.random.Generator
        Draws the four 64-bit words of the state.

    Returns
    -------
    ndarray of uint64, shape (4,)
        The state, never all zero; :func:`sweep_fast` and :func:`sweep_sparse`
        advance it in place.
    """
    stream = rng.integers(0, 2**64, size=4, dtype=np.uint64, endpoint=False)
    if not stream.any():  # the one state xoshiro cannot leave
        stream[0] = 1
    return stream


@njit(cache=True, inline="always")
def _next_uniform(
    s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, float]:
    """Advance a xoshiro256+ state by one step; return it and a uniform in [0, 1).

    The uniform is the top 53 bits of ``s0 + s3`` times 2**-53 (the generator's
    low bits are its weak ones).
    """
    result = s0 + s3
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
    return s0, s1, s2, s3, (result >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def stream_uniforms(stream: np.ndarray, out: np.ndarray) -> None:
    """Fill ``out`` (float64, shape (n,)) with the next uniforms of ``stream`` (uint64, (4,))."""
    s0, s1, s2, s3 = stream[0], stream[1], stream[2], stream[3]
    for j in range(out.shape[0]):
        s0, s1, s2, s3, out[j] = _next_uniform(s0, s1, s2, s3)
    stream[0], stream[1], stream[2], stream[3] = s0, s1, s2, s3


@njit(cache=True, nogil=True)
def initial_counts(
    words: np.ndarray,
    offsets: np.ndarray,
    z: np.ndarray,
    n_mk: np.ndarray,
    n_kv: np.ndarray,
    n_k: np.ndarray,
) -> None:
    """Fill the count arrays from topic assignments (the seed's step 2).

    Parameters
    ----------
    words : ndarray of int32, shape (N,)
        Word id of every token, documents one after the other.
    offsets : ndarray of int64, shape (D + 1,)
        Document ``m`` holds tokens ``offsets[m]:offsets[m + 1]``.
    z : ndarray of int32, shape (N,)
        Topic of every token.
    n_mk : ndarray of int32, shape (D, K)
    n_kv : ndarray of int32, shape (K, V)
    n_k : ndarray of int32, shape (K,)
        Zeroed on entry, filled on exit.
    """
    n_mk[:] = 0
    n_kv[:] = 0
    n_k[:] = 0
    for m in range(offsets.shape[0] - 1):
        for i in range(offsets[m], offsets[m + 1]):
            k = z[i]
            n_mk[m, k] += 1
            n_kv[k, words[i]] += 1
            n_k[k] += 1


@njit(cache=True)
def resample_token(
    i: int,
    m: int,
    words: np.ndarray,
    z: np.ndarray,
    n_mk: np.ndarray,
    n_kv: np.ndarray,
    n_k: np.ndarray,
    alpha: float,
    beta: float,
    u: float,
    p: np.ndarray,
) -> int:
    """Resample the topic of token ``i`` of document ``m`` (one step of the seed's sweep).

    Decrement the counts of the token's current topic, compute the full
    conditional ``(n_mk + alpha) * (n_kv + beta) / (n_k + V beta)``, draw the new
    topic as the first ``k`` whose cumulative sum exceeds ``u * total``, increment.

    Parameters
    ----------
    i, m : int
        Token index and its document.
    words, z : ndarray of int32, shape (N,)
    n_mk : ndarray of int32, shape (D, K)
    n_kv : ndarray of int32, shape (K, V)
    n_k : ndarray of int32, shape (K,)
    alpha, beta : float
    u : float
        A uniform draw in [0, 1).
    p : ndarray of float64, shape (K,)
        Work space; holds the cumulative unnormalised conditional on exit.

    Returns
    -------
    int
        The new topic of the token.
    """
    K = n_k.shape[0]
    V = n_kv.shape[1]
    v = words[i]
    k = z[i]
    n_mk[m, k] -= 1
    n_kv[k, v] -= 1
    n_k[k] -= 1
    total = 0.0
    for j in range(K):
        total += (n_mk[m, j] + alpha) * (n_kv[j, v] + beta) / (n_k[j] + V * beta)
        p[j] = total
    target = u * total
    k = 0
    while k < K - 1 and p[k] <= target:
        k += 1
    z[i] = k
    n_mk[m, k] += 1
    n_kv[k, v] += 1
    n_k[k] += 1
    return k


@njit(cache=True, nogil=True)
def sweep_plain(
    words: np.ndarray,
    offsets: np.ndarray,
    z: np.ndarray,
    n_mk: np.ndarray,
    n_kv: np.ndarray,
    n_k: np.ndarray,
    alpha: float,
    beta: float,
    u: np.ndarray,
) -> None:
    """One systematic sweep over every token with :func:`resample_token`.

    Parameters
    ----------
    words : ndarray of int32, shape (N,)
    offsets : ndarray of int64, shape (D + 1,)
    z : ndarray of int32, shape (N,)
        Topic assignments, updated in place.
    n_mk, n_kv, n_k : ndarray of int32
        Counts of shapes (D, K), (K, V), (K,), updated in place.
    alpha, beta : float
    u : ndarray of float64, shape (N,)
        One uniform per token.
    """
    p = np.empty(n_k.shape[0])
    for m in range(offsets.shape[0] - 1):
        for i in range(offsets[m], offsets[m + 1]):
            resample_token(i, m, words, z, n_mk, n_kv, n_k, alpha, beta, u[i], p)


@njit(cache=True, inline="always")
def _weight_without_token(
    n_mk_old: int, n_vk_old: int, inv_removed_old: float, alpha: float, beta: float
) -> float:
    """Return the conditional's weight of the token's old topic, the token out of every count."""
    return (n_mk_old - 1 + alpha) * (n_vk_old - 1 + beta) * inv_removed_old


@njit(cache=True, inline="always")
def _walk(p: np.ndarray, target: float, k: int) -> int:
    """First ``j >= k`` whose running sum of ``p[k:]`` (``p`` shape (K,)) exceeds ``target``.

    One entry at a time; ``K - 1`` if rounding runs past the end. The last step
    of :func:`_search` and :func:`_search_16`, after their blocks.
    """
    last = p.shape[0] - 1
    while k < last and target >= p[k]:
        target -= p[k]
        k += 1
    return k


@njit(cache=True, inline="always")
def _search(p: np.ndarray, target: float, full: int) -> int:
    """First ``k`` whose running sum of ``p`` (shape (K,)) exceeds ``target``.

    The first ``full`` entries (a multiple of 8) are walked in blocks of 8
    (each block's total, then the next), the rest one by one; ``K - 1`` if
    rounding runs past the end. Blocks shorten the chain of dependent
    subtractions that bounds a linear search.
    """
    start = 0
    while start < full:
        s = ((p[start] + p[start + 1]) + (p[start + 2] + p[start + 3])) + (
            (p[start + 4] + p[start + 5]) + (p[start + 6] + p[start + 7])
        )
        if target < s:
            break
        target -= s
        start += 8
    return _walk(p, target, start)


@njit(cache=True, inline="always")
def _search_16(p: np.ndarray, target: float, full: int) -> int:
    """:func:`_search` with blocks of 16 (for :func:`sweep_sparse`'s dense word bucket)."""
    start = 0
    while start < full:
        s = (
            ((p[start] + p[start + 1]) + (p[start + 2] + p[start + 3]))
            + ((p[start + 4] + p[start + 5]) + (p[start + 6] + p[start + 7]))
        ) + (
            ((p[start + 8] + p[start + 9]) + (p[start + 10] + p[start + 11]))
            + ((p[start + 12] + p[start + 13]) + (p[start + 14] + p[start + 15]))
        )
        if target < s:
            break
        target -= s
        start += 16
    return _walk(p, target, start)


@njit(cache=True, inline="always")
def _count_search(p: np.ndarray, target: float, full: int) -> int:
    """:func:`_search` without branches: how many running sums of ``p`` (K,) are <= ``target``.

    Cheaper than a walk below :data:`COUNT_BELOW` topics, where the walk's exit
    is a mispredicted branch and its chain of dependent subtractions is as long
    as the search. The sums go in blocks of 4: a block's four running sums,
    from its own entries, are compared with the target less the sum before the
    block, so only one addition per block waits for the one before; the last
    ``K % 4`` entries go one by one. ``K - 1`` if rounding runs past the end.
    ``full`` is unused (the signature of :func:`_search`).
    """
    K = p.shape[0]
    before = 0.0  # sum of the blocks so far
    k = 0
    j = 0
    while j + 4 <= K:
        a = p[j]
        b = a + p[j + 1]
        c = b + p[j + 2]
        d = c + p[j + 3]
        rest = target - before
        k += (a <= rest) + (b <= rest) + (c <= rest) + (d <= rest)
        before += d
        j += 4
    while j < K:
        before += p[j]
        k += before <= target
        j += 1
    return min(k, K - 1)


COUNT_BELOW = 64
"""Below this many topics :func:`sweep_fast` inverts by :func:`_count_search`, from it by
:func:`_search`'s blocks of 8 (measured: K = 50, 25.0 against 23.2 Mtok/s for a walk; K = 80,
21.0 against 21.9 Mtok/s for blocks)."""


def _make_sweep_fast(search: Search) -> Callable[..., None]:
    """Compile :func:`sweep_fast`'s loop with ``search`` inverting the other topics.

    Parameters
    ----------
    search : numba function
        ``search(p, target, full) -> k``: :func:`_count_search` or :func:`_search`.

    Returns
    -------
    numba function
        The sweep, with :func:`sweep_fast`'s arguments. One compiled loop per
        search rather than a branch on K inside one loop: the branch cost 8 %
        at K = 50 (measured).
    """

    @njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
    def sweep(
        words: np.ndarray,
        offsets: np.ndarray,
        z: np.ndarray,
        n_mk: np.ndarray,
        n_vk: np.ndarray,
        n_k: np.ndarray,
        inv_denominator: np.ndarray,
        alpha: float,
        beta: float,
        stream: np.ndarray,
    ) -> None:
        """:func:`sweep_fast` inverting the other topics with ``search``."""
        K = n_k.shape[0]
        full = K // 8 * 8
        vbeta = n_vk.shape[0] * beta
        coef = np.empty(K)
        p = np.empty(K)
        inv_removed = np.zeros(K)  # 1 / (n_k - 1 + V beta): the denominator without one token
        for k in range(K):
            if n_k[k] > 0:
                inv_removed[k] = 1.0 / (n_k[k] - 1 + vbeta)
        s0, s1, s2, s3 = stream[0], stream[1], stream[2], stream[3]
        for m in range(offsets.shape[0] - 1):
            doc = n_mk[m]
            for k in range(K):
                coef[k] = (doc[k] + alpha) * inv_denominator[k]
            for i in range(offsets[m], offsets[m + 1]):
                row = n_vk[words[i]]
                old = z[i]
                total = 0.0
                for k in range(K):
                    w = coef[k] * (row[k] + beta)
                    p[k] = w
                    total += w
                p_old = _weight_without_token(doc[old], row[old], inv_removed[old], alpha, beta)
                total += p_old - p[old]
                s0, s1, s2, s3, u = _next_uniform(s0, s1, s2, s3)
                target = u * total
                if target < p_old:  # keeps its topic: nothing changes
                    continue
                p[old] = 0.0  # the others, in index order
                new = search(p, target - p_old, full)
                if new == old:  # only when rounding ran past the last topic
                    continue
                z[i] = new
                doc[old] -= 1
                row[old] -= 1
                n_k[old] -= 1
                inv_denominator[old] = inv_removed[old]
                inv_removed[old] = 1.0 / (n_k[old] - 1 + vbeta) if n_k[old] > 0 else 0.0
                coef[old] = (doc[old] + alpha) * inv_denominator[old]
                inv_removed[new] = inv_denominator[new]
                n_k[new] += 1
                doc[new] += 1
                row[new] += 1
                inv = 1.0 / (n_k[new] + vbeta)
                inv_denominator[new] = inv
                coef[new] = (doc[new] + alpha) * inv
        stream[0], stream[1], stream[2], stream[3] = s0, s1, s2, s3

    return sweep


_sweep_fast_counting = _make_sweep_fast(_count_search)
_sweep_fast_walking = _make_sweep_fast(_search)


@njit(cache=True, nogil=True)
def sweep_fast(
    words: np.ndarray,
    offsets: np.ndarray,
    z: np.ndarray,
    n_mk: np.ndarray,
    n_vk: np.ndarray,
    n_k: np.ndarray,
    inv_denominator: np.ndarray,
    alpha: float,
    beta: float,
    stream: np.ndarray,
) -> None:
    r"""One sweep from the same full conditional as :func:`sweep_plain`, faster for small K.

    For document :math:`m` the factors :math:`c_k = (n_{mk} + \alpha) / (n_k + V\beta)`
    are kept in ``coef``; a token of word :math:`v` weighs topic :math:`k` by
    :math:`p_k = c_k (n_{kv} + \beta)`, computed from the counts as they stand,
    the token still in them; only its old topic's weight depends on the token,
    and is replaced by the weight without it (:func:`_weight_without_token`),
    which is the conditional of :func:`sweep_plain`. The inversion takes the
    categories in the order old topic first, then the others in index order:
    ``new = old`` when ``u * sum(p) < p[old]``, else the first other topic whose
    running sum (after ``p[old]``) exceeds the rest (:func:`_count_search`
    below :data:`COUNT_BELOW` topics, else :func:`_search`, by blocks of 8).
    The order depends on the state, not on
    ``u``, so the draw is exact. A token that keeps its topic changes nothing;
    the caches ``1 / (n_k + V beta)`` (``inv_denominator``) and
    ``1 / (n_k - 1 + V beta)`` change only for the two topics of a token that moves.

    Parameters
    ----------
    words : ndarray of int32, shape (N,)
    offsets : ndarray of int64, shape (D + 1,)
    z : ndarray of int32, shape (N,)
        Topic assignments, updated in place.
    n_mk : ndarray of int32, shape (D, K)
    n_vk : ndarray of int32, shape (V, K)
        Word-major topic-word counts (the transpose of ``n_kv``).
    n_k : ndarray of int32, shape (K,)
    inv_denominator : ndarray of float64, shape (K,)
        ``1 / (n_k + V * beta)``, kept in step with ``n_k``.
    alpha, beta : float
    stream : ndarray of uint64, shape (4,)
        The chain's xoshiro256+ state (:func:`new_stream`), one uniform per
        token, advanced in place.
    """
    if n_k.shape[0] < COUNT_BELOW:
        _sweep_fast_counting(
            words, offsets, z, n_mk, n_vk, n_k, inv_denominator, alpha, beta, stream
        )
    else:
        _sweep_fast_walking(
            words, offsets, z, n_mk, n_vk, n_k, inv_denominator, alpha, beta, stream
        )


@njit(cache=True, nogil=True)
def log_joint(
    n_mk: np.ndarray, n_kv: np.ndarray, n_k: np.ndarray, alpha: float, beta: float
) -> float:
    r"""Return :math:`\log p(w, z \mid \alpha, \beta)`, the collapsed joint of seed 002.

    .. math::

        \sum_k \log\frac{\Delta(n_k + \beta)}{\Delta(\beta)}
        + \sum_m \log\frac{\Delta(n_m + \alpha)}{\Delta(\alpha)}

    Parameters
    ----------
    n_mk : ndarray of int32, shape (D, K)
    n_kv : ndarray of int32, shape (K, V)
    n_k : ndarray of int32, shape (K,)
    alpha, beta : float

    Returns
    -------
    float
    """
    D, K = n_mk.shape
    V = n_kv.shape[1]
    lg_beta = math.lgamma(beta)
    lg_alpha = math.lgamma(alpha)
    out = 0.0
    for k in range(K):
        for v in range(V):
            if n_kv[k, v] > 0:
                out += math.lgamma(n_kv[k, v] + beta) - lg_beta
        out -= math.lgamma(n_k[k] + V * beta) - math.lgamma(V * beta)
    for m in range(D):
        n_m = 0
        for k in range(K):
            n_m += n_mk[m, k]
            if n_mk[m, k] > 0:
                out += math.lgamma(n_mk[m, k] + alpha) - lg_alpha
        out -= math.lgamma(n_m + K * alpha) - math.lgamma(K * alpha)
    return out


@njit(cache=True, nogil=True)
def build_topic_lists(
    n_vk: np.ndarray, nz_topics: np.ndarray, nz_len: np.ndarray, nz_pos: np.ndarray
) -> None:
    """Index the non-zero topics of every word, for :func:`sweep_sparse`.

    Parameters
    ----------
    n_vk : ndarray of int32, shape (V, K)
    nz_topics : ndarray of int32, shape (V, K)
        On exit ``nz_topics[v, :nz_len[v]]`` lists the topics with ``n_vk[v, k] > 0``.
    nz_len : ndarray of int32, shape (V,)
    nz_pos : ndarray of int32, shape (V, K)
        On exit ``nz_pos[v, k]`` is topic ``k``'s place in that list, -1 if absent.
    """
    V, K = n_vk.shape
    for v in range(V):
        n = 0
        for k in range(K):
            if n_vk[v, k] > 0:
                nz_topics[v, n] = k
                nz_pos[v, k] = n
                n += 1
            else:
                nz_pos[v, k] = -1
        nz_len[v] = n


@njit(cache=True, inline="always")
def _list_add(topics: np.ndarray, length: int, pos: np.ndarray, k: int) -> int:
    pos[k] = length
    topics[length] = k
    return length + 1


@njit(cache=True, inline="always")
def _list_remove(topics: np.ndarray, length: int, pos: np.ndarray, k: int) -> int:
    j = pos[k]
    last = topics[length - 1]
    topics[j] = last
    pos[last] = j
    pos[k] = -1
    return length - 1


@njit(cache=True, inline="always")
def _take_out(doc: np.ndarray, row: np.ndarray, old: int) -> None:
    """Take the token out of its document's and its word's counts (``doc`` (K,), ``row`` (K,))."""
    doc[old] -= 1
    row[old] -= 1


@njit(cache=True, inline="always")
def _put_back(doc: np.ndarray, row: np.ndarray, old: int) -> None:
    """Undo :func:`_take_out`."""
    doc[old] += 1
    row[old] += 1


@njit(cache=True, nogil=True, fastmath=True)
def sweep_sparse(
    words: np.ndarray,
    offsets: np.ndarray,
    z: np.ndarray,
    n_mk: np.ndarray,
    n_vk: np.ndarray,
    n_k: np.ndarray,
    inv_denominator: np.ndarray,
    nz_topics: np.ndarray,
    nz_len: np.ndarray,
    nz_pos: np.ndarray,
    alpha: float,
    beta: float,
    stream: np.ndarray,
    dense_from: int,
) -> None:
    r"""One sweep of SparseLDA (Yao, Mimno and McCallum 2009): same conditional, sparse work.

    The conditional splits into three buckets,

    .. math::

        \frac{(n_{mk} + \alpha)(n_{kv} + \beta)}{n_k + V\beta}
        = \underbrace{\frac{\alpha\beta}{n_k + V\beta}}_{s}
        + \underbrace{\frac{n_{mk}\beta}{n_k + V\beta}}_{r}
        + \underbrace{\frac{(n_{mk} + \alpha)\, n_{kv}}{n_k + V\beta}}_{q},

    where ``r`` is non-zero only for the document's topics and ``q`` only for the
    word's topics; ``s`` and ``r`` are kept up to date incrementally, so a token
    costs O(topics of its word + topics of its document) instead of O(K).

    A word with more than ``dense_from`` topics (the frequent words of a Zipf
    corpus sit in nearly all K) has its bucket ``q`` computed over every topic
    instead, in one vectorised pass over its contiguous row (the absent topics
    weigh 0), and searched by blocks of 16; a gathered, sequential sum over
    its topic list would cost more. Both orders of the categories are fixed by
    the state, not by the uniform, so both draws are exact.

    Most tokens keep their topic once the chain has mixed, so the token is taken
    out only of what the conditional reads (:func:`_take_out`: its document's and
    word's counts; its topic's ``1 / (n_k + V beta)``, read from the cache
    ``inv_removed``) and put back (:func:`_put_back`) before anything else
    changes; ``n_k``, the topic lists and the running sums ``s`` and ``r``
    change only when the topic does. A topic left with a zero count stays in
    its list until then, with weight 0, which the searches skip.

    Parameters
    ----------
    words : ndarray of int32, shape (N,)
    offsets : ndarray of int64, shape (D + 1,)
    z : ndarray of int32, shape (N,)
    n_mk : ndarray of int32, shape (D, K)
    n_vk : ndarray of int32, shape (V, K)
    n_k : ndarray of int32, shape (K,)
    inv_denominator : ndarray of float64, shape (K,)
        ``1 / (n_k + V * beta)``, kept in step with ``n_k``.
    nz_topics, nz_len, nz_pos : ndarray of int32
        Non-zero topics of every word (:func:`build_topic_lists`), kept in step.
    alpha, beta : float
    stream : ndarray of uint64, shape (4,)
        The chain's xoshiro256+ state (:func:`new_stream`), one uniform per
        token, advanced in place.
    dense_from : int
        Words with more topics than this take the dense word bucket (0: every
        word; K: none). :func:`mcmc_pairs.handrolled.lda.sample` uses ``K // 4`` from
        K = 64, else K (:func:`mcmc_pairs.handrolled.lda.dense_word_threshold`).
    """
    K = n_k.shape[0]
    full = K // 16 * 16
    vbeta = n_vk.shape[0] * beta
    ab = alpha * beta
    coef = np.empty(K)
    q = np.empty(K)
    inv_removed = np.zeros(K)  # 1 / (n_k - 1 + V beta): the denominator without one token
    for k in range(K):
        if n_k[k] > 0:
            inv_removed[k] = 1.0 / (n_k[k] - 1 + vbeta)
    doc_topics = np.empty(K, dtype=np.int32)
    doc_pos = np.full(K, -1, dtype=np.int32)
    s0, s1, s2, s3 = stream[0], stream[1], stream[2], stream[3]
    for m in range(offsets.shape[0] - 1):
        doc = n_mk[m]
        doc_len = 0
        s = 0.0
        r = 0.0
        for k in range(K):
            inv = inv_denominator[k]
            s += ab * inv
            coef[k] = (doc[k] + alpha) * inv
            if doc[k] > 0:
                r += beta * doc[k] * inv
                doc_len = _list_add(doc_topics, doc_len, doc_pos, k)
            else:
                doc_pos[k] = -1
        for i in range(offsets[m], offsets[m + 1]):
            v = words[i]
            row = n_vk[v]
            topics = nz_topics[v]
            old = z[i]
            # take the token out of what the conditional reads
            inv_kept = inv_denominator[old]
            coef_kept = coef[old]
            s_i = s - ab * inv_kept
            r_i = r - beta * doc[old] * inv_kept
            _take_out(doc, row, old)
            inv = inv_removed[old]
            inv_denominator[old] = inv
            coef[old] = (doc[old] + alpha) * inv
            s_i += ab * inv
            r_i += beta * doc[old] * inv
            s0, s1, s2, s3, u = _next_uniform(s0, s1, s2, s3)
            # the word's bucket
            n_word = nz_len[v]
            q_sum = 0.0
            new = -1
            if n_word > dense_from:  # over every topic, in index order
                for t in range(K):
                    w = coef[t] * row[t]
                    q[t] = w
                    q_sum += w
                target = u * (s_i + r_i + q_sum)
                if target < q_sum:
                    new = _search_16(q, target, full)
                    while q[new] == 0.0:  # rounding ran past the word's last topic
                        new -= 1
            else:  # over the word's topic list
                for j in range(n_word):
                    t = topics[j]
                    q_sum += coef[t] * row[t]
                    q[j] = q_sum  # cumulative: the first q[j] > target has weight > 0
                target = u * (s_i + r_i + q_sum)
                if target < q_sum:
                    j = 0
                    while q[j] <= target:
                        j += 1
                    new = topics[j]
            if new < 0:
                target -= q_sum
                if target < r_i:  # the document's bucket
                    rest = target
                    for j in range(doc_len):
                        t = doc_topics[j]
                        w = beta * doc[t] * inv_denominator[t]
                        if w > 0.0:
                            new = t
                            if w > rest:
                                break
                            rest -= w
                if new < 0:  # the smoothing bucket
                    target = max(target - r_i, 0.0)
                    for t in range(K):
                        new = t
                        w = ab * inv_denominator[t]
                        if w > target:
                            break
                        target -= w
            _put_back(doc, row, old)
            if new == old:  # back where it was
                inv_denominator[old] = inv_kept
                coef[old] = coef_kept
                continue
            # the topic changed: move the token from the old topic...
            z[i] = new
            pos = nz_pos[v]
            doc[old] -= 1
            row[old] -= 1
            n_k[old] -= 1
            inv_removed[old] = 1.0 / (n_k[old] - 1 + vbeta) if n_k[old] > 0 else 0.0
            s, r = s_i, r_i
            if row[old] == 0:
                nz_len[v] = _list_remove(topics, nz_len[v], pos, old)
            if doc[old] == 0:
                doc_len = _list_remove(doc_topics, doc_len, doc_pos, old)
            # ... to the new one
            inv = inv_denominator[new]
            s -= ab * inv
            r -= beta * doc[new] * inv
            doc[new] += 1
            row[new] += 1
            n_k[new] += 1
            inv_removed[new] = inv
            inv = 1.0 / (n_k[new] + vbeta)
            inv_denominator[new] = inv
            s += ab * inv
            r += beta * doc[new] * inv
            coef[new] = (doc[new] + alpha) * inv
            if row[new] == 1:
                nz_len[v] = _list_add(topics, nz_len[v], pos, new)
            if doc[new] == 1:
                doc_len = _list_add(doc_topics, doc_len, doc_pos, new)
    stream[0], stream[1], stream[2], stream[3] = s0, s1, s2, s3
