r"""Two fair coins and their sum: the model of pymc-devs/pymc#2866, written in PyMC.

The issue's model, from a StackOverflow question (2018)::

    x ~ Bernoulli(p)        y ~ Bernoulli(p)        independent, p = 0.5
    z = x + y               (pm.Deterministic)

No observed data: the posterior is the prior, ``P(x = y) = 1/2`` and ``z`` is
1 half of the time. PyMC assigns ``BinaryGibbsMetropolis`` to ``x`` and ``y``
(one blocked step over both).
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the two coins.

    Parameters
    ----------
    data : mapping
        ``p``, each coin's probability of 1.

    Returns
    -------
    pymc.Model
        Free variables ``x`` and ``y`` (scalars, 0/1); deterministic ``z = x + y``.
    """
    p = float(data["p"])
    with pm.Model() as model:
        x = pm.Bernoulli("x", p)
        y = pm.Bernoulli("y", p)
        pm.Deterministic("z", x + y)
    return model
