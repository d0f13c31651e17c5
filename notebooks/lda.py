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
# # LDA 的坍缩吉布斯采样 · Latent Dirichlet allocation by collapsed Gibbs sampling
#
# *Reading order 6 of 6.* Previous: [Bayes net](bayes_net.ipynb) ·
# [Glossary 术语表](GLOSSARY.md) · [how to read a verdict](reading_a_verdict.ipynb)
#
# The seeds: seed 000, **《马尔科夫链蒙特卡洛应用初窥》** ("A first look at
# applications of Markov chain Monte Carlo"; the title as the post writes it,
# 马尔可夫 in standard usage), its LDA part (the Dirichlet and
# multinomial distributions, the generative process, the collapsed sampler);
# and seed 002, **《LDA算法理解（二）：Gibbs Sampling》** ("Understanding LDA,
# part 2: Gibbs sampling"), §3.5, the derivation of the collapsed conditional.
#
# **The idea.** Each document $m$ mixes topics with proportions $\theta_m$; each
# topic $k$ is a distribution $\varphi_k$ over the $V$ words. Every word first
# draws its topic $z_{mn} \sim \mathrm{Mult}(\theta_m)$, then the word
# $w_{mn} \sim \mathrm{Mult}(\varphi_{z_{mn}})$. Because the Dirichlet (狄利克雷分布)
# is conjugate (共轭) to the multinomial (多项分布（原文作"多项式分布"）), $\theta$
# and $\varphi$ integrate out, leaving a posterior over the topic assignments
# $\boldsymbol z$ alone, which Gibbs sampling sweeps one token at a time
# ("collapsed" Gibbs sampling, 坍缩吉布斯采样; seed 000 calls it simply 吉布斯抽样).
#
# The corpus is the "bars" corpus of Griffiths and Steyvers (2004): 5 x 5 images
# whose 25 pixels are the words and whose 10 true topics are the horizontal and
# vertical bars, so we can see whether the topics are found.

# %% tags=["parameters"]
draws = 2000
tune = 1000
chains = 4
seed = 20261122
max_draws = None  # an undecided run grows to 16 x draws (README, "Runs that last until decided")

# %%
# %matplotlib inline
import inspect
import re
from pathlib import Path

import _exercises as ex
import arviz_plots as azp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display
from scipy import special, stats

import mcmc_pairs
from mcmc_pairs.comparisons import report
from mcmc_pairs.comparisons.pairs import lda as lda_pair
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import run_pair
from mcmc_pairs.handrolled import _lda_kernels, lda, wrong_samplers
from mcmc_pairs.models.lda import build_model
from mcmc_pairs.pairdata.lda import BARS_SIDE, bars_corpus, default_data


def show(*functions):
    """Display the source of functions that live in the packages."""
    for f in functions:
        source = inspect.getsource(getattr(f, "py_func", f))
        display(Markdown(f"`{f.__module__}.{f.__name__}`\n```python\n{source}```"))


def draw_topics(rows, side=BARS_SIDE):
    """Draw each row's topics (K, V) as side x side images, one row of images per entry."""
    K = next(iter(rows.values())).shape[0]
    fig, axes = plt.subplots(len(rows), K, figsize=(0.9 * K, 1.0 * len(rows)), squeeze=False)
    for i, (label, phi) in enumerate(rows.items()):
        for k in range(K):
            axes[i, k].imshow(phi[k].reshape(side, side), cmap="Greys", vmin=0)
            axes[i, k].set_xticks([])
            axes[i, k].set_yticks([])
        axes[i, 0].set_ylabel(label, rotation=0, ha="right", va="center", fontsize=8)
    plt.show()


