"""Pair ``lda``: collapsed Gibbs by the seeds' counts against NUTS on the marginalised model.

Topics are exchangeable, so every chain settles in one of K! labellings.
:func:`align` relabels each chain's topics to match a reference (Hungarian
matching on the Hellinger distance between topics) before any statistic.
Everything here (alignment, derived quantities, the validation corpus and its
simulator) is written apart from the PyMC model and the hand-written sampler;
the three share only the data (:mod:`mcmc_pairs.pairdata.lda`).

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
(theta, phi) alone (:func:`test_params`): the topics sorted by their corpus
weight ``sum_m theta_mk`` (largest first) with the last component of every
simplex dropped (it is one minus the others), plus the pair's own ``derived``
quantities (log likelihood per token, mean entropy of the topics and of the
documents' proportions). Aligning the posterior draws to the prior draw
(:func:`topic_permutation`) was not used: the aligned
quantity would depend on the prior draw itself, so the prior draw and the
posterior draws would no longer be exchangeable and the ranks of a correct
sampler would not be exactly uniform (they pile up in the middle when two
topics are close). Sorting is a function of the draw alone, so SBC and
Geweke's test stay exact whatever labelling each chain settles in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from mcmc_pairs.comparisons.pair import Pair, PlantedShifts, Section
from mcmc_pairs.pairdata.lda import default_data, validate_data

if TYPE_CHECKING:
    import xarray as xr

    from mcmc_pairs.comparisons.result import PairResult


def hellinger_matrix(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Return the Hellinger distances between the rows of ``p`` (A, V) and ``q`` (B, V).

    Returns
    -------
    ndarray, shape (A, B)
    """
    diff = np.sqrt(p)[:, None, :] - np.sqrt(q)[None, :, :]
    return np.sqrt(0.5 * np.sum(diff**2, axis=-1))


def topic_permutation(phi: np.ndarray, target_phi: np.ndarray) -> np.ndarray:
    """Return ``perm`` with ``phi[perm]`` matching ``target_phi`` topic by topic.

    Parameters
    ----------
    phi, target_phi : ndarray, shape (K, V)

    Returns
    -------
    ndarray of int, shape (K,)
        ``perm[j]`` is the topic of ``phi`` matched to topic ``j`` of the target.
    """
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(hellinger_matrix(target_phi, phi))
    perm = np.empty(len(rows), dtype=int)
    perm[rows] = cols
    return perm


def align(posterior: xr.Dataset, target: xr.Dataset) -> xr.Dataset:
    """Relabel every chain's topics to match ``target`` (Hungarian on Hellinger distance).

    Parameters
    ----------
    posterior : xarray.Dataset
        ``phi`` (chain, draw, K, V) and optionally ``theta`` (chain, draw, D, K).
    target : xarray.Dataset
        ``phi`` (K, V): posterior-mean topics of the reference chain.

    Returns
    -------
    xarray.Dataset
        A copy with each chain's topic axis of ``phi`` and ``theta`` permuted.
    """
    phi = posterior["phi"]
    target_phi = np.asarray(target["phi"].transpose(*target["phi"].dims))
    out = posterior.copy()
    phi_values = phi.values.copy()
    theta_values = posterior["theta"].values.copy() if "theta" in posterior else None
    for c in range(phi.sizes["chain"]):
        perm = topic_permutation(phi_values[c].mean(axis=0), target_phi)
        phi_values[c] = phi_values[c][:, perm, :]
        if theta_values is not None:
            theta_values[c] = theta_values[c][:, :, perm]
    out["phi"] = phi.copy(data=phi_values)
    if theta_values is not None:
        out["theta"] = posterior["theta"].copy(data=theta_values)
    return out


