"""Regenerate ``data.json``: 40 observations of two nearly collinear predictors (seed 20261127)."""

import json

import numpy as np

rng = np.random.default_rng(20261127)
n = 40
x1 = rng.standard_normal(n)
x2 = x1 + 0.1 * rng.standard_normal(n)  # correlation of x1 and x2 about 0.995
y = 1.0 + 1.5 * x1 + 0.5 * x2 + 1.0 * rng.standard_normal(n)
data = {
    "x1": [float(v) for v in np.round(x1, 4)],
    "x2": [float(v) for v in np.round(x2, 4)],
    "y": [float(v) for v in np.round(y, 4)],
    "sigma": 1.0,
    "prior_sd": 2.5,
}
with open("data.json", "w") as f:
    json.dump(data, f)
    f.write("\n")
