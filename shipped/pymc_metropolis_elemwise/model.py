r"""Eight independent standard normals: the smallest model on which the bug shows, in PyMC.

    x_k ~ N(0, 1)      independent,  k = 1 .. 8   (``data.json``: ``k = 8``)

No observed data. One vector variable of 8 coordinates, so ``Metropolis``
updates it one coordinate at a time (``elemwise_update``), the code that
pymc-devs/pymc#6678 fixed; PyMC's reference is NUTS. The fix's own regression
test runs eight Poisson counts instead (``pr_poisson.py``): the same code path,
but its centred products lie on a lattice and set off the harness's copy and
independence checks on the fixed step too (see the README), so the continuous
twin is the entry's model.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build ``k`` independent standard normals.

    Parameters
    ----------
    data : mapping
        ``k``, the number of coordinates.

    Returns
    -------
    pymc.Model
        Free variable ``x`` (k,).
    """
    with pm.Model() as model:
        pm.Normal("x", mu=0.0, sigma=1.0, shape=int(data["k"]))
    return model
