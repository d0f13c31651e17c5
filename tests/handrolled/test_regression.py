import copy

import arviz_base as azb
import arviz_stats
import numpy as np
import pytest
from scipy import stats

from mcmc_pairs.comparisons.pairs import regression as reference
from mcmc_pairs.handrolled import regression as reg
from mcmc_pairs.pairdata import regression as rdata

DATA = rdata.default_data()
STATS = reg.sufficient_statistics(DATA["height"], DATA["weight"])
EXACT = reference.exact_marginals(DATA)
Z = 4.0  # MCSE-scaled threshold: a handful of checks per test, two-sided


# ------------------------------------------------------------------ helpers


def joint_precision(sigma2, data=DATA):
    """Precision and linear term of (beta0, beta1) | sigma2 from the design matrix."""
    x = np.column_stack([np.ones_like(data["height"]), data["height"]])
    lam = x.T @ x / sigma2 + np.diag([1 / data["m0"], 1 / data["m1"]])
    return lam, x.T @ data["weight"] / sigma2


def python_blocked_gibbs(data, *, draws, tune, chains, random_seed, precision=None):
    """Blocked Gibbs as a plain Python loop over the module's conditionals.

    ``precision(beta0, beta1, stats, epsilon, g)`` draws ``1 / sigma2`` from a
    standard gamma ``g`` (default: :func:`reg.sample_precision_given_rest`).
    """
    precision = precision or reg.sample_precision_given_rest
    d = rdata.validate_data(data)
    s = reg.sufficient_statistics(d["height"], d["weight"])
    shape = d["epsilon"] + 0.5 * s[0]
    out = {name: np.empty((chains, draws)) for name in reg.VARIABLES}
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        beta0, beta1, sigma2 = reg.initial_point(s, rng)
        for t in range(tune + draws):
            z = rng.standard_normal(2)
            beta0, beta1 = reg.sample_beta_given_sigma2(sigma2, s, d["m0"], d["m1"], *z)
            sigma2 = 1.0 / precision(beta0, beta1, s, d["epsilon"], rng.standard_gamma(shape))
            if t >= tune:
                out["beta0"][c, t - tune], out["beta1"][c, t - tune] = beta0, beta1
                out["sigma2"][c, t - tune] = sigma2
    return out


def precision_rate_as_scale(beta0, beta1, s, epsilon, g):
    """The classic slip: numpy's gamma takes a scale, and this passes the rate."""
    _, rate = reg.precision_given_rest(beta0, beta1, s, epsilon)
    return g * rate


def precision_without_half(beta0, beta1, s, epsilon, g):
    """Rate epsilon + SSE instead of epsilon + SSE / 2."""
    return g / (epsilon + reg.sse(beta0, beta1, s))


def worst_z_against_exact(draws):
    """max over variables of |mean - exact mean| / MCSE (arviz_stats)."""
    tree = azb.from_dict({"posterior": draws})
    mcse = arviz_stats.mcse(tree)
    return max(
        abs(float(draws[v].mean()) - EXACT[v].mean) / float(mcse[v].values) for v in reg.VARIABLES
    )


# --------------------------------------------------------------------- data


def test_women_is_r_women():
    assert DATA["height"].tolist() == list(range(58, 73))
    assert DATA["weight"][[0, -1]].tolist() == [115.0, 164.0]
    assert (DATA["m0"], DATA["m1"], DATA["epsilon"]) == (1e6, 1e6, 1e-3)


def test_davis_keeps_row_12_error_unless_corrected():
    raw = rdata.davis_data()
    fixed = rdata.davis_data(corrected=True)
    assert raw["height"].size == raw["weight"].size == 200
    assert (raw["height"][11], raw["weight"][11]) == (57.0, 166.0)
    assert (fixed["height"][11], fixed["weight"][11]) == (166.0, 57.0)
    assert rdata.validate_data(fixed)["height"].size == 200


