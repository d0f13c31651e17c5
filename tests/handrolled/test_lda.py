"""Tests of the collapsed Gibbs sampler for LDA (handrolled/lda.py)."""

from __future__ import annotations

import itertools
import types

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

from mcmc_pairs.handrolled import _common
from mcmc_pairs.handrolled import _lda_kernels as K_
from mcmc_pairs.handrolled import lda as L
from mcmc_pairs.handrolled.wrong_samplers import resample_token_keeping_it
from mcmc_pairs.pairdata import lda as lda_data

ALPHA, BETA = 0.3, 0.2


def tiny_data(K=3):
    docs = [np.array([0, 1, 1, 2]), np.array([2, 3, 0]), np.array([4, 4, 1])]
    return L.validate_data({"docs": docs, "V": 5, "K": K, "alpha": ALPHA, "beta": BETA})


def counts_of(d, z):
    n_mk = np.zeros((d["D"], d["K"]), dtype=np.int32)
    n_kv = np.zeros((d["K"], d["V"]), dtype=np.int32)
    n_k = np.zeros(d["K"], dtype=np.int32)
    L.initial_counts(d["words"], d["offsets"], z, n_mk, n_kv, n_k)
    return n_mk, n_kv, n_k


def log_joint_scipy(n_mk, n_kv, alpha, beta):
    """The seed-002 joint, prod_k B(n_k + beta)/B(beta) prod_m B(n_m + alpha)/B(alpha)."""

    def log_b(a):
        return gammaln(a).sum(axis=-1) - gammaln(a.sum(axis=-1))

    K, V = n_kv.shape
    return float(
        (log_b(n_kv + beta) - log_b(np.full(V, beta))).sum()
        + (log_b(n_mk + alpha) - log_b(np.full(K, alpha))).sum()
    )


# ------------------------------------------------------------------ conditional


def test_log_joint_matches_gamma_formula():
    d = tiny_data()
    z = np.random.default_rng(0).integers(0, 3, d["N"]).astype(np.int32)
    n_mk, n_kv, n_k = counts_of(d, z)
    assert L.log_joint(n_mk, n_kv, n_k, ALPHA, BETA) == pytest.approx(
        log_joint_scipy(n_mk, n_kv, ALPHA, BETA), rel=1e-12
    )


def test_conditional_matches_seed_formula():
    """p(z_i = k | rest) = p(w, z_i=k, z_-i) / sum_k' ..., and equals the seed's ratio."""
    d = tiny_data()
    z = np.array([0, 1, 2, 0, 1, 1, 2, 0, 2, 1], dtype=np.int32)
    i, m = 5, 1  # word 3 of document 1
    joint = []
    for k in range(d["K"]):
        zk = z.copy()
        zk[i] = k
        joint.append(log_joint_scipy(*counts_of(d, zk)[:2], ALPHA, BETA))
    exact = np.exp(np.array(joint) - max(joint))
    exact /= exact.sum()
    n_mk, n_kv, n_k = counts_of(d, z)
    k0, v = z[i], d["words"][i]
    n_mk[m, k0] -= 1
    n_kv[k0, v] -= 1
    n_k[k0] -= 1
    got = L.z_given_rest(n_mk[m], n_kv[:, v], n_k, ALPHA, BETA, d["V"])
    np.testing.assert_allclose(got / got.sum(), exact, rtol=1e-12)
    # the compiled step computes the same cumulative weights
    n_mk, n_kv, n_k = counts_of(d, z)
    p = np.empty(d["K"])
    L.resample_token(i, m, d["words"], z.copy(), n_mk, n_kv, n_k, ALPHA, BETA, 0.5, p)
    np.testing.assert_allclose(np.diff(p, prepend=0.0) / p[-1], exact, rtol=1e-12)


def token_frequencies(step, n_draws, seed):
    """Resample token 5 alone n_draws times; return its topic counts and the exact law."""
    d = tiny_data()
    z = np.array([0, 1, 2, 0, 1, 1, 2, 0, 2, 1], dtype=np.int32)
    i, m = 5, 1  # word 3 appears once in the corpus: its own count matters a lot
    n_mk, n_kv, n_k = counts_of(d, z)
    k0, v = z[i], d["words"][i]
    rest = (n_mk[m].copy(), n_kv[:, v].copy(), n_k.copy())
    rest[0][k0] -= 1
    rest[1][k0] -= 1
    rest[2][k0] -= 1
    weights = L.z_given_rest(*rest, ALPHA, BETA, d["V"])
    exact = weights / weights.sum()
    u = np.random.default_rng(seed).random(n_draws)
    p = np.empty(d["K"])
    seen = np.zeros(d["K"], dtype=int)
    for t in range(n_draws):
        seen[step(i, m, d["words"], z, n_mk, n_kv, n_k, ALPHA, BETA, u[t], p)] += 1
    return seen, exact


