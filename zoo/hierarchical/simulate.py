"""Regenerate ``data.json``: 60 groups of 3 to 8 normal observations (seed 20261126)."""

import json

import numpy as np

rng = np.random.default_rng(20261126)
n_groups, mu, tau, sigma = 60, 10.0, 1.0, 1.5
sizes = rng.integers(3, 9, size=n_groups)  # 3 .. 8 observations per group
theta = mu + tau * rng.standard_normal(n_groups)
group = np.repeat(np.arange(n_groups), sizes)
y = np.round(theta[group] + sigma * rng.standard_normal(group.size), 2)
data = {
    "group": [int(g) for g in group],
    "y": [float(v) for v in y],
    "n_groups": n_groups,
    "mu_prior_mean": 0.0, "mu_prior_sd": 20.0,
    "tau2_alpha": 2.5, "tau2_beta": 2.0,
    "sigma2_alpha": 3.0, "sigma2_beta": 2.0,
}  # fmt: skip
with open("data.json", "w") as f:
    json.dump(data, f)
    f.write("\n")
