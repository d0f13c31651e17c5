r"""Metropolis–Hastings for the one-dimensional MH pairs: targets, teaching steps, drivers.

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

A target is described once, by a :class:`Target`: its log density compiled
with numba (``logdensity_fn(x, params)``), the parameters, and the bounds of its
support. The same description, the same log density
(:func:`mcmc_pairs.handrolled._mh_kernels.target_logdensity`) and the same acceptance
function (:func:`acceptance_probability`) serve the plain-Python teaching steps
here and the compiled chain kernels of :mod:`mcmc_pairs.handrolled._mh_kernels`; an
independence proposal ``q`` is a :class:`Target` too.

The layout follows blackjax (``blackjax/mcmc/random_walk.py``): a state
:class:`MHState` ``(position, logdensity)``, an info record :class:`MHInfo`
``(acceptance_rate, is_accepted)``, :func:`init` and step functions
``step(state, target, <pre-drawn random numbers>) -> (state, info)``. The
steps take pre-drawn standard normals and uniforms instead of a generator, so a
test can rig a proposal, and so the plain-Python steps here and the chain
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
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from arviz_base import from_dict

from mcmc_pairs.handrolled._common import chain_streams, resume_state, save_state
from mcmc_pairs.handrolled._mh_kernels import (
    LOGDENSITY_SIGNATURE,
    TARGET_ACCEPTANCE,
    acceptance_probability,
    independence_kernel,
    random_walk_kernel,
    target_logdensity,
    update_log_scale,
)

if TYPE_CHECKING:
    import xarray as xr

__all__ = [
    "LOGDENSITY_SIGNATURE",
    "SEED_ADVICE",
    "TARGET_ACCEPTANCE",
    "MHInfo",
    "MHState",
    "Target",
    "acceptance_probability",
    "independence_kernel",
    "independence_step",
    "init",
    "random_walk_kernel",
    "random_walk_step",
    "sample_independence",
    "sample_random_walk",
    "step",
    "to_datatree",
    "update_log_scale",
]

SEED_ADVICE = (0.15, 0.5)
"""Seed 001, section 6.2 (2): acceptance rates in this range give a well-behaved chain."""


class Target(NamedTuple):
    """A one-dimensional density for Metropolis–Hastings: log density, parameters, support.

    The fields are, in order, the first four arguments of the kernels of
    :mod:`mcmc_pairs.handrolled._mh_kernels` (a ``Target`` unpacks into them).

    Attributes
    ----------
    logdensity_fn : compiled function
        ``logdensity_fn(x, params) -> float``, the density's formula (up to a
        constant) inside the support, compiled with
        ``@njit(LOGDENSITY_SIGNATURE, cache=True)``.
    params : ndarray of float64, shape (n_params,)
        Parameters passed to ``logdensity_fn``.
    lower, upper : float
        Bounds of the open support ``(lower, upper)``; infinite for the real line.
    """

    logdensity_fn: Any
    params: np.ndarray
    lower: float = -math.inf
    upper: float = math.inf

    def logdensity(self, x: float) -> float:
        """Return the log density at ``x``, ``-inf`` outside the support.

        Parameters
        ----------
        x : float
            Point.

        Returns
        -------
        float
            :func:`mcmc_pairs.handrolled._mh_kernels.target_logdensity`, the kernels' own.
        """
        return target_logdensity(*self, float(x))


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


# --- the teaching steps, plain Python ----------------------------------------------


def init(position: float, target: Target) -> MHState:
    """Start a chain at ``position``.

    Parameters
    ----------
    position : float
        Starting point; it should lie inside the support (finite log density).
    target : Target
        The target density.

    Returns
    -------
    MHState
        The starting state.
    """
    return MHState(float(position), target.logdensity(position))


def step(
    state: MHState,
    target: Target,
    proposal: float,
    uniform: float,
    log_hastings: float = 0.0,
) -> tuple[MHState, MHInfo]:
    """Accept or reject one proposal (the generic MH step of seed 001 section 6).

    Parameters
    ----------
    state : MHState
        Current state.
    target : Target
        The target density; its log density is ``-inf`` outside the support.
    proposal : float
        Proposed point ``x'``.
    uniform : float
        A draw ``U`` from ``U(0, 1)``; the proposal is accepted when
        ``U < acceptance_rate``.
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
    proposal_logdensity = target.logdensity(proposal)
    log_ratio = proposal_logdensity - state.logdensity + log_hastings
    rate = acceptance_probability(log_ratio)
    accepted = bool(uniform < rate)
    if accepted:
        state = MHState(float(proposal), proposal_logdensity)
    return state, MHInfo(rate, accepted, float(proposal))