def test_token_topic_frequencies_match_conditional():
    seen, exact = token_frequencies(L.resample_token, 20_000, seed=1)
    assert stats.chisquare(seen, exact * seen.sum()).pvalue > 1e-3


def test_forgetting_to_remove_the_token_is_caught():
    seen, exact = token_frequencies(resample_token_keeping_it, 20_000, seed=1)
    assert stats.chisquare(seen, exact * seen.sum()).pvalue < 1e-6


# ------------------------------------------------------------------------ sweeps


SWEEPS = ("plain", "fast", "sparse", "sparse-lists", "sparse-dense", "gibbs_sweep")
"""What :func:`run_sweeps` runs: the compiled sweeps, SparseLDA with its default
dense-word threshold (:func:`mcmc_pairs.handrolled.lda.dense_word_threshold`), with its word
bucket always from the topic lists (``dense_from=K``) and always dense
(``dense_from=0``), and the plain-NumPy sweep."""


def run_sweeps(kernel, d, z, n_sweeps, seed, check=None, kernels=K_):
    """Run ``n_sweeps`` sweeps of ``kernel`` from topics ``z``; return z and the counts.

    ``kernels`` is where the sweeps are looked up (the module, or a stand-in with
    deliberately wrong pure-Python versions).
    """
    n_mk, n_kv, n_k = counts_of(d, z)
    n_vk = np.ascontiguousarray(n_kv.T)
    inv = 1.0 / (n_k + d["V"] * d["beta"])
    nz_topics, nz_pos = np.empty_like(n_vk), np.empty_like(n_vk)
    nz_len = np.empty(d["V"], dtype=np.int32)
    L.build_topic_lists(n_vk, nz_topics, nz_len, nz_pos)
    rng = np.random.default_rng(seed)
    stream = L.new_stream(rng)
    dense_from = {
        "sparse": L.dense_word_threshold(d["K"]),
        "sparse-lists": d["K"],
        "sparse-dense": 0,
    }
    for _ in range(n_sweeps):
        if kernel.startswith("sparse"):
            kernels.sweep_sparse(
                d["words"],
                d["offsets"],
                z,
                n_mk,
                n_vk,
                n_k,
                inv,
                nz_topics,
                nz_len,
                nz_pos,
                ALPHA,
                BETA,
                stream,
                dense_from[kernel],
            )
            n_kv = np.ascontiguousarray(n_vk.T)
            for v in range(d["V"]):  # the word's topic list is exactly its non-zero topics
                listed = nz_topics[v, : nz_len[v]]
                assert set(listed.tolist()) == set(np.flatnonzero(n_vk[v]).tolist())
                np.testing.assert_array_equal(nz_pos[v, listed], np.arange(nz_len[v]))
        elif kernel == "fast":
            kernels.sweep_fast(
                d["words"], d["offsets"], z, n_mk, n_vk, n_k, inv, ALPHA, BETA, stream
            )
            n_kv = np.ascontiguousarray(n_vk.T)
        elif kernel == "plain":
            L.sweep_plain(
                d["words"], d["offsets"], z, n_mk, n_kv, n_k, ALPHA, BETA, rng.random(d["N"])
            )
        else:
            L.gibbs_sweep(
                d["words"], d["offsets"], z, n_mk, n_kv, n_k, ALPHA, BETA, rng.random(d["N"])
            )
        if check is not None:
            check(z, n_mk, n_kv, n_k, inv)
    return z, n_mk, n_kv, n_k


