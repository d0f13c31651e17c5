"""The pairs' own priors and data simulators (comparisons/pairs/) draw what they declare."""

import numpy as np

from mcmc_pairs.comparisons import simulation
from mcmc_pairs.comparisons.pairs import bayes_net as bayes_net_pair
from mcmc_pairs.comparisons.pairs import lda as lda_pair
from mcmc_pairs.comparisons.pairs import regression as regression_pair


def test_lda_test_params_are_label_invariant():
    data = lda_pair.validation_data()
    rng = np.random.default_rng(2)
    draw = lda_pair.prior(data, rng)
    assert draw["theta"].shape == (len(data["docs"]), data["K"])
    assert draw["phi"].shape == (data["K"], data["V"])
    perm = rng.permutation(data["K"])
    swapped = {"theta": draw["theta"][:, perm], "phi": draw["phi"][perm]}
    a = lda_pair.test_params(simulation.one_draw(draw), data)
    b = lda_pair.test_params(simulation.one_draw(swapped), data)
    assert a.keys() == b.keys() and all(np.allclose(a[k], b[k]) for k in a)
    new = lda_pair.simulate(data, draw, rng)
    assert [len(d) for d in new["docs"]] == [len(d) for d in data["docs"]]
    assert all(d.min() >= 0 and d.max() < data["V"] for d in new["docs"])


def test_simulators_draw_from_the_declared_prior():
    data = regression_pair.validation_data()
    rng = np.random.default_rng(0)
    draws = [regression_pair.prior(data, rng) for _ in range(4000)]
    sigma2 = np.array([d["sigma2"] for d in draws])
    beta1 = np.array([d["beta1"] for d in draws])
    eps = regression_pair.REGRESSION_PRIOR["epsilon"]
    mean, sd = eps / (eps - 1), eps / (eps - 1) / np.sqrt(eps - 2)
    assert abs(sigma2.mean() - mean) < 5 * sd / np.sqrt(len(sigma2))
    assert abs(beta1.mean()) < 5 / np.sqrt(len(beta1))
    new = regression_pair.simulate(data, draws[0], rng)
    assert new["weight"].shape == data["height"].shape and new["m0"] == data["m0"]


def test_bayes_net_simulator_draws_evidence_nodes_only():
    data = bayes_net_pair.validation_data()
    rng = np.random.default_rng(1)
    params = bayes_net_pair.prior(data, rng)
    assert set(params) == {"B", "C", "D"}
    new = bayes_net_pair.simulate(data, params, rng)
    assert set(new["evidence"]) == {"A", "E"}
    assert all(value in (0, 1) for value in new["evidence"].values())
