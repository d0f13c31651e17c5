"""Metropolis–Hastings on Beta(2.31, 0.627), as in seed 003's second MH program.

Seed 003's text says the target is Beta(a = 2.37, b = 0.627), but its code uses
``a, b = 2.31, 0.627`` and ``beta(2.31, 0.627)``; the code's numbers are the
default here. Its proposal is the random walk ``N(x, 1)``.

The seed's program starts its chain at ``x = 0``, where this density is 0, so its
first ratio is ``pi(x') / 0``; and it evaluates ``pi`` at proposals outside
``(0, 1)``. Here everything is on the log scale and the target declares its
support (:func:`beta_density`): the log density is ``-inf`` outside the open
interval ``(0, 1)``, so such proposals are always rejected,
and chains start inside the support, at dispersed points ``U(0.01, 0.99)``.

* :func:`sample`: random-walk Metropolis ``x' = x + s * z``, ``s`` starting at
  ``data["proposal_sd"]`` and tuned during ``tune`` only (``adapt=False`` keeps
  the seed's fixed ``s``). With ``s = 1`` most proposals leave ``(0, 1)`` and
  are rejected (acceptance about 0.17); tuning shrinks ``s`` to about 0.25 and
  the acceptance rate to about 0.45. Even so this chain mixes slowly: with
  ``b < 1`` the density is unbounded at 1, and a chain that gets very close to
  1 sticks there (a move from ``x`` to ``x' = x - d`` is accepted with
  probability about ``((1 - x) / d)**(1 - b)``, tiny when ``1 - x << d``).
  About 5 % of its draws are effective in the bulk and 2 to 3 % for the 95 %
  quantile, so 4 chains of 1000 draws give a tail ESS
  near 150 and R-hat up to 1.04. The pair therefore asks for 10 000 draws per
  chain (tail ESS at least 400 in 100 of 100 seeds checked, R-hat below 1.007).
  A random walk on ``logit(x)`` would mix far better (that is what PyMC's
  samplers do); this one stays on the seed's scale on purpose.
* :func:`sample_independence`: proposals from ``q = Beta(min(a, 1), min(b, 1))``
  (Beta(1, 0.627) by default), accepted with ``min(1, pi(x') q(x) / (pi(x) q(x')))``.
  ``q``'s tails are at least as heavy as the target's at both ends, so
  ``pi / q`` is bounded (seed 001 section 6.3 (1)). Uniform(0, 1) would be
  simpler, but its Hastings correction is 1, so it could not show what
  forgetting the correction does.

The target ``pi`` (:func:`target`) and the proposal ``q``
(:func:`proposal_density`) are both :class:`mcmc_pairs.handrolled.mh.Target` descriptions
of one compiled log density, :func:`beta_logdensity`, on the support (0, 1).

The exact answer is known: ``x ~ Beta(a, b)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numba import njit
from scipy.special import betaln

from mcmc_pairs.handrolled import mh
from mcmc_pairs.pairdata.checks import check_sampler_args
from mcmc_pairs.pairdata.mh_beta import validate_data

if TYPE_CHECKING:
    import xarray as xr

START_INTERVAL = (0.01, 0.99)
"""Chains start at ``U(*START_INTERVAL)``: dispersed, inside the support."""


@njit(mh.LOGDENSITY_SIGNATURE, cache=True)
def beta_logdensity(x: float, params: np.ndarray) -> float:
    r"""Log density of a Beta distribution at one point of (0, 1) (seed 003's ``beta.pdf``, logged).

    .. math::

        \log f(x; a, b) = (a - 1)\log x + (b - 1)\log(1 - x)
        + \log\frac{\Gamma(a + b)}{\Gamma(a)\Gamma(b)}

    Only called inside the support: :func:`beta_density` declares it, and
    :func:`mcmc_pairs.handrolled._mh_kernels.target_logdensity` returns ``-inf`` outside.

    Parameters
    ----------
    x : float
        Point in (0, 1).
    params : ndarray of float64, shape (3,)
        ``(a, b, -log B(a, b))``, see :func:`beta_density`.

    Returns
    -------
    float
        ``log Beta(x | a, b)``.
    """
    return (params[0] - 1.0) * math.log(x) + (params[1] - 1.0) * math.log1p(-x) + params[2]


def beta_density(a: float, b: float) -> mh.Target:
    """Describe ``Beta(a, b)`` for the MH steps and kernels: :func:`beta_logdensity` on (0, 1).

    Parameters
    ----------
    a, b : float
        Shape parameters (> 0).

    Returns
    -------
    mcmc_pairs.handrolled.mh.Target
        Support ``(0, 1)``, open: the density is 0 (or infinite) at the ends.
    """
    return mh.Target(beta_logdensity, np.array([a, b, -float(betaln(a, b))]), 0.0, 1.0)


def target(data: Mapping) -> mh.Target:
    """Return the target ``pi = Beta(a, b)``.

    Parameters
    ----------
    data : mapping
        Validated data (``a``, ``b``).

    Returns
    -------
    mcmc_pairs.handrolled.mh.Target
    """
    return beta_density(data["a"], data["b"])


def draw_start(rng: np.random.Generator, data: Mapping) -> float:
    """Draw a dispersed starting point inside the support, ``U(0.01, 0.99)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The chain's generator.
    data : mapping
        Validated data (unused: the start does not depend on ``a``, ``b``).

    Returns
    -------
    float
        Starting point in (0.01, 0.99).
    """
    return float(rng.uniform(*START_INTERVAL))


def sample(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    adapt: bool = True,
    state: dict | None = None,
) -> xr.DataTree:
    """Random-walk Metropolis on Beta(a, b) (seed 003; seed 001 section 6.2).

    Parameters
    ----------
    data : mapping
        ``a``, ``b``, ``proposal_sd`` (the starting proposal sd).
    draws, tune, chains : int
        Kept draws per chain, discarded tuning iterations, number of chains.
    random_seed : int or None
        Seed of the per-chain generators.
    adapt : bool, default True
        Tune the proposal scale during ``tune`` (only); ``False`` keeps
        ``proposal_sd`` throughout, as the seed does.
    state : dict, optional
        Continue chains (:mod:`mcmc_pairs.handrolled._common`): from each chain's last point
        at its frozen scale, on its own stream; a valid continuation, not bit for
        bit one longer run (see :func:`mcmc_pairs.handrolled.mh.sample_random_walk`).

    Returns
    -------
    xarray.DataTree
        ``posterior.x`` (chain, draw) and ``sample_stats`` (``acceptance_rate``,
        ``accepted``, ``lp``, ``proposal_scale``), see :func:`mcmc_pairs.handrolled.mh.to_datatree`.
    """
    data = validate_data(data)
    check_sampler_args(draws, tune, chains, random_seed)
    return mh.sample_random_walk(
        target(data),
        lambda rng: draw_start(rng, data),
        data["proposal_sd"],
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        adapt=adapt,
        state=state,
        sampler="mcmc_pairs.handrolled.mh_beta:sample",
    )


def proposal_params(data: Mapping) -> tuple[float, float]:
    """Parameters of the independence proposal ``q = Beta(min(a, 1), min(b, 1))``.

    Parameters
    ----------
    data : mapping
        Validated data.

    Returns
    -------
    tuple of float
        ``(min(a, 1), min(b, 1))``.
    """
    return min(data["a"], 1.0), min(data["b"], 1.0)


def proposal_density(data: Mapping) -> mh.Target:
    """Return the independence proposal's density ``q = Beta(min(a, 1), min(b, 1))``.

    Parameters
    ----------
    data : mapping
        Validated data.

    Returns
    -------
    mcmc_pairs.handrolled.mh.Target
    """
    return beta_density(*proposal_params(data))


def draw_proposals(rng: np.random.Generator, n: int, data: Mapping) -> np.ndarray:
    """Draw ``n`` independence proposals from ``q``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The chain's generator.
    n : int
        Number of proposals.
    data : mapping
        Validated data.

    Returns
    -------
    ndarray, shape (n,)
        Proposals in [0, 1] (an endpoint, possible in floating point, has log
        density ``-inf`` and is rejected).
    """
    return rng.beta(*proposal_params(data), size=n)


def sample_independence(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
) -> xr.DataTree:
    """Independence sampler on Beta(a, b) (seed 001 section 6.3).

    Proposals come from ``q = Beta(min(a, 1), min(b, 1))`` whatever the current
    point, accepted with ``min(1, pi(x') q(x) / (pi(x) q(x')))``: the Hastings
    correction ``q(x) / q(x')`` is kept. ``proposal_sd`` is not used.

    Parameters
    ----------
    data : mapping
        ``a``, ``b``, ``proposal_sd`` (validated, unused).
    draws, tune, chains : int
        Kept draws per chain, discarded iterations, number of chains.
    random_seed : int or None
        Seed of the per-chain generators.
    state : dict, optional
        Continue chains (:mod:`mcmc_pairs.handrolled._common`): from each chain's last point,
        on its own stream; a valid continuation, not bit for bit one longer run
        (see :func:`mcmc_pairs.handrolled.mh.sample_independence`).

    Returns
    -------
    xarray.DataTree
        As :func:`sample`; ``proposal_scale`` is NaN.
    """
    data = validate_data(data)
    check_sampler_args(draws, tune, chains, random_seed)
    return mh.sample_independence(
        target(data),
        proposal_density(data),
        lambda rng: draw_start(rng, data),
        lambda rng, n: draw_proposals(rng, n, data),
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        state=state,
        sampler="mcmc_pairs.handrolled.mh_beta:sample_independence",
    )