# %% [markdown]
# ## 1. 狄利克雷分布与 Δ(α) · The Dirichlet distribution and $\Delta(\alpha)$
#
# Seed 000 defines the Dirichlet density with the multivariate Beta function
# $B(\alpha)$; seed 002 renames it $\Delta(\alpha)$ and uses it throughout, but
# defines it only in passing. On the simplex $\theta_k \ge 0$, $\sum_k \theta_k = 1$:
#
# $$ \mathrm{Dir}(\theta \mid \alpha) =
#    \frac{1}{\Delta(\alpha)}\prod_{k=1}^K \theta_k^{\alpha_k - 1},
#    \qquad \Delta(\alpha) = \int \prod_{k=1}^K \theta_k^{\alpha_k - 1}\,d\theta
#    = \frac{\prod_{k=1}^K \Gamma(\alpha_k)}{\Gamma\left(\sum_{k=1}^K \alpha_k\right)}. $$
#
# $\Delta(\alpha)$ is the normalising constant. Written out here for teaching,
# checked against SciPy's Dirichlet density:


# %%
def log_delta(alpha):
    """log Delta(alpha) = sum log Gamma(alpha_k) - log Gamma(sum alpha_k) (for teaching)."""
    alpha = np.asarray(alpha, dtype=float)
    return special.gammaln(alpha).sum() - special.gammaln(alpha.sum())


def dirichlet_logpdf(theta, alpha):
    """log Dir(theta | alpha) = sum (alpha_k - 1) log theta_k - log Delta(alpha)."""
    return ((np.asarray(alpha) - 1) * np.log(theta)).sum(axis=-1) - log_delta(alpha)


check_rng = np.random.default_rng(seed)
alpha3 = np.array([2.0, 3.0, 1.5])
points = check_rng.dirichlet(np.ones(3), size=5)
ours = dirichlet_logpdf(points, alpha3)
scipy_values = np.array([stats.dirichlet.logpdf(t, alpha3) for t in points])
print("our log density:  ", ours.round(6))
print("scipy's:          ", scipy_values.round(6))
assert np.allclose(ours, scipy_values)
print(f"Delta((1, 1)) = {np.exp(log_delta([1, 1])):.4f}, Delta((2, 3, 1.5)) = "
      f"{np.exp(log_delta(alpha3)):.6f}")  # fmt: skip

# %% [markdown]
# ## 2. 共轭 · Dirichlet–multinomial conjugacy, checked numerically
#
# With prior $\mathrm{Dir}(\theta \mid \alpha)$ and counts $n = (n_1, \ldots, n_K)$ of
# draws from $\theta$ (likelihood $\prod_k \theta_k^{n_k}$), the posterior is
#
# $$ p(\theta \mid n) \propto \prod_k \theta_k^{n_k} \cdot \prod_k \theta_k^{\alpha_k - 1}
#    \;\Longrightarrow\; p(\theta \mid n) = \mathrm{Dir}(\theta \mid \alpha + n), $$
#
# with normalising constant $\Delta(\alpha + n)/\Delta(\alpha)$: exactly the ratios
# in seed 002's collapsed formula (section 4). Check: $\log(\text{likelihood}
# \times \text{prior}) - \log \mathrm{Dir}(\theta \mid \alpha + n)$ must be the same
# constant, $\log \Delta(\alpha + n) - \log \Delta(\alpha)$, at every $\theta$:

# %%
counts3 = np.array([4, 1, 2])
grid = check_rng.dirichlet(np.ones(3), size=1000)
unnormalised = (counts3 * np.log(grid)).sum(axis=1) + dirichlet_logpdf(grid, alpha3)
difference = unnormalised - dirichlet_logpdf(grid, alpha3 + counts3)
print(f"log(likelihood x prior) - log Dir(alpha + n): min {difference.min():.10f}, "
      f"max {difference.max():.10f}")  # fmt: skip
constant = log_delta(alpha3 + counts3) - log_delta(alpha3)
print(f"log Delta(alpha + n) - log Delta(alpha) = {constant:.10f}")
assert np.allclose(difference, log_delta(alpha3 + counts3) - log_delta(alpha3))

