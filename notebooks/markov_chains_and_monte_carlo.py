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
# # 马尔可夫链与蒙特卡洛 · Monte Carlo and Markov chains: the two halves of MCMC
#
# *Reading order 1 of 6.* Previous: [how to read a verdict](reading_a_verdict.ipynb) ·
# next: [Metropolis–Hastings](mh_targets.ipynb) · [Glossary 术语表](GLOSSARY.md)
#
# The seeds this notebook follows:
#
# * seed 002, **《LDA算法理解（二）：Gibbs Sampling》** ("Understanding LDA, part 2:
#   Gibbs sampling"), §3.1 Monte Carlo and §3.2 Markov chains;
# * seed 004, **《MCMC and Gibbs Sampling》** (in Chinese despite its English title),
#   its Markov chain section;
# * seed 003, **《马尔科夫链，蒙特卡洛（下篇）》** ("Markov chains and Monte Carlo,
#   part 2"), on 燃烧期 (burn-in) and 细致平衡 (detailed balance);
# * seed 001, **《机器学习中的MC、MCMC、Gibbs采样》** ("MC, MCMC and Gibbs sampling
#   in machine learning"), §7 on convergence diagnostics.
#
# **The idea.** *Monte Carlo* (蒙特卡洛): an expectation $E(f) = \int f(x)\,p(x)\,dx$ is
# approximated by an average over draws, $E(f) \approx \frac1N\sum_{i=1}^N f(x_i)$,
# with an error that shrinks like $1/\sqrt N$. *Markov chain* (马尔可夫链, 马氏链): when
# independent draws from $p$ are out of reach, build a chain whose **stationary
# distribution** (平稳分布) is $p$; after a burn-in (燃烧期) of $m$ steps its states
# are (dependent)
# draws from $p$, and the ergodic average
# $\hat E f = \frac{1}{n - m}\sum_{i=m+1}^{n} f(x_i)$ estimates $E(f)$ (seed 003).
#
# This example has no PyMC twin: the exact answers are known, and the
# hand-written functions in `mcmc_pairs.handrolled.markov_chains` and
# `mcmc_pairs.handrolled.monte_carlo` are checked against them and against library
# routines. `draws` is the number of steps kept per simulated chain, `tune` the
# burn-in $m$.

# %% tags=["parameters"]
draws = 5000
tune = 100
chains = 4
seed = 20261122

# %%
# %matplotlib inline
import inspect

import _exercises as ex
import arviz_stats as azs
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import scipy.linalg
from IPython.display import Markdown, display

from mcmc_pairs.handrolled import markov_chains as mc
from mcmc_pairs.handrolled import monte_carlo


def show(*functions):
    """Display the source of functions that live in the packages."""
    for f in functions:
        source = inspect.getsource(getattr(f, "py_func", f))
        display(Markdown(f"`{f.__module__}.{f.__name__}`\n```python\n{source}```"))


rng = np.random.default_rng(seed)

# %% [markdown]
# ## 1. 撒米求 π · Monte Carlo: scattering rice to estimate π (seed 002 §3.1)
#
# Scatter $S$ grains uniformly on a square of side $d$; the $C$ that land in the
# inscribed circle satisfy $\frac{C}{S} \approx \frac{\pi (d/2)^2}{d^2}$, so
# $\pi \approx \frac{4C}{S}$. Each grain is a Bernoulli($\pi/4$) trial, so the
# estimate has standard error $4\sqrt{p(1 - p)/S}$ with $p = \pi/4$, about
# $1.642/\sqrt S$.

# %%
show(monte_carlo.count_in_disc, monte_carlo.estimate_pi)
for n in (100, 10_000, 1_000_000):
    estimate, se = monte_carlo.estimate_pi(n, rng)
    print(f"S = {n:>9,}: pi ~ {estimate:.5f} +- {se:.5f}   (error {estimate - np.pi:+.5f})")
