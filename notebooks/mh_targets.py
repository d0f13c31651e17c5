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
# # Metropolis–Hastings 采样 · Metropolis–Hastings on Normal(10, 5) and Beta(2.31, 0.627)
#
# *About 25 minutes to read.* Previous:
# [Markov chains and Monte Carlo](markov_chains_and_monte_carlo.ipynb) · next:
# [bivariate normal](bivariate_normal.ipynb) · [Glossary 术语表](GLOSSARY.md) · how the
# suite checks a sampler: [checking a sampler](checking_a_sampler.ipynb)
#
# The seeds: seed 003, **《马尔科夫链，蒙特卡洛（下篇）》** ("Markov chains and Monte
# Carlo, part 2"), its MH section and two programs; seed 001,
# **《机器学习中的MC、MCMC、Gibbs采样》** ("MC, MCMC and Gibbs sampling in machine
# learning") §6; seed 002, **《LDA算法理解（二）：Gibbs Sampling》** §3.3.
#
# **The idea.** We can evaluate a target density $\pi$ (up to a constant) but cannot
# draw from it. Build a Markov chain whose stationary distribution (平稳分布) is $\pi$:
# from the current $x$ propose $x'$ from a proposal distribution $q(x' \mid x)$
# (建议分布), and accept it with a probability $\alpha(x, x')$ (接受概率) chosen so that
# $\pi$ is stationary; otherwise stay at $x$.

# %% tags=["parameters"]
draws = (
    None  # None: each pair's own length (2000 draws a chain for the normal, 10 000 for the Beta)
)
tune = 1000
chains = 4
seed = 20261122
max_draws = None

# %%
# %matplotlib inline
import math

import _exercises as ex
import arviz_stats as azs
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display
from scipy import stats

import mcmc_pairs.pairdata.mh_beta
import mcmc_pairs.pairdata.mh_normal
from mcmc_pairs.comparisons import report
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import resolve_settings, run_pair
from mcmc_pairs.handrolled import markov_chains as mc
from mcmc_pairs.handrolled import mh_beta, mh_normal, wrong_samplers
from mcmc_pairs.handrolled._common import chain_streams

normal_data = mcmc_pairs.pairdata.mh_normal.default_data()  # mu 10, sigma 5, seed's step 1
beta_data = mcmc_pairs.pairdata.mh_beta.default_data()  # a 2.31, b 0.627
n_normal = resolve_settings(get_pair("mh_normal"), draws=draws).draws
n_beta = resolve_settings(get_pair("mh_beta"), draws=draws).draws
full = draws is None  # claims about the full-length runs are asserted there only

# %% [markdown]
# ## 1. 接受准则 · The acceptance rule, derived
#
# **Detailed balance** (细致平衡; the condition is called 细致平稳条件, seed 004's
# "Detailed Balance Condition", and seed 003 writes 细致平衡方程) asks that the
# probability flow from $x$ to $x'$ equal the flow back:
#
# $$ \pi(x)\,P(x \to x') = \pi(x')\,P(x' \to x) \quad \text{for all } x \ne x'. $$
#
# Summing over $x$ gives $\pi P = \pi$: $\pi$ is then stationary. A move of MH is a
# proposal followed by a decision, $P(x \to x') = q(x' \mid x)\,\alpha(x, x')$ for
# $x' \ne x$ (the rejected mass stays at $x$), so detailed balance asks
#
# $$ \pi(x)\,q(x' \mid x)\,\alpha(x, x') = \pi(x')\,q(x \mid x')\,\alpha(x', x). $$
#
# Seed 003's first choice, $\alpha(x, x') = \pi(x')\,q(x \mid x')$, makes both sides
# the same product, but these probabilities are small and most moves are rejected.
# Scaling both $\alpha$ up by the same factor until the larger is 1 keeps the equality
# and gives the **acceptance rule** (接受准则) of Metropolis–Hastings:
#
# $$ \alpha(x, x') = \min\left(1,\ r\right), \qquad
#    r = \frac{\pi(x')\, q(x \mid x')}{\pi(x)\, q(x' \mid x)}. $$
#
# (If $r \le 1$, then $\alpha(x, x') = r$ and $\alpha(x', x) = 1$: both sides equal
# $\pi(x')\,q(x \mid x')$.) Only the ratio $\pi(x')/\pi(x)$ enters, so $\pi$'s
# normalising constant is never needed. Two proposals (seed 001 §6.2, §6.3):
#
# * the **random walk** (随机游动 Metropolis) $x' = x + s z$, $z \sim N(0, 1)$:
#   $q(x' \mid x) = q(x \mid x')$, so the proposal cancels from $r$;
# * the **independence sampler** (独立性采样) $x' \sim q(\cdot)$ whatever $x$ is: the
#   **Hastings correction** $q(x)/q(x')$ stays in $r$.
#
# Written out on the log scale (tiny densities do no harm, and a proposal outside the
# support, $\log\pi = -\infty$, is never accepted), the whole algorithm is:


# %%
def acceptance(log_r):
    """alpha = min(1, r), from log r; log r = -inf (outside the support) gives 0."""
    return math.exp(min(0.0, log_r))


def random_walk(logpi, x, normals, uniforms, scale, n_tune, adapt=True):
    """Random-walk Metropolis: x' = x + scale * z; the first n_tune steps are burn-in."""
    lp, log_scale, kept = logpi(x), math.log(scale), []
    for t, (z, u) in enumerate(zip(normals, uniforms, strict=True)):
        proposal = x + scale * z
        lp_proposal = logpi(proposal)
        a = acceptance(lp_proposal - lp)  # q symmetric: it cancels
        if u < a:
            x, lp = proposal, lp_proposal
        if t < n_tune:  # burn-in: tune the step towards acceptance 0.44, then freeze it
            if adapt:
                log_scale += (a - 0.44) / (t + 1) ** 0.6
                scale = math.exp(log_scale)
        else:
            kept.append(x)
    return np.array(kept)


def independence(logpi, logq, x, proposals, uniforms, n_tune):
    """Independence sampler: x' ~ q whatever x; the Hastings correction q(x) / q(x') stays."""
    lp, kept = logpi(x), []
    for t, (proposal, u) in enumerate(zip(proposals, uniforms, strict=True)):
        lp_proposal = logpi(proposal)
        if u < acceptance(lp_proposal - lp + logq(x) - logq(proposal)):
            x, lp = proposal, lp_proposal
        if t >= n_tune:
            kept.append(x)
    return np.array(kept)


# %% [markdown]
# **Tuning the step.** Seed 001 §6.2 (2) advises an acceptance rate (接受率, the
# average of $\alpha$ over a run) between 0.15 and 0.5. A small step accepts almost
# everything but crawls; the acceptance rate falls as the step grows. During the
# burn-in (燃烧期, `tune`) only, `random_walk` moves $\log s$ by
# $(\alpha_t - 0.44)/t^{0.6}$, a **Robbins–Monro** update: up after a likely
# acceptance, down after an unlikely one, by steps that shrink (the noise averages
# out) but whose sum diverges (the scale can travel as far as it needs). Then the
# step is frozen, so the kept draws come from one fixed kernel in detailed balance.
#
# The samplers the suite runs (`mh_normal.sample`, `mh_beta.sample_independence`, ...)
# are compiled with numba; they are these two functions, bit for bit. Chain 0 of each,
# replayed from the same random numbers (its stream draws the start, then every normal
# or proposal, then every uniform):

# %%
rng = chain_streams(seed, chains, None)[0]
start = mh_normal.draw_start(rng, normal_data)
normals, uniforms = rng.standard_normal(tune + n_normal), rng.random(tune + n_normal)
ours = random_walk(mh_normal.target(normal_data).logdensity, start, normals, uniforms,
                   normal_data["proposal_sd"], tune)  # fmt: skip
compiled = mh_normal.sample(normal_data, draws=n_normal, tune=tune, chains=chains,
                            random_seed=seed)  # fmt: skip
same = [np.array_equal(ours, compiled["posterior"]["x"].values[0])]
rng = chain_streams(seed, chains, None)[0]
start = mh_beta.draw_start(rng, beta_data)
proposals = mh_beta.draw_proposals(rng, tune + n_beta, beta_data)
ours = independence(mh_beta.target(beta_data).logdensity,
                    mh_beta.proposal_density(beta_data).logdensity, start, proposals,
                    rng.random(tune + n_beta), tune)  # fmt: skip
compiled = mh_beta.sample_independence(beta_data, draws=n_beta, tune=tune, chains=chains,
                                       random_seed=seed)  # fmt: skip
