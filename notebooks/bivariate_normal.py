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
# # 二维 Gibbs 采样 · Two-dimensional Gibbs sampling of a bivariate normal
#
# *About 15 minutes to read.* Previous: [Metropolis–Hastings](mh_targets.ipynb) · next:
# [regression](regression.ipynb) · [Glossary 术语表](GLOSSARY.md) · how the suite checks a
# sampler: [checking a sampler](checking_a_sampler.ipynb)
#
# The seed: seed 003, **《马尔科夫链，蒙特卡洛（下篇）》** ("Markov chains and Monte
# Carlo, part 2"), its Gibbs section and program; with seed 001,
# **《机器学习中的MC、MCMC、Gibbs采样》** ("MC, MCMC and Gibbs sampling in machine
# learning"), whose reading of a full conditional is corrected in section 3.
#
# **The idea.** Drawing from a joint distribution $p(x_1, x_2)$ can be hard, while
# drawing from each *full conditional* (满条件分布) $p(x_1 \mid x_2)$ and $p(x_2 \mid x_1)$ is
# easy. Gibbs sampling (吉布斯采样) alternates between the two conditionals. Each move
# keeps the joint distribution invariant (seed 003 shows that each one-coordinate move
# satisfies detailed balance (细致平衡, also 细致平稳条件),
# $\pi(A)\,\pi(A \to B) = \pi(B)\,\pi(B \to A)$), so the chain's stationary distribution
# (平稳分布) is the target, and after a burn-in (燃烧期) its states are (dependent) draws
# from $p(x_1, x_2)$.
#
# The parameters below are the run lengths (the tests run this notebook with tiny
# values; `make notebooks` with these).

# %% tags=["parameters"]
draws = 1000
tune = 1000
chains = 4
seed = 20261122
max_draws = None  # an undecided run grows to 16 x draws (README, "Runs that last until decided")

# %%
# %matplotlib inline
import _exercises as ex
import arviz_stats as azs
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from mcmc_pairs.comparisons import report
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import resolve_settings, run_pair
from mcmc_pairs.handrolled import bivariate_normal as gibbs
from mcmc_pairs.handrolled import wrong_samplers
from mcmc_pairs.pairdata.bivariate_normal import default_data

# %% [markdown]
# ## 1. 目标分布 · The target
#
# The seed samples $N(\mu, \Sigma)$ with $\mu = (\mu_1, \mu_2) = (5, -1)$ and
#
# $$
# \Sigma = \begin{pmatrix} \sigma_1^2 & \rho\sigma_1\sigma_2 \\
#                          \rho\sigma_1\sigma_2 & \sigma_2^2 \end{pmatrix}
#        = \begin{pmatrix} 1 & 1 \\ 1 & 4 \end{pmatrix},
# \qquad \sigma = (1, 2),\ \rho = 0.5 .
# $$
#
# **A slip in the seed's program.** It also defines
# `samplesource = multivariate_normal(mean=[5,-1], cov=[[1,0.5],[0.5,2]])`, a
# *different* covariance ($\sigma_2 = \sqrt 2$, $\rho = 0.5/\sqrt 2 \approx 0.354$). The
# program only evaluates its density into a list `z_res` that is never read; its
# figure and its Gibbs code (`m1=5, m2=-1, s1=1, s2=2, rho=0.5`) both use
# $[[1, 1], [1, 4]]$, the matrix of its text. That is the target here.

# %%
data = default_data()
cov = gibbs.covariance(data)
cov_samplesource = np.array([[1.0, 0.5], [0.5, 2.0]])
s2 = np.sqrt(cov_samplesource[1, 1])
print("data:", data)
print("the covariance sampled by the seed's Gibbs code (and here):\n", cov)
print(f"samplesource's: sigma2 = {s2:.3f}, rho = {cov_samplesource[0, 1] / s2:.3f}")
assert np.allclose(cov, [[1, 1], [1, 4]])
assert round(s2, 3) == 1.414 and round(cov_samplesource[0, 1] / s2, 3) == 0.354

