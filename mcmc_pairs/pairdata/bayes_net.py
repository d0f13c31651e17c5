"""Data of the ``bayes_net`` pair (seed 004): probability tables and evidence.

The data name the nodes and give each its table, P(node = 1 | its parents),
indexed by the parents' values: :data:`CPT_SHAPES` is the tables' format. Which
node is a parent of which is the model's business, stated separately by each
witness (``models/``, ``handrolled/``, ``comparisons/pairs/``), never here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mcmc_pairs.pairdata.checks import check_mapping

NODES: tuple[str, ...] = ("A", "B", "C", "D", "E")
"""Node names in topological order (the keys of ``cpts``)."""

CPT_SHAPES: dict[str, tuple[int, ...]] = {"A": (), "B": (), "C": (2, 2), "D": (2,), "E": (2,)}
"""Shape of each node's table: one axis of size 2 per parent."""

DEFAULT_CPTS: dict[str, np.ndarray] = {
    "A": np.array(0.3),
    "B": np.array(0.6),
    "C": np.array([[0.1, 0.5], [0.4, 0.9]]),
    "D": np.array([0.2, 0.7]),
    "E": np.array([0.2, 0.7]),
}
"""P(node = 1 | parents) for each node, indexed by the parents' values."""

DEFAULT_EVIDENCE: dict[str, int] = {"A": 1, "E": 1}
"""The default query: A = 1 and E = 1 observed."""

EVIDENCE_SEQUENCE: tuple[dict[str, int], ...] = (
    {},
    {"A": 1},
    {"A": 1, "E": 1},
    {"A": 1, "E": 1, "D": 0},
    {"A": 1, "E": 1, "D": 0, "C": 0},
)
"""Growing evidence; rejection sampling keeps P(evidence) = 1, .3, .165, .0735, .0126."""


def default_data() -> dict:
    """Return the default data: :data:`DEFAULT_CPTS` and :data:`DEFAULT_EVIDENCE`.

    Returns
    -------
    dict
        ``{"cpts": {node: ndarray}, "evidence": {node: int}}`` (fresh copies).
    """
    return {
        "cpts": {node: table.copy() for node, table in DEFAULT_CPTS.items()},
        "evidence": dict(DEFAULT_EVIDENCE),
    }


def validate_cpts(cpts: Mapping) -> dict[str, np.ndarray]:
    """Check the conditional probability tables and return float copies.

    Parameters
    ----------
    cpts : mapping of str to array_like
        One table per node of :data:`NODES`, shaped as :data:`CPT_SHAPES`
        says, entries P(node = 1 | parents) in [0, 1].

    Returns
    -------
    dict of str to ndarray
        Float64 copies of the tables.

    Raises
    ------
    ValueError
        If a node is missing or unknown, or a table has the wrong shape or an
        entry that is not a finite probability.
    """
    if not isinstance(cpts, Mapping):
        raise ValueError(f"cpts must be a mapping of node name to table, got {cpts!r}")
    unknown = sorted(set(cpts) - set(NODES))
    if unknown:
        raise ValueError(f"cpts has unknown nodes {unknown}; the nodes are {list(NODES)}")
    out = {}
    for node in NODES:
        if node not in cpts:
            raise ValueError(f"cpts is missing the table of node {node!r}")
        try:
            table = np.array(cpts[node], dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise ValueError(f"cpts[{node!r}] is not numeric: {cpts[node]!r}") from err
        shape = CPT_SHAPES[node]
        if table.shape != shape:
            raise ValueError(f"cpts[{node!r}] must have shape {shape}, got shape {table.shape}")
        if not np.all(np.isfinite(table)) or np.any(table < 0) or np.any(table > 1):
            raise ValueError(f"cpts[{node!r}] must hold probabilities in [0, 1], got {table}")
        out[node] = table
    return out


def validate_evidence(evidence: Mapping) -> dict[str, int]:
    """Check the evidence and return it as ``{node: 0 or 1}`` in topological order.

    Parameters
    ----------
    evidence : mapping of str to int
        Observed nodes and their values.

    Returns
    -------
    dict of str to int

    Raises
    ------
    ValueError
        If a node is unknown or a value is not 0 or 1.
    """
    if not isinstance(evidence, Mapping):
        raise ValueError(f"evidence must be a mapping of node name to 0/1, got {evidence!r}")
    unknown = sorted(set(evidence) - set(NODES))
    if unknown:
        raise ValueError(f"evidence has unknown nodes {unknown}; the nodes are {list(NODES)}")
    out = {}
    for node in NODES:
        if node in evidence:
            value = evidence[node]
            if isinstance(value, bool | np.bool_) or value not in (0, 1):
                raise ValueError(f"evidence[{node!r}] must be 0 or 1, got {value!r}")
            out[node] = int(value)
    return out


def validate_data(data: Mapping) -> dict:
    """Check the data of the pair and return a normalised copy.

    Parameters
    ----------
    data : mapping
        Keys ``cpts`` and ``evidence`` (see the module docstring).

    Returns
    -------
    dict
        ``{"cpts": {node: float ndarray}, "evidence": {node: int}}``.

    Raises
    ------
    ValueError
        If a key is missing, a table or an evidence value is bad, or every node
        is observed. (Whether the evidence has probability zero is a question of
        the model: each witness answers it.)
    """
    check_mapping(data)
    for key in ("cpts", "evidence"):
        if key not in data:
            raise ValueError(f"data is missing the key {key!r}")
    cpts = validate_cpts(data["cpts"])
    evidence = validate_evidence(data["evidence"])
    if len(evidence) == len(NODES):
        raise ValueError(f"evidence observes every node ({evidence}); nothing is left to sample")
    return {"cpts": cpts, "evidence": evidence}


def free_nodes(evidence: Mapping[str, int]) -> tuple[str, ...]:
    """Return the unobserved nodes in topological order (the posterior variables).

    Parameters
    ----------
    evidence : mapping of str to int

    Returns
    -------
    tuple of str
    """
    return tuple(node for node in NODES if node not in evidence)
