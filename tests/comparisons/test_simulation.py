"""What Geweke's test and SBC simulate: a pair's simulator and the test quantities of draws."""

import dataclasses

import numpy as np
import pytest

from mcmc_pairs.comparisons import simulation
from mcmc_pairs.comparisons.contract import SamplerError
from mcmc_pairs.comparisons.pairs import regression as regression_pair
from mcmc_pairs.comparisons.registry import get_pair


def test_a_pair_that_declares_its_simulator_uses_it():
    sim = simulation.simulator_for(get_pair("regression"))
    assert sim.prior is regression_pair.prior
    assert sim.simulate is regression_pair.simulate
    assert sim.witness is None and sim.test_params is None
    assert sim.data.keys() == regression_pair.validation_data().keys()


def test_any_other_pair_is_simulated_from_its_model():
    pair = dataclasses.replace(get_pair("regression"), prior=None, simulate=None)
    sim = simulation.simulator_for(pair)
    assert sim.witness is not None and sim.prior == sim.witness.draw_prior
    draw = sim.prior(sim.data, np.random.default_rng(0))
    assert set(draw) == {"beta0", "beta1", "sigma2"}
    values, names = simulation.test_quantities(
        sim, simulation.one_draw(draw), sim.data, squares=False, sums=False
    )
    assert {"log_prior", "log_likelihood", "logp"} <= set(names)
    assert np.all(np.isfinite(values))


def test_test_quantities_add_squares_products_and_sums():
    sim = simulation.simulator_for(get_pair("regression"))
    draw = {"beta0": np.array(2.0), "beta1": np.array(-1.0), "sigma2": np.array(0.5)}
    params = simulation.one_draw(draw)
    assert params["beta0"].shape == (1, 1)
    geweke, g_names = simulation.test_quantities(sim, params, sim.data, squares=True, sums=False)
    sbc, s_names = simulation.test_quantities(sim, params, sim.data, squares=False, sums=True)
    assert g_names[:6] == ["beta0", "beta1", "sigma2", "beta0^2", "beta1^2", "sigma2^2"]
    assert "beta0*beta1" in g_names and "beta0+beta1" not in g_names
    assert "beta0+beta1" in s_names and "beta0^2" not in s_names
    assert geweke.shape == (1, 1, len(g_names)) and sbc.shape == (1, 1, len(s_names))
    assert geweke[0, 0, g_names.index("beta0*beta1")] == -2.0
    assert sbc[0, 0, s_names.index("beta1+sigma2")] == -0.5


def test_a_fixed_target_has_nothing_to_simulate():
    with pytest.raises(ValueError, match="no data to simulate"):
        simulation.simulator_for(get_pair("mh_normal"))


def test_child_seeds_are_reproducible_and_distinct():
    seed = np.random.SeedSequence(5).spawn(3)[2]
    a, b = simulation.child_seed(seed, 0), simulation.child_seed(seed, 1)
    assert a.spawn_key == (2, 0) and b.spawn_key == (2, 1)
    again = simulation.child_seed(seed, 0)
    draw = np.random.default_rng(a).random()
    assert np.random.default_rng(again).random() == draw != np.random.default_rng(b).random()
    assert seed.n_children_spawned == 0  # no side effect on the parent


def test_check_draws_compares_with_the_prior_draw():
    draw = {"x": np.zeros(2), "s": np.array(1.0)}
    ok = simulation.check_draws({"x": np.ones((1, 3, 2)), "s": np.ones((1, 3))}, draw, "f", 1, 3)
    assert list(ok) == ["x", "s"]
    with pytest.raises(SamplerError, match=r"returned x with shape \(1, 3, 3\)"):
        simulation.check_draws({"x": np.ones((1, 3, 3)), "s": np.ones((1, 3))}, draw, "f", 1, 3)
