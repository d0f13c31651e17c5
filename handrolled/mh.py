r"""Metropolis–Hastings kernels shared by the one-dimensional MH pairs.

Seed 001 (section 6) and seed 003 ("Metropolis-Hastings") teach one algorithm:
from the current point ``x`` propose ``x' ~ q(. | x)``, draw ``U ~ U(0, 1)`` and
accept ``x'`` when

.. math::

    U < \min\Big(1, \frac{\pi(x')\, q(x \mid x')}{\pi(x)\, q(x' \mid x)}\Big),

otherwise stay at ``x``. This module computes it in log space, so densities that
under- or overflow (the Beta density near 1 with ``b < 1``) do no harm, and a
proposal outside the support (log density ``-inf``) is never accepted.

Two proposals are covered, as in seed 001:

* the **random walk** (section 6.2): ``x' = x + scale * z`` with ``z ~ N(0, 1)``;
  ``q`` is symmetric, so the Hastings correction ``q(x | x') / q(x' | x)`` is 1;
* the **independence sampler** (section 6.3): ``x' ~ q(.)`` whatever ``x`` is,
  so the correction ``q(x) / q(x')`` does not cancel and must be kept.

The layout follows blackjax (``blackjax/mcmc/random_walk.py``): a state
:class:`MHState` ``(position, logdensity)``, an info record :class:`MHInfo`
``(acceptance_rate, is_accepted)``, :func:`init` and step functions
``step(state, logdensity_fn, <pre-drawn random numbers>) -> (state, info)``. The
steps take pre-drawn standard normals and uniforms instead of a generator, so a
test can rig a proposal, and so the plain-Python steps here and the numba chain
kernels (:func:`random_walk_kernel`, :func:`independence_kernel`) can be checked
against each other bit for bit.

Proposal-scale tuning (random walk only, during ``tune`` only): after each
tuning iteration ``t`` (from 1) the log scale moves by
``(acceptance_rate - TARGET_ACCEPTANCE) / t**0.6`` (a Robbins–Monro update,
Andrieu & Thoms 2008), aiming at the one-dimensional optimum of about 0.44
(Roberts, Gelman & Gilks 1997), inside the seed's advice of 0.15 to 0.5. The
scale is frozen when tuning ends, so the kept draws come from one fixed,
reversible kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import NamedTuple

import numpy as np
from arviz_base import from_dict
from numba import njit, types

from handrolled._common import chain_rngs

TARGET_ACCEPTANCE = 0.44
"""Acceptance rate the proposal-scale tuning aims at (1-D optimum)."""

ADAPTATION_EXPONENT = 0.6
"""Step sizes of the scale tuning decay as ``t ** -ADAPTATION_EXPONENT``."""

SEED_ADVICE = (0.15, 0.5)
"""Seed 001, section 6.2 (2): acceptance rates in this range give a well-behaved chain."""

LOGDENSITY_SIGNATURE = types.float64(types.float64, types.float64[::1])
"""Numba signature of a compiled target: ``logdensity(x, params) -> float``.

