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
# # 读懂比较结果 · How to read a verdict of the harness
#
# *Reading order 0 of 6: read this first, or come back to it from any other
# notebook.* [Glossary 术语表](GLOSSARY.md) · next:
# [Markov chains and Monte Carlo](markov_chains_and_monte_carlo.ipynb)
#
# Every other notebook runs a hand-written sampler and a PyMC model of the same
# posterior and prints a **verdict**: `agree`, `disagree`, `inconclusive` or
# `not converged`. This notebook explains, once, every number behind a verdict,
# recomputing each by hand from the draws and checking it against the harness:
# the Monte Carlo standard error (MCSE, seed 001's "MC-误差"), the z-score, the
# effective sample size (ESS, 有效样本量) and $\hat R$ (seed 001's "Gelman-Rubin 法"), Holm's
# correction, and the *resolution* that `agree` certifies. It then plants a bug
# from the catalogue of wrong samplers and reads the verdict that catches it.
#
# The example is the smallest pair, the bivariate normal of seed 003 (its own
# notebook is [bivariate_normal](bivariate_normal.ipynb)).

# %% tags=["parameters"]
draws = 1000
tune = 1000
chains = 4
seed = 20261122
max_draws = 1000  # one look, so that the hand computations below use the full error rates

# %%
# %matplotlib inline
import _exercises as ex
import arviz_stats as azs
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display
from scipy import stats

from mcmc_pairs.comparisons import agreement
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import run_pair

pd.set_option("display.width", 120)
pair = get_pair("bivariate_normal")
result = run_pair(
    pair, draws=draws, tune=tune, chains=chains, seed=seed, max_draws=max_draws, progress=print
)
print("verdict:", result.verdict, result.verdicts)

# %% [markdown]
# ## 1. 比较什么 · What is compared
#
# For every **quantity** (each coordinate $x_1, x_2$; their centred product
# $(x_1 - \mu_1)(x_2 - \mu_2)$, whose mean is the covariance; the log density of
# each draw) and every **statistic** (mean, sd, 5 %, 50 % and 95 % quantiles),
# each side gets an estimate and its MCSE. The summary of one side:

# %%
gibbs = result.summaries["handrolled:gibbs"]
nuts = result.summaries["pymc"]
display(
    gibbs[["mean", "sd", "mcse_mean", "q5", "mcse_q5", "ess_bulk", "ess_tail", "r_hat"]].round(4)
)

# %% [markdown]
# ## 2. MC-误差与有效样本量 · MCSE and ESS
#
# Draws of a Markov chain are correlated, so $N$ draws carry less information
# than $N$ independent ones. The **effective sample size** is the number of
# independent draws they are worth, $\mathrm{ESS} = N / \tau$ with
# $\tau = 1 + 2\sum_{t \ge 1}\rho_t$ the integrated autocorrelation time, and the
# **Monte Carlo standard error** of the mean is
#
# $$ \mathrm{MCSE}(\bar x) = \frac{\mathrm{sd}}{\sqrt{\mathrm{ESS}}}. $$
#
# By hand from the draws, against `arviz_stats` (which the harness uses; its
# ESS for the mean is computed on split chains, hence a small difference from
# `ess_bulk`, which is on ranks):

# %%
x1 = result.sides["handrolled:gibbs"].tree["posterior"]["x"].values[..., 0]
ess_mean = float(azs.ess(x1, method="mean"))
by_hand = x1.std(ddof=1) / np.sqrt(ess_mean)
print(f"sd {x1.std(ddof=1):.4f}, ESS(mean) {ess_mean:.0f} of {x1.size} draws")
print(
    f"MCSE by hand sd/sqrt(ESS) = {by_hand:.5f};  "
    f"harness mcse_mean = {gibbs.at['x[0]', 'mcse_mean']:.5f}"
)
assert abs(by_hand / gibbs.at["x[0]", "mcse_mean"] - 1) < 0.05

# %% [markdown]
# ## 3. z 值 · The z-score and its Student-t
#
# Two sides estimate the same statistic, $a$ and $b$. If both sample the same
# distribution, their difference is Monte Carlo noise of standard error
# $\sqrt{\mathrm{MCSE}_a^2 + \mathrm{MCSE}_b^2}$, so
#
# $$ z = \frac{a - b}{\sqrt{\mathrm{MCSE}_a^2 + \mathrm{MCSE}_b^2}} $$
#
# is about standard normal. The MCSEs are themselves estimated, so the harness
# reads $z$ against a Student-t (heavier tails), not a normal: 30 degrees of
# freedom for means, sds and medians, 20 for the 5 % and 95 % quantiles, whose
# MCSE is the least certain (measured on thousands of correct runs,
# `benchmarks/z_calibration.md`):

