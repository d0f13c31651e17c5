"""Pair ``bayes_net``: Gibbs and rejection sampling of seed 004's network against PyMC.

The posterior variables are the unobserved nodes (``B``, ``C``, ``D`` under
the default evidence A = 1, E = 1), each 0/1. Everything is known exactly by
enumerating the 32 states: P(node = 1 | evidence) (the mean; the sd is
``sqrt(p (1 - p))``), the centred products the harness adds (centred at the
exact means, their mean is the posterior covariance) and the log joint
probability of a draw. Quantiles of 0/1 quantities are 0 or 1 with zero MCSE,
so only the mean and sd are compared.

The enumeration states the network (:data:`GRAPH`) itself: the PyMC model and
the hand-written sampler state it too, each on its own, and share only the
data (:mod:`mcmc_pairs.pairdata.bayes_net`).

Validation (Geweke's test, SBC): the prior of the unobserved nodes is forward
sampling of the network (:func:`prior`) with the evidence nodes dropped; the
data are the evidence nodes' values, drawn from P(evidence nodes | unobserved
nodes) by enumerating the evidence nodes' states (:func:`simulate`). The
default query observes A and E, so each replication validates the sampler on
one of the four evidence patterns, with the probability the network gives it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from mcmc_pairs.comparisons.loading import load_callable
from mcmc_pairs.comparisons.pair import ExactMarginal, Pair, PlantedShifts, Section
from mcmc_pairs.pairdata.bayes_net import EVIDENCE_SEQUENCE, default_data, free_nodes, validate_data

if TYPE_CHECKING:
    import xarray as xr

    from mcmc_pairs.comparisons.result import PairResult

GRAPH: dict[str, tuple[str, ...]] = {
    "A": (),
    "B": (),
    "C": ("A", "B"),
    "D": ("B",),
    "E": ("C",),
}
"""Seed 004's network, stated here for the reference: each node's parents (in the
order that indexes its table), nodes in topological order."""


def log_joint(cpts: Mapping[str, np.ndarray], states: Mapping[str, np.ndarray]) -> np.ndarray:
    """Return ``log P(states)`` of the network: the sum over nodes of log P(node | parents).

    Parameters
    ----------
    cpts : mapping of str to ndarray
        Validated tables, P(node = 1 | parents) indexed by the parents' values.
    states : mapping of str to ndarray of int
        Each node's 0/1 values, arrays of one common shape ``S``.

    Returns
    -------
    ndarray, shape ``S``
    """
    total = 0.0
    for node, parents in GRAPH.items():
        p_one = np.asarray(cpts[node])[tuple(np.asarray(states[q]) for q in parents)]
        with np.errstate(divide="ignore"):
            total = total + np.log(np.where(np.asarray(states[node]) == 1, p_one, 1.0 - p_one))
    return np.asarray(total)


def enumerate_states(evidence: Mapping[str, int]) -> dict[str, np.ndarray]:
    """Return every state that agrees with ``evidence``: node to 0/1 values, shape (S,)."""
    nodes = list(GRAPH)
    rows = [
        state
        for state in itertools.product((0, 1), repeat=len(nodes))
        if all(state[nodes.index(node)] == value for node, value in evidence.items())
    ]
    table = np.array(rows, dtype=np.int64)
    return {node: table[:, j] for j, node in enumerate(nodes)}


def posterior_states(data: Mapping) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Return the states that agree with the evidence and their posterior probabilities (S,).

    Raises
    ------
    ValueError
        If the evidence has probability zero under the tables.
    """
    d = validate_data(data)
    states = enumerate_states(d["evidence"])
    weights = np.exp(log_joint(d["cpts"], states))
    if weights.sum() <= 0:
        raise ValueError(f"evidence {d['evidence']} has probability zero under cpts")
    return states, weights / weights.sum()


def _moments(values: np.ndarray, probs: np.ndarray) -> ExactMarginal:
    """Exact mean and sd of a discrete quantity taking ``values`` with ``probs``."""
    mean = float(probs @ values)
    return ExactMarginal(
        mean=mean, sd=float(np.sqrt(max(float(probs @ (values - mean) ** 2), 0.0)))
    )


def log_joint_of_draws(
    posterior: xr.Dataset, data: Mapping, centers: Mapping
) -> dict[str, xr.DataArray]:
    """Return ``{"logp": log P(evidence, draw)}`` of every draw, shape (chain, draw).

    The observed nodes take their evidence values; the unobserved ones their
    drawn values.
    """
    import xarray as xr

    d = validate_data(data)
    evidence = d["evidence"]
    template = posterior[free_nodes(evidence)[0]].transpose("chain", "draw")
    states = {
        node: np.full(template.shape, evidence[node])
        if node in evidence
        else posterior[node].transpose("chain", "draw").values.astype(np.int64)
        for node in GRAPH
    }
    logp = log_joint(d["cpts"], states)
    return {"logp": xr.DataArray(logp, dims=("chain", "draw"), coords=template.coords)}


