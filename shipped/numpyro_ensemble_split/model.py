r"""Bayesian logistic regression, the model of NumPyro's own ensemble-sampler test, in PyMC.

NumPyro's ``test_logistic_regression_x64`` (``test/infer/test_mcmc.py``, run
for ``AIES`` and ``ESS`` at every release from 0.14.0 to 0.21.0)::

    coefs ~ N(0, 1)                       3 coefficients, independent
    y_n   ~ Bernoulli(logit^-1(X_n . coefs))    n = 1 .. 3000

on the test's own data (``simulate.py``: standard normal ``X``, labels drawn
with coefficients 1, 2, 3). This file shares no code with ``bug.py`` and
``fixed.py``, which state the model again in NumPyro.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the logistic regression.

    Parameters
    ----------
    data : mapping
        ``X`` (N, 3), the covariates; ``y`` (N,), the 0/1 labels.

    Returns
    -------
    pymc.Model
        Free variable ``coefs`` (3,); observed ``y``.
    """
    x = np.asarray(data["X"], dtype=float)
    y = np.asarray(data["y"], dtype=int)
    with pm.Model() as model:
        coefs = pm.Normal("coefs", mu=0.0, sigma=1.0, shape=x.shape[1])
        pm.Bernoulli("y", logit_p=pm.math.dot(x, coefs), observed=y)
    return model
