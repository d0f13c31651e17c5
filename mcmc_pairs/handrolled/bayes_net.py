r"""The Bayesian network of seed 004: forward, rejection and Gibbs sampling.

Seed 004 ("MCMC and Gibbs Sampling") draws a network of five discrete nodes and
samples it in topological order, A, B, then C from P(C | A, B), D from
P(D | B) and E from P(E | C)::

    A     B
     \   / \
      v v   v
       C     D
       |
       v
       E

Here every node is binary (0/1). The seed gives no tables, so these are ours
(each entry is P(node = 1 | parents); see :data:`mcmc_pairs.pairdata.bayes_net.DEFAULT_CPTS`)::

    P(A=1) = 0.3                 P(B=1) = 0.6
    P(C=1 | A=a, B=b)            b=0   b=1
                          a=0    0.1   0.5
                          a=1    0.4   0.9
    P(D=1 | B=b)          b=0: 0.2   b=1: 0.7
    P(E=1 | C=c)          c=0: 0.2   c=1: 0.7

The default query observes A = 1 and E = 1 and asks for the posterior of the
unobserved nodes B, C, D. By enumeration of the 2**5 states,
P(A=1, E=1) = 0.165 and P(B=1 | e) = 0.7091, P(C=1 | e) = 0.8909,
P(D=1 | e) = 0.5545.

Data keys
---------
``cpts``
    Mapping of every node name in :data:`NODES` to its conditional probability
    table: an array of shape ``(2,) * len(PARENTS[node])`` whose entry
    ``[x_parent_1, x_parent_2, ...]`` is P(node = 1 | parents), parents in the
    order of :data:`PARENTS` (a 0-d array or float for the root nodes A and B).
    Every entry lies in [0, 1].
``evidence``
    Mapping of observed node names to their values (0 or 1). At least one node
    must stay unobserved, and the evidence must have positive probability.

Posterior variables: one per unobserved node, named after it (``B``, ``C``,
``D`` under the default evidence), integer 0/1 arrays shaped
``(chains, draws)``; their posterior means are P(node = 1 | evidence).

Samplers
--------
- :func:`forward_sample`: ancestral sampling, as the seed describes it;
- :func:`rejection_sample`: forward samples that disagree with the evidence are
  thrown away; the kept fraction estimates P(evidence), which falls as evidence
  is added (:func:`acceptance_fractions`), the seed's argument for MCMC;
- :func:`sample`: systematic-scan Gibbs sampling of the unobserved nodes, each
  drawn from its full conditional given its Markov blanket
  (``b_given_blanket`` ..., one function per node, collected in
  :data:`FULL_CONDITIONALS`; :func:`sample_node_given_blanket` draws from
  them and :func:`gibbs_sweep` chains the draws as the seed's pseudo-code
  does), vectorised across chains;
- :func:`sample_rejection`: independent draws by rejection, with the sampler
  contract's signature.

Exact answers come from enumerating all 32 states (:func:`exact_posterior`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TypedDict

import numpy as np
import xarray as xr
from arviz_base import from_dict

from mcmc_pairs.handrolled._common import chain_streams, resume_state, save_state
from mcmc_pairs.pairdata import bayes_net as network_data
from mcmc_pairs.pairdata.bayes_net import (
    EVIDENCE_SEQUENCE,
    free_nodes,
    validate_cpts,
    validate_evidence,
)
from mcmc_pairs.pairdata.checks import check_sampler_args

NODES: tuple[str, ...] = ("A", "B", "C", "D", "E")
"""Node names in topological order; the columns of every state array."""

PARENTS: dict[str, tuple[str, ...]] = {
    "A": (),
    "B": (),
    "C": ("A", "B"),
    "D": ("B",),
    "E": ("C",),
}
"""Parents of each node, in the order that indexes its probability table."""

CHILDREN: dict[str, tuple[str, ...]] = {
    node: tuple(child for child in NODES if node in PARENTS[child]) for node in NODES
}
"""Children of each node (with the parents, they make up the Markov blanket)."""

INDEX: dict[str, int] = {node: j for j, node in enumerate(NODES)}
"""Column of each node in a state array."""

# ---------------------------------------------------------------- probabilities


def validate_data(data: Mapping) -> dict:
    """Check the data (:func:`~mcmc_pairs.pairdata.bayes_net.validate_data`) and the evidence.

    Returns
    -------
    dict
        ``{"cpts": {node: float ndarray}, "evidence": {node: int}}``.

    Raises
    ------
    ValueError
        For bad data, or evidence of probability zero under ``cpts``.
    """
    d = network_data.validate_data(data)
    if evidence_probability(d["cpts"], d["evidence"]) <= 0:
        raise ValueError(f"evidence {d['evidence']} has probability zero under cpts")
    return d


def node_given_parents(node: str, state: np.ndarray, cpts: Mapping[str, np.ndarray]) -> np.ndarray:
    """Return P(node = 1 | its parents' values in ``state``), read from the node's table.

    The seed's forward-sampling formulas: P(A), P(B), P(C | A, B), P(D | B), P(E | C).

    Parameters
    ----------
    node : str
        One of :data:`NODES`.
    state : ndarray of int, shape (..., 5)
        Values of all nodes, columns in :data:`NODES` order.
    cpts : mapping of str to ndarray
        Validated tables.

    Returns
    -------
    ndarray of float, shape (...)
    """
    states = np.asarray(state)
    index = tuple(states[..., INDEX[parent]] for parent in PARENTS[node])
    table = cpts[node]
    if not index:
        return np.broadcast_to(table, states.shape[:-1]).astype(np.float64)
    return table[index]


def bernoulli_pmf(p: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Return P(X = x) for X ~ Bernoulli(p), elementwise.

    Parameters
    ----------
    p, x : array_like
        Probabilities of 1, and values 0/1; broadcast together.

    Returns
    -------
    ndarray of float
    """
    return np.where(np.asarray(x) == 1, p, 1.0 - np.asarray(p))


def joint_probability(cpts: Mapping[str, np.ndarray], states: np.ndarray) -> np.ndarray:
    """Return P(A, B, C, D, E) = P(A) P(B) P(C | A, B) P(D | B) P(E | C) per state.

    Parameters
    ----------
    cpts : mapping of str to ndarray
        Validated tables.
    states : ndarray of int, shape (..., 5)

    Returns
    -------
    ndarray of float, shape (...)
    """
    states = np.asarray(states)
    prob = np.ones(states.shape[:-1])
    for node in NODES:
        p_one = node_given_parents(node, states, cpts)
        prob = prob * bernoulli_pmf(p_one, states[..., INDEX[node]])
    return prob


def log_joint(cpts: Mapping[str, np.ndarray], states: np.ndarray) -> np.ndarray:
    """Return the log joint probability of each state (``-inf`` where it is zero).

    Parameters
    ----------
    cpts : mapping of str to ndarray
        Validated tables.
    states : ndarray of int, shape (..., 5)

    Returns
    -------
    ndarray of float, shape (...)
    """
    with np.errstate(divide="ignore"):
        return np.log(joint_probability(cpts, states))


def all_states() -> np.ndarray:
    """Return the 32 joint states, shape (32, 5), columns in :data:`NODES` order."""
    return np.array(list(itertools.product((0, 1), repeat=len(NODES))), dtype=np.int64)


def consistent(states: np.ndarray, evidence: Mapping[str, int]) -> np.ndarray:
    """Return which states agree with the evidence.

    Parameters
    ----------
    states : ndarray of int, shape (..., 5)
    evidence : mapping of str to int

    Returns
    -------
    ndarray of bool, shape (...)
    """
    states = np.asarray(states)
    keep = np.ones(states.shape[:-1], dtype=bool)
    for node, value in evidence.items():
        keep &= states[..., INDEX[node]] == value
    return keep


def evidence_probability(cpts: Mapping[str, np.ndarray], evidence: Mapping[str, int]) -> float:
    """Return P(evidence) by enumeration; the acceptance rate of rejection sampling.

    Parameters
    ----------
    cpts : mapping of str to ndarray
        Validated tables.
    evidence : mapping of str to int

    Returns
    -------
    float
    """
    states = all_states()
    return float(joint_probability(cpts, states)[consistent(states, evidence)].sum())


def posterior_table(
    cpts: Mapping[str, np.ndarray], evidence: Mapping[str, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Return the states that agree with the evidence and their posterior probabilities.

    Parameters
    ----------
    cpts : mapping of str to ndarray
        Validated tables.
    evidence : mapping of str to int
        Evidence of positive probability.

    Returns
    -------
    states : ndarray of int, shape (k, 5)
        The ``k = 2 ** (5 - len(evidence))`` states consistent with the evidence.
    probs : ndarray of float, shape (k,)
        P(state | evidence), summing to one.
    """
    states = all_states()
    states = states[consistent(states, evidence)]
    weights = joint_probability(cpts, states)
    return states, weights / weights.sum()


def exact_posterior(cpts: Mapping, evidence: Mapping) -> dict[str, float]:
    """Return P(node = 1 | evidence) for every unobserved node, by enumeration.

    Parameters
    ----------
    cpts : mapping of str to array_like
    evidence : mapping of str to int

    Returns
    -------
    dict of str to float
        Keyed by the unobserved nodes in topological order.

    Raises
    ------
    ValueError
        For bad tables or evidence, or evidence of probability zero.
    """
    data = validate_data({"cpts": cpts, "evidence": evidence})
    states, probs = posterior_table(data["cpts"], data["evidence"])
    return {node: float(probs @ states[:, INDEX[node]]) for node in free_nodes(data["evidence"])}


# ------------------------------------------------- forward and rejection sampling


def forward_sample(cpts: Mapping, n: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``n`` joint states by ancestral (forward) sampling, as in seed 004.

    Nodes are drawn in topological order, each from its table given the parents
    already drawn: a uniform ``u`` gives ``x = 1`` when ``u < P(x = 1 | parents)``
    (the seed's partition of [0, 1], with the value 1 first).

    Parameters
    ----------
    cpts : mapping of str to array_like
        Tables as in the module docstring.
    n : int
        Number of states, >= 0.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, shape (n, 5)
        Columns in :data:`NODES` order.
    """
    cpts = validate_cpts(cpts)
    n = _check_count("n", n, minimum=0)
    uniforms = rng.random((n, len(NODES)))
    states = np.zeros((n, len(NODES)), dtype=np.int64)
    for node in NODES:
        j = INDEX[node]
        states[:, j] = uniforms[:, j] < node_given_parents(node, states, cpts)
    return states


def rejection_sample(
    cpts: Mapping, evidence: Mapping, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, float]:
    """Draw ``n`` forward samples and keep those that agree with the evidence.

    Parameters
    ----------
    cpts : mapping of str to array_like
    evidence : mapping of str to int
    n : int
        Number of forward samples proposed, >= 1.
    rng : numpy.random.Generator

    Returns
    -------
    samples : ndarray of int64, shape (m, 5)
        The ``m`` accepted states, draws from P(state | evidence).
    acceptance : float
        ``m / n``, an estimate of P(evidence).
    """
    cpts = validate_cpts(cpts)
    evidence = validate_evidence(evidence)
    n = _check_count("n", n, minimum=1)
    states = forward_sample(cpts, n, rng)
    keep = consistent(states, evidence)
    return states[keep], float(keep.mean())


def acceptance_fractions(
    cpts: Mapping,
    evidences: Sequence[Mapping] = EVIDENCE_SEQUENCE,
    n: int = 10_000,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Return the acceptance of rejection sampling for each evidence set, and its exact value.

    Parameters
    ----------
    cpts : mapping of str to array_like
    evidences : sequence of mapping
        Evidence sets, e.g. growing ones (:data:`EVIDENCE_SEQUENCE`).
    n : int
        Forward samples per evidence set.
    rng : numpy.random.Generator, optional
        Defaults to ``np.random.default_rng()``.

    Returns
    -------
    observed : ndarray of float, shape (len(evidences),)
        Fraction of the ``n`` forward samples kept.
    exact : ndarray of float, shape (len(evidences),)
        P(evidence), the expected fraction.
    """
    cpts = validate_cpts(cpts)
    rng = np.random.default_rng() if rng is None else rng
    observed = np.array([rejection_sample(cpts, ev, n, rng)[1] for ev in evidences])
    exact = np.array([evidence_probability(cpts, validate_evidence(ev)) for ev in evidences])
    return observed, exact


# ------------------------------------------------------------ full conditionals


def _normalise(weight_one: np.ndarray, weight_zero: np.ndarray) -> np.ndarray:
    """Normalise two unnormalised weights into P(x = 1 | blanket)."""
    return weight_one / (weight_one + weight_zero)


def a_given_blanket(state: np.ndarray, cpts: Mapping[str, np.ndarray]) -> np.ndarray:
    """Return P(A = 1 | B, C) ∝ P(A = 1) P(C | A = 1, B).

    Parameters
    ----------
    state : ndarray of int, shape (chains, 5)
        Current values of every node.
    cpts : mapping of str to ndarray
        Validated tables.

    Returns
    -------
    ndarray of float, shape (chains,)
    """
    b, c = state[:, INDEX["B"]], state[:, INDEX["C"]]
    w1 = cpts["A"] * bernoulli_pmf(cpts["C"][1, b], c)
    w0 = (1.0 - cpts["A"]) * bernoulli_pmf(cpts["C"][0, b], c)
    return _normalise(w1, w0)


def b_given_blanket(state: np.ndarray, cpts: Mapping[str, np.ndarray]) -> np.ndarray:
    """Return P(B = 1 | A, C, D) ∝ P(B = 1) P(C | A, B = 1) P(D | B = 1).

    Parameters
    ----------
    state : ndarray of int, shape (chains, 5)
        Current values of every node.
    cpts : mapping of str to ndarray
        Validated tables.

    Returns
    -------
    ndarray of float, shape (chains,)
    """
    a, c, d = state[:, INDEX["A"]], state[:, INDEX["C"]], state[:, INDEX["D"]]
    w1 = cpts["B"] * bernoulli_pmf(cpts["C"][a, 1], c) * bernoulli_pmf(cpts["D"][1], d)
    w0 = (1.0 - cpts["B"]) * bernoulli_pmf(cpts["C"][a, 0], c) * bernoulli_pmf(cpts["D"][0], d)
    return _normalise(w1, w0)


def c_given_blanket(state: np.ndarray, cpts: Mapping[str, np.ndarray]) -> np.ndarray:
    """Return P(C = 1 | A, B, E) ∝ P(C = 1 | A, B) P(E | C = 1).

    Parameters
    ----------
    state : ndarray of int, shape (chains, 5)
        Current values of every node.
    cpts : mapping of str to ndarray
        Validated tables.

    Returns
    -------
    ndarray of float, shape (chains,)
    """
    a, b, e = state[:, INDEX["A"]], state[:, INDEX["B"]], state[:, INDEX["E"]]
    p_c = cpts["C"][a, b]
    w1 = p_c * bernoulli_pmf(cpts["E"][1], e)
    w0 = (1.0 - p_c) * bernoulli_pmf(cpts["E"][0], e)
    return _normalise(w1, w0)


def d_given_blanket(state: np.ndarray, cpts: Mapping[str, np.ndarray]) -> np.ndarray:
    """Return P(D = 1 | B), D's blanket being its parent alone (it has no children).

    Parameters
    ----------
    state : ndarray of int, shape (chains, 5)
        Current values of every node.
    cpts : mapping of str to ndarray
        Validated tables.

    Returns
    -------
    ndarray of float, shape (chains,)
    """
    return cpts["D"][state[:, INDEX["B"]]]


def e_given_blanket(state: np.ndarray, cpts: Mapping[str, np.ndarray]) -> np.ndarray:
    """Return P(E = 1 | C), E's blanket being its parent alone (it has no children).

    Parameters
    ----------
    state : ndarray of int, shape (chains, 5)
        Current values of every node.
    cpts : mapping of str to ndarray
        Validated tables.

    Returns
    -------
    ndarray of float, shape (chains,)
    """
    return cpts["E"][state[:, INDEX["C"]]]


FULL_CONDITIONALS: dict[str, Callable[[np.ndarray, Mapping[str, np.ndarray]], np.ndarray]] = {
    "A": a_given_blanket,
    "B": b_given_blanket,
    "C": c_given_blanket,
    "D": d_given_blanket,
    "E": e_given_blanket,
}
r"""P(node = 1 | Markov blanket) for each node: the seed's :math:`\pi(x_i \mid x_{-i})`."""


def sample_node_given_blanket(
    node: str, state: np.ndarray, cpts: Mapping[str, np.ndarray], u: np.ndarray
) -> np.ndarray:
    """Draw ``node`` from P(node | Markov blanket) (:data:`FULL_CONDITIONALS`), every chain.

    The draw is 1 when ``u < P(node = 1 | blanket)``, as :func:`forward_sample`
    draws from a table.

    Parameters
    ----------
    node : str
        One of :data:`NODES`.
    state : ndarray of int, shape (chains, 5)
        Current values of every node.
    cpts : mapping of str to ndarray
        Validated tables.
    u : ndarray of float, shape (chains,)
        One U(0, 1) draw per chain.

    Returns
    -------
    ndarray of bool, shape (chains,)
        The new values (True for 1).
    """
    return u < FULL_CONDITIONALS[node](state, cpts)


def gibbs_sweep(
    state: np.ndarray,
    cpts: Mapping[str, np.ndarray],
    nodes: Sequence[str],
    uniforms: np.ndarray,
) -> None:
    r"""Update ``nodes`` of every chain in turn from their full conditionals, in place.

    The seed's sweep: sample :math:`x_1` according to
    :math:`\pi(x_1 \mid x_2, \ldots, x_N)`, then :math:`x_2` given the new
    :math:`x_1`, ... (:func:`sample_node_given_blanket`), for all chains at once.

    Parameters
    ----------
    state : ndarray of int, shape (chains, 5)
        Current states; overwritten.
    cpts : mapping of str to ndarray
        Validated tables.
    nodes : sequence of str
        The unobserved nodes, in scan order.
    uniforms : ndarray of float, shape (chains, len(nodes))
        Pre-drawn U(0, 1) numbers, column ``k`` for node ``nodes[k]``.
    """
    for k, node in enumerate(nodes):
        state[:, INDEX[node]] = sample_node_given_blanket(node, state, cpts, uniforms[:, k])


# -------------------------------------------------------------------- samplers


def _check_count(name: str, value: int, minimum: int) -> int:
    """Check that ``value`` is an integer >= ``minimum`` and return it as int."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def initial_states(
    cpts: Mapping[str, np.ndarray],
    evidence: Mapping[str, int],
    rngs: Sequence[np.random.Generator],
) -> np.ndarray:
    """Draw a dispersed starting state per chain.

    Each chain starts at a state drawn uniformly (not by probability) from the
    states that agree with the evidence and have positive probability, so
    chains start apart and never at an impossible state.

    Parameters
    ----------
    cpts : mapping of str to ndarray
    evidence : mapping of str to int
    rngs : sequence of numpy.random.Generator
        One per chain.

    Returns
    -------
    ndarray of int64, shape (chains, 5)
    """
    states, probs = posterior_table(cpts, evidence)
    support = states[probs > 0]
    return np.stack([support[rng.integers(len(support))] for rng in rngs])


SAMPLER = "mcmc_pairs.handrolled.bayes_net:sample"
"""Name under which :func:`sample` writes its ``state``."""

SAMPLER_REJECTION = "mcmc_pairs.handrolled.bayes_net:sample_rejection"
"""Name under which :func:`sample_rejection` writes its ``state``."""


def sample(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
) -> dict[str, np.ndarray]:
    """Gibbs-sample the unobserved nodes given the evidence.

    Each iteration updates the unobserved nodes in topological order, each
    from P(node | Markov blanket) (:data:`FULL_CONDITIONALS`), all chains at
    once. Every chain draws its uniforms from its own stream.

    Parameters
    ----------
    data : mapping
        Keys ``cpts`` and ``evidence`` (module docstring).
    draws : int
        Kept iterations per chain, >= 1.
    tune : int
        Discarded iterations per chain, >= 0.
    chains : int
        Number of chains, >= 1.
    random_seed : int or None
        Seed of ``np.random.default_rng(random_seed).spawn(chains)``.
    state : dict, optional
        Continue chains (the protocol of :mod:`mcmc_pairs.handrolled._common`): keys
        ``nodes`` (chains, 5), every node's last value, and ``rngs``. A
        continuation draws the next ``(tune + draws, n_free)`` uniforms of each
        chain's stream, so two calls give the draws of one longer call bit for bit.

    Returns
    -------
    dict of str to ndarray
        One int64 array of shape (chains, draws) per unobserved node.
    """
    data = validate_data(data)
    check_sampler_args(draws, tune, chains, random_seed)
    cpts, evidence = data["cpts"], data["evidence"]
    nodes = free_nodes(evidence)
    resumed = resume_state(state, SAMPLER, chains, ("nodes", "rngs"))
    rngs = chain_streams(random_seed, chains, resumed)
    if resumed is None:
        current = initial_states(cpts, evidence, rngs)
    else:
        current = np.array(resumed["nodes"], dtype=np.int64)
    uniforms = np.stack([rng.random((tune + draws, len(nodes))) for rng in rngs])
    out = {node: np.empty((chains, draws), dtype=np.int64) for node in nodes}
    for it in range(tune + draws):
        gibbs_sweep(current, cpts, nodes, uniforms[:, it])
        if it >= tune:
            for node in nodes:
                out[node][:, it - tune] = current[:, INDEX[node]]
    save_state(state, SAMPLER, chains, nodes=current, rngs=rngs)
    return out


def sample_rejection(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
) -> xr.DataTree:
    """Draw independent posterior samples by rejection from forward sampling.

    Forward samples are drawn in batches (sized from the exact P(evidence))
    until ``draws`` agree with the evidence. The draws are independent, so
    ``tune`` is validated and otherwise unused. A chain's forward samples form
    one stream (each batch is the next rows of ``rng.random((n, 5))``), and its
    kept draws are the first ``draws`` rows of that stream that agree with the
    evidence, whatever the batch sizes.

    Parameters
    ----------
    data : mapping
        Keys ``cpts`` and ``evidence`` (module docstring).
    draws : int
        Kept draws per chain, >= 1.
    tune : int
        >= 0; no burn-in is needed.
    chains : int
        Number of chains, >= 1.
    random_seed : int or None
        Seed of ``np.random.default_rng(random_seed).spawn(chains)``.
    state : dict, optional
        Continue chains (the protocol of :mod:`mcmc_pairs.handrolled._common`): keys
        ``rngs``, ``unused`` (per chain, the forward samples drawn but not yet
        examined, int64 (n, 5)), ``kept`` and ``spent`` (chains,), the draws
        kept and the forward samples examined so far (up to the last kept one).
        Two calls give the draws and sample stats of one longer call bit for bit.

    Returns
    -------
    xarray.DataTree
        ``posterior``: one int64 variable (chain, draw) per unobserved node;
        ``sample_stats``: ``n_proposals`` (chain, draw), the forward samples
        spent on each kept draw (geometric with mean 1 / P(evidence)), and
        ``acceptance_rate`` (chain, draw), the chain's kept fraction up to and
        including that draw (kept draws / forward samples spent), so that its
        last entry is the chain's overall fraction and a continued chain goes
        on counting.
    """
    data = validate_data(data)
    check_sampler_args(draws, tune, chains, random_seed)
    cpts, evidence = data["cpts"], data["evidence"]
    nodes = free_nodes(evidence)
    p_evidence = evidence_probability(cpts, evidence)
    resumed = resume_state(state, SAMPLER_REJECTION, chains, ("rngs", "unused", "kept", "spent"))
    rngs = chain_streams(random_seed, chains, resumed)
    if resumed is None:
        unused = [np.empty((0, len(NODES)), dtype=np.int64) for _ in range(chains)]
        kept_before = np.zeros(chains, dtype=np.int64)
        spent_before = np.zeros(chains, dtype=np.int64)
    else:
        unused = list(resumed["unused"])
        kept_before = np.array(resumed["kept"], dtype=np.int64)
        spent_before = np.array(resumed["spent"], dtype=np.int64)
    out = {node: np.empty((chains, draws), dtype=np.int64) for node in nodes}
    n_proposals = np.empty((chains, draws), dtype=np.int64)
    acceptance = np.empty((chains, draws))
    for c, rng in enumerate(rngs):
        kept, spent, examined, states = 0, [], 0, unused[c]
        while kept < draws:
            if len(states) == 0:
                batch = math.ceil(1.1 * (draws - kept) / p_evidence) + 16
                states = forward_sample(cpts, batch, rng)
            positions = np.flatnonzero(consistent(states, evidence))[: draws - kept]
            for node in nodes:
                out[node][c, kept : kept + len(positions)] = states[positions, INDEX[node]]
            spent.append(positions + examined)
            kept += len(positions)
            used = positions[-1] + 1 if kept == draws else len(states)
            examined += used
            states = states[used:]
        positions = np.concatenate(spent) + spent_before[c]
        n_proposals[c] = np.diff(positions, prepend=spent_before[c] - 1)
        acceptance[c] = (kept_before[c] + np.arange(1, draws + 1)) / (positions + 1)
        unused[c] = states.copy()
        kept_before[c] += draws
        spent_before[c] = positions[-1] + 1
    save_state(
        state,
        SAMPLER_REJECTION,
        chains,
        rngs=rngs,
        unused=unused,
        kept=kept_before,
        spent=spent_before,
    )
    return from_dict(
        {
            "posterior": out,
            "sample_stats": {"n_proposals": n_proposals, "acceptance_rate": acceptance},
        }
    )


# ------------------------------------------------ the chain as a transition matrix


class TransitionMatrices(TypedDict):
    """Seed 004's chain over the free nodes' states (:func:`gibbs_transition_matrices`)."""

    states: np.ndarray  # (8, 5) int
    pi: np.ndarray  # (8,) the exact posterior of each state
    single: dict[str, np.ndarray]  # node -> (8, 8)
    random_scan: np.ndarray  # (8, 8)
    sweep: np.ndarray  # (8, 8)


def gibbs_transition_matrices(
    cpts: Mapping, evidence: Mapping, order: Sequence[str] | None = None
) -> TransitionMatrices:
    r"""Return seed 004's transition matrix :math:`P_{xy}` over the free nodes' states.

    With evidence on two of the five nodes, the chain lives on the
    :math:`2^3 = 8` states of the free nodes. A single-site update of node
    :math:`i` moves :math:`x \to y` (``y`` equal to ``x`` except maybe at ``i``)
    with probability :math:`\pi(y_i \mid x_{-i})` (:data:`FULL_CONDITIONALS`).
    The random scan picks node :math:`i` with probability :math:`q(i) = 1/n`:
    :math:`P_{xy} = q(i)\,\pi(y_i \mid x_{-i})` when one node differs,
    :math:`\sum_i q(i)\,\pi(x_i \mid x_{-i})` when :math:`y = x`, 0 otherwise. The
    systematic sweep is the product of the single-site matrices in scan order.

    Parameters
    ----------
    cpts, evidence : mapping
        As in the data (validated here).
    order : sequence of str, optional
        Scan order of the sweep (default: the free nodes in :data:`NODES` order).

    Returns
    -------
    dict
        ``states`` (8, 5) int, ``pi`` (8,) the exact posterior of each state
        (enumeration of the joint), ``single`` {node: (8, 8)}, ``random_scan``
        (8, 8) and ``sweep`` (8, 8).
    """
    d = validate_data({"cpts": cpts, "evidence": evidence})
    cpts, evidence = d["cpts"], d["evidence"]
    free = list(order or free_nodes(evidence))
    states = all_states()
    states = states[consistent(states, evidence)]
    position = {tuple(s): k for k, s in enumerate(states)}
    n = len(states)
    single = {}
    for node in free:
        matrix = np.zeros((n, n))
        p_one = FULL_CONDITIONALS[node](states, cpts)
        for k, state in enumerate(states):
            for value, p in ((1, p_one[k]), (0, 1.0 - p_one[k])):
                moved = state.copy()
                moved[INDEX[node]] = value
                matrix[k, position[tuple(moved)]] += p
        single[node] = matrix
    random_scan = np.asarray(sum(single.values()) / len(free))  # an array: free is not empty
    sweep = np.linalg.multi_dot([single[node] for node in free])
    weights = joint_probability(cpts, states)
    return {
        "states": states,
        "pi": weights / weights.sum(),
        "single": single,
        "random_scan": random_scan,
        "sweep": sweep,
    }