# "about 1.642 / sqrt(S)": the standard error of the text, for p = pi / 4
assert round(4 * np.sqrt(np.pi / 4 * (1 - np.pi / 4)), 3) == 1.642

# %% [markdown]
# The error shrinks like $1/\sqrt S$: a hundred times more grains buy one more
# correct digit. The root-mean-square error over 200 repetitions per size, on
# log–log axes, has slope $-1/2$:

# %%
ns = np.array([100, 300, 1000, 3000, 10_000, 30_000])
rmse = monte_carlo.root_mean_square_errors(ns, 200, rng)
slope, slope_se = monte_carlo.loglog_slope(ns, rmse)
print(f"fitted slope {slope:.3f} +- {slope_se:.3f} (theory -0.5)")
assert abs(slope + 0.5) < 0.05  # "on log-log axes, has slope -1/2"
fig, ax = plt.subplots(figsize=(5, 3.5))
ax.loglog(ns, rmse, "o", label="RMSE over 200 runs")
ax.loglog(ns, monte_carlo.exact_standard_error(ns), "k-", label=r"$4\sqrt{p(1-p)/S}$")
ax.set_xlabel("grains S")
ax.set_ylabel("error of the estimate of π")
ax.legend()
plt.show()

# %% [markdown]
# ## 2. 马尔可夫链与平稳分布 · Markov chains and their stationary distribution (seed 002 §3.2)
#
# A chain moves by its transition matrix (转移矩阵), $P_{ij} = P(x_{t+1} = j \mid x_t = i)$,
# and the distribution of its state evolves as $\pi_{t+1} = \pi_t P$. Seed 002's
# bull / bear / stagnant market, started in a bull market $\pi_0 = (1, 0, 0)$,
# converges to $(0.625, 0.3125, 0.0625)$ whatever the start:

# %%
print(pd.DataFrame(mc.SEED_002_P, index=mc.SEED_002_STATES, columns=mc.SEED_002_STATES))
path = mc.state_distribution_path(mc.SEED_002_P, mc.SEED_002_START, 60)
print("after 60 steps:", path[-1].round(4), " exact:", mc.SEED_002_STATIONARY)
assert np.allclose(path[-1], [0.625, 0.3125, 0.0625], atol=1e-4)  # "converges to (0.625, ...)"
show(mc.state_distribution_path)

# %% [markdown]
# The stationary distribution solves $\pi = \pi P$: it is the left eigenvector of
# $P$ for eigenvalue 1. Repeated multiplication ("power iteration") finds it too.
# Written out here for teaching and checked against the package function (NumPy's
# eigen-solver) and SciPy's left eigenvectors:


# %%
def power_iteration(P, start, tol=1e-12, max_steps=100_000):
    """Stationary distribution by repeated multiplication pi <- pi P (for teaching)."""
    pi = np.asarray(start, dtype=float)
    for step in range(max_steps):
        new = pi @ P
        if np.abs(new - pi).sum() < tol:
            return new, step + 1
        pi = new
    raise RuntimeError("power iteration did not converge")


def scipy_stationary(P):
    """Stationary distribution from SciPy's left eigenvector for the eigenvalue closest to 1."""
    values, left = scipy.linalg.eig(P, left=True, right=False)
    vector = np.real(left[:, np.argmin(np.abs(values - 1))])
    return vector / vector.sum()


show(mc.stationary_distribution)
for name, P, start, truth in (
    ("seed 002", mc.SEED_002_P, mc.SEED_002_START, mc.SEED_002_STATIONARY),
    ("seed 004", mc.SEED_004_P, mc.SEED_004_START, mc.SEED_004_STATIONARY),
):
    ours, steps = power_iteration(P, start)
    package = mc.stationary_distribution(P)
    library = scipy_stationary(P)
    print(f"{name}: power iteration {ours.round(6)} ({steps} steps), "
          f"package {package.round(6)}, scipy {library.round(6)}")  # fmt: skip
    assert np.allclose(ours, library, atol=1e-9) and np.allclose(package, library, atol=1e-12)
    assert np.allclose(library, truth, atol=1e-12)