# %% [markdown]
# **An error in seed 000.** It writes the posterior of a document's topic
# proportions as
#
# $$ p(\theta_m \mid \boldsymbol z_m, \alpha) = \frac{1}{Z_{\theta_m}} \prod_{n=1}^{N_m}
#    p(z_{mn} \mid \theta_m)\, p(\theta_m \mid n_m + \alpha), $$
#
# the likelihood times a
# "prior" that already contains the counts $n_m$. That counts the data twice: the
# product normalises to $\mathrm{Dir}(\alpha + 2n_m)$, not $\mathrm{Dir}(\alpha + n_m)$.
# The prior is $p(\theta_m \mid \alpha)$; the result, $\mathrm{Dir}(\theta_m \mid
# n_m + \alpha)$, is the seed's (right) final answer. Numerically:

# %%
twice = (counts3 * np.log(grid)).sum(axis=1) + dirichlet_logpdf(grid, alpha3 + counts3)
spread = {name: np.ptp(twice - dirichlet_logpdf(grid, a))
          for name, a in (("Dir(alpha + n)", alpha3 + counts3),
                          ("Dir(alpha + 2n)", alpha3 + 2 * counts3))}  # fmt: skip
print("seed 000's product is proportional to (spread of the log ratio; 0 = proportional):",
      {k: round(float(v), 10) for k, v in spread.items()})  # fmt: skip
print(
    "posterior mean of theta: right",
    ((alpha3 + counts3) / (alpha3 + counts3).sum()).round(3),
    " data counted twice",
    ((alpha3 + 2 * counts3) / (alpha3 + 2 * counts3).sum()).round(3),
)
# backs "the product normalises to Dir(alpha + 2n), not Dir(alpha + n)"
assert spread["Dir(alpha + 2n)"] < 1e-9 and spread["Dir(alpha + n)"] > 0.1

# %% [markdown]
# ## 3. 生成过程 · The generative process as code, and the model (seed 000's notation)
#
# Seed 000's generative process: draw each topic's word distribution
# $\varphi_k \sim \mathrm{Dir}(\beta)$ and each document's topic proportions
# $\theta_m \sim \mathrm{Dir}(\alpha)$; then for every token draw a topic
# $z_{mn} \sim \mathrm{Mult}(\theta_m)$ and a word $w_{mn} \sim \mathrm{Mult}(\varphi_{z_{mn}})$.
# The bars corpus is simulated the same way, except that its topics are fixed
# (the ten bars) instead of drawn from $\mathrm{Dir}(\beta)$:

# %%
show(bars_corpus)

# %% [markdown]
# **Why the corpus uses $\alpha = 0.1$ and the model $\alpha = 1$.** The corpus
# is simulated with document proportions $\theta_m \sim \mathrm{Dir}(0.1)$, which puts
# most of each document's mass on one to three bars: documents made of few bars
# are what lets any sampler recover the bars. The model's prior is a modelling
# choice, not the simulator: $\alpha = \beta = 1$ are flat priors on the simplex,
# and with 100 tokens per document the data dominate them. A Dirichlet with
# $\alpha < 1$ has a density that goes to infinity at the simplex's edges, which
# in NUTS's unconstrained space becomes long exponential tails that cost it
# several times more steps (`mcmc_pairs.pairdata.lda.default_data`). The comparison does
# not need the model to be the simulator: both sides sample the *same*
# posterior, whatever prior it has.
#
# The model in seed 000's notation:
#
# $$ \varphi_k \sim \mathrm{Dir}(\beta),\quad \theta_m \sim \mathrm{Dir}(\alpha),\quad
#    z_{mn} \sim \mathrm{Mult}(\theta_m),\quad w_{mn} \sim \mathrm{Mult}(\varphi_{z_{mn}}), $$
#
# $$ p(\boldsymbol{w, z}, \theta, \varphi \mid \alpha, \beta) =
#    \prod_{k=1}^K p(\varphi_k \mid \beta) \prod_{m=1}^M p(\theta_m \mid \alpha)
#    \prod_{n=1}^{N_m} p(z_{mn} \mid \theta_m)\, p(w_{mn} \mid z_{mn}, \varphi). $$
#
# Symmetric hyperparameters in the model, $\alpha = \beta = 1$.

