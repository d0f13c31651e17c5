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
# *Reading order 5 of 6.* Previous: [regression](regression.ipynb) · next:
# [LDA](lda.ipynb) · [Glossary 术语表](GLOSSARY.md) ·
# [how to read a verdict](reading_a_verdict.ipynb)
#
# The seed: seed 004, **《MCMC and Gibbs Sampling》** (a Chinese post with an
# English title, "MCMC and Gibbs sampling"), its sampling of a graph by
# forward sampling, by rejection and by Gibbs, and its transition matrix
# $P_{\boldsymbol{xy}}$ of the Gibbs chain (section 4 here).
#
# **The idea.** A Bayesian network is easy to sample *forward*: draw each node in
# topological order from its table given its parents. Once some nodes are
# *observed*, forward sampling can only throw away the draws that disagree with
# the evidence (rejection sampling, 拒绝采样), and the fraction it keeps, $P(\text{evidence})$,
# shrinks with every observed node. Gibbs sampling instead updates one unobserved
# node at a time from its distribution given all the others, which depends only
# on its **Markov blanket** (马尔可夫毯: parents, children, children's other parents).
#
# The parameters below are the run lengths for both sides.

# %% tags=["parameters"]
draws = 1000
tune = 1000
chains = 4
seed = 20261122
max_draws = None  # an undecided run grows to 16 x draws (README, "Runs that last until decided")

# %%
# %matplotlib inline
import inspect

import _exercises as ex
import arviz_plots as azp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from mcmc_pairs.comparisons import report
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import run_pair
from mcmc_pairs.handrolled import bayes_net as bn
from mcmc_pairs.handrolled import markov_chains as mc
from mcmc_pairs.models.bayes_net import build_model
from mcmc_pairs.pairdata.bayes_net import default_data


def show(*functions):
    """Display the source of functions that live in the packages."""
    for f in functions:
        source = inspect.getsource(getattr(f, "py_func", f))
        display(Markdown(f"`{f.__module__}.{f.__name__}`\n```python\n{source}```"))


# %% [markdown]
# ## 1. 网络 · The network
#
# The seed's graph: $A \to C \leftarrow B$, $B \to D$, $C \to E$, so
#
# $$ P(A, B, C, D, E) = P(A)\,P(B)\,P(C \mid A, B)\,P(D \mid B)\,P(E \mid C). $$
#
# The seed gives no tables; every node here is binary and the tables are ours
# (each entry is $P(\text{node} = 1 \mid \text{parents})$):

# %%
data = default_data()
for node, table in data["cpts"].items():
    print(f"P({node}=1 | {', '.join(bn.PARENTS[node]) or '-'}):", np.asarray(table).tolist())
print("evidence:", data["evidence"])
show(bn.node_given_parents, bn.joint_probability)

# %% [markdown]
# ## 2. 前向采样与拒绝采样 · Forward sampling and rejection sampling
#
# Forward sampling follows the seed's recipe: a uniform $r$ picks the value whose
# slice of $[0, 1]$ contains it, node by node in topological order.

# %%
show(bn.forward_sample)

# %% [markdown]
# To estimate $P(B = b \mid A = a)$ the seed keeps only the forward draws with
# $A = a$:
# $P(B = b \mid A = a) \approx N_{B = b, A = a} / N_{A = a}$. The kept fraction is
# $P(\text{evidence})$, so every extra observed node makes it slower; this is the
# seed's argument for MCMC:

# %%
rng = np.random.default_rng(seed)
observed, exact_fraction = bn.acceptance_fractions(data["cpts"], bn.EVIDENCE_SEQUENCE, 20_000, rng)
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
# backs "every extra observed node makes it slower": P(evidence) falls with each node
assert np.all(np.diff(exact_fraction) < 0)

