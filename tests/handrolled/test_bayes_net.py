"""Tests of the hand-rolled Bayesian network samplers (seed 004)."""

from __future__ import annotations

import itertools

import arviz_stats as azs
import numpy as np
import pytest
import xarray as xr

from mcmc_pairs.handrolled import bayes_net as bn
from mcmc_pairs.pairdata.bayes_net import default_data

Z = 4.0  # |estimate - truth| / standard error beyond this fails (a few checks per test)


def brute_force_joint(cpts, a, b, c, d, e):
    """P(A, B, C, D, E) written out term by term, independent of the module's code."""

    def pmf(p, x):
        return p if x == 1 else 1.0 - p

    return (
        pmf(cpts["A"], a)
        * pmf(cpts["B"], b)
        * pmf(cpts["C"][a, b], c)
        * pmf(cpts["D"][b], d)
        * pmf(cpts["E"][c], e)
    )


def brute_force_posterior(cpts, evidence):
    """P(node = 1 | evidence) for every node, by explicit loops."""
    totals, z = np.zeros(5), 0.0
    for state in itertools.product((0, 1), repeat=5):
        if any(state[bn.INDEX[k]] != v for k, v in evidence.items()):
            continue
        p = brute_force_joint(cpts, *state)
        z += p
        totals += p * np.array(state)
    return dict(zip(bn.NODES, totals / z, strict=True)), z


def sample_parents_only(data, *, draws, tune, chains, random_seed):
    """A WRONG Gibbs sampler: each node drawn given its parents, its children ignored.

    This is forward sampling with the evidence clamped, a classic mistake: the
    evidence on E never reaches C or B.
    """
    d = bn.validate_data(data)
    cpts, nodes = d["cpts"], bn.free_nodes(d["evidence"])
    rngs = np.random.default_rng(random_seed).spawn(chains)
    state = bn.initial_states(cpts, d["evidence"], rngs)
    out = {node: np.empty((chains, draws), dtype=np.int64) for node in nodes}
    for it in range(tune + draws):
        u = np.stack([rng.random(len(nodes)) for rng in rngs])
        for k, node in enumerate(nodes):
            state[:, bn.INDEX[node]] = u[:, k] < bn.node_given_parents(node, state, cpts)
        if it >= tune:
            for node in nodes:
                out[node][:, it - tune] = state[:, bn.INDEX[node]]
    return out


def max_z_against_exact(draws_by_node, exact):
    """Largest |mean - p| / MCSE over the nodes (MCSE from arviz_stats)."""
    zs = []
    for node, values in draws_by_node.items():
        values = np.asarray(values, dtype=float)
        mcse = float(azs.mcse(values, method="mean"))
        zs.append(abs(values.mean() - exact[node]) / mcse)
    return max(zs)


@pytest.fixture
def data():
    return default_data()


# ------------------------------------------------------------------ exact answers


def test_exact_posterior_matches_brute_force(data):
    exact = bn.exact_posterior(data["cpts"], data["evidence"])
    brute, z = brute_force_posterior(data["cpts"], data["evidence"])
    assert list(exact) == ["B", "C", "D"]
    for node, p in exact.items():
        assert p == pytest.approx(brute[node], rel=1e-12)
    assert bn.evidence_probability(data["cpts"], data["evidence"]) == pytest.approx(z)
    # the numbers stated in the module docstring
    assert z == pytest.approx(0.165)
    assert exact["B"] == pytest.approx(39 / 55)
    assert exact["C"] == pytest.approx(49 / 55)
    assert exact["D"] == pytest.approx(61 / 110)


def test_posterior_table_sums_to_one(data):
    states, probs = bn.posterior_table(data["cpts"], data["evidence"])
    assert states.shape == (8, 5)
    assert probs.sum() == pytest.approx(1.0)
    assert np.all(states[:, bn.INDEX["A"]] == 1)
    assert np.all(states[:, bn.INDEX["E"]] == 1)


