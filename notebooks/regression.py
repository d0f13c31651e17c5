# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 贝叶斯线性回归的 Gibbs 采样 · Weight on height: Gibbs sampling of a Bayesian regression
#
# *About 15 minutes to read.* Previous: [bivariate normal](bivariate_normal.ipynb) · next:
# [Bayes net](bayes_net.ipynb) · [Glossary 术语表](GLOSSARY.md) · how the suite checks a
# sampler: [checking a sampler](checking_a_sampler.ipynb)
#
# The seed: seed 000, **《马尔科夫链蒙特卡洛应用初窥》** ("A first look at
# applications of Markov chain Monte Carlo"), its "一个简单的例子" (a simple
# example): the regression of weight on height sampled by Gibbs.
#
# **The idea.** Bayes' formula gives the posterior (后验)
# $p(\theta \mid x) \propto p(\theta)\,p(x \mid \theta)$, prior (先验) times likelihood
# (似然). For the regression of seed 000 the joint posterior of
# $(\beta_0, \beta_1, \sigma^2)$ is awkward to sample directly, but each *full
# conditional* (满条件分布; the seed's 条件后验分布) is a standard distribution. Gibbs
# sampling (吉布斯采样) draws each parameter in turn from its conditional given the
# others. Here it works, slowly; this notebook shows why, and what helps.
#
# The data are R's `women` (15 heights in inches and weights in pounds). The
# parameters below are the run lengths (the tests run this notebook with tiny values).

# %% tags=["parameters"]
draws = 1000
tune = 1000
chains = 4
seed = 20261122
max_draws = None  # an undecided run grows to 16 x draws (README, "Runs that last until decided")

# %%
# %matplotlib inline
import time

import _exercises as ex
import arviz_stats as azs
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from mcmc_pairs.comparisons import report
from mcmc_pairs.comparisons.pairs import regression as reference
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import resolve_settings, run_pair
from mcmc_pairs.handrolled import regression as reg
from mcmc_pairs.handrolled import wrong_samplers
from mcmc_pairs.models.regression import build_model
from mcmc_pairs.pairdata.regression import default_data

# %% [markdown]
# ## 1. 模型 · The model (the seed's notation)
#
# $$ weight_i = \beta_0 + \beta_1\, height_i + e_i, \qquad e_i \sim N(0, \sigma^2) $$
#
# $$ \beta_0 \sim N(0, m_0),\quad \beta_1 \sim N(0, m_1),\quad
#    \sigma^2 \sim \Gamma^{-1}(\epsilon, \epsilon),\qquad
#    m_0 = m_1 = 10^6,\ \epsilon = 10^{-3}. $$
#
# $m_0$ and $m_1$ are prior *variances* (BUGS writes the precision $10^{-6}$);
# $\Gamma^{-1}$ is the inverse-gamma distribution: $1/\sigma^2 \sim \Gamma(\epsilon, \epsilon)$.
# Below, $x_i$ is the height and $y_i$ the weight.

# %%
data = default_data()
x, y = data["height"], data["weight"]
n, m0, m1, eps = len(y), data["m0"], data["m1"], data["epsilon"]
print(pd.DataFrame({"height x": x, "weight y": y}).T.to_string())
print({"m0": m0, "m1": m1, "epsilon": eps})