# %%
data = default_data()
print(f"D = {len(data['docs'])} documents, V = {data['V']} words, K = {data['K']} topics, "
      f"{sum(len(doc) for doc in data['docs'])} tokens, alpha = {data['alpha']}, "
      f"beta = {data['beta']}")  # fmt: skip
# backs the text: ten bars on 5 x 5 pixels, 100 tokens per document, alpha = beta = 1
assert (data["K"], data["V"]) == (10, 25) and {len(doc) for doc in data["docs"]} == {100}
assert data["alpha"] == data["beta"] == 1
draw_topics({"true bars": data["true_phi"]})
counts = lda_pair.word_counts(data)
draw_topics({"documents 0-9": counts[:10] / counts[:10].sum(axis=1, keepdims=True)})

# %% [markdown]
# ## 4. 坍缩后的满条件分布 · The collapsed full conditional, next to its function
#
# Integrating out $\theta$ and $\varphi$ (seed 002, §3.5.1):
#
# $$ p(\boldsymbol w, \boldsymbol z \mid \alpha, \beta) =
#    \prod_{k=1}^K \frac{\Delta(\vec n_k + \vec\beta)}{\Delta(\vec\beta)}
#    \prod_{m=1}^M \frac{\Delta(\vec n_m + \vec\alpha)}{\Delta(\vec\alpha)}, $$
#
# and the ratio for one token $i$ (word $v$ in document $m$), all counts taken
# *without* that token (seed 000):
#
# $$ p(z_i = k \mid \boldsymbol z_{-i}, \boldsymbol w) \propto
#    \frac{n_{kv} + \beta}{\sum_{v=1}^V (n_{kv} + \beta)} \cdot
#    \frac{n_{mk} + \alpha}{\sum_{k=1}^K (n_{mk} + \alpha)}
#    \propto (n_{mk} + \alpha)\,\frac{n_{kv} + \beta}{n_k + V\beta}. $$
#
# The document's denominator $\sum_k (n_{mk} + \alpha) = N_m - 1 + K\alpha$ does not
# depend on $k$ and drops out. (Seed 002's last line writes it as
# $\sum_{t=1}^K (n_{m,-i}^{(t)} + K\alpha)$, counting $K\alpha$ $K$ times, and names
# the topic–word parameter $\phi_{m,k}$ where it means $\phi_{k,w}$; seed 000
# calls $n_{mk}$ "the count of topic $k$ in *topic* $m$" where it means
# *document* $m$. None of these change the sampler, since constants in $k$
# cancel when the weights are normalised.)

# %%
show(lda.z_given_rest, lda.sample_z_given_rest)

# %% [markdown]
# The seed's sweep, line by line: remove the token from the counts, draw its new
# topic from the conditional, add it back:

# %%
show(lda.gibbs_sweep)

# %% [markdown]
# **Which code runs.** The harness does not run this Python sweep: its
# `handrolled:gibbs` runs `lda.sample_sparse`, the SparseLDA kernel
# (`"sparse"`), a numba-compiled sweep from the *same* full conditional,
# reorganised for speed (it visits only the topics with non-zero counts, so its
# arithmetic, and its draws, differ from the plain sweep's). (`lda.sample`
# called without `kernel` runs `"auto"`: the dense fast kernel for few topics,
# this one for many, whichever is faster; `lda.auto_kernel` says which.) Two
# steps connect them. First, the compiled plain sweep
# (`_lda_kernels.sweep_plain`, one token's step is `resample_token`) is the
# teaching sweep bit for bit, from the same topics and uniforms:

# %%
show(_lda_kernels.resample_token)
d = lda.validate_data(data)
start_rng = np.random.default_rng(seed)
z0 = start_rng.integers(0, d["K"], size=d["N"]).astype(np.int32)
uniforms = start_rng.random(d["N"])
results = []
for sweep in (lda.gibbs_sweep, _lda_kernels.sweep_plain):
    z = z0.copy()
    n_mk = np.zeros((d["D"], d["K"]), dtype=np.int32)
    n_kv = np.zeros((d["K"], d["V"]), dtype=np.int32)
    n_k = np.zeros(d["K"], dtype=np.int32)
    _lda_kernels.initial_counts(d["words"], d["offsets"], z, n_mk, n_kv, n_k)
    sweep(d["words"], d["offsets"], z, n_mk, n_kv, n_k, d["alpha"], d["beta"], uniforms)
    results.append((z, n_kv))
same = np.array_equal(results[0][0], results[1][0]) and np.array_equal(results[0][1], results[1][1])
print("teaching sweep == compiled plain sweep, bit for bit:", same)
assert same

# %% [markdown]
# Second, the sparse kernel the harness runs and the plain one agree *in
# distribution*: the pair runs both (and a third, dense fast kernel) against
# NUTS, and section 7 shows their verdicts and summaries side by side.

# %% [markdown]
# ## 5. 由 z 得到 θ 与 φ · From topic assignments to $\theta$ and $\varphi$
#
# The seeds end with point estimates,
# $\theta_{mk} = \frac{n_{mk} + \alpha}{\sum_k (n_{mk} + \alpha)}$ and
# $\varphi_{kv} = \frac{n_{kv} + \beta}{\sum_v (n_{kv} + \beta)}$, the means of the
# conditionals (seed 000)
#
# $$ \varphi_k \mid \boldsymbol z, \boldsymbol w \sim \mathrm{Dir}(n_k + \beta), \qquad
#    \theta_m \mid \boldsymbol z \sim \mathrm{Dir}(n_m + \alpha). $$
#
# To compare like with like with NUTS, the sampler *draws* $\theta$ and
# $\varphi$ from these Dirichlets at every kept sweep, so its output is a sample
# of $p(\theta, \varphi \mid \boldsymbol w)$ whose spread can be compared too:

# %%
show(lda.phi_given_z, lda.theta_given_z, lda.sample_phi_given_z)

# %% [markdown]
# ## 6. PyMC 模型 · The PyMC twin
#
# NUTS cannot sample the discrete $\boldsymbol z$, so the twin sums each token's
# topic out instead: $\log p(w_m \mid \theta_m, \varphi) = \sum_w n_{mw} \log \sum_k
# \theta_{mk}\varphi_{kw}$, with the same Dirichlet priors.

# %%
show(build_model)
print(build_model(data).str_repr())

# %% [markdown]
# ## 7. 比较 · The comparison
#
# Topics are exchangeable: every chain of either side settles on the bars in
# some order (one of $K!$ labellings), so "topic 3" of one chain is any topic of
# another. Before any statistic, each chain's topics are relabelled to match
# the first NUTS chain. How close two topics are is measured by the
# **Hellinger distance** between their word distributions,
# $H(p, q) = \sqrt{\tfrac12\sum_v (\sqrt{p_v} - \sqrt{q_v})^2}$, between 0 (equal)
# and 1 (disjoint). The relabelling is the permutation that minimises the total
# distance of matched topics, found by **Hungarian matching** (the assignment
# problem: $K!$ permutations, solved in $O(K^3)$ steps by
# `scipy.optimize.linear_sum_assignment`):

# %%
show(lda_pair.topic_permutation)
result = run_pair(
    get_pair("lda"),
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    progress=print,
)
print("verdict:", result.verdict, result.verdicts)
checks = result.checks
failed = checks[~checks["passed"]]
print(f"{len(failed)} of {len(checks)} checks failed")
display(failed.head(20))

