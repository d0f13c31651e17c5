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
# the Monte Carlo standard error (MCSE, 蒙特卡洛标准误; seed 001 writes "MC-误差"), the z-score, the
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
# ## 2. 蒙特卡洛标准误与有效样本量 · MCSE and ESS
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
print(  # how many z-checks there are is Exercise 2's answer: not printed here
    f"the largest |z| allowed is {ranked['threshold'].max():.2f}, "
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
# ## 7. 四种结论 · The four verdicts
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
z_rows = broken.checks[broken.checks["kind"].isin(["agreement", "exact"])]
display(z_rows[z_rows["quantity"].isin(["x[0]", "x[1]"])].pivot_table(
    index=["comparison", "quantity"], columns="statistic", values="value").round(2))  # fmt: skip
print("failed z-checks of a mean:")
display(z_rows[(z_rows["statistic"] == "z(mean)") & ~z_rows["passed"]]
        [["comparison", "quantity", "value", "threshold"]].round(2))  # fmt: skip

# %% [markdown]
# **Which check caught it, and why the others could not.** The conditional
# *means* are right, so the chain is centred where it should be: the z-checks of
# the means of the coordinates $x_1$ and $x_2$ pass, against PyMC and against
# the exact answer. Every conditional draw is too wide, so the stationary
# distribution is too wide: the **sd** checks of both coordinates fail, against
# PyMC and against the exact answer, and so do checks of what the width moves
# (the first table counts the failed checks by statistic). The 5 % quantiles of
# $x_1$ and $x_2$, and the 95 % quantile of $x_1$, fail against the exact answer
# (against PyMC they stay below their thresholds). The log density of each draw
# is lower on average (too many draws far from the mode): its **mean** fails,
# with its sd, 5 % quantile and median. (This model has no data, so its log
# density is its log prior, and the checks of `log_prior` and `logp` against
# PyMC are the same checks twice.) The mean of the centred product, the
# covariance, which the wider spread inflates too, fails against the exact
# answer but not against PyMC. So the failed checks of a mean (the last table)
# are two against PyMC and two against the exact answer, none of them a
# coordinate's. The energy check of the joint distribution fails as well. The
# convergence gates pass: this chain mixes well, it just mixes around the wrong
# distribution. That is why the harness compares spreads and tails, and not only
# means.

# %%
# the paragraph above, against the run's checks (at full settings: at the test suite's
# 200 draws a chain the same bug moves each statistic by fewer Monte Carlo errors)
failed = {  # (kind, statistic): the quantities whose z-check failed
    key: set(rows.loc[~rows["passed"], "quantity"])
    for key, rows in z_rows.groupby(["kind", "statistic"])
}
coordinates = {"x[0]", "x[1]"}
assert not failed["agreement", "z(mean)"] & coordinates  # the coordinates' means pass
assert not failed["exact", "z(mean)"] & coordinates
gates = broken.checks[(broken.checks["kind"] == "diagnostic") & (broken.checks["side"] == "user")]
if draws >= 1000:
    assert broken.verdict == "disagree"
    assert gates["passed"].all()  # the gates pass
    assert coordinates <= failed["agreement", "z(sd)"] & failed["exact", "z(sd)"]
    assert coordinates <= failed["exact", "z(q5)"]
    assert not coordinates & failed["agreement", "z(q5)"]
    assert failed["exact", "z(q95)"] == {"x[0]"} and not failed.get(("agreement", "z(q95)"))
    for statistic in ("z(mean)", "z(sd)", "z(q5)", "z(q50)"):  # the log density's
        assert {"logp", "log_prior"} <= failed["agreement", statistic]
        assert "logp" in failed["exact", statistic]
    assert failed["agreement", "z(mean)"] == {"logp", "log_prior"}  # two against PyMC
    assert failed["exact", "z(mean)"] == {"x[0]*x[1]", "logp"}  # two against the exact answer
    energy = broken.checks[broken.checks["kind"] == "multivariate"]
    assert not energy["passed"].any()

# %% [markdown]
# <a id="the-diagnostics-as-drawn"></a>
#
# ## The diagnostics as drawn · 图中的诊断
#
# A report page (`compare`, `report`) shows, under the verdict and its checks,
# figures of each side: traces, running means, densities, **rank plots** and
# autocorrelations. They are there to be looked at: **the verdict uses none of
# them**. The other notebooks draw the same rank plots (`arviz_plots.plot_rank`),
# and two of their marks need reading.
#
# **The curve.** Pool the draws of all the chains of one side, rank them, and
# divide by their number: the *fractional ranks* lie in (0, 1). If every chain
# samples the same distribution, each chain's fractional ranks are uniform on
# (0, 1), and their ECDF (经验分布函数) $\hat F_j(u)$ is close to the uniform's,
# $F(u) = u$. Each line is one chain's difference $\hat F_j(u) - u$ against $u$:
# it starts and ends at 0 and wanders near 0; a chain whose draws sit high (too
# many high ranks) runs below zero, one that sits low runs above. The y-axis is
# hidden; the panel spans ±1.3 times the Dvoretzky–Kiefer–Wolfowitz bound (or the
# largest difference, when larger), so the panel's edge is not a band.
#
# **The p-value and the black dots.** The text on each panel,
# `p=0.00(α=0.01)`, is arviz-stats' multi-chain uniformity test: at each $u$, the
# number of chain $j$'s draws among the lowest ranks is compared with the
# hypergeometric distribution it has when the draws are *exchangeable* (in random
# order across chains), and the pointwise p-values are combined into one per
# panel (a Cauchy combination). α = 0.01 is 1 − arviz's `stats.envelope_prob`.
# When p < α, black dots mark the points that push p down most. This version of
# arviz-plots draws **no band**: the simultaneous band (Säilynoja et al. 2022,
# the envelope that the whole curve stays inside with probability 1 − α when the
# ranks are uniform) is its older `method="envelope"`; points outside that band
# meant what the black dots mean now.
#
# **Why p = 0.00 can sit beside `agree`.** The verdict (section 7; "What agree
# means" in `docs/contracts.md`) uses the z-checks of the mean, sd and 5, 50 and
# 95 % quantiles of every quantity, each with its 蒙特卡洛标准误 (MCSE) from
# arviz-stats, which counts the autocorrelation of the draws through the ESS;
# Holm's correction at 1 %; the resolution δ that `agree` certifies (section 6);
# the gates ($\hat R$, ESS); the energy, support and honesty checks. It does not
# use the rank plot: that is shown, not judged. And the rank plot's test asks
# other questions, which the verdict does not need answered:
#
# * It compares a side's chains **with each other**, never with PyMC or the exact
#   answer. The planted bug of section 8, whose chains all sample the same wrong
#   distribution, passes it (below), while its verdict is `disagree`: fed the
#   same random numbers as the correct Gibbs sampler, its chains are the correct
#   chains stretched about their centre, so they have the same ranks and the same
#   rank plot, to the last digit of its p.
# * Its exchangeable draws are **independent draws**. Autocorrelated chains
#   wander further than that, so correct chains of a slowly mixing sampler get a
#   small p (below); the z-checks count the autocorrelation through the ESS. The
#   report pages and the other notebooks thin each chain (稀疏化（抽稀）) to about
#   one draw per two effective draws before drawing (`report.near_independent`),
#   which removes it: the thinned draws are near-independent, as the test
#   assumes. [mh_targets](mh_targets.ipynb) draws a random walk's rank plot both
#   ways.
# * With many draws it sees **chain-level differences** far below δ: one chain
#   of four off by 0.1 sd, in 5 000 independent draws a chain, is flagged
#   (below), while $\hat R$ stays below 1.01 and the statistics of the pooled
#   draws, which are what the verdict certifies, move by about 0.025 sd, an
#   eighth of δ.
# * The draws of a **discrete quantity** tie, and tied draws share a rank: each
#   chain's ECDF climbs in steps that the test, made for distinct values, reads
#   as a difference, so correct chains of a 0/1 quantity get p ≈ 0 (below). The
#   pages break the ties at random first: a uniform number in [0, 1) added to
#   every draw keeps the order of 0 and 1 and makes the draws distinct, and the
#   correct chains' p is fair again (below). The verdict compares discrete
#   quantities by their mean, sd and $P(X \le k)$.
#
# **Why a second reference can stay `inconclusive`.** A pair may also run PyMC
# with another step method (`mh_normal` and `mh_beta` run `pymc:metropolis`).
# Such a *second reference* is compared with NUTS and with the exact answer and
# gets a verdict, but **it decides nothing**: the pair's verdict is its worst
# side *under test*'s. Nor does it grow: a look that doubles the draws doubles
# them for the sides under test (and for NUTS when NUTS's error is what limits
# them), never for a second reference. So PyMC's Metropolis keeps its first
# look's draws, and their ESS can be too small for its resolution to reach the
# tolerance: `inconclusive`, as in [mh_targets](mh_targets.ipynb) section 3. It
# says "this reference would need more draws", nothing about the sampler under test.
#
# The rank plot of the planted bug, drawn by the report's own function (each
# chain thinned by its ESS), and the p-values of the cases above:

# %%
from types import SimpleNamespace

import xarray as xr

from mcmc_pairs.comparisons import report


def rank_p(draws, thin=None):
    """The p on a rank plot's panel (arviz-stats' multi-chain test) for draws (chain, draw).

    ``thin``: ``"500"``, each chain to 500 draws (the report pages before issue 40);
    ``"ess"``, ``report.near_independent`` (the pages now: one draw per two effective
    draws, a discrete quantity's ties broken at random).
    """
    dataset = xr.Dataset({"q": (("chain", "draw"), np.asarray(draws, dtype=float))})
    if thin == "500":
        dataset = dataset.isel(draw=slice(None, None, -(-dataset.sizes["draw"] // 500)))
    elif thin == "ess":
        dataset = report.near_independent(dataset)["posterior"].to_dataset()
    ranks = dataset.azstats.compute_ranks(dim=("chain", "draw"), relative=True)
    return float(ranks.azstats.mchain_uniformity_test(dim=("chain", "draw"))[0]["q"])


bug = broken.sides["user"].quantities.sel(quantity=["x[0]", "x[1]"])
figure = report.rank_figure(SimpleNamespace(quantities=bug)).viz["figure"].item()
figure.set_size_inches(7, 2.2)
display(figure)
plt.close(figure)
# %matplotlib inline

right = result.sides["handrolled:gibbs"].quantities.sel(quantity=["x[0]", "x[1]"])
p_bug, p_right = (
    {q: rank_p(sides.sel(quantity=q).values, "ess") for q in ("x[0]", "x[1]")}
    for sides in (bug, right)
)
print(f"planted bug (verdict {broken.verdict}), rank-plot p: "
      + ", ".join(f"{q} {p:.4f}" for q, p in p_bug.items()))  # fmt: skip
print(f"correct Gibbs (verdict {result.verdict}), rank-plot p: "
      + ", ".join(f"{q} {p:.4f}" for q, p in p_right.items()))  # fmt: skip

rng = np.random.default_rng(seed)
n = 5_000
rho = 0.8  # four AR(1) chains, all with the stationary distribution N(0, 1)
ar = np.empty((4, n))
ar[:, 0] = rng.standard_normal(4)
innovations = rng.standard_normal((4, n)) * np.sqrt(1 - rho**2)
for t in range(1, n):
    ar[:, t] = rho * ar[:, t - 1] + innovations[:, t]
ess_ar = float(azs.ess(ar, method="mean"))
z_ar = ar.mean() / (ar.std(ddof=1) / np.sqrt(ess_ar))
shifted = rng.standard_normal((4, n))
shifted[0] += 0.1
coin = (rng.random((4, 1000)) < 0.3).astype(float)
cases = {
    f"AR(1) chains, rho {rho}, every draw": rank_p(ar),
    "the same, thinned to 500 a chain": rank_p(ar, "500"),
    "the same, one per two effective draws": rank_p(ar, "ess"),
    "independent draws, one chain of four off by 0.1 sd": rank_p(shifted),
    "independent 0/1 draws, P(1) = 0.3": rank_p(coin),
    "the same, ties broken at random": rank_p(coin, "ess"),
}
display(pd.Series(cases, name="rank-plot p").round(4).to_frame())
print(f"AR(1): ESS {ess_ar:.0f} of {ar.size} draws, z of its mean against the exact 0: {z_ar:.2f}")
print(f"one chain off by 0.1 sd: R-hat {float(azs.rhat(shifted)):.4f}")
# the sentences above: the bug's chains pass the rank plot while the verdict says disagree;
# autocorrelated, shifted-by-0.1-sd and tied 0/1 chains get a small p, and the thinned
# AR(1) chains and the untied 0/1 chains do not; the AR(1) mean passes its z-check; the
# shifted chains pass R-hat < 1.01
assert min(p_bug.values()) > 0.01
assert p_bug == p_right  # the same ranks: the bug's chains are the right ones, stretched
for q in ("x[0]", "x[1]"):
    ranks = [stats.rankdata(sides.sel(quantity=q)) for sides in (bug, right)]
    assert np.array_equal(*ranks)
if draws >= 1000:
    assert broken.verdict == "disagree"
alpha_rank = 0.01
assert cases[f"AR(1) chains, rho {rho}, every draw"] < alpha_rank
assert cases["the same, thinned to 500 a chain"] > alpha_rank
assert cases["the same, one per two effective draws"] > alpha_rank
assert cases["independent draws, one chain of four off by 0.1 sd"] < alpha_rank
assert cases["independent 0/1 draws, P(1) = 0.3"] < alpha_rank
assert cases["the same, ties broken at random"] > alpha_rank
assert abs(z_ar) < 2.75  # the smallest Holm threshold above
assert float(azs.rhat(shifted)) < 1.01

# %% [markdown]
# ## 9. 练习 · Exercises
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
# **Exercise 2.** With the run above, how many z-checks must share the 1 %
# false-alarm rate, i.e. what is $m$ in Holm's first level $\alpha / m$?
# (Count them from the checks table: the `agreement` and `exact` rows.)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_integer(answer, m,
                 hint="count the z-checks only, the rows of kind 'agreement' and 'exact'; not "
                      "the gates ('diagnostic'), the energy, support or honesty rows: "
                      "len(checks[checks['kind'].isin(['agreement', 'exact'])]).",
                 why=f"{m} z-checks ({(checks['kind'] == 'agreement').sum()} against PyMC, "
                     f"{(checks['kind'] == 'exact').sum()} against the exact answer), so Holm's "
                     f"first level is 1 % / {m} = {agreement.ALPHA / m:.2g}.",
                 wrong=len(checks))  # fmt: skip

# %% [markdown]
# **Exercise 3 (find the planted bug).** A sampler's verdict is `disagree`; the
# checks of its coordinates' means pass, its sd checks fail with *positive* z
# (the sampler's sd is larger than PyMC's), and its gates pass. Which bug is
# most likely?
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
}, wrong="a")  # fmt: skip

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
