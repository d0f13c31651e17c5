"""Regenerate ``data.csv``: growth of 50 plants by fertiliser dose and light (seed 20261128)."""

import numpy as np

rng = np.random.default_rng(20261128)
n = 50
dose = rng.integers(0, 4, size=n)  # fertiliser, mg: 0, 1, 2 or 3
light = np.round(rng.uniform(-4.0, 4.0, size=n), 1)  # hours of light a day above 12
growth = 5.0 + 1.2 * dose + 0.4 * light + 1.5 * rng.standard_normal(n)  # cm
with open("data.csv", "w") as f:
    f.write("dose,light,growth\n")
    for row in zip(dose, light, growth, strict=True):
        f.write(f"{row[0]},{row[1]:.1f},{row[2]:.3f}\n")