# %% [markdown]
# ## 3. 马尔可夫毯上的 Gibbs 采样 · Gibbs sampling on Markov blankets
#
# Each full conditional (满条件分布) next to its function.
#
# The seed defines the Gibbs chain: from state $\boldsymbol x$, pick node $i$ and
# set it to $y_i$ with probability $\pi(y_i \mid \boldsymbol x_{-i})$; in practice
# the nodes are updated in a fixed order. In a Bayesian network
# $\pi(x_i \mid \boldsymbol x_{-i})$ keeps only the factors that contain $x_i$:
#
# $$ P(B \mid A, C, D) \propto P(B)\,P(C \mid A, B)\,P(D \mid B) $$

# %%
show(bn.b_given_blanket)

# %% [markdown]
# $$ P(C \mid A, B, E) \propto P(C \mid A, B)\,P(E \mid C) $$

# %%
show(bn.c_given_blanket)

# %% [markdown]
# $$ P(D \mid B, \ldots) = P(D \mid B) \quad\text{(D has no children)} $$

# %%
show(bn.d_given_blanket)

# %% [markdown]
# A draw from a blanket conditional is a Bernoulli draw by a uniform, as in
# forward sampling. A sweep updates the unobserved nodes in turn, as the seed's
# pseudo-code does (all chains at once); the sampler keeps the state after each
# sweep:

# %%
show(bn.sample_node_given_blanket, bn.gibbs_sweep, bn.sample)

# %% [markdown]
# ## 4. 转移矩阵 · Seed 004's transition matrix $P_{\boldsymbol{xy}}$, built and checked
#
# Seed 004 defines the Gibbs chain by its transition probabilities: pick node
# $i$ with probability $q(i)$ and redraw it from $\pi(y_i \mid \boldsymbol x_{-i})$, so
#
# * $P_{\boldsymbol{xy}} = 0$ when $\boldsymbol x$ and $\boldsymbol y$ differ in two or more nodes,
# * $P_{\boldsymbol{xy}} = q(i)\,\pi(y_i \mid \boldsymbol x_{-i})$ when they differ in node $i$
#   only,
# * $P_{\boldsymbol{xx}} = \sum_i q(i)\,\pi(x_i \mid \boldsymbol x_{-i})$,
#
# and says "可以验证" (one can check) that rows sum to 1 and that
# $\pi(\boldsymbol x)P_{\boldsymbol{xy}} = \pi(\boldsymbol y)P_{\boldsymbol{yx}}$, without doing it.
# With $A = 1, E = 1$ observed, the chain lives on the $2^3 = 8$ states of
# $(B, C, D)$. Built from the sampler's own blanket conditionals, with
# $q(i) = 1/3$ (random scan), and checked against the exact posterior of each
# state (the joint, normalised over the 8). Seed 004 writes $P_{\boldsymbol{xy}}$
# from $\boldsymbol x$ to $\boldsymbol y$, rows summing to 1, as the code here
# does (seed 003 writes its matrices column-wise, $P\pi = \pi$). The matrix
# itself is shown after Exercise 2, which asks about one of its entries:

# %%
show(bn.gibbs_transition_matrices)
chain = bn.gibbs_transition_matrices(data["cpts"], data["evidence"])
labels = ["".join(map(str, s[[1, 2, 3]])) for s in chain["states"]]
print("states (B C D):", labels)
print("rows sum to 1:", np.allclose(chain["random_scan"].sum(axis=1), 1))
flows = chain["pi"][:, None] * chain["random_scan"]
balanced = mc.detailed_balance_holds(chain["pi"], chain["random_scan"])
print(f"detailed balance pi(x) P_xy = pi(y) P_yx: {balanced} "
      f"(largest |difference| {np.abs(flows - flows.T).max():.1e})")  # fmt: skip
print("pi P = pi:", mc.stationary_exactly(chain["pi"], chain["random_scan"]))
# backs the checks claimed above and "about 10^-17" below
assert np.allclose(chain["random_scan"].sum(axis=1), 1) and balanced
assert mc.stationary_exactly(chain["pi"], chain["random_scan"])
assert np.abs(flows - flows.T).max() < 1e-15

