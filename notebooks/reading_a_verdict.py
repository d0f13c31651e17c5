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
# # 读懂比较结果 · Reading a verdict: one comparison, its page and its JSON
#
# *Reading order 7 of 8; about 10 minutes to read.* [Glossary 术语表](GLOSSARY.md) ·
# previous: [LDA](lda.ipynb) · next: [checking a sampler](checking_a_sampler.ipynb)
#
# The seed notebooks each end with one comparison of their sampler with a PyMC
# model of the same posterior. Here: run one comparison as `mcmc-pairs compare`
# does, open what it writes (a page and a JSON file), and read the verdict and
# what it asks you to do next. Every statistic it mentions (MCSE, z, Holm, the
# resolution δ, $\hat R$, ESS, the energy and honesty checks, the looks) is
# explained, with a figure, in [checking a sampler](checking_a_sampler.ipynb).

# %% tags=["parameters"]
draws = 1000
tune = 1000
chains = 4
seed = 20261122

# %%
# %matplotlib inline
import json
import re
import tempfile
from pathlib import Path

import _exercises as ex
import matplotlib.pyplot as plt
import numpy as np

from mcmc_pairs.comparisons import report
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import resolve_settings, run_pair

pair = get_pair("bivariate_normal")
result = run_pair(pair, resolve_settings(pair, draws=draws, tune=tune, chains=chains, seed=seed))

# %% [markdown]
# ## 1. 运行 · Run one comparison
#
# That cell is what `mcmc-pairs compare bivariate_normal --draws 1000 --tune 1000
# --chains 4 --seed 20261122` does: it runs the pair's Gibbs sampler (seed 003's
# bivariate normal, [bivariate_normal](bivariate_normal.ipynb)) and PyMC's NUTS,
# compares them, and doubles the draws while undecided. It writes two files,
# `bivariate_normal.html` (the page) and `bivariate_normal.json`:

# %%
out = Path(tempfile.mkdtemp())
page_path, json_path = report.write_pair_report(result, out)
print(sorted(p.name for p in out.iterdir()))
page = page_path.read_text()
sentence = re.sub(r"<[^>]+>", "", report.verdict_sentence(result))
print("The page's first sentence:\n ", sentence)

# %% [markdown]
# ## 2. 结论 · The verdict, and what it asks you to do
#
# * `agree`: every compared statistic is within δ posterior sd of PyMC's (and of
#   the exact answer), at 95 % confidence. **Trust the sampler**, at that resolution.
# * `disagree`: a difference too large for Monte Carlo error, or a failed honesty
#   check. **Find the bug**: the page names the checks that failed.
# * `inconclusive`: nothing detected, but the resolution was not reached. **Run
#   longer** (`--draws`, `--max-draws`).
# * `not converged`: a side's chains have not mixed ($\hat R$ or ESS gate). **Run
#   longer, or improve the mixing.**
# * `reference failed`: PyMC's own run failed its checks; nothing is blamed on
#   your sampler. **Change PyMC's settings** (the page says which).
#
# `compare` exits 0 only for `agree`, so a script can rely on it
# ([checking a sampler §11](checking_a_sampler.ipynb) has every exit code).
#
# ## 3. JSON · The JSON, field by field
#
# The JSON (`docs/schemas/compare.schema.json`) holds what the page shows:
#
# * `verdict`: the pair's verdict; `sides.<label>.verdict`: each side's;
# * `resolution.reached`: per statistic, the largest resolution over the checks,
#   in posterior sds, and `resolution.tolerance`, what `agree` needs
#   ([§5 of checking a sampler](checking_a_sampler.ipynb));
# * `looks`: one entry per look (draws per chain, the verdicts; `held` when an
#   early `agree` was held to look again, §10 there);
# * `checks`: every check, one object each: `kind` (`agreement`, `exact`,
#   `diagnostic`, `multivariate`, `support`, `independence`, `copy`,
#   `reproducibility`), `quantity`, `statistic`, `value`, `threshold`, `passed`.
#   A `support` check fails when a draw is not finite (outside the target's
#   support, or overflowed), which makes the side `disagree`:
#   [checking a sampler §11](checking_a_sampler.ipynb) explains it, with an
#   example.