# %% [markdown]
# How to read the verdict: [reading a verdict](reading_a_verdict.ipynb) (at the
# tests' tiny settings "not converged" is expected). With $DK + KV = 650$ scalar
# components the table is long; the largest z-scores of the hand-written side
# against NUTS:

# %%
# backs "DK + KV = 650 scalar components"
assert len(data["docs"]) * data["K"] + data["K"] * data["V"] == 650
agreement = checks[checks["kind"] == "agreement"]
display(agreement.reindex(agreement["value"].abs().sort_values(ascending=False).index).head(10))

# %% [markdown]
# The pair runs three hand-written variants, every one against NUTS: the
# sparse kernel (`handrolled:gibbs`), a dense fast one
# (`handrolled:gibbs_fast`) and the plain kernel (`handrolled:gibbs_plain`), the
# teaching sweep compiled. Their label-free summaries side by side:

# %%
label_free = ["loglik_per_token", "phi_entropy", "theta_entropy"]
print("verdicts:", result.verdicts)
display(pd.concat({label: summary.loc[label_free, ["mean", "sd", "mcse_mean"]]
                   for label, summary in result.summaries.items()}).round(4))  # fmt: skip

# %% [markdown]
# ## 8. 动手破坏 · Break it and watch: the current token left in its counts
#
# Plant the catalogue's `gibbs_keeping_the_current_token`: the seed's sweep with
# its first step skipped, so token $i$ still counts in $n_{mk}$, $n_{kv}$, $n_k$
# while its own topic is redrawn. Each token then votes for the topic it
# already has: topics become too concentrated and too sticky.

# %%
lda_pair_ = get_pair("lda")
print(lda_pair_.wrong)
show(wrong_samplers.resample_token_keeping_it)
broken = run_pair(
    lda_pair_,
    sampler=lda_pair_.wrong["gibbs_keeping_the_current_token"],
    draws=draws,
    tune=tune,
    chains=chains,
    seed=seed,
    max_draws=max_draws,
    pymc_from=result,
    progress=print,
)
print("verdict for the planted bug:", broken.verdict)
judged = broken.checks[broken.checks["side"] == "user"].copy()
judged["quantity kind"] = judged["quantity"].str.extract(r"^([a-z_]+)", expand=False)
display(judged.groupby(["kind", "quantity kind"])["passed"].agg(["size", "sum"])
        .rename(columns={"size": "checks", "sum": "passed"}))  # fmt: skip
display(pd.concat({"correct": result.summaries["handrolled:gibbs"].loc[label_free],
                   "planted bug": broken.summaries["user"].loc[label_free],
                   "NUTS": result.summaries["pymc"].loc[label_free]})
        [["mean", "sd"]].round(4))  # fmt: skip

# %% [markdown]
# **Which check caught it.** Generated from the two tables above, and checked
# against them:


# %%
def failures_by_kind(judged):
    """(kind, quantity kind) -> (checks, failed), for the rows with a failed check."""
    counts = judged.groupby(["kind", "quantity kind"])["passed"].agg(["size", "sum"])
    counts["failed"] = counts["size"] - counts["sum"]
    return {key: (int(row["size"]), int(row["failed"]))
            for key, row in counts.iterrows() if row["failed"]}  # fmt: skip


def caught_sentence(verdict, failures, components):
    """The paragraph saying which checks failed and which passed."""
    listed = [f"the energy check of the joint distribution (`multivariate`, {f} of {n})"
              if kind == "multivariate" else f"the {kind} checks of `{quantity}` ({f} of {n})"
              for (kind, quantity), (n, f) in failures.items()]  # fmt: skip
    text = f"The planted bug's verdict at these settings: **{verdict}**. "
    text += ("Failed: " + "; ".join(listed) + ". ") if listed else "No check failed. "
    if "multivariate" not in {kind for kind, _ in failures}:
        text += "The energy check of the joint distribution (`multivariate`) passed. "
    passed = int(components["passed"].sum())
    return text + (
        f"Of the {len(components)} agreement, diagnostic and support checks of single "
        f"components of θ and φ (and of their products), "
        f"{'every one' if passed == len(components) else passed} passed."
    )