# %% [markdown]
# ## 2. 满条件分布 · The two full conditionals and one sweep
#
# From the joint normal, by Bayes' formula (seed 003):
#
# $$
# P(x_1 \mid x_2) = N\!\left(\mu_1 + \rho\frac{\sigma_1}{\sigma_2}(x_2 - \mu_2),\;
#                   (1 - \rho^2)\sigma_1^2\right), \qquad
# P(x_2 \mid x_1) = N\!\left(\mu_2 + \rho\frac{\sigma_2}{\sigma_1}(x_1 - \mu_1),\;
#                   (1 - \rho^2)\sigma_2^2\right).
# $$
#
# A draw from a conditional is its mean plus its sd times a standard normal $z$. The
# seed's algorithm: start somewhere, then repeat "draw $x_1$ from $P(x_1 \mid x_2)$,
# draw $x_2$ from $P(x_2 \mid x_1)$" and keep the states after a burn-in of $m$
# sweeps. (The seed's numbered steps draw $x_2$ first, its code $x_1$ first; either
# order leaves the target invariant.) One sweep, written out:


# %%
def sweep(x2, mu, sigma, rho, z):
    """One Gibbs sweep: x1 | x2, then x2 | the new x1 (z: two standard normals)."""
    x1 = mu[0] + rho * sigma[0] / sigma[1] * (x2 - mu[1]) + np.sqrt(1 - rho**2) * sigma[0] * z[0]
    x2 = mu[1] + rho * sigma[1] / sigma[0] * (x1 - mu[0]) + np.sqrt(1 - rho**2) * sigma[1] * z[1]
    return x1, x2


z = np.random.default_rng(seed).standard_normal(2)
args = (data["mu"], data["sigma"], data["rho"], z)
print("this sweep from x2 = 0:    x1 = {:.6f}, x2 = {:.6f}".format(*sweep(0.0, *args)))
print("the package's gibbs_sweep: x1 = {:.6f}, x2 = {:.6f}".format(*gibbs.gibbs_sweep(0.0, *args)))
assert np.allclose(sweep(0.0, *args), gibbs.gibbs_sweep(0.0, *args))

# %% [markdown]
# The burn-in: 30 sweeps of `sweep` from four starts far out in the tails,
# $x_2 = -25, -9, 7, 23$ (the first point of each $x_2$ line is its start).

# %%
rng = np.random.default_rng(seed)
fig, axes = plt.subplots(1, 2, figsize=(10, 3))
for c, x2 in enumerate((-25.0, -9.0, 7.0, 23.0)):
    path = [(np.nan, x2)]
    for _ in range(30):
        path.append(
            sweep(path[-1][1], data["mu"], data["sigma"], data["rho"], rng.standard_normal(2))
        )
    for i, ax in enumerate(axes):
        ax.plot(np.array(path)[:, i], marker=".", lw=1, label=f"chain {c}")
for i, ax in enumerate(axes):
    ax.axhline(data["mu"][i], color="k", lw=1.5, label=f"exact mean {data['mu'][i]:g}")
    ax.set(xlabel="sweep", ylabel=f"$x_{i + 1}$", title=f"$x_{i + 1}$: the first 30 sweeps")
axes[1].legend(fontsize=7, loc="upper right")
plt.show()

# %% [markdown]
# The package's sampler `gibbs.sample` runs the same sweeps compiled (numba; the tests
# check it against `gibbs.gibbs_sweep` bit for bit), each chain with its own random stream
# and a start drawn with three times the target's sd. It returns `(chains, draws, 2)`.
#
# With $\rho = 0.5$ the chains forget their start within a few sweeps (the figure
# above). The run below
# discards `tune` sweeps and keeps `draws`; its traces (the first 200 draws) should look
# like stationary noise around the same level, and its histograms should match the exact
# marginals $N(5, 1)$ and $N(-1, 2^2)$ (边缘分布), drawn in black.

# %%
x = gibbs.sample(data, draws=draws, tune=tune, chains=chains, random_seed=seed)["x"]
fig, axes = plt.subplots(2, 2, figsize=(10, 6))
for i in range(2):
    for c in range(chains):
        axes[0, i].plot(x[c, :200, i], lw=0.7, label=f"chain {c}")
        axes[1, i].hist(x[c, :, i], bins=30, density=True, histtype="step", label=f"chain {c}")
    grid = np.linspace(*np.quantile(x[..., i], [0.0005, 0.9995]), 200)
    exact = stats.norm(data["mu"][i], data["sigma"][i])
    axes[1, i].plot(grid, exact.pdf(grid), "k", lw=2, label="exact marginal")
    name = f"$x_{i + 1}$"
    axes[0, i].set(xlabel="draw (after burn-in)", ylabel=name, title=f"trace of {name}")
    axes[1, i].set(xlabel=name, ylabel="density", title=f"{name}: histogram per chain")
