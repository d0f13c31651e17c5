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
# # 潜在狄利克雷分配的坍缩吉布斯采样 · Latent Dirichlet allocation (LDA) by collapsed Gibbs sampling
#
# *About 20 minutes to read.* Previous: [Bayes net](bayes_net.ipynb) · next:
# [reading a verdict](reading_a_verdict.ipynb) · [Glossary 术语表](GLOSSARY.md) · how the
# suite checks a sampler: [checking a sampler](checking_a_sampler.ipynb)
#
# The seeds: seed 000, **《马尔科夫链蒙特卡洛应用初窥》** ("A first look at
# applications of Markov chain Monte Carlo"; 马尔可夫 in standard usage), its
# part on how Gibbs sampling fits **latent Dirichlet allocation** (潜在狄利克雷分配,
# LDA; the seed: "吉布斯采样如何求解潜在狄利克雷分配(latent Dirichlet
# allocation, LDA)"); and seed 002, **《LDA算法理解（二）：Gibbs Sampling》**
# ("Understanding LDA, part 2: Gibbs sampling"), §3.5, the collapsed conditional.
#
# **The idea.** Each document $m$ mixes topics with proportions $\theta_m$; each
# topic $k$ is a distribution $\varphi_k$ over the $V$ words. Because the
# Dirichlet (狄利克雷分布) is conjugate (共轭) to the multinomial (多项分布;
# 原文作"多项式分布"), $\theta$ and $\varphi$ integrate out, leaving a posterior
# over the topic assignments $\boldsymbol z$ alone, which Gibbs sampling sweeps
# one token at a time: **collapsed Gibbs sampling** (坍缩吉布斯采样, also
# 折叠吉布斯采样). Seed 000 calls it 收缩的吉布斯抽样: "LDA模型的学习通常采用收缩的吉布斯抽样".
#
# The corpus is the "bars" corpus of Griffiths and Steyvers (2004): 5 x 5 images
# whose 25 pixels are the words and whose 10 true topics are the bars.

# %% tags=["parameters"]
draws = 2000
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
from scipy import special, stats

from mcmc_pairs.comparisons.pairs import lda as lda_pair
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import resolve_settings, run_pair
from mcmc_pairs.handrolled import lda, wrong_samplers
from mcmc_pairs.pairdata.lda import BARS_SIDE, DEFAULT_BARS, bars_corpus, default_data

full = draws >= 1000  # the published settings: claims about random draws are asserted there


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
# (多元贝塔函数) $B(\alpha)$; seed 002 renames it $\Delta(\alpha)$. On the simplex
# $\theta_k \ge 0$, $\sum_k \theta_k = 1$:
#
# $$ \mathrm{Dir}(\theta \mid \alpha) =
#    \frac{1}{\Delta(\alpha)}\prod_{k=1}^K \theta_k^{\alpha_k - 1},
#    \qquad \Delta(\alpha) = \int \prod_{k=1}^K \theta_k^{\alpha_k - 1}\,d\theta
#    = \frac{\prod_{k=1}^K \Gamma(\alpha_k)}{\Gamma\left(\sum_{k=1}^K \alpha_k\right)}. $$
#
# $\Delta(\alpha)$ is the normalising constant. Written out, and checked against
# SciPy's Dirichlet density:


# %%
def log_delta(alpha):
    """log Delta(alpha) = sum log Gamma(alpha_k) - log Gamma(sum alpha_k)."""
    alpha = np.asarray(alpha, dtype=float)
    return special.gammaln(alpha).sum() - special.gammaln(alpha.sum())


def dirichlet_logpdf(theta, alpha):
    """log Dir(theta | alpha) = sum (alpha_k - 1) log theta_k - log Delta(alpha)."""
    return ((np.asarray(alpha) - 1) * np.log(theta)).sum(axis=-1) - log_delta(alpha)