failures = failures_by_kind(judged)
components = judged[judged["quantity kind"].isin(["phi", "theta"])
                    & judged["kind"].isin(["agreement", "diagnostic", "support"])]  # fmt: skip
display(Markdown(caught_sentence(broken.verdict, failures, components)))
bug, nuts = broken.summaries["user"], result.summaries["pymc"]
shift = {q: float((bug.at[q, "mean"] - nuts.at[q, "mean"]) / nuts.at[q, "sd"]) for q in label_free}
print("planted bug's mean minus NUTS's, in posterior sds:",
      {q: round(v, 2) for q, v in shift.items()})  # fmt: skip
component_z = components[components["kind"] == "agreement"]
largest = component_z.loc[component_z["value"].abs().idxmax()]
print(f"largest |z| of a component check: {abs(largest['value']):.1f} ({largest['quantity']}, "
      f"{largest['statistic']}; its threshold {largest['threshold']:.1f})")  # fmt: skip
# backs "a fraction of a posterior sd" (below), at any settings
assert all(abs(v) < 1 for v in shift.values())
if draws >= 1000:  # at the published settings (not the tests' tiny ones):
    # the bug is caught, by label-free summaries, and no component check fails
    assert broken.verdict == "disagree"
    assert {"loglik_per_token", "phi_entropy"} <= {q for _, q in failures}
    assert components["passed"].all()
    # "lower topic entropy and a higher log likelihood per token than NUTS's"
    assert shift["phi_entropy"] < 0 < shift["loglik_per_token"]

# %% [markdown]
# **Why.** Counting each token an extra time for its own topic sharpens every
# conditional, so the buggy chain's topics come out more concentrated than the
# posterior's: lower topic entropy (`phi_entropy`) and a higher log likelihood
# per token than NUTS's (the table above). The shift is small, a fraction of a
# posterior sd (printed above), so it takes quantities whose Monte Carlo error
# is tiny, which do not depend on the topic alignment, and which pool all the
# components into one number to see it: the **label-free summaries**. A check
# of a single component of $\theta$ or $\varphi$ sees that component move by a
# small part of its own sd, with a Monte Carlo error of its own and the
# alignment's noise on top, against a threshold raised by Holm's correction
# over thousands of checks (printed above).

# %%
power_md = Path(mcmc_pairs.__file__).resolve().parents[1] / "benchmarks" / "power.md"
row = re.search(r"^\| lda \| `gibbs_keeping_the_current_token` \| (\d+)/(\d+) \|",
                power_md.read_text(), flags=re.M)  # fmt: skip
caught_runs, runs = map(int, row.groups())
display(Markdown(
    f"The earlier `make power` study (`benchmarks/power.md`, measured before issue 26 changed "
    f"the energy check) records this bug's `disagree` in {caught_runs} of {runs} runs at the "
    "pair's settings; at the tests' tiny settings the verdict may stop at \"not converged\"."
))  # fmt: skip

# %% [markdown]
# ## 9. 诊断 · What to look at in the diagnostics
#
# **The topics themselves**: the aligned posterior-mean topics of both sides,
# drawn as 5 x 5 images next to the true bars.

# %%
K, V = data["K"], data["V"]
topics = {
    label: lda_pair.mean_topics(side.quantities, K, V) for label, side in result.sides.items()
}
truth = data["true_phi"][lda_pair.topic_permutation(data["true_phi"], topics["pymc"])]
draw_topics({"truth": truth, "NUTS": topics["pymc"], "Gibbs": topics["handrolled:gibbs"]})
distance = {
    label: float(np.diag(lda_pair.hellinger_matrix(phi, truth)).mean())
    for label, phi in topics.items()
}
print("mean Hellinger distance to the true bars:", {k: round(v, 3) for k, v in distance.items()})

