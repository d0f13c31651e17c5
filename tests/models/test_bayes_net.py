"""Tests of the PyMC twin of the Bayesian network and of its pair module."""

from __future__ import annotations

import itertools

import arviz_stats as azs
import numpy as np
import pymc as pm
import pytest
import xarray as xr
from pymc.sampling.mcmc import assign_step_methods

from mcmc_pairs.comparisons.pairs.bayes_net import PAIR, exact, log_joint_of_draws
from mcmc_pairs.handrolled import bayes_net as bn
from mcmc_pairs.models.bayes_net import build_model
from mcmc_pairs.pairdata.bayes_net import default_data

Z = 4.0


@pytest.fixture
def data():
    return default_data()


@pytest.fixture(scope="module")
def pymc_draws():
    """One pm.sample run shared by the file (BinaryGibbsMetropolis, about 2 s)."""
    model = build_model(default_data())
    return pm.sample(
        model=model,
        draws=1000,
        tune=500,
        chains=2,
        cores=1,
        random_seed=20,
        progressbar=False,
        compute_convergence_checks=False,
    )


@pytest.mark.usefixtures("python_linker")
def test_free_and_observed_variables(data):
    model = build_model(data)
    assert [v.name for v in model.free_RVs] == ["B", "C", "D"]
    assert [v.name for v in model.observed_RVs] == ["A", "E"]
    shapes = model.eval_rv_shapes()
    assert all(tuple(shapes[name]) == () for name in ("B", "C", "D"))


@pytest.mark.usefixtures("python_linker")
def test_model_logp_equals_handrolled_joint(data):
    """The twin states the same distribution: log p(A=1, b, c, d, E=1) in all 8 states."""
    model = build_model(data)
    logp = model.compile_logp()
    cpts = bn.validate_cpts(data["cpts"])
    for b, c, d in itertools.product((0, 1), repeat=3):
        state = np.array([1, b, c, d, 1])
        expected = bn.log_joint(cpts, state)
        assert logp({"B": b, "C": c, "D": d}) == pytest.approx(expected, rel=1e-10)


def test_pm_sample_assigns_binary_gibbs(data):
    model = build_model(data)
    _, assigned = assign_step_methods(model)
    assert list(assigned) == [pm.BinaryGibbsMetropolis]
    assert sorted(v.name for v in assigned[pm.BinaryGibbsMetropolis]) == ["B", "C", "D"]


def test_pymc_matches_exact_posterior(pymc_draws, data):
    posterior = pymc_draws["posterior"]
    for node, p in bn.exact_posterior(data["cpts"], data["evidence"]).items():
        values = posterior[node].values.astype(float)
        assert values.shape == (2, 1000)
        mcse = float(azs.mcse(values, method="mean"))
        assert abs(values.mean() - p) / mcse < Z, node


def test_build_model_validates(data):
    data["evidence"]["B"] = 3
    with pytest.raises(ValueError, match="evidence\\['B'\\]"):
        build_model(data)


# -------------------------------------------------------------------- the pair


def test_pair_declares_the_free_nodes():
    assert PAIR.variables == ("B", "C", "D")
    assert set(PAIR.handrolled) == {"gibbs", "rejection"}
    assert "q5" not in PAIR.statistics


def test_exact_reference(data):
    ref = exact(data)
    assert set(ref) == {"B", "C", "D", "B*C", "B*D", "C*D", "logp"}
    p = 39 / 55
    assert ref["B"].mean == pytest.approx(p)
    assert ref["B"].sd == pytest.approx(np.sqrt(p * (1 - p)))
    # centred at the exact means, the product's mean is the covariance
    states, probs = bn.posterior_table(bn.validate_cpts(data["cpts"]), data["evidence"])
    b, c = states[:, 1], states[:, 2]
    cov = probs @ (b * c) - (probs @ b) * (probs @ c)
    assert ref["B*C"].mean == pytest.approx(cov)


@pytest.mark.usefixtures("python_linker")
def test_derived_logp_matches_pymc(pymc_draws, data):
    """The pair's logp of each draw equals PyMC's model log probability of that draw."""
    posterior = pymc_draws["posterior"].to_dataset()
    derived = log_joint_of_draws(posterior, data, {})["logp"]
    assert isinstance(derived, xr.DataArray)
    assert derived.dims == ("chain", "draw")
    logp = build_model(data).compile_logp()
    for chain, draw in [(0, 0), (0, 17), (1, 999)]:
        point = {n: int(posterior[n].values[chain, draw]) for n in ("B", "C", "D")}
        assert float(derived.values[chain, draw]) == pytest.approx(logp(point), rel=1e-10)
    ref = exact(data)["logp"]
    mcse = float(azs.mcse(derived.values, method="mean"))
    assert abs(float(derived.mean()) - ref.mean) / mcse < Z


def _gibbs_forgetting_e(data, *, draws, tune, chains, random_seed):
    """A WRONG Gibbs sampler: C drawn from P(C | A, B), the evidence on E forgotten."""
    d = bn.validate_data(data)
    cpts, nodes = d["cpts"], bn.free_nodes(d["evidence"])
    rngs = np.random.default_rng(random_seed).spawn(chains)
    state = bn.initial_states(cpts, d["evidence"], rngs)
    out = {node: np.empty((chains, draws), dtype=np.int64) for node in nodes}
    conditionals = dict(bn.FULL_CONDITIONALS, C=lambda s, t: bn.node_given_parents("C", s, t))
    for it in range(tune + draws):
        u = np.stack([rng.random(len(nodes)) for rng in rngs])
        for k, node in enumerate(nodes):
            state[:, bn.INDEX[node]] = u[:, k] < conditionals[node](state, cpts)
        if it >= tune:
            for node in nodes:
                out[node][:, it - tune] = state[:, bn.INDEX[node]]
    return out


def test_compare_agrees_and_catches_wrong_sampler():
    from mcmc_pairs.comparisons.run import resolve_settings, run_pair

    settings = resolve_settings(PAIR, draws=1000, tune=500, chains=4, seed=1)
    quiet = {"progress": lambda line: None}
    result = run_pair(PAIR, settings, **quiet)
    assert result.verdict == "agree", result.checks[~result.checks["passed"]]
    wrong = run_pair(PAIR, settings, sampler=_gibbs_forgetting_e, **quiet)
    assert wrong.verdict == "disagree"