# %%
a, b = gibbs.at["x[0]", "mean"], nuts.at["x[0]", "mean"]
se = np.hypot(gibbs.at["x[0]", "mcse_mean"], nuts.at["x[0]", "mcse_mean"])
checks = result.checks
row = checks[(checks["kind"] == "agreement") & (checks["quantity"] == "x[0]")
             & (checks["statistic"] == "z(mean)")].iloc[0]  # fmt: skip
print(
    f"z by hand = ({a:.4f} - {b:.4f}) / {se:.4f} = {(a - b) / se:.3f}; harness: {row['value']:.3f}"
)
assert np.isclose((a - b) / se, row["value"])

# %% [markdown]
# ## 4. Holm 校正 · Holm's correction: many checks, one false-alarm rate
#
# A run makes dozens of z-checks (here: agreement between the sides, and each
# side against the exact answer). At 1 % each, a correct sampler would fail one
# in a few runs. **Holm's step-down correction** keeps the probability of *any*
# false alarm in a run at $\alpha = 1\,\%$: sort the $m$ p-values, compare the
# smallest with $\alpha/m$, the next with $\alpha/(m - 1)$, ..., and stop at the
# first that passes. The `threshold` column is the $|z|$ each check had to stay
# below at its rank:

# %%
z_checks = checks[checks["kind"].isin(["agreement", "exact"])].copy()
df = z_checks["statistic"].map(agreement.z_df)
print("degrees of freedom per statistic:", agreement.Z_DF)
z_checks["p"] = 2 * stats.t.sf(z_checks["value"].abs(), df)
m = len(z_checks)
ranked = z_checks.sort_values("p", kind="stable")  # ties keep the table's order, as Holm's does
ranked["holm level"] = agreement.ALPHA / (m - np.arange(m))
ranked["threshold by hand"] = stats.t.isf(ranked["holm level"] / 2, df[ranked.index])
display(ranked[["comparison", "quantity", "statistic", "value", "p", "holm level",
                "threshold by hand", "threshold", "passed"]].head(8).round(4))  # fmt: skip
assert np.allclose(ranked["threshold by hand"], ranked["threshold"])
print(
    f"{m} z-checks; the largest |z| allowed is {ranked['threshold'].max():.2f}, "
    f"the smallest {ranked['threshold'].min():.2f}"
)

# %% [markdown]
# ## 5. 收敛性指标 · The gates: $\hat R$ and ESS
#
# Before any comparison, each side must look converged: $\hat R < 1.01$ (the
# rank-normalised split $\hat R$ of Vehtari et al. 2021 compares the spread
# between chains with the spread within them; chains that have not forgotten
# their dispersed starts give $\hat R > 1$) and bulk and tail ESS of at least
# 100 per chain. A side that fails is **not converged**: its MCSEs cannot be
# trusted, so neither can its z-scores (unless a difference is gross, four times
# its threshold, which no plausible error in the MCSE explains: then
# `disagree`).

# %%
gates = checks[checks["kind"] == "diagnostic"]
display(gates[["side", "quantity", "statistic", "value", "threshold", "passed"]].head(9).round(4))

# %% [markdown]
# ## 6. “一致”的含义 · What `agree` certifies: a resolution δ
#
# "No test rejected" is not evidence of agreement: with few draws nothing is
# ever rejected. So `agree` makes a positive claim: **at 95 % confidence every
# compared statistic differs between the sides (and from the exact answer) by
# less than δ posterior sd**, δ = 0.2 for means, sds and medians and 2δ = 0.4
# for the 5 % and 95 % quantiles (their MCSE is about twice the mean's). Each
# check's *resolution* is the upper end of the 90 % confidence interval of its
# difference, in posterior sds (two one-sided tests):
#
# $$ \text{resolution} = \frac{|a - b| + t_{0.95,\,\nu}\,
#    \sqrt{\mathrm{MCSE}_a^2 + \mathrm{MCSE}_b^2}}{\mathrm{sd}}, $$
#
# ($\nu$ the statistic's degrees of freedom, section 3) and `agree` needs every
# resolution below its tolerance, no test rejecting, and both sides converged.
# Why 0.2: a mean off by 0.2 sd moves a central 95 % interval's coverage only to
# 94.5 %. By hand for the mean of $x_1$:

# %%
scale = np.hypot(gibbs.at["x[0]", "sd"], nuts.at["x[0]", "sd"]) / np.sqrt(2)
critical = stats.t.isf(agreement.ALPHA_EQUIVALENCE, agreement.z_df("mean"))
resolution = (abs(a - b) + critical * se) / scale
print(
    f"resolution by hand {resolution:.4f}, harness {row['resolution']:.4f}, "
    f"tolerance {row['tolerance']}"
)
assert np.isclose(resolution, row["resolution"])
certified = checks[checks["equivalent"].notna()]
worst = certified.loc[(certified["resolution"] / certified["tolerance"]).idxmax()]
print(
    f"worst certified check: {worst['quantity']} {worst['statistic']}, resolution "
    f"{worst['resolution']:.3f} of tolerance {worst['tolerance']}"
)

