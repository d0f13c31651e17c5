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
# # Latent Dirichlet allocation by collapsed Gibbs sampling (seeds 000 and 002)
#
# **The idea.** Each document $m$ mixes topics with proportions $\theta_m$; each
# topic $k$ is a distribution $\varphi_k$ over the $V$ words. Every word first
# draws its topic $z_{mn} \sim \mathrm{Mult}(\theta_m)$, then the word
# $w_{mn} \sim \mathrm{Mult}(\varphi_{z_{mn}})$. Because the Dirichlet is conjugate
# to the multinomial, $\theta$ and $\varphi$ integrate out, leaving a posterior
# over the topic assignments $\boldsymbol z$ alone, which Gibbs sampling sweeps
# one token at a time ("collapsed" Gibbs).
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

import arviz_plots as azp
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from comparisons.pairs import lda as lda_pair
from comparisons.registry import get_pair
from comparisons.run import run_pair
from handrolled import _lda_kernels, lda
from models.lda import build_model
from pairdata.lda import BARS_SIDE, default_data


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
# ## 1. The model (seed 000's notation)
#
# $$ \varphi_k \sim \mathrm{Dir}(\beta),\quad \theta_m \sim \mathrm{Dir}(\alpha),\quad
#    z_{mn} \sim \mathrm{Mult}(\theta_m),\quad w_{mn} \sim \mathrm{Mult}(\varphi_{z_{mn}}), $$
#
# $$ p(\boldsymbol{w, z}, \theta, \varphi \mid \alpha, \beta) =
#    \prod_{k=1}^K p(\varphi_k \mid \beta) \prod_{m=1}^M p(\theta_m \mid \alpha)
#    \prod_{n=1}^{N_m} p(z_{mn} \mid \theta_m)\, p(w_{mn} \mid z_{mn}, \varphi). $$
#
# Symmetric hyperparameters here, $\alpha = \beta = 1$.

# %%
data = default_data()
print(f"D = {len(data['docs'])} documents, V = {data['V']} words, K = {data['K']} topics, "
      f"{sum(len(doc) for doc in data['docs'])} tokens, alpha = {data['alpha']}, "
      f"beta = {data['beta']}")  # fmt: skip
draw_topics({"true bars": data["true_phi"]})
counts = lda_pair.word_counts(data)
draw_topics({"documents 0-9": counts[:10] / counts[:10].sum(axis=1, keepdims=True)})

# %% [markdown]
# ## 2. The collapsed full conditional, next to its function
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
# topic from the conditional, add it back. The sampler runs the same sweep
# compiled with numba (one token's step is `resample_token`); the tests check
# that the two give the same topics, bit for bit:

# %%
show(lda.gibbs_sweep, _lda_kernels.resample_token)

# %% [markdown]
# ## 3. From topic assignments to $\theta$ and $\varphi$
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
# ## 4. The PyMC twin
#
# NUTS cannot sample the discrete $\boldsymbol z$, so the twin sums each token's
# topic out instead: $\log p(w_m \mid \theta_m, \varphi) = \sum_w n_{mw} \log \sum_k
# \theta_{mk}\varphi_{kw}$, with the same Dirichlet priors.

# %%
show(build_model)
print(build_model(data).str_repr())

# %% [markdown]
# ## 5. The comparison
#
# Topics are exchangeable: every chain of either side settles on the bars in
# some order (one of $K!$ labellings). Before any statistic, each chain's topics
# are relabelled to match the first NUTS chain by Hungarian matching on the
# Hellinger distance between topics:

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
# *agree*: at 95 % confidence every compared statistic differs between the
# sides by less than 0.2 posterior sd (0.4 for the 5 % and 95 % quantiles), no
# test detected a difference and every side converged; *disagree*: a difference
# too large for Monte Carlo error; *inconclusive*: nothing detected, but the
# draws did not reach that resolution within the budget (an undecided run
# doubles its draws, up to 16 times, before saying so); *not converged*: a side
# failed its $\hat R$ or ESS gates (run longer; expected at the tiny settings of
# the test run). With
# $DK + KV = 650$ scalar components the table is long; the largest z-scores of
# the hand-written side against NUTS:

# %%
agreement = checks[checks["kind"] == "agreement"]
display(agreement.reindex(agreement["value"].abs().sort_values(ascending=False).index).head(10))

# %% [markdown]
# ## 6. What to look at in the diagnostics
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
# the trace and rank plots of the hand-written side's log likelihood:

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
azp.plot_rank(loglik.to_dataset(name="loglik_per_token"))
plt.show()
