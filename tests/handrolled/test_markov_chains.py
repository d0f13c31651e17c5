"""Tests of the Markov chains of seeds 002 and 004."""

from __future__ import annotations

import arviz_stats as azs
import numpy as np
import pytest

from mcmc_pairs.handrolled import markov_chains as mc

Z = 4.0
RHAT = 1.01
N_STEPS = 20_000


def max_z_occupancy(paths, pi):
    """Largest |occupancy - pi| / MCSE over the states.

    ``paths`` has shape (chains, steps); each state's indicator series is
    autocorrelated, so its MCSE comes from arviz_stats (ESS-based), not from
    the binomial formula.
    """
    zs = []
    for state, p in enumerate(pi):
        indicator = (np.asarray(paths) == state).astype(float)
        mcse = float(azs.mcse(indicator, method="mean"))
        zs.append(abs(indicator.mean() - p) / mcse)
    return max(zs)


def max_rhat(paths, n_states):
    """Largest R-hat of the state indicators: do chains from different starts agree?"""
    paths = np.asarray(paths)
    return max(float(azs.rhat((paths == s).astype(float))) for s in range(n_states))


def simulate_ignoring_current_state(P, n_steps, start, rng):
    """A WRONG simulator: every step drawn from the start's row, not the current state's."""
    P = np.asarray(P)
    steps = rng.choice(P.shape[0], size=n_steps, p=P[start])
    return np.concatenate([[start], steps])


def simulate_plain(P, start, uniforms):
    """Plain-Python version of the kernel, for a bit-for-bit comparison."""
    cumulative = np.cumsum(P, axis=1)
    cumulative[:, -1] = 1.0
    states = [start]
    for u in uniforms:
        states.append(int(np.searchsorted(cumulative[states[-1]], u, side="right")))
    return np.array(states)


# --------------------------------------------------------- stationary distributions


def test_seed_004_stationary_distribution():
    pi = mc.stationary_distribution(mc.SEED_004_P)
    np.testing.assert_allclose(pi, [27 / 122, 50 / 122, 45 / 122], rtol=1e-12)
    np.testing.assert_allclose(pi, mc.SEED_004_STATIONARY, rtol=1e-12)
    # the seed's author measured (0.22, 0.41, 0.37): right to two decimals
    np.testing.assert_array_equal(np.round(pi, 2), [0.22, 0.41, 0.37])
    # the text's (0.2, 0.4, 0.4) is right only to one decimal
    assert not np.allclose(pi, [0.2, 0.4, 0.4], atol=0.01)
    np.testing.assert_array_equal(np.round(pi, 1), [0.2, 0.4, 0.4])


def test_seed_002_stationary_distribution():
    pi = mc.stationary_distribution(mc.SEED_002_P)
    np.testing.assert_allclose(pi, [0.625, 0.3125, 0.0625], rtol=1e-12)
    np.testing.assert_allclose(pi, mc.SEED_002_STATIONARY, rtol=1e-12)


@pytest.mark.parametrize(("a", "b"), [(0.3, 0.1), (0.9, 0.9), (1.0, 0.5)])
def test_two_state_chain_closed_form(a, b):
    """P = [[1-a, a], [b, 1-b]] has pi = (b, a) / (a + b)."""
    pi = mc.stationary_distribution([[1 - a, a], [b, 1 - b]])
    np.testing.assert_allclose(pi, [b / (a + b), a / (a + b)], rtol=1e-12)


@pytest.mark.parametrize("P", [mc.SEED_004_P, mc.SEED_002_P])
def test_stationary_is_invariant(P):
    pi = mc.stationary_distribution(P)
    np.testing.assert_allclose(pi @ P, pi, atol=1e-14)
    assert pi.sum() == pytest.approx(1.0)
    assert np.all(pi >= 0)


# ------------------------------------------------------ the state distribution path


