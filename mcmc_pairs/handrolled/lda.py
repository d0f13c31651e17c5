r"""Latent Dirichlet allocation by collapsed Gibbs sampling (seeds 000 and 002).

The model of the seeds, with symmetric hyperparameters:

.. math::

    \varphi_k \sim \mathrm{Dir}(\beta), \quad
    \theta_m \sim \mathrm{Dir}(\alpha), \quad
    z_{mn} \sim \mathrm{Cat}(\theta_m), \quad
    w_{mn} \sim \mathrm{Cat}(\varphi_{z_{mn}}).

Integrating out :math:`\theta` and :math:`\varphi` leaves the topic
assignments :math:`z`, which the collapsed Gibbs sampler sweeps token by token
with the counts ``n_mk`` (document-topic), ``n_kv`` (topic-word) and ``n_k``
(topic totals): decrement the token's counts, draw its topic from

.. math::

    p(z_i = k \mid z_{-i}, w) \propto (n_{mk} + \alpha)\,
    \frac{n_{kv} + \beta}{n_k + V\beta},

increment. :func:`z_given_rest` is the formula and :func:`sample_z_given_rest`
draws from it; :func:`gibbs_sweep` is the seed's sweep over every token in plain
NumPy, and the compiled :func:`sweep_plain` is the same sweep, tested against it
bit for bit. :func:`sweep_fast` and the SparseLDA sweep :func:`sweep_sparse` of
Yao, Mimno and McCallum (2009) draw from the same conditional faster, with
their uniforms from a per-chain xoshiro256+ stream (see
:mod:`mcmc_pairs.handrolled._lda_kernels`); :func:`sample`'s default,
``kernel="auto"``, runs the faster of the two for the corpus and K
(:func:`auto_kernel`). At every kept draw the parameters are drawn from
their Dirichlet conditionals (seed 000; :func:`phi_given_z`,
:func:`theta_given_z`)

.. math::

    \varphi_k \mid z, w \sim \mathrm{Dir}(n_{k\cdot} + \beta), \qquad
    \theta_m \mid z \sim \mathrm{Dir}(n_{m\cdot} + \alpha),

so the output is a sample of the posterior :math:`p(\theta, \varphi \mid w)`,
comparable with NUTS on the marginalised model, not the smoother
Rao--Blackwell means the seeds print at the end.

Data: the "bars" corpus of Griffiths and Steyvers (2004), 5 x 5 images whose
25 pixels are the words and whose 10 topics are the horizontal and vertical
bars (:func:`mcmc_pairs.pairdata.lda.bars_corpus`, with the corpus's checks in
:mod:`mcmc_pairs.pairdata.lda`).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
from arviz_base import from_dict

from mcmc_pairs.handrolled._common import chain_streams, map_chains, resume_state, save_state
from mcmc_pairs.handrolled._lda_kernels import (
    build_topic_lists,
    initial_counts,
    log_joint,
    new_stream,
    resample_token,
    sweep_fast,
    sweep_plain,
    sweep_sparse,
)
from mcmc_pairs.pairdata.checks import check_sampler_args
from mcmc_pairs.pairdata.lda import validate_data

if TYPE_CHECKING:
    import xarray as xr

__all__ = [
    "auto_kernel",
    "build_topic_lists",
    "dense_word_threshold",
    "fast_below_k",
    "gibbs_sweep",
    "initial_counts",
    "log_joint",
    "new_stream",
    "phi_given_z",
    "resample_token",
    "sample",
    "sample_fast",
    "sample_phi_given_z",
    "sample_plain",
    "sample_sparse",
    "sample_theta_given_z",
    "sample_z_given_rest",
    "sweep_fast",
    "sweep_plain",
    "sweep_sparse",
    "theta_given_z",
    "validate_data",
    "word_frequency",
    "z_given_rest",
]

VARIABLES = ("theta", "phi")
"""Posterior variables the sampler can return."""

KERNELS = ("sparse", "fast", "plain")
"""Sweeps :func:`sample` can run; all draw from the same full conditional."""

AUTO = "auto"
"""``kernel=AUTO`` (the default of :func:`sample`): :func:`auto_kernel` picks the sweep."""

FAST_BELOW_K = 340
"""Topics below which :func:`auto_kernel` picks ``"fast"`` on a corpus like Reuters.

