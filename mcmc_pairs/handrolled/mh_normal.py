"""Metropolis–Hastings on Normal(10, 5), as in seed 003's first MH program.

Seed 003 targets a normal distribution with mean 10 and standard deviation 5
with a random-walk proposal ``N(x, 1)`` (``sigma = 1`` in its code) and accepts
with ``min(1, pi(x') / pi(x))``; seed 001 section 6.3 adds the independence
sampler. Both are here, on the log scale:

* :func:`sample`: random-walk Metropolis, proposal ``x' = x + s * z``. The seed's
  ``s = 1`` (``data["proposal_sd"]``) is a fifth of the target's sd: the
  acceptance rate is about 0.94, far above the seed's advice of 0.15 to 0.5, and
  the chain crawls (about 1 % effective draws per draw: 4 chains of 1000 draws
  give a bulk ESS of 20 to 60 and R-hat up to 1.2). So by default the scale
  starts at ``proposal_sd`` and is tuned during ``tune`` only (see
  :mod:`mcmc_pairs.handrolled.mh`); it settles near ``2.4 * sigma`` (about 12) with an
  acceptance rate near 0.44 and about 20 % effective draws per draw.
  ``adapt=False`` keeps the seed's fixed scale.
* :func:`sample_independence`: proposals ``x' ~ q = N(mu, 2 sigma)``, independent
  of ``x``, accepted with ``min(1, pi(x') q(x) / (pi(x) q(x')))``. The proposal
  is wider than the target, so ``pi / q`` is bounded and the sampler is
  uniformly ergodic (seed 001 section 6.3 (1): the proposal's tails must be
  heavier than the target's).

The target ``pi`` (:func:`target`) and the proposal ``q``
(:func:`proposal_density`) are both :class:`mcmc_pairs.handrolled.mh.Target` descriptions
of one compiled log density, :func:`normal_logdensity`, which the teaching
steps of :mod:`mcmc_pairs.handrolled.mh` and the compiled chains share.

The exact answer is known: ``x ~ Normal(mu, sigma)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from mcmc_pairs.handrolled import mh
from mcmc_pairs.pairdata.checks import check_sampler_args
from mcmc_pairs.pairdata.mh_normal import validate_data

if TYPE_CHECKING:
    import xarray as xr

INDEPENDENCE_WIDTH = 2.0
"""The independence proposal is ``N(mu, INDEPENDENCE_WIDTH * sigma)``."""

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@njit(mh.LOGDENSITY_SIGNATURE, cache=True)
def normal_logdensity(x: float, params: np.ndarray) -> float:
    r"""Log density of a normal distribution at one point (seed 003's ``norm.pdf``, logged).

    .. math::

        \log f(x) = -\frac{(x - \mu)^2}{2\sigma^2} - \log(\sqrt{2\pi}\,\sigma)

    Parameters
    ----------
    x : float
        Point.
    params : ndarray of float64, shape (3,)
        ``(mu, sigma, -log(sqrt(2 pi) sigma))``, see :func:`normal_density`.

    Returns
    -------
    float
        ``log N(x | mu, sigma)``.
    """
    z = (x - params[0]) / params[1]
    return -0.5 * z * z + params[2]


def normal_density(mu: float, sigma: float) -> mh.Target:
    """Describe ``N(mu, sigma)`` for the MH steps and kernels: :func:`normal_logdensity` on R.

    Parameters
    ----------
    mu, sigma : float
        Mean and standard deviation (> 0).

    Returns
    -------
    mcmc_pairs.handrolled.mh.Target
        Support ``(-inf, inf)``.
    """
    return mh.Target(normal_logdensity, np.array([mu, sigma, -math.log(sigma) - _LOG_SQRT_2PI]))


def target(data: Mapping) -> mh.Target:
    """Return the target ``pi = N(mu, sigma)``.

    Parameters
    ----------
    data : mapping
        Validated data (``mu``, ``sigma``).

    Returns
    -------
    mcmc_pairs.handrolled.mh.Target
    """
    return normal_density(data["mu"], data["sigma"])


def proposal_density(data: Mapping) -> mh.Target:
    """Return the independence proposal's density ``q = N(mu, 2 sigma)``, wider than the target.

    Parameters
    ----------
    data : mapping
        Validated data (``mu``, ``sigma``).

    Returns
    -------
    mcmc_pairs.handrolled.mh.Target
    """
    return normal_density(data["mu"], INDEPENDENCE_WIDTH * data["sigma"])


def draw_start(rng: np.random.Generator, data: Mapping) -> float:
    """Draw a dispersed starting point, ``N(mu, 2 sigma)`` (wider than the target).

    Parameters
    ----------
    rng : numpy.random.Generator
        The chain's generator.
    data : mapping
        Validated data.

    Returns
    -------
    float
        Starting point.
    """
    return float(rng.normal(data["mu"], 2.0 * data["sigma"]))


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
    """Random-walk Metropolis on Normal(mu, sigma) (seed 003; seed 001 section 6.2).

    Parameters
    ----------
    data : mapping
        ``mu``, ``sigma``, ``proposal_sd`` (the starting proposal sd).
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
        sampler="mcmc_pairs.handrolled.mh_normal:sample",
    )


def draw_proposals(rng: np.random.Generator, n: int, data: Mapping) -> np.ndarray:
    """Draw ``n`` independence proposals from ``q = N(mu, 2 sigma)``.

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
        Proposals.
    """
    return rng.normal(data["mu"], INDEPENDENCE_WIDTH * data["sigma"], size=n)


def sample_independence(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    state: dict | None = None,
) -> xr.DataTree:
    """Independence sampler on Normal(mu, sigma) (seed 001 section 6.3).

    Proposals come from ``q = N(mu, 2 sigma)`` whatever the current point, and
    are accepted with ``min(1, pi(x') q(x) / (pi(x) q(x')))``: the Hastings
    correction ``q(x) / q(x')`` is kept. ``proposal_sd`` is not used.

    Parameters
    ----------
    data : mapping
        ``mu``, ``sigma``, ``proposal_sd`` (validated, unused).
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
        sampler="mcmc_pairs.handrolled.mh_normal:sample_independence",
    )