def test_state_distribution_path_seed_004():
    path = mc.state_distribution_path(mc.SEED_004_P, mc.SEED_004_START, 100)
    assert path.shape == (101, 3)
    np.testing.assert_array_equal(path[0], mc.SEED_004_START)
    np.testing.assert_allclose(path[1], [0.18, 0.64, 0.18])  # (0.5, 0.2, 0.3) P by hand
    np.testing.assert_allclose(path[1:], path[:-1] @ mc.SEED_004_P)
    np.testing.assert_allclose(path.sum(axis=1), 1.0)
    np.testing.assert_allclose(path[-1], mc.SEED_004_STATIONARY, atol=1e-12)


@pytest.mark.parametrize(
    ("P", "pi"), [(mc.SEED_004_P, mc.SEED_004_STATIONARY), (mc.SEED_002_P, mc.SEED_002_STATIONARY)]
)
def test_path_forgets_its_start_geometrically(P, pi):
    """From every corner the distance to pi shrinks like |lambda_2|^t."""
    rate = np.sort(np.abs(np.linalg.eigvals(P)))[-2]
    for start in np.eye(3):
        path = mc.state_distribution_path(P, start, 60)
        tv = mc.total_variation(path, pi)
        assert tv[-1] < 1e-6
        assert np.all(tv[1:] <= tv[0] * rate ** np.arange(1, 61) * 10)


# ----------------------------------------------------------------------- simulation


def test_kernel_matches_plain_python():
    rng = np.random.default_rng(1)
    uniforms = rng.random(500)
    for P in (mc.SEED_004_P, mc.SEED_002_P):
        cumulative = np.cumsum(P, axis=1)
        cumulative[:, -1] = 1.0
        np.testing.assert_array_equal(
            mc.simulate_kernel(cumulative, 2, uniforms), simulate_plain(P, 2, uniforms)
        )


def test_simulate_chain_contract():
    path = mc.simulate_chain(mc.SEED_004_P, 1000, 0, np.random.default_rng(2))
    assert path.shape == (1001,) and path.dtype == np.int64 and path[0] == 0
    again = mc.simulate_chain(mc.SEED_004_P, 1000, 0, np.random.default_rng(2))
    np.testing.assert_array_equal(path, again)
    # only allowed moves: state 0 always goes to 1, 1 never to 0, 2 never stays
    moves = set(zip(path[:-1].tolist(), path[1:].tolist(), strict=True))
    assert all(mc.SEED_004_P[i, j] > 0 for i, j in moves)
    assert mc.simulate_chain(mc.SEED_004_P, 0, 2, np.random.default_rng(3)).tolist() == [2]


@pytest.mark.parametrize(
    ("P", "pi"), [(mc.SEED_004_P, mc.SEED_004_STATIONARY), (mc.SEED_002_P, mc.SEED_002_STATIONARY)]
)
def test_occupancy_from_several_starts_matches_stationary(P, pi):
    paths = mc.simulate_from_starts(P, N_STEPS, starts=[0, 1, 2], random_seed=4)
    assert paths.shape == (3, N_STEPS + 1)
    np.testing.assert_array_equal(paths[:, 0], [0, 1, 2])
    assert max_z_occupancy(paths, pi) < Z
    assert max_rhat(paths, 3) < RHAT
    # every chain on its own, too
    for path in paths:
        assert max_z_occupancy(path[None, :], pi) < Z


def test_occupancy_catches_the_texts_claim():
    """The same test rejects (0.2, 0.4, 0.4), the stationary distribution claimed in seed 004."""
    paths = mc.simulate_from_starts(mc.SEED_004_P, N_STEPS, starts=[0, 1, 2], random_seed=4)
    assert max_z_occupancy(paths, [0.2, 0.4, 0.4]) > Z


def test_occupancy_catches_a_wrong_simulator():
    rngs = np.random.default_rng(5).spawn(3)
    paths = np.stack(
        [
            simulate_ignoring_current_state(mc.SEED_002_P, N_STEPS, s, rng)
            for s, rng in zip([0, 1, 2], rngs, strict=True)
        ]
    )
    # chains from different starts disagree (seed 004's multiple-chain advice) ...
    assert max_rhat(paths, 3) > RHAT
    # ... and each one on its own misses pi
    for path in paths:
        assert max_z_occupancy(path[None, :], mc.SEED_002_STATIONARY) > Z