axes[0, 1].legend(fontsize=7, loc="upper right", ncol=2)
axes[1, 1].legend(fontsize=7, loc="upper right")
fig.tight_layout()
plt.show()
sample_cov = np.cov(x.reshape(-1, 2).T)
print("sample mean:", x.reshape(-1, 2).mean(axis=0).round(3))
print("sample covariance:\n", sample_cov.round(3))
# "the sample covariance is near [[1, 1], [1, 4]], not near samplesource's matrix"
assert np.abs(sample_cov - cov).max() < np.abs(sample_cov - cov_samplesource).max()

# %% [markdown]
# The joint picture: the draws against the contours of the exact density (black) and of
# `samplesource`'s (purple, dashed). The draws follow the black ellipses.

# %%
g1, g2 = np.meshgrid(np.linspace(1, 9, 200), np.linspace(-9, 7, 200))
points = np.dstack([g1, g2])


def ellipses(ax, covariance, **style):
    """Contours of N(mu, covariance) at 1, 2 and 3 'sds' (39, 86 and 99 % of the mass)."""
    density = stats.multivariate_normal(data["mu"], covariance)
    levels = density.pdf(data["mu"]) * np.exp(-0.5 * np.array([9.0, 4.0, 1.0]))
    ax.contour(g1, g2, density.pdf(points), levels=levels, **style)


fig, ax = plt.subplots(figsize=(5.5, 5))
for c in range(chains):
    ax.scatter(*x[c, :300].T, s=3, alpha=0.5, label=f"chain {c} (300 draws)")
ellipses(ax, cov, colors="k")
ellipses(ax, cov_samplesource, colors="C4", linestyles="--")
ax.plot([], [], "k", label="exact N(μ, [[1, 1], [1, 4]])")
ax.plot([], [], "C4", ls="--", label="samplesource [[1, .5], [.5, 2]]")
ax.set(xlabel="$x_1$", ylabel="$x_2$", title="Gibbs draws against the exact density")
ax.legend(fontsize=7, loc="lower right")
plt.show()

# %% [markdown]
# ## 3. 满条件分布不是边缘分布 · A full conditional is not a marginal (a slip in seed 001)
#
# Seed 001 says of the full conditional posterior: "至于什么是参数的满条件后验分布,
# 我觉得就不妨看成边缘后验分布吧" (think of it as the marginal posterior). It is not.
# The marginal $p(x_1)$ is one fixed distribution, $N(\mu_1, \sigma_1^2)$; the full
# conditional $p(x_1 \mid x_2)$ is a different distribution for every $x_2$, with a
# mean that moves with $x_2$ and a smaller sd, $\sigma_1\sqrt{1 - \rho^2}$:

# %%
fig, ax = plt.subplots(figsize=(7, 3))
grid = np.linspace(0, 10, 300)
for x2 in (-5.0, -1.0, 3.0):
    mean, sd = gibbs.x1_given_x2(x2, data["mu"], data["sigma"], data["rho"])
    print(f"p(x1 | x2 = {x2:+.0f}) = N({mean:.3f}, sd {sd:.3f})")
    ax.plot(grid, stats.norm(mean, sd).pdf(grid), label=f"full conditional, $x_2 = {x2:+.0f}$")
print(f"marginal  p(x1)      = N({data['mu'][0]:.3f}, sd {data['sigma'][0]:.3f})")
ax.plot(grid, stats.norm(data["mu"][0], data["sigma"][0]).pdf(grid), "k", lw=2,
        label="exact marginal $p(x_1)$")  # fmt: skip
ax.set(xlabel="$x_1$", ylabel="density", title="$p(x_1 \\mid x_2)$ is not $p(x_1)$")
ax.legend(fontsize=8)
plt.show()
# "a mean that moves with x2 and a smaller sd, sigma_1 sqrt(1 - rho^2)"
assert np.isclose(sd, data["sigma"][0] * np.sqrt(1 - data["rho"] ** 2)) and sd < data["sigma"][0]

