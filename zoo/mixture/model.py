r"""A two-component normal mixture, indicators marginalised, written in PyMC.

::

    w          ~ Beta(w_alpha, w_beta)                weight of component 1
    mu_k       ~ N(mu_prior_mean_k, mu_prior_sd^2)    k = 1, 2 (prior means -2.5 and 2.5)
    sigma2_k   ~ InvGamma(sigma2_alpha, sigma2_beta)  (shape, scale)
    y_i        ~ w N(mu_1, sigma2_1) + (1 - w) N(mu_2, sigma2_2)

``pm.NormalMixture`` sums the component indicators out of the likelihood, so
NUTS samples only the five continuous parameters. The asymmetric priors of the
means and the well-separated data keep both samplers on one labelling (no label
switching). This file shares no code with ``sampler.py`` (the Gibbs sampler
that samples the indicators): each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the two-component normal mixture.

    Parameters
    ----------
    data : mapping
        ``y`` (N,) observations; priors ``w_alpha``, ``w_beta``,
        ``mu_prior_mean`` (2,), ``mu_prior_sd``, ``sigma2_alpha``, ``sigma2_beta``.

    Returns
    -------
    pymc.Model
        Free variables ``w`` (), ``mu`` (2,), ``sigma2`` (2,); observed ``y``.
    """
    y = np.asarray(data["y"], dtype=float)
    with pm.Model() as model:
        w = pm.Beta("w", alpha=float(data["w_alpha"]), beta=float(data["w_beta"]))
        mu = pm.Normal(
            "mu",
            mu=np.asarray(data["mu_prior_mean"], dtype=float),
            sigma=float(data["mu_prior_sd"]),
            shape=2,
        )
        sigma2 = pm.InverseGamma(
            "sigma2",
            alpha=float(data["sigma2_alpha"]),
            beta=float(data["sigma2_beta"]),
            shape=2,
        )
        weights = pm.math.stack([w, 1.0 - w])
        pm.NormalMixture("y", w=weights, mu=mu, sigma=pm.math.sqrt(sigma2), observed=y)
    return model
