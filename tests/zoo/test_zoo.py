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
