"""The PyMC twin of seed 003's Metropolis–Hastings on Normal(10, 5).

One ``pm.Normal("x", mu, sigma)``: NUTS samples it by default, and
``pm.sample(step=pm.Metropolis())`` gives PyMC's own (tuned) random-walk
Metropolis as a second reference. ``proposal_sd`` belongs to the hand-rolled
sampler and does not enter the model.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm

from mcmc_pairs.pairdata.mh_normal import validate_data


def build_model(data: Mapping) -> pm.Model:
    """Return a model with one scalar free variable ``x ~ Normal(mu, sigma)``.

    Parameters
    ----------
    data : mapping
        ``mu``, ``sigma``, ``proposal_sd`` (checked by
        :func:`mcmc_pairs.pairdata.mh_normal.validate_data`; ``proposal_sd`` is unused).

    Returns
    -------
    pymc.Model
        The model.
    """
    d = validate_data(data)
    with pm.Model() as model:
        pm.Normal("x", mu=d["mu"], sigma=d["sigma"])
    return model