The crossover grows with how frequent a token's word is
(:func:`word_frequency`; :func:`fast_below_k`): frequent words hold many
topics, which makes SparseLDA's word bucket long while the dense sweep's cost
stays O(K). Measured call to result (100 iterations, one thread, CPU time,
medians of repeats run round robin, on a machine loaded by other jobs) with
``benchmarks/lda_throughput.py --kernels fast sparse --peers --dense-max-k
1000 --clock cpu`` and

- ``--topics 100 200 250 300 350 400 500 --repeats 5`` on Reuters (395
  documents, V = 4,258, 84,010 tokens, word frequency 68): fast over sparse
  1.63x at K = 100, 1.22x at 200, 1.08x at 250, 1.07x at 300, 0.98x at 350,
  0.93x at 400, 0.84x at 500: level at about 340;
- ``--corpus generated --documents 1000 --topics 350 500 800`` (199,922 tokens,
  word frequency 3,400): 1.22x at 350, 1.07x at 500, 0.95x at 800: about 675;
- ``--corpus generated --topics 300 500 800`` (1,001,541 tokens, word
  frequency 17,157): 1.31x at 300, 1.18x at 500, 1.02x at 800: about 840

(the ratio interpolated linearly in K). ``340 * (frequency / 68) ** 0.165``
gives 340, 648 and 847: within 4 % of all three, and the ratios near a
crossover are within a few per cent of 1 either way.
"""

CROSSOVER_FREQUENCY = 68.0
"""Reuters's word frequency (:func:`word_frequency`): its crossover is :data:`FAST_BELOW_K`."""
CROSSOVER_EXPONENT = 0.165
"""The crossover grows as the word frequency to this power (fitted to the three corpora above)."""
FAST_BELOW_K_MAX = 850
"""The crossover measured on the most frequent words (the generated corpus): not extrapolated."""

DENSE_WORD_SHARE = 4
DENSE_WORDS_FROM_K = 64
""":func:`sweep_sparse` takes the dense word bucket for a word in more than
``K // DENSE_WORD_SHARE`` topics, from ``K = DENSE_WORDS_FROM_K`` (measured
fastest on the generated Zipf corpus; below, the topic lists are faster)."""


def dense_word_threshold(K: int) -> int:
    """Return :func:`sweep_sparse`'s ``dense_from`` for K topics (K: never dense)."""
    return K // DENSE_WORD_SHARE if K >= DENSE_WORDS_FROM_K else K


MAX_BYTES = 8 * 2**30
"""Default cap on the memory of the returned draws (8 GiB)."""


# ------------------------------------------------------------ full conditionals


def z_given_rest(
    n_mk_row: np.ndarray,
    n_kv_column: np.ndarray,
    n_k: np.ndarray,
    alpha: float,
    beta: float,
    V: int,
) -> np.ndarray:
    r"""Return the unnormalised full conditional of one token's topic.

    .. math::

        p(z_i = k \mid z_{-i}, w) \propto (n_{mk} + \alpha)\,
        \frac{n_{kv} + \beta}{n_k + V\beta},

    the seed's formula with every count taken *without* the token itself (its
    factor :math:`1 / \sum_k (n_{mk} + \alpha)` does not depend on :math:`k`).

    Parameters
    ----------
    n_mk_row : ndarray, shape (K,)
        Topic counts of the token's document, token removed.
    n_kv_column : ndarray, shape (K,)
        Counts of the token's word in each topic, token removed.
    n_k : ndarray, shape (K,)
        Topic totals, token removed.
    alpha, beta : float
        Symmetric Dirichlet hyperparameters.
    V : int
        Vocabulary size.

    Returns
    -------
    ndarray, shape (K,)
        Weights proportional to the probabilities of the K topics.
    """
    return (n_mk_row + alpha) * (n_kv_column + beta) / (n_k + V * beta)


