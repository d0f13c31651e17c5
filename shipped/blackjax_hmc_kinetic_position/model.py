r"""The standard normal of blackjax-devs/blackjax#46, written in PyMC.

The issue's target, ``potential = -norm.logpdf(x, loc=0.0, scale=1.0)`` on a
position of shape (1,)::

    x ~ N(loc = 0, scale = 1)          shape (1,)

There is no observed data; the posterior is the prior. This file shares no code
with ``bug.py`` and ``fixed.py``, which state the log density again.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the normal.

    Parameters
    ----------
    data : mapping
        ``loc`` (0) and ``scale`` (1).

    Returns
    -------
    pymc.Model
        One free variable ``x`` of shape (1,).
    """
    with pm.Model() as model:
        pm.Normal("x", mu=float(data["loc"]), sigma=float(data["scale"]), shape=1)
    return model
