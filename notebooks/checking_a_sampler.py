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
# # 检验采样器 · Checking a sampler: every check of a verdict, explained once
#
# *Reading order 8 of 8, the last notebook; about 40 minutes to read.*
# [Glossary 术语表](GLOSSARY.md) · previous: [reading a verdict](reading_a_verdict.ipynb)
#
# The other notebooks teach MCMC: each runs a hand-written sampler and, in one
# short cell near its end, compares it with a PyMC model of the same posterior
# and prints a **verdict** (`agree`, `disagree`, `inconclusive`, `not converged`,
# `reference failed`). This notebook explains every check behind a verdict, each
# with a figure, once; every other notebook links here instead of restating it.
# Each number is recomputed by hand from the draws and checked, with an
# `assert`, against the harness and against ArviZ (`arviz_stats`), which
# computes every diagnostic the harness uses.
#
# The example is the smallest pair, the bivariate normal of seed 003 (its own
# notebook: [bivariate_normal](bivariate_normal.ipynb)): $x \sim N(\mu, \Sigma)$
# with $\mu = (5, -1)$, sds $(1, 2)$ and correlation $\rho = 0.5$, sampled by
# two-dimensional Gibbs (吉布斯采样) and by PyMC's NUTS.
#
# | § | check | § | check |
# |---|---|---|---|
# | 1 | what is compared | 7 | the energy check |
# | 2 | MCSE and ESS | 8 | rank plots and ECDF bands |
# | 3 | z-checks and their Student-t | 9 | the honesty checks |
# | 4 | Holm's correction | 10 | sequential looks; a held `agree` |
# | 5 | equivalence: the resolution δ | 11 | the verdicts and exit codes |
# | 6 | the gates: $\hat R$ and ESS | 12 | exercises |

# %% tags=["parameters"]
draws = 1000
tune = 1000
chains = 4
seed = 20261122
max_draws = 1000  # one look, so that the hand computations below use the full error rates

# %%
# %matplotlib inline
from pathlib import Path

import _exercises as ex
import arviz_stats as azs
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import xarray as xr
from IPython.display import display
from scipy import stats

import mcmc_pairs
from mcmc_pairs.comparisons import agreement, energy, report
from mcmc_pairs.comparisons.cli import exit_status
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import look_draws, resolve_settings, run_pair, spent
from mcmc_pairs.handrolled import bivariate_normal as bn

pd.set_option("display.width", 120)
pd.set_option("display.max_columns", 12)
FULL = draws >= 1000  # claims that hold only at the full settings are asserted only there
quiet = dict(progress=lambda event: None)
pair = get_pair("bivariate_normal")
settings = resolve_settings(pair, draws=draws, tune=tune, chains=chains, seed=seed,
                            max_draws=max_draws)  # fmt: skip
result = run_pair(pair, settings, **quiet)
GIBBS = "handrolled:gibbs"
checks = result.checks
print(f"verdict: {result.verdict}; {len(checks)} checks of {checks['kind'].nunique()} kinds")

# %% [markdown]
# ## 1. 比较什么 · What is compared
#
# For every **quantity** and every **statistic**, each side (the sampler under
# test, PyMC's reference) gets an estimate and its Monte Carlo standard error.
# The quantities are each component ($x_1$, $x_2$), the centred products of the
# components, $(x_1 - \bar x_1)(x_2 - \bar x_2)$, whose mean is the covariance
# (they carry the dependence, which the components alone do not), and the log
# density of each draw (`logp`; this model has no data, so `log_prior` is the
# same). The statistics are the mean, the sd and the 5 %, 50 % and 95 %
# quantiles. One side's summary (the harness's quantity `x[0]` is $x_1$):

# %%
gibbs, nuts = result.summaries[GIBBS], result.summaries["pymc"]
display(gibbs[["mean", "sd", "mcse_mean", "q5", "mcse_q5", "ess_bulk", "r_hat"]].round(4))
x1 = result.sides[GIBBS].tree["posterior"]["x"].values[..., 0]  # (chain, draw)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3), width_ratios=(2, 1))
for c in range(x1.shape[0]):
    left.plot(x1[c, :200], lw=0.8, label=f"chain {c}")
    right.hist(x1[c], bins=40, density=True, histtype="step", label=f"chain {c}")
grid = np.linspace(1, 9, 200)
right.plot(grid, stats.norm.pdf(grid, 5, 1), "k", lw=1.5, label="exact N(5, 1)")
left.set(xlabel="iteration (first 200 kept)", ylabel="$x_1$", title="Gibbs: trace of $x_1$")
right.set(xlabel="$x_1$", ylabel="density", title="Gibbs: histogram of $x_1$")
left.legend(fontsize=7, ncol=4)
right.legend(fontsize=7)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 2. 蒙特卡洛标准误与有效样本量 · MCSE and ESS
#
# Draws of a Markov chain are correlated (自相关): each draw repeats part of the
# one before, so $N$ draws carry less information than $N$ independent ones. The
# **effective sample size** (有效样本量, ESS) is the number of independent draws
# they are worth,
#
# $$ \mathrm{ESS} = \frac{N}{\tau}, \qquad \tau = 1 + 2\sum_{t \ge 1} \rho_t , $$
#
# with $\rho_t$ the autocorrelation at lag $t$ and $\tau$ the integrated
# autocorrelation time (the sum is cut where the estimated $\rho_t$ become noise:
# Geyer's initial positive sequence, summing pairs $\rho_{2k} + \rho_{2k+1}$ while
# they are positive). The **Monte Carlo standard error** (蒙特卡洛标准误, MCSE;
# seed 001 §7.2 writes "MC-误差") of the mean is
#
# $$ \mathrm{MCSE}(\bar x) = \frac{\mathrm{sd}}{\sqrt{\mathrm{ESS}}}. $$
#
# By hand, from the chains' autocorrelations, against `arviz_stats.ess` (which
# splits each chain in two and combines the chains' autocorrelations with their
# variances, hence a small difference) and the harness's `mcse_mean`:


# %%
def autocorrelation(chains_draws):
    """Each chain's autocorrelation at every lag (by FFT), shape (chain, lag)."""
    centred = chains_draws - chains_draws.mean(axis=1, keepdims=True)
    n = centred.shape[1]
    spectrum = np.fft.rfft(centred, 2 * n)
    acov = np.fft.irfft(spectrum * np.conj(spectrum))[:, :n]
    return acov / acov[:, :1]