# %% [markdown]
# ## 3. 博文 004 的错误 · An error in seed 004: the stationary distribution of its chain
#
# Seed 004 takes, from Andrieu et al. (2003),
#
# $$ P = \begin{pmatrix} 0 & 1 & 0 \\ 0 & 0.1 & 0.9 \\ 0.6 & 0.4 & 0 \end{pmatrix},
#    \qquad \mu^{(1)} = (0.5, 0.2, 0.3)^T, $$
#
# and says its source claims convergence to $(0.2, 0.4, 0.4)^T$ while the
# author's own program gives $(0.22, 0.41, 0.37)^T$. Solve $\pi = \pi P$:
# $\pi_1 = 0.6\,\pi_3$ and $\pi_3 = 0.9\,\pi_2$, so
# $\pi \propto (0.54, 1, 0.9)$, i.e.
#
# $$ \pi = \frac{(27, 50, 45)}{122} = (0.2213,\ 0.4098,\ 0.3689). $$
#
# The author's measurement is right (to two decimals); $(0.2, 0.4, 0.4)$ is right
# only to one decimal and is **not** stationary: one step moves it.

# %%
claimed = np.array([0.2, 0.4, 0.4])
print("exact (27, 50, 45)/122:", mc.SEED_004_STATIONARY.round(4))
print("claimed          pi P =", claimed @ mc.SEED_004_P, " != claimed", claimed)
print("exact            pi P =", (mc.SEED_004_STATIONARY @ mc.SEED_004_P).round(4))
tv = float(mc.total_variation(claimed, mc.SEED_004_STATIONARY))
print(f"distance of the claim from the truth (total variation): {tv:.4f}")
# the sentences above: pi = (27, 50, 45) / 122; the author's (0.22, 0.41, 0.37) is right to two
# decimals; (0.2, 0.4, 0.4) is right to one decimal only, and one step moves it
assert np.allclose(mc.SEED_004_STATIONARY, np.array([27, 50, 45]) / 122, atol=1e-12)
assert np.array_equal(mc.SEED_004_STATIONARY.round(2), [0.22, 0.41, 0.37])
assert np.array_equal(mc.SEED_004_STATIONARY.round(1), claimed)
assert not np.allclose(claimed @ mc.SEED_004_P, claimed)

# %% [markdown]
# **Another slip of seed 004**: it writes ${\mu^{(t)}}^T = {\mu^{(1)}}^T P^t$. Its
# first distribution is called $\mu^{(1)}$, so after $t - 1$ steps
#
# $$ {\mu^{(t)}}^T = {\mu^{(1)}}^T P^{\,t-1} $$
#
# (with the seed's formula, $t = 1$ would give $\mu^{(1)} = \mu^{(1)} P$, false
# unless the start is already stationary). Checked below: the path's row $t - 1$
# is $\mu^{(1)}P^{t-1}$.
#
# How fast $\mu^{(t)}$ forgets its start: the other two
# eigenvalues of $P$ have modulus about 0.735, so the distance to $\pi$ shrinks
# by about that factor per step (spiralling, because they are complex). Both
# panels count the steps taken, $t - 1$: after $t - 1$ steps the distance is
# about $0.735^{\,t-1}$ times the starting distance.

