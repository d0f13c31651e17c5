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
# *Reading order 4 of 6.* Previous: [bivariate normal](bivariate_normal.ipynb) · next:
# [Bayes net](bayes_net.ipynb) · [Glossary 术语表](GLOSSARY.md) ·
# [how to read a verdict](reading_a_verdict.ipynb)
#
# The seed: seed 000, **《马尔科夫链蒙特卡洛应用初窥》** ("A first look at
# applications of Markov chain Monte Carlo"), its "一个简单的例子" (a simple
# example): the regression of weight on height sampled by Gibbs.
#
# **The idea.** Bayes' formula gives the posterior (后验)
# $p(\theta \mid x) \propto p(\theta)\,p(x \mid \theta)$. For the regression of
# seed 000 the joint posterior of $(\beta_0, \beta_1, \sigma^2)$ is awkward to
# sample directly, but each *full conditional* (满条件分布; the seed's 条件后验分布)
# is a standard distribution. Gibbs
# sampling draws each parameter in turn from its conditional given the others.
#
# The data are R's `women` (15 heights in inches and weights in pounds). The
# parameters below are the run lengths for both samplers.

# %% tags=["parameters"]
draws = 1000
tune = 1000
chains = 4
seed = 20261122
max_draws = None  # an undecided run grows to 16 x draws (README, "Runs that last until decided")

# %%
# %matplotlib inline
import inspect
import time

import _exercises as ex
import arviz_plots as azp
import arviz_stats as azs
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from mcmc_pairs.comparisons import report
from mcmc_pairs.comparisons.pairs import regression as reference
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import run_pair
from mcmc_pairs.handrolled import regression as reg
from mcmc_pairs.models.regression import build_model
from mcmc_pairs.pairdata.regression import default_data


def show(*functions):
    """Display the source of functions that live in the packages."""
    for f in functions:
        source = inspect.getsource(getattr(f, "py_func", f))
        display(Markdown(f"`{f.__module__}.{f.__name__}`\n```python\n{source}```"))


# %% [markdown]
# ## 1. 模型 · The model (the seed's notation)
#
# $$ weight_i = \beta_0 + \beta_1\, height_i + e_i, \qquad e_i \sim N(0, \sigma^2) $$
#
# $$ \beta_0 \sim N(0, m_0),\quad \beta_1 \sim N(0, m_1),\quad
#    \sigma^2 \sim \Gamma^{-1}(\epsilon, \epsilon),\qquad
#    m_0 = m_1 = 10^6,\ \epsilon = 10^{-3}. $$
#
# $m_0$ and $m_1$ are prior *variances* (BUGS writes the precision $10^{-6}$).
# Below, $x_i$ is the height and $y_i$ the weight.

# %%
data = default_data()
print(pd.DataFrame({"height": data["height"], "weight": data["weight"]}).T)
print({k: data[k] for k in ("m0", "m1", "epsilon")})

# %% [markdown]
# Everything depends on the data only through six numbers, so one Gibbs sweep
# costs the same whatever $N$ is (centred sums keep the arithmetic stable):

# %%
show(reg.sufficient_statistics, reg.sse)

# %% [markdown]
# ## 2. 满条件分布 · The full conditionals, each next to its function
#
# **$\beta_0$.** The seed gives the flat-prior limit
#
# $$ m_0 \to \infty:\quad \beta_0 \mid y, \beta_1, \sigma^2 \sim
#    N\!\left(\frac{1}{N}\sum_i (y_i - x_i\beta_1),\ \frac{\sigma^2}{N}\right). $$
#
# With the finite prior the precision is $N/\sigma^2 + 1/m_0$ and the mean
# $\sum_i (y_i - x_i\beta_1)/\sigma^2$ divided by it; the code uses this exact form,
# which tends to the seed's as $m_0 \to \infty$.

# %%
show(reg.beta0_given_rest)

# %% [markdown]
# **$\beta_1$.** The seed writes
#
# $$ m_1 \to \infty:\quad \beta_1 \mid y, \beta_0, \sigma^2 \sim
#    N\!\left(\frac{\sum_i x_i y_i - \beta_0 \sum_i x_i}{\sum_i x_i^2},\
#    \frac{\sigma^2}{\sum_i x_i^2}\right). $$
#
# (The seed labels this limit "$m_0 \to \infty$"; it is $m_1$, the prior variance
# of $\beta_1$, that goes to infinity here.) Exact form: precision
# $\sum_i x_i^2/\sigma^2 + 1/m_1$.

