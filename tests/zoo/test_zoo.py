"""The calibration zoo: each model's files, and each sampler alone.

Per model (``zoo.MODELS``; the end-to-end compares are in ``test_zoo_end_to_end.py``):
model and sampler share no code. Then fast unit tests of each exact or Gibbs
sampler against a closed form computed here, independently of the sampler,
with tolerances scaled by the Monte Carlo standard error, and the planted bug
caught by the same test.
"""

import ast
import importlib.util
import json

import numpy as np
import pytest
from scipy import integrate, special, stats

import zoo


def _load(name, module="sampler"):
    path = zoo.get(name).folder / f"{module}.py"
    spec = importlib.util.spec_from_file_location(f"zoo_{name}_{module}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _data(name):
    model = zoo.get(name)
    assert model.data.suffix == ".json"
    return json.loads(model.data.read_text())


def test_every_zoo_model_has_its_files():
    assert len({m.name for m in zoo.MODELS}) == len(zoo.MODELS)
    for model in zoo.MODELS:
        for file in ("model.py", "sampler.py", "README.md", model.data_file):
            assert (model.folder / file).is_file(), f"{model.name}: {file} missing"


@pytest.mark.parametrize("name", [m.name for m in zoo.MODELS])
def test_model_and_sampler_share_no_code(name):
    folder = zoo.get(name).folder
    for module, other in (("model", "sampler"), ("sampler", "model")):
        tree = ast.parse((folder / f"{module}.py").read_text())
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                names.add(node.module or "")
        assert not any(other in n or "zoo" in n for n in names), f"{module}.py imports {names}"
    sampler_source = (folder / "sampler.py").read_text()
    assert "pymc" not in sampler_source.replace("PyMC", "")


# ---------------------------------------------------------------- unit tests


def _within(draws, exact, n_eff=None, k=4.5, sd=None):
    """``|mean(draws) - exact| <= k`` Monte Carlo standard errors (iid unless ``n_eff``).

    The standard error uses the exact ``sd`` when given, else the draws' sd.
    """
    draws = np.asarray(draws, dtype=float).ravel()
    n = draws.size if n_eff is None else n_eff
    mcse = (draws.std() if sd is None else sd) / np.sqrt(n)
    return abs(draws.mean() - exact) <= k * mcse


def _changepoint_exact(data):
    """p(s | y) by numerical integration over both rates (quadrature, not the formula)."""
    y = np.asarray(data["disasters"], dtype=float)
    a, b = data["rate_alpha"], data["rate_beta"]
    n = y.size
    log_terms = []
    for s in range(1, n):
        log_s = 0.0
        for segment in (y[:s], y[s:]):
            total, years = segment.sum(), segment.size
            mode = (a - 1 + total) / (b + years)
            scale = np.sqrt(a + total) / (b + years)

            def log_f(rate, total=total, years=years, mode=mode):
                return (
                    stats.gamma.logpdf(rate, a, scale=1 / b) + total * np.log(rate) - years * rate
                ) - (stats.gamma.logpdf(mode, a, scale=1 / b) + total * np.log(mode) - years * mode)

            value, _ = integrate.quad(
                lambda r: np.exp(log_f(r)), max(mode - 12 * scale, 1e-12), mode + 12 * scale
            )
            log_s += np.log(value) + (
                stats.gamma.logpdf(mode, a, scale=1 / b) + total * np.log(mode) - years * mode
            )
        log_terms.append(log_s)
    log_terms = np.array(log_terms)
    return np.arange(1, n), np.exp(log_terms - special.logsumexp(log_terms))


def test_changepoint_exact_sampler_matches_quadrature():
    data = _data("changepoint")
    support, p = _changepoint_exact(data)
    mean = support @ p
    module = _load("changepoint")
    good = module.sample(data, draws=20_000, tune=0, chains=2, random_seed=3)
    bad = module.sample_planted_bug(data, draws=20_000, tune=0, chains=2, random_seed=3)
    assert _within(good["switchpoint"], mean)
    assert not _within(bad["switchpoint"], mean)
    # every probability of the switchpoint, not only its mean
    counts = np.bincount(good["switchpoint"].ravel() - 1, minlength=support.size)
    expected = p * counts.sum()
    keep = expected > 5
    observed, expected = counts[keep], expected[keep] * counts[keep].sum() / expected[keep].sum()
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_mixture_indicator_and_mean_conditionals_match_closed_forms():
    module = _load("mixture")
    rng = np.random.default_rng(5)
    y = np.array([-0.5, 0.0, 0.3, 0.6])
    w, mu, sigma2 = 0.3, np.array([-1.5, 2.5]), np.array([0.6, 1.5])
    density = [w * stats.norm.pdf(y, mu[0], np.sqrt(sigma2[0]))]
    density.append((1 - w) * stats.norm.pdf(y, mu[1], np.sqrt(sigma2[1])))
    p1 = density[0] / (density[0] + density[1])
    z = np.array([module.draw_z_given_rest(rng, y, w, mu, sigma2) for _ in range(20_000)])
    for i in range(y.size):
        assert 0.01 < p1[i] < 0.99
        assert _within(z[:, i], p1[i], sd=np.sqrt(p1[i] * (1 - p1[i])))
    # mu_k | z, sigma2: the conjugate normal, written here from the prior and the data
    y = np.array([-2.0, -1.0, -1.6, 2.0, 3.1])
    z = np.array([True, True, True, False, False])
    m, s = np.array([-2.5, 2.5]), 1.0
    post_precision = np.array([3, 2]) / sigma2 + 1 / s**2
    post_mean = (np.array([y[z].sum(), y[~z].sum()]) / sigma2 + m / s**2) / post_precision
    good = np.array([module.draw_mu_given_rest(rng, y, z, sigma2, m, s) for _ in range(20_000)])
    bad = [module.draw_mu_given_rest_planted_bug(rng, y, z, sigma2, m, s) for _ in range(20_000)]
    bad = np.array(bad)
    for k in range(2):
        assert _within(good[:, k], post_mean[k])
        assert _within(good[:, k] ** 2, post_mean[k] ** 2 + 1 / post_precision[k])
        assert not _within(bad[:, k], post_mean[k])


def test_hierarchical_conditionals_match_closed_forms():
    module = _load("hierarchical")
    rng = np.random.default_rng(7)
    theta = np.linspace(8.0, 12.0, 60)
    mu, a_t, b_t = 10.0, 2.5, 2.0
    shape = a_t + theta.size / 2
    scale = b_t + np.sum((theta - mu) ** 2) / 2
    exact = stats.invgamma(shape, scale=scale)
    good = [module.draw_tau2_given_rest(rng, theta, mu, a_t, b_t) for _ in range(20_000)]
    bad = [module.draw_tau2_given_rest_planted_bug(rng, theta, mu, a_t, b_t) for _ in range(20_000)]
    assert _within(good, exact.mean(), sd=exact.std())
    assert _within(np.log(good), np.mean(np.log(exact.rvs(200_000, random_state=1))), k=5)
    assert not _within(bad, exact.mean(), sd=exact.std())
    # theta_j | rest: precision n_j / sigma2 + 1 / tau2, written here per group
    sums, sizes = np.array([30.0, 5.0]), np.array([3.0, 1.0])
    tau2, sigma2 = 0.8, 2.0
    draws = np.array(
        [module.draw_theta_given_rest(rng, sums, sizes, mu, tau2, sigma2) for _ in range(20_000)]
    )
    for j in range(2):
        precision = sizes[j] / sigma2 + 1 / tau2
        mean = (sums[j] / sigma2 + mu / tau2) / precision
        assert _within(draws[:, j], mean, sd=precision**-0.5)
        assert _within((draws[:, j] - mean) ** 2, 1 / precision, sd=np.sqrt(2) / precision)


def test_correlated_exact_sampler_matches_augmented_least_squares():
    data = _data("correlated")
    x1, x2, y = (np.asarray(data[k]) for k in ("x1", "x2", "y"))
    sigma, s = data["sigma"], data["prior_sd"]
    # the prior as three pseudo-observations 0 = beta_k + N(0, s^2): least squares
    rows = np.column_stack([np.ones_like(x1), x1, x2]) / sigma
    augmented = np.vstack([rows, np.eye(3) / s])
    target = np.concatenate([y / sigma, np.zeros(3)])
    mean = np.linalg.lstsq(augmented, target, rcond=None)[0]
    covariance = np.linalg.inv(augmented.T @ augmented)
    sd = np.sqrt(np.diag(covariance))
    correlation = covariance[1, 2] / (sd[1] * sd[2])
    assert correlation < -0.95
    module = _load("correlated")
    good = module.sample(data, draws=20_000, tune=0, chains=2, random_seed=3)["beta"]
    bad = module.sample_planted_bug(data, draws=20_000, tune=0, chains=2, random_seed=3)["beta"]
    good, bad = good.reshape(-1, 3), bad.reshape(-1, 3)
    for k in range(3):
        assert _within(good[:, k], mean[k], sd=sd[k])
        assert _within((good[:, k] - mean[k]) ** 2, sd[k] ** 2, sd=np.sqrt(2) * sd[k] ** 2)
    product = (good[:, 1] - mean[1]) * (good[:, 2] - mean[2])
    assert _within(product, covariance[1, 2])
    assert not _within(bad[:, 1], mean[1], sd=sd[1])


def _batch_mcse(draws, batches=20):
    """MCSE of the mean of (chains, draws) autocorrelated draws, by batch means."""
    draws = np.asarray(draws, dtype=float)
    chains, n = draws.shape
    means = draws[:, : n - n % batches].reshape(chains, batches, -1).mean(axis=2).ravel()
    return means.std(ddof=1) / np.sqrt(means.size)


def test_counts_gibbs_sampler_matches_beta_by_quadrature():
    data = _data("counts")
    y, t = np.asarray(data["failures"], dtype=float), np.asarray(data["hours"])
    a, g, d = data["alpha"], data["beta_shape"], data["beta_rate"]

    def log_posterior(beta):  # every rate integrated out of Poisson x Gamma(a, beta)
        beta = np.asarray(beta, dtype=float)[..., None]  # (grid, 1) against the rates (n,)
        terms = a * np.log(beta) - (a + y) * np.log(beta + t)
        return stats.gamma.logpdf(beta[..., 0], g, scale=1 / d) + terms.sum(axis=-1)

    grid = np.linspace(1e-6, 12.0, 200_001)
    density = np.exp(log_posterior(grid) - log_posterior(2.5))
    mass = integrate.trapezoid(density, grid)
    mean = integrate.trapezoid(grid * density, grid) / mass
    sd = np.sqrt(integrate.trapezoid((grid - mean) ** 2 * density, grid) / mass)
    module = _load("counts")
    for sampler, ok in ((module.sample, True), (module.sample_planted_bug, False)):
        beta = sampler(data, draws=5_000, tune=200, chains=4, random_seed=5)["beta"]
        assert bool(abs(beta.mean() - mean) <= 4.5 * _batch_mcse(beta)) is ok
        if ok:
            assert abs(beta.std() - sd) <= 0.03 * sd


def test_counts_rate_conditional_matches_closed_form():
    data = _data("counts")
    y, t = np.asarray(data["failures"], dtype=float), np.asarray(data["hours"])
    module = _load("counts")
    rng = np.random.default_rng(2)
    draws = np.array([module.draw_rate_given_beta(rng, 2.0, y, t, 1.8) for _ in range(20_000)])
    shape, rate = 1.8 + y, 2.0 + t
    for i in range(y.size):
        assert _within(draws[:, i], shape[i] / rate[i], sd=np.sqrt(shape[i]) / rate[i])


def test_boundary_exact_sampler_matches_beta_posteriors():
    data = _data("boundary")
    a, b = data["prior_alpha"], data["prior_beta"]
    n, k = data["trials"], data["successes"]
    p_exact = stats.beta(a + k, b + n - k)
    n, k = data["inspected"], data["defects"]
    q_exact = stats.beta(a + k, b + n - k)
    module = _load("boundary")
    good = module.sample(data, draws=50_000, tune=0, chains=1, random_seed=4)
    bad = module.sample_planted_bug(data, draws=50_000, tune=0, chains=1, random_seed=4)
    for name, exact in (("p", p_exact), ("q", q_exact)):
        assert _within(good[name], exact.mean(), sd=exact.std())
        for prob in (0.05, 0.5, 0.95):  # P(X <= exact quantile) = prob
            hits = good[name] <= exact.ppf(prob)
            assert _within(hits, prob, sd=np.sqrt(prob * (1 - prob)))
    near_one = good["p"] > 0.999  # the density's maximum is at the boundary
    assert _within(near_one, p_exact.sf(0.999), sd=np.sqrt(p_exact.sf(0.999)))
    assert np.all((good["p"] > 0) & (good["p"] <= 1))
    assert not _within(bad["q"], q_exact.mean(), sd=q_exact.std())


def test_heavy_tailed_gibbs_sampler_matches_quadrature():
    data = _data("heavy_tailed")
    y, nu = np.asarray(data["y"]), data["nu"]
    mu_grid = np.linspace(23.0, 32.0, 361)
    s2_grid = np.linspace(2.0, 80.0, 391)
    mu, s2 = np.meshgrid(mu_grid, s2_grid, indexing="ij")
    log_post = stats.norm.logpdf(mu, data["mu_prior_mean"], data["mu_prior_sd"])
    log_post = log_post + stats.invgamma.logpdf(s2, data["sigma2_alpha"], scale=data["sigma2_beta"])
    for value in y:  # the t likelihood itself, not the scale mixture
        log_post = log_post + stats.t.logpdf(value, nu, loc=mu, scale=np.sqrt(s2))
    weight = np.exp(log_post - log_post.max())
    weight /= weight.sum()
    assert weight[0].sum() + weight[-1].sum() + weight[:, 0].sum() + weight[:, -1].sum() < 1e-6
    exact = {"mu": np.sum(weight * mu), "sigma2": np.sum(weight * s2)}
    module = _load("heavy_tailed")
    good = module.sample(data, draws=5_000, tune=200, chains=4, random_seed=6)
    bad = module.sample_planted_bug(data, draws=5_000, tune=200, chains=4, random_seed=6)
    for name in exact:
        assert abs(good[name].mean() - exact[name]) <= 4.5 * _batch_mcse(good[name])
    assert abs(bad["sigma2"].mean() - exact["sigma2"]) > 4.5 * _batch_mcse(bad["sigma2"])


def test_deterministic_dims_exact_sampler_matches_marginal_likelihood():
    from mcmc_pairs.comparisons.datafile import read_data

    model = zoo.get("deterministic_dims")
    data = read_data(model.data)
    y = data["growth"]
    design = np.column_stack([np.ones_like(y), data["dose"], data["light"]])
    a, b, g = 2.0, 2.0, 10.0
    # sigma2 | y by 1-D quadrature of y ~ N(0, sigma2 (I + g^2 X X')), beta integrated out
    gram = np.eye(y.size) + g**2 * design @ design.T
    _, logdet = np.linalg.slogdet(gram)
    quad = y @ np.linalg.solve(gram, y)
    grid = np.linspace(0.5, 6.0, 20_001)
    log_post = stats.invgamma.logpdf(grid, a, scale=b) - 0.5 * (y.size * np.log(grid) + quad / grid)
    weight = np.exp(log_post - log_post.max())
    mean_sigma2 = integrate.trapezoid(grid * weight, grid) / integrate.trapezoid(weight, grid)
    sd_sigma2 = np.sqrt(
        integrate.trapezoid((grid - mean_sigma2) ** 2 * weight, grid)
        / integrate.trapezoid(weight, grid)
    )
    # beta's posterior mean: ridge regression, by augmented least squares
    augmented = np.vstack([design, np.eye(3) / g])
    mean_beta = np.linalg.lstsq(augmented, np.concatenate([y, np.zeros(3)]), rcond=None)[0]
    module = _load("deterministic_dims")
    good = module.sample(data, draws=25_000, tune=0, chains=2, random_seed=8)
    bad = module.sample_planted_bug(data, draws=25_000, tune=0, chains=2, random_seed=8)
    assert _within(good["sigma2"], mean_sigma2, sd=sd_sigma2)
    assert abs(good["sigma2"].std() - sd_sigma2) < 0.02 * sd_sigma2
    for k in range(3):
        assert _within(good["beta"][..., k], mean_beta[k])
    assert not _within(bad["sigma2"], mean_sigma2, sd=sd_sigma2)


def _growth_log_marginal(v, estimates, m, s):
    """log N(estimates | m 1, v I + s^2 1 1'), the population mean integrated out.

    ``v`` (any shape) is each estimate's variance about the population mean; the
    covariance's determinant and inverse by the matrix determinant lemma and
    Sherman-Morrison, vectorised over ``v``.
    """
    n = estimates.size
    v = np.asarray(v, dtype=float)
    d = estimates - m
    spread = v + n * s**2
    quad = (np.sum(d**2) - s**2 * np.sum(d) ** 2 / spread) / v
    return -0.5 * (quad + (n - 1) * np.log(v) + np.log(spread) + n * np.log(2 * np.pi))


def test_growth_gibbs_sampler_matches_quadrature():
    data = _data("growth")
    x, y = np.asarray(data["x"], dtype=float), np.asarray(data["y"], dtype=float)
    n, t = y.shape
    xc = x - x.mean()
    sxx = xc @ xc
    # each rat's least-squares line: its intercept ~ N(alpha_i, sigma2 / T), its slope
    # ~ N(beta_i, sigma2 / Sxx), its residuals a sigma2 chi-square on T - 2 df
    intercepts, slopes = y.mean(axis=1), y @ xc / sxx
    rss = np.sum((y - intercepts[:, None] - slopes[:, None] * xc) ** 2)
    check = stats.multivariate_normal(np.full(n, 6.0), 0.3 * np.eye(n) + 4.0 * np.ones((n, n)))
    assert np.isclose(_growth_log_marginal(0.3, slopes, 6.0, 2.0), check.logpdf(slopes))
    # alpha, beta, alpha_c, beta_c integrated out: given sigma2, the two variances of
    # the population are independent; 1-D quadrature of each inside one over sigma2
    s2 = np.linspace(12.0, 90.0, 601)
    log_s2 = stats.invgamma.logpdf(s2, data["sigma2_shape"], scale=data["sigma2_scale"])
    log_s2 = log_s2 - 0.5 * n * (t - 2) * np.log(s2) - 0.5 * rss / s2
    sides = {}
    for name, grid, est, scale_by in (
        ("alpha", np.linspace(20.0, 1500.0, 1201), intercepts, t),
        ("beta", np.linspace(0.005, 1.2, 1201), slopes, sxx),
    ):
        prior = stats.invgamma.logpdf(
            grid, data[f"tau2_{name}_shape"], scale=data[f"tau2_{name}_scale"]
        )
        m, s = data[f"{name}_c_prior_mean"], data[f"{name}_c_prior_sd"]
        log_w = prior[None, :] + _growth_log_marginal(
            grid[None, :] + s2[:, None] / scale_by, est, m, s
        )
        weight = np.exp(log_w - log_w.max())
        assert weight[:, [0, -1]].max() < 1e-5 * weight.max()
        sides[name] = (grid, weight, integrate.trapezoid(weight, grid, axis=1))
    weight_s2 = np.exp(log_s2 - log_s2.max()) * sides["alpha"][2] * sides["beta"][2]
    weight_s2 /= integrate.trapezoid(weight_s2, s2)
    assert weight_s2[[0, -1]].max() < 1e-6 * weight_s2.max()

    def expect(name, values):  # E[values | y], values on the (sigma2, tau2_name) grid
        grid, weight, mass = sides[name]
        inner = integrate.trapezoid(weight * values, grid, axis=1) / mass
        return integrate.trapezoid(inner * weight_s2, s2)

    tau2_beta = sides["beta"][0][None, :]
    # E[beta_c | tau2_beta, sigma2, y]: the slopes ~ N(beta_c, tau2_beta + sigma2 / Sxx)
    v = tau2_beta + s2[:, None] / sxx
    m, s = data["beta_c_prior_mean"], data["beta_c_prior_sd"]
    beta_c_mean = (slopes.sum() / v + m / s**2) / (n / v + 1 / s**2)
    exact = {
        "sigma2": integrate.trapezoid(s2 * weight_s2, s2),
        "tau2_alpha": expect("alpha", sides["alpha"][0][None, :]),
        "tau2_beta": expect("beta", tau2_beta),
        "beta_c": expect("beta", beta_c_mean),
    }
    sd_tau2_beta = np.sqrt(expect("beta", tau2_beta**2) - exact["tau2_beta"] ** 2)
    module = _load("growth")
    good = module.sample(data, draws=2_500, tune=200, chains=4, random_seed=9)
    bad = module.sample_planted_bug(data, draws=2_500, tune=200, chains=4, random_seed=9)
    for name, value in exact.items():
        assert abs(good[name].mean() - value) <= 4.5 * _batch_mcse(good[name]), name
    assert abs(good["tau2_beta"].std() - sd_tau2_beta) <= 0.04 * sd_tau2_beta
    bias = abs(bad["tau2_beta"].mean() - exact["tau2_beta"])
    assert bias > 4.5 * _batch_mcse(bad["tau2_beta"])
    assert abs(bad["tau2_beta"].std() - sd_tau2_beta) > 0.04 * sd_tau2_beta


def test_growth_line_conditionals_are_one_exact_draw_of_each_rats_line():
    # (alpha_i, beta_i) | rest is bivariate normal; with centred ages, the intercept's
    # draw and then the slope's is one exact draw of it, whatever slope came before
    module = _load("growth")
    rng = np.random.default_rng(10)
    x = np.array([8.0, 15.0, 22.0, 29.0, 36.0])
    xc = x - x.mean()
    y = np.array([[151.0, 199.0, 246.0, 283.0, 320.0], [160.0, 207.0, 257.0, 303.0, 345.0]])
    alpha_c, beta_c, tau2_alpha, tau2_beta, sigma2 = 240.0, 6.0, 150.0, 0.2, 40.0
    stale = np.array([-50.0, 50.0])  # a slope far from any plausible one
    draws = np.empty((20_000, 2, 2))
    for k in range(draws.shape[0]):
        alpha = module.draw_alpha_given_rest(rng, y, xc, stale, alpha_c, tau2_alpha, sigma2)
        beta = module.draw_beta_given_rest(rng, y, xc, alpha, beta_c, tau2_beta, sigma2)
        draws[k, :, 0], draws[k, :, 1] = alpha, beta
    # the prior as two pseudo-observations: augmented weighted least squares
    design = np.column_stack([np.ones_like(xc), xc]) / np.sqrt(sigma2)
    prior_rows = np.diag(np.array([tau2_alpha, tau2_beta]) ** -0.5)
    augmented = np.vstack([design, prior_rows])
    covariance = np.linalg.inv(augmented.T @ augmented)
    sd = np.sqrt(np.diag(covariance))
    for i in range(2):
        target = np.concatenate([y[i] / np.sqrt(sigma2), prior_rows @ [alpha_c, beta_c]])
        mean = np.linalg.lstsq(augmented, target, rcond=None)[0]
        centred = draws[:, i] - mean
        for k in range(2):
            assert _within(draws[:, i, k], mean[k], sd=sd[k])
            assert _within(centred[:, k] ** 2, sd[k] ** 2, sd=np.sqrt(2) * sd[k] ** 2)
        correlation = covariance[0, 1] / (sd[0] * sd[1])
        product = centred[:, 0] * centred[:, 1] / (sd[0] * sd[1])
        assert _within(product, correlation, sd=np.sqrt(1 + correlation**2))
    # and the planted bug's step, against the inverse gamma written here
    beta = np.linspace(5.0, 7.4, 30)
    shape, scale = 2.0 + beta.size / 2, 0.25 + np.sum((beta - 6.2) ** 2) / 2
    exact = stats.invgamma(shape, scale=scale)
    good = [module.draw_tau2_beta_given_rest(rng, beta, 6.2, 2.0, 0.25) for _ in range(20_000)]
    bad = [
        module.draw_tau2_beta_given_rest_planted_bug(rng, beta, 6.2, 2.0, 0.25)
        for _ in range(20_000)
    ]
    assert _within(good, exact.mean(), sd=exact.std())
    assert not _within(bad, exact.mean(), sd=exact.std())