check_rng = np.random.default_rng(seed)
alpha3 = np.array([2.0, 3.0, 1.5])
points = check_rng.dirichlet(np.ones(3), size=5)
ours = dirichlet_logpdf(points, alpha3)
print("our log density:", ours.round(6))
print("SciPy's:        ", np.array([stats.dirichlet.logpdf(t, alpha3) for t in points]).round(6))
assert np.allclose(ours, [stats.dirichlet.logpdf(t, alpha3) for t in points])

# %% [markdown]
# ## 2. 共轭 · Dirichlet–multinomial conjugacy, checked numerically
#
# With prior $\mathrm{Dir}(\theta \mid \alpha)$ and counts $n = (n_1, \ldots, n_K)$ of
# draws from $\theta$ (likelihood $\prod_k \theta_k^{n_k}$), the posterior is
#
# $$ p(\theta \mid n) \propto \prod_k \theta_k^{n_k} \cdot \prod_k \theta_k^{\alpha_k - 1}
#    \;\Longrightarrow\; p(\theta \mid n) = \mathrm{Dir}(\theta \mid \alpha + n), $$
#
# with normalising constant $\Delta(\alpha + n)/\Delta(\alpha)$: $\alpha$ acts as
# prior pseudo-counts (先验伪计数), and these ratios are the ones in seed 002's
# collapsed formula (section 4). Check: $\log(\text{likelihood} \times
# \text{prior}) - \log \mathrm{Dir}(\theta \mid \alpha + n)$ must be that same
# constant at every $\theta$:

# %%
counts3 = np.array([4, 1, 2])
grid = check_rng.dirichlet(np.ones(3), size=1000)
difference = (counts3 * np.log(grid)).sum(axis=1) + dirichlet_logpdf(grid, alpha3)
difference -= dirichlet_logpdf(grid, alpha3 + counts3)
constant = log_delta(alpha3 + counts3) - log_delta(alpha3)
print(f"min {difference.min():.10f}, max {difference.max():.10f}; "
      f"log Delta(alpha + n) - log Delta(alpha) = {constant:.10f}")  # fmt: skip
assert np.allclose(difference, constant)

# %% [markdown]
# **A slip in seed 000.** It writes the posterior of a document's topic
# proportions as
# $p(\theta_m \mid \boldsymbol z_m, \alpha) =$ $\frac{1}{Z_{\theta_m}} \prod_{n=1}^{N_m}
# p(z_{mn} \mid \theta_m)$ $\times\, p(\theta_m \mid n_m + \alpha)$: the likelihood times a
# "prior" that already contains the counts $n_m$. That counts the data twice:
# the product normalises to $\mathrm{Dir}(\alpha + 2n_m)$. The prior is
# $p(\theta_m \mid \alpha)$, and the result, $\mathrm{Dir}(\theta_m \mid n_m + \alpha)$,
# is the seed's (right) final answer. Numerically:

# %%
twice = (counts3 * np.log(grid)).sum(axis=1) + dirichlet_logpdf(grid, alpha3 + counts3)
spread = {name: np.ptp(twice - dirichlet_logpdf(grid, a))
          for name, a in (("Dir(alpha + n)", alpha3 + counts3),
                          ("Dir(alpha + 2n)", alpha3 + 2 * counts3))}  # fmt: skip
print("seed 000's product against each (spread of the log ratio; 0 = proportional):",
      {k: round(float(v), 10) for k, v in spread.items()})  # fmt: skip
assert spread["Dir(alpha + 2n)"] < 1e-9 and spread["Dir(alpha + n)"] > 0.1

# %% [markdown]
# ## 3. 生成过程 · The generative process as code
#
# Seed 000's generative process: draw each topic's word distribution
# $\varphi_k \sim \mathrm{Dir}(\beta)$ and each document's topic proportions
# $\theta_m \sim \mathrm{Dir}(\alpha)$; then for every token draw a topic
# $z_{mn} \sim \mathrm{Mult}(\theta_m)$ and a word
# $w_{mn} \sim \mathrm{Mult}(\varphi_{z_{mn}})$:
#
# $$ p(\boldsymbol{w, z}, \theta, \varphi \mid \alpha, \beta) =
#    \prod_{k=1}^K p(\varphi_k \mid \beta) \prod_{m=1}^M p(\theta_m \mid \alpha)
#    \prod_{n=1}^{N_m} p(z_{mn} \mid \theta_m)\, p(w_{mn} \mid z_{mn}, \varphi). $$
#
# The bars corpus is simulated that way, except that its topics are fixed (the
# ten bars) instead of drawn from $\mathrm{Dir}(\beta)$. Written out, it gives
# the package's corpus (`bars_corpus`) bit for bit:


# %%
def generate(n_docs, doc_length, topics, alpha, rng):
    """LDA's generative process with fixed topics (K, V): a list of word-id arrays."""
    K, V = topics.shape
    theta = rng.dirichlet(np.full(K, alpha), size=n_docs)  # theta_m ~ Dir(alpha)
    docs = []
    for m in range(n_docs):
        z = rng.choice(K, size=doc_length, p=theta[m])  # z_mn ~ Mult(theta_m)
        u = rng.random(doc_length)  # w_mn ~ Mult(phi_z): the first word whose
        cum = np.cumsum(topics[z], axis=1)  # cumulative probability passes u
        docs.append(np.minimum((cum <= (u * cum[:, -1])[:, None]).sum(axis=1), V - 1))
    return docs


data = default_data()
settings = [DEFAULT_BARS[key] for key in ("n_docs", "doc_length", "corpus_alpha")]
ours = generate(*settings[:2], data["true_phi"], settings[2],
                np.random.default_rng(DEFAULT_BARS["seed"]))  # fmt: skip
theirs, _ = bars_corpus(*settings, np.random.default_rng(DEFAULT_BARS["seed"]))
assert all(np.array_equal(a, b) for a, b in zip(ours, theirs, strict=True))
assert all(np.array_equal(a, b) for a, b in zip(ours, data["docs"], strict=True))
print(f"M = {len(data['docs'])} documents of {settings[1]} tokens, V = {data['V']} words, "
      f"K = {data['K']} topics; simulated with alpha = {settings[2]}; "
      f"the model's alpha = {data['alpha']}, beta = {data['beta']}")  # fmt: skip
assert (data["K"], data["V"], settings[1], settings[2]) == (10, 25, 100, 0.1)
assert data["alpha"] == data["beta"] == 1 and sum(map(len, data["docs"])) == 4000
draw_topics({"true bars": data["true_phi"]})
counts = lda_pair.word_counts(data)
draw_topics({"documents 0-9": counts[:10] / counts[:10].sum(axis=1, keepdims=True)})

# %% [markdown]
# **Why the corpus uses $\alpha = 0.1$ and the model $\alpha = 1$.** With
# $\theta_m \sim \mathrm{Dir}(0.1)$ most documents show one to three bars (above),
# which lets a sampler recover the bars. The model's flat prior,
# $\alpha = \beta = 1$, is a modelling choice: a sampler and its check need the
# same posterior, not the simulator's prior.
#
# ## 4. 坍缩后的满条件分布 · The collapsed full conditional, and the sweep
#
# Integrating out $\theta$ and $\varphi$ with section 2's ratios (seed 002, §3.5.1):
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
# *document* $m$. Neither changes the sampler: constants in $k$ cancel.)
#
# The seed's sweep, written out: take token $i$ out of the counts, draw its new
# topic from the conditional by inverting the cumulative sum with a uniform,
# put it back. Checked bit for bit against the package's `lda.gibbs_sweep`:


# %%
def sweep(words, offsets, z, n_mk, n_kv, n_k, alpha, beta, u):
    """One collapsed Gibbs sweep over every token, in place (u: one uniform per token)."""
    K, V = n_kv.shape
    for m in range(len(offsets) - 1):
        for i in range(offsets[m], offsets[m + 1]):
            v, k = words[i], z[i]
            n_mk[m, k] -= 1  # take token i out of the counts
            n_kv[k, v] -= 1
            n_k[k] -= 1
            weight = (n_mk[m] + alpha) * (n_kv[:, v] + beta) / (n_k + V * beta)
            cum = np.cumsum(weight)
            k = min(int(np.searchsorted(cum, u[i] * cum[-1], side="right")), K - 1)
            z[i] = k  # and put it back, under its new topic
            n_mk[m, k] += 1
            n_kv[k, v] += 1
            n_k[k] += 1