@pytest.mark.parametrize("kernel", SWEEPS)
def test_counts_consistent_after_every_sweep(kernel):
    d = L.validate_data(lda_data.default_data())
    z = np.random.default_rng(3).integers(0, d["K"], d["N"]).astype(np.int32)

    def check(z, n_mk, n_kv, n_k, inv):
        want = counts_of(d, z)
        for got, expected in zip((n_mk, n_kv, n_k), want, strict=True):
            np.testing.assert_array_equal(got, expected)
        assert n_k.sum() == d["N"]
        if kernel not in ("plain", "gibbs_sweep"):
            np.testing.assert_allclose(inv, 1.0 / (n_k + d["V"] * BETA), rtol=1e-12)

    run_sweeps(kernel, d, z, 3 if kernel == "gibbs_sweep" else 20, seed=4, check=check)


def test_compiled_sweep_is_the_plain_sweep_bit_for_bit():
    d = L.validate_data(lda_data.default_data())
    z0 = np.random.default_rng(5).integers(0, d["K"], d["N"]).astype(np.int32)
    a = run_sweeps("plain", d, z0.copy(), 3, seed=6)
    b = run_sweeps("gibbs_sweep", d, z0.copy(), 3, seed=6)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def z_frequencies(kernel, replicates=4000, sweeps=8, kernels=K_):
    """Law of z after a few sweeps from random starts, and p(z | w) by enumeration."""
    docs = [np.array([0, 1, 1]), np.array([2, 0])]
    d = L.validate_data({"docs": docs, "V": 3, "K": 3, "alpha": ALPHA, "beta": BETA})
    states = list(itertools.product(range(3), repeat=d["N"]))
    logp = np.array(
        [log_joint_scipy(*counts_of(d, np.array(s, np.int32))[:2], ALPHA, BETA) for s in states]
    )
    exact = np.exp(logp - logp.max())
    exact /= exact.sum()
    rng = np.random.default_rng(7)
    index = {s: j for j, s in enumerate(states)}
    seen = np.zeros(len(states))
    for r in range(replicates):  # independent replicates from random starts
        z = rng.integers(0, 3, d["N"]).astype(np.int32)
        z, *_ = run_sweeps(kernel, d, z, sweeps, seed=r, kernels=kernels)
        seen[index[tuple(int(k) for k in z)]] += 1
    return seen, exact


@pytest.mark.parametrize("kernel", [k for k in SWEEPS if k != "gibbs_sweep"])
def test_sweeps_sample_exact_posterior_of_z(kernel):
    """On a 5-token corpus, every sweep leaves p(z | w) invariant (chi-square on 243 states)."""
    seen, exact = z_frequencies(kernel)
    assert stats.chisquare(seen, exact * seen.sum()).pvalue > 1e-3


@pytest.mark.parametrize(("search", "block"), [("_search", 8), ("_search_16", 16)])
@pytest.mark.parametrize("K", [7, 16, 70, 71])
def test_block_search_is_the_first_running_sum_above_the_target(search, block, K):
    """Integer weights (exact sums, zeros included): the index np.searchsorted finds."""
    rng = np.random.default_rng(K)
    find = getattr(K_, search)
    for _ in range(200):
        p = rng.integers(0, 4, K).astype(float)
        p[-1] += 1.0  # a positive total
        cum = np.cumsum(p)
        full = K // block * block
        for target in (*rng.random(20) * cum[-1], 0.0, *cum[:-1]):
            want = int(np.searchsorted(cum, target, side="right"))
            assert find(p, target, full) == want
            assert find(p, target, 0) == want  # the plain walk
            assert K_._count_search(p, target, full) == want


@pytest.mark.parametrize(("K", "kernels"), [(42, ("fast",)), (70, ("fast", "sparse-dense"))])
def test_many_topics_searches_sample_exact_posterior_of_z(K, kernels):
    """Many topics: sweep_fast's count by blocks of 4 with a tail of 2 (K = 42), its and the
    dense word bucket's blocks of 8 (K = 70).

    The tiny corpora above exercise the count search with fewer topics than a block.

    Two tokens of two words in one document, K**2 states: the first token's topic
    is uniform by symmetry (chi-square on K cells: a search that favours or skips
    a block or a block's tail fails), and both tokens share a topic with the
    exact probability (z-score on its Monte Carlo error).
    """
    assert 42 < K_.COUNT_BELOW <= 70
    d = L.validate_data({"docs": [np.array([0, 1])], "V": 2, "K": K, "alpha": ALPHA, "beta": BETA})
    same = np.array([a == b for a in range(K) for b in range(K)])
    logp = np.array(
        [
            log_joint_scipy(*counts_of(d, np.array([a, b], np.int32))[:2], ALPHA, BETA)
            for a in range(K)
            for b in range(K)
        ]
    )
    exact = np.exp(logp - logp.max())
    p_same = exact[same].sum() / exact.sum()
    rng = np.random.default_rng(11)
    replicates = 14_000
    for kernel in kernels:
        first = np.zeros(K)
        n_same = 0
        for r in range(replicates):
            z = rng.integers(0, K, 2).astype(np.int32)
            z, *_ = run_sweeps(kernel, d, z, 3, seed=r)
            first[z[0]] += 1
            n_same += z[0] == z[1]
        assert stats.chisquare(first).pvalue > 1e-3, kernel
        mcse = np.sqrt(p_same * (1 - p_same) / replicates)
        assert abs(n_same / replicates - p_same) / mcse < 3.5, kernel


