r"""Two probabilities at their boundaries, written in PyMC.

A launch vehicle succeeded in all of its ``trials = 30`` launches, and an
inspection found ``defects = 1`` defective part among ``inspected = 80``::

    p         ~ Beta(prior_alpha, prior_beta)       success probability of a launch
    q         ~ Beta(prior_alpha, prior_beta)       probability that a part is defective
    successes ~ Binomial(trials, p)
    defects   ~ Binomial(inspected, q)

With the uniform prior, ``p | data ~ Beta(31, 1)``: its density is largest *at*
the boundary p = 1 (mean 0.969, sd 0.030). ``q | data ~ Beta(2, 80)`` piles up
near 0 (mean 0.024, sd 0.017). NUTS samples both on the logit scale. This file
shares no code with ``sampler.py``: each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm

PYMC_KWARGS = {"target_accept": 0.95}
"""NUTS with smaller steps: at the default target_accept of 0.8, nutpie diverged 9 times in
10 seeds x 4 chains x 1,000 draws (the logit of Beta(31, 1) falls like exp(31 u) on
one side and exp(-u) on the other); at 0.95, never."""


def build_model(data: Mapping) -> pm.Model:
    """Build the two binomial models.

    Parameters
    ----------
    data : mapping
        Integers ``successes`` of ``trials`` and ``defects`` of ``inspected``;
        ``prior_alpha``, ``prior_beta`` the beta prior of both probabilities.

    Returns
    -------
    pymc.Model
        Free variables ``p`` () and ``q`` (); observed ``successes`` and ``defects``.
    """
    a, b = float(data["prior_alpha"]), float(data["prior_beta"])
    with pm.Model() as model:
        p = pm.Beta("p", alpha=a, beta=b)
        q = pm.Beta("q", alpha=a, beta=b)
        pm.Binomial("successes", n=int(data["trials"]), p=p, observed=int(data["successes"]))
        pm.Binomial("defects", n=int(data["inspected"]), p=q, observed=int(data["defects"]))
    return model