def ess_by_hand(chains_draws):
    """N / tau, tau from the chains' mean autocorrelation with Geyer's positive pairs."""
    rho = autocorrelation(chains_draws).mean(axis=0)
    pairs = rho[0::2][: len(rho) // 2] + rho[1::2][: len(rho) // 2]
    positive = pairs[: np.argmax(pairs <= 0)] if (pairs <= 0).any() else pairs
    tau = -1 + 2 * positive.sum()
    return chains_draws.size / tau


ess_hand, ess_arviz = ess_by_hand(x1), float(azs.ess(x1, method="mean"))
mcse_hand = x1.std(ddof=1) / np.sqrt(ess_arviz)
print(f"N = {x1.size} draws; ESS by hand {ess_hand:.0f}, arviz_stats {ess_arviz:.0f}")
print(f"MCSE = sd / sqrt(ESS) = {x1.std(ddof=1):.4f} / sqrt({ess_arviz:.0f}) = {mcse_hand:.5f}; "
      f"harness mcse_mean {gibbs.at['x[0]', 'mcse_mean']:.5f}")  # fmt: skip
assert abs(mcse_hand / gibbs.at["x[0]", "mcse_mean"] - 1) < 0.05
if FULL:
    assert abs(ess_hand / ess_arviz - 1) < 0.1

# %% [markdown]
# The ESS depends on the statistic. A quantile is estimated with more error than
# the mean: its MCSE (from the ESS of the indicator $x \le q$, `arviz_stats.mcse`
# with `method="quantile"`) is larger, by a factor that depends on the quantity:

# %%
ratio = (gibbs["mcse_q5"] / gibbs["mcse_mean"]).rename("MCSE(q5) / MCSE(mean)")
display(ratio.round(2).to_frame())
print(f"the 5 % quantile's MCSE is {ratio.min():.2f} to {ratio.max():.2f} times the mean's")
mcse_q5 = float(azs.mcse(x1, method="quantile", prob=0.05))
assert np.isclose(mcse_q5, gibbs.at["x[0]", "mcse_q5"], rtol=1e-6)
assert (ratio > 1).all()

# %% [markdown]
# The autocorrelation of $x_1$ in each Gibbs chain, and of a slower sampler: a
# random-walk Metropolis (随机游动 Metropolis) on $N(0, 1)$ with a step of 0.5, a
# correct sampler that moves little per step (it returns in §8):

# %%
rng = np.random.default_rng(seed)


def random_walk(rng, shape, steps, step=0.5, start=None):
    """Random-walk Metropolis on N(0, 1), started from N(0, 1) (or ``start``): correct, slow."""
    x = rng.standard_normal(shape) if start is None else np.asarray(start, dtype=float)
    out = np.empty((*shape, steps))
    for t in range(steps):
        proposal = x + step * rng.standard_normal(shape)
        accept = np.log(rng.random(shape)) < (x**2 - proposal**2) / 2
        x = np.where(accept, proposal, x)
        out[..., t] = x
    return out


n_rw = 5 * draws
walk = random_walk(rng, (chains,), n_rw)
fig, axes = plt.subplots(1, 2, figsize=(10, 2.8), sharey=True)
for ax, values, name in ((axes[0], x1, "Gibbs, $x_1$"), (axes[1], walk, "random walk")):
    acf = autocorrelation(values)
    for c in range(len(acf)):
        ax.plot(acf[c, :40], marker=".", lw=0.8, label=f"chain {c}")
    ax.axhline(0, color="k", lw=0.5)
    ess = float(azs.ess(values, method="mean"))
    ax.set(xlabel="lag t", title=f"{name}: ESS {ess:.0f} of {values.size} draws")
axes[0].set_ylabel(r"autocorrelation $\rho_t$")
axes[0].legend(fontsize=7)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 3. z 值 · z-checks and their Student-t
#
# Two sides estimate the same statistic, $a$ and $b$. If both sample the same
# distribution, their difference is Monte Carlo noise with standard error
# $\sqrt{\mathrm{MCSE}_a^2 + \mathrm{MCSE}_b^2}$, so
#
# $$ z = \frac{a - b}{\sqrt{\mathrm{MCSE}_a^2 + \mathrm{MCSE}_b^2}} $$
#
# is about standard normal. Where the exact answer is known (here: every
# statistic of the normal), each side is also checked against it, with
# $\mathrm{MCSE}_b = 0$. Because the MCSEs are themselves estimated, the harness
# reads $z$ against a Student-t, whose tails are heavier than the normal's: 30
# degrees of freedom for means, sds and medians, 20 for the 5 % and 95 %
# quantiles, whose MCSE is the least certain (measured on thousands of correct
# runs, `benchmarks/z_calibration.md`). Its two-sided p-value is
# $2\,P(T_\nu > |z|)$.

# %%
a, b = gibbs.at["x[0]", "mean"], nuts.at["x[0]", "mean"]
se = np.hypot(gibbs.at["x[0]", "mcse_mean"], nuts.at["x[0]", "mcse_mean"])
z_checks = checks[checks["kind"].isin(["agreement", "exact"])].copy()
row = z_checks[(z_checks["kind"] == "agreement") & (z_checks["quantity"] == "x[0]")
               & (z_checks["statistic"] == "z(mean)")].iloc[0]  # fmt: skip
z_hand = (a - b) / se
p_hand = 2 * stats.t.sf(abs(z_hand), agreement.z_df("mean"))
print(f"z by hand = ({a:.4f} - {b:.4f}) / {se:.4f} = {z_hand:.3f}; harness {row['value']:.3f}")
print(f"p by hand = {p_hand:.4f}; harness {row['p']:.4f}; degrees of freedom {agreement.Z_DF}")
assert np.isclose(z_hand, row["value"]) and np.isclose(p_hand, row["p"])
df = z_checks["statistic"].map(agreement.z_df)
assert np.allclose(2 * stats.t.sf(z_checks["value"].abs(), df), z_checks["p"])

fig, ax = plt.subplots(figsize=(6, 3))
ax.hist(z_checks["value"], bins=np.arange(-4, 4.25, 0.5), density=True, color="0.7",
        label="the run's z-checks (both sides)")  # fmt: skip
grid = np.linspace(-4, 4, 200)
ax.plot(grid, stats.norm.pdf(grid), "k", label="N(0, 1)")
ax.plot(grid, stats.t.pdf(grid, 20), "C1--", label="Student-t, 20 d.f.")
ax.set(xlabel="z", ylabel="density", title="z-checks of a correct run")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## 4. Holm 校正 · Holm's correction: many checks, one false-alarm rate
#
# A run makes dozens of z-checks. At 1 % each, a correct sampler would fail one
# in a few runs. **Holm's step-down correction** keeps the probability of *any*
# false alarm in a run at $\alpha = 1\,\%$: sort the $m$ p-values, compare the
# smallest with $\alpha/m$, the next with $\alpha/(m - 1)$, ..., and stop at the
# first that passes (it and all after it pass). The `threshold` column is the
# $|z|$ each check had to stay below at its rank (the Student-t quantile of its
# Holm level):

# %%
m = len(z_checks)
ranked = z_checks.sort_values("p", kind="stable")  # ties keep the table's order, as Holm's does
ranked["holm level"] = agreement.ALPHA / (m - np.arange(m))
ranked["threshold by hand"] = stats.t.isf(ranked["holm level"] / 2, df[ranked.index])
display(ranked[["comparison", "quantity", "statistic", "value", "p", "holm level",
                "threshold by hand", "threshold", "passed"]].head(6).round(4))  # fmt: skip
assert np.allclose(ranked["threshold by hand"], ranked["threshold"])
print(f"m = {m} z-checks; the smallest p is compared with 1 % / {m} = {agreement.ALPHA / m:.2g}")

fig, ax = plt.subplots(figsize=(6, 3))
rank = np.arange(1, m + 1)
ax.plot(rank, ranked["p"], "o", ms=3, label="p-values, sorted")
ax.plot(rank, ranked["holm level"], "k-", label=r"Holm's level $\alpha / (m - i + 1)$")
ax.axhline(agreement.ALPHA, color="C3", ls="--", label=r"$\alpha$ = 1 % (no correction)")
ax.set_yscale("log")
ax.set(
    xlabel="rank i of the p-value",
    ylabel="p (log scale)",
    title="Holm: a check fails below the line",
)
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## 5. 等价 · Equivalence: the resolution δ that `agree` certifies
#
# "No test rejected" is not evidence of agreement: with few draws nothing is
# ever rejected. So `agree` makes a positive claim: **at 95 % confidence every
# compared statistic differs between the sides (and from the exact answer) by
# less than δ posterior sd**, δ = 0.2 for means, sds and medians, and 2δ = 0.4 for
# the 5 % and 95 % quantiles, whose MCSE is larger than the mean's (§2: here
# 1.4 to 4.4 times it), so that a run of ordinary length can reach the
# tolerance. Each check's **resolution** is the upper end of the 90 %
# confidence interval of its difference, in posterior sds (two one-sided tests,
# an equivalence test 等价性检验):
#
# $$ \text{resolution} = \frac{|a - b| + t_{0.95,\,\nu}\,
#    \sqrt{\mathrm{MCSE}_a^2 + \mathrm{MCSE}_b^2}}{\mathrm{sd}} $$
#
# ($\nu$ the statistic's degrees of freedom, §3; sd the two sides' pooled sd) and
# `agree` needs every resolution below its tolerance. Why 0.2: a mean off by
# 0.2 sd moves a central 95 % interval's coverage only to 94.5 %.

# %%
print(f"the 5 % quantile's MCSE over the mean's, per quantity: {ratio.min():.2f} to "
      f"{ratio.max():.2f}")  # fmt: skip
if FULL:
    assert (round(ratio.min(), 1), round(ratio.max(), 1)) == (1.4, 4.4)  # the text's claim
scale = np.hypot(gibbs.at["x[0]", "sd"], nuts.at["x[0]", "sd"]) / np.sqrt(2)
critical = stats.t.isf(agreement.ALPHA_EQUIVALENCE, agreement.z_df("mean"))
resolution = (abs(a - b) + critical * se) / scale
print(f"resolution of the mean of x_1 by hand {resolution:.4f}, harness "
      f"{row['resolution']:.4f}, tolerance {row['tolerance']}")  # fmt: skip
assert np.isclose(resolution, row["resolution"])
coverage = stats.norm.cdf(1.96 - 0.2) - stats.norm.cdf(-1.96 - 0.2)
assert round(coverage, 3) == 0.945

certified = checks[checks["tolerance"].notna()].copy()
certified["label"] = certified["comparison"].str.replace("handrolled:", "") + ": " + \
    certified["quantity"] + " " + certified["statistic"]  # fmt: skip
fig, ax = plt.subplots(figsize=(6, 0.16 * len(certified) + 1))
colours = np.where(certified["resolution"] < certified["tolerance"], "C0", "C3")
ax.barh(certified["label"], certified["resolution"], color=colours, label="resolution reached")
ax.plot(certified["tolerance"], certified["label"], "k|", ms=8, mew=2, label="tolerance")
ax.set(xlabel="posterior sds", title="every check's resolution against its tolerance")
ax.tick_params(axis="y", labelsize=6)
ax.legend(fontsize=8, loc="lower right")
plt.show()

# %% [markdown]
# ## 6. 收敛性指标 · The gates: $\hat R$ (潜在尺度缩减因子) and ESS
#
# Before any comparison, each side must look converged (seed 001 §7.2 lists these
# 收敛性指标). $\hat R$, the **potential scale reduction factor**
# (潜在尺度缩减因子; seed 001's "Gelman-Rubin 法"), compares the spread
# between chains with the spread within them: chains that have not yet forgotten
# their dispersed starts give $\hat R > 1$. The harness uses ArviZ's
# rank-normalised split $\hat R$ (Vehtari et al. 2021) and asks $\hat R$ below
# 1.01 (raised a little when there are very many quantities), and a bulk and a
# tail ESS of at least 100 per chain. A side that fails is **not converged**:
# its MCSEs cannot be trusted, so neither can its z-checks (unless a difference
# is gross, beyond four times its Holm threshold: then `disagree`). The Gibbs
# chains of §1 forget their starts within a few sweeps, so the figure uses the
# slower random walk of §2, without burn-in (燃烧期), from dispersed starts
# $-6, -2, 2, 6$ (the target is $N(0, 1)$), and computes $\hat R$ over its first
# $n$ draws:

# %%
gates = checks[(checks["kind"] == "diagnostic") & (checks["side"] == GIBBS)]
display(gates[["quantity", "statistic", "value", "threshold", "passed"]].head(6).round(4))
assert np.isclose(float(azs.rhat(x1)), gates.set_index(["quantity", "statistic"])
                  .at[("x[0]", "r_hat"), "value"])  # fmt: skip

starts = np.linspace(-6, 6, chains)
cold = random_walk(np.random.default_rng(seed), (chains,), 1000, start=starts)
lengths = np.arange(20, 1001, 20)
rhats = [float(azs.rhat(cold[:, :n])) for n in lengths]
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 2.8))
for c in range(chains):
    left.plot(cold[c], lw=0.8, label=f"chain {c}")