# %% [markdown]
# A sampler that took the seed at its word and drew each coordinate from its marginal
# would get every marginal right and the dependence wrong: section 5 does exactly that.
#
# ## 4. 一次完整扫描不满足细致平衡 · A whole sweep is not reversible (a slip in seed 003)
#
# After showing that each one-coordinate move is in detailed balance, seed 003
# concludes that the whole sweep is ("就是细致平衡方程"). A sweep (draw $x_1$, then
# $x_2$) leaves the target invariant, being a composition of moves that each do, but it
# is **not reversible**: run backwards, the chain would update $x_2$ first. For a
# reversible chain the pair $(X_t, X_{t+1})$ has the same distribution as
# $(X_{t+1}, X_t)$; here
# $\mathrm{Cov}(x_{2,t}, x_{1,t+1}) = \rho\sigma_1\sigma_2 = 1$ but
# $\mathrm{Cov}(x_{1,t}, x_{2,t+1}) = \rho^3\sigma_1\sigma_2 = 0.25$. Measured on the
# draws (the [Bayes net notebook](bayes_net.ipynb) checks the same on an exact 8-state
# transition matrix):

# %%
centred = x - data["mu"]
forward = (centred[:, :-1, 1] * centred[:, 1:, 0]).mean()
backward = (centred[:, :-1, 0] * centred[:, 1:, 1]).mean()
rho, (s1, s2) = data["rho"], data["sigma"]
print(f"Cov(x2_t, x1_t+1) = {forward:.3f}  (exact {rho * s1 * s2:.3f})")
print(f"Cov(x1_t, x2_t+1) = {backward:.3f}  (exact {rho**3 * s1 * s2:.3f})")
# "not reversible": the two lagged covariances differ (exactly 1 and 0.25); within 0.15 of
# them with 1000 draws per chain (the tests' 200 draws are noisier)
assert forward > backward
if draws >= 1000:
    assert abs(forward - 1) < 0.15 and abs(backward - 0.25) < 0.15

# %% [markdown]
# ## 5. 动手破坏 · Break it and watch: right marginals, wrong dependence
#
# The catalogue of wrong samplers has seed 001's reading as a bug,
# `wrong_samplers.bivariate_independent_marginals`: each chain draws
# $x = \mu + \sigma \odot z$ with $z$ two independent standard normals, so each
# coordinate comes from its exact marginal and knows nothing of the other. Its
# histograms are as good as Gibbs's; its scatter plot is not:

# %%
bad = wrong_samplers.bivariate_independent_marginals(
    data, draws=draws, tune=tune, chains=chains, random_seed=seed
)["x"]
corr_gibbs = np.corrcoef(x.reshape(-1, 2).T)[0, 1]
corr_bad = np.corrcoef(bad.reshape(-1, 2).T)[0, 1]
fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
for i in range(2):
    for c in range(chains):
        axes[i].hist(bad[c, :, i], bins=30, density=True, histtype="step", label=f"chain {c}")
    grid = np.linspace(*np.quantile(bad[..., i], [0.0005, 0.9995]), 200)
    axes[i].plot(grid, stats.norm(data["mu"][i], data["sigma"][i]).pdf(grid), "k", lw=2,
                 label="exact marginal")  # fmt: skip
    axes[i].set(xlabel=f"$x_{i + 1}$", ylabel="density", title=f"broken: $x_{i + 1}$ looks right")
axes[0].legend(fontsize=7)
for c in range(chains):
    axes[2].scatter(*bad[c, :300].T, s=3, alpha=0.5, label=f"chain {c}")
ellipses(axes[2], cov, colors="k")
axes[2].plot([], [], "k", label="exact density")
axes[2].set(xlabel="$x_1$", ylabel="$x_2$",
            title=f"broken: correlation {corr_bad:.2f} (exact {rho:g})")  # fmt: skip
axes[2].legend(fontsize=7, loc="lower right")
fig.tight_layout()
plt.show()
print(f"sample correlation: Gibbs {corr_gibbs:.3f}, broken {corr_bad:.3f}, exact {rho}")
# the sentences below: the broken draws' correlation is near 0, Gibbs's near 0.5
assert abs(corr_bad) < 0.15 and abs(corr_gibbs - rho) < 0.15

