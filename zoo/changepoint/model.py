r"""British coal-mining disasters with one change point, written in PyMC.

Counts ``y_t`` of disasters in the years ``t = 0 .. N-1`` (1851 .. 1961). The
rate is ``early_rate`` before the switchpoint ``s`` and ``late_rate`` from it
on::

    switchpoint s ~ DiscreteUniform(1, N - 1)
    early_rate    ~ Gamma(rate_alpha, rate_beta)      (shape, rate)
    late_rate     ~ Gamma(rate_alpha, rate_beta)
    y_t           ~ Poisson(early_rate)   if t < s
    y_t           ~ Poisson(late_rate)    if t >= s

Both segments hold at least one year. PyMC samples ``s`` by Metropolis and the
two rates by NUTS (a compound step). This file shares no code with
``sampler.py``: each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the change-point model.

    Parameters
    ----------
    data : mapping
        ``disasters`` (N,) yearly counts; ``rate_alpha``, ``rate_beta`` shape and
        rate of the gamma prior of both rates.

    Returns
    -------
    pymc.Model
        Free variables ``switchpoint`` () integer in ``[1, N-1]``, ``early_rate``
        () and ``late_rate`` (); observed ``disasters``.
    """
    y = np.asarray(data["disasters"])
    years = np.arange(y.size)
    alpha, beta = float(data["rate_alpha"]), float(data["rate_beta"])
    with pm.Model() as model:
        switchpoint = pm.DiscreteUniform("switchpoint", lower=1, upper=y.size - 1)
        early = pm.Gamma("early_rate", alpha=alpha, beta=beta)
        late = pm.Gamma("late_rate", alpha=alpha, beta=beta)
        rate = pm.math.switch(years < switchpoint, early, late)
        pm.Poisson("disasters", mu=rate, observed=y)
    return model