d = lda.validate_data(data)
start_rng = np.random.default_rng(seed)
z0 = start_rng.integers(0, d["K"], size=d["N"]).astype(np.int32)
uniforms = start_rng.random(d["N"])
results = []
for one_sweep in (sweep, lda.gibbs_sweep):
    z = z0.copy()
    n_mk = np.zeros((d["D"], d["K"]), dtype=np.int32)
    n_kv = np.zeros((d["K"], d["V"]), dtype=np.int32)
    n_k = np.zeros(d["K"], dtype=np.int32)
    lda.initial_counts(d["words"], d["offsets"], z, n_mk, n_kv, n_k)
    one_sweep(d["words"], d["offsets"], z, n_mk, n_kv, n_k, d["alpha"], d["beta"], uniforms)
    results.append((z, n_kv))
same = all(np.array_equal(a, b) for a, b in zip(*results, strict=True))
print("written-out sweep == lda.gibbs_sweep, bit for bit:", same)
assert same

# %% [markdown]
# `lda.sample` runs compiled versions of this sweep (numba). Seed 000's step 3
# repeats the sweep "直到进入燃烧期" (until the burn-in is entered); the burn-in
# (燃烧期) is the *start* that is thrown away: `tune` sweeps are discarded, then
# every further sweep is a draw, `draws` of them.
#
# ## 5. 由 z 得到 θ 与 φ · From topic assignments to $\theta$ and $\varphi$
#
# Given $\boldsymbol z$, each topic and each document's proportions have the
# conjugate posteriors of section 2 (seed 000):
#
# $$ \varphi_k \mid \boldsymbol z, \boldsymbol w \sim \mathrm{Dir}(n_k + \beta), \qquad
#    \theta_m \mid \boldsymbol z \sim \mathrm{Dir}(n_m + \alpha), $$
#
# whose means are the seeds' point estimates
# $\varphi_{kv} = \frac{n_{kv} + \beta}{\sum_v (n_{kv} + \beta)}$ and
# $\theta_{mk} = \frac{n_{mk} + \alpha}{\sum_k (n_{mk} + \alpha)}$. The sampler
# *draws* $\theta$ and $\varphi$ from these Dirichlets after every kept sweep
# (`lda.sample_phi_given_z`, `lda.sample_theta_given_z`), so its output is a
# sample of $p(\theta, \varphi \mid \boldsymbol w)$, spread included.
#
# ## 6. 运行与诊断 · Running it: traces and topics
#
# Two summaries of each draw that do not depend on which topic is called
# "topic 3": the log likelihood per token,
# $\frac1N \sum_{m,v} n_{mv} \log \sum_k \theta_{mk}\varphi_{kv}$, and the topics'
# mean entropy, $-\frac1K \sum_{k,v} \varphi_{kv} \log \varphi_{kv}$ (lower:
# sharper topics). LDA has no exact answer to draw beside them; section 7 uses
# this run as the yardstick.


# %%
def summaries(theta, phi):
    """Per draw (chain, draw): log likelihood per token and mean topic entropy."""
    return {
        "log likelihood per token": lda_pair.log_likelihood_per_token(theta, phi, counts),
        "mean topic entropy (nats)": lda_pair.entropy(phi).mean(axis=-1),
    }


posterior = lda.sample(data, draws=draws, tune=tune, chains=chains, random_seed=seed)["posterior"]
good = {"theta": posterior["theta"].values, "phi": posterior["phi"].values}
good_summary = summaries(good["theta"], good["phi"])
fig, axes = plt.subplots(1, 2, figsize=(12, 3.2))
for ax, (name, values) in zip(axes, good_summary.items(), strict=True):
    for c in range(chains):
        ax.plot(values[c], lw=0.6, label=f"chain {c}")
    ax.set(title=name, xlabel="draw (after burn-in)", ylabel=name)
