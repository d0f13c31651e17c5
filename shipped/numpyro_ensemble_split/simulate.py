"""Write ``data.json``: the data of NumPyro's own ensemble-sampler accuracy test.

``test/infer/test_mcmc.py::test_logistic_regression_x64`` at NumPyro 0.21.0,
the last release with the bug, draws its data in JAX as below (``N, dim =
3000, 3``; coefficients 1, 2, 3) and runs ``AIES`` with 16 walkers on it. Run
``.venv/bin/python shipped/numpyro_ensemble_split/simulate.py`` from the
repository's root to write the file again (the same bytes).
"""

import json
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import numpyro.distributions as dist  # noqa: E402
from jax import random  # noqa: E402

N, DIM = 3000, 3


def main() -> None:
    """Draw the test's data and write it next to this file."""
    key1, key2, _ = random.split(random.key(0), 3)
    data = random.normal(key1, (N, DIM))
    true_coefs = jnp.arange(1.0, DIM + 1.0)
    logits = jnp.sum(true_coefs * data, axis=-1)
    labels = dist.Bernoulli(logits=logits).sample(key2)
    out = {
        "X": np.asarray(data).tolist(),
        "y": np.asarray(labels).astype(int).tolist(),
    }
    Path(__file__).with_name("data.json").write_text(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
