"""PyMC's own ``CategoricalGibbsMetropolis`` with ``proposal="proportional"``, as a side.

``--sampler pymc-step:shipped/found/pymc_categorical_proportional/step.py:proportional``
(and ``:uniform``, the default proposal, for contrast). Nothing here is re-created:
this is today's PyMC step, the live bug of ``repro.py``.
"""

import pymc as pm


def proportional(model):
    """Return PyMC's step with the proportional proposal over every free variable."""
    return pm.CategoricalGibbsMetropolis(model.free_RVs, proposal="proportional")


def uniform(model):
    """Return PyMC's step with its default, uniform proposal over every free variable."""
    return pm.CategoricalGibbsMetropolis(model.free_RVs, proposal="uniform")
