"""The PyMC twin of seed 003's Metropolis–Hastings on Beta(2.31, 0.627).

One ``pm.Beta("x", a, b)``. PyMC samples it on the logit scale (its default
interval transform), by NUTS or by ``pm.sample(step=pm.Metropolis())``, so
neither meets the spike of the density at 1 that slows the hand-rolled random
walk on the seed's scale. ``proposal_sd`` does not enter the model.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm

from mcmc_pairs.pairdata.mh_beta import validate_data


def build_model(data: Mapping) -> pm.Model:
    """Return a model with one scalar free variable ``x ~ Beta(a, b)``.

    Parameters
    ----------
    data : mapping
        ``a``, ``b``, ``proposal_sd`` (checked by
        :func:`mcmc_pairs.pairdata.mh_beta.validate_data`; ``proposal_sd`` is unused).

    Returns
    -------
    pymc.Model
        The model.
    """
    d = validate_data(data)
    with pm.Model() as model:
        pm.Beta("x", alpha=d["a"], beta=d["b"])
    return model
