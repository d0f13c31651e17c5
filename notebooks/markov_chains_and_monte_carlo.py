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
# *About 20 minutes to read.* The first notebook; next:
# [Metropolis–Hastings](mh_targets.ipynb) · [Glossary 术语表](GLOSSARY.md) · how the
# suite checks a sampler: [checking a sampler](checking_a_sampler.ipynb)
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
#   in machine learning"), §7 on convergence diagnostics;
# * seed 000, **《马尔科夫链蒙特卡洛应用初窥》** ("a first look at MCMC applications"),
#   for one sentence on the burn-in (section 6).
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
import _exercises as ex
import arviz_stats as azs
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import scipy.linalg
from IPython.display import display

from mcmc_pairs.handrolled import markov_chains as mc
from mcmc_pairs.handrolled import monte_carlo

rng = np.random.default_rng(seed)

# %% [markdown]
# ## 1. 撒米求 π · Monte Carlo: scattering rice to estimate π (seed 002 §3.1)
#
# Scatter $S$ grains uniformly on a square of side $d$; the $C$ that land in the
# inscribed circle satisfy $\frac{C}{S} \approx \frac{\pi (d/2)^2}{d^2}$, so
# $\pi \approx \frac{4C}{S}$. Each grain is a Bernoulli($\pi/4$) trial, so the
# estimate has standard error $4\sqrt{p(1 - p)/S}$ with $p = \pi/4$, about
# $1.642/\sqrt S$. With $d = 2$, centred on the origin:


# %%
def estimate_pi(S, rng):
    """Scatter S grains on the square [-1, 1]^2: 4 C / S and its standard error."""
    x, y = rng.uniform(-1, 1, size=(2, S))
    C = np.count_nonzero(x**2 + y**2 <= 1)  # grains inside the circle of radius 1
    p = C / S
    return 4 * p, 4 * np.sqrt(p * (1 - p) / S)


for n in (100, 10_000, 1_000_000):
    estimate, se = estimate_pi(n, rng)
    print(f"S = {n:>9,}: pi ~ {estimate:.5f} +- {se:.5f}   (error {estimate - np.pi:+.5f})")
# "about 1.642 / sqrt(S)": the standard error of the text, for p = pi / 4
assert round(4 * np.sqrt(np.pi / 4 * (1 - np.pi / 4)), 3) == 1.642

# %% [markdown]
# The error shrinks like $1/\sqrt S$: a hundred times more grains buy one more
# correct digit. The root-mean-square error over 200 repetitions per size, on
# log–log axes, has slope $-1/2$ (`monte_carlo.root_mean_square_errors` repeats the
# estimate above):

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
path = [mc.SEED_002_START]
for _ in range(60):
    path.append(path[-1] @ mc.SEED_002_P)  # pi_{t+1} = pi_t P
print("after 60 steps:", path[-1].round(4), " exact:", mc.SEED_002_STATIONARY)
assert np.allclose(path[-1], [0.625, 0.3125, 0.0625], atol=1e-4)  # "converges to (0.625, ...)"
# the package's mc.state_distribution_path, used below, is this loop
assert np.allclose(mc.state_distribution_path(mc.SEED_002_P, mc.SEED_002_START, 60), path)

# %% [markdown]
# The stationary distribution solves $\pi = \pi P$: it is the left eigenvector of
# $P$ for eigenvalue 1. Repeated multiplication ("power iteration") finds it too.
# Written out here and checked against the package's `mc.stationary_distribution`
# (NumPy's eigenvectors of $P^T$) and SciPy's left eigenvectors:


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
for s in range(3):
    axes[0].plot(steps_taken, path[:, s], marker=".", color=f"C{s}", label=f"state {s + 1}")
    axes[0].axhline(mc.SEED_004_STATIONARY[s], color="k", lw=0.7, ls="--")
axes[0].plot([], [], "k--", lw=0.7, label="exact π")
axes[0].legend(fontsize=8)
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
#
# The package checks both conditions: `mc.is_irreducible(P)` asks whether every state
# reaches every other through moves with $P_{ij} > 0$, and `mc.period(P)` returns the
# greatest common divisor of the lengths of the chain's possible returns (1: aperiodic).