# %% [markdown]
# The marginal histograms cannot tell the two samplers apart; the scatter plot can: the
# broken draws fill an upright ellipse instead of the tilted one, and their sample
# correlation is near 0 instead of $\rho = 0.5$. Any check that looks at $x_1$ and $x_2$
# one at a time (their means, sds, quantiles) passes this sampler; what catches it is a
# quantity that involves both, such as the product $(x_1 - \mu_1)(x_2 - \mu_2)$, whose
# mean is the covariance, or the density of each draw.
#
# ## 6. 有效样本量 · How much is a correlated draw worth
#
# Consecutive Gibbs draws are correlated (自相关): each sweep starts from the last
# state. The autocorrelation of the kept $x_1$ chain at lag $t$ (the correlation of
# $x_{1,s}$ with $x_{1,s+t}$), measured on each chain of a long run (20,000 draws a
# chain, so that the numbers are steady), and its effective sample size (有效样本量, ESS:
# how many independent draws the chain is worth), measured by `arviz_stats`; how ESS is
# computed and how the suite uses it:
# [checking a sampler](checking_a_sampler.ipynb), section 2.

# %%
lags = np.arange(8)
x1 = gibbs.sample(data, draws=20_000, tune=tune, chains=chains, random_seed=seed)["x"][..., 0]
acf = np.array([[1.0] + [np.corrcoef(chain[:-t], chain[t:])[0, 1] for t in lags[1:]]
                for chain in x1])  # fmt: skip
ess_x1 = float(azs.ess(x1, method="mean"))
fig, ax = plt.subplots(figsize=(6, 3))
for c in range(chains):
    ax.plot(lags, acf[c], marker=".", lw=1, label=f"chain {c}")
ax.axhline(0, color="k", lw=0.5)
ax.set(xlabel="lag t", ylabel="autocorrelation of $x_1$",
       title=f"Gibbs, $x_1$: ESS {ess_x1:.0f} of {x1.size} draws")  # fmt: skip
ax.legend(fontsize=7)
plt.show()
print(f"ESS of x1: {ess_x1:.0f} of {x1.size} draws, ESS / N = {ess_x1 / x1.size:.2f}")
# "gone within a few lags"; "each draw is worth about 0.6 of an independent one"
assert np.abs(acf[:, 3:]).max() < 0.05
assert abs(ess_x1 / x1.size - 0.6) < 0.05

# %% [markdown]
# The autocorrelation is gone within a few lags, and each draw is worth about 0.6 of an
# independent one: for a Gibbs sampler, fast mixing. Exercise 2 asks how this changes
# when the correlation $\rho$ of the target grows.
#
# ## 7. 比较 · The suite's check
#
# The suite runs the same target as a PyMC model with NUTS (`models.bivariate_normal`)
# and compares it with these Gibbs draws and with the exact answer, statistic by
# statistic, including the product above. How it decides, and every check it lists, is
# explained once in [checking a sampler](checking_a_sampler.ipynb) (the resolution: its
# section 5).

# %%
pair = get_pair("bivariate_normal")
settings = resolve_settings(pair, draws=draws, tune=tune, chains=chains, seed=seed,
                            max_draws=max_draws)  # fmt: skip
result = run_pair(pair, settings, progress=lambda event: None)
reached = report.resolution_table(result).max().dropna()
print(f"the suite's verdict: {result.verdict}; resolution reached (posterior sds): "
      + ", ".join(f"{stat} {value:.2f}" for stat, value in reached.items()))  # fmt: skip
if draws >= 1000:
    assert result.verdict == "agree"

# %% [markdown]
# ## 8. 练习 · Exercises
#
# **Exercise 1 (change ρ).** Set $\rho = 0.9$. What is the sd of the full
# conditional $p(x_1 \mid x_2)$ (with $\sigma_1 = 1$)?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
strong = data | {"rho": 0.9}
ex.check_number(answer, gibbs.x1_given_x2(0.0, data["mu"], data["sigma"], 0.9)[1], rel=0.01,
                hint="the sd, not the variance: sigma_1 sqrt(1 - rho^2).",
                why="sqrt(1 - 0.81) = 0.436: the stronger the correlation, the smaller "
                    "each Gibbs step.",
                wrong=1 - 0.9**2)  # the variance (1 - rho^2) sigma_1^2 = 0.19  # fmt: skip