def test_joint_probability_sums_to_one(data):
    cpts = bn.validate_cpts(data["cpts"])
    assert bn.joint_probability(cpts, bn.all_states()).sum() == pytest.approx(1.0)


# ------------------------------------------------------- forward and rejection


def test_forward_sample_marginals(data):
    n = 20_000
    states = bn.forward_sample(data["cpts"], n, np.random.default_rng(1))
    assert states.shape == (n, 5)
    assert set(np.unique(states)) <= {0, 1}
    prior, _ = brute_force_posterior(data["cpts"], {})
    for node, p in prior.items():
        se = np.sqrt(p * (1 - p) / n)
        assert abs(states[:, bn.INDEX[node]].mean() - p) / se < Z, node


def test_forward_sample_follows_the_tables(data):
    """P(C = 1 | A = a, B = b) estimated from forward samples matches the table."""
    n = 40_000
    states = bn.forward_sample(data["cpts"], n, np.random.default_rng(2))
    for a, b in itertools.product((0, 1), repeat=2):
        rows = (states[:, 0] == a) & (states[:, 1] == b)
        p = data["cpts"]["C"][a, b]
        se = np.sqrt(p * (1 - p) / rows.sum())
        assert abs(states[rows, 2].mean() - p) / se < Z


def test_rejection_sample_keeps_only_consistent_states(data):
    n = 20_000
    kept, acceptance = bn.rejection_sample(
        data["cpts"], data["evidence"], n, np.random.default_rng(3)
    )
    assert np.all(kept[:, bn.INDEX["A"]] == 1) and np.all(kept[:, bn.INDEX["E"]] == 1)
    assert acceptance == len(kept) / n
    p = 0.165
    assert abs(acceptance - p) / np.sqrt(p * (1 - p) / n) < Z
    exact = bn.exact_posterior(data["cpts"], data["evidence"])
    for node, p_node in exact.items():
        se = np.sqrt(p_node * (1 - p_node) / len(kept))
        assert abs(kept[:, bn.INDEX[node]].mean() - p_node) / se < Z


def test_acceptance_falls_as_evidence_grows(data):
    n = 20_000
    observed, exact = bn.acceptance_fractions(data["cpts"], n=n, rng=np.random.default_rng(4))
    np.testing.assert_allclose(exact, [1.0, 0.3, 0.165, 0.0735, 0.0126], rtol=1e-3)
    assert np.all(np.diff(exact) < 0)
    assert np.all(np.diff(observed) < 0)
    se = np.sqrt(exact * (1 - exact) / n)
    assert observed[0] == 1.0
    assert np.all(np.abs(observed[1:] - exact[1:]) / se[1:] < Z)


# --------------------------------------------------------------- full conditionals


@pytest.mark.parametrize("node", bn.NODES)
def test_full_conditionals_match_enumeration(data, node):
    """P(node = 1 | all others) from each function equals the ratio of joints, in every state."""
    cpts = bn.validate_cpts(data["cpts"])
    states = bn.all_states()
    j = bn.INDEX[node]
    with_one, with_zero = states.copy(), states.copy()
    with_one[:, j], with_zero[:, j] = 1, 0
    p1 = bn.joint_probability(cpts, with_one)
    p0 = bn.joint_probability(cpts, with_zero)
    np.testing.assert_allclose(bn.FULL_CONDITIONALS[node](states, cpts), p1 / (p1 + p0))


@pytest.mark.parametrize("node", bn.NODES)
def test_full_conditional_depends_on_markov_blanket_only(data, node):
    cpts = bn.validate_cpts(data["cpts"])
    blanket = set(bn.PARENTS[node]) | set(bn.CHILDREN[node])
    for child in bn.CHILDREN[node]:
        blanket |= set(bn.PARENTS[child])
    blanket.discard(node)
    outside = [n for n in bn.NODES if n not in blanket and n != node]
    states = bn.all_states()
    base = bn.FULL_CONDITIONALS[node](states, cpts)
    for other in outside:
        flipped = states.copy()
        flipped[:, bn.INDEX[other]] ^= 1
        np.testing.assert_array_equal(bn.FULL_CONDITIONALS[node](flipped, cpts), base)