left.axhline(0, color="k", lw=1, label="exact mean 0")
left.set(xlabel="iteration (no burn-in)", ylabel="x", title="random walk from dispersed starts")
left.legend(fontsize=7, ncol=2)
right.plot(lengths, rhats, "k.-")
right.axhline(1.01, color="C3", ls="--", label="gate 1.01")
right.set(xlabel="first n draws", ylabel=r"$\hat R$", title=r"$\hat R$ falls as the chains mix")
right.legend(fontsize=8)
plt.tight_layout()
plt.show()
print(f"R-hat of the first {lengths[0]} draws: {rhats[0]:.3f}; of all {lengths[-1]}: "
      f"{rhats[-1]:.3f}")  # fmt: skip
assert rhats[0] > 1.01 and rhats[-1] < rhats[0]

# %% [markdown]
# ## 7. 能量检验 · The energy check: the joint distribution
#
# Every check so far looks at one quantity at a time. A sampler can get every
# marginal right and the dependence wrong; the catalogue of wrong samplers
# (`handrolled/wrong_samplers.py`) has one, `independent_marginals`, which draws
# $x_1$ and $x_2$ independently from their exact marginals. The centred
# product's mean catches it here (its covariance is 0, not $\rho\sigma_1\sigma_2
# = 1$), but a check of the whole joint distribution does not depend on having
# chosen the right products. The **energy distance** (能量距离; Székely and Rizzo)
# of two samples $X$ ($n$ draws) and $Y$ ($m$ draws),
#
# $$ E = \frac{2}{nm}\sum_{i,j}\lVert x_i - y_j\rVert
#    - \frac{1}{n(n-1)}\sum_{i \ne i'}\lVert x_i - x_{i'}\rVert
#    - \frac{1}{m(m-1)}\sum_{j \ne j'}\lVert y_j - y_{j'}\rVert , $$
#
# is zero on average only when the two distributions are the same, in any
# dimension. The harness computes it on all the quantities at once (each
# standardised by its pooled sd), on draws thinned to about one per two
# effective draws (so that they are near-independent), and reads it against a
# **block-permutation** distribution: blocks of consecutive thinned draws are
# dealt at random to the two sides 1,999 times, and the check fails when $E$ is
# beyond the 99.9 % point of those shuffles (`energy.ALPHA` = 0.1 %). Same PyMC
# draws as above (`pymc_from`), so only the planted sampler runs:

# %%
marginals = run_pair(pair, settings, sampler=pair.wrong["independent_marginals"],
                     pymc_from=result, **quiet)  # fmt: skip
print("verdict of independent_marginals:", marginals.verdict)


def energy_by_hand(run, label):
    """The energy distance of ``label`` against PyMC, its permutation null, as the harness does."""
    sides = [run.sides[s].quantities for s in (label, "pymc")]
    common = [q for q in sides[0]["quantity"].values if q in set(sides[1]["quantity"].values)]
    xs = [
        energy.thinned(side.sel(quantity=common), run.summaries[s].loc[common, "ess_bulk"].min())
        for side, s in zip(sides, (label, "pymc"), strict=True)
    ]
    length = min(energy.block_length(max(x.shape[1] for x in xs)), *(x.shape[1] for x in xs))
    xs = [x[:, : x.shape[1] // length * length] for x in xs]
    pooled = np.concatenate([x.reshape(-1, x.shape[-1]) for x in xs])
    z = pooled / pooled.std(axis=0)
    d = np.linalg.norm(z[:, None, :] - z[None, :, :], axis=-1)
    n = xs[0].shape[0] * xs[0].shape[1]
    dxx, dyy, dxy = d[:n, :n], d[n:, n:], d[:n, n:]
    e = 2 * dxy.mean() - dxx.sum() / (n * (n - 1)) - dyy.sum() / (len(d) - n) / (len(d) - n - 1)
    blocks = [np.arange(i, min(i + length, len(d))) for i in range(0, len(d), length)]
    membership = np.zeros((len(d), len(blocks)))
    for k, index in enumerate(blocks):
        membership[index, k] = 1.0
    dealt = np.argsort(np.random.default_rng(0).random((len(blocks), energy.PERMUTATIONS)),
                       axis=0)[: n // length]  # fmt: skip
    chosen = np.zeros((len(blocks), energy.PERMUTATIONS))
    np.put_along_axis(chosen, dealt, 1.0, axis=0)
    return e, energy.energy_statistics(d, membership @ chosen), z, n


fig, axes = plt.subplots(1, 3, figsize=(12, 3))
pymc_x = result.sides["pymc"].tree["posterior"]["x"].values.reshape(-1, 2)[::8]
bug_x = marginals.sides["user"].tree["posterior"]["x"].values.reshape(-1, 2)[::8]
axes[0].plot(*pymc_x.T, ".", ms=2, alpha=0.5, label="PyMC (NUTS)")
axes[0].plot(*bug_x.T, ".", ms=2, alpha=0.5, label="independent_marginals")
axes[0].set(xlabel="$x_1$", ylabel="$x_2$", title="right marginals, no dependence")
axes[0].legend(fontsize=7, markerscale=4)
cases = ((result, GIBBS, "correct Gibbs"), (marginals, "user", "independent_marginals"))
for ax, (run, label, name) in zip(axes[1:], cases, strict=True):
    e, null, _, _ = energy_by_hand(run, label)
    rows = run.checks[(run.checks["kind"] == "multivariate") & (run.checks["side"] == label)]
    row_e = rows.iloc[0]
    assert np.isclose(e, row_e["value"], rtol=1e-6, atol=1e-9)
    assert np.isclose(np.quantile(null, 1 - energy.ALPHA), row_e["threshold"], rtol=1e-6)
    ax.hist(null, bins=40, color="0.7", label="block permutations")
    ax.axvline(row_e["threshold"], color="k", ls="--", label="99.9 % point")
    ax.axvline(e, color="C3", lw=2, label=f"observed E = {e:.3f}")
    ax.set(xlabel="energy distance", title=f"{name}: p = {row_e['p']:.4f}")
    ax.legend(fontsize=7)
plt.tight_layout()
plt.show()
energy_rows = pd.concat([run.checks[run.checks["kind"] == "multivariate"]
                         for run in (result, marginals)])  # fmt: skip
display(energy_rows[["comparison", "value", "threshold", "p", "passed", "note"]].round(4))
mz = marginals.checks[marginals.checks["kind"].isin(["agreement", "exact"])]
coordinate_rows = mz[mz["quantity"].isin(["x[0]", "x[1]"])]
print(f"independent_marginals: {int(coordinate_rows['passed'].sum())} of {len(coordinate_rows)} "
      "z-checks of x_1 and x_2 pass")  # fmt: skip
assert coordinate_rows["passed"].all()  # every marginal check passes
if FULL:
    assert not energy_rows.set_index("side").at["user", "passed"]
    assert energy_rows.set_index("side").at[GIBBS, "passed"]
    assert marginals.verdict == "disagree"

# %% [markdown]
# The note names the quantities whose own one-dimensional distances are largest;
# when every marginal agrees and the check still fails, the dependence differs.
# The energy check runs once per side under test, at the last look (§10).
#
# ## 8. 秩图与 ECDF 带 · Rank plots and ECDF bands: what they assume
#
# A **rank plot** (秩图) compares a side's chains **with each other**. Pool the
# draws of all chains, rank them, and divide by their number: the *fractional
# ranks* lie in (0, 1). If the chains' draws are **exchangeable**, in particular
# **independent** draws of one distribution, each chain's fractional ranks are
# uniform, and their empirical distribution function (经验分布函数, ECDF)
# $\hat F_j(u)$ stays near $u$. Each line below is one chain's $\hat F_j(u) - u$.
# The grey **ECDF band** is a simultaneous 99 % band: for independent draws, all
# the chains' curves stay inside it together in 99 % of runs (drawn here by
# simulating independent draws of the same size). The p-value in each title is
# arviz-stats' multi-chain uniformity test (the one `arviz_plots.plot_rank`
# prints on its panels), which makes the same assumption.
#
# **What the test assumes: independence.** The draws of a Markov chain are not
# independent. A correct but slow sampler, the random walk of §2, wanders: a
# chain spends long stretches high or low, so its ranks cluster, and its curve
# leaves a band made for independent draws. The test then gives a small p for a
# **correct** sampler (left). Thinned to one draw per two effective draws, the
# draws are near-independent and the curves stay in the band (middle): that is
# why the report pages thin each chain so before drawing its rank plot
# (`report.near_independent`). **Discrete draws** break the assumption too: tied
# draws share a rank, and the ECDF climbs in steps that the test reads as a
# difference, so a correct 0/1 chain gets a tiny p (printed below the figure).
# The pages therefore also break ties at random: a quantity whose draws are all
# integers gets a uniform jitter in $[0, 1)$ on every draw, which keeps the
# order of distinct values and orders tied draws at random (randomised ranks).
# The same 0/1 chain, thinned and jittered as the pages do, gets a fair p
# (printed below): only so can a rank plot of discrete draws be read. The
# verdict never uses the rank plot.
# What respects autocorrelation is the **ESS-based** MCSE of §2: on 200 runs of
# the same correct random walk (right), z of the mean against the exact 0 with
# the naive standard error $\mathrm{sd}/\sqrt N$ is far too often large, with
# $\mathrm{sd}/\sqrt{\mathrm{ESS}}$ it is about standard normal.


# %%
def rank_p(values):
    """arviz-stats' multi-chain rank uniformity test (plot_rank's p) on draws (chain, draw)."""
    dataset = xr.Dataset({"q": (("chain", "draw"), np.asarray(values, dtype=float))})
    ranks = dataset.azstats.compute_ranks(dim=("chain", "draw"), relative=True)
    return float(ranks.azstats.mchain_uniformity_test(dim=("chain", "draw"))[0]["q"])


def rank_ecdf(values, u):
    """Each chain's fractional-rank ECDF minus u, shape (chain, len(u))."""
    ranks = stats.rankdata(values, axis=None).reshape(values.shape) / (values.size + 1)
    return (ranks[:, :, None] <= u).mean(axis=1) - u


def band(shape, u, rng, runs=400, level=0.99):
    """Half-width of a simultaneous band for independent draws of ``shape`` (chain, draw)."""
    worst = [np.abs(rank_ecdf(rng.standard_normal(shape), u)).max() for _ in range(runs)]
    return float(np.quantile(worst, level))


def thin_by_ess(values):
    """Each chain to one draw per two effective draws, as the report pages do."""
    tree = report.near_independent(xr.Dataset({"q": (("chain", "draw"), values)}))
    return tree["posterior"]["q"].values


u = np.linspace(0.01, 0.99, 99)
thinned_walk = thin_by_ess(walk)
panels = {"random walk, every draw": walk, "the same, 1 per 2 effective draws": thinned_walk}
replicates = 200 if FULL else 20
many = random_walk(rng, (replicates, chains), n_rw)
ess_many = azs.ess(many, method="mean", chain_axis=1, draw_axis=2)
mean, sd = many.mean(axis=(1, 2)), many.std(axis=(1, 2), ddof=1)
z_naive, z_ess = mean / (sd / np.sqrt(chains * n_rw)), mean / (sd / np.sqrt(ess_many))

half_walk = band(walk.shape, u, rng)
outside = np.array([np.abs(rank_ecdf(run, u)).max() > half_walk for run in many])
fig, axes = plt.subplots(1, 3, figsize=(13, 3.2))
found = {}
for ax, (name, values) in zip(axes, panels.items(), strict=False):
    half = half_walk if values is walk else band(values.shape, u, rng)
    curves = rank_ecdf(values, u)
    found[name] = (rank_p(values), np.abs(curves).max() > half)
    ax.fill_between(u, -half, half, color="0.85", label="99 % band, independent draws")
    for c in range(len(curves)):
        ax.plot(u, curves[c], lw=1, label=f"chain {c}")
    ax.set(xlabel="fractional rank u", ylabel=r"$\hat F_j(u) - u$",
           title=f"{name}\n{values.shape[1]} a chain, p = {found[name][0]:.4f}")  # fmt: skip
    ax.legend(fontsize=6, loc="lower left")
bins = np.linspace(-8, 8, 33)
axes[2].hist(z_naive, bins=bins, density=True, histtype="step", lw=1.5, label=r"sd / $\sqrt{N}$")
axes[2].hist(z_ess, bins=bins, density=True, histtype="step", lw=1.5, label=r"sd / $\sqrt{ESS}$")
axes[2].plot(bins, stats.norm.pdf(bins), "k", label="N(0, 1)")
axes[2].set(xlabel="z of the mean against 0", ylabel="density",
            title=f"{replicates} correct random-walk runs")  # fmt: skip
axes[2].legend(fontsize=7)
plt.tight_layout()
plt.show()

coin = (rng.random((chains, 1000)) < 0.3).astype(float)
summary = pd.DataFrame({
    "share of runs with |z| > 2.58": [np.mean(np.abs(z_naive) > 2.58),
                                      np.mean(np.abs(z_ess) > 2.58), np.nan],
    "share of runs leaving the 99 % band": [np.nan, np.nan, np.mean(outside)],
}, index=["z with sd/sqrt(N)", "z with sd/sqrt(ESS)", "rank ECDF, every draw"])  # fmt: skip
display(summary.round(3))
print(f"a correct 0/1 chain (P(1) = 0.3), tied: p = {rank_p(coin):.4f}; thinned and ties "
      f"broken at random, as the pages do: p = {rank_p(thin_by_ess(coin)):.4f}")  # fmt: skip
every, thinned = found["random walk, every draw"], found["the same, 1 per 2 effective draws"]
if FULL:
    assert replicates == 200  # the text's "200 runs"
    assert every[0] < 0.01 and every[1]  # small p, outside the band: a correct sampler
    assert thinned[0] > 0.01 and not thinned[1]  # near-independent: fair p, inside the band
    assert np.mean(np.abs(z_naive) > 2.58) > 0.3  # the naive error is far too small
    assert np.mean(np.abs(z_ess) > 2.58) < 0.05  # the ESS-based one is about right
    assert np.mean(outside) > 0.5  # most correct runs leave the band made for independent draws
    assert rank_p(coin) < 0.01 and rank_p(thin_by_ess(coin)) > 0.01

# %% [markdown]
# So: a rank plot says whether a side's chains look alike, and its p and band are
# honest only for near-independent, untied draws (thinned, and jittered when
# discrete, as the pages draw them). It never compares a side with
# PyMC or with the exact answer (a sampler whose chains all sample the same wrong
# distribution passes it, §11), and with many draws it flags chain differences
# far below δ. Read it as a picture; the verdict rests on §§3–7 and §9.
#
# ## 9. 诚实性检验 · The honesty checks
#
# The z-checks trust each side's own MCSE, and the MCSE trusts that the chains
# are independent runs. Three kinds of checks make sure a sampler under test does
# not fool them (`docs/contracts.md`, "Honesty checks"); a failed one makes the
# side `disagree`, whatever else passes:
#
# * **independence**: every pair of its chains, at equal iteration, must not be
#   correlated beyond what independent chains give (Bartlett's formula, with the
#   chains' autocorrelations), nor share draws bit for bit. Copies of one chain
#   make $\hat R$ and every MCSE look better than they are;
# * **copy**: its draws must not be the reference's, bit for bit or draw by draw;
# * **reproducibility**: called twice more with the same seed, it must return the
#   same draws bit for bit (draw every random number from `random_seed`).
#
# Three dishonest samplers, each wrapping the correct Gibbs sampler:


# %%
def copied_chain(data, *, draws, tune, chains, random_seed):
    """Correct draws, but chain 1 is chain 0 again."""
    x = bn.sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)["x"]
    if len(x) > 1:  # the harness also calls it for one chain, as a probe
        x[1] = x[0]
    return {"x": x}


def clock_seeded(data, *, draws, tune, chains, random_seed):
    """Correct draws from a generator seeded by the clock, not by ``random_seed``."""
    fresh = int(np.random.default_rng().integers(2**31))
    return bn.sample(data, draws=draws, tune=tune, chains=chains, random_seed=fresh)


def reference_copy(data, *, draws, tune, chains, random_seed):
    """PyMC's own draws, returned as the sampler's."""
    x = result.sides["pymc"].tree["posterior"]["x"].values
    return {"x": x if x.shape[1] == draws else bn.sample(data, draws=draws, tune=tune,
            chains=chains, random_seed=random_seed)["x"]}  # fmt: skip


dishonest = {f.__name__: run_pair(pair, settings, sampler=f, pymc_from=result, **quiet)
             for f in (copied_chain, clock_seeded, reference_copy)}  # fmt: skip
honesty = ["independence", "copy", "reproducibility"]
flagged = pd.concat([
    run.checks[run.checks["kind"].isin(honesty) & ~run.checks["passed"]].assign(sampler=name)
    for name, run in dishonest.items()
])  # fmt: skip
display(flagged[["sampler", "kind", "quantity", "statistic", "value", "threshold"]].round(3))
print({name: run.verdict for name, run in dishonest.items()})
assert set(flagged["sampler"]) == set(dishonest)
assert {run.verdict for run in dishonest.values()} == {"disagree"}
assert result.checks[result.checks["kind"].isin(honesty)]["passed"].all()

fig, axes = plt.subplots(1, 2, figsize=(8, 3.2), sharex=True, sharey=True)
copied = dishonest["copied_chain"].sides["user"].tree["posterior"]["x"].values[..., 0]
pairs_of_chains = (("correct Gibbs", x1), ("copied_chain", copied))
for ax, (name, values) in zip(axes, pairs_of_chains, strict=True):
    r = np.corrcoef(values[0], values[1])[0, 1]
    ax.plot(values[0], values[1], ".", ms=2, alpha=0.4, label=f"r = {r:.3f}")
    ax.set(xlabel="$x_1$, chain 0", ylabel="$x_1$, chain 1 (same iteration)", title=name)
    ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 10. 序贯检查 · Sequential looks: draws doubled until decided; a held `agree`
#
# A run does not fix its length in advance. While a side under test is
# `inconclusive` or `not converged`, the harness **doubles the draws** and looks
# again, up to `max_draws` (16 × `draws` by default: looks at 1, 2, 4, 8, 16 ×).
# Every look spends part of the error rates: look $k$ of $K$ tests at
# $\alpha/(k(k+1))$, the last at what is left, $\alpha/K$; the levels sum to
# $\alpha$, so the false-alarm rate (1 %) and the false-`agree` rate (5 %) hold
# over the whole run, however many looks it takes. (This notebook's other runs
# make one look, so that their hand computations use the full rates.)
#
# **A held `agree`.** A small difference shared by many checks, each too small
# to pass its own Holm threshold, can give `agree` at an early look. So before
# the last look, an `agree` is **held** (the run grows on) when its z-checks
# together stand out: their **lead**, the mean squared normal score (each
# check's p-value turned into the normal $|z|$ with the same p), is at least
# `agreement.LEAD` = 1.5. When the sides agree, each check's squared normal
# score averages 1 (a squared standard normal does), so the lead averages at
# most about 1; the checks are correlated (a quantity's mean, median and
# quantiles move together) and conservative (Student-t p-values), so a correct
# sampler's lead is often less: the correct Gibbs sampler's, printed below, is
# under 1. On the suite's correct samplers (the zoo, the seed pairs and the
# catalogue's fixes, one look each at seeds 1–12), 15 of 217 first looks that
# agreed had a lead of 1.5 or more (measured in `agreement.LEAD`'s docstring):
# those runs take another look, which costs draws but no error rate, since
# holding spends nothing of either. The look's JSON records it (`held`,
# side → lead).
#
# Stan's NUTS bug of 2.10–2.13 made every sd about 4 % too small (measured on
# the suite's NumPy port of it). In 2016 it was found by long runs whose
# variances were checked against their MCSE (stan-dev/stan#2178); the suite now
# catches it this way, by a held `agree`, at its default settings at 7 of 8
# seeds (`shipped/stan_nuts_subtree/README.md` in the repository). A sampler
# whose every draw is pulled 2 % towards the mean (sds 2 % too small), run
# sequentially:

# %%
schedule = look_draws(draws, 16 * draws)
levels = [spent(k, len(schedule), agreement.ALPHA) for k in range(1, len(schedule) + 1)]
print("draws per chain at each look:", schedule)
print("alpha spent at each look:", [f"{x:.5f}" for x in levels], f"sum {sum(levels):.4f}")
assert np.isclose(sum(levels), agreement.ALPHA)

z_p = checks.loc[(checks["side"] == GIBBS) & checks["kind"].isin(["agreement", "exact"]), "p"]
lead_hand = float(np.mean(stats.norm.isf(np.clip(z_p, 1e-300, 1) / 2) ** 2))
print(f"lead of the correct Gibbs sampler: by hand {lead_hand:.3f}, harness "
      f"{agreement.lead(checks, GIBBS):.3f} (held at {agreement.LEAD} or more)")  # fmt: skip
assert np.isclose(lead_hand, agreement.lead(checks, GIBBS))
# the measured numbers the text quotes, against their sources
repository = Path(mcmc_pairs.__file__).resolve().parents[1]
lead_doc = " ".join((repository / "comparisons" / "stats" / "verdicts.py").read_text().split())
stan_doc = " ".join(
    (repository / "shipped" / "stan_nuts_subtree" / "README.md").read_text().split()
)
assert agreement.LEAD == 1.5 and "15 of 217 first looks that agreed" in lead_doc
assert "sds about 4 % too small" in stan_doc and "Seven of eight seeds are caught" in stan_doc
assert "stan-dev/stan#2178" in stan_doc and "2.10.0" in stan_doc and "2.13.1" in stan_doc


def narrow(data, *, draws, tune, chains, random_seed, factor=0.98):
    """Correct Gibbs draws pulled towards the exact mean: every sd 2 % too small."""
    x = bn.sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)["x"]
    return {"x": data["mu"] + factor * (x - data["mu"])}


grown = run_pair(pair, settings.replace(max_draws=16 * draws), sampler=narrow, pymc_from=result,
                 **quiet)  # fmt: skip
looks = pd.DataFrame([
    {"look": x["look"], "draws": x["draws"], "verdict": x["verdicts"]["user"],
     "held (lead)": x.get("held", {}).get("user")} for x in grown.looks
])  # fmt: skip
display(looks.set_index("look").round(2))
lead_last = agreement.lead(grown.checks, "user")

fig, ax = plt.subplots(figsize=(6, 3))
leads = looks["held (lead)"].fillna(lead_last).astype(float)
ax.bar(looks["look"], leads, color=["C1" if v == "agree" else "C3" for v in looks["verdict"]])
ax.axhline(agreement.LEAD, color="k", ls="--", label=f"LEAD = {agreement.LEAD}")
ax.axhline(1, color="0.5", lw=1, label="1: one check's mean z² when the sides agree")
for k, (v, d) in enumerate(zip(looks["verdict"], looks["draws"], strict=True), start=1):
    ax.annotate(f"{v}\n{d} draws", (k, 0.1), ha="center", fontsize=7, color="w")
ax.set(xlabel="look", ylabel="lead (mean squared normal score)",
       title="sds 2 % too small: held, then caught", xticks=looks["look"])  # fmt: skip
ax.legend(fontsize=8)
plt.show()
if FULL:
    assert grown.verdict == "disagree"
    held = looks[looks["held (lead)"].notna()]
    assert len(held) >= 1 and (held["verdict"] == "agree").all()
    assert (held["held (lead)"] >= agreement.LEAD).all()
    assert looks["verdict"].iloc[0] == "agree"  # without the lead, the run would have stopped here
    assert lead_hand < 1  # "under 1": the correct sampler is not held

# %% [markdown]
# ## 11. 四种结论 · The verdicts and exit codes
#
# A side's verdict is the first that applies (the pair's is its worst side's):
#
# 1. `disagree` (exit status 1): a draw outside the support, a failed honesty
#    check (§9), a z-check against the exact answer or, PyMC being sound, against
#    PyMC (§§3–4), a gross difference (§6), or the energy check (§7). Find the bug.
# 2. `not converged` (exit 1): a gate failed (§6). Run longer, or improve the
#    mixing.
# 3. `reference failed` (exit 4): the side passed its own checks but PyMC failed
#    its own (or its NUTS diverged). Change PyMC's step methods or settings:
#    nothing is blamed on the side.
# 4. `agree` (exit 0): nothing rejected, both sides converged, every resolution
#    within its tolerance (§5). Trust the sampler, at that resolution.
# 5. `inconclusive` (exit 1): nothing detected, the resolution not reached within
#    the budget (§10). Run longer (`--draws`, `--max-draws`).
#
# A usage or input error is exit 2. Only `agree` is exit 0, so a script or a
# CI job can test a sampler with `mcmc-pairs compare NAME --sampler FILE.py:NAME`
# alone. The exit status of each verdict, from the command's own code:

# %%
codes = {v: exit_status(v) for v in
         ("agree", "disagree", "inconclusive", "not converged", "reference failed")}  # fmt: skip
print(codes)
assert codes == {"agree": 0, "disagree": 1, "inconclusive": 1, "not converged": 1,
                 "reference failed": 4}  # fmt: skip

# %% [markdown]
# **The support check** (JSON kind `support`, rule 1). Every quantity of every
# draw must be finite. A draw outside the target's support has log density
# $-\infty$ (a negative draw of a variance, say), and a sampler whose numbers
# overflowed returns `inf` or `nan`; either way a quantity is not finite. The
# check's `value` is the share of a quantity's draws that are not finite, its
# `threshold` 0. A side that fails it is `disagree` whatever else passes, before
# the gates are read: no mean, MCSE or z means anything with an infinite draw in
# it (and PyMC failing its own support check makes `reference failed`). This
# pair's support is the whole plane, so the example is the correct Gibbs sampler
# with one draw of $x_1$ overflowed to infinity:


# %%
def overflowed(data, *, draws, tune, chains, random_seed):
    """Correct Gibbs draws, but the last draw of chain 0 has x_1 = inf."""
    x = bn.sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)["x"]
    x[0, -1, 0] = np.inf
    return {"x": x}