# %%
show(reg.beta1_given_rest)

# %% [markdown]
# **$\sigma^2$**, through its precision $1/\sigma^2$:
#
# $$ p(1/\sigma^2 \mid y, \beta_0, \beta_1) = \Gamma(a, b),\qquad
#    a = \epsilon + \frac{N}{2},\quad b = \epsilon + \frac12\sum_i e_i^2 . $$
#
# $b$ is a *rate*; NumPy's `gamma` takes a *scale*, $1/b$ (a classic bug).

# %%
show(reg.precision_given_rest, reg.sample_precision_given_rest)

# %% [markdown]
# One sweep draws $\beta_0$, then $\beta_1$, then $\sigma^2$, each from its
# conditional (`sample_*_given_rest`); the sampler runs the same sweeps in the
# compiled kernel below, which the tests check against `gibbs_sweep` bit for bit:

# %%
show(reg.gibbs_sweep, reg.gibbs_kernel)

# %% [markdown]
# ## 3. 为什么慢 · Why this Gibbs sampler crawls, and what helps
#
# Heights are far from zero, so given $\sigma^2$ the intercept and the slope are
# almost perfectly correlated: their conditional correlation is
# $-\sum x_i / \sqrt{N \sum x_i^2}$. A one-at-a-time Gibbs scan on a bivariate
# normal with correlation $\rho$ is an AR(1) chain with coefficient $\rho^2$:

# %%
rho = reg.conditional_correlation(data)
print(f"conditional correlation of beta0 and beta1: {rho:.4f}, rho^2 = {rho**2:.4f}")

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
# The harness's choice:

# %%
print(f"sweeps per kept draw so that rho^(2 thin) <= 0.1: thin = {thin}")
show(reg.default_thin)

# %% [markdown]
# So the seed's sampler needs hundreds of sweeps per independent draw. The
# harness keeps every `thin`-th sweep (**thinning**, 稀疏化（抽稀）, which seed 003
# suggests when independent samples are needed: "每隔一段时间取一次样本"). Is thinning a
# remedy? Compare samplers **per sweep and per second**, not per kept draw: a
# thinned chain of 1000 kept draws has run `thin` times as many sweeps as an
# unthinned one. `arviz_stats` measures the ESS of $\beta_1$:

# %%
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
unthinned = outputs["one at a time, thin=1"]
print(f"theory for one at a time: ESS per sweep = (1 - rho^2) / (1 + rho^2) = "
      f"{(1 - rho**2) / (1 + rho**2):.5f}")  # fmt: skip
# the next two cells' sentences: the blocked row has by far the largest ESS per sweep (per
# second too, on an idle machine: a wall-clock ratio is not asserted, since a test run on busy
# cores can stretch any one row's seconds); per sweep the unthinned chain is at least as
# efficient as the thinned one (asserted with 1000 draws per chain: at the tests' 200 the short
# runs' ESS is too noisy)
others = efficiency["ESS per 1000 sweeps"].drop("blocked, thin=1")
assert efficiency.at["blocked, thin=1", "ESS per 1000 sweeps"] > 10 * others.max()
if draws >= 1000:
    per_sweep = efficiency["ESS per 1000 sweeps"]
    assert (
        per_sweep["one at a time, thin=1, as many sweeps"]
        >= per_sweep[f"one at a time, thin={thin}"]
    )

# %% [markdown]
# **Thinning is not a remedy for slow mixing.** Per sweep (and so, at equal cost
# per sweep, per second) the unthinned chain is at least as efficient as the
# thinned one: throwing draws away never adds information, it only saves memory
# and the time spent storing and summarising draws. The thinned chain's kept
# draws are nearly independent because it ran `thin` times longer, not because
# thinning helped. (Each sampler ran once before the timings, so compilation is
# not counted; the measured ESS of the short unthinned run is noisy.)