def test_gibbs_sweep_forced_by_uniforms(data):
    """Uniform 0 sets every updated node to 1, uniform 1 sets it to 0 (no 0/1 probabilities)."""
    cpts = bn.validate_cpts(data["cpts"])
    state = np.array([[1, 0, 0, 0, 1], [1, 1, 1, 1, 1]])
    bn.gibbs_sweep(state, cpts, ("B", "C", "D"), np.zeros((2, 3)))
    np.testing.assert_array_equal(state, np.ones((2, 5)))
    bn.gibbs_sweep(state, cpts, ("B", "C", "D"), np.full((2, 3), 1 - 1e-12))
    np.testing.assert_array_equal(state, [[1, 0, 0, 0, 1]] * 2)


# ------------------------------------------------------------------ the samplers


def test_sample_draws_are_zero_or_one(data):
    out = bn.sample(data, draws=50, tune=10, chains=3, random_seed=5)
    for values in out.values():
        assert values.dtype == np.int64
        assert set(np.unique(values)) <= {0, 1}


def test_initial_states_agree_with_the_evidence_and_can_occur(data):
    cpts = bn.validate_cpts(data["cpts"])
    rngs = np.random.default_rng(8).spawn(16)
    starts = bn.initial_states(cpts, data["evidence"], rngs)
    assert len({tuple(s) for s in starts}) > 1
    assert np.all(bn.joint_probability(cpts, starts) > 0)
    assert np.all(starts[:, bn.INDEX["A"]] == 1) and np.all(starts[:, bn.INDEX["E"]] == 1)


def test_gibbs_matches_exact_posterior(data):
    out = bn.sample(data, draws=2000, tune=200, chains=4, random_seed=9)
    exact = bn.exact_posterior(data["cpts"], data["evidence"])
    assert max_z_against_exact(out, exact) < Z


def test_wrong_parents_only_sampler_is_caught(data):
    out = sample_parents_only(data, draws=2000, tune=200, chains=4, random_seed=9)
    exact = bn.exact_posterior(data["cpts"], data["evidence"])
    assert max_z_against_exact(out, exact) > Z


def test_gibbs_with_other_evidence(data):
    """Evidence on a leaf and on C: the sampled nodes change and still match."""
    data["evidence"] = {"C": 0, "D": 1}
    out = bn.sample(data, draws=2000, tune=200, chains=4, random_seed=10)
    assert set(out) == {"A", "B", "E"}
    assert max_z_against_exact(out, bn.exact_posterior(data["cpts"], data["evidence"])) < Z


def test_sample_rejection_contract_and_accuracy(data):
    tree = bn.sample_rejection(data, draws=2000, tune=0, chains=4, random_seed=11)
    assert isinstance(tree, xr.DataTree)
    posterior = tree["posterior"]
    for node in ("B", "C", "D"):
        assert posterior[node].shape == (4, 2000)
    exact = bn.exact_posterior(data["cpts"], data["evidence"])
    assert max_z_against_exact({n: posterior[n].values for n in exact}, exact) < Z
    spent = tree["sample_stats"]["n_proposals"].values
    assert spent.min() >= 1
    # geometric with success probability P(e): mean 1/p, sd sqrt(1-p)/p
    p = 0.165
    se = np.sqrt(1 - p) / p / np.sqrt(spent.size)
    assert abs(spent.mean() - 1 / p) / se < Z
    rate = tree["sample_stats"]["acceptance_rate"].values
    # the kept fraction so far at every draw; the last is the chain's overall fraction
    np.testing.assert_allclose(rate, np.arange(1, 2001) / spent.cumsum(axis=1))
    np.testing.assert_allclose(rate[:, -1], 2000 / spent.sum(axis=1))


