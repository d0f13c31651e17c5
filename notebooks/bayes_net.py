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
# # 贝叶斯网络的采样 · Sampling a Bayesian network given evidence: forward, rejection, Gibbs
#
# *About 20 minutes to read.* Previous: [regression](regression.ipynb) · next:
# [LDA](lda.ipynb) · [Glossary 术语表](GLOSSARY.md) · how the suite checks a
# sampler: [checking a sampler](checking_a_sampler.ipynb)
#
# The seed: seed 004, **《MCMC and Gibbs Sampling》** (a Chinese post with an
# English title), its sampling of a graph by forward sampling, by rejection and
# by Gibbs, and its transition matrix $P_{\boldsymbol{xy}}$ of the Gibbs chain.
#
# **The idea.** A Bayesian network is easy to sample *forward*: draw each node in
# topological order from its table given its parents. Once some nodes are
# *observed*, forward sampling can only throw away the draws that disagree with
# the evidence (rejection sampling, 拒绝采样), and the fraction it keeps,
# $P(\text{evidence})$, shrinks with every observed node. Gibbs sampling
# (吉布斯采样) instead updates one unobserved node at a time from its
# distribution given all the others, which depends only on its **Markov
# blanket** (马尔可夫毯: parents, children, children's other parents).

# %% tags=["parameters"]
draws = 1000
tune = 1000
chains = 4
seed = 20261122
max_draws = None  # an undecided run grows to 16 x draws (README, "Runs that last until decided")

# %%
# %matplotlib inline
import _exercises as ex
import arviz_stats
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import resolve_settings, run_pair
from mcmc_pairs.handrolled import bayes_net as bn
from mcmc_pairs.handrolled import markov_chains as mc
from mcmc_pairs.handrolled import wrong_samplers
from mcmc_pairs.pairdata.bayes_net import default_data

full = draws >= 1000  # the published settings: claims about random draws are asserted there

# %% [markdown]
# ## 1. 网络 · The network
#
# The seed's graph: $A \to C \leftarrow B$, $B \to D$, $C \to E$, so
#
# $$ P(A, B, C, D, E) = P(A)\,P(B)\,P(C \mid A, B)\,P(D \mid B)\,P(E \mid C). $$
#
# The seed gives no tables; every node here is binary and the tables are ours
# (each entry is $P(\text{node} = 1 \mid \text{parents})$, indexed by the
# parents' values; `bn.joint_probability` multiplies the five factors):

# %%
data = default_data()
cpts, evidence = data["cpts"], data["evidence"]
for node, table in cpts.items():
    print(f"P({node}=1 | {', '.join(bn.PARENTS[node]) or '-'}):", np.asarray(table).tolist())
print("evidence:", evidence)

# %% [markdown]
# ## 2. 前向采样与拒绝采样 · Forward sampling and rejection sampling
#
# Forward sampling (`bn.forward_sample`) draws node by node in topological
# order: node $= 1$ when a uniform $r < P(\text{node} = 1 \mid \text{parents})$.
# Rejection keeps only the draws that match the evidence:
# $P(B = b \mid A = a) \approx N_{B = b, A = a} / N_{A = a}$. The kept fraction
# is $P(\text{evidence})$, which falls with every observed node; this is the
# seed's argument for MCMC:

# %%
rng = np.random.default_rng(seed)
observed, exact_fraction = bn.acceptance_fractions(cpts, bn.EVIDENCE_SEQUENCE, 20_000, rng)
display(
    pd.DataFrame(
        {
            "evidence": [", ".join(f"{k}={v}" for k, v in ev.items()) or "none"
                         for ev in bn.EVIDENCE_SEQUENCE],
            "kept (20,000 forward draws)": observed,
            "P(evidence), exact": exact_fraction,
        }
    ).round(4)
)  # fmt: skip
assert np.all(np.diff(exact_fraction) < 0)  # every extra observed node: fewer kept
assert round(exact_fraction[-1], 4) == 0.0126 and 75 < 1 / exact_fraction[-1] < 85