# %%
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
# **Detailed balance** (细致平衡; the condition $\pi_i P_{ij} = \pi_j P_{ji}$ for every
# pair is called the 细致平稳条件, seed 004's "Detailed Balance Condition"; seed 003
# writes 细致平衡方程): the probability flow from $i$ to $j$ equals the flow back.
# Summing over $i$ gives $\pi P = \pi$, so it guarantees that $\pi$ is stationary;
# seed 004 says the chain then "会收敛到 $\pi$" (converges to $\pi$), which also needs
# section 4's conditions: the two islands are in detailed balance with
# $(0, 0, \frac12, \frac12)$, yet a chain started on the first island never gets there.
# Seed 003 builds its chains through detailed balance. **Its matrices are
# column-wise**: seed 003 writes $P\pi = \pi$, so its
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
# "in detailed balance with (0, 0, 1/2, 1/2), yet a chain started on the first island never
# gets there" (section 4's ends[0], started in state 1)
island_pi = np.array([0, 0, 0.5, 0.5])
assert mc.detailed_balance_holds(island_pi, two_islands) and ends[0][2:].sum() == 0

# %% [markdown]
# ## 6. 模拟与诊断 · Simulating the chain: burn-in, traces, ergodic means
#
# The next state is drawn by seed 004's partition of $[0, 1]$: a uniform $u$ selects
# the first $j$ with $u < \sum_{l \le j} P_{il}$. The package's `mc.simulate_chain`
# does exactly this (checked on 1000 steps):


# %%
def next_state(P, i, u):
    """Seed 004's partition of [0, 1]: the first j with u < P_i1 + ... + P_ij."""
    return int(np.searchsorted(np.cumsum(P[i])[:-1], u, side="right"))


ours = [0]
for u in np.random.default_rng(1).random(1000):
    ours.append(next_state(mc.SEED_004_P, ours[-1], u))
assert np.array_equal(ours, mc.simulate_chain(mc.SEED_004_P, 1000, 0, np.random.default_rng(1)))

# %% [markdown]
# **The burn-in** (燃烧期) is the beginning of the chain, $m$ steps (`tune`) that are
# thrown away because the state still remembers its start; seed 003: "到时刻$m$为止的
# 时间段称为燃烧期". Seed 000's LDA algorithm loops "直到进入燃烧期" ("until it
# enters the burn-in"): a slip of wording. The chain does not *enter* the burn-in; it
# runs *through* it, and the draws kept are those after it. Here the burn-in is short
# because section 3's distance to $\pi$ shrinks by 0.735 a step, from any start:

# %%
after_burn_in = max(
    mc.total_variation(mc.state_distribution_path(mc.SEED_004_P, np.eye(3)[s], tune)[-1],
                       mc.SEED_004_STATIONARY)
    for s in range(3)
)  # fmt: skip
print(f"after the burn-in of {tune} steps, from the worst start: TV distance {after_burn_in:.1e}")
assert after_burn_in < 1e-10

# %% [markdown]
# One chain per starting state, each on its own random stream
# (`mc.simulate_from_starts`), then the first steps of each chain (样本路径图, trace
# plot) and the **ergodic mean plot** (遍历均值图): each chain's running mean of the
# indicator of state 3 settles on the same horizontal line, $\pi_3 = 45/122$.

# %%
starts = [c % 3 for c in range(chains)]
states = mc.simulate_from_starts(mc.SEED_004_P, tune + draws, starts, seed)
kept = states[:, tune + 1 :]
occupancy = mc.occupancy(kept, 3)
display(
    pd.DataFrame(
        np.vstack([occupancy, mc.SEED_004_STATIONARY, claimed]),
        index=[f"chain {c} (start {s + 1})" for c, s in enumerate(starts)] + ["exact", "claimed"],
        columns=["state 1", "state 2", "state 3"],
    ).round(4)
)
fig, ax = plt.subplots(figsize=(9, 2.8))
for c in range(chains):
    ax.plot(states[c, :60] + 0.06 * c, drawstyle="steps-post", lw=1, color=f"C{c}",
            label=f"chain {c} (start {starts[c] + 1})")  # fmt: skip
ax.set_yticks([0, 1, 2], ["state 1", "state 2", "state 3"])
ax.set(title="first 60 steps of each chain", xlabel="step")
ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
plt.show()
running = np.cumsum(kept == 2, axis=1) / np.arange(1, kept.shape[1] + 1)
fig, ax = plt.subplots(figsize=(9, 3))
for c in range(chains):
    ax.plot(np.arange(1, kept.shape[1] + 1), running[c], lw=1, color=f"C{c}", label=f"chain {c}")
ax.axhline(mc.SEED_004_STATIONARY[2], color="k", ls="--", label="exact 45/122")
ax.axhline(claimed[2], color="0.5", ls=":", label="claimed 0.4")
ax.set(xscale="log", xlabel="kept steps (log scale)", ylabel="running mean of 1{state 3}",
       title="ergodic mean plot")  # fmt: skip
ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1, 0.5))
plt.show()
# "each chain's running mean settles on pi_3 = 45/122": within 0.02 at the end
assert np.all(np.abs(running[:, -1] - mc.SEED_004_STATIONARY[2]) < 0.02)