# %% [markdown]
# ## 2. 满条件分布 · The full conditionals and one sweep
#
# **$\beta_0$.** The seed gives the flat-prior limit
#
# $$ m_0 \to \infty:\quad \beta_0 \mid y, \beta_1, \sigma^2 \sim
#    N\!\left(\frac{1}{N}\sum_i (y_i - x_i\beta_1),\ \frac{\sigma^2}{N}\right). $$
#
# With the finite prior the precision is $N/\sigma^2 + 1/m_0$ and the mean
# $\sum_i (y_i - x_i\beta_1)/\sigma^2$ divided by it, which tends to the seed's form.
#
# **$\beta_1$.** The seed writes
#
# $$ m_1 \to \infty:\quad \beta_1 \mid y, \beta_0, \sigma^2 \sim
#    N\!\left(\frac{\sum_i x_i y_i - \beta_0 \sum_i x_i}{\sum_i x_i^2},\
#    \frac{\sigma^2}{\sum_i x_i^2}\right). $$
#
# (The seed labels this limit "$m_0 \to \infty$"; it is $m_1$, the prior variance
# of $\beta_1$, that goes to infinity here.) Finite prior: precision
# $\sum_i x_i^2/\sigma^2 + 1/m_1$.
#
# **$\sigma^2$**, through its precision $1/\sigma^2$:
#
# $$ p(1/\sigma^2 \mid y, \beta_0, \beta_1) = \Gamma(a, b),\qquad
#    a = \epsilon + \frac{N}{2},\quad b = \epsilon + \frac12\sum_i e_i^2 . $$
#
# $b$ is a *rate*; NumPy's `gamma` takes a *scale*, $1/b$ (a classic bug: section 6).
# The three formulas and one sweep, written out:


# %%
def beta0_given_rest(beta1, sigma2):
    """Mean and sd of p(beta0 | y, beta1, sigma2)."""
    precision = n / sigma2 + 1 / m0
    return np.sum(y - x * beta1) / sigma2 / precision, np.sqrt(1 / precision)


def beta1_given_rest(beta0, sigma2):
    """Mean and sd of p(beta1 | y, beta0, sigma2)."""
    precision = np.sum(x**2) / sigma2 + 1 / m1
    return (np.sum(x * y) - beta0 * np.sum(x)) / sigma2 / precision, np.sqrt(1 / precision)


def precision_given_rest(beta0, beta1):
    """Shape a and RATE b of p(1 / sigma2 | y, beta0, beta1)."""
    return eps + n / 2, eps + 0.5 * np.sum((y - beta0 - beta1 * x) ** 2)


def sweep(beta0, beta1, sigma2, rng):
    """One Gibbs sweep: beta0, then beta1, then sigma2, each given the latest others."""
    beta0 = rng.normal(*beta0_given_rest(beta1, sigma2))
    beta1 = rng.normal(*beta1_given_rest(beta0, sigma2))
    a, b = precision_given_rest(beta0, beta1)
    sigma2 = 1 / rng.gamma(a, 1 / b)  # NumPy's gamma takes the scale 1 / b
    return beta0, beta1, sigma2


rng = np.random.default_rng(seed)
state = (-87.0, 3.45, 2.5)
for _ in range(3):
    state = sweep(*state, rng)
    print("beta0 = {:9.3f}, beta1 = {:.4f}, sigma2 = {:.3f}".format(*state))
# the package's conditionals (written with centred sums, for stability) give the same numbers
stats_ = reg.sufficient_statistics(x, y)
b0, b1, s2 = state
assert np.allclose(beta0_given_rest(b1, s2), reg.beta0_given_rest(b1, s2, stats_, m0))
assert np.allclose(beta1_given_rest(b0, s2), reg.beta1_given_rest(b0, s2, stats_, m1))
assert np.allclose(precision_given_rest(b0, b1), reg.precision_given_rest(b0, b1, stats_, eps))

# %% [markdown]
# The package's sampler `reg.sample` runs these sweeps compiled (numba), the formulas
# rewritten in six centred sums (`reg.sufficient_statistics`) so that no large numbers
# cancel in floating point; the tests check it against `reg.gibbs_sweep` bit for bit.
#
# ## 3. 为什么慢 · Why this Gibbs sampler crawls, and what helps
#
# Given $\sigma^2$, the intercept and the slope are almost perfectly correlated: their
# conditional correlation $\rho$ (in the flat-prior limit, `reg.conditional_correlation`)
# is printed below. A one-at-a-time Gibbs scan on a bivariate normal with correlation
# $\rho$ is an AR(1) chain with coefficient $\rho^2$ (the [bivariate normal
# notebook](bivariate_normal.ipynb), Exercise 2): each sweep moves along the narrow ridge
# of the posterior by a small step.

# %%
rho = reg.conditional_correlation(data)
print(f"conditional correlation of beta0 and beta1: {rho:.4f}, rho^2 = {rho**2:.4f}")
assert rho < -0.99  # "almost perfectly correlated"