def random_walk_step(
    state: MHState,
    target: Target,
    normal: float,
    uniform: float,
    scale: float,
) -> tuple[MHState, MHInfo]:
    """One random-walk Metropolis step (seed 001 section 6.2; seed 003's program).

    Parameters
    ----------
    state : MHState
        Current state.
    target : Target
        The target density.
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
    return step(state, target, state.position + scale * normal, uniform)


def independence_step(
    state: MHState,
    target: Target,
    proposal: float,
    uniform: float,
    proposal_density: Target,
) -> tuple[MHState, MHInfo]:
    """One independence-sampler step (seed 001 section 6.3).

    The acceptance ratio is ``pi(x') q(x) / (pi(x) q(x'))``: the Hastings
    correction ``q(x) / q(x')`` does not cancel for an independence proposal.

    Parameters
    ----------
    state : MHState
        Current state.
    target : Target
        The target density ``pi``.
    proposal : float
        A draw ``x' ~ q``, independent of the current point.
    uniform : float
        A ``U(0, 1)`` draw for the accept/reject decision.
    proposal_density : Target
        The proposal density ``q``.

    Returns
    -------
    state : MHState
        The next state.
    info : MHInfo
        Acceptance probability, decision and proposal.
    """
    log_hastings = proposal_density.logdensity(state.position) - proposal_density.logdensity(
        proposal
    )
    return step(state, target, proposal, uniform, log_hastings)


# --- Python drivers: RNG streams and shapes around the kernels ---------------------


def sample_random_walk(
    target: Target,
    draw_start: Callable[[np.random.Generator], float],
    scale: float,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    adapt: bool,
    state: dict | None = None,
    sampler: str = "mcmc_pairs.handrolled.mh:sample_random_walk",
) -> xr.DataTree:
    """Run ``chains`` random-walk chains (:func:`random_walk_kernel`) and gather them.

    Parameters
    ----------
    target : Target
        The target density.
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
    state : dict, optional
        Continue chains (the protocol of :mod:`mcmc_pairs.handrolled._common`): keys
        ``position`` and ``scale`` (chains,), each chain's last point and its
        frozen proposal scale, and ``rngs``. A continuation runs ``tune``
        discarded iterations without adapting, then ``draws`` kept ones, at the
        frozen scale, from the last point, on the chain's own stream (the next
        ``tune + draws`` normals, then as many uniforms). It is a valid
        continuation of the same chain but *not* bit for bit one longer run:
        a run draws all its normals before its uniforms, so a run of ``a``
        draws does not use the first uniforms of a run of ``a + b``, and no
        continuation could match without changing every run's draws.
    sampler : str
        Name under which the state is written (the public sampler's).

    Returns
    -------
    xarray.DataTree
        See :func:`to_datatree`.
    """
    resumed = resume_state(state, sampler, chains, ("position", "scale", "rngs"))
    rngs = chain_streams(random_seed, chains, resumed)
    out = _allocate(chains, draws)
    scales = np.empty(chains)
    for c, rng in enumerate(rngs):
        if resumed is None:
            start, start_scale, adapting = float(draw_start(rng)), float(scale), adapt
        else:
            start, start_scale = float(resumed["position"][c]), float(resumed["scale"][c])
            adapting = False
        normals = rng.standard_normal(tune + draws)
        uniforms = rng.random(tune + draws)
        scales[c] = random_walk_kernel(
            *target, start, start_scale, normals, uniforms, tune, adapting,
            out["x"][c], out["lp"][c], out["acceptance_rate"][c], out["accepted"][c],
        )  # fmt: skip
    save_state(
        state, sampler, chains, position=out["x"][:, -1].copy(), scale=scales.copy(), rngs=rngs
    )
    return to_datatree(out, scales)


def sample_independence(
    target: Target,
    proposal_density: Target,
    draw_start: Callable[[np.random.Generator], float],
    draw_proposals: Callable[[np.random.Generator, int], np.ndarray],
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
    sampler: str = "mcmc_pairs.handrolled.mh:sample_independence",
) -> xr.DataTree:
    """Run ``chains`` independence-sampler chains (:func:`independence_kernel`) and gather them.

    Parameters
    ----------
    target : Target
        The target density ``pi``.
    proposal_density : Target
        The proposal density ``q``.
    draw_start : callable
        ``draw_start(rng) -> float``, a dispersed starting point inside the support.
    draw_proposals : callable
        ``draw_proposals(rng, n) -> ndarray, shape (n,)``, independent draws from ``q``.
    draws, tune, chains : int
        Run lengths (already validated).
    random_seed : int or None
        Seed; each chain draws, in order, its start, ``tune + draws`` proposals and
        as many uniforms from its own spawned generator.
    state : dict, optional
        Continue chains (the protocol of :mod:`mcmc_pairs.handrolled._common`): keys
        ``position`` (chains,), each chain's last point, and ``rngs``. A
        continuation draws the next ``tune + draws`` proposals and uniforms of
        the chain's stream and starts from the last point: a valid continuation
        of the same chain but, as in :func:`sample_random_walk` (proposals
        before uniforms), not bit for bit one longer run.
    sampler : str
        Name under which the state is written (the public sampler's).

    Returns
    -------
    xarray.DataTree
        See :func:`to_datatree` (``proposal_scale`` is NaN: there is no scale).
    """
    resumed = resume_state(state, sampler, chains, ("position", "rngs"))
    rngs = chain_streams(random_seed, chains, resumed)
    out = _allocate(chains, draws)
    for c, rng in enumerate(rngs):
        if resumed is None:
            start = float(draw_start(rng))
        else:
            start = float(resumed["position"][c])
        proposals = np.ascontiguousarray(draw_proposals(rng, tune + draws), dtype=np.float64)
        uniforms = rng.random(tune + draws)
        independence_kernel(
            *target, *proposal_density, start, proposals, uniforms, tune,
            out["x"][c], out["lp"][c], out["acceptance_rate"][c], out["accepted"][c],
        )  # fmt: skip
    save_state(state, sampler, chains, position=out["x"][:, -1].copy(), rngs=rngs)
    return to_datatree(out, np.full(chains, np.nan))


def _allocate(chains: int, draws: int) -> dict[str, np.ndarray]:
    return {
        "x": np.empty((chains, draws)),
        "lp": np.empty((chains, draws)),
        "acceptance_rate": np.empty((chains, draws)),
        "accepted": np.empty((chains, draws), dtype=bool),
    }


def to_datatree(out: Mapping[str, np.ndarray], scales: np.ndarray) -> xr.DataTree:
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