# %% [markdown]
# (Exact up to floating-point rounding: the largest difference of the two flows
# is about $10^{-17}$.) In practice, seed 004 continues, the nodes are updated in
# a fixed order, and our sampler does so: one **sweep** is the product of the
# three single-node matrices, $P_B P_C P_D$. It keeps $\pi$ stationary, but it is
# **not** in detailed balance: seed 003's claim that a whole sweep satisfies the
# detailed balance equation ("就是细致平衡方程", which it writes column-wise,
# $\pi_i P_{j,i} = \pi_j P_{i,j}$) is wrong. Each single-node
# update is reversible; their composition in a fixed order is not (run
# backwards, it would update $D$ first):

# %%
sweep = chain["sweep"]
flows = chain["pi"][:, None] * sweep
print("sweep: pi P = pi:", mc.stationary_exactly(chain["pi"], sweep),
      "  detailed balance:", mc.detailed_balance_holds(chain["pi"], sweep),
      f"(largest |difference| {np.abs(flows - flows.T).max():.3f})")  # fmt: skip
for node, single in chain["single"].items():
    balanced = mc.detailed_balance_holds(chain["pi"], single)
    print(f"single update of {node}: detailed balance {balanced}")
    assert balanced  # "each single-node update is reversible"
# "it keeps pi stationary, but it is not in detailed balance"
assert mc.stationary_exactly(chain["pi"], sweep)
assert not mc.detailed_balance_holds(chain["pi"], sweep)

# %% [markdown]
# ## 5. 精确解 · The exact answer, by enumeration
#
# With five binary nodes there are only 32 states: summing the joint over the
# states that agree with the evidence gives the posterior exactly.

# %%
exact = bn.exact_posterior(data["cpts"], data["evidence"])
print({f"P({k}=1 | A=1, E=1)": round(v, 4) for k, v in exact.items()})
show(bn.posterior_table)

# %% [markdown]
# ## 6. PyMC 模型 · The PyMC twin
#
# Each node is a `pm.Bernoulli` whose probability is its table indexed by its
# parents; the evidence nodes are observed. NUTS cannot sample discrete
# variables, so PyMC assigns its `BinaryGibbsMetropolis` step to the free nodes.

# %%
show(build_model)
print(build_model(data).str_repr())

# %% [markdown]
# ## 7. 比较 · The comparison
#
# Both hand-written samplers (Gibbs, and rejection with the contract's
# signature) against PyMC and the exact answer. The quantities are the 0/1
# nodes, their centred products (posterior covariances) and the log joint
# probability of each draw; for 0/1 quantities only the mean and sd are compared
# (their quantiles are 0 or 1).