def log_likelihood_per_token(theta: np.ndarray, phi: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Return ``sum_mw n_mw log (theta phi)_mw / N`` for every draw.

    Parameters
    ----------
    theta : ndarray, shape (..., D, K)
    phi : ndarray, shape (..., K, V)
    counts : ndarray, shape (D, V)

    Returns
    -------
    ndarray, shape (...)
    """
    rows, cols = np.nonzero(counts)
    theta, phi = np.asarray(theta), np.asarray(phi)
    batch = theta.shape[:-2]
    theta = theta.reshape(-1, *theta.shape[-2:])
    phi = np.swapaxes(phi.reshape(-1, *phi.shape[-2:]), -1, -2)
    out = np.empty(len(theta))
    step = max(1, LOGLIK_CHUNK_VALUES // max(1, len(rows) * theta.shape[-1]))
    for s in range(0, len(theta), step):  # draws in chunks: the gathered cells stay small
        rate = np.einsum("sdk,sdk->sd", theta[s : s + step, rows], phi[s : s + step, cols])
        out[s : s + step] = (np.log(rate) * counts[rows, cols]).sum(axis=-1)
    return out.reshape(batch) / counts.sum()


LOGLIK_CHUNK_VALUES = 2**20
"""Size of the (draw, cell, topic) arrays :func:`log_likelihood_per_token` gathers at once."""


def word_counts(data: Mapping) -> np.ndarray:
    """Return ``n_mw``, how often word ``w`` occurs in document ``m``, shape (D, V)."""
    d = validate_data(data)
    counts = np.zeros((d["D"], d["V"]), dtype=np.int64)
    for m, doc in enumerate(d["docs"]):
        counts[m] += np.bincount(doc, minlength=d["V"])
    return counts


def entropy(p: np.ndarray) -> np.ndarray:
    """Entropy (nats) of the distributions along the last axis, with 0 log 0 = 0."""
    safe = np.where(p > 0, p, 1.0)
    return -np.sum(np.where(p > 0, p * np.log(safe), 0.0), axis=-1)


def joint_quantities(
    posterior: xr.Dataset, data: Mapping, centers: Mapping
) -> dict[str, xr.DataArray]:
    """Per-draw quantities of the whole (theta, phi): log likelihood and topic spread.

    - ``loglik_per_token``: ``log p(w | theta, phi) / N`` (topic sums marginalised);
    - ``phi_entropy``: mean entropy of the topics, a label-free summary of phi;
    - ``theta_entropy``: mean entropy of the documents' topic proportions.
    """
    import xarray as xr

    d = validate_data(data)
    theta = posterior["theta"].transpose("chain", "draw", ...).values
    phi = posterior["phi"].transpose("chain", "draw", ...).values
    dims = ("chain", "draw")
    coords = {dim: posterior[dim].values for dim in dims}

    return {
        "loglik_per_token": xr.DataArray(
            log_likelihood_per_token(theta, phi, word_counts(d)), dims=dims, coords=coords
        ),
        "phi_entropy": xr.DataArray(entropy(phi).mean(axis=-1), dims=dims, coords=coords),
        "theta_entropy": xr.DataArray(entropy(theta).mean(axis=-1), dims=dims, coords=coords),
    }


def mean_topics(quantities: xr.DataArray, K: int, V: int) -> np.ndarray:
    """Return the posterior-mean topics (K, V) of one side from its aligned quantities."""
    names = [f"phi[{k}, {v}]" for k in range(K) for v in range(V)]
    return quantities.sel(quantity=names).mean(("chain", "draw")).values.reshape(K, V)


def topics_section(result: PairResult) -> list[Section]:
    """Report section: both sides' aligned mean topics, as images when V is a square.

    With the true topics known (the bars corpus), each side's distance to them is
    shown too: recovery of the truth by both sides.
    """
    import pandas as pd

    d = result.data
    K, V = int(d["K"]), int(d["V"])
    topics = {}
    for label, s in result.sides.items():
        if s.quantities is None:  # a report is drawn from a finished run: every side summarised
            raise ValueError(f"side {label!r} has no quantities to draw topics from")
        topics[label] = mean_topics(s.quantities, K, V)
    truth = d.get("true_phi")
    if truth is not None:
        truth = np.asarray(truth)[topic_permutation(np.asarray(truth), topics["pymc"])]
        topics = {"truth": truth, **topics}
    side = int(round(np.sqrt(V)))
    square = side * side == V
    shape = (K, side, side) if square else (K, 1, V)
    images = {label: phi.reshape(shape) for label, phi in topics.items()}
    rows = []
    for label, phi in topics.items():
        if label not in ("pymc", "truth"):
            dist = np.diag(hellinger_matrix(phi, topics["pymc"]))
            rows.append((f"{label} vs pymc", dist.mean(), dist.max()))
    if truth is not None:
        for label, phi in topics.items():
            if label != "truth":
                dist = np.diag(hellinger_matrix(phi, truth))
                rows.append((f"{label} vs truth", dist.mean(), dist.max()))
    table = pd.DataFrame(
        [r[1:] for r in rows],
        index=pd.Index([r[0] for r in rows], name="mean topics"),
        columns=["mean Hellinger distance", "largest"],
    ).round(3)
    text = (
        "Posterior-mean topics of every side after aligning each chain to the first NUTS "
        "chain (Hungarian matching on Hellinger distance), one column per topic"
        + (f", each drawn as its {side} x {side} image of word probabilities" if square else "")
        + ". The two sides should find the same topics, and on the synthetic bars corpus "
        "the true bars."
    )
    return [Section("Topics, aligned", text=text, table=table, images=images)]


# ------------------------------------------------------------- validation


class LdaSetting(TypedDict):
    """A validation corpus: D documents of doc_length tokens, V words, K topics, the priors."""

    D: int
    doc_length: int
    V: int
    K: int
    alpha: float
    beta: float


LDA_SETTING: LdaSetting = {"D": 6, "doc_length": 24, "V": 9, "K": 3, "alpha": 1.0, "beta": 0.5}
"""Small validation corpus of LDA (see the module docstring)."""


def validation_data() -> dict:
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
    return simulate(data, prior(data, rng), rng)


def prior(data: Mapping, rng: np.random.Generator) -> dict[str, np.ndarray]:
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


def simulate(data: Mapping, params: Mapping, rng: np.random.Generator) -> dict:
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


def test_params(params: Mapping[str, np.ndarray], data: Mapping) -> dict[str, np.ndarray]:
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
        "doc_entropy": entropy(theta),
        "topic_weight": np.take_along_axis(weight, order, axis=-1)[..., :-1],
        "topic_entropy": np.take_along_axis(entropy(phi), order, axis=-1),
    }


PAIR = Pair(
    name="lda",
    title="Latent Dirichlet allocation: collapsed Gibbs against NUTS on the marginalised model",
    seed="000_c903dc61037307e8.txt",
    load_data=default_data,
    model="mcmc_pairs.models.lda:build_model",
    handrolled={
        "gibbs": "mcmc_pairs.handrolled.lda:sample_sparse",
        "gibbs_fast": "mcmc_pairs.handrolled.lda:sample_fast",
        "gibbs_plain": "mcmc_pairs.handrolled.lda:sample_plain",
    },
    variables=("theta", "phi"),
    derived=joint_quantities,
    align=align,
    settings={"draws": 2000, "tune": 1000, "chains": 4},
    report_extra=topics_section,
    validation_data=validation_data,
    prior=prior,
    simulate=simulate,
    test_params=test_params,
    wrong={
        "gibbs_keeping_the_current_token": (
            "mcmc_pairs.handrolled.wrong_samplers:lda_gibbs_keeping_the_current_token"
        ),
    },
    planted=PlantedShifts(
        ("theta", (0, 0)),
        ("theta", (0, 1)),
        mean="simplex",
        sd="simplex_shrink",
        corr=None,
        aligned=True,
    ),
)
