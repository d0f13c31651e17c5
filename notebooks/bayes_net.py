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
# # Sampling a Bayesian network given evidence: forward, rejection, Gibbs (seed 004)
#
# **The idea.** A Bayesian network is easy to sample *forward*: draw each node in
# topological order from its table given its parents. Once some nodes are
# *observed*, forward sampling can only throw away the draws that disagree with
# the evidence (rejection sampling), and the fraction it keeps, $P(\text{evidence})$,
# shrinks with every observed node. Gibbs sampling instead updates one unobserved
# node at a time from its distribution given all the others, which depends only
# on its **Markov blanket** (parents, children, children's other parents).
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

import arviz_plots as azp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from comparisons.registry import get_pair
from comparisons.run import run_pair
from handrolled import bayes_net as bn
from models.bayes_net import build_model
from pairdata.bayes_net import default_data


def show(*functions):
    """Display the source of functions that live in the packages."""
    for f in functions:
        source = inspect.getsource(getattr(f, "py_func", f))
        display(Markdown(f"`{f.__module__}.{f.__name__}`\n```python\n{source}```"))


# %% [markdown]
# ## 1. The network
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
# ## 2. Forward sampling and rejection sampling
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

# %% [markdown]
# ## 3. Gibbs sampling on Markov blankets, each conditional next to its function
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
# ## 4. The exact answer, by enumeration
#
# With five binary nodes there are only 32 states: summing the joint over the
# states that agree with the evidence gives the posterior exactly.

# %%
exact = bn.exact_posterior(data["cpts"], data["evidence"])
print({f"P({k}=1 | A=1, E=1)": round(v, 4) for k, v in exact.items()})
show(bn.posterior_table)

# %% [markdown]
# ## 5. The PyMC twin
#
# Each node is a `pm.Bernoulli` whose probability is its table indexed by its
# parents; the evidence nodes are observed. NUTS cannot sample discrete
# variables, so PyMC assigns its `BinaryGibbsMetropolis` step to the free nodes.

# %%
show(build_model)
print(build_model(data).str_repr())

# %% [markdown]
# ## 6. The comparison
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
# *agree*: at 95 % confidence every compared statistic differs between the
# sides by less than 0.2 posterior sd (0.4 for the 5 % and 95 % quantiles), no
# test detected a difference and every side converged; *disagree*: a difference
# too large for Monte Carlo error; *inconclusive*: nothing detected, but the
# draws did not reach that resolution within the budget (an undecided run
# doubles its draws, up to 16 times, before saying so); *not converged*: a side
# failed its $\hat R$ or ESS gates (run longer; expected at the tiny settings of
# the test run).
#
# ## 7. What to look at in the diagnostics
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
# (seed 001 §7.1, the ergodic mean plot) is more telling: all chains should
# settle on the exact probability. Rank plots work for discrete draws too.

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
azp.plot_rank(tree)
plt.show()