def test_synthetic_data_is_reproducible_and_valid():
    a = rdata.synthetic_data(30, rng=np.random.default_rng(1))
    b = rdata.synthetic_data(30, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(a["weight"], b["weight"])
    assert rdata.validate_data(a)["height"].shape == (30,)


# ----------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"weight": np.arange(14.0)}, "same length"),
        ({"height": [60.0, 61.0], "weight": [100.0, 110.0]}, "at least 3"),
        ({"height": [60.0, np.nan, 62.0, 63.0]}, "height must be finite"),
        ({"weight": [1.0, 2.0, np.inf] + [3.0] * 12}, "weight must be finite"),
        ({"height": [65.0] * 15}, "height must not be constant"),
        ({"height": np.ones((15, 1))}, "height must be 1-D"),
        ({"m0": 0.0}, "m0"),
        ({"m1": -1.0}, "m1"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": np.nan}, "epsilon"),
        ({"m0": "big"}, "m0"),
    ],
)
def test_bad_data_raises_naming_the_argument(change, match):
    with pytest.raises(ValueError, match=match):
        rdata.validate_data({**DATA, **change})
    with pytest.raises(ValueError, match=match):
        reg.sample_blocked({**DATA, **change}, draws=5, tune=0, chains=1, random_seed=0)


def test_missing_key_is_named():
    data = dict(DATA)
    del data["epsilon"]
    with pytest.raises(ValueError, match="epsilon"):
        rdata.validate_data(data)


@pytest.mark.parametrize("thin", [0, 1.5, True])
@pytest.mark.parametrize("sampler", [reg.sample, reg.sample_blocked])
def test_bad_thin_raises(sampler, thin):
    with pytest.raises(ValueError, match="thin"):
        sampler(DATA, draws=5, tune=0, chains=1, random_seed=0, thin=thin)


# ------------------------------------------------------ full conditionals


def test_sufficient_statistics_give_the_sum_of_squares():
    for beta0, beta1 in [(-87.5, 3.45), (0.0, 0.0), (10.0, -2.0)]:
        direct = np.sum((DATA["weight"] - beta0 - beta1 * DATA["height"]) ** 2)
        np.testing.assert_allclose(reg.sse(beta0, beta1, STATS), direct, rtol=1e-12)


@pytest.mark.parametrize("sigma2", [0.5, 2.7, 40.0])
@pytest.mark.parametrize("other", [-5.0, 3.45])
def test_single_coefficient_conditionals_match_gaussian_conditioning(sigma2, other):
    lam, h = joint_precision(sigma2)
    # beta0 | beta1 = other: precision lam00, mean (h0 - lam01 * other) / lam00; likewise beta1.
    b0 = reg.beta0_given_rest(other, sigma2, STATS, DATA["m0"])
    np.testing.assert_allclose(b0, ((h[0] - lam[0, 1] * other) / lam[0, 0], lam[0, 0] ** -0.5))
    b1 = reg.beta1_given_rest(other, sigma2, STATS, DATA["m1"])
    np.testing.assert_allclose(b1, ((h[1] - lam[0, 1] * other) / lam[1, 1], lam[1, 1] ** -0.5))


def test_conditionals_tend_to_the_seed_formulas_as_m_grows():
    x, y, n = DATA["height"], DATA["weight"], DATA["height"].size
    beta0, beta1, sigma2 = -80.0, 3.3, 2.0
    np.testing.assert_allclose(
        reg.beta0_given_rest(beta1, sigma2, STATS, 1e15),
        (np.mean(y - x * beta1), np.sqrt(sigma2 / n)),
        rtol=1e-9,
    )
    np.testing.assert_allclose(
        reg.beta1_given_rest(beta0, sigma2, STATS, 1e15),
        ((x @ y - beta0 * x.sum()) / (x @ x), np.sqrt(sigma2 / (x @ x))),
        rtol=1e-9,
    )


def test_precision_given_rest_is_the_seed_gamma():
    beta0, beta1 = -85.0, 3.4
    shape, rate = reg.precision_given_rest(beta0, beta1, STATS, 1e-3)
    resid = DATA["weight"] - beta0 - beta1 * DATA["height"]
    np.testing.assert_allclose((shape, rate), (1e-3 + 15 / 2, 1e-3 + resid @ resid / 2))