# %% [markdown]
# The remedy is **blocking**: draw $(\beta_0, \beta_1)$ jointly from their
# bivariate normal given $\sigma^2$, with precision
# $\Lambda = X^\top X/\sigma^2 + \mathrm{diag}(1/m_0, 1/m_1)$ and mean
# $\Lambda^{-1} X^\top y/\sigma^2$ ($X = [1, x]$). The correlation no longer slows
# the chain: the blocked row of the table above has by far the largest ESS per
# sweep and per second.

# %%
show(reg.beta_given_sigma2, reg.blocked_sweep)

# %% [markdown]
# ## 4. 精确解 · The exact answer
#
# $(\beta_0, \beta_1) \mid \sigma^2$ is Gaussian, so it integrates out in closed
# form and leaves a one-dimensional density of $\log\sigma^2$, integrated on a
# grid. This gives exact means, sds and quantiles, which both samplers are
# checked against:

# %%
exact = reference.exact_marginals(data)
display(
    pd.DataFrame(
        {
            name: {"mean": m.mean, "sd": m.sd}
            | {f"q{round(100 * p)}": q for p, q in m.quantiles.items()}
            for name, m in exact.items()
        }
    ).T
)
assert round(exact["sigma2"].mean, 2) == 2.75  # quoted in Exercise 3

# %% [markdown]
# ## 5. PyMC 模型 · The PyMC twin
#
# The same priors and likelihood, stated directly; NUTS samples it. NUTS moves
# like a frictionless particle whose momentum is drawn with a covariance, the
# *mass matrix*; a diagonal one only rescales each coordinate, so a long narrow
# ridge like $(\beta_0, \beta_1)$'s would still force tiny steps. A **low-rank
# mass matrix** adds a few learned directions (here, the ridge) to the diagonal,
# estimated from the draws during tuning, so NUTS can take long steps along the
# ridge: the same cure as blocking, learned instead of derived.

# %%
show(build_model)
print(build_model(data).str_repr())

# %% [markdown]
# ## 6. 比较 · The comparison
#
# Both hand-written samplers (one at a time with thinning, and blocked) against
# NUTS and against the exact answer. Compared quantities: $\beta_0$, $\beta_1$,
# $\sigma^2$, their centred pairwise products (whose means are the posterior
# covariances) and the log posterior density of each draw; statistics: mean, sd,
# 5/50/95 % quantiles; $z = (a - b)/\sqrt{\mathrm{MCSE}_a^2 + \mathrm{MCSE}_b^2}$
# (MCSE: Monte Carlo standard error, 蒙特卡洛标准误) with Holm's correction.

# %%
result = run_pair(
    get_pair("regression"),
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    progress=print,
)
print("verdict:", result.verdict, result.verdicts)
checks = result.checks
z_table = checks[checks["kind"].isin(["agreement", "exact"])].pivot_table(
    index=["comparison", "quantity"], columns="statistic", values="value"
)
display(z_table.round(2))
failed = checks[~checks["passed"]]
print(f"{len(failed)} of {len(checks)} checks failed")
display(failed)

# %% [markdown]
# How to read the verdict: [reading a verdict](reading_a_verdict.ipynb) (at the
# tests' tiny settings "not converged" is expected).
#
# ## 7. 动手破坏 · Break it and watch: a rate passed as a scale
#
# Plant the catalogue's `blocked_rate_as_scale`: the blocked sampler with the
# Gamma draw of the precision $1/\sigma^2$ given its *rate* $b$ where NumPy's
# `gamma` wants the *scale* $1/b$ (section 2's warning). The PyMC draws of the
# run above are reused (`pymc_from`):

# %%
pair = get_pair("regression")
print(pair.wrong)
broken = run_pair(
    pair,
    sampler=pair.wrong["blocked_rate_as_scale"],
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    pymc_from=result,
    progress=print,
)
print("verdict for the planted bug:", broken.verdict)
judged = broken.checks[(broken.checks["side"] == "user") & (broken.checks["kind"] == "agreement")]
display(judged.pivot_table(index="quantity", columns="statistic", values="value").round(1))
print("posterior mean of sigma2: PyMC", round(result.summaries["pymc"].at["sigma2", "mean"], 3),
      " planted bug", round(broken.summaries["user"].at["sigma2", "mean"], 5))  # fmt: skip


