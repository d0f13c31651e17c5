"""Finite Markov chains of seeds 002 and 004: stationary distributions and simulation.

A chain on states ``0 .. k-1`` is given by its transition matrix ``P`` with
``P[i, j] = P(x_{t+1} = j | x_t = i)`` (rows sum to one). The distribution of
the state evolves as ``pi_t = pi_0 P^t`` (seed 004 numbers its first distribution
``mu^(1)`` and writes ``mu^(t) = mu^(1) P^t``, one step too many: it is
``mu^(t) = mu^(1) P^(t - 1)``), and
an irreducible, aperiodic chain forgets ``pi_0``: ``pi_t`` converges to the
unique stationary distribution ``pi = pi P``, the left eigenvector of ``P`` for
eigenvalue 1 (:func:`stationary_distribution`).

The seeds' chains
-----------------
Seed 004 (from Andrieu et al. 2003), :data:`SEED_004_P`, started from
:data:`SEED_004_START` = (0.5, 0.2, 0.3)::

    P = [[0,   1,   0  ],
         [0,   0.1, 0.9],
         [0.6, 0.4, 0  ]]

Solving ``pi = pi P``: ``pi_1 = 0.6 pi_3`` and ``0.9 pi_2 = pi_3``, so
``pi = (0.54, 1, 0.9) / 2.44 = (27, 50, 45) / 122 = (0.2213, 0.4098, 0.3689)``
(:data:`SEED_004_STATIONARY`). The seed's author measured (0.22, 0.41, 0.37):
that is right, the exact answer to two decimals. The text's source claims
(0.2, 0.4, 0.4): right only to one decimal (its last entry is 0.03 too high).
The other two eigenvalues are ``-0.45 +- 0.581i`` (modulus 0.735), so
``pi_t`` spirals into ``pi``, its error shrinking by about 0.735 per step.

Seed 002's bull/bear/stagnant market, :data:`SEED_002_P`, started from
(1, 0, 0). The seed shows the matrix only as an image; it is the standard
example (Wikipedia, "Markov chain")::

    P = [[0.9,  0.075, 0.025],     bull
         [0.15, 0.8,   0.05 ],     bear
         [0.25, 0.25,  0.5  ]]     stagnant

whose stationary distribution is exactly (0.625, 0.3125, 0.0625) =
(10, 5, 1) / 16, the seed's numbers (:data:`SEED_002_STATIONARY`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

SEED_004_P = np.array(
    [
        [0.0, 1.0, 0.0],
        [0.0, 0.1, 0.9],
        [0.6, 0.4, 0.0],
    ]
)
"""Seed 004's transition matrix (Andrieu et al. 2003)."""

SEED_004_START = np.array([0.5, 0.2, 0.3])
"""Seed 004's initial distribution."""

SEED_004_STATIONARY = np.array([27.0, 50.0, 45.0]) / 122.0
"""Exact stationary distribution of :data:`SEED_004_P`, (0.2213, 0.4098, 0.3689)."""

SEED_002_STATES = ("bull", "bear", "stagnant")
"""State names of seed 002's market chain."""

SEED_002_P = np.array(
    [
        [0.9, 0.075, 0.025],
        [0.15, 0.8, 0.05],
        [0.25, 0.25, 0.5],
    ]
)
"""Seed 002's bull/bear/stagnant transition matrix."""

SEED_002_START = np.array([1.0, 0.0, 0.0])
"""Seed 002's initial distribution (a bull market)."""

SEED_002_STATIONARY = np.array([10.0, 5.0, 1.0]) / 16.0
"""Exact stationary distribution of :data:`SEED_002_P`, (0.625, 0.3125, 0.0625)."""

ROW_SUM_TOL = 1e-10
"""Tolerance on each row sum of a transition matrix (and on a distribution's sum)."""