# %%
path = mc.state_distribution_path(mc.SEED_004_P, mc.SEED_004_START, 40)
mu_1 = mc.SEED_004_START
assert np.allclose(path[1], mu_1 @ mc.SEED_004_P)  # mu^(2) = mu^(1) P^1, the seed's t - 1
assert not np.allclose(mu_1, mu_1 @ mc.SEED_004_P)  # the seed's t = 1 would need mu^(1) = mu^(1) P
distance = mc.total_variation(path, mc.SEED_004_STATIONARY)
eigenvalues = np.linalg.eigvals(mc.SEED_004_P)
moduli = np.sort(np.abs(eigenvalues))
steps_taken = np.arange(len(distance))  # row t - 1 of the path is mu^(t)
rate = np.exp(np.polyfit(steps_taken[:30], np.log(distance[:30]), 1)[0])
print("eigenvalue moduli:", moduli.round(4), f" fitted decay of the distance per step: {rate:.3f}")
# "modulus about 0.735 ... complex ... shrinks by about that factor per step"
assert np.isclose(moduli[0], moduli[1]) and abs(moduli[1] - 0.735) < 5e-4
assert np.iscomplex(eigenvalues).sum() == 2
assert abs(rate - moduli[1]) < 0.02
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
axes[0].plot(steps_taken, path, marker=".")
for value in mc.SEED_004_STATIONARY:
    axes[0].axhline(value, color="k", lw=0.5, ls="--")
axes[0].set_xlabel("steps taken, t − 1")
axes[0].set_ylabel(r"$\mu^{(t)}$")
axes[0].set_title("distribution of the state")
axes[1].semilogy(steps_taken, distance, ".", label=r"TV distance of $\mu^{(t)}$ to π")
axes[1].semilogy(steps_taken, distance[0] * moduli[1] ** steps_taken, "k-",
                 label=rf"${moduli[1]:.3f}^{{\,t-1}}$ × the distance at $t = 1$")  # fmt: skip
axes[1].set_xlabel("steps taken, t − 1")
axes[1].set_title("distance to the stationary distribution")
axes[1].legend()
plt.show()

# %% [markdown]
# ## 4. 不可约与非周期 · Irreducible and aperiodic: when does $\mu^{(t)}$ converge?
#
# Seed 004 (and seed 001's theorem, "设 θ^(t) 是一不可约的非周期的马氏链") names
# two conditions under which $\mu^{(t)}$ converges to the stationary distribution
# whatever the start. **Irreducible** (不可约): every state can reach every other.
# **Aperiodic** (非周期): the possible return times to a state have greatest common
# divisor 1. Seed 004 defines aperiodicity only by a link; here are the
# counterexamples that show why each condition is needed:
#
# * the **cycle** $1 \to 2 \to 3 \to 1$ is irreducible with period 3: $\pi = (1/3,
#   1/3, 1/3)$ is stationary, but $\mu^{(t)}$ started in state 1 rotates forever and
#   never converges (the time average along the chain still does, see below);
# * a **reducible** chain made of two separate pairs of states has many
#   stationary distributions: where it ends depends on where it starts.
#
# **Two different convergences.** Aperiodicity is needed for the *distribution*
# $\mu^{(t)} = \mu^{(1)} P^{\,t-1}$ to converge to $\pi$. The **ergodic theorem**
# (遍历定理) is about the *time average* along one chain: for an irreducible,
# positive recurrent (正常返) chain with stationary distribution $\pi$ (on a finite state
# space every irreducible chain is positive recurrent), $\frac1n \sum_{i=1}^n
# f(x_i) \to E_\pi f$ with probability 1, from any start, **periodic or not**.
# MCMC estimates are such time averages, so they need irreducibility and positive
# recurrence; aperiodicity matters only when the state at one fixed time $t$
# must be a draw from $\pi$ (section 7 shows the cycle's time averages). Seed 003
# cites the ergodic theorem for both:
# "样本的分布趋近平稳分布，样本的函数均值趋近函数的数学期望"; the second holds for a
# periodic chain too, the first does not.

# %%
show(mc.is_irreducible, mc.period)
cycle = np.array([[0.0, 1, 0], [0, 0, 1], [1, 0, 0]])
two_islands = np.array([[0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5], [0, 0, 0.5, 0.5]])
for name, P in (("seed 004", mc.SEED_004_P), ("cycle", cycle), ("two islands", two_islands)):
    irreducible = mc.is_irreducible(P)
    print(f"{name:12s} irreducible: {irreducible!s:5s} period: "
          f"{mc.period(P) if irreducible else '-'}")  # fmt: skip
