r"""A regression on two nearly collinear predictors, written in PyMC.

With the noise sd ``sigma`` known::

    beta ~ N(0, prior_sd^2 I_3)                    (intercept, slope of x1, slope of x2)
    y_i  ~ N(beta_0 + beta_1 x1_i + beta_2 x2_i, sigma^2)

``x1`` and ``x2`` are correlated at 0.991, so the data pin down
``beta_1 + beta_2`` but hardly ``beta_1 - beta_2``: the posterior
correlation of ``beta_1`` and ``beta_2`` is -0.986, and along that ridge the
prior matters. This file shares no code with ``sampler.py``: each states the
model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the collinear regression model.

    Parameters
    ----------
    data : mapping
        ``x1``, ``x2``, ``y`` (N,); ``sigma`` the known noise sd; ``prior_sd``
        the prior sd of every coefficient.

    Returns
    -------
    pymc.Model
        Free variable ``beta`` (3,); observed ``y``.
    """
    x1 = np.asarray(data["x1"], dtype=float)
    x2 = np.asarray(data["x2"], dtype=float)
    with pm.Model() as model:
        beta = pm.Normal("beta", mu=0.0, sigma=float(data["prior_sd"]), shape=3)
        mean = beta[0] + beta[1] * x1 + beta[2] * x2
        pm.Normal("y", mu=mean, sigma=float(data["sigma"]), observed=np.asarray(data["y"]))
    return model