# ------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d["cpts"].update(A=1.5), "cpts\\['A'\\]"),
        (lambda d: d["cpts"].update(B=-0.1), "cpts\\['B'\\]"),
        (lambda d: d["cpts"].update(C=np.array([[0.1, np.nan], [0.4, 0.9]])), "cpts\\['C'\\]"),
        (lambda d: d["cpts"].update(D=np.array([0.2, 0.7, 0.1])), "shape"),
        (lambda d: d["cpts"].pop("E"), "missing the table of node 'E'"),
        (lambda d: d["cpts"].update(F=0.5), "unknown nodes \\['F'\\]"),
        (lambda d: d["evidence"].update(F=1), "unknown nodes \\['F'\\]"),
        (lambda d: d["evidence"].update(B=2), "evidence\\['B'\\] must be 0 or 1, got 2"),
        (lambda d: d["evidence"].update(B=0.5), "evidence\\['B'\\]"),
        (lambda d: d["evidence"].update(B=1, C=1, D=1), "every node"),
        (lambda d: d.pop("evidence"), "'evidence'"),
        (lambda d: d["cpts"].update(A=0.0), "probability zero"),
        (lambda d: d["cpts"].update(E=np.array([0.0, 0.0])), "probability zero"),
    ],
)
def test_bad_data_raises(data, change, match):
    change(data)
    with pytest.raises(ValueError, match=match):
        bn.validate_data(data)
    with pytest.raises(ValueError, match=match):
        bn.sample(data, draws=10, tune=0, chains=2, random_seed=0)


def test_bad_sample_sizes_raise(data):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n must be"):
        bn.forward_sample(data["cpts"], -1, rng)
    with pytest.raises(ValueError, match="n must be"):
        bn.rejection_sample(data["cpts"], data["evidence"], 0, rng)


@pytest.mark.parametrize("sampler", [bn.sample, bn.sample_rejection])
def test_three_continued_calls_give_one_long_run(data, sampler):
    """The unused forward samples are kept in the state, refilled batches go on the stream."""
    state = {}
    parts = [
        sampler(data, draws=n, tune=t, chains=2, random_seed=5, state=state)
        for n, t in ((40, 3), (2, 0), (300, 0))
    ]
    whole = sampler(data, draws=342, tune=3, chains=2, random_seed=5)

    def arrays(result):
        groups = [result] if isinstance(result, dict) else [result["posterior"]]
        if not isinstance(result, dict):
            groups.append(result["sample_stats"])
        return {k: np.asarray(g[k]) for g in groups for k in g.keys()}

    joined = {k: np.concatenate([arrays(p)[k] for p in parts], axis=1) for k in arrays(whole)}
    for k, v in arrays(whole).items():
        np.testing.assert_array_equal(joined[k], v, err_msg=k)


def test_random_scan_is_reversible_and_a_sweep_only_stationary():
    """Seed 004's P_xy (random scan) satisfies detailed balance; a systematic sweep does not."""
    from mcmc_pairs.handrolled import markov_chains as mc

    d = default_data()
    m = bn.gibbs_transition_matrices(d["cpts"], d["evidence"])
    assert m["states"].shape == (8, 5)
    assert np.allclose(m["random_scan"].sum(axis=1), 1) and np.allclose(m["sweep"].sum(axis=1), 1)
    assert mc.detailed_balance_holds(m["pi"], m["random_scan"])
    assert mc.stationary_exactly(m["pi"], m["sweep"])
    assert not mc.detailed_balance_holds(m["pi"], m["sweep"])
    exact = bn.exact_posterior(d["cpts"], d["evidence"])
    for node, p in exact.items():
        assert np.isclose(m["pi"] @ m["states"][:, bn.INDEX[node]], p)