same.append(np.array_equal(ours, compiled["posterior"]["x"].values[0]))
print("random_walk, independence == the compiled samplers, bit for bit:", same)
assert all(same)

# %% [markdown]
# ## 2. 原文中的离散例子 · Seed 003's discrete example: $P$ built from $Q$
#
# Target $\pi = [0.5, 0.2, 0.3]$, proposal matrix $Q$ ($Q_{ij}$: propose $i \to j$;
# seed 003 writes its matrices column-wise, $P\pi = \pi$, so its $Q_{i,j}$ is our
# $Q_{ji}$). $P_{ij} = Q_{ij}\,\alpha(i, j)$ for $j \ne i$, in exact fractions so that
# detailed balance is checked with `==`, for three rules: seed 003's first construction
# $\alpha(i, j) = \pi_j Q_{ji}$, MH's min form, and seed 002's $\min(1, Q_{ji}/Q_{ij})$:

# %%
pi3 = mc.exact([0.5, 0.2, 0.3])
Q3 = mc.exact([[0.2, 0.5, 0.3], [0.4, 0.2, 0.4], [0.1, 0.6, 0.3]])
rows = {}
for rule in ("seed003", "mh", "seed002"):
    P = mc.metropolis_hastings_matrix(pi3, Q3, rule)
    moved = sum(pi3[i] * P[i, j] for i in range(3) for j in range(3) if i != j)
    proposed = sum(pi3[i] * Q3[i, j] for i in range(3) for j in range(3) if i != j)
    rows[rule] = {
        "detailed balance (exact)": mc.detailed_balance_holds(pi3, P),
        "pi P == pi (exact)": mc.stationary_exactly(pi3, P),
        "acceptance rate from pi": float(moved / proposed),
        "stationary distribution of P": mc.stationary_distribution(P.astype(float)).round(4),
    }
display(pd.DataFrame(rows).T)
P_mh = mc.metropolis_hastings_matrix(pi3, Q3, "mh")
print("P by MH's min form:\n", pd.DataFrame(P_mh).map(str))
print("Q's own stationary distribution:", mc.stationary_distribution(Q3.astype(float)).round(3))
rates = {rule: row["acceptance rate from pi"] for rule, row in rows.items()}
# the bullets below: seed 003's rule rejects about 9 proposals in 10, MH's about half
assert 0.85 < 1 - rates["seed003"] < 0.95 and 0.45 < rates["mh"] < 0.55
assert rows["seed003"]["detailed balance (exact)"] and rows["mh"]["detailed balance (exact)"]
assert not rows["seed002"]["detailed balance (exact)"] and not rows["seed002"]["pi P == pi (exact)"]
assert not np.allclose(mc.stationary_distribution(Q3.astype(float)), np.array(pi3, dtype=float))

# %% [markdown]
# * Seed 003's first construction is in detailed balance, but rejects about 9
#   proposals in 10; MH's min form keeps the balance and accepts about half.
# * **A slip in seed 003**: it calls the proposal distribution "状态转移矩阵Q的平稳分布"
#   (the stationary distribution of $Q$). The proposal is a *row* of $Q$,
#   $q(\cdot \mid i) = Q_{i\cdot}$; $Q$'s own stationary distribution (printed) is not
#   $\pi$ and plays no part.
# * **Two slips in seed 002** (§3.3): its rule $\min\{1, g(x' \to x)/g(x \to x')\}$
#   drops $P(x')/P(x)$, so its chain follows $g$, not the target (its stationary
#   distribution above is not $\pi$); and it says $g$ "必须满足 $g(x|y)=g(y|x)$": only
#   Metropolis's special case needs a symmetric $g$, MH's correction handles this
#   asymmetric $Q$ exactly.
#
# ## 3. 随机游动 · The random walk on Normal(10, 5), seed 003's first program
#
# $$ \pi(x) = \frac{1}{\sqrt{2\pi}\,\sigma}\exp\left(-\frac{(x - \mu)^2}{2\sigma^2}\right),
#    \qquad \mu = 10,\ \sigma = 5. $$
#
# Seed 003 proposes $N(x, 1)$, a step a fifth of the target's sd. Run as the seed
# does and with the step tuned, each chain started from $N(\mu, 2\sigma)$. Each row:
# every chain's trace (样本路径图), and all kept draws against the exact density.