# ------------------------------------------------------ deliberately wrong sweeps

M64 = 2**64 - 1


def next_uniform_reference(s0, s1, s2, s3):
    """xoshiro256+ as Blackman and Vigna's C code writes it, on Python integers."""
    s0, s1, s2, s3 = int(s0), int(s1), int(s2), int(s3)
    result = (s0 + s3) & M64
    t = (s1 << 17) & M64
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = ((s3 << 45) | (s3 >> 19)) & M64
    return s0, s1, s2, s3, (result >> 11) * 2.0**-53


def test_stream_is_xoshiro256plus_and_uniform():
    stream = L.new_stream(np.random.default_rng(0))
    state = tuple(int(s) for s in stream)
    want = []
    for _ in range(1000):
        *state, u = next_uniform_reference(*state)
        want.append(u)
    got = np.empty(1000)
    K_.stream_uniforms(stream, got)
    np.testing.assert_array_equal(got, want)
    assert tuple(int(s) for s in stream) == tuple(state)
    more = np.empty(100_000)
    K_.stream_uniforms(stream, more)
    assert more.min() >= 0.0 and more.max() < 1.0
    assert stats.kstest(more, "uniform").pvalue > 1e-3
    # the same Generator seeds the same stream; another one another stream
    np.testing.assert_array_equal(
        L.new_stream(np.random.default_rng(0)), L.new_stream(np.random.default_rng(0))
    )
    assert not np.array_equal(
        L.new_stream(np.random.default_rng(0)), L.new_stream(np.random.default_rng(1))
    )


def wrong_kernels(monkeypatch, **helpers):
    """The compiled sweeps as pure Python (``py_func``) with some helpers replaced."""
    monkeypatch.setattr(K_, "_next_uniform", next_uniform_reference)
    for name, helper in helpers.items():
        monkeypatch.setattr(K_, name, helper)
    return types.SimpleNamespace(
        sweep_fast=K_._sweep_fast_counting.py_func,
        sweep_sparse=K_.sweep_sparse.py_func,
    )


def test_python_sweeps_sample_exact_posterior_of_z(monkeypatch):
    """The pure-Python sweeps the wrong variants below start from are right as they stand."""
    kernels = wrong_kernels(monkeypatch)
    for kernel in ("fast", "sparse-lists", "sparse-dense"):
        seen, exact = z_frequencies(kernel, replicates=1500, kernels=kernels)
        assert stats.chisquare(seen, exact * seen.sum()).pvalue > 1e-3, kernel


def test_fast_sweep_keeping_the_token_in_its_weight_is_caught(monkeypatch):
    def weight_with_token(n_mk_old, n_vk_old, inv_removed_old, alpha, beta):
        return (n_mk_old + alpha) * (n_vk_old + beta) * inv_removed_old

    kernels = wrong_kernels(monkeypatch, _weight_without_token=weight_with_token)
    seen, exact = z_frequencies("fast", replicates=1500, kernels=kernels)
    assert stats.chisquare(seen, exact * seen.sum()).pvalue < 1e-6


@pytest.mark.parametrize("kernel", ["sparse-lists", "sparse-dense"])
def test_sparse_sweep_forgetting_to_take_the_token_out_is_caught(monkeypatch, kernel):
    def nothing(doc, row, old):
        pass

    kernels = wrong_kernels(monkeypatch, _take_out=nothing, _put_back=nothing)
    seen, exact = z_frequencies(kernel, replicates=1500, kernels=kernels)
    assert stats.chisquare(seen, exact * seen.sum()).pvalue < 1e-6