cycle_path = mc.state_distribution_path(cycle, [1.0, 0, 0], 9)
print("cycle, mu^(t) for t = 1..10 (one column per step):\n", cycle_path.round(2).T)
ends = []
for start in ([1.0, 0, 0, 0], [0, 0, 1.0, 0]):
    ends.append(mc.state_distribution_path(two_islands, start, 50)[-1])
    print(f"two islands from {start}: after 50 steps {ends[-1].round(3)}")
# the bullets above: seed 004's chain is irreducible and aperiodic; the cycle irreducible with
# period 3, rotating forever; the two islands reducible, ending where they started
assert mc.is_irreducible(mc.SEED_004_P) and mc.period(mc.SEED_004_P) == 1
assert mc.is_irreducible(cycle) and mc.period(cycle) == 3
assert np.allclose(cycle_path[3], cycle_path[0]) and not np.allclose(cycle_path[1], cycle_path[0])
assert not mc.is_irreducible(two_islands) and not np.allclose(ends[0], ends[1])

# %% [markdown]
# ## 5. 细致平衡 · Detailed balance is sufficient, not necessary
#
# Seed 003 builds chains through detailed balance, which guarantees that $\pi$ is
# stationary. **Its matrices are column-wise**: seed 003 writes $P\pi = \pi$, so its
# $P_{j,i}$ is the probability of moving from $i$ to $j$, and its detailed balance
# reads $\pi_i P_{j,i} = \pi_j P_{i,j}$. This notebook, like seeds 002 and 004, uses
# rows ($P_{ij}$ = from $i$ to $j$, $\pi P = \pi$), where the same condition reads
# $\pi_i P_{ij} = \pi_j P_{ji}$: the seed's indices are swapped, not its meaning.
# Seed 002 calls the two conditions "equivalent"; they are not. Seed 004's chain
# has a stationary distribution but is not reversible: the probability flows
# $\pi_i P_{ij}$ and $\pi_j P_{ji}$ differ (it cycles 1 → 2 → 3 → 1 more often
# than backwards).

# %%
flows = mc.SEED_004_STATIONARY[:, None] * mc.SEED_004_P
print("flows pi_i P_ij:\n", flows.round(4))
print("detailed balance holds:", np.allclose(flows, flows.T))
print("pi P = pi holds:       ", np.allclose(flows.sum(axis=0), mc.SEED_004_STATIONARY))
# "not reversible ... cycles 1 -> 2 -> 3 -> 1 more often than backwards", yet stationary
assert not np.allclose(flows, flows.T)
assert np.allclose(flows.sum(axis=0), mc.SEED_004_STATIONARY)
assert flows[0, 1] > flows[1, 0] and flows[1, 2] > flows[2, 1] and flows[2, 0] > flows[0, 2]

# %% [markdown]
# ## 6. 模拟与诊断 · Simulating the chain, and the diagnostics of seed 001 §7.1
#
# One chain per starting state, each with its own random stream. The next state
# is drawn by seed 004's partition of $[0, 1]$: a uniform $u$ selects the first
# $j$ with $u < \sum_{l \le j} P_{il}$.

# %%
show(mc.simulate_kernel)
starts = [c % 3 for c in range(chains)]
states = mc.simulate_from_starts(mc.SEED_004_P, tune + draws, starts, seed)
kept = states[:, tune + 1 :]
print("chains x steps kept:", kept.shape)
occupancy = mc.occupancy(kept, 3)
display(
    pd.DataFrame(
        np.vstack([occupancy, mc.SEED_004_STATIONARY, claimed]),
        index=[f"chain {c} (start {s + 1})" for c, s in enumerate(starts)] + ["exact", "claimed"],
        columns=["state 1", "state 2", "state 3"],
    ).round(4)
)

# %% [markdown]
# **Trace plot of several chains** from different starts: a discrete chain's trace
# is hard to read, so plot the indicator of state 3. **Ergodic mean plot**: its
# running mean per chain settles on the same horizontal line, $\pi_3 = 45/122$.

