r"""Compiled pieces of the one-dimensional Metropolis–Hastings samplers.

Shared by the plain-Python teaching steps of :mod:`mcmc_pairs.handrolled.mh` and by the
chain kernels below, so that both evaluate one log density and one acceptance
rule:

- :func:`target_logdensity`: :math:`\log\pi(x)`, ``-inf`` outside the support;
- :func:`acceptance_probability`: :math:`\min(1, e^{\log r})`;
- :func:`update_log_scale`: the Robbins–Monro tuning of the random walk's scale;
- :func:`random_walk_kernel` and :func:`independence_kernel`: whole chains on
  pre-drawn random numbers, tested bit for bit against the teaching steps.

A target is passed as four values, the fields of :class:`mcmc_pairs.handrolled.mh.Target`:
``logdensity_fn`` (compiled with :data:`LOGDENSITY_SIGNATURE`), ``params``
(float64, shape (n_params,)), and the bounds ``lower`` and ``upper`` of the
open support.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from numba import njit, types

if TYPE_CHECKING:
    import numpy as np

LogDensityFn = Callable[[float, "np.ndarray"], float]
"""A compiled log density (:data:`LOGDENSITY_SIGNATURE`): ``logdensity_fn(x, params)``."""

TARGET_ACCEPTANCE = 0.44
"""Acceptance rate the proposal-scale tuning aims at (1-D optimum)."""

ADAPTATION_EXPONENT = 0.6
"""Step sizes of the scale tuning decay as ``t ** -ADAPTATION_EXPONENT``."""

LOGDENSITY_SIGNATURE = types.float64(types.float64, types.float64[::1])
"""Numba signature of a compiled log density: ``logdensity_fn(x, params) -> float``.