# ----------------------------------------------------------------------- sample


def test_sample_draws_distributions_and_the_log_joint():
    d = lda_data.default_data()
    tree = L.sample(d, draws=7, tune=3, chains=2, random_seed=1)
    post = tree["posterior"]
    np.testing.assert_allclose(post["theta"].values.sum(-1), 1.0)
    np.testing.assert_allclose(post["phi"].values.sum(-1), 1.0)
    lj = tree["sample_stats"]["log_joint_per_token"]
    assert lj.shape == (2, 7)
    assert np.all(lj.values < 0)


def test_thin_and_var_names_bound_memory():
    d = lda_data.default_data()
    full = L.sample(d, draws=4, tune=0, chains=1, random_seed=3, thin=2)
    only_phi = L.sample(d, draws=4, tune=0, chains=1, random_seed=3, thin=2, var_names=["phi"])
    assert "theta" not in only_phi["posterior"]
    assert only_phi["posterior"]["phi"].shape == (1, 4, 10, 25)
    # the same sweeps ran; only the Dirichlet draws of theta are skipped
    np.testing.assert_array_equal(
        full["sample_stats"]["log_joint_per_token"].values,
        only_phi["sample_stats"]["log_joint_per_token"].values,
    )
    with pytest.raises(ValueError, match="max_bytes"):
        L.sample(d, draws=10**6, tune=0, chains=4, random_seed=1, max_bytes=2**30)


def test_bars_corpus_follows_the_topics():
    docs, topics = lda_data.bars_corpus(200, 50, 1.0, np.random.default_rng(0))
    assert topics.shape == (10, 25)
    np.testing.assert_allclose(topics.sum(1), 1.0)
    assert all(doc.shape == (50,) and doc.min() >= 0 and doc.max() < 25 for doc in docs)
    # every pixel is on exactly two bars, so all 25 words are used about equally
    counts = np.bincount(np.concatenate(docs), minlength=25)
    assert counts.min() > 0


# -------------------------------------------------------------------- bad input


def bad(**change):
    data = {"docs": [np.array([0, 1]), np.array([2])], "V": 3, "K": 2, "alpha": 0.1, "beta": 0.1}
    data.update(change)
    return data


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (bad(docs=[]), "docs"),
        (bad(docs=[np.array([0]), np.array([], dtype=int)]), r"docs\[1\]"),
        (bad(docs=[np.array([0, 3])]), r"docs\[0\].*outside"),
        (bad(docs=[np.array([-1])]), r"docs\[0\].*outside"),
        (bad(docs=[np.array([0.5, 1.0])]), r"docs\[0\].*integer"),
        (bad(docs=[np.array([[0, 1]])]), r"docs\[0\].*1-D"),
        (bad(K=1), "K"),
        (bad(K=2.5), "K"),
        (bad(V=0), "V"),
        (bad(alpha=0.0), "alpha"),
        (bad(beta=-1.0), "beta"),
        (bad(beta=float("nan")), "beta"),
        ({"docs": [np.array([0])], "V": 3, "K": 2, "alpha": 0.1}, "beta"),
    ],
)
def test_bad_data_raises_naming_the_key(data, match):
    with pytest.raises(ValueError, match=match):
        L.validate_data(data)
    with pytest.raises(ValueError, match=match):
        L.sample(data, draws=1, tune=0, chains=1, random_seed=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"thin": 0}, "thin"),
        ({"kernel": "alias"}, "kernel"),
        ({"var_names": ["beta"]}, "var_names"),
    ],
)
def test_bad_sampler_options(kwargs, match):
    args = {"draws": 1, "tune": 0, "chains": 1, "random_seed": 0} | kwargs
    with pytest.raises(ValueError, match=match):
        L.sample(bad(), **args)