# %%
def draw_runs(runs, densities, grid, shown=500, ylim=None):
    """One row per run: each chain's first `shown` kept draws; their histogram vs densities."""
    fig, axes = plt.subplots(len(runs), 2, figsize=(11, 2.7 * len(runs)), squeeze=False)
    for (title, x), (left, right) in zip(runs.items(), axes, strict=True):
        for c, chain in enumerate(x):
            left.plot(chain[:shown], lw=0.7, color=f"C{c}", label=f"chain {c}")
        left.set(title=f"{title}: trace", xlabel="iteration after burn-in", ylabel="x")
        left.legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
        right.hist(x.ravel(), bins=60, density=True, color="0.75", label="all kept draws")
        for (label, pdf), style in zip(densities.items(), ("k-", "k--"), strict=False):
            right.plot(grid, pdf(grid), style, lw=1.5, label=label)
        right.set(title=f"{title}: histogram", xlabel="x", ylabel="density", ylim=ylim)
        right.legend(fontsize=7)
    fig.tight_layout()
    plt.show()


normal_runs, table = {}, {}
for label, adapt in (("seed's step 1", False), ("tuned step", True)):
    tree = mh_normal.sample(normal_data, draws=n_normal, tune=tune, chains=chains,
                            random_seed=seed, adapt=adapt)  # fmt: skip
    x = tree["posterior"]["x"].values
    normal_runs[label] = x
    table[label] = {
        "step s": float(tree["sample_stats"]["proposal_scale"].mean()),
        "acceptance rate": float(tree["sample_stats"]["acceptance_rate"].mean()),
        "ESS": float(azs.ess(x, method="bulk")),
        "draws N": x.size,
    }
table = pd.DataFrame(table).T
display(table.round(3))
grid = np.linspace(-10, 30, 400)
exact_normal = {"exact N(10, 5)": stats.norm(10, 5).pdf}
draw_runs(normal_runs, exact_normal, grid)
seed_row, tuned_row = table.loc["seed's step 1"], table.loc["tuned step"]
assert seed_row["acceptance rate"] > 0.9  # the seed's step accepts almost everything
assert seed_row["ESS"] < tuned_row["ESS"]
if full:  # the paragraph below
    assert 0.40 < tuned_row["acceptance rate"] < 0.48 and 10 < tuned_row["step s"] < 14
    assert seed_row["ESS"] < 0.02 * seed_row["draws N"]
    assert 8 < tuned_row["ESS"] / seed_row["ESS"] < 60

# %% [markdown]
# The seed's step accepts over 90 % of its proposals, yet its chains crawl and their
# histogram is ragged. The tuned step settles near $2.4\sigma \approx 12$, accepting
# about 0.44 of its proposals. The **effective sample size** (ESS, 有效样本量), how many
# independent draws the chains are worth for the mean, is many times the seed's
# ([checking a sampler](checking_a_sampler.ipynb), section 2, explains it).
#
# **Not independent samples.** Seed 001 says of a chain that has reached
# stationarity "其值就可以视为从联合分布…中得到的独立样本" (its values can be regarded
# as independent samples). They are draws from $\pi$, but not independent ones:
# each starts where the previous one ended. The **autocorrelation** (自相关) of each
# chain at lag $k$, the correlation of $x_t$ with $x_{t+k}$, shows it; so does an ESS
# below the number of draws $N$ (the table above):


# %%
def autocorrelation(chain, max_lag):
    """Correlation of x_t with x_{t+k} along one chain, for k = 0 .. max_lag."""
    d = chain - chain.mean()
    return np.array([d[: d.size - k] @ d[k:] for k in range(max_lag + 1)]) / (d @ d)


lags = np.arange(41)
fig, axes = plt.subplots(1, 2, figsize=(11, 3), sharey=True)
lag1 = {}
for ax, (label, x) in zip(axes, normal_runs.items(), strict=True):
    for c, chain in enumerate(x):
        rho = autocorrelation(chain, lags[-1])
        ax.plot(lags, rho, color=f"C{c}", marker=".", label=f"chain {c}")
        lag1[(label, c)] = float(rho[1])
    ax.axhline(0, color="k", lw=0.5)
    ax.set(title=f"random walk, {label}", xlabel="lag k", ylabel="autocorrelation")
    ax.legend(fontsize=7)