# %% [markdown]
# **Seed 004's node F.** The seed's worst case is
# $P(B = b \mid A = a, C = c, D = d, E = e, F = f)$, but its network has five
# nodes, $A$ to $E$: there is no $F$. Read without it, every node except $B$ is
# observed (the last row: $P(\text{evidence}) = 0.0126$, about one forward draw
# in 80 kept). Then no
# sampler is needed at all: $B$'s Markov blanket is all observed, so its
# posterior is its full conditional (section 4) in closed form:

# %%
last = bn.EVIDENCE_SEQUENCE[-1]  # A = 1, E = 1, D = 0, C = 0: everything but B
state = np.array([[last["A"], 0, last["C"], last["D"], last["E"]]])
by_blanket = float(bn.b_given_blanket(state, cpts)[0])
by_enumeration = bn.exact_posterior(cpts, last)["B"]
print(f"P(B=1 | A=1, C=0, D=0, E=1): blanket formula {by_blanket:.4f}, "
      f"enumeration {by_enumeration:.4f}")  # fmt: skip
assert np.isclose(by_blanket, by_enumeration)

# %% [markdown]
# ## 3. 精确解 · The exact answer, by enumeration
#
# With five binary nodes there are only 32 states: keep those that agree with
# the evidence $e = \{A = 1, E = 1\}$, weight each by the joint, normalise
# (`bn.posterior_table`). That gives each node's posterior probability and also
# how the free nodes depend on each other *given the evidence*: the posterior
# covariance $\operatorname{cov}(X, Y \mid e) =$ $P(X = 1, Y = 1 \mid e)$
# $-\, P(X = 1 \mid e)\,P(Y = 1 \mid e)$ of every pair.

# %%
states, probs = bn.posterior_table(cpts, evidence)
column = {node: states[:, bn.INDEX[node]] for node in "BCD"}
exact = {node: float(probs @ column[node]) for node in "BCD"}
pairs = [("B", "C"), ("B", "D"), ("C", "D")]
exact_cov = {
    f"{x}{y}": float(probs @ (column[x] * column[y])) - exact[x] * exact[y] for x, y in pairs
}
print("P(node=1 | e):", {k: round(v, 4) for k, v in exact.items()})
print("cov(X, Y | e):", {k: round(v, 4) for k, v in exact_cov.items()})
assert exact == bn.exact_posterior(cpts, evidence)
assert {k: round(v, 4) for k, v in exact.items()} == {"B": 0.7091, "C": 0.8909, "D": 0.5545}
# exactly 168, 312 and 84 over 55^2 (P(e) = 0.165 = 0.3 x 0.55)
assert np.allclose([v * 55**2 for v in exact_cov.values()], [168, 312, 84])

# %% [markdown]
# All three covariances are positive: $B$ and $C$ ($B$ is a parent of $C$),
# $B$ and $D$ ($B$ is $D$'s parent), and also $C$ and $D$, $0.0278$, although no
# edge joins them: they are dependent through their common parent $B$, which is
# not observed.
#
# ## 4. 马尔可夫毯上的 Gibbs 采样 · Gibbs sampling on Markov blankets
#
# The seed defines the Gibbs chain: from state $\boldsymbol x$, pick node $i$
# and set it to $y_i$ with probability $\pi(y_i \mid \boldsymbol x_{-i})$, the
# full conditional (满条件分布). In a Bayesian network it keeps only the factors
# that contain $x_i$:
#
# $$ P(B \mid A, C, D) \propto P(B)\,P(C \mid A, B)\,P(D \mid B), \qquad
#    P(C \mid A, B, E) \propto P(C \mid A, B)\,P(E \mid C), \qquad
#    P(D \mid B, \ldots) = P(D \mid B). $$
#
# ($D$ has no children, so its blanket is its parent alone.) The first, written
# out and checked against the package's `bn.b_given_blanket` on every state:


# %%
def p_b_given_blanket(a, c, d):
    """P(B = 1 | A = a, C = c, D = d): the two weights of B = 1 and B = 0, normalised."""
    p_c, p_d = cpts["C"][a], cpts["D"]  # P(C = 1 | A = a, B = b), P(D = 1 | B = b): index b
    weight = [
        (cpts["B"] if b else 1 - cpts["B"])
        * (p_c[b] if c else 1 - p_c[b])
        * (p_d[b] if d else 1 - p_d[b])
        for b in (0, 1)
    ]
    return weight[1] / (weight[0] + weight[1])