# %% [markdown]
# **Label-free summaries** (the log likelihood per token and the mean topic
# entropy do not depend on the labelling), their ESS and $\hat R$ per side, and
# the trace and rank plots of the hand-written side's log likelihood, its
# chains thinned to about one draw per two effective draws first (the rank
# plot's test assumes independent draws; how to read its curve and p-value:
# [The diagnostics as drawn](reading_a_verdict.ipynb#the-diagnostics-as-drawn)):

# %%
names = ["loglik_per_token", "phi_entropy", "theta_entropy"]
table = pd.concat(
    {
        label: summary.loc[names, ["mean", "sd", "mcse_mean", "ess_bulk", "ess_tail", "r_hat"]]
        for label, summary in result.summaries.items()
    }
)
display(table.round(4))
print("ESS per second (min bulk ESS over all components):",
      {label: round(result.ess_per_second(label), 1) for label in result.sides})  # fmt: skip

# %%
loglik = result.sides["handrolled:gibbs"].quantities.sel(quantity="loglik_per_token")
azp.plot_trace_dist(loglik.to_dataset(name="loglik_per_token"))
plt.show()
azp.plot_rank(report.near_independent(loglik.to_dataset(name="loglik_per_token")))
plt.show()

# %% [markdown]
# ## 10. 练习 · Exercises
#
# **Exercise 1 (conjugacy).** Prior $\mathrm{Dir}(1, 1, 1)$ on a document's three
# topic proportions; its tokens' topics are counted $n = (3, 0, 1)$. What is the
# posterior mean of $\theta_1$?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
posterior = np.array([1.0, 1, 1]) + np.array([3, 0, 1])
ex.check_number(answer, posterior[0] / posterior.sum(), rel=0.01,
                hint="the posterior is Dir(alpha + n); a Dirichlet's mean is alpha_k / sum(alpha).",
                why="(1 + 3) / (3 + 4) = 4/7.",
                wrong=3 / 4)  # the counts alone, prior forgotten  # fmt: skip

# %% [markdown]
# **Exercise 2 ($\Delta$).** What is $\Delta(\alpha)$ for $\alpha = (2, 2)$?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_number(answer, float(np.exp(log_delta([2.0, 2.0]))), rel=0.01,
                hint="Gamma(2) Gamma(2) / Gamma(4), with Gamma(n) = (n - 1)!.",
                why="1 x 1 / 3! = 1/6: the integral of theta (1 - theta) over [0, 1].",
                wrong=1 / 24)  # Gamma(4) taken as 4! = 24  # fmt: skip

# %% [markdown]
# **Exercise 3 (α).** Had the bars corpus been simulated with $\alpha = 10$
# instead of 0.1, each document would mix (a) one or two bars, (b) nearly all
# ten bars in similar proportions? (Simulate a few documents with
# `np.random.default_rng().dirichlet` to see it, if you like.)

# %%
answer = None  # "a" or "b"

# %% jupyter={"source_hidden": true} tags=["checker"]
mixing_rng = np.random.default_rng(seed)
proportions = mixing_rng.dirichlet(np.full(10, 10.0), size=200)
effective_topics = float((1 / (proportions**2).sum(axis=1)).mean())
assert effective_topics > 5  # backs answer (b): nearly all ten bars
ex.check_choice(answer, "b", {
    "a": "small alpha (0.1) concentrates a document on few topics; large alpha spreads it.",
    "b": "right: Dir(10, ..., 10) is concentrated near the uniform mixture, so every "
         "document shows every bar and the bars become hard to tell apart (200 simulated "
         f"documents mix {effective_topics:.1f} topics on average, 1 / sum of squared "
         "proportions).",
}, wrong="a")  # fmt: skip