def test_one_step_draws_from_each_closed_form_conditional():
    rng = np.random.default_rng(11)
    n = 4000
    m0, m1, eps = DATA["m0"], DATA["m1"], DATA["epsilon"]
    b0 = [reg.sample_beta0_given_rest(3.4, 2.5, STATS, m0, z) for z in rng.standard_normal(n)]
    b1 = [reg.sample_beta1_given_rest(-85.0, 2.5, STATS, m1, z) for z in rng.standard_normal(n)]
    gammas = rng.standard_gamma(eps + 7.5, n)
    tau = [reg.sample_precision_given_rest(-85.0, 3.4, STATS, eps, g) for g in gammas]
    lam, h = joint_precision(2.5)
    target0 = stats.norm((h[0] - lam[0, 1] * 3.4) / lam[0, 0], lam[0, 0] ** -0.5)
    target1 = stats.norm((h[1] - lam[0, 1] * -85.0) / lam[1, 1], lam[1, 1] ** -0.5)
    resid = DATA["weight"] + 85.0 - 3.4 * DATA["height"]
    target_tau = stats.gamma(eps + 7.5, scale=1 / (eps + resid @ resid / 2))
    assert stats.kstest(b0, target0.cdf).pvalue > 1e-3
    assert stats.kstest(b1, target1.cdf).pvalue > 1e-3
    assert stats.kstest(tau, target_tau.cdf).pvalue > 1e-3
    # The slip the docstring warns about is visible to the same test.
    bad = [precision_rate_as_scale(-85.0, 3.4, STATS, eps, g) for g in gammas]
    assert stats.kstest(bad, target_tau.cdf).pvalue < 1e-6


def test_a_pre_drawn_standard_gamma_gives_numpys_gamma_bit_for_bit():
    """Why the kernels may pre-draw: ``rng.gamma(a, 1 / b)`` is ``standard_gamma(a) * (1 / b)``."""
    eps = DATA["epsilon"]
    shape, rate = reg.precision_given_rest(-85.0, 3.4, STATS, eps)
    direct = np.random.default_rng(4).gamma(shape, 1.0 / rate, 50)
    pre_drawn = np.random.default_rng(4).standard_gamma(shape, 50)
    got = [reg.sample_precision_given_rest(-85.0, 3.4, STATS, eps, g) for g in pre_drawn]
    np.testing.assert_array_equal(got, direct)


@pytest.mark.parametrize("sigma2", [0.3, 2.7, 50.0])
def test_blocked_conditional_is_the_bivariate_normal(sigma2):
    lam, h = joint_precision(sigma2)
    mean0, mean1, l11, l21, l22 = reg.beta_given_sigma2(sigma2, STATS, DATA["m0"], DATA["m1"])
    np.testing.assert_allclose([mean0, mean1], np.linalg.solve(lam, h), rtol=1e-9)
    chol = np.array([[l11, 0.0], [l21, l22]])
    np.testing.assert_allclose(chol @ chol.T, lam, rtol=1e-9)


def test_blocked_step_draws_from_the_bivariate_normal():
    sigma2, n = 2.7, 4000
    normals = np.random.default_rng(5).standard_normal((n, 2))
    m0, m1 = DATA["m0"], DATA["m1"]
    draws = np.array([reg.sample_beta_given_sigma2(sigma2, STATS, m0, m1, *z) for z in normals])
    lam, h = joint_precision(sigma2)
    centred = draws - np.linalg.solve(lam, h)
    # (b - mu)' Lambda (b - mu) ~ chi2(2), and the whitened components are uncorrelated.
    quad = np.einsum("ni,ij,nj->n", centred, lam, centred)
    assert stats.kstest(quad, stats.chi2(2).cdf).pvalue > 1e-3
    white = centred @ np.linalg.cholesky(lam)
    assert abs(np.corrcoef(white.T)[0, 1]) * np.sqrt(n) < Z
    # and the coefficients are as correlated as the seed's data make them
    assert np.corrcoef(draws.T)[0, 1] < -0.99


# ---------------------------------------------------------------- kernels