everything = bn.all_states()
ours = [p_b_given_blanket(a, c, d) for a, _, c, d, _ in everything]
assert np.allclose(ours, bn.b_given_blanket(everything, cpts))
print("written-out P(B | blanket) equals bn.b_given_blanket on all 32 states")

# %% [markdown]
# A draw from a blanket conditional is a Bernoulli draw by a uniform, as in
# forward sampling. One **sweep** (`bn.gibbs_sweep`) updates $B$, $C$, $D$ in
# turn, each from its blanket given the newest values of the others, as the
# seed's pseudo-code does; `bn.sample` runs the sweeps, every chain from its
# own random start, discards `tune` sweeps (燃烧期, burn-in) and keeps `draws`.
#
# For 0/1 chains a trace plot is a barcode; the **running mean** of each chain
# (遍历均值图, the ergodic mean plot) is more telling: every chain should settle
# on the exact probability of section 3.

# %%
gibbs = bn.sample(data, draws=draws, tune=tune, chains=chains, random_seed=seed)
fig, axes = plt.subplots(1, 3, figsize=(12, 3.2))
for ax, node in zip(axes, "BCD", strict=True):
    values = gibbs[node]
    running = np.cumsum(values, axis=1) / np.arange(1, values.shape[1] + 1)
    for c in range(chains):
        ax.plot(running[c], lw=1, label=f"chain {c}")
    ax.axhline(exact[node], color="k", lw=1.5, label="exact")
    ax.set(title=f"running mean of {node}", xlabel="draw", ylabel=f"P({node}=1 | e)", ylim=(0, 1))
axes[0].legend(fontsize=8)
plt.tight_layout()
plt.show()
estimate = {node: float(gibbs[node].mean()) for node in "BCD"}
mcse = {node: float(arviz_stats.mcse(gibbs[node].astype(float))) for node in "BCD"}
for node in "BCD":
    print(f"{node}: Gibbs {estimate[node]:.4f} ± {mcse[node]:.4f} (MCSE), exact {exact[node]:.4f}")
if full:  # every estimate within 4 Monte Carlo standard errors of the exact value
    assert all(abs(estimate[n] - exact[n]) < 4 * mcse[n] for n in "BCD")

# %% [markdown]
# The "±" is the Monte Carlo standard error (蒙特卡洛标准误, MCSE): the
# uncertainty of a mean of correlated draws, explained in
# [checking a sampler](checking_a_sampler.ipynb), section 2.
#
# ## 5. 转移矩阵 · Seed 004's transition matrix $P_{\boldsymbol{xy}}$, built and checked
#
# Seed 004 defines the Gibbs chain by its transition probabilities: pick node
# $i$ with probability $q(i)$ and redraw it from $\pi(y_i \mid \boldsymbol x_{-i})$:
#
# * $P_{\boldsymbol{xy}} = 0$ when $\boldsymbol x$, $\boldsymbol y$ differ in two or more nodes,
# * $P_{\boldsymbol{xy}} = q(i)\,\pi(y_i \mid \boldsymbol x_{-i})$ when they differ in node $i$,
# * $P_{\boldsymbol{xx}} = \sum_i q(i)\,\pi(x_i \mid \boldsymbol x_{-i})$,
#
# and says "可以验证" (one can check) that rows sum to 1 and that
# $\pi(\boldsymbol x)P_{\boldsymbol{xy}} = \pi(\boldsymbol y)P_{\boldsymbol{yx}}$
# (细致平衡, detailed balance), without doing it. Given $A = 1, E = 1$ the chain
# lives on the $2^3 = 8$ states of $(B, C, D)$; `bn.gibbs_transition_matrices`
# builds $P$ with $q(i) = 1/3$ (random scan), row $\boldsymbol x$, column
# $\boldsymbol y$. Checked against the exact $\pi$ of section 3:

# %%
chain = bn.gibbs_transition_matrices(cpts, evidence)
P, pi = chain["random_scan"], chain["pi"]
labels = ["".join(map(str, s[[1, 2, 3]])) for s in chain["states"]]
flows = pi[:, None] * P
print("states (B C D):", labels)
print("rows sum to 1:", np.allclose(P.sum(axis=1), 1))
print("detailed balance:", mc.detailed_balance_holds(pi, P),
      f"(largest |pi(x) P_xy - pi(y) P_yx| = {np.abs(flows - flows.T).max():.1e})")  # fmt: skip
