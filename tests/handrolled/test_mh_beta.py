import numpy as np
import pytest
from arviz_stats import mcse, rhat
from scipy import stats

from mcmc_pairs.comparisons.pairs import mh_beta as pair
from mcmc_pairs.handrolled import mh
from mcmc_pairs.handrolled import mh_beta as mb
from mcmc_pairs.handrolled.wrong_samplers import (
    mh_beta_independence_without_hastings as sample_independence_without_hastings,
)
from mcmc_pairs.handrolled.wrong_samplers import (
    mh_beta_random_walk_accepting_out_of_support as sample_accepting_out_of_support,
)
from mcmc_pairs.pairdata.mh_beta import default_data
from tests.exact import z_scores

DATA = default_data()
TARGET = stats.beta(2.31, 0.627)
Z = 4.0  # a few statistics per sampler; a correct sampler stays well inside


def logdensity(target, x):
    """The target's log density at every point of ``x``."""
    return np.vectorize(target.logdensity)(x)


# --- the target and its pieces ----------------------------------------------------


def test_default_data_is_the_seeds_code_not_its_text():
    assert DATA == {"a": 2.31, "b": 0.627, "proposal_sd": 1.0}


@pytest.mark.parametrize("x", [1e-6, 0.2, 0.5, 0.9, 1 - 1e-9])
def test_log_densities_match_scipy(x):
    assert mb.target(DATA).logdensity(x) == pytest.approx(TARGET.logpdf(x))
    q = stats.beta(1.0, 0.627)
    assert mb.proposal_density(DATA).logdensity(x) == pytest.approx(q.logpdf(x))


@pytest.mark.parametrize("x", [-0.5, 0.0, 1.0, 1.5, np.nan])
def test_log_density_is_minus_infinity_outside_the_open_interval(x):
    assert mb.target(DATA).logdensity(x) == -np.inf
    assert mb.proposal_density(DATA).logdensity(x) == -np.inf


def test_independence_proposal_bounds_the_density_ratio():
    # seed 001 section 6.3 (1): pi / q stays bounded at both ends of (0, 1).
    x = np.concatenate([np.geomspace(1e-12, 0.5, 200), 1 - np.geomspace(1e-12, 0.5, 200)])
    ratio = np.exp(logdensity(mb.target(DATA), x) - logdensity(mb.proposal_density(DATA), x))
    assert np.all(ratio < 3.0)


# --- the sampler contract and the support ------------------------------------------


@pytest.mark.parametrize("sampler", [mb.sample, mb.sample_independence])
def test_sample_stats_are_the_steps_record(sampler):
    tree = sampler(DATA, draws=30, tune=10, chains=3, random_seed=5)
    x = tree.posterior["x"].values
    rate = tree.sample_stats["acceptance_rate"].values
    assert rate.shape == (3, 30) and np.all((rate >= 0) & (rate <= 1))
    np.testing.assert_array_equal(tree.sample_stats["lp"].values, logdensity(mb.target(DATA), x))


@pytest.mark.parametrize("proposal_sd", [0.05, 1.0, 5.0])
@pytest.mark.parametrize("adapt", [False, True])
def test_chains_start_and_stay_inside_the_support(proposal_sd, adapt):
    data = {**DATA, "proposal_sd": proposal_sd}
    tree = mb.sample(data, draws=2000, tune=0, chains=4, random_seed=1, adapt=adapt)
    x = tree.posterior["x"].values
    assert np.all((x > 0) & (x < 1))
    assert np.all(np.isfinite(tree.sample_stats["lp"].values))
    assert np.ptp(x[:, 0]) > 0.1  # dispersed starts, not the seed's x = 0


def test_out_of_support_proposals_are_rejected():
    tree = mb.sample(DATA, draws=4000, tune=0, chains=2, random_seed=4, adapt=False)
    x = tree.posterior["x"].values
    accepted = tree.sample_stats["accepted"].values
    rate = tree.sample_stats["acceptance_rate"].values
    # With proposal sd 1 from inside (0, 1), most proposals land outside: rate 0.
    assert (rate == 0).mean() > 0.5
    assert not np.any(accepted & (rate == 0))
    assert np.all((x > 0) & (x < 1))