def acceptance_table(result: PairResult) -> list[Section]:
    """Report section: rejection sampling keeps fewer draws as the evidence grows (seed 004)."""
    import pandas as pd

    d = validate_data(result.data)
    rng = np.random.default_rng(2026)
    # The section shows the hand-rolled rejection sampler at work: named, not imported.
    fractions = load_callable(
        "mcmc_pairs.handrolled.bayes_net:acceptance_fractions", argument="report"
    )
    observed, exact_fraction = fractions(d["cpts"], EVIDENCE_SEQUENCE, 20_000, rng)
    table = pd.DataFrame(
        {"kept (observed)": observed, "P(evidence) (exact)": exact_fraction},
        index=pd.Index(
            [", ".join(f"{k} = {v}" for k, v in ev.items()) or "none" for ev in EVIDENCE_SEQUENCE],
            name="evidence",
        ),
    ).round(4)
    text = (
        "Rejection sampling draws from the network forward and keeps the draws that "
        "match the evidence, so it keeps a fraction P(evidence) of them: every extra piece of "
        "evidence makes it slower, which is why the seed turns to Gibbs sampling. 20,000 "
        "forward draws per row."
    )
    return [Section("Rejection sampling as evidence grows", text=text, table=table)]


def exact(data: Mapping) -> dict[str, ExactMarginal]:
    """Exact posterior mean and sd of every node, centred product and the log joint.

    By enumeration of the states that agree with the evidence.
    """
    d = validate_data(data)
    states, probs = posterior_states(d)
    nodes = free_nodes(d["evidence"])
    means = {node: float(probs @ states[node]) for node in nodes}
    out = {node: _moments(states[node].astype(float), probs) for node in nodes}
    for a, b in itertools.combinations(nodes, 2):
        product = (states[a] - means[a]) * (states[b] - means[b])
        out[f"{a}*{b}"] = _moments(product, probs)
    out["logp"] = _moments(log_joint(d["cpts"], states), probs)
    return out


# ------------------------------------------------------------- validation


def validation_data() -> dict:
    """Return the default network and query (A and E observed; their values get simulated)."""
    return default_data()


def prior(data: Mapping, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Forward-sample the network once (parents first) and return the unobserved nodes.

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
    d = validate_data(data)
    state: dict[str, int] = {}
    for node, parents in GRAPH.items():
        p_one = float(np.asarray(d["cpts"][node])[tuple(state[q] for q in parents)])
        state[node] = int(rng.random() < p_one)
    return {node: np.asarray(state[node], dtype=np.int64) for node in free_nodes(d["evidence"])}


def simulate(data: Mapping, params: Mapping, rng: np.random.Generator) -> dict:
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
    observed = [node for node in GRAPH if node in data["evidence"]]
    patterns = np.array(list(itertools.product((0, 1), repeat=len(observed))), dtype=np.int64)
    states = {
        node: np.full(len(patterns), int(params[node]), dtype=np.int64)
        for node in GRAPH
        if node not in observed
    }
    states.update({node: patterns[:, k] for k, node in enumerate(observed)})
    weights = np.exp(log_joint(data["cpts"], states))
    pick = rng.choice(len(patterns), p=weights / weights.sum())
    evidence = {node: int(patterns[pick, k]) for k, node in enumerate(observed)}
    return {"cpts": data["cpts"], "evidence": evidence}


def log_likelihood(posterior: xr.Dataset, data: Mapping) -> xr.DataArray:
    """Return ``log P(evidence | unobserved nodes = draw)`` of every draw, dims (chain, draw).

    The likelihood of what :func:`simulate` draws: the joint probability of the
    draw with the evidence, over its sum across every pattern of the evidence nodes.
    """
    import xarray as xr
    from scipy import special

    d = validate_data(data)
    evidence = d["evidence"]
    observed = [node for node in GRAPH if node in evidence]
    template = posterior[free_nodes(evidence)[0]].transpose("chain", "draw")
    free = {
        node: posterior[node].transpose("chain", "draw").values.astype(np.int64)
        for node in GRAPH
        if node not in evidence
    }
    patterns = list(itertools.product((0, 1), repeat=len(observed)))
    logs_of: list[np.ndarray] = []
    for pattern in patterns:
        fixed = {n: np.full(template.shape, v) for n, v in zip(observed, pattern, strict=True)}
        states = {**free, **fixed}
        logs_of.append(log_joint(d["cpts"], states))
    logs = np.stack(logs_of)
    actual = patterns.index(tuple(int(evidence[n]) for n in observed))
    with np.errstate(invalid="ignore"):
        value = logs[actual] - special.logsumexp(logs, axis=0)
    return xr.DataArray(value, dims=("chain", "draw"), coords=template.coords)


PAIR = Pair(
    name="bayes_net",
    title="Five-node Bayesian network given evidence: Gibbs and rejection sampling",
    seed="004_7d03fa5e79bcb9b6.txt",
    load_data=default_data,
    model="mcmc_pairs.models.bayes_net:build_model",
    handrolled={
        "gibbs": "mcmc_pairs.handrolled.bayes_net:sample",
        "rejection": "mcmc_pairs.handrolled.bayes_net:sample_rejection",
    },
    variables=free_nodes(default_data()["evidence"]),
    derived=log_joint_of_draws,
    reference=exact,
    statistics=("mean", "sd"),
    pymc_kwargs={"nuts_sampler": "pymc"},
    report_extra=acceptance_table,
    validation_data=validation_data,
    prior=prior,
    simulate=simulate,
    log_likelihood=log_likelihood,
    wrong={
        "gibbs_ignoring_children": (
            "mcmc_pairs.handrolled.wrong_samplers:bayes_net_gibbs_ignoring_children"
        ),
        "right_marginals_wrong_dependence": (
            "mcmc_pairs.handrolled.wrong_samplers:bayes_net_right_marginals_wrong_dependence"
        ),
        "gibbs_without_evidence_on_children": (
            "mcmc_pairs.handrolled.wrong_samplers:bayes_net_gibbs_without_evidence_on_children"
        ),
    },
    planted=PlantedShifts(("B", ()), ("C", ()), mean="flip", sd=None, corr="copy"),
)