infinite = run_pair(pair, settings, sampler=overflowed, pymc_from=result, **quiet)
support = infinite.checks[(infinite.checks["kind"] == "support")
                          & (infinite.checks["side"] == "user")]  # fmt: skip
display(support[["kind", "quantity", "statistic", "value", "threshold", "passed"]])
print(f"verdict: {infinite.verdict}; one draw in {chains * draws}: value "
      f"{1 / (chains * draws):.6f} for x[0] and for what is computed from it")  # fmt: skip
assert infinite.verdict == "disagree" and agreement.support_failed(support)
assert np.isclose(support.set_index("quantity").at["x[0]", "value"], 1 / (chains * draws))
assert support.set_index("quantity").at["x[1]", "passed"]

# %% [markdown]
# **A `disagree`, read.** Seed 001 says of the full conditional posterior
# "我觉得就不妨看成边缘后验分布吧" (I think it may as well be seen as the
# marginal posterior): it reads a full conditional $p(x_1 \mid x_2)$ as the
# marginal $p(x_1)$. That slip leads to either of two bugs of the catalogue:
# draw each coordinate from its marginal, forgetting the conditioning
# altogether (`independent_marginals`, §7 and
# [bivariate_normal](bivariate_normal.ipynb)), or keep the conditional mean,
# which moves with $x_2$, but give it the marginal's sd $\sigma_1$ in place of
# the conditional's $\sigma_1\sqrt{1 - \rho^2}$. The second is
# `gibbs_without_shrinkage`, which forgets the factor $\sqrt{1 - \rho^2}$ in
# both conditional sds: every draw is too wide, the centre is right.

