"""Priors and data simulators of the pairs that condition on data, for validation.

Geweke's joint-distribution test and simulation-based calibration
(:mod:`comparisons.validation`) need to draw parameters from the prior and data
given parameters. A pair declares three import strings on its
:class:`~comparisons.pair.Pair` (``validation_data``, ``prior``, ``simulate``);
the functions live here:

``validation_data() -> dict``
    The data (design and hyperparameters) under which the sampler is
    validated; its observed part is replaced by simulated data in every
    replication.
``prior(data, rng) -> {name: ndarray}``
    One draw of the posterior variables from their prior, each of the
    variable's event shape (``()`` for scalars).
``simulate(data, params, rng) -> dict``
    A copy of ``data`` whose observed part is drawn from p(data | params).

Pairs that sample a fixed target (``bivariate_normal``, ``mh_normal``,
``mh_beta``) have no data and declare none of them.

Regression under a proper, moderate prior
-----------------------------------------
The seed's prior (``m0 = m1 = 1e6``, ``epsilon = 1e-3``) is so wide that data
simulated from it are absurd (weights of +-1000 pounds, noise variances from
1e-300 to 1e300) and ``sigma2`` has no finite mean. Validation therefore uses

    beta0 ~ N(0, 1),   beta1 ~ N(0, 1),   sigma2 ~ InvGamma(5, 5)

(:data:`REGRESSION_PRIOR`; ``sigma2`` has prior mean 1.25 and finite moments up
to order 4, so the second-moment test functions of Geweke's test have finite
variance) and a small design, five of ``women``'s heights in feet above five
feet (:data:`REGRESSION_HEIGHTS`, 58 to 70 inches: off-centre, so ``beta0`` and
``beta1`` stay correlated). With all 15 heights in inches the data pin
``beta0 + 65 beta1`` down about a hundred times more tightly than the prior,
and Geweke's successive-conditional chain (which moves theta only by a
posterior width per step) had a bulk ESS of about 11 out of 2,000 steps for
``beta1`` (measured): its MCSE could not be trusted and correct samplers failed
in 1 of 5 runs. With this design the chain mixes in a few steps.

Bayesian network
----------------
The prior of the unobserved nodes is forward sampling of the network
(:func:`handrolled.bayes_net.forward_sample`) with the evidence nodes dropped;
the data are the evidence nodes' values, drawn from P(evidence nodes | unobserved
nodes) by enumerating the evidence nodes' states. The default query observes A
and E, so each replication validates the sampler on one of the four evidence
patterns, with the probability the network gives it.

LDA on a small corpus
---------------------
The pair's bars corpus (40 documents, K = 10, V = 25) is far too large for
hundreds of replications. Validation uses a small corpus drawn from the model
itself (:data:`LDA_SETTING`): D = 6 documents of 24 tokens each, V = 9 words,
K = 3 topics, alpha = 1 (flat over each document's topic proportions) and
beta = 0.5 (topics moderately sparse, so prior topics usually differ):

    theta_m ~ Dir(alpha),  phi_k ~ Dir(beta),
    z_mn ~ Cat(theta_m),   w_mn ~ Cat(phi_{z_mn}).

*Label switching.* The posterior is symmetric under relabelling the topics and
a Gibbs chain stays near one labelling, so the rank of ``theta[0, 0]`` among
posterior draws says which labelling the chain found, not whether it is
calibrated. The test quantities are therefore label-invariant functions of
(theta, phi) alone (:func:`lda_test_params`): the topics sorted by their corpus
weight ``sum_m theta_mk`` (largest first) with the last component of every
simplex dropped (it is one minus the others), plus the pair's own ``derived``
quantities (log likelihood per token, mean entropy of the topics and of the
documents' proportions). Aligning the posterior draws to the prior draw
(:func:`comparisons.pairs.lda.topic_permutation`) was not used: the aligned
quantity would depend on the prior draw itself, so the prior draw and the
posterior draws would no longer be exchangeable and the ranks of a correct
sampler would not be exactly uniform (they pile up in the middle when two
topics are close). Sorting is a function of the draw alone, so SBC and
Geweke's test stay exact whatever labelling each chain settles in.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

REGRESSION_PRIOR = {"m0": 1.0, "m1": 1.0, "epsilon": 5.0}
"""Prior variances of ``beta0`` and ``beta1`` and the inverse-gamma shape and scale
used for validation (see the module docstring)."""
REGRESSION_HEIGHTS = (np.array([58.0, 61.0, 64.0, 67.0, 70.0]) - 60.0) / 12.0
"""Validation design: five of ``women``'s heights, in feet above five feet, shape (5,)."""


# ------------------------------------------------------------------ regression


