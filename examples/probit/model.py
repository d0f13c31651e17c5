r"""Probit regression of O-ring thermal distress on launch temperature, in PyMC.

The Challenger O-ring data: 23 shuttle launches before the accident, each with
its launch temperature ``t_i`` (degrees F) and ``distress_i = 1`` if any
field-joint O-ring showed thermal distress. With the temperature standardised,
``x_i = (t_i - mean(t)) / sd(t)`` (population sd, ``ddof=0``), and design
rows ``X_i = (1, x_i)``::

    beta       ~ N(0, PRIOR_SD^2 I_2)
    distress_i ~ Bernoulli(Phi(X_i beta))

``Phi`` is the standard normal CDF. This file shares no code with
``sampler.py`` (the Albert-Chib Gibbs sampler): each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm

PRIOR_SD = 1.0
"""Prior standard deviation of both coefficients (intercept and slope)."""


def build_model(data: Mapping) -> pm.Model:
    """Build the probit regression model.

    Parameters
    ----------
    data : mapping
        ``temperature`` (N,) launch temperatures; ``distress`` (N,) 0/1 outcomes.

    Returns
    -------
    pymc.Model
        Free variable ``beta`` (2,): intercept and slope per standard deviation
        of temperature; observed ``distress``.
    """
    t = np.asarray(data["temperature"], dtype=float)
    x = (t - t.mean()) / t.std()
    design = np.column_stack([np.ones_like(x), x])
    with pm.Model() as model:
        beta = pm.Normal("beta", mu=0.0, sigma=PRIOR_SD, shape=2)
        p = pm.math.invprobit(pm.math.dot(design, beta))
        pm.Bernoulli("distress", p=p, observed=np.asarray(data["distress"]))
    return model
