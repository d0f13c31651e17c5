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
# # Metropolis–Hastings on Normal(10, 5) and Beta(2.31, 0.627) (seeds 003 and 001)
#
# **The idea.** We want a Markov chain whose stationary distribution is the target
# $\pi$. Take any proposal chain $Q$; it will not satisfy detailed balance,
# $\pi_i Q_{j,i} \ne \pi_j Q_{i,j}$. Seed 003 multiplies both sides by acceptance
# probabilities $\alpha$ to force equality,
# $\pi_i Q_{j,i}\alpha_{j,i} = \pi_j Q_{i,j}\alpha_{i,j}$, then scales both
# $\alpha$ up until the larger is 1:
#
# $$ \alpha_{j,i} = \min\left\{\frac{\pi_j Q_{i,j}}{\pi_i Q_{j,i}},\ 1\right\}. $$
#
# In seed 001's notation, from the current $\theta^{(t)}$ propose
# $\theta' \sim q(\cdot \mid \theta^{(t)})$ and accept with
#
# $$ a(\theta^{(t)}, \theta') = \min\left(1,\
#    \frac{\pi(\theta' \mid x)\, q(\theta^{(t)} \mid \theta')}
#         {\pi(\theta^{(t)} \mid x)\, q(\theta' \mid \theta^{(t)})}\right), $$
#
# otherwise stay. Two proposals (seed 001 §6.2 and §6.3): the **random walk**
# $\theta' = \theta^{(t)} + \sigma Z$ (symmetric, so $q$ cancels) and the
# **independence sampler** $\theta' \sim q(\cdot)$ (the correction
# $q(\theta^{(t)})/q(\theta')$ stays).
#
# `draws = None` runs each pair with its own default length (2000 draws per
# chain for the normal, 10 000 for the Beta, whose random walk mixes slowly).

# %% tags=["parameters"]
draws = None
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
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from scipy import stats

import pairdata.mh_beta
import pairdata.mh_normal
from comparisons.registry import get_pair
from comparisons.run import resolve_settings, run_pair
from handrolled import mh, mh_beta, mh_normal, wrong_samplers
from models import mh_beta as mh_beta_model
from models import mh_normal as mh_normal_model


def show(*functions):
    """Display the source of functions that live in the packages."""
    for f in functions:
        source = inspect.getsource(getattr(f, "py_func", f))
        display(Markdown(f"`{f.__module__}.{f.__name__}`\n```python\n{source}```"))


def checks_summary(result):
    """Verdict, z-scores per quantity and statistic, and the failed checks of a run."""
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
# ## 1. The acceptance rule, next to its function
#
# Computed on the log scale, so that tiny or huge densities do no harm and a
# proposal outside the support ($\log\pi = -\infty$) is never accepted:
# $\log r = \log\pi(\theta') - \log\pi(\theta) + \log q(\theta \mid \theta')
# - \log q(\theta' \mid \theta)$ and $a = \min(1, e^{\log r})$.
#
# A target is described once, as its log density (compiled with numba), its
# parameters and its support; the teaching steps below and the compiled chains
# the samplers run use the same description, the same log density and the same
# acceptance function (the tests check that they give the same chains, bit for
# bit):

# %%
show(mh.Target, mh.acceptance_probability, mh.step)

# %% [markdown]
# **Random walk** (seed 001 §6.2): $\theta' = \theta^{(t)} + \sigma Z$,
# $Z \sim N(0, 1)$; $q(X \mid Y) = q(|X - Y|)$ is symmetric, so the correction is 1.

# %%
show(mh.random_walk_step)

# %% [markdown]
# **Independence sampler** (seed 001 §6.3): $q(\cdot \mid \theta^{(t)}) = q(\cdot)$ and
#
# $$ a(\theta^{(t)}, \theta') = \min\left(1,\ \frac{\pi(\theta')\, q(\theta^{(t)})}
#    {\pi(\theta^{(t)})\, q(\theta')}\right); $$
#
# its proposal's tails must be heavier than the target's (seed 001 §6.3 (1)).

# %%
show(mh.independence_step)

# %% [markdown]
# **Tuning the random walk.** Seed 001 §6.2 (2) advises an acceptance rate in
# $[0.15, 0.5]$: too small a step accepts almost everything and crawls, too big a
# step rejects almost everything. During `tune` only, the log scale moves by
# $(\text{acceptance} - 0.44)/t^{0.6}$; then it is frozen, so the kept draws
# come from one fixed, reversible kernel.

