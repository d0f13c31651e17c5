r"""Ten independent standard normals: the model of stan-dev/stan#1853, written in PyMC.

stan-dev/stan#1853 ("Dense Adaptation Fragile", 2016) reported *completely
biased results* from ``metric=dense_e`` on exactly this Stan program::

    parameters { real mu[10]; }
    model { mu ~ normal(0, 1); }

and put it down to the covariance adaptation's regularisation; the issue stayed
open (a user confirmed the behaviour on PyStan 2.18 in December 2018). The
momentum bug of stan-dev/stan#2671 reproduces that report in this catalogue's
re-creation (``bug.py``), and its fix removes it (``fixed.py``). There is no
observed data: the posterior is the prior.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build ``n`` independent normals.

    Parameters
    ----------
    data : mapping
        ``n`` (10), ``loc`` (0) and ``scale`` (1).

    Returns
    -------
    pymc.Model
        One free variable ``mu`` (n,).
    """
    with pm.Model() as model:
        pm.Normal("mu", mu=float(data["loc"]), sigma=float(data["scale"]), shape=int(data["n"]))
    return model