plt.show()
print("lag-1 autocorrelation, smallest over chains and steps:", round(min(lag1.values()), 2))
assert (table["ESS"] < table["draws N"]).all()  # dependent draws: ESS < N
assert min(lag1.values()) > 0.3  # every chain, both steps: far from independent

# %% [markdown]
# ## 4. 独立性采样 · The independence sampler on Normal(10, 5)
#
# Proposals from $q = N(\mu, 2\sigma) = N(10, 10)$ whatever the current point. Its tails
# are heavier than the target's (seed 001 §6.3 (1)), so $\pi/q$ is bounded and no
# region of the target is left unvisited. Without a step there is nothing to tune:

# %%
tree = mh_normal.sample_independence(normal_data, draws=n_normal, tune=tune, chains=chains,
                                     random_seed=seed)  # fmt: skip
x_ind = tree["posterior"]["x"].values
ind_rate = float(tree["sample_stats"]["acceptance_rate"].mean())
ind_ess = float(azs.ess(x_ind, method="bulk"))
print(f"acceptance rate {ind_rate:.3f}, ESS {ind_ess:.0f} of {x_ind.size} draws")
draw_runs({"independence sampler, q = N(10, 10)": x_ind}, exact_normal, grid)
if full:
    assert ind_ess > tuned_row["ESS"]  # the paragraph below

# %% [markdown]
# It jumps anywhere in one step, so its ESS exceeds even the tuned random walk's.
#
# ## 5. 目标二 · Beta(2.31, 0.627), seed 003's second program
#
# $$ f(x; a, b) = \frac{\Gamma(a + b)}{\Gamma(a)\Gamma(b)}\, x^{a-1}(1 - x)^{b-1},
#    \qquad 0 < x < 1. $$
#
# Three slips of the seed: its text says $a = 2.37$, its code and figure use
# `beta(2.31, 0.627)` (the target here; the two differ below); it writes $x_{a-1}$ for
# $x^{a-1}$; its program starts at $x = 0$, where the density is 0 (the first ratio
# divides by zero). Here chains start inside $(0, 1)$, and the log density is
# $-\infty$ outside it, so proposals there are always rejected.

# %%
for a in (2.31, 2.37):
    dist = stats.beta(a, beta_data["b"])
    print(f"Beta({a}, 0.627): mean {dist.mean():.4f}, sd {dist.std():.4f}")
q_a, q_b = mh_beta.proposal_params(beta_data)
print(f"independence proposal q = Beta({q_a:g}, {q_b:g})")
assert (q_a, q_b) == (1.0, beta_data["b"])

# %% [markdown]
# With $b < 1$ the density is infinite at 1. The random walk (its step tuned as in
# section 3) must creep towards 1 by small accepted moves and rejects most proposals
# there (past 1 they are impossible); the independence sampler proposes from
# $q = \mathrm{Beta}(\min(a, 1), \min(b, 1)) = \mathrm{Beta}(1, 0.627)$, whose tails are
# at least as heavy as the target's at both ends.

# %%
beta_runs, beta_rates = {}, {}
for label, sampler in (("random walk", mh_beta.sample),
                       ("independence sampler", mh_beta.sample_independence)):  # fmt: skip
    tree = sampler(beta_data, draws=n_beta, tune=tune, chains=chains, random_seed=seed)
    beta_runs[label] = tree["posterior"]["x"].values
    beta_rates[label] = float(tree["sample_stats"]["acceptance_rate"].mean())
beta_grid = np.linspace(0.002, 0.998, 500)
exact_beta = {"exact Beta(2.31, 0.627)": stats.beta(2.31, 0.627).pdf}
draw_runs(beta_runs, exact_beta, beta_grid, shown=300, ylim=(0, 6))
flat = []  # each random-walk chain's longest run of repeated draws: its length and value
for chain in beta_runs["random walk"]:
    starts = np.flatnonzero(np.r_[True, np.diff(chain) != 0])
    lengths = np.diff(np.r_[starts, chain.size])
    flat.append((int(lengths.max()), float(chain[starts[lengths.argmax()]])))
beta_ess = {label: float(azs.ess(x, method="bulk")) for label, x in beta_runs.items()}
print("acceptance rates:", {k: round(v, 3) for k, v in beta_rates.items()})
print("ESS:", {k: round(v) for k, v in beta_ess.items()}, f"of {chains * n_beta} draws")
print("random walk, longest flat stretch per chain (draws, value):",
      [(n, round(v, 4)) for n, v in flat])  # fmt: skip
