r"""The bivariate normal of stan-dev/stan#2178, written in PyMC.

Michael Betancourt's model in the issue (the one that measured the bias of
Stan 2.10 to 2.13 against its Monte Carlo standard error)::

    z ~ MultiNormal(mu, Sigma),   Sigma = [[s1^2, r s1 s2], [r s1 s2, s2^2]]

with ``mu = (0, 3)``, ``s1 = 1``, ``s2 = 2`` and ``r = 0.75`` (``data.json``).
No observed data: the posterior is this normal. The issue's generated
quantities ``var1``, ``var2`` and ``corr`` are the centred squares and
product, which ``compare`` checks as the sds of ``z`` and the centred product
``z[0]*z[1]``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the bivariate normal.

    Parameters
    ----------
    data : mapping
        ``mu`` (2,), ``sigma`` (2,) the marginal sds, ``rho`` the correlation.

    Returns
    -------
    pymc.Model
        One free variable ``z`` (2,).
    """
    mu = np.asarray(data["mu"], dtype=float)
    s1, s2 = (float(s) for s in data["sigma"])
    r = float(data["rho"])
    cov = np.array([[s1 * s1, r * s1 * s2], [r * s1 * s2, s2 * s2]])
    with pm.Model() as model:
        pm.MvNormal("z", mu=mu, cov=cov)
    return model
