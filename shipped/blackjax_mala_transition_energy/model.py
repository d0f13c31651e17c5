r"""The normal of BlackJAX's own ``UnivariateNormalTest``, written in PyMC.

``tests/mcmc/test_sampling.py`` at BlackJAX 1.1.1 samples, with every kernel,
including ``blackjax.mala`` (step size 0.1)::

    x ~ N(loc = 1, scale = 2)

(``stats.norm.logpdf(x, loc=1.0, scale=2.0)``). There is no observed data; the
posterior is the prior. This file shares no code with ``bug.py`` and
``fixed.py``, which state the log density again.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the normal.

    Parameters
    ----------
    data : mapping
        ``loc`` (1) and ``scale`` (2).

    Returns
    -------
    pymc.Model
        One free scalar variable ``x``.
    """
    with pm.Model() as model:
        pm.Normal("x", mu=float(data["loc"]), sigma=float(data["scale"]))
    return model