if full:  # the paragraph below
    assert all(n >= 30 and v > 0.99 for n, v in flat)
    assert beta_ess["random walk"] < 0.1 * chains * n_beta < beta_ess["independence sampler"]

# %% [markdown]
# The random walk's longest flat stretches, dozens of rejected draws in a row, all
# lie above 0.99, next to the spike; its ESS is under a tenth of its draws, which is
# why the pair runs 10 000 draws a chain. The independence sampler reaches the spike
# in one jump.
#
# ## 6. 动手破坏 · Break it and watch: the Hastings correction forgotten
#
# The suite's catalogue of wrong samplers holds, for this pair,
# `mh_beta_independence_without_hastings`: the independence sampler with $q(x)/q(x')$
# dropped (`independence` with $\log q \equiv 0$), accepting with
# $\min(1, \pi(x')/\pi(x))$ as if $q$ were symmetric. Its chain is in detailed balance
# with $\pi(x)\,q(x)$ normalised, not with $\pi$: proposals come from $q$, and the
# acceptance weighs them by $\pi$ on top. Here
# $\pi q \propto x^{a-1}(1-x)^{b-1}\cdot(1-x)^{b-1}$ = Beta$(a,\ 2b - 1)$ =
# Beta(2.31, 0.254): far more mass at the spike.

# %%
wrong_sampler = get_pair("mh_beta").wrong["independence_without_hastings"]
tree = wrong_samplers.mh_beta_independence_without_hastings(
    beta_data, draws=n_beta, tune=tune, chains=chains, random_seed=seed
)
x_wrong = tree["posterior"]["x"].values
pi_q = {"π·q = Beta(2.31, 0.254)": stats.beta(2.31, 0.254).pdf}
draw_runs({"without the correction": x_wrong}, exact_beta | pi_q, beta_grid, 300, (0, 6))
means = {"its draws": float(x_wrong.mean()), "target": stats.beta(2.31, 0.627).mean(),
         "pi q": stats.beta(2.31, 0.254).mean(),
         "right sampler": float(beta_runs["independence sampler"].mean())}  # fmt: skip
print("means:", {k: round(v, 4) for k, v in means.items()})
wrong_rhat = float(azs.rhat(x_wrong))
print(f"R-hat of its chains: {wrong_rhat:.3f}")
assert abs(means["its draws"] - means["pi q"]) < 0.05  # it samples pi q ...
assert means["its draws"] - means["target"] > 0.08  # ... not the target
if full:  # the paragraph below
    assert abs(means["its draws"] - means["pi q"]) < 0.01
    assert abs(means["right sampler"] - means["target"]) < 0.01
    assert wrong_rhat < 1.01

# %% [markdown]
# Its histogram follows the dashed $\pi q$, not the black target: its mean is about
# 0.90 (that of Beta(2.31, 0.254)) against the target's 0.787, while the correct
# independence sampler's is within 0.01 of 0.787. Yet its chains agree with one
# another: $\hat R$ (潜在尺度缩减因子, which compares the spread between chains with the
# spread within them; [checking a sampler](checking_a_sampler.ipynb), section 6) is
# below 1.01. Chains can agree and still sample the wrong distribution; only a
# comparison with the right answer shows it.
#
# ## 7. 比较 · The suite's check
#
# The suite compares these samplers with a PyMC model (NUTS) and the exact Beta, and
# must tell the correct samplers from the planted bug; how it decides is explained in
# [checking a sampler](checking_a_sampler.ipynb).

# %%
beta_pair = get_pair("mh_beta")
settings = resolve_settings(beta_pair, draws=draws, tune=tune, chains=chains, seed=seed,
                            max_draws=max_draws)  # fmt: skip
right = run_pair(beta_pair, settings, progress=lambda e: None)
wrong = run_pair(beta_pair, settings, sampler=wrong_sampler, pymc_from=right,
                 progress=lambda e: None)  # fmt: skip
reached = report.resolution_table(right).max().max()
print(f"the suite's verdict: {right.verdict} for the random walk and independence sampler "
      f"(largest resolution reached: {reached:.2f} posterior sd), {wrong.verdict} for the "
      "sampler without the Hastings correction: see checking_a_sampler")  # fmt: skip