def passed(quantity, statistics):
    """The `passed` column of the planted bug's agreement checks of one quantity."""
    rows = broken.checks.query("side == 'user' and kind == 'agreement' and quantity == @quantity")
    rows = rows[rows["statistic"].isin(statistics)]
    assert len(rows) == len(statistics), (quantity, statistics)
    return rows["passed"].astype(bool)


# the next cell's sentences: sigma2 about b^2 times too small (b = epsilon + SSE / 2); every
# z-check of sigma2 and of the log density fails, by far (|z| > 10 with 1000 draws per chain);
# the means of beta0 and beta1 pass, their sds and tail quantiles fail
stats_ = reg.sufficient_statistics(data["height"], data["weight"])
b = data["epsilon"] + reg.sse(exact["beta0"].mean, exact["beta1"].mean, stats_) / 2
ratio = (
    result.summaries["pymc"].at["sigma2", "mean"] / broken.summaries["user"].at["sigma2", "mean"]
)
assert b**2 / 3 < ratio < 3 * b**2, (b**2, ratio)
every = ["z(mean)", "z(sd)", "z(q5)", "z(q50)", "z(q95)"]
for quantity in ("sigma2", "logp"):
    assert not passed(quantity, every).any(), quantity
if draws >= 1000:
    assert (judged[judged["quantity"].isin(["sigma2", "logp"])]["value"].abs() > 10).all()
for quantity in ("beta0", "beta1"):
    assert passed(quantity, ["z(mean)"]).all(), quantity
    assert not passed(quantity, ["z(sd)", "z(q5)", "z(q95)"]).any(), quantity

# %% [markdown]
# **Which check caught it, and why.** The rate $b = \epsilon + \mathrm{SSE}/2$ is
# large here, so Gamma(shape, scale $= b$) draws precisions about $b^2$ times too
# large and $\sigma^2$ about that much too small: every z-check of $\sigma^2$ and
# of the log density fails by orders of magnitude. The slopes' *means* barely
# move (given $\sigma^2$ the mean of $(\beta_0, \beta_1)$ does not depend on it),
# but their sds shrink with $\sigma$, so their sd and tail-quantile checks fail
# too. A check of the means of $\beta_0, \beta_1$ alone, the numbers a user
# would look at first, could not have seen it.
#
# ## 8. 诊断 · What to look at in the diagnostics
#
# Trace and rank plots of the thinned Gibbs chains. The traces should overlap. The
# rank plot ranks the draws of all chains together, scales the ranks to $[0, 1]$
# and draws, for each chain (one colour each), the difference between the ECDF of
# its ranks and the uniform CDF (a Δ-ECDF curve): when the chains sample the same
# distribution every curve wanders close to 0. Each panel prints the p-value of a
# test that the ranks of all the chains are uniform, against α = 0.01; below α
# the points that pull it down are marked. The test assumes independent draws,
# so each chain is first thinned to about one draw per two effective draws
# (`report.near_independent`, as the report pages draw them). See [The
# diagnostics as drawn](reading_a_verdict.ipynb#the-diagnostics-as-drawn).
#
# Then the ESS / $\hat R$ table of every side and the seconds each spent
# sampling. Compare the blocked Gibbs sampler with NUTS **per second** and **per
# draw**: the sentences after the table are written from this run's numbers.

# %%
tree = result.sides["handrolled:gibbs"].tree
azp.plot_trace_dist(tree)
plt.show()
azp.plot_rank(report.near_independent(tree))
plt.show()

# %%
table = pd.concat(
    {
        label: summary[["mean", "sd", "mcse_mean", "ess_bulk", "ess_tail", "r_hat"]]
        for label, summary in result.summaries.items()
    }
)
display(table.loc[(slice(None), list(reg.VARIABLES)), :].round(4))
seconds = {label: side.timings["sampling_s"] for label, side in result.sides.items()}
print("sampling seconds:", {k: round(v, 3) for k, v in seconds.items()})

