"""Regenerate ``data.json``: 150 draws of a two-component normal mixture (seed 20261125)."""

import json

import numpy as np

rng = np.random.default_rng(20261125)
n, w, mu, sd = 150, 0.35, np.array([-1.5, 2.5]), np.array([0.8, 1.2])
component = (rng.random(n) >= w).astype(int)  # 0 with probability w
y = np.round(mu[component] + sd[component] * rng.standard_normal(n), 3)
data = {
    "y": [float(v) for v in y],
    "w_alpha": 2.0, "w_beta": 2.0,
    "mu_prior_mean": [-2.5, 2.5], "mu_prior_sd": 1.0,
    "sigma2_alpha": 3.0, "sigma2_beta": 2.0,
}  # fmt: skip
with open("data.json", "w") as f:
    json.dump(data, f)
    f.write("\n")
