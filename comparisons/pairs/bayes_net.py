"""Pair ``bayes_net``: Gibbs and rejection sampling of seed 004's network against PyMC.

The posterior variables are the unobserved nodes (``B``, ``C``, ``D`` under
the default evidence A = 1, E = 1), each 0/1. Everything is known exactly by
enumerating the 32 states: P(node = 1 | evidence) (the mean; the sd is
``sqrt(p (1 - p))``), the centred products the harness adds (centred at the
exact means, their mean is the posterior covariance) and the log joint
probability of a draw. Quantiles of 0/1 quantities are 0 or 1 with zero MCSE,
so only the mean and sd are compared.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd
import xarray as xr

from comparisons.pair import ExactMarginal, Pair, Section
from handrolled.bayes_net import (
    EVIDENCE_SEQUENCE,
    INDEX,
    NODES,
    acceptance_fractions,
    default_data,
    free_nodes,
    log_joint,
    posterior_table,
    validate_data,
)


def _moments(values: np.ndarray, probs: np.ndarray) -> ExactMarginal:
    """Exact mean and sd of a discrete quantity taking ``values`` with ``probs``."""
    mean = float(probs @ values)
    return ExactMarginal(mean=mean, sd=float(np.sqrt(max(probs @ (values - mean) ** 2, 0.0))))


def log_joint_of_draws(
    posterior: xr.Dataset, data: Mapping, centers: Mapping
) -> dict[str, xr.DataArray]:
    """Return ``{"logp": log P(evidence, draw)}`` of every draw, shape (chain, draw).

    The observed nodes take their evidence values; the unobserved ones their
    drawn values.
    """
    d = validate_data(data)
    evidence = d["evidence"]
    nodes = free_nodes(evidence)
    template = posterior[nodes[0]].transpose("chain", "draw")
    states = np.empty((*template.shape, len(NODES)), dtype=np.int64)
    for node in NODES:
        states[..., INDEX[node]] = (
            evidence[node]
            if node in evidence
            else posterior[node].transpose("chain", "draw").values.astype(np.int64)
        )
    logp = log_joint(d["cpts"], states)
    return {"logp": xr.DataArray(logp, dims=("chain", "draw"), coords=template.coords)}


def acceptance_table(result) -> list[Section]:
    """Report section: rejection sampling keeps fewer draws as the evidence grows (seed 004)."""
    d = validate_data(result.data)
    rng = np.random.default_rng(2026)
    observed, exact_fraction = acceptance_fractions(d["cpts"], EVIDENCE_SEQUENCE, 20_000, rng)
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
    states, probs = posterior_table(d["cpts"], d["evidence"])
    nodes = free_nodes(d["evidence"])
    means = {node: float(probs @ states[:, INDEX[node]]) for node in nodes}
    out = {node: _moments(states[:, INDEX[node]].astype(float), probs) for node in nodes}
    for a, b in itertools.combinations(nodes, 2):
        product = (states[:, INDEX[a]] - means[a]) * (states[:, INDEX[b]] - means[b])
        out[f"{a}*{b}"] = _moments(product, probs)
    out["logp"] = _moments(log_joint(d["cpts"], states), probs)
    return out


PAIR = Pair(
    name="bayes_net",
    title="Five-node Bayesian network given evidence: Gibbs and rejection sampling",
    seed="004_7d03fa5e79bcb9b6.txt",
    load_data=default_data,
    model="models.bayes_net:build_model",
    handrolled={
        "gibbs": "handrolled.bayes_net:sample",
        "rejection": "handrolled.bayes_net:sample_rejection",
    },
    variables=free_nodes(default_data()["evidence"]),
    derived=log_joint_of_draws,
    reference=exact,
    statistics=("mean", "sd"),
    pymc_kwargs={"nuts_sampler": "pymc"},
    report_extra=acceptance_table,
    validation_data="comparisons.simulators:bayes_net_validation_data",
    prior="comparisons.simulators:bayes_net_prior",
    simulate="comparisons.simulators:bayes_net_simulate",
)
