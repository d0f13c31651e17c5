import numpy as np
import pytest
from arviz_stats import mcse
from scipy import stats

from mcmc_pairs.comparisons.pairs import mh_normal as pair
from mcmc_pairs.handrolled import mh
from mcmc_pairs.handrolled import mh_normal as mn
from mcmc_pairs.handrolled.wrong_samplers import (
    mh_normal_independence_without_hastings as sample_independence_without_hastings,
)
from mcmc_pairs.pairdata.mh_normal import default_data
from tests.exact import z_scores

DATA = default_data()
TARGET = stats.norm(10.0, 5.0)
Z = 4.0  # a few statistics per sampler; a correct sampler stays well inside


def logdensity(target, x):
    """The target's log density at every point of ``x``."""
    return np.vectorize(target.logdensity)(x)


# --- the target and its pieces ----------------------------------------------------


def test_default_data_is_the_seed():
    assert DATA == {"mu": 10.0, "sigma": 5.0, "proposal_sd": 1.0}


@pytest.mark.parametrize("x", [-20.0, 3.0, 10.0, 27.5])
def test_log_densities_match_scipy(x):
    assert mn.target(DATA).logdensity(x) == pytest.approx(TARGET.logpdf(x))
    q = stats.norm(10.0, 10.0)
    assert mn.proposal_density(DATA).logdensity(x) == pytest.approx(q.logpdf(x))


def test_independence_proposal_is_wider_than_the_target():
    # seed 001 section 6.3 (1): the proposal's tails must be heavier than the target's.
    # So pi / q is bounded: its largest value is q's sd over pi's, 2, at x = mu.
    x = np.linspace(-190, 210, 2001)
    ratio = logdensity(mn.target(DATA), x) - logdensity(mn.proposal_density(DATA), x)
    assert x[ratio.argmax()] == pytest.approx(10.0)
    assert ratio.max() == pytest.approx(np.log(2.0))


# --- the sampler contract ---------------------------------------------------------


@pytest.mark.parametrize("sampler", [mn.sample, mn.sample_independence])
def test_sample_stats_are_the_steps_record(sampler):
    tree = sampler(DATA, draws=30, tune=10, chains=3, random_seed=5)
    x = tree.posterior["x"].values
    rate = tree.sample_stats["acceptance_rate"].values
    assert rate.shape == (3, 30) and np.all((rate >= 0) & (rate <= 1))
    np.testing.assert_array_equal(tree.sample_stats["lp"].values, logdensity(mn.target(DATA), x))


def test_the_seeds_fixed_scale_accepts_too_often_and_tuning_fixes_it():
    fixed = mn.sample(DATA, draws=2000, tune=1000, chains=4, random_seed=0, adapt=False)
    tuned = mn.sample(DATA, draws=2000, tune=1000, chains=4, random_seed=0)
    low, high = mh.SEED_ADVICE
    assert fixed.sample_stats["acceptance_rate"].mean() > 0.9 > high
    assert low < tuned.sample_stats["acceptance_rate"].mean() < high
    assert np.all(fixed.sample_stats["proposal_scale"].values == 1.0)
    scale = tuned.sample_stats["proposal_scale"].values
    assert np.all(scale == scale[:, :1])  # frozen after tuning
    assert np.all((scale > 5) & (scale < 25))  # near 2.4 sigma = 12


# --- accuracy against the exact answer, and a wrong sampler caught ----------------


@pytest.mark.parametrize(("sampler", "draws"), [(mn.sample, 2000), (mn.sample_independence, 1000)])
def test_sampler_matches_the_exact_normal(sampler, draws):
    x = sampler(DATA, draws=draws, tune=1000, chains=4, random_seed=20).posterior["x"].values
    z = z_scores(x, TARGET)
    assert max(abs(v) for v in z.values()) < Z, z


def test_independence_sampler_without_hastings_correction_is_caught():
    tree = sample_independence_without_hastings(
        DATA, draws=4000, tune=1000, chains=4, random_seed=20
    )
    z = z_scores(tree.posterior["x"].values, TARGET)
    assert abs(z["sd"]) > 2 * Z, z  # its draws are too narrow: sd 4.47, not 5


def test_exact_log_density_reference_matches_the_draws():
    x = mn.sample_independence(DATA, draws=1000, tune=500, chains=4, random_seed=8)
    logp = pair.log_density(x.posterior.dataset, DATA, {})["logp"]
    assert logp.dims == ("chain", "draw")
    ref = pair.exact(DATA)["logp"]
    values = logp.values
    assert abs(values.mean() - ref.mean) / mcse(values) < Z
    assert abs(values.std() - ref.sd) / mcse(values, method="sd") < Z
    for p, q in ref.quantiles.items():
        assert abs(np.quantile(values, p) - q) / mcse(values, method="quantile", prob=p) < Z


# --- bad input --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("sigma", 0.0, "sigma must be > 0"),
        ("sigma", -5.0, "sigma must be > 0"),
        ("sigma", np.inf, "sigma must be finite"),
        ("proposal_sd", 0.0, "proposal_sd must be > 0"),
        ("proposal_sd", -1.0, "proposal_sd must be > 0"),
        ("mu", np.nan, "mu must be finite"),
        ("mu", [1.0, 2.0], "mu must have shape"),
        ("mu", "ten", "mu must be numeric"),
    ],
)
@pytest.mark.parametrize("sampler", [mn.sample, mn.sample_independence])
def test_bad_data_raises_naming_the_key(sampler, key, value, message):
    with pytest.raises(ValueError, match=message):
        sampler({**DATA, key: value}, draws=10, tune=0, chains=1, random_seed=0)


def test_missing_key_raises():
    with pytest.raises(ValueError, match="proposal_sd"):
        mn.validate_data({"mu": 0.0, "sigma": 1.0})