if full:
    assert right.verdict == "agree" and wrong.verdict == "disagree"

# %% [markdown]
# ## 8. 练习 · Exercises
#
# **Exercise 1 (the step).** Run section 3's random walk with a fixed step of 50
# (ten target sds) instead of 1. Will its acceptance rate be (a) above 0.5, (b) inside
# seed 001's advice [0.15, 0.5], or (c) below 0.15?

# %%
answer = None  # "a", "b" or "c"

# %% jupyter={"source_hidden": true} tags=["checker"]
# A random walk N(x, s^2) on N(mu, sigma^2) accepts (2/pi) arctan(2 sigma / s) at stationarity
span = [2 / np.tan(a * np.pi / 2) for a in (0.5, 0.15)]  # the steps, in sds, of [0.15, 0.5]
wide = mh_normal.sample(normal_data | {"proposal_sd": 50.0}, draws=n_normal, tune=tune,
                        chains=chains, random_seed=seed, adapt=False)  # fmt: skip
rate = float(wide["sample_stats"]["acceptance_rate"].mean())
exact_rate = 2 / np.pi * np.arctan(2 * normal_data["sigma"] / 50.0)
assert abs(rate - exact_rate) < 0.05
ex.check_choice(answer, "c", {
    "a": "a step of 10 sds lands far in the tails; most proposals are rejected.",
    "b": f"[0.15, 0.5] needs steps of {span[0]:.1f} to {span[1]:.1f} target sds; 10 is past it.",
    "c": f"right: (2/π) arctan(2σ/s) = (2/π) arctan(0.2) = {exact_rate:.3f}, measured "
         f"{rate:.3f}; [0.15, 0.5] needs steps of {span[0]:.1f} to {span[1]:.1f} target sds.",
}, wrong="b")  # fmt: skip

# %% [markdown]
# **Exercise 2 (a symmetric proposal).** In section 2's example, replace $Q$ by the
# symmetric proposal that picks one of the two other states with probability 1/2
# each ($Q'_{ij} = 1/2$ for $i \ne j$, $Q'_{ii} = 0$). With $\pi = [0.5, 0.2, 0.3]$,
# what is $P'_{32}$, the probability that MH's chain moves from state 3 to state 2 in
# one step?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
Q_sym = mc.exact([[0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]])
P_sym = mc.metropolis_hastings_matrix(pi3, Q_sym, "mh")
assert mc.stationary_exactly(pi3, P_sym)
ex.check_number(answer, float(P_sym[2, 1]), rel=0.01,
                hint="a move is a proposal times its acceptance: Q'_32 x min(1, pi_2 / pi_3) "
                     "(the symmetric Q' cancels from the ratio, not from the move).",
                why=f"Q'_32 x min(1, 0.2 / 0.3) = 0.5 x 2/3 = {P_sym[2, 1]}.",
                wrong=0.2 / 0.3)  # the acceptance alone  # fmt: skip

# %% [markdown]
# **Exercise 3 (the correction forgotten on the normal).** The catalogue's
# `mh_normal_independence_without_hastings` is section 4's independence sampler,
# $q = N(10, 10)$, with $q(x)/q(x')$ dropped, on the target $N(10, 5)$. What is the sd
# of the distribution its draws follow?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
sigma, q_sd = normal_data["sigma"], 2 * normal_data["sigma"]
expected_sd = (1 / sigma**2 + 1 / q_sd**2) ** -0.5  # pi q: precisions add
tree = wrong_samplers.mh_normal_independence_without_hastings(
    normal_data, draws=n_normal, tune=tune, chains=chains, random_seed=seed
)
measured_sd = float(tree["posterior"]["x"].values.std())
if full:
    assert abs(measured_sd - expected_sd) < 0.2
ex.check_number(answer, expected_sd, rel=0.02,
                hint="its draws follow pi(x) q(x) normalised (section 6): a product of two "
                     "normal densities is normal, and their precisions 1/sd^2 add.",
                why=f"1/sd^2 = 1/25 + 1/100, sd = sqrt(20) = {expected_sd:.3f}; its draws' "
                    f"sd is {measured_sd:.3f}, narrower than the target's 5.",
                wrong=sigma)  # the target's sd  # fmt: skip