# %%
result = run_pair(
    get_pair("bayes_net"),
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
# ## 8. 动手破坏 · Break it and watch: right marginals, wrong dependence
#
# Plant the catalogue's `right_marginals_wrong_dependence`: every unobserved node
# drawn independently from its *exact* posterior marginal $P(\text{node} \mid e)$.
# Each node's draws are exactly right; the joint is not ($B$ and $C$, $B$ and $D$
# are dependent given $A$ and $E$). The PyMC draws of the run above are reused
# (`pymc_from`):

# %%
pair = get_pair("bayes_net")
print(pair.wrong)
broken = run_pair(
    pair,
    sampler=pair.wrong["right_marginals_wrong_dependence"],
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    pymc_from=result,
    progress=print,
)
print("verdict for the planted bug:", broken.verdict)
judged = broken.checks[(broken.checks["side"] == "user") & (broken.checks["kind"] != "diagnostic")]
display(judged.assign(passed=judged["passed"].astype(int))
        .pivot_table(index=["kind", "quantity"], columns="statistic", values="passed",
                     aggfunc="min"))  # fmt: skip
passed = judged.groupby(["kind", "quantity"])["passed"].all()
# backs "the checks of B, C and D alone pass" (below), at any settings
assert all(passed[(kind, node)] for kind in ("agreement", "exact") for node in "BCD")
if draws >= 1000:  # the failures named below, at the published settings (see the last sentence)
    assert broken.verdict == "disagree"
    assert not passed[("multivariate", "all")]  # the energy check
    for kind in ("agreement", "exact"):
        assert not (passed[(kind, "B*C")] or passed[(kind, "B*D")] or passed[(kind, "logp")])
    assert not passed[("agreement", "log_prior")] and passed[("agreement", "log_likelihood")]

# %% [markdown]
# **Which check caught it, and why the others could not** (1 = passed, 0 =
# failed). The checks of $B$, $C$ and $D$ alone pass: their means are exact by
# construction, and the mean of a 0/1 node is all there is to its distribution.
# What fails is what involves two nodes at once: the **centred products**
# `B*C` and `B*D`, whose means are the posterior covariances (0 for independent
# draws, not 0 in the network), the **energy check** (`multivariate`) of the
# joint distribution, and the log-probability quantities of each draw that
# depend on the nodes jointly (`log_prior`, `logp`); `log_likelihood`,
# $\log P(A = 1) + \log P(E = 1 \mid C)$, depends on $C$ alone and passes.
# Without derived quantities no check could see this bug. (These failures are
# asserted at the published settings; at the tests' tiny settings some of them
# may pass: the covariances are small and need enough draws.)
#
# ## 9. 诊断 · What to look at in the diagnostics
#
# The estimates of $P(\text{node} = 1 \mid e)$ per side against the exact
# values, with their Monte Carlo standard errors:

# %%
rows = {}
for label, summary in result.summaries.items():
    for node in exact:
        rows[(node, label)] = {
            "estimate": summary.at[node, "mean"],
            "mcse": summary.at[node, "mcse_mean"],
            "exact": exact[node],
            "ess_bulk": summary.at[node, "ess_bulk"],
            "r_hat": summary.at[node, "r_hat"],
        }
display(pd.DataFrame(rows).T.round(4))

# %% [markdown]
# For 0/1 chains a trace plot is a barcode; the **running mean** of each chain
# (seed 001 §7.1, the ergodic mean plot, 遍历均值图) is more telling: all chains should
# settle on the exact probability. A rank plot's test wants distinct draws, and
# 0/1 draws tie: tied, a correct chain gets p = 0.00. So its ties are broken at
# random first, by adding a uniform number in [0, 1) to every draw (the order
# of 0 and 1 is kept), and each chain is thinned to about one draw per two
# effective draws, since the test also assumes independent draws
# (`report.near_independent`, as the report pages draw them; how to read the
# plot: [The diagnostics as drawn](reading_a_verdict.ipynb#the-diagnostics-as-drawn)).

# %%
tree = result.sides["handrolled:gibbs"].tree
fig, axes = plt.subplots(1, len(exact), figsize=(12, 3), sharey=True)
for ax, (node, p) in zip(axes, exact.items(), strict=True):
    values = tree["posterior"][node].values
    running = np.cumsum(values, axis=1) / np.arange(1, values.shape[1] + 1)
    ax.plot(running.T, lw=1)
    ax.axhline(p, color="k", ls="--")
    ax.set_title(f"running mean of {node}")
    ax.set_xlabel("draw")
plt.show()

# %%
azp.plot_rank(report.near_independent(tree))  # thinned, ties broken (0/1 draws)
plt.show()

# %% [markdown]
# ## 10. 练习 · Exercises
#
# **Exercise 1.** With only $E = 1$ observed (not $A$), how many states does the
# Gibbs chain on the free nodes have?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
only_e = bn.gibbs_transition_matrices(data["cpts"], {"E": 1})
ex.check_integer(answer, len(only_e["states"]),
                 hint="each free binary node doubles the count; which nodes are free now?",
                 why="four free binary nodes (A, B, C, D): 2^4 = 16 states.",
                 wrong=8)  # 2^3, as if A were still observed  # fmt: skip

# %% [markdown]
# **Exercise 2.** In the random-scan matrix of section 4, what is
# $P_{\boldsymbol{xy}}$ from $(B, C, D) = (0, 0, 0)$ to $(1, 1, 0)$?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
x, y = labels.index("000"), labels.index("110")
ex.check_number(answer, chain["random_scan"][x, y], rel=0, absolute=1e-12,
                hint="how many nodes differ between the two states, and how many can one "
                     "random-scan step change?",
                why="two nodes differ, and one Gibbs update changes at most one node. (A whole "
                    f"sweep B, C, D can: its entry is {chain['sweep'][x, y]:.4f}.)",
                wrong=chain["sweep"][x, y])  # the systematic sweep's entry  # fmt: skip

# %% [markdown]
# The random-scan matrix of section 4, now that you have answered (row
# $\boldsymbol x$, column $\boldsymbol y$; states $(B, C, D)$):

# %%
display(pd.DataFrame(chain["random_scan"], index=labels, columns=labels).round(4))

# %% [markdown]
# **Exercise 3 (find the planted bug).** The catalogue's `gibbs_ignoring_children`
# draws each free node from $P(\text{node} \mid \text{parents})$ instead of its
# Markov blanket, so no node hears of its children: $C$ never hears of the
# evidence $E = 1$. Which check catches it first? (a) the mean of $C$; (b) only
# the products of nodes; (c) only $\hat R$.

# %%
answer = None  # "a", "b" or "c"

# %% jupyter={"source_hidden": true} tags=["checker"]
# The buggy chain is forward sampling with A = 1 clamped: its marginals, exactly.
cpts = data["cpts"]
ignoring_b = float(cpts["B"])  # B has no parents: drawn from P(B)
ignoring_c = ignoring_b * cpts["C"][1, 1] + (1 - ignoring_b) * cpts["C"][1, 0]  # C[A, B]
# the exact posterior means it misses (section 5), re-derived:
# P(B=1, E=1 | A=1) = 0.6 (0.9 x 0.7 + 0.1 x 0.2) = 0.39, P(B=0, E=1 | A=1) = 0.4 x 0.4 = 0.16
assert round(exact["B"], 3) == round(0.39 / 0.55, 3) == 0.709
assert (ignoring_b, round(ignoring_c, 2), round(exact["C"], 3)) == (0.6, 0.7, 0.891)
# and a run of it (PyMC's draws reused): the exact mean checks of B and C fail
ignoring = run_pair(pair, sampler=pair.wrong["gibbs_ignoring_children"], draws=draws,
                    tune=tune, chains=chains, seed=seed, max_draws=max_draws,
                    pymc_from=result, progress=lambda event: None)  # fmt: skip
mean_checks = ignoring.checks[(ignoring.checks["side"] == "user")
                              & (ignoring.checks["kind"] == "exact")
                              & (ignoring.checks["statistic"] == "z(mean)")]  # fmt: skip
mean_passed = mean_checks.set_index("quantity")["passed"]
assert not mean_passed["C"]
if draws >= 1000:  # B's shift (0.11) needs more than the tests' 400 draws to clear Holm's bar
    assert not mean_passed["B"]
ex.check_choice(answer, "a", {
    "a": f"right: C is drawn from P(C | A = 1, B), so P(C = 1) = {ignoring_c:.2f} against the "
         f"exact {exact['C']:.3f}: C's marginal itself is wrong, and its mean check fails. So "
         f"does B's, directly: B has no parents, so it is drawn from P(B = 1) = {ignoring_b:.1f} "
         f"against the exact {exact['B']:.3f}.",
    "b": "products are needed when every marginal is right (section 8); here a marginal "
         "is wrong already.",
    "c": "the chain mixes perfectly well around the wrong distribution; R-hat sees nothing.",
}, wrong="b")  # fmt: skip