def sample_z_given_rest(
    n_mk_row: np.ndarray,
    n_kv_column: np.ndarray,
    n_k: np.ndarray,
    alpha: float,
    beta: float,
    V: int,
    u: float,
) -> int:
    """Draw one token's topic from :func:`z_given_rest` by inversion of the cumulative sum.

    The new topic is the first ``k`` whose cumulative weight exceeds ``u`` times
    the total, as the compiled :func:`mcmc_pairs.handrolled._lda_kernels.resample_token` draws it.

    Parameters
    ----------
    n_mk_row, n_kv_column, n_k : ndarray, shape (K,)
        Counts without the token, as in :func:`z_given_rest`.
    alpha, beta : float
        Symmetric Dirichlet hyperparameters.
    V : int
        Vocabulary size.
    u : float
        A U(0, 1) draw.

    Returns
    -------
    int
        The new topic, in ``[0, K)``.
    """
    cum = np.cumsum(z_given_rest(n_mk_row, n_kv_column, n_k, alpha, beta, V))
    return min(int(np.searchsorted(cum, u * cum[-1], side="right")), len(cum) - 1)


def phi_given_z(n_kv: np.ndarray, beta: float) -> np.ndarray:
    r"""Return the Dirichlet parameters of the topics given the topic assignments.

    .. math::

        \varphi_k \mid z, w \sim \mathrm{Dir}(n_{k\cdot} + \beta)

    Parameters
    ----------
    n_kv : ndarray, shape (K, V)
        Topic-word counts.
    beta : float
        Symmetric Dirichlet hyperparameter of the topics.

    Returns
    -------
    ndarray, shape (K, V)
        Row ``k`` holds the concentration of :math:`\varphi_k`.
    """
    return n_kv + beta


def theta_given_z(n_mk: np.ndarray, alpha: float) -> np.ndarray:
    r"""Return the Dirichlet parameters of the topic proportions given the topic assignments.

    .. math::

        \theta_m \mid z \sim \mathrm{Dir}(n_{m\cdot} + \alpha)

    Parameters
    ----------
    n_mk : ndarray, shape (D, K)
        Document-topic counts.
    alpha : float
        Symmetric Dirichlet hyperparameter of the documents.

    Returns
    -------
    ndarray, shape (D, K)
        Row ``m`` holds the concentration of :math:`\theta_m`.
    """
    return n_mk + alpha