# %%
document = json.loads(json_path.read_text())
print("top-level fields:", list(document))
verdicts = {label: side.get("verdict", "reference") for label, side in document["sides"].items()}
print("verdict:", document["verdict"], "| sides:", verdicts)
print("looks:", [(look["look"], look["draws"], look["verdicts"]) for look in document["looks"]])
assert document["verdict"] == result.verdict
assert len(document["checks"]) == len(result.checks)

# %% [markdown]
# The page draws each side's traces, running means, densities, rank plots and
# autocorrelations. They are there to be looked at; the verdict uses none of
# them. How to read a rank plot, and why its p-value can be small for a correct
# sampler: [checking a sampler §8](checking_a_sampler.ipynb). One of the page's
# figures, the running (ergodic) mean of $x_1$ in each chain, redrawn with a
# legend: every chain settles on the exact mean.

# %%
# %matplotlib inline
fig, axes = plt.subplots(1, 2, figsize=(10, 3), sharey=True)
for ax, label in zip(axes, ("handrolled:gibbs", "pymc"), strict=True):
    values = result.sides[label].quantities.sel(quantity="x[0]").values
    running = np.cumsum(values, axis=1) / np.arange(1, values.shape[1] + 1)
    for c, chain in enumerate(running):
        ax.plot(chain, lw=0.8, label=f"chain {c}")
    ax.axhline(result.reference["x[0]"].mean, color="k", lw=1, label="exact mean 5")
    ax.set(xlabel="iteration", title=f"{label}: running mean of $x_1$")
axes[0].set_ylabel("running mean")
axes[0].legend(fontsize=7)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## 4. 练习 · Exercises
#
# **Exercise 1.** How many checks of kind `exact` (each side against the exact
# answer) does the JSON hold? Count them in `document["checks"]`.

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
exact = sum(check["kind"] == "exact" for check in document["checks"])
ex.check_integer(answer, exact,
                 hint="count the objects whose 'kind' is 'exact', not every check: "
                      "sum(c['kind'] == 'exact' for c in document['checks']).",
                 why=f"{exact} of the {len(document['checks'])} checks are against the exact "
                     "answer (both sides, every quantity and statistic).",
                 wrong=len(document["checks"]))  # fmt: skip

# %% [markdown]
# **Exercise 2.** What is the largest $|z|$ among the checks of kind `agreement`
# (the sampler against PyMC)? Read the `value` of those checks in
# `document["checks"]`.

# %%
answer = None  # your number

# %% jupyter={"source_hidden": true} tags=["checker"]
rows = [c for c in document["checks"] if c["kind"] == "agreement" and c["value"] is not None]
largest = max(rows, key=lambda c: abs(c["value"]))
ex.check_number(answer, abs(largest["value"]), rel=0.02,
                hint="take the absolute value of each 'value' (z can be negative), and read "
                     "'value', not 'threshold'.",
                why=f"{largest['quantity']} {largest['statistic']}: |z| = "
                    f"{abs(largest['value']):.2f}, below its Holm threshold "
                    f"{largest['threshold']:.2f}, as every check of an agree is.",
                wrong=largest["threshold"])  # fmt: skip

# %% [markdown]
# **Exercise 3.** Another sampler's page says `disagree`. Its JSON has one
# failed check: kind `reproducibility`, statistic "share of values differing",
# value 1.0 (threshold 0). Every z-check, the energy check and every gate pass.
# What should its author change?
# (a) run it longer, since its chains have not converged;
# (b) draw every random number from the `random_seed` it is given (not from a
# generator seeded by the clock, or NumPy's global one);
# (c) nothing: every comparison with PyMC passed, so its draws are right.

# %%
answer = None  # "a", "b" or "c"

# %% jupyter={"source_hidden": true} tags=["checker"]
ex.check_choice(answer, "b", {
    "a": "the gates passed, so the chains look converged; and running longer does not make "
         "two runs with the same seed give the same draws.",
    "b": "called again with the same seed, the sampler returned different draws: every value "
         "differed. A sampler must take all its randomness from random_seed, so that a run "
         "can be repeated and checked (checking_a_sampler §9, the honesty checks).",
    "c": "a failed honesty check is 'disagree' whatever else passes (section 2 above): a "
         "run that cannot be repeated cannot be checked again, nor its bug found.",
}, wrong="c")  # fmt: skip