# %% [markdown]
# **Exercise 2 (predict the ESS).** A chain is *AR(1)* (一阶自回归) with coefficient
# $\varphi$ when each state is $\varphi$ times the last (both measured from the mean) plus
# fresh independent noise; its ESS per draw is then $(1 - \varphi)/(1 + \varphi)$. The
# kept $x_1$ chain of this Gibbs sampler is AR(1). Set $\rho = 0.9$ and predict its
# effective sample size as a fraction of the number of draws, $\mathrm{ESS}/N$. (Follow
# one sweep: from $x_1$ to $x_2$, then to the next $x_1$.) A right answer also shows the
# fraction measured with `arviz_stats` on a run at $\rho = 0.9$.

# %%
answer = None  # your fraction

# %% jupyter={"source_hidden": true} tags=["checker"]
slow = gibbs.sample(strong, draws=4 * draws, tune=tune, chains=chains, random_seed=seed)["x"]
measured = float(azs.ess(slow[..., 0], method="mean")) / slow[..., 0].size
phi = 0.9**2  # x2 = ... + rho (s2 / s1) (x1 - mu1), next x1 = ... + rho (s1 / s2) (x2 - mu2)
if draws >= 1000:  # the measurement quoted below agrees with the theory (noisier at 200 draws)
    assert abs(measured - (1 - phi) / (1 + phi)) < 0.02
ex.check_number(answer, (1 - phi) / (1 + phi), rel=0.05,
                hint="the sweep multiplies x1 - mu1 by rho (s2 / s1) on the way to x2 and by "
                     "rho (s1 / s2) on the way back: phi = rho^2, not rho.",
                why=f"x1 - mu1 goes to x2 - mu2 times rho s2 / s1, and back times rho s1 / s2, "
                    f"plus noise: an AR(1) chain with phi = rho^2 = 0.81, so ESS / N = "
                    f"(1 - 0.81) / (1 + 0.81) = {(1 - phi) / (1 + phi):.3f}: ten draws are "
                    f"worth about one. (At rho = 0.5, phi = 0.25 gives the 0.6 of section 6.) "
                    f"Measured with arviz_stats on {chains} chains x {4 * draws} draws at "
                    f"rho = 0.9: ESS / N = {measured:.3f}.",
                wrong=(1 - 0.9) / (1 + 0.9))  # phi = rho instead of rho^2: 0.053  # fmt: skip

# %% [markdown]
# **Exercise 3 (a bug that widens).** Another bug of the catalogue forgets the factor
# $\sqrt{1 - \rho^2}$ in both conditional sds: it draws
# $x_1 \sim N(\mu_1 + \rho\frac{\sigma_1}{\sigma_2}(x_2 - \mu_2), \sigma_1^2)$ and likewise
# $x_2$. The chain still settles down to a stationary distribution, but not the target.
# With the seed's numbers ($\sigma_1 = 1$, $\rho = 0.5$), what variance of $x_1$ do its
# draws have? (Hint: in the stationary state, $\mathrm{Var}(x_1)$ is the same before and
# after a sweep.)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
wide = wrong_samplers.bivariate_gibbs_without_shrinkage(
    data, draws=4 * draws, tune=tune, chains=chains, random_seed=seed
)["x"]
expected = s1**2 / (1 - rho**2)  # v1 = rho^4 v1 + (1 + rho^2) s1^2
if draws >= 1000:  # the measurement quoted below agrees with the theory
    assert abs(wide[..., 0].var() / expected - 1) < 0.05
ex.check_number(answer, expected, rel=0.02,
                hint="call the variances v1 and v2. A sweep gives v1 = (rho s1 / s2)^2 v2 + s1^2 "
                     "and v2 = (rho s2 / s1)^2 v1 + s2^2; substitute one into the other.",
                why=f"v1 = rho^4 v1 + (1 + rho^2) s1^2, so v1 = s1^2 / (1 - rho^2) = "
                    f"{expected:.3f}, a third too large. Measured on {chains} x {4 * draws} "
                    f"draws of the catalogue's bivariate_gibbs_without_shrinkage: "
                    f"{wide[..., 0].var():.3f}.",
                wrong=s1**2)  # the target's own variance, as if the bug did no harm  # fmt: skip
