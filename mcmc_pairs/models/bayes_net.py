"""PyMC twin of the Bayesian network of seed 004: A, B -> C, B -> D, C -> E.

Each node is a ``pm.Bernoulli`` whose probability is its table indexed by its
parents; the evidence nodes are observed. The free variables are the
unobserved nodes, named after them (``B``, ``C``, ``D`` by default), scalar
integers like the hand-rolled output.

``pm.sample`` assigns ``BinaryGibbsMetropolis`` to every free node by itself: a
Metropolis-within-Gibbs scan in random order that proposes flipping each bit
(with probability ``transit_p = 0.8``) and accepts by the Metropolis ratio of
the model's joint log probability. NUTS (and so nutpie) cannot sample discrete
variables: pass ``nuts_sampler="pymc"`` (or nothing), never ``"nutpie"``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm
import pytensor.tensor as pt
from pytensor.tensor.variable import TensorVariable

from mcmc_pairs.pairdata.bayes_net import validate_data

PARENTS: dict[str, tuple[str, ...]] = {
    "A": (),
    "B": (),
    "C": ("A", "B"),
    "D": ("B",),
    "E": ("C",),
}
"""Seed 004's graph: each node's parents, in the order that indexes its table, in
topological order."""


def build_model(data: Mapping) -> pm.Model:
    """Build the network with the evidence observed.

    Parameters
    ----------
    data : mapping
        Keys ``cpts`` and ``evidence`` as in :mod:`mcmc_pairs.pairdata.bayes_net`.

    Returns
    -------
    pymc.Model
        Free variables: the unobserved nodes, scalar Bernoulli.

    Raises
    ------
    ValueError
        For bad data (see :func:`mcmc_pairs.pairdata.bayes_net.validate_data`).
    """
    data = validate_data(data)
    cpts, evidence = data["cpts"], data["evidence"]
    with pm.Model() as model:
        nodes: dict[str, TensorVariable] = {}
        for node, parents in PARENTS.items():
            table = pt.as_tensor_variable(cpts[node])
            index = tuple(nodes[parent] for parent in parents)
            p = table[index] if index else table
            nodes[node] = pm.Bernoulli(node, p=p, observed=evidence.get(node))
    return model