@pytest.mark.parametrize(
    ("kernel", "sweep"),
    [(reg.gibbs_kernel, reg.gibbs_sweep), (reg.blocked_kernel, reg.blocked_sweep)],
)
def test_kernels_are_the_plain_sweeps_bit_for_bit(kernel, sweep):
    m0, m1, eps = DATA["m0"], DATA["m1"], DATA["epsilon"]
    rng = np.random.default_rng(9)
    normals = rng.standard_normal((60, 2))
    gammas = rng.standard_gamma(eps + 7.5, 60)
    state = np.array([-80.0, 3.3, 2.0])
    out = np.empty((20, 3))
    kernel(STATS, m0, m1, eps, state.copy(), normals, gammas, 3, out)
    expected, current = [], tuple(state)
    for z, g in zip(normals, gammas, strict=True):
        current = sweep(current, STATS, m0, m1, eps, z, g)
        expected.append(current)
    np.testing.assert_array_equal(out, np.array(expected)[2::3])


# ---------------------------------------------------------------- samplers


def test_default_thin_comes_from_the_conditional_correlation():
    rho = reg.conditional_correlation(DATA)
    assert -0.999 < rho < -0.997
    thin = reg.default_thin(DATA)
    assert thin == 523
    assert rho ** (2 * thin) <= reg.THIN_TARGET_AUTOCORRELATION < rho ** (2 * (thin - 1))
    centred = {**DATA, "height": DATA["height"] - DATA["height"].mean()}
    assert reg.default_thin(centred) == 1


def test_unthinned_one_at_a_time_gibbs_mixes_slowly():
    post = reg.sample(DATA, draws=1000, tune=1000, chains=2, random_seed=3, thin=1)
    ess = arviz_stats.ess(post["beta1"])
    assert ess < 100  # about 1000 / 450 per chain: why sample() thins


@pytest.mark.parametrize("sampler", [reg.sample, reg.sample_blocked])
def test_default_settings_converge_and_match_the_exact_posterior(sampler):
    post = sampler(DATA, draws=1000, tune=1000, chains=4, random_seed=2026)
    tree = azb.from_dict({"posterior": post})
    for method in ("bulk", "tail"):
        ess = arviz_stats.ess(tree, method=method)
        assert all(float(ess[v].values) >= 400 for v in reg.VARIABLES), method
    rhat = arviz_stats.rhat(tree)
    assert all(float(rhat[v].values) < 1.01 for v in reg.VARIABLES)
    assert worst_z_against_exact(post) < Z
    for name in reg.VARIABLES:
        for p, exact in EXACT[name].quantiles.items():
            q = float(np.quantile(post[name], p))
            mcse = float(arviz_stats.mcse(tree, method="quantile", prob=p)[name].values)
            assert abs(q - exact) / mcse < Z, (name, p)


def test_correct_python_loop_passes_and_wrong_conditionals_are_caught():
    settings = {"draws": 1000, "tune": 200, "chains": 4, "random_seed": 8}
    assert worst_z_against_exact(python_blocked_gibbs(DATA, **settings)) < Z
    for wrong in (precision_rate_as_scale, precision_without_half):
        assert worst_z_against_exact(python_blocked_gibbs(DATA, precision=wrong, **settings)) > 10


def test_recovers_synthetic_truth():
    truth = {"beta0": -40.0, "beta1": 2.5, "sigma2": 4.0}
    data = rdata.synthetic_data(2000, **truth, rng=np.random.default_rng(17))
    post = reg.sample_blocked(data, draws=500, tune=200, chains=2, random_seed=1)
    exact = reference.exact_marginals(data)
    for name, value in truth.items():
        # the posterior covers the truth, on the scale of its own sd
        assert abs(post[name].mean() - value) < Z * post[name].std()
        assert abs(exact[name].mean - value) < Z * exact[name].sd


# ---------------------------------------------------------- exact reference