def _dirichlet_rows(concentration: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw one Dirichlet vector per row of ``concentration`` (shape (R, C))."""
    g = rng.standard_gamma(concentration)
    sums = g.sum(axis=1, keepdims=True)
    underflow = sums[:, 0] == 0.0
    for r in np.flatnonzero(underflow):  # all gammas underflowed: tiny concentrations
        g[r] = rng.dirichlet(concentration[r])
        sums[r] = 1.0
    return g / sums


def sample_phi_given_z(n_kv: np.ndarray, beta: float, rng: np.random.Generator) -> np.ndarray:
    """Draw the topics from their conditional :func:`phi_given_z`.

    Parameters
    ----------
    n_kv : ndarray, shape (K, V)
        Topic-word counts.
    beta : float
        Symmetric Dirichlet hyperparameter of the topics.
    rng : numpy.random.Generator
        Uses one ``standard_gamma`` call of shape (K, V) (and a ``dirichlet``
        call for a row whose gammas all underflow).

    Returns
    -------
    ndarray, shape (K, V)
        Rows summing to one.
    """
    return _dirichlet_rows(phi_given_z(n_kv, beta), rng)


def sample_theta_given_z(n_mk: np.ndarray, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Draw the topic proportions from their conditional :func:`theta_given_z`.

    Parameters
    ----------
    n_mk : ndarray, shape (D, K)
        Document-topic counts.
    alpha : float
        Symmetric Dirichlet hyperparameter of the documents.
    rng : numpy.random.Generator
        As in :func:`sample_phi_given_z`.

    Returns
    -------
    ndarray, shape (D, K)
        Rows summing to one.
    """
    return _dirichlet_rows(theta_given_z(n_mk, alpha), rng)


# ------------------------------------------------------------------------- sweep


def gibbs_sweep(
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
    """One sweep of the seed's step 3 over every token (plain NumPy), in place.

    For each token: take it out of the counts, draw its topic from
    :func:`sample_z_given_rest`, put it back under the new topic. The compiled
    :func:`mcmc_pairs.handrolled._lda_kernels.sweep_plain` is the same sweep, bit for bit.

    Parameters
    ----------
    words : ndarray of int32, shape (N,)
        Word id of every token, documents one after the other.
    offsets : ndarray of int64, shape (D + 1,)
        Document ``m`` holds tokens ``offsets[m]:offsets[m + 1]``.
    z : ndarray of int32, shape (N,)
        Topic assignments, updated in place.
    n_mk, n_kv, n_k : ndarray of int32
        Counts of shapes (D, K), (K, V), (K,), updated in place.
    alpha, beta : float
        Symmetric Dirichlet hyperparameters.
    u : ndarray of float64, shape (N,)
        One U(0, 1) draw per token.
    """
    V = n_kv.shape[1]
    for m in range(offsets.shape[0] - 1):
        for i in range(offsets[m], offsets[m + 1]):
            v, k = words[i], z[i]
            n_mk[m, k] -= 1
            n_kv[k, v] -= 1
            n_k[k] -= 1
            k = sample_z_given_rest(n_mk[m], n_kv[:, v], n_k, alpha, beta, V, u[i])
            z[i] = k
            n_mk[m, k] += 1
            n_kv[k, v] += 1
            n_k[k] += 1


# ----------------------------------------------------------------------- sampler


def word_frequency(d: Mapping) -> float:
    r"""Return how many tokens a token's word has in the corpus, on average over the tokens.

    :math:`\sum_v n_v^2 / N` for word counts :math:`n_v`: 68 on Reuters,
    about 17,000 on the generated corpus of ``benchmarks/lda_throughput.py``,
    whose most frequent words hold a tenth of its tokens.

    Parameters
    ----------
    d : mapping
        Validated data (:func:`validate_data`).
    """
    counts = np.bincount(d["words"], minlength=d["V"]).astype(np.float64)
    return float(counts @ counts) / d["N"]


def fast_below_k(d: Mapping) -> int:
    """Return the number of topics from which ``kernel="auto"`` runs ``"sparse"`` on ``d``.

    ``FAST_BELOW_K * (word_frequency(d) / CROSSOVER_FREQUENCY) ** CROSSOVER_EXPONENT``
    rounded, kept between :data:`FAST_BELOW_K` and :data:`FAST_BELOW_K_MAX`
    (the measured range; the measurements are under :data:`FAST_BELOW_K`):
    340 on Reuters, 847 on the 1 M-token generated corpus.

    Parameters
    ----------
    d : mapping
        Validated data (:func:`validate_data`).
    """
    ratio = max(word_frequency(d) / CROSSOVER_FREQUENCY, 1.0)
    return min(round(FAST_BELOW_K * ratio**CROSSOVER_EXPONENT), FAST_BELOW_K_MAX)


def auto_kernel(d: Mapping) -> str:
    """Return the sweep ``kernel="auto"`` runs on validated data ``d``: ``"fast"`` or ``"sparse"``.

    The dense :func:`sweep_fast` costs O(K) per token, SparseLDA
    (:func:`sweep_sparse`) about the topics its token's word and document
    hold: ``"fast"`` for K below :func:`fast_below_k` (340 to 850 topics,
    growing with :func:`word_frequency`), ``"sparse"`` from it.

    Parameters
    ----------
    d : mapping
        Validated data (:func:`validate_data`).
    """
    return "fast" if d["K"] < fast_below_k(d) else "sparse"


def _state_kernel(state: object) -> str | None:
    """Return the kernel a non-empty ``state`` of :func:`sample` was written with, else ``None``."""
    if isinstance(state, Mapping) and state:
        kernel = state.get("kernel")
        if isinstance(kernel, str) and kernel in KERNELS:
            return kernel
    return None


def _check_options(kernel: object, thin: object, var_names: str | Iterable[str]) -> tuple[str, ...]:
    if not isinstance(kernel, str) or kernel not in (AUTO, *KERNELS):
        raise ValueError(f"kernel must be one of {(AUTO, *KERNELS)}, got {kernel!r}")
    if isinstance(thin, bool) or not isinstance(thin, numbers.Integral) or thin < 1:
        raise ValueError(f"thin must be an integer >= 1, got {thin!r}")
    names = (var_names,) if isinstance(var_names, str) else tuple(var_names)
    unknown = [n for n in names if n not in VARIABLES]
    if unknown or len(set(names)) != len(names):
        raise ValueError(f"var_names must be distinct names among {VARIABLES}, got {var_names!r}")
    return names


def start_chain(d: Mapping, rng: np.random.Generator, kernel: str) -> dict:
    """Draw a chain's initial topics and build what its sweeps keep up to date.

    Parameters
    ----------
    d : mapping
        Validated data (:func:`validate_data`).
    rng : numpy.random.Generator
        The chain's own stream. It spawns two: one for the initial topics and
        the uniforms of the sweeps, one for the Dirichlet draws at kept sweeps,
        so which variables are kept does not change the path of ``z``. The
        plain sweep reads N uniforms per sweep from the first; the fast and
        sparse sweeps draw theirs from a xoshiro256+ stream seeded from it
        (:func:`new_stream`).
    kernel : {"sparse", "fast", "plain"}

    Returns
    -------
    dict
        ``rng`` and ``draw_rng`` (the two spawned streams), ``z`` (N,), the
        counts ``n_mk`` (D, K), ``n_k`` (K,) and ``n_kv`` (K, V) for the plain
        sweep or ``n_vk`` (V, K), ``inv_denominator`` (K,) and ``stream`` (4,)
        for the others, and for the sparse sweep its topic lists
        ``nz_topics``, ``nz_len``, ``nz_pos``: everything :func:`run_chain`
        continues from.
    """
    words, offsets = d["words"], d["offsets"]
    D, K, V, N = d["D"], d["K"], d["V"], d["N"]
    rng, draw_rng = rng.spawn(2)
    z = rng.integers(0, K, size=N).astype(np.int32)  # the seed's step 1: z ~ Mult(1/K)
    n_mk = np.zeros((D, K), dtype=np.int32)
    n_kv = np.zeros((K, V), dtype=np.int32)
    n_k = np.zeros(K, dtype=np.int32)
    initial_counts(words, offsets, z, n_mk, n_kv, n_k)
    chain = {"rng": rng, "draw_rng": draw_rng, "z": z, "n_mk": n_mk, "n_k": n_k}
    if kernel == "plain":
        chain["n_kv"] = n_kv
        return chain
    chain["n_vk"] = n_vk = np.ascontiguousarray(n_kv.T)
    chain["inv_denominator"] = 1.0 / (n_k + V * d["beta"])
    chain["stream"] = new_stream(rng)
    if kernel == "sparse":
        nz_topics, nz_pos = np.empty_like(n_vk), np.empty_like(n_vk)
        nz_len = np.empty(V, dtype=np.int32)
        build_topic_lists(n_vk, nz_topics, nz_len, nz_pos)
        chain.update(nz_topics=nz_topics, nz_len=nz_len, nz_pos=nz_pos)
    return chain


def run_chain(
    d: Mapping,
    rng: np.random.Generator | None,
    *,
    draws: int,
    tune: int,
    thin: int,
    kernel: str,
    out: Mapping[str, np.ndarray],
    log_joint_out: np.ndarray,
    chain: dict | None = None,
) -> dict:
    """Run one chain, writing its kept draws straight into ``out``.

    Parameters
    ----------
    d : mapping
        Validated data (:func:`validate_data`).
    rng : numpy.random.Generator or None
        The chain's own stream, for a fresh start (:func:`start_chain`);
        ignored when ``chain`` is given.
    draws, tune, thin : int
        Kept draws, discarded sweeps, sweeps per kept draw.
    kernel : {"sparse", "fast", "plain"}
    out : mapping of str to ndarray
        ``theta`` (draws, D, K) and/or ``phi`` (draws, K, V) views to fill.
    log_joint_out : ndarray, shape (draws,)
        Filled with ``log p(w, z) / N`` at every kept draw.
    chain : dict, optional
        A chain to continue, as :func:`start_chain` made it and earlier calls
        left it; its arrays and generators are updated in place.

    Returns
    -------
    dict
        The chain (``chain``, or the one started from ``rng``) after its last sweep.

    Raises
    ------
    ValueError
        When neither ``rng`` nor ``chain`` is given.
    """
    words, offsets, N = d["words"], d["offsets"], d["N"]
    alpha, beta = d["alpha"], d["beta"]
    if chain is None:
        if rng is None:
            raise ValueError("run_chain needs the chain's rng to start it, or a chain to continue")
        chain = start_chain(d, rng, kernel)
    rng, draw_rng = chain["rng"], chain["draw_rng"]
    z, n_mk, n_k = chain["z"], chain["n_mk"], chain["n_k"]
    if kernel == "plain":
        n_kv = chain["n_kv"]
        u = np.empty(N)  # one buffer of uniforms for every sweep: no fresh pages per sweep
    else:
        n_vk, inv_denominator, stream = chain["n_vk"], chain["inv_denominator"], chain["stream"]
    if kernel == "sparse":
        nz_topics, nz_len, nz_pos = chain["nz_topics"], chain["nz_len"], chain["nz_pos"]
        dense_from = dense_word_threshold(d["K"])
    for t in range(tune + draws * thin):
        if kernel == "fast":
            sweep_fast(words, offsets, z, n_mk, n_vk, n_k, inv_denominator, alpha, beta, stream)
        elif kernel == "sparse":
            sweep_sparse(
                words,
                offsets,
                z,
                n_mk,
                n_vk,
                n_k,
                inv_denominator,
                nz_topics,
                nz_len,
                nz_pos,
                alpha,
                beta,
                stream,
                dense_from,
            )
        else:
            rng.random(out=u)
            sweep_plain(words, offsets, z, n_mk, n_kv, n_k, alpha, beta, u)
        kept = t - tune + 1
        if kept <= 0 or kept % thin:
            continue
        s = kept // thin - 1
        counts_kv = n_kv if kernel == "plain" else n_vk.T
        if "phi" in out:
            out["phi"][s] = sample_phi_given_z(counts_kv, beta, draw_rng)
        if "theta" in out:
            out["theta"][s] = sample_theta_given_z(n_mk, alpha, draw_rng)
        log_joint_out[s] = log_joint(n_mk, np.ascontiguousarray(counts_kv), n_k, alpha, beta) / N
    return chain


def _sampler_name(kernel: str) -> str:
    """Name under which :func:`sample` with ``kernel`` writes its ``state``."""
    return f"mcmc_pairs.handrolled.lda:sample(kernel={kernel!r})"


def sample(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    kernel: str = AUTO,
    thin: int = 1,
    var_names: Sequence[str] = VARIABLES,
    max_bytes: int = MAX_BYTES,
    state: dict | None = None,
    cores: int | None = None,
) -> xr.DataTree:
    r"""Sample LDA's posterior by collapsed Gibbs, drawing theta and phi at kept sweeps.

    Parameters
    ----------
    data : mapping
        ``docs``, ``V``, ``K``, ``alpha``, ``beta`` (see :func:`validate_data`).
    draws, tune, chains : int
        Kept draws per chain, discarded sweeps, chains.
    random_seed : int or None
        Chain ``c`` uses ``default_rng(random_seed).spawn(chains)[c]``, so one
        chain's draws do not depend on how many chains run.
    kernel : {"auto", "sparse", "fast", "plain"}
        ``"plain"`` is the seed's sweep (:func:`sweep_plain`), the teaching
        version; ``"fast"`` the dense cached one (:func:`sweep_fast`), the
        fastest for few topics; ``"sparse"`` SparseLDA (:func:`sweep_sparse`),
        the fastest for many. ``"auto"`` (default) runs ``"fast"`` below
        a crossover of 340 to 850 topics measured on three corpora and
        ``"sparse"`` from it (:func:`auto_kernel`, :func:`fast_below_k`), or,
        continuing a ``state``, the state's kernel;
        its draws are the chosen kernel's bit for bit. All three draw from the
        same full conditional; ``"fast"`` and ``"sparse"`` take their uniforms
        from the chain's xoshiro256+ stream, ``"plain"`` from its Generator.
        The kernel that ran is the returned tree's ``attrs["kernel"]`` and the
        state's ``kernel``.
    thin : int
        Sweeps per kept draw; ``tune + draws * thin`` sweeps run in all.
    var_names : sequence of str
        Which of ``theta`` and ``phi`` to keep (the sample stat is always kept).
    max_bytes : int
        Refuse (``ValueError``) to allocate more than this for the draws.
    state : dict, optional
        Continue chains (the protocol of :mod:`mcmc_pairs.handrolled._common`): key
        ``chain_states``, per chain what :func:`start_chain` makes (the two
        generators, the xoshiro stream, ``z``, the counts, the sparse sweep's
        topic lists), kept
        rather than rebuilt, and ``kernel``, the sweep that ran. Two calls give
        the draws and ``log_joint_per_token`` of one longer call bit for bit
        (with the same ``thin`` and ``var_names``). A state is tied to its
        kernel: ``"auto"`` continues it with that kernel, another kernel is
        refused (``ValueError``).
    cores : int or None
        Chains run in parallel on up to this many threads (default: every
        available core; :func:`mcmc_pairs.handrolled._common.map_chains`). Each chain has
        its own streams and counts, so the draws are the same bit for bit
        whatever ``cores`` is.

    Returns
    -------
    xarray.DataTree
        ``posterior`` with ``theta`` (chains, draws, D, K) and ``phi`` (chains,
        draws, K, V); ``sample_stats`` with ``log_joint_per_token`` (chains,
        draws), the collapsed :math:`\log p(w, z) / N` that the ``lda`` and
        tomotopy packages report. ``attrs["kernel"]`` names the sweep that
        ran (``"auto"`` resolved), ``attrs["kernel_requested"]`` the argument.
    """
    check_sampler_args(draws, tune, chains, random_seed)
    names = _check_options(kernel, thin, var_names)
    d = validate_data(data)
    requested = kernel
    if kernel == AUTO:
        kernel = _state_kernel(state) or auto_kernel(d)
    D, K, V = d["D"], d["K"], d["V"]
    shapes = {"theta": (D, K), "phi": (K, V)}
    nbytes = 8 * chains * draws * sum(int(np.prod(shapes[n])) for n in names)
    if nbytes > max_bytes:
        raise ValueError(
            f"draws={draws} x chains={chains} of {list(names)} need {nbytes / 2**30:.1f} GiB "
            f"> max_bytes={max_bytes / 2**30:.1f} GiB: raise thin, lower draws, or keep "
            f"fewer var_names"
        )
    sampler = _sampler_name(kernel)
    resumed = resume_state(state, sampler, chains, ("chain_states", "kernel"))
    rngs: list[np.random.Generator | None]
    starts: list[dict | None]
    if resumed is None:
        rngs, starts = [*chain_streams(random_seed, chains, None)], [None] * chains
    else:
        chain_states: list[dict] = list(resumed["chain_states"])
        if any(len(chain["z"]) != d["N"] for chain in chain_states):
            raise ValueError(f"state holds topics for another corpus than the {d['N']} tokens")
        rngs, starts = [None] * chains, [*chain_states]
    posterior = {n: np.empty((chains, draws, *shapes[n])) for n in names}
    stat = np.empty((chains, draws))

    def run(c: int) -> dict:
        return run_chain(
            d,
            rngs[c],
            draws=draws,
            tune=tune,
            thin=thin,
            kernel=kernel,
            out={n: a[c] for n, a in posterior.items()},
            log_joint_out=stat[c],
            chain=starts[c],
        )

    chain_states = map_chains(run, chains, cores, steps=(tune + draws * thin) * d["N"])
    save_state(state, sampler, chains, chain_states=chain_states, kernel=kernel)
    tree = from_dict({"posterior": posterior, "sample_stats": {"log_joint_per_token": stat}})
    tree.attrs.update(kernel=kernel, kernel_requested=requested)
    return tree


def sample_sparse(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
) -> xr.DataTree:
    """Sample with SparseLDA's sweep :func:`sweep_sparse` at every K (see :func:`sample`)."""
    return sample(
        data,
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        kernel="sparse",
        state=state,
    )


def sample_fast(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
) -> xr.DataTree:
    """Sample with the dense cached sweep :func:`sweep_fast` (see :func:`sample`)."""
    return sample(
        data,
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        kernel="fast",
        state=state,
    )


def sample_plain(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
) -> xr.DataTree:
    """Sample with the seed's plain sweep, the teaching version (see :func:`sample`)."""
    return sample(
        data,
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        kernel="plain",
        state=state,
    )