# %%
broken = run_pair(pair, settings, sampler=pair.wrong["gibbs_without_shrinkage"],
                  pymc_from=result, **quiet)  # fmt: skip
print("verdict for the planted bug:", broken.verdict)
failed = broken.checks[~broken.checks["passed"]]
display(failed.groupby(["kind", "statistic"]).size().rename("failed checks").to_frame())
fig, ax = plt.subplots(figsize=(6, 3))
for label, run, side in (("PyMC (NUTS)", result, "pymc"), ("gibbs_without_shrinkage", broken,
                                                            "user")):  # fmt: skip
    values = run.sides[side].tree["posterior"]["x"].values[..., 0].ravel()
    ax.hist(values, bins=60, density=True, histtype="step", label=label)
wide = np.linspace(0, 10, 200)
ax.plot(wide, stats.norm.pdf(wide, 5, 1), "k", label="exact N(5, 1)")
ax.set(xlabel="$x_1$", ylabel="density", title="the planted bug: right centre, too wide")
ax.legend(fontsize=8)
plt.show()
bz = broken.checks[broken.checks["kind"].isin(["agreement", "exact"])
                   & (broken.checks["side"] == "user")]  # fmt: skip
means = bz[(bz["statistic"] == "z(mean)") & bz["quantity"].isin(["x[0]", "x[1]"])]
sds = bz[(bz["statistic"] == "z(sd)") & bz["quantity"].isin(["x[0]", "x[1]"])]
bug_ranks = broken.sides["user"].quantities.sel(quantity="x[0]").values
against = {"agreement": "PyMC", "exact": "the exact answer"}
failed_means = bz[(bz["statistic"] == "z(mean)") & ~bz["passed"]]
named = {"x[0]*x[1]": "the centred product", "logp": "logp", "log_prior": "log_prior"}
fails = (
    "; ".join(
        f"{named.get(q, q)} (against {' and '.join(against[k] for k in rows['kind'])})"
        for q, rows in failed_means.groupby("quantity", sort=False)
    )
    or "none"
)
gates_bug = broken.checks[
    (broken.checks["kind"] == "diagnostic") & (broken.checks["side"] == "user")
]
print(f"means of x_1 and x_2: {int(means['passed'].sum())} of {len(means)} z-checks pass; "
      f"means that fail: {fails}")  # fmt: skip
