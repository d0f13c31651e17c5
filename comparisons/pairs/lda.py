"""Pair ``lda``: collapsed Gibbs by the seeds' counts against NUTS on the marginalised model.

Topics are exchangeable, so every chain settles in one of K! labellings.
:func:`align` relabels each chain's topics to match a reference (Hungarian
matching on the Hellinger distance between topics) before any statistic.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import xarray as xr
from scipy.optimize import linear_sum_assignment

from comparisons.pair import Pair, Section
from handrolled.lda import count_matrix, default_data, validate_data


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
    rate = np.einsum(
        "...dk,...dk->...d", theta[..., rows, :], np.swapaxes(phi, -1, -2)[..., cols, :]
    )
    return (np.log(rate) * counts[rows, cols]).sum(axis=-1) / counts.sum()


def joint_quantities(
    posterior: xr.Dataset, data: Mapping, centers: Mapping
) -> dict[str, xr.DataArray]:
    """Per-draw quantities of the whole (theta, phi): log likelihood and topic spread.

    - ``loglik_per_token``: ``log p(w | theta, phi) / N`` (topic sums marginalised);
    - ``phi_entropy``: mean entropy of the topics, a label-free summary of phi;
    - ``theta_entropy``: mean entropy of the documents' topic proportions.
    """
    d = validate_data(data)
    theta = posterior["theta"].transpose("chain", "draw", ...).values
    phi = posterior["phi"].transpose("chain", "draw", ...).values
    dims = ("chain", "draw")
    coords = {dim: posterior[dim].values for dim in dims}

    def entropy(p):
        return -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)

    return {
        "loglik_per_token": xr.DataArray(
            log_likelihood_per_token(theta, phi, count_matrix(d)), dims=dims, coords=coords
        ),
        "phi_entropy": xr.DataArray(entropy(phi).mean(axis=-1), dims=dims, coords=coords),
        "theta_entropy": xr.DataArray(entropy(theta).mean(axis=-1), dims=dims, coords=coords),
    }


def mean_topics(quantities: xr.DataArray, K: int, V: int) -> np.ndarray:
    """Return the posterior-mean topics (K, V) of one side from its aligned quantities."""
    names = [f"phi[{k}, {v}]" for k in range(K) for v in range(V)]
    return quantities.sel(quantity=names).mean(("chain", "draw")).values.reshape(K, V)


def topics_section(result) -> list[Section]:
    """Report section: both sides' aligned mean topics, as images when V is a square.

    With the true topics known (the bars corpus), each side's distance to them is
    shown too: recovery of the truth by both sides.
    """
    d = result.data
    K, V = int(d["K"]), int(d["V"])
    topics = {label: mean_topics(s.quantities, K, V) for label, s in result.sides.items()}
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


PAIR = Pair(
    name="lda",
    title="Latent Dirichlet allocation: collapsed Gibbs against NUTS on the marginalised model",
    seed="000_c903dc61037307e8.txt",
    load_data=default_data,
    model="models.lda:build_model",
    handrolled={
        "gibbs": "handrolled.lda:sample",
        "gibbs_fast": "handrolled.lda:sample_fast",
        "gibbs_plain": "handrolled.lda:sample_plain",
    },
    variables=("theta", "phi"),
    derived=joint_quantities,
    align=align,
    settings={"draws": 2000, "tune": 1000, "chains": 4},
    report_extra=topics_section,
    validation_data="comparisons.simulators:lda_validation_data",
    prior="comparisons.simulators:lda_prior",
    simulate="comparisons.simulators:lda_simulate",
    test_params="comparisons.simulators:lda_test_params",
)