# %% [markdown]
# ## 7. 四种判决 · The four verdicts
#
# * `agree`: every resolution within δ, nothing detected, both sides converged.
#   Trust the sampler, at that resolution.
# * `disagree`: some difference is too large for Monte Carlo error (a
#   Holm-corrected z-check, the energy check of the joint distribution, or a
#   draw outside the support). Find the bug.
# * `inconclusive`: nothing detected, but the resolution was not reached. Run longer.
# * `not converged`: a side failed its $\hat R$ or ESS gate. Run longer, or
#   improve the mixing.
#
# By default a run that is neither `agree` nor `disagree` doubles its draws and
# looks again, up to 16 × `draws` (looks at 1, 2, 4, 8, 16 ×), spending part of
# the error rates at each look so that they hold over the whole run. (This
# notebook makes one look; at the test suite's tiny settings the verdict is
# usually `not converged`.)
#
# ## 8. 动手破坏 · Break it and watch
#
# The catalogue of wrong samplers (`handrolled/wrong_samplers.py`) holds bugs
# that hand-written samplers really have; each pair names its own. Plant the
# bivariate normal's `gibbs_without_shrinkage`: its conditional sds forget the
# factor $\sqrt{1 - \rho^2}$, the slip of reading a full conditional as a
# marginal (seed 001's "满条件分布 ≈ 边缘分布"). Same PyMC draws as above
# (`pymc_from`), so only the buggy side runs:

# %%
print(pair.wrong)
broken = run_pair(
    pair,
    sampler=pair.wrong["gibbs_without_shrinkage"],
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    pymc_from=result,
    progress=print,
)
print("verdict for the planted bug:", broken.verdict)
failed = broken.checks[~broken.checks["passed"]]
display(failed.groupby(["kind", "statistic"]).size().rename("failed checks").to_frame())
display(broken.checks[(broken.checks["kind"] == "agreement")
                      & broken.checks["quantity"].isin(["x[0]", "x[1]"])]
        [["quantity", "statistic", "value", "threshold", "passed"]].round(2))  # fmt: skip

# %% [markdown]
# **Which check caught it, and why the others could not.** The conditional
# *means* are right, so the chain is centred where it should be: the z-checks of
# the means of $x_1$ and $x_2$ pass. Every conditional draw is too wide, so the
# stationary distribution is too wide: the **sd** checks fail, and with them
# some of the tail quantiles (5 %, 95 %) and the log density of each draw (too
# many draws far from the mode; the first table counts the failed checks by
# statistic), and the energy check of the joint distribution. The convergence
# gates pass: this chain mixes
# well, it just mixes around the wrong distribution. That is why the harness
# compares spreads and tails, and not only means.

# %% [markdown]
# ## 9. 练习 · Exercises
#
# **Exercise 1.** A side has posterior sd 2 and ESS 400 for its mean. What is
# the MCSE of the mean?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_number(answer, 2 / np.sqrt(400), rel=0.01, hint="MCSE = sd / sqrt(ESS).",
                why="sd / sqrt(ESS) = 2 / 20.")  # fmt: skip

# %% [markdown]
# **Exercise 2.** With the run above, how many z-checks must share the 1 %
# false-alarm rate, i.e. what is $m$ in Holm's first level $\alpha / m$?
# (Count them from the checks table: the `agreement` and `exact` rows.)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_number(answer, m, rel=0, absolute=0.5,
                hint="len(checks[checks['kind'].isin(['agreement', 'exact'])])")  # fmt: skip

# %% [markdown]
# **Exercise 3 (find the planted bug).** A sampler's verdict is `disagree`; its
# mean checks all pass, its sd checks fail with *positive* z (the sampler's sd
# is larger than PyMC's), and its gates pass. Which bug is most likely?
# (a) the chain was not run long enough; (b) a conditional variance is too
# large, e.g. $\sigma_1^2$ where $(1 - \rho^2)\sigma_1^2$ belongs; (c) the
# proposal of a Metropolis step is too narrow.

# %%
answer = None  # "a", "b" or "c"

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_choice(answer, "b", {
    "a": "too short a run gives 'not converged' or 'inconclusive', not a confident 'disagree' "
         "with passing gates.",
    "b": "right means and too-wide spreads are the signature of an inflated conditional "
         "variance, the bug planted above.",
    "c": "a narrow proposal mixes slowly (small ESS, failed gates); it does not change the "
         "distribution the chain converges to.",
})  # fmt: skip

# %%
fig, ax = plt.subplots(figsize=(6, 3))
for label, tree in (("PyMC (NUTS)", result.sides["pymc"].tree),
                    ("gibbs_without_shrinkage", broken.sides["user"].tree)):  # fmt: skip
    ax.hist(tree["posterior"]["x"].values[..., 0].ravel(), bins=60, density=True,
            histtype="step", label=label)  # fmt: skip
ax.set_xlabel("$x_1$")
ax.set_title("the planted bug: right centre, too wide")
ax.legend(fontsize=8)
plt.show()