@pytest.mark.parametrize("kernel", L.KERNELS)
def test_continued_thinned_chains_are_one_long_run(kernel):
    """Three calls on one state, thinned and keeping phi only: one call, bit for bit."""
    d = lda_data.default_data()
    options = {"kernel": kernel, "thin": 2, "var_names": ["phi"], "chains": 2, "random_seed": 4}
    state = {}
    parts = [
        L.sample(d, draws=n, tune=t, state=state, **options) for n, t in ((2, 3), (3, 0), (2, 0))
    ]
    whole = L.sample(d, draws=7, tune=3, **options)
    for group, name in (("posterior", "phi"), ("sample_stats", "log_joint_per_token")):
        joined = np.concatenate([p[group][name].values for p in parts], axis=1)
        np.testing.assert_array_equal(joined, whole[group][name].values)
    # the kept counts are the counts of the kept topics
    d_ = L.validate_data(d)
    for chain in state["chain_states"]:
        n_mk, n_kv, n_k = counts_of(d_, chain["z"])
        np.testing.assert_array_equal(chain["n_mk"], n_mk)
        np.testing.assert_array_equal(chain.get("n_kv", chain.get("n_vk", np.empty(0)).T), n_kv)
        np.testing.assert_array_equal(chain["n_k"], n_k)


@pytest.mark.parametrize("kernel", L.KERNELS)
def test_chains_on_threads_are_the_sequential_chains_bit_for_bit(kernel, monkeypatch):
    """Chains run on 1, 2 or 4 threads, fresh and continued: the same draws."""
    monkeypatch.setattr(_common, "PARALLEL_MIN_STEPS", 0)  # threads even for these few sweeps
    d = lda_data.default_data()
    options = {"kernel": kernel, "chains": 4, "random_seed": 9, "thin": 2}
    runs = []
    for cores in (1, 2, 4):
        state = {}
        first = L.sample(d, draws=3, tune=2, state=state, cores=cores, **options)
        more = L.sample(d, draws=2, tune=0, state=state, cores=cores, **options)
        runs.append((first, more))
    for first, more in runs[1:]:
        for tree, expected in ((first, runs[0][0]), (more, runs[0][1])):
            for group, name in (
                ("posterior", "theta"),
                ("posterior", "phi"),
                ("sample_stats", "log_joint_per_token"),
            ):
                got, want = tree[group][name].values, expected[group][name].values
                np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="cores"):
        L.sample(d, draws=1, tune=0, chains=2, random_seed=1, cores=0)


def test_a_state_of_another_kernel_or_corpus_is_refused():
    d = lda_data.default_data()
    state = {}
    L.sample(d, draws=2, tune=0, chains=2, random_seed=1, state=state, kernel="plain")
    with pytest.raises(ValueError, match="state"):
        L.sample(d, draws=2, tune=0, chains=2, random_seed=1, state=state, kernel="fast")
    smaller = d | {"docs": d["docs"][:-1]}
    with pytest.raises(ValueError, match="state"):
        L.sample(smaller, draws=2, tune=0, chains=2, random_seed=1, state=state, kernel="plain")


def test_a_chain_needs_its_rng_or_a_chain_to_continue():
    d = tiny_data()
    out = {"phi": np.empty((1, d["K"], d["V"]))}
    with pytest.raises(ValueError, match="rng"):
        L.run_chain(d, None, draws=1, tune=0, thin=1, kernel="plain", out=out,
                    log_joint_out=np.empty(1))  # fmt: skip


# ------------------------------------------------------------ kernel="auto"


def draws_of(tree):
    return [
        tree["posterior"]["theta"].values,
        tree["posterior"]["phi"].values,
        tree["sample_stats"]["log_joint_per_token"].values,
    ]


def assert_same_draws(a, b):
    for x, y in zip(draws_of(a), draws_of(b), strict=True):
        np.testing.assert_array_equal(x, y)


def corpus_with_word_frequency(top_count, K=3):
    """Twenty documents of words 1..40 once each, and word 0 ``top_count`` times in all."""
    docs = [np.arange(1, 41) for _ in range(20)]
    docs[0] = np.concatenate([docs[0], np.zeros(top_count, dtype=int)])
    return L.validate_data({"docs": docs, "V": 41, "K": K, "alpha": ALPHA, "beta": BETA})


def test_word_frequency_is_the_token_weighted_count_of_a_tokens_word():
    d = corpus_with_word_frequency(200)
    assert L.word_frequency(d) == pytest.approx((200**2 + 40 * 20**2) / (200 + 800))


@pytest.mark.parametrize(
    ("top_count", "expected"),
    [
        (0, L.FAST_BELOW_K),  # rarer words than Reuters's: Reuters's crossover
        (2000, 562),  # round(340 * (frequency / 68) ** 0.165), frequency 1,434.3
        (10**6, L.FAST_BELOW_K_MAX),  # beyond the measured corpora: not extrapolated
    ],
)
def test_the_crossover_grows_with_the_word_frequency(top_count, expected):
    assert L.fast_below_k(corpus_with_word_frequency(top_count)) == expected