print("pi P = pi:", mc.stationary_exactly(pi, P))
print("irreducible:", mc.is_irreducible(P), " period:", mc.period(P))
assert np.allclose(P.sum(axis=1), 1) and mc.detailed_balance_holds(pi, P)
assert mc.stationary_exactly(pi, P) and np.abs(flows - flows.T).max() < 1e-15
assert mc.is_irreducible(P) and mc.period(P) == 1

# %% [markdown]
# **Irreducible and aperiodic: here, not always.** The seed says it is easy to
# prove that this chain is irreducible (不可约) and aperiodic (非周期). That
# holds when every state has positive probability, as with our tables (every
# entry strictly between 0 and 1, so each move above has positive
# probability). It fails when a table holds a 0 or a 1. Let $D$ copy $B$
# ($P(D = 1 \mid B) = (0, 1)$): only the states with $D = B$ are possible, and
# from $B = D = 0$ the chain would have to change *two* nodes at once to reach
# $B = D = 1$. Updating $B$ alone would give $D \ne B$ (probability 0), and so
# would updating $D$ alone: the chain never leaves its start's half.

# %%
copying = {**cpts, "D": np.array([0.0, 1.0])}
stuck = bn.gibbs_transition_matrices(copying, evidence)
possible = stuck["pi"] > 0
print("possible states (B C D):", ["".join(map(str, s[[1, 2, 3]]))
                                   for s in stuck["states"][possible]])  # fmt: skip
print("irreducible:", mc.is_irreducible(stuck["random_scan"][np.ix_(possible, possible)]))
stuck_runs = bn.sample({"cpts": copying, "evidence": evidence}, draws=draws, tune=tune,
                       chains=chains, random_seed=seed)  # fmt: skip
print("each chain's mean of B:", stuck_runs["B"].mean(axis=1),
      f" exact P(B=1 | e) = {bn.exact_posterior(copying, evidence)['B']:.4f}")  # fmt: skip
assert not mc.is_irreducible(stuck["random_scan"][np.ix_(possible, possible)])
assert set(np.unique(stuck_runs["B"].mean(axis=1))) <= {0.0, 1.0}  # no chain ever switches B

# %% [markdown]
# Each chain keeps the $B$ it started with: its mean is 0 or 1, never the exact
# answer.
#
# **A sweep is stationary but not reversible.** Our sampler updates the nodes
# in a fixed order, as seed 004 says is done in practice: one sweep is
# $P_B P_C P_D$. It keeps $\pi$ stationary but is **not** in detailed balance
# (seed 003 claims a whole sweep is, "就是细致平衡方程"): each single-node
# update is reversible, their fixed-order product is not.

# %%
sweep = chain["sweep"]
flows = pi[:, None] * sweep
print("sweep: pi P = pi:", mc.stationary_exactly(pi, sweep),
      " detailed balance:", mc.detailed_balance_holds(pi, sweep),
      f"(largest |difference| {np.abs(flows - flows.T).max():.3f})")  # fmt: skip
assert all(mc.detailed_balance_holds(pi, single) for single in chain["single"].values())
assert mc.stationary_exactly(pi, sweep) and not mc.detailed_balance_holds(pi, sweep)

# %% [markdown]
# ## 6. 动手破坏 · Break it and watch: right marginals, wrong dependence
#
# The catalogue's `bayes_net_right_marginals_wrong_dependence` draws every free
# node *independently* from its exact posterior marginal (section 3):
#
# ```python
# for node, p in bn.exact_posterior(cpts, evidence).items():
#     out[node][c] = rng.random(draws) < p
# ```
#
# Each node's draws are exactly right, but the three nodes no longer move
# together: every covariance of section 3 becomes 0. Its draws next to the
# Gibbs draws of section 4 and the exact values (the error bars are ±2 MCSE):

# %%
broken = wrong_samplers.bayes_net_right_marginals_wrong_dependence(
    data, draws=draws, tune=tune, chains=chains, random_seed=seed
)


