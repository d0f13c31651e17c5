r"""Nuclear-plant pump failures: a Poisson-gamma hierarchical model, written in PyMC.

Pump ``i`` failed ``y_i`` times in ``t_i`` thousand hours of operation::

    beta     ~ Gamma(beta_shape, beta_rate)            (shape, rate)
    lambda_i ~ Gamma(alpha, beta)                      i = 1 .. 10, alpha fixed
    y_i      ~ Poisson(lambda_i t_i)

The model of Gelfand and Smith (1990) and Robert and Casella (*Monte Carlo
Statistical Methods*, Example 10.17) with ``alpha = 1.8``; the prior of
``beta`` is Gamma(1, 1) here (theirs, Gamma(0.01, 1), puts so much mass near 0
that prior-predictive counts overflow). This file shares no code with
``sampler.py``: each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the pump-failure model.

    Parameters
    ----------
    data : mapping
        ``failures`` (N,) integer counts, ``hours`` (N,) exposure in thousands of
        hours, ``alpha`` the fixed gamma shape of the rates, ``beta_shape`` and
        ``beta_rate`` the gamma prior of ``beta``.

    Returns
    -------
    pymc.Model
        Free variables ``beta`` () and ``rate`` (N,) failures per thousand hours;
        observed ``failures``.
    """
    y = np.asarray(data["failures"])
    hours = np.asarray(data["hours"], dtype=float)
    with pm.Model() as model:
        beta = pm.Gamma("beta", alpha=float(data["beta_shape"]), beta=float(data["beta_rate"]))
        rate = pm.Gamma("rate", alpha=float(data["alpha"]), beta=beta, shape=y.shape)
        pm.Poisson("failures", mu=rate * hours, observed=y)
    return model