# %%
indicator = (states == 2).astype(float)
running = np.cumsum(indicator, axis=1) / np.arange(1, indicator.shape[1] + 1)
fig, axes = plt.subplots(2, 1, figsize=(9, 5), sharex=True)
for c in range(chains):
    axes[0].plot(states[c, :60] + 0.05 * c, drawstyle="steps-post", lw=1)
axes[0].set_yticks([0, 1, 2], ["state 1", "state 2", "state 3"])
axes[0].set_title("first 60 steps of each chain")
axes[1].plot(running.T, lw=1)
axes[1].axhline(mc.SEED_004_STATIONARY[2], color="k", ls="--", label="exact 45/122")
axes[1].axhline(claimed[2], color="C3", ls=":", label="claimed 0.4")
axes[1].set_ylabel("running mean of 1{state 3}")
axes[1].set_xlabel("step")
axes[1].set_xscale("log")
axes[1].legend()
plt.show()
# "its running mean per chain settles on the same horizontal line, pi_3 = 45/122": within
# 5 standard errors of as many independent draws (this chain's are smaller, see Exercise 3)
n_steps = running.shape[1]
independent = np.sqrt(mc.SEED_004_STATIONARY[2] * (1 - mc.SEED_004_STATIONARY[2]) / n_steps)
assert np.all(np.abs(running[:, -1] - mc.SEED_004_STATIONARY[2]) < 5 * independent)

# %% [markdown]
# **The numbers** (seed 001 §7.2 names the MC error and Gelman–Rubin): for the
# indicator of each state, the ergodic mean, its Monte Carlo standard error
# (蒙特卡洛标准误, MCSE), the effective sample size and $\hat R$ across the chains,
# from `arviz_stats`. The exact value should lie within a few MCSE of the
# estimate; the claimed 0.4 for state 3 should not (at full length). How the ESS
# compares with the number of kept draws, and why, is Exercise 3.

# %%
rows = {}
for s in range(3):
    values = (kept == s).astype(float)
    rows[f"state {s + 1}"] = {
        "ergodic mean": values.mean(),
        "mcse": float(azs.mcse(values, method="mean")),
        "ess_bulk": float(azs.ess(values, method="bulk")),
        "r_hat": float(azs.rhat(values)),
        "exact": mc.SEED_004_STATIONARY[s],
        "claimed": claimed[s],
    }
table = pd.DataFrame(rows).T
table["z vs exact"] = (table["ergodic mean"] - table["exact"]) / table["mcse"]
table["z vs claimed"] = (table["ergodic mean"] - table["claimed"]) / table["mcse"]
display(table.round(4))
# "the exact value within a few MCSE; the claimed 0.4 for state 3 not (at full length)":
# the second holds from about 1000 draws per chain (the tests run 200)
assert (table["z vs exact"].abs() < 4).all()
if draws >= 1000:
    assert abs(table.loc["state 3", "z vs claimed"]) > 4

# %% [markdown]
# ## 7. 动手破坏 · Break it and watch: what the diagnostics cannot see
#
# This notebook has no PyMC twin, so no pair and no bug from the catalogue of
# wrong samplers (every other notebook plants one). Break the chain instead:
# make it periodic. The chains of the 3-cycle, started in different states as in
# section 6, each visit every state a third of the time, so the ergodic means
# settle on 1/3 and $\hat R$ is near 1, although $\mu^{(t)}$ never converges
# (section 4): the ergodic theorem needs no aperiodicity. The diagnostics judge
# averages along the chain, which is what MCMC uses; they cannot detect
# periodicity, which matters only for the distribution at a fixed time $t$.
# (A sampler built by Metropolis–Hastings or Gibbs with any chance of staying
# put is aperiodic.)