def covariance(draws_, x, y):
    """The sample covariance of nodes x and y, and its MCSE (from the centred product)."""
    product = (draws_[x] - draws_[x].mean()) * (draws_[y] - draws_[y].mean())
    return float(product.mean()), float(arviz_stats.mcse(product))


runs = {"Gibbs": gibbs, "planted bug": broken}
marginal = {name: {n: (float(r[n].mean()), float(arviz_stats.mcse(r[n].astype(float))))
                   for n in "BCD"} for name, r in runs.items()}  # fmt: skip
cov = {name: {f"{x}{y}": covariance(r, x, y) for x, y in pairs} for name, r in runs.items()}
fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
for ax, values, truth, title in ((axes[0], marginal, exact, "P(node = 1 | e)"),
                                 (axes[1], cov, exact_cov, "cov(X, Y | e)")):  # fmt: skip
    keys = list(truth)
    for j, (name, colour) in enumerate((("Gibbs", "C0"), ("planted bug", "C3"))):
        mean, err = np.array([values[name][k] for k in keys]).T
        ax.errorbar(np.arange(len(keys)) + (j - 0.5) * 0.2, mean, yerr=2 * err, fmt="o",
                    color=colour, label=name)  # fmt: skip
    ax.hlines(list(truth.values()), np.arange(len(keys)) - 0.35, np.arange(len(keys)) + 0.35,
              color="k", label="exact")  # fmt: skip
    ax.set_xticks(range(len(keys)), keys)
    ax.set(title=title, xlabel="node" if truth is exact else "pair of nodes", ylabel="estimate")
axes[1].axhline(0, color="grey", lw=0.5)
axes[0].legend(fontsize=8)
plt.tight_layout()
plt.show()
for key in exact_cov:
    print(f"cov {key}: exact {exact_cov[key]:.4f}, Gibbs {cov['Gibbs'][key][0]:.4f}, "
          f"planted bug {cov['planted bug'][key][0]:.4f}")  # fmt: skip
if full:
    for n in "BCD":  # the bug's marginals are right ...
        assert abs(marginal["planted bug"][n][0] - exact[n]) < 4 * marginal["planted bug"][n][1]
    for key, truth in exact_cov.items():  # ... its covariances are 0, the exact ones are not
        bug, bug_se = cov["planted bug"][key]
        good, good_se = cov["Gibbs"][key]
        assert abs(bug) < 4 * bug_se and abs(good - truth) < 4 * good_se
        assert abs(bug - truth) > 4 * bug_se

# %% [markdown]
# The left panel cannot tell the two samplers apart: the probability of 1 is
# all there is to a 0/1 node's distribution. The right panel can: the bug's
# covariances sit at 0 for all three pairs, $B$–$C$, $B$–$D$ and $C$–$D$, where
# the exact ones are $0.0555$, $0.1031$ and $0.0278$; any question about two
# nodes at once, such as $P(B = 1 \mid D = 1, e)$, gets a wrong answer. To
# catch such a bug, look at quantities of several nodes together (the suite
# compares the centred products $(X - \bar X)(Y - \bar Y)$, whose means are
# these covariances).
#
# No rank plot here. A rank test assumes independent, untied draws: the raw
# ranks of 0/1 draws are tied (and Gibbs draws are correlated), so on them the
# test gives small p-values even for a correct sampler. The suite's report pages
# thin each chain to near-independent draws and break ties at random, which
# makes a 0/1 chain's rank plot usable ([checking a
# sampler](checking_a_sampler.ipynb), section 8).
#
# ## 7. 比较 · The suite's verdict
#
# The suite runs the same comparison against PyMC's twin
# (`models.bayes_net.build_model`: a `pm.Bernoulli` per node, sampled by
# `BinaryGibbsMetropolis`, since NUTS cannot sample discrete nodes), for the
# Gibbs sampler and a rejection sampler. What each of its checks means:
# [checking a sampler](checking_a_sampler.ipynb).

# %%
pair = get_pair("bayes_net")
settings = resolve_settings(pair, draws=draws, tune=tune, chains=chains, seed=seed,
                            max_draws=max_draws)  # fmt: skip
