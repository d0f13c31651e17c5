r"""The PyMC twin of LDA (seeds 000 and 002): topic assignments marginalised out, NUTS.

Summing each token's topic out of :math:`p(w, z \mid \theta, \varphi)` leaves,
for document :math:`m` with word counts :math:`n_{mw}`,

.. math::

    \log p(w_m \mid \theta_m, \varphi)
    = \sum_w n_{mw} \log \sum_k \theta_{mk} \varphi_{kw},

a continuous likelihood NUTS can sample, with ``theta`` (D, K) and ``phi``
(K, V) Dirichlet as in the seeds. (The word order inside a document carries no
information, so the counts are all the likelihood needs.) Two expressions of
the same sum: over the observed (document, word) cells only, O(cells K) per
gradient, for sparse corpora; or with the dense product ``theta @ phi`` (D, V),
whose unobserved cells have count 0, when at least :data:`DENSE_FILL` of the
cells are observed. On the bars corpus (55 % of the cells) the dense one
samples about 1.4 times faster (nutpie, 4 x 3000 draws: 22-25 s against 34 s),
with the same model and about the same steps per draw (70 against 68).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from mcmc_pairs.pairdata.lda import validate_data

DENSE_FILL = 0.25
"""Share of observed (document, word) cells from which the likelihood uses ``theta @ phi``."""


def build_model(data: Mapping) -> pm.Model:
    """Return the marginalised LDA model with free variables ``theta`` and ``phi``.

    Parameters
    ----------
    data : mapping
        ``docs``, ``V``, ``K``, ``alpha``, ``beta`` (see
        :func:`mcmc_pairs.pairdata.lda.validate_data`).

    Returns
    -------
    pymc.Model
        ``theta`` (D, K) ~ Dir(alpha), ``phi`` (K, V) ~ Dir(beta), and the
        potential ``loglik`` = sum_mw n_mw log (theta phi)_mw.
    """
    d = validate_data(data)
    D, K, V = d["D"], d["K"], d["V"]
    counts = np.zeros((D, V), dtype=np.int64)  # n_mw: how often word w occurs in document m
    for m, doc in enumerate(d["docs"]):
        np.add.at(counts[m], doc, 1)
    rows, cols = np.nonzero(counts)
    with pm.Model() as model:
        theta = pm.Dirichlet("theta", a=np.full((D, K), d["alpha"]))
        phi = pm.Dirichlet("phi", a=np.full((K, V), d["beta"]))
        if len(rows) >= DENSE_FILL * D * V:  # every cell, the unobserved ones with count 0
            pm.Potential("loglik", pt.sum(counts * pt.log(pt.dot(theta, phi))))
        else:  # only the observed (document, word) cells
            rate = pt.sum(theta[rows] * phi[:, cols].T, axis=1)
            pm.Potential("loglik", pt.sum(counts[rows, cols] * pt.log(rate)))
    return model
