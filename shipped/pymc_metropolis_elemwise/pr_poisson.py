r"""Eight independent Poisson counts: the regression test of pymc-devs/pymc#6678, in PyMC.

``test_elemwise_update_different_scales`` (``tests/step_methods/test_metropolis.py``),
added with the fix::

    x_k ~ Poisson(mu_k)      independent,  mu = (1, 2, 3, 4, 5, 100, 1000, 10000)

No observed data: the posterior is the prior. One vector variable of 8
discrete coordinates, so PyMC assigns ``Metropolis`` to ``x`` with its
one-coordinate-at-a-time update (``elemwise_update``), the code the fix changed;
PyMC's reference is that (today's, fixed) ``Metropolis``. Not the entry's model:
the fixed step fails the harness's copy and independence checks here (products
of counts repeat, bit for bit; see the README), so ``model.py`` is continuous.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the eight Poisson counts.

    Parameters
    ----------
    data : mapping
        ``mu``, the 8 Poisson means.

    Returns
    -------
    pymc.Model
        Free variable ``x`` (8,), integer.
    """
    mu = np.asarray(data["mu"], dtype=float)
    with pm.Model() as model:
        pm.Poisson("x", mu=mu)
    return model