axes[0].legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# **The topics.** Every chain finds the bars, each in its own order (one of
# $K!$ labellings; "label switching"). To compare, each chain's mean topics are
# matched to the true bars: the permutation that minimises the total
# **Hellinger distance** of matched topics,
# $H(p, q) = \sqrt{\tfrac12\sum_v (\sqrt{p_v} - \sqrt{q_v})^2}$ (0 for equal
# distributions, 1 for disjoint), found by **Hungarian matching**
# (`scipy.optimize.linear_sum_assignment` in `lda_pair.topic_permutation`):


# %%
def aligned_topics(phi):
    """Each chain's posterior-mean topics (K, V), matched to the true bars."""
    means = phi.mean(axis=1)
    return [mean[lda_pair.topic_permutation(mean, data["true_phi"])] for mean in means]


def distance_to_bars(topics):
    """Mean Hellinger distance of matched topics to the true bars."""
    return float(np.diag(lda_pair.hellinger_matrix(topics, data["true_phi"])).mean())


good_topics = aligned_topics(good["phi"])
draw_topics({"true bars": data["true_phi"]}
            | {f"chain {c}": topics for c, topics in enumerate(good_topics)})  # fmt: skip
good_distance = [distance_to_bars(t) for t in good_topics]
print("mean Hellinger distance to the bars, per chain:", np.round(good_distance, 4))
if full:  # every chain finds every bar, at a distance of about 0.23 (below)
    assert all(0.2 < distance < 0.26 for distance in good_distance)

# %% [markdown]
# The posterior-mean topics are recognisably the bars, blurred and uneven: with
# 4,000 tokens and a pseudo-count $\beta = 1$ on every pixel, the posterior is
# not sure of every pixel, hence a distance of about 0.23 and not 0.
#
# ## 7. 动手破坏 · Break it and watch: the current token left in its counts
#
# The catalogue's `lda_gibbs_keeping_the_current_token` is the sweep of
# section 4 without its first step: the three lines that take token $i$ out of
# the counts are missing, so the token still counts in $n_{mk}$, $n_{kv}$, $n_k$
# while its own topic is redrawn. Each token then votes for the topic it
# already has. Its draws against the correct sampler's (section 6):

# %%
bug = wrong_samplers.lda_gibbs_keeping_the_current_token(
    data, draws=draws, tune=tune, chains=chains, random_seed=seed
)
bug_summary = summaries(bug["theta"], bug["phi"])
fig, axes = plt.subplots(1, 2, figsize=(12, 3.2))
shift = {}
for ax, name in zip(axes, good_summary, strict=True):
    for label, values, colour in (("correct", good_summary[name], "C0"),
                                  ("planted bug", bug_summary[name], "C3")):  # fmt: skip
        ax.hist(values.ravel(), bins=60, alpha=0.5, color=colour, label=label)
        ax.axvline(values.mean(), color=colour, lw=1.5)
    ax.set(title=name, xlabel=name, ylabel="draws")
    mcse = np.hypot(arviz_stats.mcse(good_summary[name]), arviz_stats.mcse(bug_summary[name]))
    shift[name] = ((bug_summary[name].mean() - good_summary[name].mean()) / mcse,
                   (bug_summary[name].mean() - good_summary[name].mean())
                   / good_summary[name].std())  # fmt: skip
axes[0].legend(fontsize=8)
plt.tight_layout()
plt.show()
bug_distance = [distance_to_bars(t) for t in aligned_topics(bug["phi"])]
for name, (in_mcse, in_sd) in shift.items():
    print(f"{name}: planted bug minus correct = {in_mcse:+.1f} MCSE = {in_sd:+.2f} posterior sd")
print("distance to the bars per chain: correct", np.round(good_distance, 4),
      " planted bug", np.round(bug_distance, 4))  # fmt: skip