@pytest.mark.parametrize("top_count", [0, 2000])
def test_auto_picks_fast_below_the_crossover_and_sparse_from_it(top_count):
    crossover = L.fast_below_k(corpus_with_word_frequency(top_count))
    for K, expected in (
        (2, "fast"),
        (crossover - 1, "fast"),
        (crossover, "sparse"),
        (2000, "sparse"),
    ):
        assert L.auto_kernel(corpus_with_word_frequency(top_count, K)) == expected, K


@pytest.mark.parametrize(("fast_below", "expected"), [(None, "fast"), (5, "sparse")])
def test_auto_draws_are_the_chosen_kernels_bit_for_bit(fast_below, expected, monkeypatch):
    """The default call runs the kernel it names, in attrs and state, with that kernel's draws."""
    if fast_below is not None:  # the bars corpus's K = 10 on the other side of the crossover
        monkeypatch.setattr(L, "fast_below_k", lambda d: fast_below)
    d = lda_data.default_data()
    options = {"draws": 4, "tune": 3, "chains": 2, "random_seed": 5}
    state, forced_state = {}, {}
    auto = L.sample(d, state=state, **options)
    forced = L.sample(d, kernel=expected, state=forced_state, **options)
    assert auto.attrs["kernel"] == state["kernel"] == expected
    assert auto.attrs["kernel_requested"] == "auto"
    assert forced.attrs == {"kernel": expected, "kernel_requested": expected}
    assert state["sampler"] == forced_state["sampler"]
    assert_same_draws(auto, forced)


def test_a_continued_chain_keeps_its_kernel(monkeypatch):
    """``"auto"`` continues a state with the kernel it started with, whatever it would pick now."""
    d = lda_data.default_data()
    options = {"chains": 2, "random_seed": 7}
    monkeypatch.setattr(L, "fast_below_k", lambda d: 5)  # K = 10: auto starts with sparse
    state = {}
    first = L.sample(d, draws=3, tune=2, state=state, **options)
    monkeypatch.undo()  # K = 10: auto would now pick fast
    assert L.auto_kernel(L.validate_data(d)) == "fast"
    more = L.sample(d, draws=2, tune=0, state=state, **options)
    assert first.attrs["kernel"] == more.attrs["kernel"] == state["kernel"] == "sparse"
    whole = L.sample(d, draws=5, tune=2, kernel="sparse", **options)
    for a, b, w in zip(draws_of(first), draws_of(more), draws_of(whole), strict=True):
        np.testing.assert_array_equal(np.concatenate([a, b], axis=1), w)
    # a state of a forced kernel continues under "auto" with that kernel too
    plain = {}
    L.sample(d, draws=2, tune=0, kernel="plain", state=plain, **options)
    assert L.sample(d, draws=1, tune=0, state=plain, **options).attrs["kernel"] == "plain"
    # and a state of "auto"'s choice is refused by another kernel
    with pytest.raises(ValueError, match="state"):
        L.sample(d, draws=1, tune=0, kernel="fast", state=state, **options)


@pytest.mark.parametrize("kernel", [None, "AUTO", "dense", 3])
def test_unknown_kernels_are_refused_naming_kernel(kernel):
    with pytest.raises(ValueError, match="kernel"):
        L.sample(bad(), draws=1, tune=0, chains=1, random_seed=0, kernel=kernel)


def test_the_pairs_gibbs_variant_is_the_sparse_kernel_at_every_K():
    """``handrolled:gibbs`` of the LDA pair stays SparseLDA, whatever ``"auto"`` picks."""
    from mcmc_pairs.comparisons.pairs.lda import PAIR

    assert PAIR.handrolled["gibbs"] == "mcmc_pairs.handrolled.lda:sample_sparse"
    d = lda_data.default_data()  # K = 10: "auto" picks fast
    options = {"draws": 3, "tune": 2, "chains": 2, "random_seed": 3}
    tree = L.sample_sparse(d, **options)
    assert tree.attrs["kernel"] == "sparse"
    assert_same_draws(tree, L.sample(d, kernel="sparse", **options))