Compile a target with ``@njit(LOGDENSITY_SIGNATURE, cache=True)`` so that the
chain kernels, which take it as a first-class function, can be cached on disk.
"""

_F64 = types.float64[::1]
_BOOL = types.boolean[::1]


class MHState(NamedTuple):
    """State of a one-dimensional Metropolis–Hastings chain.

    Attributes
    ----------
    position : float
        Current point ``x``.
    logdensity : float
        Target log density at ``position`` (up to a constant).
    """

    position: float
    logdensity: float


class MHInfo(NamedTuple):
    """What happened in one Metropolis–Hastings step.

    Attributes
    ----------
    acceptance_rate : float
        Acceptance probability ``min(1, ratio)`` of the proposal, in ``[0, 1]``.
    is_accepted : bool
        Whether the proposal was accepted.
    proposal : float
        The proposed point.
    """

    acceptance_rate: float
    is_accepted: bool
    proposal: float


def init(position: float, logdensity_fn: Callable[[float], float]) -> MHState:
    """Start a chain at ``position``.

    Parameters
    ----------
    position : float
        Starting point; it should lie inside the support (finite log density).
    logdensity_fn : callable
        ``logdensity_fn(x) -> float``, the target log density.

    Returns
    -------
    MHState
        The starting state.
    """
    return MHState(float(position), float(logdensity_fn(position)))


def acceptance_probability(log_ratio: float) -> float:
    """Metropolis–Hastings acceptance probability ``min(1, exp(log_ratio))``.

    Parameters
    ----------
    log_ratio : float
        ``log pi(x') - log pi(x) + log q(x | x') - log q(x' | x)``.

    Returns
    -------
    float
        The probability in ``[0, 1]``; 0 when ``log_ratio`` is NaN or ``-inf``
        (a proposal outside the support).
    """
    if math.isnan(log_ratio):
        return 0.0
    return math.exp(min(0.0, log_ratio))


def step(
    state: MHState,
    logdensity_fn: Callable[[float], float],
    proposal: float,
    uniform: float,
    log_hastings: float = 0.0,
) -> tuple[MHState, MHInfo]:
    """Accept or reject one proposal (the generic MH step, plain Python).

    Parameters
    ----------
    state : MHState
        Current state.
    logdensity_fn : callable
        ``logdensity_fn(x) -> float``; ``-inf`` outside the support.
    proposal : float
        Proposed point ``x'``.
    uniform : float
        A draw from ``U(0, 1)``; the proposal is accepted when
        ``uniform < acceptance_rate``.
    log_hastings : float, default 0.0
        Hastings correction ``log q(x | x') - log q(x' | x)``; 0 for a
        symmetric proposal.

    Returns
    -------
    state : MHState
        The next state (the proposal, or ``state`` again).
    info : MHInfo
        Acceptance probability, decision and proposal.
    """
    proposal_logdensity = float(logdensity_fn(proposal))
    log_ratio = proposal_logdensity - state.logdensity + log_hastings
    rate = acceptance_probability(log_ratio)
    accepted = bool(uniform < rate)
    if accepted:
        state = MHState(float(proposal), proposal_logdensity)
    return state, MHInfo(rate, accepted, float(proposal))


def random_walk_step(
    state: MHState,
    logdensity_fn: Callable[[float], float],
    normal: float,
    uniform: float,
    scale: float,
) -> tuple[MHState, MHInfo]:
    """One random-walk Metropolis step (seed 001 section 6.2), plain Python.

    Parameters
    ----------
    state : MHState
        Current state.
    logdensity_fn : callable
        ``logdensity_fn(x) -> float``.
    normal : float
        A standard normal draw ``z``; the proposal is ``x + scale * z``.
    uniform : float
        A ``U(0, 1)`` draw for the accept/reject decision.
    scale : float
        Proposal standard deviation.

    Returns
    -------
    state : MHState
        The next state.
    info : MHInfo
        Acceptance probability, decision and proposal.
    """
    return step(state, logdensity_fn, state.position + scale * normal, uniform)


def independence_step(
    state: MHState,
    logdensity_fn: Callable[[float], float],
    proposal: float,
    uniform: float,
    proposal_logpdf: Callable[[float], float],
) -> tuple[MHState, MHInfo]:
    """One independence-sampler step (seed 001 section 6.3), plain Python.

    The acceptance ratio is ``pi(x') q(x) / (pi(x) q(x'))``: the Hastings
    correction ``q(x) / q(x')`` does not cancel for an independence proposal.

    Parameters
    ----------
    state : MHState
        Current state.
    logdensity_fn : callable
        ``logdensity_fn(x) -> float``, the target.
    proposal : float
        A draw ``x' ~ q``, independent of the current point.
    uniform : float
        A ``U(0, 1)`` draw for the accept/reject decision.
    proposal_logpdf : callable
        ``proposal_logpdf(x) -> float``, ``log q(x)``.

    Returns
    -------
    state : MHState
        The next state.
    info : MHInfo
        Acceptance probability, decision and proposal.
    """
    log_hastings = float(proposal_logpdf(state.position)) - float(proposal_logpdf(proposal))
    return step(state, logdensity_fn, proposal, uniform, log_hastings)


def update_log_scale(log_scale: float, acceptance_rate: float, iteration: int) -> float:
    """Robbins–Monro update of the log proposal scale (used during tuning only).

    Parameters
    ----------
    log_scale : float
        Current log proposal scale.
    acceptance_rate : float
        Acceptance probability of the step just taken.
    iteration : int
        Tuning iteration, counted from 1.

    Returns
    -------
    float
        ``log_scale + (acceptance_rate - TARGET_ACCEPTANCE) / iteration**0.6``.
    """
    return log_scale + (acceptance_rate - TARGET_ACCEPTANCE) / iteration**ADAPTATION_EXPONENT


# --- numba chain kernels ---------------------------------------------------------


@njit(types.float64(types.float64), cache=True)
def _acceptance_probability_nb(log_ratio):
    if math.isnan(log_ratio):
        return 0.0
    return math.exp(min(0.0, log_ratio))


@njit(
    types.float64(
        types.FunctionType(LOGDENSITY_SIGNATURE),
        _F64,
        types.float64,
        types.float64,
        _F64,
        _F64,
        types.int64,
        types.boolean,
        _F64,
        _F64,
        _F64,
        _BOOL,
    ),
    cache=True,
)
def random_walk_kernel(
    logdensity_fn,
    params,
    position,
    scale,
    normals,
    uniforms,
    n_tune,
    adapt,
    out_position,
    out_logdensity,
    out_acceptance_rate,
    out_accepted,
):
    """Run one random-walk Metropolis chain on pre-drawn random numbers (numba).

    Iterations ``0 .. n_tune - 1`` are tuning (scale updated when ``adapt``) and
    are discarded; iteration ``n_tune + i`` is written to ``out_*[i]``.

    Parameters
    ----------
    logdensity_fn : compiled function
        ``logdensity_fn(x, params) -> float`` compiled with
        :data:`LOGDENSITY_SIGNATURE`; ``-inf`` outside the support.
    params : ndarray of float64, shape (n_params,)
        Target parameters passed to ``logdensity_fn``.
    position : float
        Starting point, inside the support.
    scale : float
        Starting proposal standard deviation.
    normals, uniforms : ndarray of float64, shape (n_tune + draws,)
        Standard normal increments and ``U(0, 1)`` draws, one per iteration.
    n_tune : int
        Number of tuning iterations.
    adapt : bool
        Tune the proposal scale during the ``n_tune`` tuning iterations.
    out_position, out_logdensity, out_acceptance_rate : ndarray of float64, shape (draws,)
        Filled with the kept positions, their log densities and the acceptance
        probability of the step that produced them.
    out_accepted : ndarray of bool, shape (draws,)
        Filled with whether that step accepted its proposal.

    Returns
    -------
    float
        The proposal scale used for the kept draws.
    """
    logdensity = logdensity_fn(position, params)
    log_scale = math.log(scale)
    for i in range(normals.shape[0]):
        proposal = position + scale * normals[i]
        proposal_logdensity = logdensity_fn(proposal, params)
        rate = _acceptance_probability_nb(proposal_logdensity - logdensity)
        accepted = uniforms[i] < rate
        if accepted:
            position = proposal
            logdensity = proposal_logdensity
        if i < n_tune:
            if adapt:
                log_scale += (rate - TARGET_ACCEPTANCE) / (i + 1.0) ** ADAPTATION_EXPONENT
                scale = math.exp(log_scale)
        else:
            j = i - n_tune
            out_position[j] = position
            out_logdensity[j] = logdensity
            out_acceptance_rate[j] = rate
            out_accepted[j] = accepted
    return scale


@njit(
    types.float64(
        types.float64,
        types.float64,
        types.float64,
        _F64,
        _F64,
        _F64,
        _F64,
        types.int64,
        _F64,
        _F64,
        _F64,
        _BOOL,
    ),
    cache=True,
)
def independence_kernel(
    position,
    logdensity,
    log_q,
    proposals,
    proposal_logdensity,
    proposal_log_q,
    uniforms,
    n_tune,
    out_position,
    out_logdensity,
    out_acceptance_rate,
    out_accepted,
):
    """Run one independence-sampler chain on pre-drawn proposals (numba).

    Independence proposals do not depend on the chain, so the target and
    proposal log densities at every proposal are computed beforehand
    (vectorised); the kernel only accepts or rejects.

    Parameters
    ----------
    position : float
        Starting point, inside the support.
    logdensity, log_q : float
        Target and proposal log densities at ``position``.
    proposals : ndarray of float64, shape (n_tune + draws,)
        Proposals ``x' ~ q``, one per iteration.
    proposal_logdensity, proposal_log_q : ndarray of float64, shape (n_tune + draws,)
        ``log pi(x')`` and ``log q(x')`` at each proposal.
    uniforms : ndarray of float64, shape (n_tune + draws,)
        ``U(0, 1)`` draws, one per iteration.
    n_tune : int
        Number of discarded iterations.
    out_position, out_logdensity, out_acceptance_rate : ndarray of float64, shape (draws,)
        Filled with the kept positions, their log densities and acceptance probabilities.
    out_accepted : ndarray of bool, shape (draws,)
        Filled with the accept decisions.

    Returns
    -------
    float
        The last position.
    """
    for i in range(proposals.shape[0]):
        log_ratio = proposal_logdensity[i] - logdensity + (log_q - proposal_log_q[i])
        rate = _acceptance_probability_nb(log_ratio)
        accepted = uniforms[i] < rate
        if accepted:
            position = proposals[i]
            logdensity = proposal_logdensity[i]
            log_q = proposal_log_q[i]
        if i >= n_tune:
            j = i - n_tune
            out_position[j] = position
            out_logdensity[j] = logdensity
            out_acceptance_rate[j] = rate
            out_accepted[j] = accepted
    return position


# --- Python drivers: validation, RNG streams, shapes ------------------------------


def sample_random_walk(
    logdensity_fn,
    params: np.ndarray,
    draw_start: Callable[[np.random.Generator], float],
    scale: float,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    adapt: bool,
):
    """Run ``chains`` random-walk chains and gather them in a DataTree.

    Parameters
    ----------
    logdensity_fn : compiled function
        Target compiled with :data:`LOGDENSITY_SIGNATURE`.
    params : ndarray of float64, shape (n_params,)
        Target parameters for ``logdensity_fn``.
    draw_start : callable
        ``draw_start(rng) -> float``, a dispersed starting point inside the support.
    scale : float
        (Starting) proposal standard deviation.
    draws, tune, chains : int
        Run lengths (already validated).
    random_seed : int or None
        Seed; chain ``c`` uses ``chain_rngs(random_seed, chains)[c]``
        and draws, in order, its start, ``tune + draws`` normals and as many uniforms.
    adapt : bool
        Tune the proposal scale during ``tune``.

    Returns
    -------
    xarray.DataTree
        See :func:`to_datatree`.
    """
    out = _allocate(chains, draws)
    scales = np.empty(chains)
    params = np.ascontiguousarray(params, dtype=np.float64)
    for c, rng in enumerate(chain_rngs(random_seed, chains)):
        start = float(draw_start(rng))
        normals = rng.standard_normal(tune + draws)
        uniforms = rng.random(tune + draws)
        scales[c] = random_walk_kernel(
            logdensity_fn, params, start, float(scale), normals, uniforms, tune, adapt,
            out["x"][c], out["lp"][c], out["acceptance_rate"][c], out["accepted"][c],
        )  # fmt: skip
    return to_datatree(out, scales)


def sample_independence(
    logdensity: Callable[[np.ndarray], np.ndarray],
    draw_start: Callable[[np.random.Generator], float],
    draw_proposals: Callable[[np.random.Generator, int], np.ndarray],
    proposal_logpdf: Callable[[np.ndarray], np.ndarray],
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
):
    """Run ``chains`` independence-sampler chains and gather them in a DataTree.

    Parameters
    ----------
    logdensity : callable
        Vectorised target, ``logdensity(x) -> ndarray`` of the shape of ``x``.
    draw_start : callable
        ``draw_start(rng) -> float``, a dispersed starting point inside the support.
    draw_proposals : callable
        ``draw_proposals(rng, n) -> ndarray, shape (n,)``, independent draws from ``q``.
    proposal_logpdf : callable
        Vectorised ``log q(x)``.
    draws, tune, chains : int
        Run lengths (already validated).
    random_seed : int or None
        Seed; each chain draws, in order, its start, ``tune + draws`` proposals and
        as many uniforms from its own spawned generator.

    Returns
    -------
    xarray.DataTree
        See :func:`to_datatree` (``proposal_scale`` is NaN: there is no scale).
    """
    out = _allocate(chains, draws)
    for c, rng in enumerate(chain_rngs(random_seed, chains)):
        start = np.array([draw_start(rng)], dtype=np.float64)
        proposals = np.ascontiguousarray(draw_proposals(rng, tune + draws), dtype=np.float64)
        uniforms = rng.random(tune + draws)
        independence_kernel(
            start[0], float(logdensity(start)[0]), float(proposal_logpdf(start)[0]),
            proposals,
            np.ascontiguousarray(logdensity(proposals), dtype=np.float64),
            np.ascontiguousarray(proposal_logpdf(proposals), dtype=np.float64),
            uniforms, tune,
            out["x"][c], out["lp"][c], out["acceptance_rate"][c], out["accepted"][c],
        )  # fmt: skip
    return to_datatree(out, np.full(chains, np.nan))


def _allocate(chains: int, draws: int) -> dict[str, np.ndarray]:
    return {
        "x": np.empty((chains, draws)),
        "lp": np.empty((chains, draws)),
        "acceptance_rate": np.empty((chains, draws)),
        "accepted": np.empty((chains, draws), dtype=bool),
    }


def to_datatree(out: Mapping[str, np.ndarray], scales: np.ndarray):
    """Gather the draws and the sample stats in an ``xarray.DataTree``.

    Parameters
    ----------
    out : mapping
        ``x``, ``lp``, ``acceptance_rate`` (float) and ``accepted`` (bool), each
        of shape (chains, draws).
    scales : ndarray, shape (chains,)
        Proposal scale each chain used for its kept draws (NaN if none).

    Returns
    -------
    xarray.DataTree
        Group ``posterior`` with ``x`` (chain, draw); group ``sample_stats`` with
        ``acceptance_rate`` (the MH acceptance probability of each kept step),
        ``accepted``, ``lp`` (target log density) and ``proposal_scale``
        (constant along ``draw``), all (chain, draw).
    """
    draws = out["x"].shape[1]
    return from_dict(
        {
            "posterior": {"x": out["x"]},
            "sample_stats": {
                "acceptance_rate": out["acceptance_rate"],
                "accepted": out["accepted"],
                "lp": out["lp"],
                "proposal_scale": np.repeat(np.asarray(scales, dtype=float)[:, None], draws, 1),
            },
        }
    )
