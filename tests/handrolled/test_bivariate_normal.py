import numpy as np
import pytest
from scipy import stats

from comparisons.pairs.bivariate_normal import covariance
from handrolled import bivariate_normal as bn
from pairdata.bivariate_normal import default_data

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
    rng = np.random.default_rng(7)
    draws = np.array([draw_one(given, DATA, rng) for _ in range(4000)])
    mean, sd = conditional_from_covariance(index, given)
    assert stats.kstest(draws, stats.norm(mean, sd).cdf).pvalue > 0.001


def test_kernel_is_the_seed_recursion_bit_for_bit():
    rng = np.random.default_rng(3)
    normals = rng.standard_normal((50, 2))
    out = np.empty((40, 2))
    (m1, m2), (s1, s2), rho = DATA["mu"], DATA["sigma"], DATA["rho"]
    bn.gibbs_chain(0.25, normals, DATA["mu"], DATA["sigma"], rho, 10, out)
    x2, expected = 0.25, []
    for z1, z2 in normals:
        x1 = m1 + rho * s1 / s2 * (x2 - m2) + np.sqrt(1 - rho**2) * s1 * z1
        x2 = m2 + rho * s2 / s1 * (x1 - m1) + np.sqrt(1 - rho**2) * s2 * z2
        expected.append((x1, x2))
    np.testing.assert_array_equal(out, np.array(expected)[10:])


def test_shape_is_chains_draws_event():
    x = bn.sample(DATA, draws=7, tune=3, chains=5, random_seed=1)["x"]
    assert x.shape == (5, 7, 2)


def test_same_seed_same_draws_and_global_seeding_has_no_effect():
    np.random.seed(1)  # noqa: NPY002 - proves the sampler ignores the global state
    a = bn.sample(DATA, draws=50, tune=5, chains=3, random_seed=42)["x"]
    np.random.seed(2)  # noqa: NPY002
    b = bn.sample(DATA, draws=50, tune=5, chains=3, random_seed=42)["x"]
    c = bn.sample(DATA, draws=50, tune=5, chains=3, random_seed=43)["x"]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_chains_are_independent_streams_with_dispersed_starts():
    x = bn.sample(DATA, draws=1, tune=0, chains=8, random_seed=5)["x"]
    first_x2 = x[:, 0, 1]
    assert len(np.unique(first_x2)) == 8
    # a chain's draws do not depend on how many chains run beside it
    one = bn.sample(DATA, draws=20, tune=0, chains=1, random_seed=5)["x"]
    np.testing.assert_array_equal(
        one[0], bn.sample(DATA, draws=20, tune=0, chains=3, random_seed=5)["x"][0]
    )


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


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"draws": 0}, "draws must be an integer >= 1"),
        ({"chains": 0}, "chains must be an integer >= 1"),
        ({"tune": -1}, "tune must be an integer >= 0"),
        ({"draws": 2.5}, "draws must be an integer"),
        ({"random_seed": -3}, "random_seed must be a non-negative integer"),
    ],
)
def test_bad_settings_are_named(kwargs, message):
    settings = {"draws": 5, "tune": 0, "chains": 2, "random_seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        bn.sample(DATA, **settings)
