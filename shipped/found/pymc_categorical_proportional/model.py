"""One categorical variable with probabilities ``p`` and no data: the posterior is ``p``.

The model of ``repro.py``, for the suite: ``compare`` against PyMC's reference
(PyMC assigns ``CategoricalGibbsMetropolis`` with its default, correct,
``proposal="uniform"``).
"""

from collections.abc import Mapping

import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build ``x ~ Categorical(p)``; ``data["p"]``, the probabilities (k,)."""
    with pm.Model() as model:
        pm.Categorical("x", p=[float(v) for v in data["p"]])
    return model
