r"""The 3-dimensional MvNormal of pymc-devs/pymc#5815, written in PyMC.

The issue's model, taken from PyMC's step-method tests (``mv_simple``)::

    x ~ MvNormal(mu, tau = p p^T)          (a precision matrix)

with ``mu = (-0.1, 0.5, 1.1)`` and the lower-triangular ``p`` of ``data.json``.
The marginal sds are ``sqrt(diag(tau^-1)) = (0.567, 10.0, 0.182)``: the second
coordinate is 50 times wider than the third, and all three are correlated.
There is no observed data; the posterior is the prior.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the issue's MvNormal.

    Parameters
    ----------
    data : mapping
        ``mu`` (3,), the mean; ``p`` (3, 3), a factor of the precision matrix,
        ``tau = p @ p.T``.

    Returns
    -------
    pymc.Model
        One free variable ``x`` (3,).
    """
    mu = np.asarray(data["mu"], dtype=float)
    p = np.asarray(data["p"], dtype=float)
    with pm.Model() as model:
        pm.MvNormal("x", mu=mu, tau=p @ p.T)
    return model
