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
# # Weight on height: Gibbs sampling of a Bayesian regression (seed 000)
#
# **The idea.** Bayes' formula gives the posterior
# $p(\theta \mid x) \propto p(\theta)\,p(x \mid \theta)$. For the regression of
# seed 000 the joint posterior of $(\beta_0, \beta_1, \sigma^2)$ is awkward to
# sample directly, but each *full conditional* is a standard distribution. Gibbs
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

import arviz_plots as azp
import arviz_stats as azs
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from comparisons.pairs import regression as reference
from comparisons.registry import get_pair
from comparisons.run import run_pair
from handrolled import regression as reg
from models.regression import build_model
from pairdata.regression import default_data


def show(*functions):
    """Display the source of functions that live in the packages."""
    for f in functions:
        source = inspect.getsource(getattr(f, "py_func", f))
        display(Markdown(f"`{f.__module__}.{f.__name__}`\n```python\n{source}```"))


# %% [markdown]
# ## 1. The model (the seed's notation)
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
# ## 2. The full conditionals, each next to its function
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
# ## 3. Why this Gibbs sampler crawls, and two remedies
#
# Heights are far from zero, so given $\sigma^2$ the intercept and the slope are
# almost perfectly correlated: their conditional correlation is
# $-\sum x_i / \sqrt{N \sum x_i^2}$. A one-at-a-time Gibbs scan on a bivariate
# normal with correlation $\rho$ is an AR(1) chain with coefficient $\rho^2$:

# %%
rho = reg.conditional_correlation(data)
thin = reg.default_thin(data)
print(f"conditional correlation of beta0 and beta1: {rho:.4f}, rho^2 = {rho**2:.4f}")
print(f"sweeps per kept draw so that rho^(2 thin) <= 0.1: thin = {thin}")
show(reg.default_thin)

# %% [markdown]
# Without thinning, the seed's sampler needs hundreds of sweeps per independent
# draw; `arviz_stats` measures it:

# %%
unthinned = reg.sample(data, draws=draws, tune=tune, chains=chains, random_seed=seed, thin=1)
thinned = reg.sample(data, draws=draws, tune=tune, chains=chains, random_seed=seed)
blocked = reg.sample_blocked(data, draws=draws, tune=tune, chains=chains, random_seed=seed)
rows = {}
for label, out in (("one at a time, thin=1", unthinned), (f"one at a time, thin={thin}", thinned),
                   ("blocked", blocked)):  # fmt: skip
    rows[label] = {
        f"ess_bulk {name}": float(azs.ess(out[name], method="bulk")) for name in reg.VARIABLES
    }
display(pd.DataFrame(rows).T.round(0))

# %% [markdown]
# The second remedy is **blocking**: draw $(\beta_0, \beta_1)$ jointly from their
# bivariate normal given $\sigma^2$, with precision
# $\Lambda = X^\top X/\sigma^2 + \mathrm{diag}(1/m_0, 1/m_1)$ and mean
# $\Lambda^{-1} X^\top y/\sigma^2$ ($X = [1, x]$). The correlation no longer slows
# the chain:

# %%
show(reg.beta_given_sigma2, reg.blocked_sweep)

# %% [markdown]
# ## 4. The exact answer
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

# %% [markdown]
# ## 5. The PyMC twin
#
# The same priors and likelihood, stated directly; NUTS samples it (with a
# low-rank mass matrix, which learns the correlated direction):

# %%
show(build_model)
print(build_model(data).str_repr())

# %% [markdown]
# ## 6. The comparison
#
# Both hand-written samplers (one at a time with thinning, and blocked) against
# NUTS and against the exact answer. Compared quantities: $\beta_0$, $\beta_1$,
# $\sigma^2$, their centred pairwise products (whose means are the posterior
# covariances) and the log posterior density of each draw; statistics: mean, sd,
# 5/50/95 % quantiles; $z = (a - b)/\sqrt{\mathrm{MCSE}_a^2 + \mathrm{MCSE}_b^2}$
# with Holm's correction.

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
# *agree* means that at 95 % confidence every compared statistic differs
# between the sides by less than 0.2 posterior sd (0.4 for the 5 % and 95 %
# quantiles), no test detected a difference and every side converged;
# *disagree* that some difference is too large for Monte Carlo error;
# *inconclusive* that nothing was detected but that resolution was not reached
# within the budget (an undecided run doubles its draws up to 16 times first);
# *not converged* that a side failed its $\hat R$ or ESS gates: run longer
# (expected at the tiny settings of the test run).
#
# ## 7. What to look at in the diagnostics
#
# Trace and rank plots of the thinned Gibbs chains (they should overlap and the
# rank histograms be flat), and the ESS / $\hat R$ table of every side. Compare
# the ESS of NUTS with that of the blocked sampler: a well-designed Gibbs sampler
# can beat NUTS on a model this small.

# %%
tree = result.sides["handrolled:gibbs"].tree
azp.plot_trace_dist(tree)
plt.show()
azp.plot_rank(tree)
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

# %% [markdown]
# The unthinned one-at-a-time chain shows what bad mixing looks like: the trace
# wanders slowly along the ridge and the chains do not overlap.

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