def test_exact_marginals_match_the_flat_prior_closed_forms():
    """With huge m0, m1: sigma2 ~ InvGamma(a, b), beta ~ Student t with 2a dof."""
    data = {**DATA, "m0": 1e14, "m1": 1e14}
    x, y, n = data["height"], data["weight"], data["height"].size
    design = np.column_stack([np.ones(n), x])
    ols, sse_min = np.linalg.lstsq(design, y, rcond=None)[:2]
    a, b = data["epsilon"] + (n - 2) / 2, data["epsilon"] + sse_min[0] / 2
    cov = b / a * np.linalg.inv(design.T @ design)
    targets = {
        "beta0": stats.t(2 * a, ols[0], np.sqrt(cov[0, 0])),
        "beta1": stats.t(2 * a, ols[1], np.sqrt(cov[1, 1])),
        "sigma2": stats.invgamma(a, scale=b),
    }
    exact = reference.exact_marginals(data)
    for name, target in targets.items():
        np.testing.assert_allclose(exact[name].mean, target.mean(), rtol=1e-7)
        np.testing.assert_allclose(exact[name].sd, target.std(), rtol=1e-6)
        for p, q in exact[name].quantiles.items():
            np.testing.assert_allclose(q, target.ppf(p), rtol=1e-6)
        grid = target.ppf(np.linspace(0.01, 0.99, 7))
        np.testing.assert_allclose(exact[name].pdf(grid), target.pdf(grid), rtol=1e-6)
    covariances = reference.exact_covariances(data)
    np.testing.assert_allclose(covariances["beta0*beta1"], cov[0, 1] * a / (a - 1), rtol=1e-6)
    np.testing.assert_allclose(covariances["beta0*sigma2"], 0.0, atol=1e-9)


def test_small_samples_have_no_finite_sigma2_moments():
    data = {**DATA, "height": DATA["height"][:3], "weight": DATA["weight"][:3]}
    exact = reference.exact_marginals(data)
    assert exact["sigma2"].mean is None and exact["sigma2"].sd is None
    assert exact["beta1"].mean is not None


def test_log_posterior_differences_match_scipy():
    points = np.array([[-87.0, 3.45, 2.5], [-80.0, 3.3, 4.0], [-95.0, 3.6, 1.2]])
    ours = reference.log_posterior(*points.T, DATA)
    x, y = DATA["height"], DATA["weight"]
    theirs = [
        stats.norm(b0 + b1 * x, np.sqrt(s2)).logpdf(y).sum()
        + stats.norm(0, 1e3).logpdf(b0)
        + stats.norm(0, 1e3).logpdf(b1)
        + stats.invgamma(1e-3, scale=1e-3).logpdf(s2)
        for b0, b1, s2 in points
    ]
    np.testing.assert_allclose(np.diff(ours), np.diff(theirs), rtol=1e-10)


@pytest.mark.parametrize(
    ("sampler", "kernel"),
    [(reg.sample, reg.gibbs_kernel), (reg.sample_blocked, reg.blocked_kernel)],
)
def test_a_continued_chain_goes_on_from_its_last_point_on_its_own_stream(sampler, kernel):
    """A continuation is the kernel run from the stored point with the stored stream."""
    state = {}
    first = sampler(DATA, draws=6, tune=2, chains=2, random_seed=9, thin=3, state=state)
    last = np.stack([first[v][:, -1] for v in reg.VARIABLES], axis=1)
    np.testing.assert_array_equal(state["point"], last)
    d = reg.validate_data(DATA)
    stats_ = reg.sufficient_statistics(d["height"], d["weight"])
    shape = d["epsilon"] + 0.5 * len(d["height"])
    expected = np.empty((2, 4, 3))
    for c, rng in enumerate(copy.deepcopy(state["rngs"])):
        point = state["point"][c].copy()
        normals, gammas = rng.standard_normal((12, 2)), rng.standard_gamma(shape, 12)
        kernel(stats_, d["m0"], d["m1"], d["epsilon"], point, normals, gammas, 3, expected[c])
    second = sampler(DATA, draws=4, tune=0, chains=2, random_seed=9, thin=3, state=state)
    for i, v in enumerate(reg.VARIABLES):
        np.testing.assert_array_equal(second[v], expected[..., i])
    np.testing.assert_array_equal(state["point"], expected[:, -1])