print(f"sds of x_1 and x_2: {int((~sds['passed']).sum())} of {len(sds)} z-checks fail, z from "
      f"{sds['value'].min():.1f} to {sds['value'].max():.1f}; gates: "
      f"{int(gates_bug['passed'].sum())} of {len(gates_bug)} pass; rank-plot p of x_1: "
      f"{rank_p(thin_by_ess(bug_ranks)):.3f}")  # fmt: skip
assert means["passed"].all()
if FULL:
    assert broken.verdict == "disagree" and not sds["passed"].any() and (sds["value"] > 0).all()
    assert gates_bug["passed"].all()
    assert set(failed_means["quantity"]) <= {"x[0]*x[1]", "logp", "log_prior"}
    by_quantity = failed_means.groupby("quantity")["kind"].agg(set)
    assert by_quantity["logp"] == {"agreement", "exact"} and "log_prior" in by_quantity
    product = failed_means[failed_means["quantity"] == "x[0]*x[1]"]
    assert "exact" in set(product["kind"]) and (product["value"] > 0).all()  # covariance too large
    assert rank_p(thin_by_ess(bug_ranks)) > 0.01  # its chains alike: the rank plot cannot see it

# %% [markdown]
# The means of $x_1$ and $x_2$ pass; their sds fail with a positive z (too
# wide); the gates pass. Not every mean passes: the log density's (`logp`, and
# `log_prior`, the same here) fails, since draws too wide sit where the density
# is lower, and the centred product's mean, the covariance, is too large under
# the bug, which its check against the exact answer sees (printed above). This
# chain mixes well around the wrong distribution, and its chains look alike to a
# rank plot. That is why the harness compares spreads, tails, the products and
# the log density, and not only the coordinates' means.
#
# ## 12. 练习 · Exercises
#
# **Exercise 1.** A side has posterior sd 2 and ESS 400 for its mean. What is
# the MCSE of the mean?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_number(answer, 2 / np.sqrt(400), rel=0.01,
                hint="MCSE = sd / sqrt(ESS): divide by the square root of the ESS, not the ESS.",
                why="sd / sqrt(ESS) = 2 / 20.", wrong=2 / 400)  # fmt: skip

