import copy
import math

import numpy as np
import pytest
from numba import njit

from mcmc_pairs.handrolled import mh


@njit(mh.LOGDENSITY_SIGNATURE)
def std_normal_nb(x, params):
    """log N(x | params[0], params[1]) up to a constant."""
    z = (x - params[0]) / params[1]
    return -0.5 * z * z


@njit(mh.LOGDENSITY_SIGNATURE)
def flat_nb(x, params):
    """A flat density (up to a constant) on its support."""
    return 0.0


@njit(mh.LOGDENSITY_SIGNATURE)
def exponential_nb(x, params):
    """log q(x) = -x: q(x) proportional to exp(-x)."""
    return -x


TARGET = mh.Target(std_normal_nb, np.array([0.0, 1.0]), -3.0)  # N(0, 1) on (-3, inf)


# --- one step, rigged proposals ---------------------------------------------------


def test_init_evaluates_the_log_density():
    state = mh.init(1.5, TARGET)
    assert state == mh.MHState(1.5, -1.125)


def test_forced_accept_uphill_proposal_whatever_the_uniform():
    state = mh.init(2.0, TARGET)
    new, info = mh.random_walk_step(state, TARGET, normal=-2.0, uniform=0.999999, scale=1.0)
    assert info.is_accepted and info.acceptance_rate == 1.0
    assert new == mh.MHState(0.0, 0.0)
    assert info.proposal == 0.0


def test_forced_reject_downhill_proposal_with_a_large_uniform():
    state = mh.init(0.0, TARGET)
    new, info = mh.random_walk_step(state, TARGET, normal=3.0, uniform=0.5, scale=1.0)
    assert not info.is_accepted
    assert info.acceptance_rate == pytest.approx(math.exp(-4.5))
    assert new is state


def test_downhill_proposal_accepted_exactly_when_uniform_below_the_ratio():
    state = mh.init(0.0, TARGET)
    ratio = math.exp(-0.5)
    below = mh.random_walk_step(state, TARGET, normal=1.0, uniform=ratio * 0.999, scale=1.0)
    above = mh.random_walk_step(state, TARGET, normal=1.0, uniform=ratio * 1.001, scale=1.0)
    assert below[1].is_accepted and below[0].position == 1.0
    assert not above[1].is_accepted and above[0].position == 0.0


def test_out_of_support_proposal_is_rejected_even_with_uniform_zero():
    state = mh.init(-2.9, TARGET)
    new, info = mh.random_walk_step(state, TARGET, normal=-1.0, uniform=0.0, scale=1.0)
    assert not info.is_accepted and info.acceptance_rate == 0.0
    assert new.position == -2.9


@pytest.mark.parametrize(
    ("log_ratio", "expected"),
    [(0.0, 1.0), (3.0, 1.0), (math.log(0.25), 0.25), (-math.inf, 0.0), (math.nan, 0.0)],
)
def test_acceptance_probability(log_ratio, expected):
    assert mh.acceptance_probability(log_ratio) == pytest.approx(expected)


def test_log_density_is_minus_infinity_outside_the_support():
    assert TARGET.logdensity(-3.5) == -math.inf
    assert TARGET.logdensity(-3.0) == -math.inf  # the support is open
    assert TARGET.logdensity(math.nan) == -math.inf
    assert TARGET.logdensity(1.0) == -0.5
    assert mh.Target(std_normal_nb, np.array([0.0, 1.0])).logdensity(-10.0) == -50.0


def test_independence_step_keeps_the_hastings_correction():
    # Flat target on the support: the ratio is q(x) / q(x') alone.
    flat = mh.Target(flat_nb, np.zeros(0))
    q = mh.Target(exponential_nb, np.zeros(0))
    state = mh.init(1.0, flat)
    _, info = mh.independence_step(state, flat, proposal=2.0, uniform=0.999, proposal_density=q)
    assert info.acceptance_rate == 1.0  # q(1) / q(2) = e > 1
    assert info.is_accepted
    _, info = mh.independence_step(state, flat, proposal=0.5, uniform=0.999, proposal_density=q)
    assert info.acceptance_rate == pytest.approx(math.exp(0.5 - 1.0))
    assert not info.is_accepted


def test_scale_update_moves_towards_the_target_acceptance():
    assert mh.update_log_scale(0.0, 1.0, 1) == pytest.approx(1.0 - mh.TARGET_ACCEPTANCE)
    assert mh.update_log_scale(0.0, 0.0, 4) == pytest.approx(-mh.TARGET_ACCEPTANCE / 4**0.6)


# --- compiled kernels against the plain-Python steps ------------------------------


def python_random_walk_chain(start, scale, normals, uniforms, n_tune, adapt):
    state, log_scale = mh.init(start, TARGET), math.log(scale)
    rows = []
    for i, (z, u) in enumerate(zip(normals, uniforms, strict=True)):
        state, info = mh.random_walk_step(state, TARGET, z, u, scale)
        if i < n_tune:
            if adapt:
                log_scale = mh.update_log_scale(log_scale, info.acceptance_rate, i + 1)
                scale = math.exp(log_scale)
        else:
            rows.append((state.position, state.logdensity, info.acceptance_rate, info.is_accepted))
    return np.array(rows), scale


def run_kernel(start, scale, normals, uniforms, n_tune, adapt):
    draws = normals.size - n_tune
    out = [np.empty(draws), np.empty(draws), np.empty(draws), np.empty(draws, dtype=bool)]
    final = mh.random_walk_kernel(*TARGET, start, scale, normals, uniforms, n_tune, adapt, *out)
    return np.column_stack(out), final


