"""Regenerate ``data.json``: 150 noisy points of a curve, denser on the left (seed 20261129)."""

import json

import numpy as np

rng = np.random.default_rng(20261129)
n = 150
x = np.sort(np.concatenate([rng.uniform(0.0, 1.0, n // 2), rng.beta(2.0, 5.0, n - n // 2)]))
y = np.sin(2 * np.pi * x) + 0.5 * x + 0.3 * rng.standard_normal(n)
data = {
    "x": [float(v) for v in np.round(x, 4)],
    "y": [float(v) for v in np.round(y, 4)],
    "n_basis": 50,  # Gaussian bumps centred at 0, 1/49, ..., 1
    "basis_sd": 0.0102,  # half their spacing (1/49)
    "sigma": 0.3,
    "prior_sd": 1.0,
}
with open("data.json", "w") as f:
    json.dump(data, f)
    f.write("\n")