# %% [markdown]
# **Exercise 1 (predict the thinning)**, asked here because the rest of this
# section shows its answer. One-at-a-time Gibbs keeps a lag-1 autocorrelation of
# $\rho^2$ per sweep, so keeping every `thin`-th sweep leaves $\rho^{2\,thin}$.
# Using $\rho^2$ printed above, what is the smallest `thin` with
# $\rho^{2\,thin} \le 0.1$?

# %%
answer = None  # your whole number

# %% jupyter={"source_hidden": true} tags=["checker"]
thin = reg.default_thin(data)
bound = np.log(0.1) / np.log(rho**2)
# the hint and explanation: thin - 1 sweeps leave more than 0.1, thin sweeps at most 0.1
assert rho ** (2 * (thin - 1)) > 0.1 >= rho ** (2 * thin) and thin - 1 == round(bound)
ex.check_integer(answer, thin,
                 hint="thin >= log(0.1) / log(rho^2); round UP, not to the nearest whole "
                      "number: one sweep fewer leaves an autocorrelation above 0.1.",
                 why=f"log(0.1) / log(rho^2) = {bound:.2f}, rounded up (reg.default_thin); "
                     f"{rho**2:.4f}^{thin - 1} = {rho ** (2 * (thin - 1)):.4f} > 0.1.",
                 wrong=thin - 1)  # rounded to the nearest instead of up  # fmt: skip

# %% [markdown]
# So the seed's sampler needs hundreds of sweeps per nearly independent draw; the
# package keeps every `thin`-th sweep by default (`reg.default_thin`). This is
# **thinning** (稀疏化, 抽稀), which seed 003 suggests when independent samples are
# needed ("每隔一段时间取一次样本"). Is it a remedy? Compare samplers **per sweep and
# per second**, not per kept draw: a thinned chain of 1000 kept draws has run `thin`
# times as many sweeps. The effective sample size (有效样本量, ESS: how many independent
# draws the chain is worth, measured by `arviz_stats`; see [checking a
# sampler](checking_a_sampler.ipynb), section 2) of $\beta_1$:

# %%
print(f"thin = {thin}")
assert 100 <= thin < 1000  # "hundreds of sweeps"
runs = {
    "one at a time, thin=1": dict(thin=1, draws=draws),
    "one at a time, thin=1, as many sweeps": dict(thin=1, draws=draws * thin),
    f"one at a time, thin={thin}": dict(thin=thin, draws=draws),
}
for warm_up in (reg.sample, reg.sample_blocked):  # compile and load first: time sampling only
    warm_up(data, draws=10, tune=0, chains=1, random_seed=seed, thin=1)
rows, outputs = {}, {}
for label, how in runs.items():
    start = time.perf_counter()
    out = reg.sample(data, draws=how["draws"], tune=tune, chains=chains, random_seed=seed,
                     thin=how["thin"])  # fmt: skip
    seconds = time.perf_counter() - start
    outputs[label] = out
    rows[label] = {
        "kept draws": how["draws"] * chains,
        "sweeps": how["draws"] * how["thin"] * chains,
        "ESS beta1": float(azs.ess(out["beta1"], method="bulk")),
        "seconds": seconds,
    }
start = time.perf_counter()
blocked = reg.sample_blocked(data, draws=draws, tune=tune, chains=chains, random_seed=seed)
rows["blocked, thin=1"] = {"kept draws": draws * chains, "sweeps": draws * chains,
                           "ESS beta1": float(azs.ess(blocked["beta1"], method="bulk")),
                           "seconds": time.perf_counter() - start}  # fmt: skip
efficiency = pd.DataFrame(rows).T
efficiency["ESS per 1000 sweeps"] = 1000 * efficiency["ESS beta1"] / efficiency["sweeps"]
efficiency["ESS per second"] = efficiency["ESS beta1"] / efficiency["seconds"]
display(efficiency.round(3))
print(f"theory for one at a time: ESS per sweep = (1 - rho^2) / (1 + rho^2) = "
      f"{(1 - rho**2) / (1 + rho**2):.5f}")  # fmt: skip