def regression_validation_data() -> dict:
    """Return :data:`REGRESSION_HEIGHTS` with :data:`REGRESSION_PRIOR`, and one simulated weight.

    Returns
    -------
    dict
        ``height`` (5,), ``weight`` (5,) simulated from the prior (seed 0),
        ``m0``, ``m1``, ``epsilon``.
    """
    data = {"height": REGRESSION_HEIGHTS.copy(), **REGRESSION_PRIOR}
    rng = np.random.default_rng(0)
    return regression_simulate(data, regression_prior(data, rng), rng)


def regression_prior(data: Mapping, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Draw ``beta0 ~ N(0, m0)``, ``beta1 ~ N(0, m1)``, ``sigma2 ~ InvGamma(epsilon, epsilon)``.

    Parameters
    ----------
    data : mapping
        Uses ``m0``, ``m1`` (variances) and ``epsilon`` (shape and scale).
    rng : numpy.random.Generator

    Returns
    -------
    dict of str to ndarray
        ``beta0``, ``beta1``, ``sigma2``, each of shape ().
    """
    m0, m1, eps = (float(data[k]) for k in ("m0", "m1", "epsilon"))
    beta0 = np.sqrt(m0) * rng.standard_normal()
    beta1 = np.sqrt(m1) * rng.standard_normal()
    sigma2 = 1.0 / rng.gamma(eps, 1.0 / eps)  # 1 / Gamma(shape eps, rate eps)
    return {"beta0": np.asarray(beta0), "beta1": np.asarray(beta1), "sigma2": np.asarray(sigma2)}


def regression_simulate(data: Mapping, params: Mapping, rng: np.random.Generator) -> dict:
    """Draw ``weight_i ~ N(beta0 + beta1 height_i, sigma2)`` at the data's heights.

    Parameters
    ----------
    data : mapping
        Regression data; ``height`` (N,) is kept, ``weight`` replaced.
    params : mapping
        ``beta0``, ``beta1``, ``sigma2`` (scalars).
    rng : numpy.random.Generator

    Returns
    -------
    dict
        A copy of ``data`` with a new ``weight`` (N,).
    """
    height = np.asarray(data["height"], dtype=float)
    mean = float(params["beta0"]) + float(params["beta1"]) * height
    weight = mean + np.sqrt(float(params["sigma2"])) * rng.standard_normal(height.shape)
    return {**data, "weight": weight}


# ------------------------------------------------------------------- bayes_net


def bayes_net_validation_data() -> dict:
    """Return the default network and query (A and E observed; their values get simulated)."""
    from handrolled.bayes_net import default_data

    return default_data()


def bayes_net_prior(data: Mapping, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Forward-sample the network once and return the unobserved nodes.

    Parameters
    ----------
    data : mapping
        ``cpts`` and ``evidence`` (only which nodes are observed matters).
    rng : numpy.random.Generator

    Returns
    -------
    dict of str to ndarray
        One int64 0/1 value of shape () per unobserved node.
    """
    from handrolled.bayes_net import INDEX, forward_sample, free_nodes

    state = forward_sample(data["cpts"], 1, rng)[0]
    return {node: np.asarray(state[INDEX[node]]) for node in free_nodes(data["evidence"])}


def bayes_net_simulate(data: Mapping, params: Mapping, rng: np.random.Generator) -> dict:
    """Draw the evidence nodes from P(evidence nodes | unobserved nodes = params).

    The evidence nodes' states are enumerated and weighted by the joint
    probability of the network (a parent among them, like A, is drawn from its
    conditional given its children, not from its prior table).

    Parameters
    ----------
    data : mapping
        ``cpts`` and ``evidence``; the evidence nodes keep their names and get new values.
    params : mapping
        Value (0/1) of every unobserved node.
    rng : numpy.random.Generator

    Returns
    -------
    dict
        ``{"cpts": data["cpts"], "evidence": {node: 0 or 1}}``.
    """
    from handrolled.bayes_net import INDEX, NODES, joint_probability

    observed = [node for node in NODES if node in data["evidence"]]
    patterns = np.array(list(itertools.product((0, 1), repeat=len(observed))), dtype=np.int64)
    states = np.zeros((len(patterns), len(NODES)), dtype=np.int64)
    for node, value in params.items():
        states[:, INDEX[node]] = int(value)
    for k, node in enumerate(observed):
        states[:, INDEX[node]] = patterns[:, k]
    weights = joint_probability(data["cpts"], states)
    pick = rng.choice(len(patterns), p=weights / weights.sum())
    evidence = {node: int(patterns[pick, k]) for k, node in enumerate(observed)}
    return {"cpts": data["cpts"], "evidence": evidence}


# ------------------------------------------------------------------------- lda

LDA_SETTING = {"D": 6, "doc_length": 24, "V": 9, "K": 3, "alpha": 1.0, "beta": 0.5}
"""Small validation corpus of LDA (see the module docstring)."""


def lda_validation_data() -> dict:
    """Return the :data:`LDA_SETTING` corpus, with one set of documents simulated (seed 0).

    Returns
    -------
    dict
        ``docs`` (list of ``D`` int64 arrays, each shape (doc_length,)), ``V``,
        ``K``, ``alpha``, ``beta``; the documents' lengths are kept in every
        replication, their words are simulated.
    """
    s = LDA_SETTING
    data = {
        "docs": [np.zeros(s["doc_length"], dtype=np.int64) for _ in range(s["D"])],
        "V": s["V"],
        "K": s["K"],
        "alpha": s["alpha"],
        "beta": s["beta"],
    }
    rng = np.random.default_rng(0)
    return lda_simulate(data, lda_prior(data, rng), rng)


def lda_prior(data: Mapping, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Draw ``theta_m ~ Dir(alpha)`` for every document and ``phi_k ~ Dir(beta)`` for every topic.

    Parameters
    ----------
    data : mapping
        Uses the number of documents (``len(docs)``), ``V``, ``K``, ``alpha``, ``beta``.
    rng : numpy.random.Generator

    Returns
    -------
    dict of str to ndarray
        ``theta`` (D, K) and ``phi`` (K, V), rows on the simplex.
    """
    D, K, V = len(data["docs"]), int(data["K"]), int(data["V"])
    theta = rng.dirichlet(np.full(K, float(data["alpha"])), size=D)
    phi = rng.dirichlet(np.full(V, float(data["beta"])), size=K)
    return {"theta": theta, "phi": phi}


def lda_simulate(data: Mapping, params: Mapping, rng: np.random.Generator) -> dict:
    """Draw every token: ``z_mn ~ Cat(theta_m)``, then ``w_mn ~ Cat(phi_{z_mn})``.

    Parameters
    ----------
    data : mapping
        LDA data; the documents' lengths are kept, their words replaced.
    params : mapping
        ``theta`` (D, K) and ``phi`` (K, V).
    rng : numpy.random.Generator

    Returns
    -------
    dict
        ``docs`` (new words, each document as long as before), ``V``, ``K``,
        ``alpha``, ``beta`` of ``data``.
    """
    theta, phi = np.asarray(params["theta"], float), np.asarray(params["phi"], float)
    K, V = phi.shape
    docs = []
    for m, doc in enumerate(data["docs"]):
        z = rng.choice(K, size=len(doc), p=theta[m] / theta[m].sum())
        cum = np.cumsum(phi[z], axis=1)
        u = rng.random(len(doc)) * cum[:, -1]
        words = np.minimum((cum <= u[:, None]).sum(axis=1), V - 1)
        docs.append(words.astype(np.int64))
    return {"docs": docs, **{k: data[k] for k in ("V", "K", "alpha", "beta")}}


def lda_test_params(params: Mapping[str, np.ndarray], data: Mapping) -> dict[str, np.ndarray]:
    """Return label-invariant summaries of LDA draws.

    Topic ``k``'s weight is ``sum_m theta[m, k] / D``; the topics are ordered by
    decreasing weight, a function of the draw alone, which gives the same
    values in every one of the K! labellings (see the module docstring).

    Parameters
    ----------
    params : mapping of str to ndarray
        ``theta`` (chain, draw, D, K) and ``phi`` (chain, draw, K, V).
    data : mapping
        Unused (the summaries depend on the draw alone).

    Returns
    -------
    dict of str to ndarray
        ``doc_entropy`` (chain, draw, D): entropy of each document's ``theta_m``;
        ``topic_weight`` (chain, draw, K - 1): the sorted weights without the
        smallest (one minus the others); ``topic_entropy`` (chain, draw, K):
        entropy of each topic ``phi_k``, in the order of the weights.
    """
    theta = np.asarray(params["theta"], float)
    phi = np.asarray(params["phi"], float)
    weight = theta.mean(axis=-2)  # (chain, draw, K)
    order = np.argsort(-weight, axis=-1, kind="stable")
    return {
        "doc_entropy": _entropy(theta),
        "topic_weight": np.take_along_axis(weight, order, axis=-1)[..., :-1],
        "topic_entropy": np.take_along_axis(_entropy(phi), order, axis=-1),
    }


def _entropy(p: np.ndarray) -> np.ndarray:
    """Entropy (nats) of the distributions along the last axis, with 0 log 0 = 0."""
    safe = np.where(p > 0, p, 1.0)
    return -np.sum(np.where(p > 0, p * np.log(safe), 0.0), axis=-1)