entropy, loglik = shift["mean topic entropy (nats)"], shift["log likelihood per token"]
if full:  # sharper topics, a higher likelihood, closer to the bars: by many MCSE, < 1 sd
    assert entropy[0] < -5 and loglik[0] > 5
    assert -1 < entropy[1] < 0 < loglik[1] < 1
    assert max(bug_distance) < min(good_distance)

# %% [markdown]
# The lines are the means. Counting each token an extra time for its own topic
# sharpens every conditional: the buggy topics are more concentrated than the
# posterior's (lower entropy, higher log likelihood per token) and *closer* to
# the true bars. A wrong sampler can look better against the truth; what it must
# match is the posterior, which with $\beta = 1$ and 4,000 tokens is blurrier
# than the bars. The shift is a fraction of a posterior sd (the histograms
# overlap) but many Monte Carlo standard errors (MCSE, [checking a
# sampler](checking_a_sampler.ipynb), section 2): it takes long runs, and
# quantities that pool all the topics, to see it.
#
# ## 8. 比较 · The suite's verdict
#
# The suite compares the compiled Gibbs kernels with PyMC's NUTS on a twin
# model (`models.lda.build_model`) in which each token's topic is summed out,
# topics matched as in section 6. What its checks mean:
# [checking a sampler](checking_a_sampler.ipynb).

# %%
pair = get_pair("lda")
settings = resolve_settings(pair, draws=draws, tune=tune, chains=chains, seed=seed,
                            max_draws=max_draws)  # fmt: skip
result = run_pair(pair, settings, progress=lambda event: None)
print(f"verdict: {result.verdict} "
      f"({', '.join(f'{side}: {v}' for side, v in result.verdicts.items())})")  # fmt: skip

# %% [markdown]
# ## 9. 练习 · Exercises
#
# **Exercise 1 (conjugacy).** Prior $\mathrm{Dir}(1, 1, 1)$ on a document's three
# topic proportions; its tokens' topics are counted $n = (3, 0, 1)$. What is the
# posterior mean of $\theta_1$?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
posterior_alpha = np.array([1.0, 1, 1]) + np.array([3, 0, 1])
ex.check_number(answer, posterior_alpha[0] / posterior_alpha.sum(), rel=0, absolute=0.005,
                hint="the posterior is Dir(alpha + n); a Dirichlet's mean is alpha_k / sum(alpha).",
                why="(1 + 3) / (3 + 4) = 4/7.",
                wrong=3 / 4)  # the counts alone, prior forgotten  # fmt: skip

# %% [markdown]
# **Exercise 2 ($\Delta$).** What is $\Delta(\alpha)$ for $\alpha = (2, 2)$?

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_number(answer, float(np.exp(log_delta([2.0, 2.0]))), rel=0, absolute=0.005,
                hint="Gamma(2) Gamma(2) / Gamma(4), with Gamma(n) = (n - 1)!.",
                why="1 x 1 / 3! = 1/6: the integral of theta (1 - theta) over [0, 1].",
                wrong=1 / 24)  # Gamma(4) taken as 4! = 24  # fmt: skip

# %% [markdown]
# **Exercise 3 (α).** Had the bars corpus been simulated with $\alpha = 10$
# instead of 0.1, each document would mix (a) one or two bars, (b) nearly all
# ten bars in similar proportions? (Try `generate` of section 3, if you like.)

# %%
answer = None  # "a" or "b"

# %% jupyter={"source_hidden": true} tags=["checker"]
proportions = np.random.default_rng(seed).dirichlet(np.full(10, 10.0), size=200)
effective_topics = float((1 / (proportions**2).sum(axis=1)).mean())
assert effective_topics > 5  # backs answer (b): nearly all ten bars
ex.check_choice(answer, "b", {
    "a": "small alpha (0.1) concentrates a document on few topics; large alpha spreads it.",
    "b": "right: Dir(10, ..., 10) is concentrated near the uniform mixture, so every "
         "document shows every bar and the bars become hard to tell apart (200 simulated "
         f"documents mix {effective_topics:.1f} topics on average, 1 / sum of squared "
         "proportions).",
}, wrong="a")  # fmt: skip