# the next cells' sentences: blocked has by far the largest ESS per sweep; per sweep the
# unthinned chain is at least as efficient as the thinned one (at full settings only: noisy)
others = efficiency["ESS per 1000 sweeps"].drop("blocked, thin=1")
assert efficiency.at["blocked, thin=1", "ESS per 1000 sweeps"] > 10 * others.max()
if draws >= 1000:
    per_sweep = efficiency["ESS per 1000 sweeps"]
    assert (
        per_sweep["one at a time, thin=1, as many sweeps"]
        >= per_sweep[f"one at a time, thin={thin}"]
    )

# %% [markdown]
# **Thinning is not a remedy for slow mixing.** Per sweep (and so, at equal cost per
# sweep, per second) the unthinned chain is at least as efficient as the thinned one:
# throwing draws away never adds information, it only saves memory. The thinned chain's
# kept draws are nearly independent because it ran `thin` times longer. (Compilation is
# not timed; the ESS of the short unthinned run is noisy.)
#
# The remedy is **blocking**: draw $(\beta_0, \beta_1)$ jointly from their bivariate
# normal given $\sigma^2$, with precision
# $\Lambda = X^\top X/\sigma^2 + \mathrm{diag}(1/m_0, 1/m_1)$ and mean
# $\Lambda^{-1} X^\top y/\sigma^2$ ($X = [1, x]$), then $\sigma^2$ as before
# (`reg.sample_blocked`; the joint draw is `reg.beta_given_sigma2`). The correlation no
# longer slows the chain: the blocked row of the table has by far the largest ESS per
# sweep. The traces of each chain show the difference:

# %%
unthinned = outputs["one at a time, thin=1"]
exact = reference.exact_marginals(data)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.2), sharey=True)
panels = [("one at a time, thin = 1", unthinned), ("blocked, thin = 1", blocked)]
for ax, (title, out) in zip(axes, panels, strict=True):
    for c in range(chains):
        ax.plot(out["beta1"][c], lw=0.6, label=f"chain {c}")
    ax.axhline(exact["beta1"].mean, color="k", lw=1.5, label="exact posterior mean")
    ax.set(title=title, xlabel="sweep (after burn-in)")
axes[0].set_ylabel(r"$\beta_1$")
axes[0].legend(fontsize=7, loc="upper left", ncol=3)
plt.show()
unthinned_rhat = float(azs.rhat(unthinned["beta1"]))
print(f"R-hat of beta1: one at a time, thin = 1: {unthinned_rhat:.2f}; "
      f"blocked: {float(azs.rhat(blocked['beta1'])):.3f}")  # fmt: skip
# the sentences below: "well above 1.01"; the blocked chains agree
assert unthinned_rhat > 1.05 and float(azs.rhat(blocked["beta1"])) < 1.01

# %% [markdown]
# The unthinned one-at-a-time chains wander slowly along the ridge and do not overlap:
# their $\hat R$ (潜在尺度缩减因子, between- against within-chain spread, near 1 when the
# chains agree; [checking a sampler](checking_a_sampler.ipynb), section 6) is well above
# the usual 1.01. The blocked chains are noise around the
# same level from the first draw.
#
# ## 4. 精确解 · The exact answer
#
# $(\beta_0, \beta_1) \mid \sigma^2$ is Gaussian, so it integrates out in closed form and
# leaves a one-dimensional density of $\log\sigma^2$, integrated on a grid
# (`reference.exact_marginals`). This gives exact means, sds, quantiles and densities:

# %%
display(
    pd.DataFrame(
        {
            name: {"mean": m.mean, "sd": m.sd}
            | {f"q{round(100 * p)}": q for p, q in m.quantiles.items()}
            for name, m in exact.items()
        }
    ).T.round(4)
)
labels = {"beta0": r"$\beta_0$", "beta1": r"$\beta_1$", "sigma2": r"$\sigma^2$"}
fig, axes = plt.subplots(1, 3, figsize=(13, 3.2))
for ax, name in zip(axes, reg.VARIABLES, strict=True):
    for c in range(chains):
        ax.hist(blocked[name][c], bins=30, density=True, histtype="step", label=f"chain {c}")
    grid = np.linspace(*np.quantile(blocked[name], [0.001, 0.995]), 300)
    ax.plot(grid, exact[name].pdf(grid), "k", lw=2, label="exact (quadrature)")
    ax.set(xlabel=labels[name], ylabel="density", title=f"blocked Gibbs: {labels[name]}")