# %% [markdown]
# **The numbers** (seed 001 §7.2 names the MC error and Gelman–Rubin), from
# `arviz_stats`, each explained in [checking a sampler](checking_a_sampler.ipynb)
# (sections 2 and 6): the **MCSE** (蒙特卡洛标准误) is the standard error of an
# ergodic mean, allowing for the chain's dependence; the **ESS** (有效样本量) is how
# many independent draws the chains are worth; **$\hat R$** (潜在尺度缩减因子)
# compares the spread between chains with the spread within them, near 1 when they
# agree. The exact value lies within a few MCSE of each ergodic mean; the claimed 0.4
# for state 3 does not (at full length).
#
# **Dependent draws.** Seed 001 says that once a chain is stationary its values
# "可以视为…独立样本" (can be regarded as independent samples). They are draws from
# $\pi$, but each depends on the one before, so the ESS is not the number of kept
# draws $N$. For this chain it is *larger*: it is pushed on round the cycle, so a
# visit makes another visit soon after less likely. For a random walk it is far
# smaller ([Metropolis–Hastings](mh_targets.ipynb), section 3).

# %%
rows = {}
for s in range(3):
    values = (kept == s).astype(float)
    rows[f"state {s + 1}"] = {
        "ergodic mean": values.mean(),
        "mcse": float(azs.mcse(values, method="mean")),
        "ess": float(azs.ess(values, method="bulk")),
        "r_hat": float(azs.rhat(values)),
        "exact": mc.SEED_004_STATIONARY[s],
        "claimed": claimed[s],
    }
table = pd.DataFrame(rows).T
table["(mean - exact) / mcse"] = (table["ergodic mean"] - table["exact"]) / table["mcse"]
table["(mean - claimed) / mcse"] = (table["ergodic mean"] - table["claimed"]) / table["mcse"]
display(table.round(4))
print(f"N = {kept.size} kept draws")
# the paragraphs above: exact within a few MCSE, the claim for state 3 not (from about 1000
# draws a chain; the tests run 200); R-hat near 1; ESS larger than N
assert (table["(mean - exact) / mcse"].abs() < 4).all() and (table["r_hat"] < 1.01).all()
if draws >= 1000:
    assert abs(table.loc["state 3", "(mean - claimed) / mcse"]) > 4
    assert (table["ess"] > 1.2 * kept.size).all()

# %% [markdown]
# ## 7. 动手破坏 · Break it and watch: what the diagnostics cannot see
#
# This notebook has no PyMC twin, so no pair and no bug from the catalogue of
# wrong samplers (every other notebook plants one). Break the chain instead:
# make it periodic. The chains of the 3-cycle, started in different states as in
# section 6, each visit every state a third of the time, so the ergodic means
# settle on 1/3 and $\hat R$ is below 1.01 (the suite's gate), although $\mu^{(t)}$ never converges
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
# **Exercise 3.** In section 6's chain, state 1 is always followed by state 2
# ($P_{11} = 0$). At stationarity, what is the lag-1 autocorrelation of the indicator
# of state 1, the correlation of $1\{x_t = 1\}$ with $1\{x_{t+1} = 1\}$? (Use
# $\pi_1 = 27/122$.)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
pi_1 = mc.SEED_004_STATIONARY[0]
exact_lag1 = (pi_1 * mc.SEED_004_P[0, 0] - pi_1**2) / (pi_1 * (1 - pi_1))
ones = (kept == 0).astype(float)
measured_lag1 = np.mean([np.corrcoef(chain[:-1], chain[1:])[0, 1] for chain in ones])
if draws >= 1000:
    assert abs(measured_lag1 - exact_lag1) < 0.02
ex.check_number(answer, exact_lag1, rel=0.02,
                hint="correlation = (E[I_t I_t+1] - pi_1^2) / (pi_1 (1 - pi_1)), and "
                     "E[I_t I_t+1] = pi_1 P_11: seed 001's 'independent samples' would give 0.",
                why=f"(0 - pi_1^2) / (pi_1 (1 - pi_1)) = -pi_1 / (1 - pi_1) = -27/95 = "
                    f"{exact_lag1:.4f}; the chains measure {measured_lag1:.4f}. Negative "
                    "correlation is why section 6's ESS exceeds N.",
                wrong=0.0)  # independent draws  # fmt: skip