Compile a target with ``@njit(LOGDENSITY_SIGNATURE, cache=True)`` so that the
kernels, which take it as a first-class function, can be cached on disk.
"""

_F64 = types.float64[::1]
_BOOL = types.boolean[::1]
_LOGDENSITY = types.FunctionType(LOGDENSITY_SIGNATURE)


@njit(types.float64(_LOGDENSITY, _F64, types.float64, types.float64, types.float64), cache=True)
def target_logdensity(
    logdensity_fn: LogDensityFn, params: np.ndarray, lower: float, upper: float, x: float
) -> float:
    r"""Return :math:`\log\pi(x)`: ``logdensity_fn(x, params)`` inside the support, else ``-inf``.

    Parameters
    ----------
    logdensity_fn : compiled function
        ``logdensity_fn(x, params) -> float``, the density's formula inside the support.
    params : ndarray of float64, shape (n_params,)
        Its parameters.
    lower, upper : float
        Bounds of the open support ``(lower, upper)``; infinite for the real line.
    x : float
        Point.

    Returns
    -------
    float
        The log density; ``-inf`` outside ``(lower, upper)`` and at NaN, so such a
        proposal is never accepted.
    """
    if not (lower < x < upper):
        return -math.inf
    return logdensity_fn(x, params)


@njit(types.float64(types.float64), cache=True)
def acceptance_probability(log_ratio: float) -> float:
    r"""Return the Metropolis–Hastings acceptance probability :math:`\min(1, e^{\log r})`.

    Seed 001: :math:`a = \min\big(1, \frac{\pi(\theta')\, q(\theta \mid \theta')}
    {\pi(\theta)\, q(\theta' \mid \theta)}\big)`, on the log scale.

    Parameters
    ----------
    log_ratio : float
        :math:`\log r = \log\pi(\theta') - \log\pi(\theta) + \log q(\theta \mid \theta')
        - \log q(\theta' \mid \theta)`.

    Returns
    -------
    float
        The probability in ``[0, 1]``; 0 when ``log_ratio`` is NaN or ``-inf``
        (a proposal outside the support).
    """
    if math.isnan(log_ratio):
        return 0.0
    return math.exp(min(0.0, log_ratio))


@njit(types.float64(types.float64, types.float64, types.int64), cache=True)
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


@njit(
    types.float64(
        _LOGDENSITY, _F64, types.float64, types.float64,
        types.float64, types.float64, _F64, _F64, types.int64, types.boolean,
        _F64, _F64, _F64, _BOOL,
    ),
    cache=True,
)  # fmt: skip
def random_walk_kernel(
    logdensity_fn: LogDensityFn,
    params: np.ndarray,
    lower: float,
    upper: float,
    position: float,
    scale: float,
    normals: np.ndarray,
    uniforms: np.ndarray,
    n_tune: int,
    adapt: bool,
    out_position: np.ndarray,
    out_logdensity: np.ndarray,
    out_acceptance_rate: np.ndarray,
    out_accepted: np.ndarray,
) -> float:
    """Run one random-walk Metropolis chain on pre-drawn random numbers.

    Iteration ``i`` is :func:`mcmc_pairs.handrolled.mh.random_walk_step` with
    ``normals[i]`` and ``uniforms[i]``, then, while ``i < n_tune`` and
    ``adapt``, :func:`update_log_scale`. Iterations ``0 .. n_tune - 1`` are
    discarded; iteration ``n_tune + j`` is written to ``out_*[j]``.

    Parameters
    ----------
    logdensity_fn, params, lower, upper
        The target (see the module docstring).
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
    logdensity = target_logdensity(logdensity_fn, params, lower, upper, position)
    log_scale = math.log(scale)
    for i in range(normals.shape[0]):
        proposal = position + scale * normals[i]
        proposal_logdensity = target_logdensity(logdensity_fn, params, lower, upper, proposal)
        rate = acceptance_probability(proposal_logdensity - logdensity)
        accepted = uniforms[i] < rate
        if accepted:
            position = proposal
            logdensity = proposal_logdensity
        if i < n_tune:
            if adapt:
                log_scale = update_log_scale(log_scale, rate, i + 1)
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
        _LOGDENSITY, _F64, types.float64, types.float64,
        _LOGDENSITY, _F64, types.float64, types.float64,
        types.float64, _F64, _F64, types.int64,
        _F64, _F64, _F64, _BOOL,
    ),
    cache=True,
)  # fmt: skip
def independence_kernel(
    logdensity_fn: LogDensityFn,
    params: np.ndarray,
    lower: float,
    upper: float,
    q_logdensity_fn: LogDensityFn,
    q_params: np.ndarray,
    q_lower: float,
    q_upper: float,
    position: float,
    proposals: np.ndarray,
    uniforms: np.ndarray,
    n_tune: int,
    out_position: np.ndarray,
    out_logdensity: np.ndarray,
    out_acceptance_rate: np.ndarray,
    out_accepted: np.ndarray,
) -> float:
    r"""Run one independence-sampler chain on pre-drawn proposals.

    Iteration ``i`` is :func:`mcmc_pairs.handrolled.mh.independence_step` with
    ``proposals[i]`` and ``uniforms[i]``; iterations ``0 .. n_tune - 1`` are
    discarded, iteration ``n_tune + j`` is written to ``out_*[j]``.

    Parameters
    ----------
    logdensity_fn, params, lower, upper
        The target :math:`\pi` (see the module docstring).
    q_logdensity_fn, q_params, q_lower, q_upper
        The proposal density :math:`q`, described the same way.
    position : float
        Starting point, inside the support.
    proposals : ndarray of float64, shape (n_tune + draws,)
        Proposals ``x' ~ q``, one per iteration.
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
    logdensity = target_logdensity(logdensity_fn, params, lower, upper, position)
    log_q = target_logdensity(q_logdensity_fn, q_params, q_lower, q_upper, position)
    for i in range(proposals.shape[0]):
        proposal = proposals[i]
        proposal_logdensity = target_logdensity(logdensity_fn, params, lower, upper, proposal)
        proposal_log_q = target_logdensity(q_logdensity_fn, q_params, q_lower, q_upper, proposal)
        log_ratio = proposal_logdensity - logdensity + (log_q - proposal_log_q)
        rate = acceptance_probability(log_ratio)
        accepted = uniforms[i] < rate
        if accepted:
            position = proposal
            logdensity = proposal_logdensity
            log_q = proposal_log_q
        if i >= n_tune:
            j = i - n_tune
            out_position[j] = position
            out_logdensity[j] = logdensity
            out_acceptance_rate[j] = rate
            out_accepted[j] = accepted
    return position