def test_the_seeds_fixed_scale_and_the_tuned_one_against_the_seeds_advice():
    fixed = mb.sample(DATA, draws=4000, tune=1000, chains=4, random_seed=0, adapt=False)
    tuned = mb.sample(DATA, draws=4000, tune=1000, chains=4, random_seed=0)
    low, high = mh.SEED_ADVICE
    assert low < fixed.sample_stats["acceptance_rate"].mean() < 0.2
    assert 0.35 < tuned.sample_stats["acceptance_rate"].mean() < high
    scale = tuned.sample_stats["proposal_scale"].values
    assert np.all(scale == scale[:, :1]) and np.all((scale > 0.1) & (scale < 0.6))


# --- accuracy against the exact answer, and wrong samplers caught -----------------


@pytest.mark.parametrize(("sampler", "draws"), [(mb.sample, 10000), (mb.sample_independence, 1000)])
def test_sampler_matches_the_exact_beta(sampler, draws):
    x = sampler(DATA, draws=draws, tune=1000, chains=4, random_seed=20).posterior["x"].values
    z = z_scores(x, TARGET)
    assert max(abs(v) for v in z.values()) < Z, z


def test_independence_sampler_without_hastings_correction_is_caught():
    tree = sample_independence_without_hastings(
        DATA, draws=1000, tune=1000, chains=4, random_seed=20
    )
    z = z_scores(tree.posterior["x"].values, TARGET)
    assert z["mean"] > 2 * Z, z  # pi * q has mean 0.90, not 0.79


def test_sampler_accepting_out_of_support_proposals_is_caught():
    tree = sample_accepting_out_of_support(DATA, draws=1000, tune=1000, chains=4, random_seed=20)
    x = tree.posterior["x"].values
    assert np.mean(x >= 1) > 0.5  # the support check catches it at once
    # Past 1 the clipped density is flat, so the chains drift apart: R-hat flags it.
    assert rhat(x) > 1.1


def test_exact_log_density_reference_matches_the_draws():
    x = mb.sample_independence(DATA, draws=1000, tune=500, chains=4, random_seed=8)
    logp = pair.log_density(x.posterior.dataset, DATA, {})["logp"]
    assert logp.dims == ("chain", "draw")
    ref = pair.exact(DATA)["logp"]
    values = logp.values
    assert abs(values.mean() - ref.mean) / mcse(values) < Z
    assert abs(values.std() - ref.sd) / mcse(values, method="sd") < Z
    assert set(ref.quantiles) == {0.05, 0.5, 0.95}
    for p, q in ref.quantiles.items():
        assert abs(np.quantile(values, p) - q) / mcse(values, method="quantile", prob=p) < Z


@pytest.mark.parametrize(("a", "b"), [(2.31, 0.627), (0.7, 3.0), (3.0, 4.0), (0.5, 0.5)])
def test_exact_log_density_moments_match_quadrature(a, b):
    from scipy.integrate import quad

    dist = stats.beta(a, b)
    mean, sd = pair.logp_moments(a, b)
    m1 = quad(lambda x: dist.pdf(x) * dist.logpdf(x), 0, 1, limit=200)[0]
    m2 = quad(lambda x: dist.pdf(x) * dist.logpdf(x) ** 2, 0, 1, limit=200)[0]
    assert mean == pytest.approx(m1, rel=1e-5)
    assert sd == pytest.approx(np.sqrt(m2 - m1**2), rel=1e-5)


# --- bad input --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("a", 0.0, "a must be > 0"),
        ("a", -2.31, "a must be > 0"),
        ("b", 0.0, "b must be > 0"),
        ("b", -1.0, "b must be > 0"),
        ("b", np.inf, "b must be finite"),
        ("a", np.nan, "a must be finite"),
        ("proposal_sd", 0.0, "proposal_sd must be > 0"),
        ("proposal_sd", -0.1, "proposal_sd must be > 0"),
        ("proposal_sd", np.nan, "proposal_sd must be finite"),
    ],
)
@pytest.mark.parametrize("sampler", [mb.sample, mb.sample_independence])
def test_bad_data_raises_naming_the_key(sampler, key, value, message):
    with pytest.raises(ValueError, match=message):
        sampler({**DATA, key: value}, draws=10, tune=0, chains=1, random_seed=0)
