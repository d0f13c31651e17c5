"""The pairs' own priors and data simulators (comparisons/simulators.py) draw what they declare."""

import numpy as np

from comparisons import simulation, simulators


def test_lda_test_params_are_label_invariant():
    data = simulators.lda_validation_data()
    rng = np.random.default_rng(2)
    draw = simulators.lda_prior(data, rng)
    assert draw["theta"].shape == (len(data["docs"]), data["K"])
    assert draw["phi"].shape == (data["K"], data["V"])
    perm = rng.permutation(data["K"])
    swapped = {"theta": draw["theta"][:, perm], "phi": draw["phi"][perm]}
    a = simulators.lda_test_params(simulation.one_draw(draw), data)
    b = simulators.lda_test_params(simulation.one_draw(swapped), data)
    assert a.keys() == b.keys() and all(np.allclose(a[k], b[k]) for k in a)
    new = simulators.lda_simulate(data, draw, rng)
    assert [len(d) for d in new["docs"]] == [len(d) for d in data["docs"]]
    assert all(d.min() >= 0 and d.max() < data["V"] for d in new["docs"])


def test_simulators_draw_from_the_declared_prior():
    data = simulators.regression_validation_data()
    rng = np.random.default_rng(0)
    draws = [simulators.regression_prior(data, rng) for _ in range(4000)]
    sigma2 = np.array([d["sigma2"] for d in draws])
    beta1 = np.array([d["beta1"] for d in draws])
    eps = simulators.REGRESSION_PRIOR["epsilon"]
    mean, sd = eps / (eps - 1), eps / (eps - 1) / np.sqrt(eps - 2)
    assert abs(sigma2.mean() - mean) < 5 * sd / np.sqrt(len(sigma2))
    assert abs(beta1.mean()) < 5 / np.sqrt(len(beta1))
    new = simulators.regression_simulate(data, draws[0], rng)
    assert new["weight"].shape == data["height"].shape and new["m0"] == data["m0"]


def test_bayes_net_simulator_draws_evidence_nodes_only():
    data = simulators.bayes_net_validation_data()
    rng = np.random.default_rng(1)
    params = simulators.bayes_net_prior(data, rng)
    assert set(params) == {"B", "C", "D"}
    new = simulators.bayes_net_simulate(data, params, rng)
    assert set(new["evidence"]) == {"A", "E"}
    assert all(value in (0, 1) for value in new["evidence"].values())