axes[2].legend(fontsize=7)
fig.tight_layout()
plt.show()
assert round(exact["sigma2"].mean, 2) == 2.75  # quoted in Exercise 3 (section 8)

# %% [markdown]
# ## 5. NUTS 与低秩质量矩阵 · The PyMC twin, and NUTS's low-rank mass matrix
#
# The same priors and likelihood, stated directly (`models.regression.build_model`),
# sampled by NUTS. NUTS moves like a frictionless particle whose momentum is drawn with
# a covariance, the *mass matrix*; a diagonal one only rescales each coordinate, so the
# narrow ridge of $(\beta_0, \beta_1)$ would still force tiny steps. A **low-rank mass
# matrix** (nutpie's, used here) adds to the diagonal a few directions learned during
# tuning, here the ridge, so NUTS takes long steps along it: the cure of blocking,
# learned instead of derived.

# %%
print(build_model(data).str_repr())

# %% [markdown]
# ## 6. 动手破坏 · Break it and watch: a rate passed as a scale
#
# The catalogue's `wrong_samplers.regression_blocked_rate_as_scale` is the blocked
# sampler with one slip: `rng.gamma(a, b)` where `rng.gamma(a, 1 / b)` belongs (section
# 2's warning). Its draws of $\sigma^2$ against the exact posterior, drawn as densities of
# $\log_{10}\sigma^2$ since the two are far apart:

# %%
bad = wrong_samplers.regression_blocked_rate_as_scale(
    data, draws=draws, tune=tune, chains=chains, random_seed=seed
)
fig, ax = plt.subplots(figsize=(8, 3.2))
bins = np.linspace(-3, 1.5, 120)  # log10 sigma2
for c in range(chains):
    ax.hist(np.log10(bad["sigma2"][c]), bins=bins, density=True, histtype="step",
            label=f"broken, chain {c}")  # fmt: skip
ax.hist(np.log10(blocked["sigma2"].ravel()), bins=bins, density=True, color="0.8",
        label="correct blocked sampler")  # fmt: skip
# the density of log10 sigma2: p(sigma2) times d sigma2 / d log10 sigma2 = sigma2 ln 10
ax.plot(bins, exact["sigma2"].pdf(10**bins) * 10**bins * np.log(10), "k", lw=2,
        label=r"exact posterior")  # fmt: skip
ax.set(xlabel=r"$\log_{10} \sigma^2$", ylabel="density",
       title=r"posterior of $\sigma^2$: the rate passed as a scale")  # fmt: skip
ax.legend(fontsize=7, loc="upper right")
plt.show()
b = eps + reg.sse(exact["beta0"].mean, exact["beta1"].mean, stats_) / 2
ratio = exact["sigma2"].mean / bad["sigma2"].mean()
print(f"mean of sigma2: exact {exact['sigma2'].mean:.3f}, broken {bad['sigma2'].mean():.5f}; "
      f"ratio {ratio:.0f}, b^2 = {b**2:.0f} (b = {b:.2f})")  # fmt: skip
for name in ("beta0", "beta1"):
    print(f"{name}: mean exact {exact[name].mean:.4f}, broken {bad[name].mean():.4f}; "
          f"sd exact {exact[name].sd:.4f}, broken {bad[name].std():.4f}")  # fmt: skip
# the sentences below: sigma2 about b^2 times too small; the betas' means right to within a
# tenth of their sd, their sds several times too small
assert b**2 / 3 < ratio < 3 * b**2, (b**2, ratio)
assert round(b) == 15 and 100 < ratio < 1000  # "about 15"; "two orders of magnitude"
for name in ("beta0", "beta1"):
    assert abs(bad[name].mean() - exact[name].mean) < 0.1 * exact[name].sd, name
    assert bad[name].std() < exact[name].sd / 5, name