result = run_pair(pair, settings, progress=lambda event: None)
print(f"verdict: {result.verdict} "
      f"({', '.join(f'{side}: {v}' for side, v in result.verdicts.items())})")  # fmt: skip

# %% [markdown]
# ## 8. 练习 · Exercises
#
# **Exercise 1.** With only $E = 1$ observed (not $A$), how many states does the
# Gibbs chain on the free nodes have?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
only_e = bn.gibbs_transition_matrices(cpts, {"E": 1})
ex.check_integer(answer, len(only_e["states"]),
                 hint="each free binary node doubles the count; which nodes are free now?",
                 why="four free binary nodes (A, B, C, D): 2^4 = 16 states.",
                 wrong=8)  # 2^3, as if A were still observed  # fmt: skip

# %% [markdown]
# **Exercise 2.** In the random-scan matrix of section 5 ($q(i) = 1/3$,
# evidence $A = 1, E = 1$), what is $P_{\boldsymbol{xy}}$ from
# $(B, C, D) = (0, 1, 1)$ to $(1, 1, 1)$? (Use the tables of section 1; three
# decimals are enough.)

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
x, y = labels.index("011"), labels.index("111")
to_one = p_b_given_blanket(1, 1, 1)
assert np.isclose(to_one, 0.378 / (0.378 + 0.032)) and np.isclose(P[x, y], to_one / 3)
ex.check_number(answer, P[x, y], rel=0, absolute=0.001,
                hint="one node differs (B): q(B) times P(B = 1 | A = 1, C = 1, D = 1), "
                     "which is proportional to P(B=1) P(C=1 | A=1, B=1) P(D=1 | B=1).",
                why=f"1/3 x {to_one:.4f}: 0.6 x 0.9 x 0.7 = 0.378 against 0.4 x 0.4 x 0.2 = "
                    "0.032 for B = 0, so P(B = 1 | blanket) = 0.378 / 0.41.",
                wrong=to_one)  # q(B) = 1/3 forgotten  # fmt: skip

# %% [markdown]
# The random-scan matrix of section 5, now that you have answered (row
# $\boldsymbol x$, column $\boldsymbol y$; states $(B, C, D)$):

# %%
display(pd.DataFrame(P, index=labels, columns=labels).round(4))

# %% [markdown]
# **Exercise 3 (find the planted bug).** The catalogue's
# `bayes_net_gibbs_ignoring_children` draws each free node from
# $P(\text{node} \mid \text{parents})$ instead of its Markov blanket, so no node
# hears of its children: $C$ never hears of the evidence $E = 1$. What goes
# wrong in its draws? (a) the estimated $P(C = 1 \mid e)$ itself; (b) only the
# covariances between nodes, as in section 6; (c) nothing, it only mixes more
# slowly.

# %%
answer = None  # "a", "b" or "c"

# %% jupyter={"source_hidden": true} tags=["checker"]
# The buggy chain is forward sampling with A = 1 clamped: its marginals, exactly.
ignoring_b = float(cpts["B"])  # B has no parents: drawn from P(B)
ignoring_c = ignoring_b * cpts["C"][1, 1] + (1 - ignoring_b) * cpts["C"][1, 0]  # C[A, B]
assert (ignoring_b, round(ignoring_c, 2)) == (0.6, 0.7)
ignoring = wrong_samplers.bayes_net_gibbs_ignoring_children(
    data, draws=draws, tune=tune, chains=chains, random_seed=seed
)
if full:  # its draws show it: C's mean near 0.70, far from the exact one
    assert abs(ignoring["C"].mean() - ignoring_c) < 0.03 < abs(ignoring["C"].mean() - exact["C"])
ex.check_choice(answer, "a", {
    "a": f"right: C is drawn from P(C | A = 1, B), so its draws give P(C = 1) = "
         f"{ignoring_c:.2f} against the exact {exact['C']:.3f}: a node's own probability is "
         f"wrong. So is B's: it has no parents, so it is drawn from P(B = 1) = "
         f"{ignoring_b:.1f} against the exact {exact['B']:.3f}.",
    "b": "covariances are where to look when every marginal is right (section 6); here a "
         "marginal is wrong already.",
    "c": "the chain mixes perfectly well, around the wrong distribution.",
}, wrong="b")  # fmt: skip