def validate_transition_matrix(P: ArrayLike, name: str = "P") -> np.ndarray:
    """Check a transition matrix and return it as a float array.

    Parameters
    ----------
    P : array_like, shape (k, k)
        ``P[i, j]`` is the probability of moving from state ``i`` to state ``j``.
    name : str
        Name of the argument, for error messages.

    Returns
    -------
    ndarray of float, shape (k, k)

    Raises
    ------
    ValueError
        If ``P`` is not a non-empty square matrix of finite, non-negative
        numbers whose rows sum to one.
    """
    try:
        P = np.array(P, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a numeric matrix, got {P!r}") from err
    if P.ndim != 2 or P.shape[0] != P.shape[1] or P.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {P.shape}")
    if not np.all(np.isfinite(P)):
        raise ValueError(f"{name} must be finite, got {P.tolist()}")
    if np.any(P < 0):
        i, j = np.argwhere(P < 0)[0]
        raise ValueError(f"{name} has a negative probability {name}[{i}, {j}] = {P[i, j]}")
    sums = P.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOL)
    if bad.size:
        raise ValueError(
            f"the rows of {name} must sum to 1; row {bad[0]} sums to {float(sums[bad[0]])!r}"
        )
    return P


def validate_distribution(pi: ArrayLike, n_states: int, name: str = "pi0") -> np.ndarray:
    """Check a probability vector over ``n_states`` states and return it as floats.

    Parameters
    ----------
    pi : array_like, shape (n_states,)
    n_states : int
    name : str
        Name of the argument, for error messages.

    Returns
    -------
    ndarray of float, shape (n_states,)

    Raises
    ------
    ValueError
        If the shape is wrong or the entries are not finite, non-negative and
        summing to one.
    """
    try:
        pi = np.array(pi, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a numeric vector, got {pi!r}") from err
    if pi.shape != (n_states,):
        raise ValueError(f"{name} must have shape ({n_states},), got shape {pi.shape}")
    if not np.all(np.isfinite(pi)) or np.any(pi < 0) or abs(pi.sum() - 1.0) > ROW_SUM_TOL:
        raise ValueError(f"{name} must be a probability vector summing to 1, got {pi.tolist()}")
    return pi


def stationary_distribution(P: ArrayLike) -> np.ndarray:
    """Return the stationary distribution ``pi = pi P`` from the eigenvector of ``P.T``.

    Parameters
    ----------
    P : array_like, shape (k, k)
        Transition matrix.

    Returns
    -------
    ndarray of float, shape (k,)
        The left eigenvector of ``P`` for eigenvalue 1, scaled to sum to one.

    Raises
    ------
    ValueError
        For a bad matrix, or when eigenvalue 1 is repeated (a reducible chain
        has no unique stationary distribution).
    """
    P = validate_transition_matrix(P)
    values, vectors = np.linalg.eig(P.T)
    at_one = np.flatnonzero(np.abs(values - 1.0) < 1e-8)
    if at_one.size != 1:
        raise ValueError(
            f"P has eigenvalue 1 with multiplicity {at_one.size}: the chain is reducible "
            "and its stationary distribution is not unique"
        )
    vector = np.real(vectors[:, at_one[0]])
    pi = vector / vector.sum()
    return np.clip(pi, 0.0, None) / np.clip(pi, 0.0, None).sum()


def state_distribution_path(P: ArrayLike, pi0: ArrayLike, n_steps: int) -> np.ndarray:
    """Return the distributions ``pi0 P^t`` of the state for ``t = 0 .. n_steps``.

    Parameters
    ----------
    P : array_like, shape (k, k)
        Transition matrix.
    pi0 : array_like, shape (k,)
        Initial distribution.
    n_steps : int
        Number of steps, >= 0.

    Returns
    -------
    ndarray of float, shape (n_steps + 1, k)
        Row ``t`` is the distribution after ``t`` steps; row 0 is ``pi0``.
    """
    P = validate_transition_matrix(P)
    pi0 = validate_distribution(pi0, P.shape[0])
    n_steps = _check_steps(n_steps)
    path = np.empty((n_steps + 1, P.shape[0]))
    path[0] = pi0
    for t in range(n_steps):
        path[t + 1] = path[t] @ P
    return path


def total_variation(p: ArrayLike, q: ArrayLike) -> np.ndarray:
    """Return the total variation distance ``sum |p - q| / 2`` along the last axis.

    Parameters
    ----------
    p, q : array_like, shape (..., k)
        Distributions (broadcast together).

    Returns
    -------
    ndarray of float, shape (...)
    """
    return 0.5 * np.abs(np.asarray(p) - np.asarray(q)).sum(axis=-1)


@njit(cache=True)
def simulate_kernel(cumulative: np.ndarray, start: int, uniforms: np.ndarray) -> np.ndarray:
    """Run a chain by inverting each row's cumulative distribution (seed 004's partition).

    Parameters
    ----------
    cumulative : ndarray of float, shape (k, k)
        Row-wise cumulative sums of the transition matrix, last column 1.
    start : int
        Initial state.
    uniforms : ndarray of float, shape (n_steps,)
        Pre-drawn U(0, 1) numbers, one per step.

    Returns
    -------
    ndarray of int64, shape (n_steps + 1,)
        The states visited, ``start`` first. From state ``i`` the next state is
        the first ``j`` with ``uniforms[t] < cumulative[i, j]``.
    """
    k = cumulative.shape[0]
    states = np.empty(uniforms.shape[0] + 1, dtype=np.int64)
    states[0] = start
    current = start
    for t in range(uniforms.shape[0]):
        u = uniforms[t]
        nxt = k - 1
        for j in range(k):
            if u < cumulative[current, j]:
                nxt = j
                break
        current = nxt
        states[t + 1] = current
    return states


def simulate_chain(P: ArrayLike, n_steps: int, start: int, rng: np.random.Generator) -> np.ndarray:
    """Simulate ``n_steps`` transitions of the chain from state ``start``.

    Parameters
    ----------
    P : array_like, shape (k, k)
        Transition matrix.
    n_steps : int
        Number of transitions, >= 0.
    start : int
        Initial state, in ``0 .. k-1``.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64, shape (n_steps + 1,)
        The states visited, ``start`` first.
    """
    P = validate_transition_matrix(P)
    n_steps = _check_steps(n_steps)
    k = P.shape[0]
    if isinstance(start, bool) or not isinstance(start, int | np.integer) or not 0 <= start < k:
        raise ValueError(f"start must be a state in 0..{k - 1}, got {start!r}")
    cumulative = np.cumsum(P, axis=1)
    cumulative[:, -1] = 1.0  # guard against row sums of 1 - 1e-16
    return simulate_kernel(cumulative, int(start), rng.random(n_steps))


def occupancy(states: ArrayLike, n_states: int) -> np.ndarray:
    """Return the fraction of time spent in each state.

    Parameters
    ----------
    states : array_like of int, shape (..., n)
        Visited states (the last axis is time).
    n_states : int

    Returns
    -------
    ndarray of float, shape (..., n_states)
    """
    states = np.asarray(states)
    return np.stack([(states == s).mean(axis=-1) for s in range(n_states)], axis=-1)


def simulate_from_starts(
    P: ArrayLike, n_steps: int, starts: Sequence[int], random_seed: int | None
) -> np.ndarray:
    """Simulate one chain from each start, each with its own spawned stream.

    Parameters
    ----------
    P : array_like, shape (k, k)
        Transition matrix.
    n_steps : int
        Transitions per chain.
    starts : sequence of int
        Initial states, one chain each.
    random_seed : int or None
        Seed of ``np.random.default_rng(random_seed).spawn(len(starts))``.

    Returns
    -------
    ndarray of int64, shape (len(starts), n_steps + 1)
    """
    rngs = np.random.default_rng(random_seed).spawn(len(starts))
    return np.stack(
        [simulate_chain(P, n_steps, start, rng) for start, rng in zip(starts, rngs, strict=True)]
    )


def _check_steps(n_steps: int) -> int:
    """Check that ``n_steps`` is an integer >= 0."""
    if isinstance(n_steps, bool) or not isinstance(n_steps, int | np.integer) or n_steps < 0:
        raise ValueError(f"n_steps must be an integer >= 0, got {n_steps!r}")
    return int(n_steps)


# ------------------------------------------------ irreducibility, periodicity, MH


def is_irreducible(P: ArrayLike) -> bool:
    """Return whether every state of ``P`` can reach every other (seed 001's 不可约).

    Parameters
    ----------
    P : array_like, shape (k, k)
        Transition matrix (floats or :class:`fractions.Fraction`).
    """
    reach = np.asarray(P) != 0
    k = reach.shape[0]
    closure = reach | np.eye(k, dtype=bool)
    for _ in range(k):
        closure = closure | ((closure.astype(int) @ closure.astype(int)) > 0)
    return bool(closure.all())


def period(P: ArrayLike) -> int:
    """Return the period of an irreducible chain: the gcd of its possible return times.

    A chain is aperiodic (seed 001's 非周期) when its period is 1. Computed from
    breadth-first levels from state 0: the period is the gcd, over every
    allowed move ``i -> j``, of ``level[i] + 1 - level[j]``.

    Parameters
    ----------
    P : array_like, shape (k, k)
        Transition matrix of an irreducible chain.
    """
    if not is_irreducible(P):
        raise ValueError("the period is defined here for irreducible chains only")
    moves = np.asarray(P) != 0
    level = {0: 0}
    frontier = [0]
    while frontier:
        nxt = []
        for i in frontier:
            for j in np.flatnonzero(moves[i]):
                if int(j) not in level:
                    level[int(j)] = level[i] + 1
                    nxt.append(int(j))
        frontier = nxt
    g = 0
    for i, j in zip(*np.nonzero(moves), strict=True):
        g = math.gcd(g, abs(level[int(i)] + 1 - level[int(j)]))
    return g


def exact(values: ArrayLike) -> np.ndarray:
    """Return ``values`` as an object array of :class:`fractions.Fraction` (exact arithmetic).

    Decimal strings and floats are read as the decimals they print as
    (``0.1`` is 1/10), so that detailed balance can be checked with ``==``.
    """
    return np.vectorize(lambda v: Fraction(str(v)), otypes=[object])(np.asarray(values))


def metropolis_hastings_matrix(pi: ArrayLike, Q: ArrayLike, rule: str = "mh") -> np.ndarray:
    """Return the transition matrix that accepts a move ``i -> j`` proposed by ``Q``.

    ``P[i, j] = Q[i, j] * a(i, j)`` for ``j != i``, and the rejected mass stays
    on the diagonal. Works with floats or exactly with :func:`exact` arrays.

    Parameters
    ----------
    pi : array_like, shape (k,)
        Target distribution.
    Q : array_like, shape (k, k)
        Proposal matrix, ``Q[i, j] = q(j | i)`` (seed 003's 建议分布: each row,
        not the stationary distribution of ``Q``).
    rule : {"mh", "seed003", "seed002"}
        ``"mh"``: Metropolis-Hastings, ``a = min(1, pi_j Q[j, i] / (pi_i Q[i, j]))``.
        ``"seed003"``: seed 003's first construction, ``a = pi_j Q[j, i]`` (also
        in detailed balance, but it accepts less). ``"seed002"``: seed 002's
        printed rule ``a = min(1, Q[j, i] / Q[i, j])``, without ``pi_j / pi_i``
        (wrong: its stationary distribution is not ``pi``).

    Returns
    -------
    ndarray, shape (k, k)
    """
    pi, Q = np.asarray(pi), np.asarray(Q)
    k = len(pi)
    P = np.zeros((k, k), dtype=Q.dtype)
    one = Q.flat[0] ** 0
    for i in range(k):
        for j in range(k):
            if i == j or Q[i, j] == 0:
                continue
            if rule == "mh":
                a = min(one, pi[j] * Q[j, i] / (pi[i] * Q[i, j]))
            elif rule == "seed003":
                a = pi[j] * Q[j, i]
            elif rule == "seed002":
                a = min(one, Q[j, i] / Q[i, j])
            else:
                raise ValueError(f"unknown rule {rule!r}")
            P[i, j] = Q[i, j] * a
        P[i, i] = one - sum(P[i, j] for j in range(k) if j != i)
    return P


def detailed_balance_holds(pi: ArrayLike, P: ArrayLike) -> bool:
    """Return whether ``pi_i P[i, j] == pi_j P[j, i]`` for every pair (exact for Fractions).

    Floats are compared to within ``1e-12``.
    """
    pi, P = np.asarray(pi), np.asarray(P)
    flows = pi[:, None] * P
    if flows.dtype == object:
        return bool((flows == flows.T).all())
    return bool(np.allclose(flows, flows.T, rtol=0, atol=1e-12))


def stationary_exactly(pi: ArrayLike, P: ArrayLike) -> bool:
    """Return whether ``pi P == pi`` (exact for Fractions, to ``1e-12`` for floats)."""
    pi, P = np.asarray(pi), np.asarray(P)
    after = pi @ P
    if after.dtype == object:
        return bool((after == pi).all())
    return bool(np.allclose(after, pi, rtol=0, atol=1e-12))