# %%
cycle_states = mc.simulate_from_starts(cycle, tune + draws, starts, seed)[:, tune + 1 :]
values = (cycle_states == 0).astype(float)
cycle_rhat = float(azs.rhat(values))
print(
    f"state 1: ergodic mean {values.mean():.4f} (1/3 = {1 / 3:.4f}), "
    f"R-hat {cycle_rhat:.3f}, MCSE {float(azs.mcse(values, method='mean')):.5f}"
)
print("first steps of chain 0:", cycle_states[0, :9] + 1)
# "the ergodic means settle on 1/3 and R-hat is near 1": every chain visits state 1 a third of
# the time (to one visit in a cycle of 3), and R-hat is below the harness's gate of 1.01
assert np.all(np.abs(values.mean(axis=1) - 1 / 3) <= 1 / values.shape[1])
assert cycle_rhat < 1.01

# %% [markdown]
# ## 8. 练习 · Exercises
#
# **Exercise 1.** A two-state chain moves from state 1 to state 2 with probability
# $a = 0.3$ and from 2 to 1 with $b = 0.1$:
# $P = \begin{pmatrix} 0.7 & 0.3 \\ 0.1 & 0.9 \end{pmatrix}$. What is $\pi_1$, the
# stationary probability of state 1? (Balance the flows: $\pi_1 a = \pi_2 b$.)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
two_state = np.array([[0.7, 0.3], [0.1, 0.9]])
ex.check_number(answer, mc.stationary_distribution(two_state)[0], rel=0.01,
                hint="pi_1 a = pi_2 b and pi_1 + pi_2 = 1 give pi_1 = b / (a + b): the state "
                     "that is hard to leave (small b to leave state 2) holds more mass.",
                why="pi_1 = b / (a + b) = 0.1 / 0.4.",
                wrong=0.75)  # a / (a + b): the flows balanced the wrong way round  # fmt: skip

# %% [markdown]
# **Exercise 2.** A random walk on the path 1 – 2 – 3 – 4 moves to a neighbour
# at every step (from an end, to its only neighbour). Give its period (1 if it
# is aperiodic).

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
path_walk = np.array([[0, 1, 0, 0], [0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5], [0, 0, 1, 0.0]])
ex.check_integer(answer, mc.period(path_walk),
                 hint="a random walk can still be periodic: colour the states odd and even; "
                      "every step changes the colour.",
                 why="every step changes the parity of the state, so returns take an even "
                     "number of steps. A chance of staying put makes the period 1.",
                 wrong=1)  # "random, so aperiodic"  # fmt: skip

# %% [markdown]
# **Exercise 3.** In section 6 the chain cycles 1 → 2 → 3 more often than
# independent draws would. Is the MCSE of the ergodic mean of the indicator of
# state 3 (a) larger or (b) smaller than that of as many *independent* draws,
# $\sqrt{\pi_3(1 - \pi_3)/N}$, with $N$ the number of kept draws of all chains?
# (Section 6's table has what you need to check your reasoning.)

# %%
answer = None  # "a" or "b"

# %% jupyter={"source_hidden": true} tags=["checker"]
independent_se = np.sqrt(mc.SEED_004_STATIONARY[2] * (1 - mc.SEED_004_STATIONARY[2]) / kept.size)
measured = table.loc["state 3", "mcse"]
ess_3 = table.loc["state 3", "ess_bulk"]
if draws >= 1000:  # what the explanation of (b) quotes (at the tests' 200 draws, too noisy)
    assert measured < independent_se and ess_3 > kept.size
ex.check_choice(answer, "b", {
    "a": "larger would mean positive autocorrelation (ESS < N). Compute sqrt(pi_3 (1 - pi_3) "
         "/ N) with N = chains x draws kept and compare it with the MCSE in section 6's table.",
    "b": f"smaller: the chain keeps moving on (1 -> 2 -> 3), so the indicator of state 3 is "
         f"negatively autocorrelated and the ESS exceeds N. Here the MCSE is {measured:.5f} "
         f"against {independent_se:.5f} for {kept.size} independent draws, and the ESS of "
         f"state 3 is {ess_3:.0f} for N = {kept.size}.",
}, wrong="a")  # fmt: skip
