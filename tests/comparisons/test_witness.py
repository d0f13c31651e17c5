"""PyMC as the witness: log densities of any draws, and simulations from the prior predictive."""

import pickle

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from mcmc_pairs.comparisons.pairs.regression import validation_data
from mcmc_pairs.comparisons.witness import ModelWitness

MODEL = "mcmc_pairs.models.regression:build_model"


def draws(beta0, beta1, sigma2):
    """One chain of draws as a posterior Dataset, shape (1, n)."""
    return xr.Dataset(
        {
            name: (("chain", "draw"), np.atleast_1d(np.asarray(v, dtype=float))[None])
            for name, v in (("beta0", beta0), ("beta1", beta1), ("sigma2", sigma2))
        }
    )


@pytest.fixture(scope="module")
def witness():
    return ModelWitness(MODEL, validation_data())


def test_variables_and_observed_come_from_the_model(witness):
    assert witness.variables == {"beta0": (), "beta1": (), "sigma2": ()}
    assert witness.observed == ("weight",) and witness.potentials == ()


def test_log_densities_match_the_formulas(witness):
    data = witness.data
    b0, b1, s2 = np.array([0.3, -1.0]), np.array([0.5, 2.0]), np.array([0.7, 2.5])
    got = witness.log_density(draws(b0, b1, s2))
    prior = (
        stats.norm(0, np.sqrt(data["m0"])).logpdf(b0)
        + stats.norm(0, np.sqrt(data["m1"])).logpdf(b1)
        + stats.invgamma(data["epsilon"], scale=data["epsilon"]).logpdf(s2)
    )
    mean = b0[:, None] + b1[:, None] * data["height"][None]
    lik = stats.norm(mean, np.sqrt(s2)[:, None]).logpdf(data["weight"][None]).sum(axis=1)
    np.testing.assert_allclose(got["log_prior"].values[0], prior, rtol=1e-6)
    np.testing.assert_allclose(got["log_likelihood"].values[0], lik, rtol=1e-6)


def test_a_draw_outside_the_support_has_log_density_minus_inf(witness):
    got = witness.log_density(draws([0.0, 0.0], [0.0, 0.0], [1.0, -1.0]))
    assert np.isfinite(got["log_prior"].values[0, 0])
    assert got["log_prior"].values[0, 1] == -np.inf


def test_prior_predictive_is_reproducible_and_keeps_the_design(witness):
    data = witness.data
    params = witness.draw_prior(data, np.random.default_rng(1))
    assert params == witness.draw_prior(data, np.random.default_rng(1))
    assert set(params) == {"beta0", "beta1", "sigma2"} and params["sigma2"] > 0
    y = witness.simulate(data, params, np.random.default_rng(2))
    np.testing.assert_array_equal(y["height"], data["height"])
    assert y["weight"].shape == data["weight"].shape and not np.array_equal(
        y["weight"], data["weight"]
    )
    # Given sigma2 near 0, the simulated weights sit on the line.
    exact = witness.simulate(data, {**params, "sigma2": 1e-12}, np.random.default_rng(3))
    line = params["beta0"] + params["beta1"] * data["height"]
    np.testing.assert_allclose(exact["weight"], line, atol=1e-4)


def test_new_observed_values_reuse_the_compiled_function(witness):
    data = witness.data
    y = witness.simulate(
        data, witness.draw_prior(data, np.random.default_rng(4)), np.random.default_rng(5)
    )
    post = draws([0.1], [0.2], [1.5])
    before = len(witness._log_density_fns)
    lik = witness.log_density(post, y)["log_likelihood"].values[0, 0]
    mean = 0.1 + 0.2 * y["height"]
    assert lik == pytest.approx(stats.norm(mean, np.sqrt(1.5)).logpdf(y["weight"]).sum())
    assert len(witness._log_density_fns) == before  # same design: no new compilation


def test_witness_pickles_as_its_recipe(witness):
    again = pickle.loads(pickle.dumps(witness))
    assert again.variables == witness.variables
    post = draws([0.1], [0.2], [1.5])
    assert (
        again.log_density(post)["log_prior"].item() == witness.log_density(post)["log_prior"].item()
    )


def test_discrete_variables_take_integer_draws():
    from mcmc_pairs.pairdata.bayes_net import default_data

    witness = ModelWitness("mcmc_pairs.models.bayes_net:build_model", default_data())
    post = xr.Dataset({v: (("chain", "draw"), np.array([[0, 1]])) for v in witness.variables})
    got = witness.log_density(post)
    assert np.all(np.isfinite(got["log_prior"].values))
    outside = xr.Dataset({v: (("chain", "draw"), np.array([[2, 1]])) for v in witness.variables})
    assert witness.log_density(outside)["log_prior"].values[0, 0] == -np.inf