# %%
show(mh.update_log_scale)

# %% [markdown]
# ## 2. Target 1: Normal(10, 5), as in seed 003's first program
#
# $$ \pi(x) = \frac{1}{\sqrt{2\pi}\,\sigma}\exp\left(-\frac{(x - \mu)^2}{2\sigma^2}\right),
#    \quad \mu = 10,\ \sigma = 5, \quad \text{proposal } N(x, 1). $$

# %%
normal_data = pairdata.mh_normal.default_data()
print(normal_data)
show(mh_normal.normal_logdensity, mh_normal.normal_density)
show(mh_normal.target, mh_normal.proposal_density)

# %% [markdown]
# The seed's step $\sigma = 1$ is a fifth of the target's sd. Run it as the seed
# does (`adapt=False`) and with the tuned scale, and compare the acceptance rate
# and the effective sample size (ESS, from `arviz_stats`):

# %%
normal_settings = resolve_settings(
    get_pair("mh_normal"), draws=draws, tune=tune, chains=chains, seed=seed
)
n_draws = normal_settings["draws"]
rows = {}
for label, adapt in (("seed's fixed step 1", False), ("tuned step", True)):
    tree = mh_normal.sample(
        normal_data, draws=n_draws, tune=tune, chains=chains, random_seed=seed, adapt=adapt
    )
    rows[label] = {
        "step": float(tree["sample_stats"]["proposal_scale"].mean()),
        "acceptance": float(tree["sample_stats"]["acceptance_rate"].mean()),
        "ess_bulk": float(azs.ess(tree["posterior"]["x"].values, method="bulk")),
        "draws": n_draws * chains,
    }
display(pd.DataFrame(rows).T.round(3))

# %% [markdown]
# The PyMC twin is one line; NUTS samples it, and so does PyMC's own Metropolis
# (shown as a second reference):

# %%
show(mh_normal_model.build_model)

# %%
normal_result = run_pair(
    get_pair("mh_normal"),
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    progress=print,
)
checks_summary(normal_result)

# %% [markdown]
# ## 3. Target 2: Beta(2.31, 0.627)
#
# $$ f(x; a, b) = \frac{\Gamma(a + b)}{\Gamma(a)\Gamma(b)}\, x^{a-1}(1 - x)^{b-1},
#    \qquad 0 < x < 1. $$
#
# (The seed writes $x_{a-1}$ for $x^{a-1}$.)
#
# **An error in the seed.** Its text says the target is a Beta with
# $a = 2.37$, $b = 0.627$, but its code uses `a, b = 2.31, 0.627` and
# `beta(2.31, 0.627)`. The program, and its figure, are Beta(2.31, 0.627); that is
# the target here. The two are close but not the same distribution:

# %%
beta_data = pairdata.mh_beta.default_data()
print(beta_data)
for a in (2.31, 2.37):
    target = stats.beta(a, beta_data["b"])
    print(
        f"Beta({a}, 0.627): mean {target.mean():.4f}, sd {target.std():.4f}, "
        f"median {target.median():.4f}"
    )

# %% [markdown]
# The seed's program also starts its chain at $x = 0$, where this density is 0
# (so its first ratio divides by zero), and evaluates $\pi$ at proposals outside
# $(0, 1)$. Here the target declares its support, the open interval $(0, 1)$,
# outside which its log density is $-\infty$: such proposals are always rejected,
# and chains start inside $(0, 1)$:

# %%
show(mh_beta.beta_logdensity, mh_beta.beta_density, mh_beta.draw_start)

# %% [markdown]
# With $b < 1$ the density is infinite at 1. A random walk that gets very close
# to 1 sticks there, so it needs long chains (the pair asks for 10 000 draws per
# chain). The independence sampler proposes from
# $q = \mathrm{Beta}(\min(a, 1), \min(b, 1))$, whose tails are at least as heavy
# as the target's at both ends:

# %%
show(mh_beta.proposal_params, mh_beta.proposal_density, mh_beta.sample_independence)

# %%
show(mh_beta_model.build_model)
beta_result = run_pair(
    get_pair("mh_beta"),
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    progress=print,
)
checks_summary(beta_result)

# %% [markdown]
# The histograms of all sides against the exact Beta(2.31, 0.627) density, and
# the text's Beta(2.37, 0.627) dashed:

# %%
grid = np.linspace(0.005, 0.995, 400)
fig, ax = plt.subplots(figsize=(7, 3.5))
for label, side in beta_result.sides.items():
    values = side.tree["posterior"]["x"].values.ravel()
    ax.hist(values, bins=60, range=(0, 1), density=True, histtype="step", label=label)
ax.plot(grid, stats.beta(2.31, 0.627).pdf(grid), "k", label="Beta(2.31, 0.627), the code")
ax.plot(grid, stats.beta(2.37, 0.627).pdf(grid), "k--", label="Beta(2.37, 0.627), the text")
ax.set_ylim(0, 6)
ax.legend(fontsize=7, loc="upper left")
plt.show()

# %% [markdown]
# ## 4. The harness catches a forgotten Hastings correction
#
# Drop the correction $q(\theta^{(t)})/q(\theta')$ from the independence sampler
# (pass a flat $q$, $\log q \equiv 0$, to the same package function). Its chain then converges
# to $\pi(x)\,q(x)$ normalised, here
# Beta$(a + \min(a,1) - 1,\ b + \min(b,1) - 1)$ = Beta(2.31, 0.254), not to the
# target. Any function with the sampler contract's signature can be handed to
# `run_pair` in place of the hand-written side. The verdict is *disagree*: the
# buggy chain also mixes badly near the spike at 1 and fails its convergence
# gates, but its difference from the target is *gross*, far beyond anything
# Monte Carlo error could explain, so the harness does not stop at "not
# converged"; the failed z-checks printed below show how far its draws are from
# the target:


# %%
def independence_without_correction(data, *, draws, tune, chains, random_seed):
    """The independence sampler with its Hastings correction forgotten (a bug)."""
    d = mh_beta.validate_data(data)
    return mh.sample_independence(
        mh_beta.target(d),
        wrong_samplers.FLAT,  # the bug: log q(x) treated as constant
        lambda rng: mh_beta.draw_start(rng, d),
        lambda rng, n: mh_beta.draw_proposals(rng, n, d),
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
    )


wrong = run_pair(
    get_pair("mh_beta"),
    sampler=independence_without_correction,
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    progress=print,
)
print("verdict for the buggy sampler:", wrong.verdict)
wrong_z = wrong.checks[(wrong.checks["side"] == "user") & (wrong.checks["kind"] != "diagnostic")]
print(f"failed z-checks of the buggy sampler: {(~wrong_z['passed']).sum()} of {len(wrong_z)}")
display(wrong_z[~wrong_z["passed"]].head(10))
print("its mean:", float(wrong.sides["user"].tree["posterior"]["x"].mean()))
print("Beta(2.31, 0.627) mean:", stats.beta(2.31, 0.627).mean())
print("Beta(2.31, 0.254) mean:", stats.beta(2.31, 0.627 + 0.627 - 1).mean())

# %% [markdown]
# ## 5. What to look at in the diagnostics
#
# * **Acceptance rate**: seed 001 advises 0.15 to 0.5 for a random walk; the
#   independence sampler's is high when $q$ is close to $\pi$.
# * **Trace**: the Beta random walk's chains stick near 1 for long stretches
#   (flat segments); NUTS works on the logit scale and does not.
# * **Rank plots**: sticking shows as chains over-represented at high ranks.
# * **Autocorrelation**, and the **ESS** and **$\hat R$** that summarise it.

# %%
rows = {}
for result in (normal_result, beta_result):
    for label, side in result.sides.items():
        rows[(result.pair.name, label)] = {
            "acceptance": side.acceptance_rate,
            "ess_bulk(x)": result.summaries[label].at["x", "ess_bulk"],
            "ess_tail(x)": result.summaries[label].at["x", "ess_tail"],
            "r_hat(x)": result.summaries[label].at["x", "r_hat"],
            "ESS per second": result.ess_per_second(label),
        }
display(pd.DataFrame(rows).T.round(3))

# %%
rw_tree = beta_result.sides["handrolled:random_walk"].tree
azp.plot_trace_dist(rw_tree)
plt.show()
azp.plot_rank(rw_tree)
plt.show()
azp.plot_rank(beta_result.sides["pymc"].tree)
plt.show()

# %%
azp.plot_autocorr(rw_tree, max_lag=200)
plt.show()