# %% [markdown]
# The rate $b = \epsilon + \mathrm{SSE}/2$ is about 15 here, so Gamma(shape, scale $= b$)
# draws precisions about $b^2$ times too large and $\sigma^2$ about that much too small:
# the broken histogram sits two orders of magnitude to the left of the exact density.
# The means of $\beta_0$ and $\beta_1$ barely move (given $\sigma^2$ their conditional
# mean hardly depends on it), but their sds shrink with $\sigma$. A user who looked only at
# the fitted line, the means of $\beta_0, \beta_1$, would not have seen the bug; the
# posterior of $\sigma^2$, or the sds, show it at once.
#
# ## 7. 比较 · The suite's check
#
# The suite compares both hand-written samplers (one at a time with thinning, and
# blocked) with NUTS and with the exact answer above; how it decides is explained once
# in [checking a sampler](checking_a_sampler.ipynb) (the resolution: its section 5).

# %%
pair = get_pair("regression")
settings = resolve_settings(pair, draws=draws, tune=tune, chains=chains, seed=seed,
                            max_draws=max_draws)  # fmt: skip
result = run_pair(pair, settings, progress=lambda event: None)
reached = report.resolution_table(result).max().dropna()
print(
    f"the suite's verdict: {result.verdict} {result.verdicts}; resolution reached "
    "(posterior sds): " + ", ".join(f"{stat} {value:.2f}" for stat, value in reached.items())
)
if draws >= 1000:
    assert result.verdict == "agree"

# %% [markdown]
# ## 8. 练习 · Exercises
#
# Exercise 1 (predict the thinning) is in section 3, before the table that shows its
# answer.
#
# **Exercise 2 (centre the heights).** Replace each height $x_i$ by $x_i - \bar x$
# (heights measured from their mean) and refit. What is the conditional correlation of
# $\beta_0$ and $\beta_1$ given $\sigma^2$ now (flat-prior limit, as in section 3)?
# (Given $\sigma^2$, their covariance is $\sigma^2 (X^\top X)^{-1}$ with $X = [1, x]$.)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
centred_rho = reg.conditional_correlation(data | {"height": x - x.mean()})
ex.check_number(answer, centred_rho, absolute=0.01,
                hint="X^T X = [[N, sum(x)], [sum(x), sum(x^2)]], so the correlation is "
                     "-sum(x) / sqrt(N sum(x^2)): what is the sum of heights measured from "
                     "their mean?",
                why=f"the correlation is -sum(x) / sqrt(N sum(x^2)) ({rho:.4f} for the raw "
                    f"heights, which are far from zero); sum(x - mean(x)) = 0, so centred it "
                    f"is {abs(centred_rho):.0f}: "
                    "centring removes the ridge, and one-at-a-time Gibbs then mixes like "
                    "the blocked sampler. The cheapest remedy of all.",
                wrong=rho)  # the uncentred -0.998, as if centring changed nothing  # fmt: skip

# %% [markdown]
# **Exercise 3 (another slip).** The catalogue also has a blocked sampler whose rate
# forgets the $\frac12$: $b = \epsilon + \sum_i e_i^2$. Its posterior mean of $\sigma^2$
# is, compared with the exact 2.75: (a) about two to three times larger; (b) about half;
# (c) hundreds of times smaller, as in section 6.

# %%
answer = None  # "a", "b" or "c"

# %% jupyter={"source_hidden": true} tags=["checker"]
wide = wrong_samplers.regression_blocked_sse_not_halved(
    data, draws=draws, tune=tune, chains=chains, random_seed=seed
)
factor = wide["sigma2"].mean() / exact["sigma2"].mean
assert 2 < factor < 3, factor  # choice (a): "two to three times larger"
ex.check_choice(answer, "a", {
    "a": f"twice the rate halves the precision, so sigma2 about doubles; measured: {factor:.2f} "
         "times the exact mean (a wider sigma2 also widens the betas and the residuals).",
    "b": "a larger rate means a smaller precision 1 / sigma2, so a larger sigma2.",
    "c": "only a rate passed as a scale changes sigma2 by b^2; doubling it changes it by ~2.",
}, wrong="b")  # fmt: skip