@pytest.mark.parametrize("adapt", [False, True])
def test_random_walk_kernel_is_the_python_step_bit_for_bit(adapt):
    rng = np.random.default_rng(11)
    normals, uniforms = rng.standard_normal(300), rng.random(300)
    expected, expected_scale = python_random_walk_chain(-2.5, 0.4, normals, uniforms, 100, adapt)
    got, scale = run_kernel(-2.5, 0.4, normals, uniforms, 100, adapt)
    np.testing.assert_array_equal(got, expected)
    assert scale == expected_scale
    assert (scale == 0.4) != adapt
    assert 0 < got[:, 3].sum() < 200  # some accepted, some rejected
    assert np.all(got[:, 0] > -3.0)  # the support is respected


def test_random_walk_kernel_does_not_adapt_without_tuning_iterations():
    rng = np.random.default_rng(2)
    _, scale = run_kernel(0.0, 0.7, rng.standard_normal(50), rng.random(50), 0, True)
    assert scale == 0.7


def test_independence_kernel_is_the_python_step_bit_for_bit():
    rng = np.random.default_rng(5)
    proposals, uniforms = rng.normal(0.0, 2.0, 200), rng.random(200)
    q = mh.Target(std_normal_nb, np.array([0.0, 2.0]))  # N(0, 2) up to a constant
    out = [np.empty(150), np.empty(150), np.empty(150), np.empty(150, dtype=bool)]
    mh.independence_kernel(*TARGET, *q, 1.0, proposals, uniforms, 50, *out)
    state, rows = mh.init(1.0, TARGET), []
    for i, (xp, u) in enumerate(zip(proposals, uniforms, strict=True)):
        state, info = mh.independence_step(state, TARGET, xp, u, q)
        if i >= 50:
            rows.append((state.position, state.logdensity, info.acceptance_rate, info.is_accepted))
    np.testing.assert_array_equal(np.column_stack(out), np.array(rows))
    assert np.all(np.column_stack(out)[:, 0] > -3.0)  # proposals below -3 are rejected


def test_datatree_holds_posterior_and_sample_stats():
    out = {
        "x": np.zeros((2, 3)),
        "lp": np.zeros((2, 3)),
        "acceptance_rate": np.ones((2, 3)),
        "accepted": np.ones((2, 3), dtype=bool),
    }
    tree = mh.to_datatree(out, np.array([0.5, 2.0]))
    assert tree.posterior["x"].dims == ("chain", "draw")
    stats = tree.sample_stats
    assert set(stats.data_vars) == {"acceptance_rate", "accepted", "lp", "proposal_scale"}
    np.testing.assert_array_equal(stats["proposal_scale"].values, [[0.5] * 3, [2.0] * 3])


# --- continuing chains (the state keyword) ------------------------------------------


def _continue_by_hand(state, run_kernel):
    """The continuation a state promises: from its last points, on copies of its streams."""
    rngs = [copy.deepcopy(rng) for rng in state["rngs"]]
    points = zip(rngs, state["position"], strict=True)
    return [run_kernel(rng, float(x), c) for c, (rng, x) in enumerate(points)]


def test_a_continued_random_walk_goes_on_from_its_last_point_at_its_frozen_scale():
    state = {}
    first = mh.sample_random_walk(
        TARGET, lambda rng: rng.uniform(-1, 1), 0.5,
        draws=30, tune=40, chains=2, random_seed=3, adapt=True, state=state,
    )  # fmt: skip
    np.testing.assert_array_equal(state["position"], first["posterior"]["x"].values[:, -1])
    scales = first["sample_stats"]["proposal_scale"].values[:, -1]
    np.testing.assert_array_equal(state["scale"], scales)

    def by_hand(rng, x, c):
        normals, uniforms = rng.standard_normal(25), rng.random(25)
        out = [np.empty(20), np.empty(20), np.empty(20), np.empty(20, dtype=bool)]
        mh.random_walk_kernel(*TARGET, x, scales[c], normals, uniforms, 5, False, *out)
        return out[0]

    expected = _continue_by_hand(state, by_hand)
    second = mh.sample_random_walk(
        TARGET, None, 0.5, draws=20, tune=5, chains=2, random_seed=None, adapt=True, state=state,
    )  # fmt: skip
    np.testing.assert_array_equal(second["posterior"]["x"].values, np.stack(expected))
    np.testing.assert_array_equal(second["sample_stats"]["proposal_scale"].values[:, 0], scales)


def test_a_continued_independence_chain_goes_on_from_its_last_point():
    proposal = mh.Target(std_normal_nb, np.array([0.0, 2.0]))
    draw_proposals = lambda rng, n: rng.normal(0.0, 2.0, n)  # noqa: E731
    state = {}
    first = mh.sample_independence(
        TARGET, proposal, lambda rng: 0.5, draw_proposals,
        draws=10, tune=3, chains=2, random_seed=8, state=state,
    )  # fmt: skip
    np.testing.assert_array_equal(state["position"], first["posterior"]["x"].values[:, -1])

    def by_hand(rng, x, c):
        proposals, uniforms = draw_proposals(rng, 12), rng.random(12)
        out = [np.empty(12), np.empty(12), np.empty(12), np.empty(12, dtype=bool)]
        mh.independence_kernel(*TARGET, *proposal, x, proposals, uniforms, 0, *out)
        return out[0]

    expected = _continue_by_hand(state, by_hand)
    second = mh.sample_independence(
        TARGET, proposal, None, draw_proposals, draws=12, tune=0, chains=2, random_seed=None,
        state=state,
    )  # fmt: skip
    np.testing.assert_array_equal(second["posterior"]["x"].values, np.stack(expected))