def test_a_model_that_is_not_a_model_is_named():
    with pytest.raises(ValueError, match="--model .*<lambda> must return a pymc.Model, got int"):
        ModelWitness(lambda data: 3, {})


def scaled_model(data):
    import pymc as pm

    with pm.Model() as model:
        mu = pm.Normal("mu")
        pm.Normal("y", mu=mu, observed=np.asarray(data["y"]) / 10.0)  # not the data's values
    return model


def test_observed_values_that_are_not_the_datas_are_rebuilt_not_guessed():
    witness = ModelWitness(scaled_model, {"y": np.array([10.0, 20.0])})
    assert not witness._observed_as_given
    post = xr.Dataset({"mu": (("chain", "draw"), np.array([[1.5]]))})
    new = {"y": np.array([30.0, 40.0])}
    got = witness.log_density(post, new)["log_likelihood"].item()
    assert got == pytest.approx(stats.norm(1.5, 1).logpdf([3.0, 4.0]).sum())


def ordered_with_initval(data):
    """Two cut points written the usual PyMC way: an ordered transform and an initial value.

    N(-2, 1) and N(2, 1) restricted to ``cut[0] < cut[1]`` (0.2 % of the pair's mass
    is cut away, so NUTS does not meet the transform's funnel at equal cut points).
    """
    import pymc as pm
    from pymc.distributions.transforms import ordered

    with pm.Model() as model:
        pm.Normal("cut", [-2.0, 2.0], 1.0, shape=2, transform=ordered, initval=[-1.0, 1.0])
    return model


def sorted_normals(data, *, draws, tune, chains, random_seed):
    """Exact draws of the ordered model: N(-2, 1) and N(2, 1) pairs, the unordered rejected."""
    rng = np.random.default_rng(random_seed)
    out = np.empty((chains, draws, 2))
    for c in range(chains):
        kept = np.empty((0, 2))
        while len(kept) < draws:
            x = rng.normal([-2.0, 2.0], 1.0, size=(2 * draws, 2))
            kept = np.concatenate([kept, x[x[:, 0] < x[:, 1]]])
        out[c] = kept[:draws]
    return {"cut": out}


def test_a_model_with_an_initial_value_has_a_log_density_and_keeps_its_initval():
    witness = ModelWitness(ordered_with_initval, {})
    posterior = xr.Dataset({"cut": (("chain", "draw", "cut_dim_0"), [[[-1.0, 2.0]]])})
    logp = witness.log_density(posterior)
    expected = stats.norm.logpdf([-1.0, 2.0], [-2.0, 2.0]).sum()
    assert np.asarray(logp["log_prior"]).item() == pytest.approx(expected)
    model = witness.build({})
    assert [v for v in model.rvs_to_initial_values.values() if v is not None]


def test_an_ordered_model_with_an_initial_value_gets_a_verdict():
    from mcmc_pairs.comparisons.testing import compare

    result = compare(ordered_with_initval, sorted_normals, {}, seed=3)
    assert result.verdict == "agree"
    wide = compare(ordered_with_initval, too_wide, {}, seed=3)
    assert wide.verdict == "disagree"
    unsorted = compare(ordered_with_initval, unordered_normals, {}, seed=3)
    failed = unsorted.checks[~unsorted.checks["passed"]]
    assert unsorted.verdict == "disagree" and "support" in set(failed["kind"])


def test_an_unordered_draw_of_an_ordered_variable_is_outside_the_support():
    witness = ModelWitness(ordered_with_initval, {})
    draws = [[[-1.0, 2.0], [2.0, -1.0]]]
    logp = witness.log_density(xr.Dataset({"cut": (("chain", "draw", "cut_dim_0"), draws)}))
    values = np.asarray(logp["log_prior"]).ravel()
    assert np.isfinite(values[0]) and values[1] == -np.inf


def unordered_normals(data, *, draws, tune, chains, random_seed):
    """WRONG: the constraint forgotten (about 0.2 % of the pairs come out unordered)."""
    rng = np.random.default_rng(random_seed)
    return {"cut": rng.normal([-2.0, 2.0], 1.0, size=(chains, draws, 2))}


def too_wide(data, *, draws, tune, chains, random_seed):
    """WRONG: ordered pairs with sds 1.3 instead of 1."""
    rng = np.random.default_rng(random_seed)
    return {"cut": np.sort(rng.normal([-2.0, 2.0], 1.3, size=(chains, draws, 2)), axis=-1)}
