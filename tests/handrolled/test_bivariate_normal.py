import numpy as np
import pytest
from scipy import stats

from mcmc_pairs.comparisons.pairs.bivariate_normal import covariance
from mcmc_pairs.handrolled import bivariate_normal as bn
from mcmc_pairs.pairdata.bivariate_normal import default_data

DATA = default_data()


def conditional_from_covariance(i, other_value):
    """Conditional mean and sd of x_i | x_j from the joint covariance (textbook formula)."""
    mu, cov = DATA["mu"], covariance(DATA)
    j = 1 - i
    mean = mu[i] + cov[i, j] / cov[j, j] * (other_value - mu[j])
    return mean, np.sqrt(cov[i, i] - cov[i, j] ** 2 / cov[j, j])


@pytest.mark.parametrize("value", [-3.0, -1.0, 4.5])
def test_conditionals_match_the_joint_covariance(value):
    args = (DATA["mu"], DATA["sigma"], DATA["rho"])
    np.testing.assert_allclose(bn.x1_given_x2(value, *args), conditional_from_covariance(0, value))
    np.testing.assert_allclose(bn.x2_given_x1(value, *args), conditional_from_covariance(1, value))


@pytest.mark.parametrize(
    ("draw_one", "index", "given"),
    [(bn.sample_x1_given_x2, 0, 2.0), (bn.sample_x2_given_x1, 1, 6.5)],
)
def test_one_gibbs_step_draws_from_the_closed_form_conditional(draw_one, index, given):
    normals = np.random.default_rng(7).standard_normal(4000)
    args = (DATA["mu"], DATA["sigma"], DATA["rho"])
    draws = np.array([draw_one(given, *args, z) for z in normals])
    mean, sd = conditional_from_covariance(index, given)
    assert stats.kstest(draws, stats.norm(mean, sd).cdf).pvalue > 0.001


def plain_chain(x2, normals, tune):
    """Chain gibbs_sweep over pre-drawn normals, keeping the sweeps after ``tune``."""
    kept = []
    for t, z in enumerate(normals):
        x1, x2 = bn.gibbs_sweep(x2, DATA["mu"], DATA["sigma"], DATA["rho"], z)
        if t >= tune:
            kept.append((x1, x2))
    return np.array(kept)


def test_plain_sweep_is_the_seed_recursion_bit_for_bit():
    normals = np.random.default_rng(3).standard_normal((50, 2))
    (m1, m2), (s1, s2), rho = DATA["mu"], DATA["sigma"], DATA["rho"]
    x2, expected = 0.25, []
    for z1, z2 in normals:  # the seed's p_xgiveny, then p_ygivenx
        x1 = m1 + rho * s1 / s2 * (x2 - m2) + np.sqrt(1 - rho**2) * s1 * z1
        x2 = m2 + rho * s2 / s1 * (x1 - m1) + np.sqrt(1 - rho**2) * s2 * z2
        expected.append((x1, x2))
    np.testing.assert_array_equal(plain_chain(0.25, normals, 0), expected)


def test_kernel_is_the_plain_sweep_bit_for_bit():
    normals = np.random.default_rng(3).standard_normal((50, 2))
    out = np.empty((40, 2))
    bn.gibbs_kernel(0.25, normals, DATA["mu"], DATA["sigma"], DATA["rho"], 10, out)
    np.testing.assert_array_equal(out, plain_chain(0.25, normals, 10))


def test_draws_match_the_exact_moments_within_mcse():
    import arviz_stats as azs

    x = bn.sample(DATA, draws=2000, tune=200, chains=4, random_seed=11)["x"]
    cov = covariance(DATA)
    checks = {
        "x1": (x[..., 0], DATA["mu"][0]),
        "x2": (x[..., 1], DATA["mu"][1]),
        "x1^2": ((x[..., 0] - DATA["mu"][0]) ** 2, cov[0, 0]),
        "x1*x2": ((x[..., 0] - DATA["mu"][0]) * (x[..., 1] - DATA["mu"][1]), cov[0, 1]),
    }
    for name, (values, truth) in checks.items():
        z = (values.mean() - truth) / azs.mcse(values, method="mean")
        assert abs(z) < 4, name


def test_ess_per_draw_is_near_the_ar1_value():
    """x1 is AR(1) with coefficient rho**2: ESS/draw = (1 - rho^2) / (1 + rho^2) = 0.6."""
    import arviz_stats as azs

    x = bn.sample(DATA, draws=5000, tune=100, chains=4, random_seed=2)["x"]
    ess = azs.ess(x[..., 0], method="mean")
    assert 0.5 < ess / x[..., 0].size < 0.7


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mu": [1.0]}, "mu must have shape"),
        ({"mu": [np.nan, 0.0]}, "mu must be finite"),
        ({"sigma": [1.0, 0.0]}, "sigma must be > 0"),
        ({"rho": 1.0}, "rho must lie in"),
        ({"rho": "a"}, "rho must be numeric"),
    ],
)
def test_bad_data_is_named(change, message):
    with pytest.raises(ValueError, match=message):
        bn.sample({**DATA, **change}, draws=5, tune=0, chains=2, random_seed=0)


def test_missing_key_is_named():
    with pytest.raises(ValueError, match="missing the key 'rho'"):
        bn.validate_data({"mu": [0, 0], "sigma": [1, 1]})
