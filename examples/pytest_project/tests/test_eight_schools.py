"""Statistical tests of a Gibbs sampler for eight schools, with the mcmc-pairs pytest plugin.

Each test that uses the ``mcmc_pairs`` fixture (or carries ``@pytest.mark.mcmc_pairs``)
is a statistical test: the session counts them and gives each run the level
``rate / runs``, so the whole session raises a false alarm on a correct sampler in at
most 1 % of sessions (``mcmc_pairs_rate`` in pyproject.toml), however many there are.
The model, the sampler and the data are the worked example ``examples/eight_schools``.
"""

import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "eight_schools"
MODEL = f"{EXAMPLE}/model.py:build_model"
DATA = json.loads((EXAMPLE / "data.json").read_text())
SMALL = dict(draws=500, tune=500, chains=4, seed=1)
"""Small runs (CI runs this project); the run grows its draws while undecided."""
PRECISE = DATA | {"sigma": [s / 2 for s in DATA["sigma"]]}
"""The same schools measured twice as precisely: another posterior, the same sampler."""


@pytest.mark.parametrize("data", [DATA, PRECISE], ids=["shipped", "precise"])
def test_gibbs_agrees_with_pymc(mcmc_pairs, data):
    """The Gibbs sampler agrees with PyMC's NUTS on the model, on two data sets."""
    mcmc_pairs.assert_agree(MODEL, f"{EXAMPLE}/sampler.py:sample", data, **SMALL)


@pytest.mark.mcmc_pairs
def test_the_planted_bug_is_caught(mcmc_pairs):
    """The planted bug (a sum of squares without its 1/2) is ``disagree``."""
    result = mcmc_pairs.compare(MODEL, f"{EXAMPLE}/sampler.py:sample_planted_bug", DATA, **SMALL)
    assert result.verdict == "disagree"