def test_occupancy_helper():
    np.testing.assert_allclose(mc.occupancy([0, 1, 1, 2], 3), [0.25, 0.5, 0.25])
    np.testing.assert_allclose(mc.occupancy([[0, 0], [1, 2]], 3), [[1, 0, 0], [0, 0.5, 0.5]])


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("P", "match"),
    [
        ([[0.5, 0.4], [0.5, 0.5]], "rows of P must sum to 1; row 0 sums to 0.9$"),
        ([[1.2, -0.2], [0.5, 0.5]], "negative probability P\\[0, 1\\] = -0.2"),
        ([[0.5, 0.5]], "square"),
        ([0.5, 0.5], "square"),
        ([[np.nan, 1.0], [0.5, 0.5]], "finite"),
        ([["a", "b"], ["c", "d"]], "numeric"),
    ],
)
def test_bad_transition_matrix(P, match):
    with pytest.raises(ValueError, match=match):
        mc.validate_transition_matrix(P)
    with pytest.raises(ValueError, match=match):
        mc.stationary_distribution(P)
    with pytest.raises(ValueError, match=match):
        mc.simulate_chain(P, 10, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match=match):
        mc.state_distribution_path(P, [0.5, 0.5], 10)


def test_reducible_chain_has_no_unique_stationary_distribution():
    with pytest.raises(ValueError, match="reducible"):
        mc.stationary_distribution(np.eye(3))


@pytest.mark.parametrize(
    ("pi0", "match"),
    [
        ([0.5, 0.5], "shape \\(3,\\)"),
        ([0.5, 0.6, -0.1], "probability vector"),
        ([0.2, 0.2, 0.2], "sum"),
    ],
)
def test_bad_initial_distribution(pi0, match):
    with pytest.raises(ValueError, match=match):
        mc.state_distribution_path(mc.SEED_004_P, pi0, 5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"start": 3}, "start"),
        ({"start": -1}, "start"),
        ({"n_steps": -1}, "n_steps"),
        ({"n_steps": 1.5}, "n_steps"),
    ],
)
def test_bad_simulation_arguments(kwargs, match):
    args = {"n_steps": 10, "start": 0, **kwargs}
    with pytest.raises(ValueError, match=match):
        mc.simulate_chain(mc.SEED_004_P, rng=np.random.default_rng(0), **args)


# ------------------------------------------ irreducibility, periodicity, exact MH matrices


def test_period_and_irreducibility():
    assert mc.is_irreducible(mc.SEED_004_P) and mc.period(mc.SEED_004_P) == 1
    flip = [[0, 1], [1, 0]]
    assert mc.is_irreducible(flip) and mc.period(flip) == 2
    cycle = [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    assert mc.period(cycle) == 3
    assert not mc.is_irreducible([[1, 0], [0.5, 0.5]])
    with pytest.raises(ValueError):
        mc.period([[1, 0], [0, 1]])


def test_metropolis_hastings_matrix_exact_detailed_balance():
    """Seed 003's target [0.5, 0.2, 0.3]: MH and seed 003's rule in detailed balance, 002's not."""
    pi = mc.exact([0.5, 0.2, 0.3])
    Q = mc.exact([[0.2, 0.5, 0.3], [0.4, 0.2, 0.4], [0.1, 0.6, 0.3]])
    for rule in ("mh", "seed003"):
        P = mc.metropolis_hastings_matrix(pi, Q, rule)
        assert all(sum(row) == 1 for row in P)
        assert mc.detailed_balance_holds(pi, P) and mc.stationary_exactly(pi, P)
    mh = mc.metropolis_hastings_matrix(pi, Q, "mh")
    seed003 = mc.metropolis_hastings_matrix(pi, Q, "seed003")
    off = ~np.eye(3, dtype=bool)
    assert (mh[off] >= seed003[off]).all()  # the min form accepts at least as often
    seed002 = mc.metropolis_hastings_matrix(pi, Q, "seed002")
    assert not mc.stationary_exactly(pi, seed002)
    floats = mc.metropolis_hastings_matrix(np.array([0.5, 0.2, 0.3]), Q.astype(float), "mh")
    assert np.allclose(floats, mh.astype(float))
    with pytest.raises(ValueError):
        mc.metropolis_hastings_matrix(pi, Q, "other")