# %% [markdown]
# **Exercise 2.** Another pair's run makes $m = 40$ z-checks. Its smallest
# p-value belongs to a check of a mean, read against a Student-t with 30 degrees
# of freedom (§3). Below what $|z|$ must that check stay to pass Holm's first
# step? (`scipy.stats.t.isf` gives a Student-t's upper quantile.)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
assert agreement.ALPHA == 0.01 and agreement.z_df("mean") == 30  # the question's numbers
first_level = agreement.ALPHA / 40
holm_first = stats.t.isf(first_level / 2, agreement.z_df("mean"))
ex.check_number(answer, holm_first, rel=0.005,
                hint="Holm's first level is alpha / m, not alpha; and the test is two-sided: "
                     "the t quantile leaves half the level in each tail.",
                why=f"1 % / 40 = {first_level:.2g}, two-sided, so |z| must stay below "
                    f"stats.t.isf({first_level / 2:.3g}, {agreement.z_df('mean')}) = "
                    f"{holm_first:.2f}; without Holm's correction it would be "
                    f"{stats.t.isf(agreement.ALPHA / 2, agreement.z_df('mean')):.2f}.",
                wrong=stats.t.isf(agreement.ALPHA / 2, agreement.z_df("mean")))  # fmt: skip

# %% [markdown]
# **Exercise 3.** A side agrees at its first look of five. Its 40 z-checks'
# p-values all correspond to a normal score $|z| = 1.3$. What is its lead? (Is
# the `agree` held?)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_number(answer, 1.3**2, rel=0.01,
                hint="the lead is the mean of the squared normal scores, not of the scores.",
                why=f"1.3² = {1.3**2:.2f} ≥ {agreement.LEAD}: held, the run grows on.",
                wrong=1.3)  # fmt: skip