# %%
names = {"beta0": "β0", "beta1": "β1", "sigma2": "σ²"}
ess = {
    label: result.summaries[label].loc[list(names), "ess_bulk"]
    for label in ("handrolled:blocked", "pymc")
}
per_second = (
    ess["handrolled:blocked"] / seconds["handrolled:blocked"] / (ess["pymc"] / seconds["pymc"])
)
lower = [k for k in names if ess["handrolled:blocked"][k] < ess["pymc"][k]]
per_draw = "; ".join(
    f"{names[k]} {ess['handrolled:blocked'][k]:,.0f} against {ess['pymc'][k]:,.0f}"
    f" ({'lower' if k in lower else 'higher'})"
    for k in names
)
verdict = (
    f"So the blocked sampler beats NUTS per second, but not per draw for "
    f"{' and '.join(names[k] for k in lower)}: blocking removes the correlation of "
    "β0 and β1, while σ² is still drawn given them, one block after the other."
    if lower
    else "In this run it beats NUTS per draw too, for every parameter."
)
# "per second of sampling the blocked sampler beats NUTS": for every parameter
assert (per_second > 1).all(), per_second
display(Markdown(
    f"**Per second** of sampling, the blocked sampler's bulk ESS is "
    f"{per_second.min():,.0f} to {per_second.max():,.0f} times NUTS's (no gradients, no "
    f"tuning of a step size, and (β0, β1) drawn exactly). **Per draw**, its "
    f"bulk ESS against NUTS's: {per_draw}. {verdict}"
))  # fmt: skip

# %% [markdown]
# The unthinned one-at-a-time chain shows what bad mixing looks like: the trace
# wanders slowly along the ridge and the chains do not overlap (its $\hat R$
# for $\beta_1$, printed below, is well above the gate of 1.01).

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3), sharey=True)
axes[0].plot(unthinned["beta1"].T, lw=0.6)
axes[0].set_title("one at a time, thin = 1")
axes[1].plot(blocked["beta1"].T, lw=0.6)
axes[1].set_title("blocked")
axes[0].set_ylabel(r"$\beta_1$")
for ax in axes:
    ax.set_xlabel("draw")
plt.show()
unthinned_rhat = float(azs.rhat(unthinned["beta1"]))
print(f"R-hat of beta1: one at a time, thin = 1: {unthinned_rhat:.2f}; "
      f"blocked: {float(azs.rhat(blocked['beta1'])):.3f}")  # fmt: skip
assert unthinned_rhat > 1.05  # "the chains do not overlap": R-hat well above 1.01

# %% [markdown]
# ## 9. 练习 · Exercises
#
# Exercise 1 (predict the thinning) is in section 3, before the table that
# shows its answer.
#
# **Exercise 2.** Keeping every 10th sweep of a slowly mixing chain instead of
# every sweep, with the same number of sweeps, makes the ESS per sweep
# (a) larger, (b) at most as large?

# %%
answer = None  # "a" or "b"

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_choice(answer, "b", {
    "a": "the kept draws are less correlated, but there are ten times fewer of them; "
         "compare the rows of section 3's table per sweep.",
    "b": "right: the thinned draws are a subset of the same chain, they cannot carry more "
         "information (Geyer 1992; MacEachern & Berliner 1994).",
}, wrong="a")  # fmt: skip

# %% [markdown]
# **Exercise 3 (find the planted bug).** A regression sampler's $\sigma^2$ draws
# have a posterior mean of 0.01 where the exact answer is 2.75 (section 4); its $\beta$ means
# agree with NUTS. Which slip? (a) `rng.gamma(shape, rate)` where
# `rng.gamma(shape, 1 / rate)` belongs; (b) the sum of squares not halved in the
# rate; (c) $\beta_1$ drawn with the variance as its sd.

# %%
answer = None  # "a", "b" or "c"

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_choice(answer, "a", {
    "a": "a scale of b instead of 1/b multiplies the precision by b^2 (hundreds here): "
         "sigma2 collapses, as in section 7.",
    "b": "a rate of SSE instead of SSE/2 roughly doubles sigma2; it does not shrink it a "
         "thousandfold (the catalogue's blocked_sse_not_halved).",
    "c": "that widens or narrows beta1 by its own sd; sigma2 would change only a little "
         "(the catalogue's gibbs_variance_as_sd).",
}, wrong="b")  # fmt: skip
