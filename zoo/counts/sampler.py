r"""The pump-failure model by two-block Gibbs sampling, in plain NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code).
Pump ``i`` failed ``y_i`` times in ``t_i`` thousand hours::

    beta     ~ Gamma(g, d)                      (shape, rate)
    lambda_i ~ Gamma(a, beta)                   i = 1 .. n, a fixed
    y_i      ~ Poisson(lambda_i t_i)

Both full conditionals are gamma (Gelfand and Smith 1990):

- ``lambda_i | beta, y ~ Gamma(a + y_i, beta + t_i)``, independently over ``i``
  (:func:`draw_rate_given_beta`);
- ``beta | lambda ~ Gamma(g + n a, d + sum_i lambda_i)``
  (:func:`draw_beta_given_rate`).

One *transition* is :data:`THIN` sweeps; ``tune`` transitions are discarded.
Each chain starts at its own draw of ``beta`` from the prior. ``lambda`` is
reported as ``rate``.

:func:`sample_planted_bug` is the same sampler with one mistake in the
conditional of ``beta`` (:func:`draw_beta_given_rate_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

THIN = 2
"""Gibbs sweeps per kept draw (and per tuning transition)."""


def draw_rate_given_beta(
    rng: np.random.Generator, beta: float, failures: np.ndarray, hours: np.ndarray, a: float
) -> np.ndarray:
    """Draw every pump's failure rate from its gamma full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    beta : float
        Rate parameter of the rates' gamma distribution.
    failures : numpy.ndarray
        Counts ``y``, shape (n,).
    hours : numpy.ndarray
        Exposures ``t``, shape (n,).
    a : float
        Fixed shape of the rates' gamma distribution.

    Returns
    -------
    numpy.ndarray
        ``lambda``, shape (n,): ``Gamma(a + y_i, beta + t_i)``.
    """
    return rng.gamma(a + failures) / (beta + hours)


def draw_beta_given_rate(
    rng: np.random.Generator, rate: np.ndarray, a: float, g: float, d: float
) -> float:
    """Draw ``beta`` from its gamma full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    rate : numpy.ndarray
        ``lambda``, shape (n,).
    a : float
        Fixed shape of the rates' gamma distribution.
    g, d : float
        Shape and rate of the gamma prior of ``beta``.

    Returns
    -------
    float
        ``beta ~ Gamma(g + n a, d + sum(lambda))``.
    """
    return rng.gamma(g + rate.size * a) / (d + rate.sum())


def draw_beta_given_rate_planted_bug(
    rng: np.random.Generator, rate: np.ndarray, a: float, g: float, d: float
) -> float:
    """Draw ``beta`` from a *wrong* conditional (planted bug, for the harness to catch).

    Parameters
    ----------
    rng : numpy.random.Generator
    rate : numpy.ndarray
        ``lambda``, shape (n,).
    a : float
        Fixed shape of the rates' gamma distribution.
    g, d : float
        Shape and rate of the gamma prior of ``beta``.

    Returns
    -------
    float
        ``beta ~ Gamma(g + (n-1) a, d + sum(lambda[1:]))``: pump 0 left out.
    """
    # PLANTED BUG: a loop over pumps "from 1 to n", translated from 1-based
    # pseudo-code, skips the first pump: its rate is left out of both the count
    # of gamma factors and the sum.
    others = rate[1:]
    return rng.gamma(g + others.size * a) / (d + others.sum())


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    draw_beta: Callable[..., float],
) -> dict[str, np.ndarray]:
    """Run the Gibbs sampler with the given ``beta`` step; see :func:`sample`."""
    failures = np.asarray(data["failures"], dtype=float)
    hours = np.asarray(data["hours"], dtype=float)
    a, g, d = float(data["alpha"]), float(data["beta_shape"]), float(data["beta_rate"])
    out = {"beta": np.empty((chains, draws)), "rate": np.empty((chains, draws, failures.size))}
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        beta = rng.gamma(g) / d  # a prior draw: dispersed starts
        for t in range(tune + draws):
            for _ in range(THIN):
                rate = draw_rate_given_beta(rng, beta, failures, hours, a)
                beta = draw_beta(rng, rate, a, g, d)
            if t >= tune:
                out["beta"][c, t - tune], out["rate"][c, t - tune] = beta, rate
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the pump-failure posterior by Gibbs sampling.

    Parameters
    ----------
    data : mapping
        ``failures`` (n,), ``hours`` (n,), ``alpha``, ``beta_shape``,
        ``beta_rate``; read, never modified.
    draws : int
        Kept transitions per chain (each :data:`THIN` sweeps).
    tune : int
        Discarded transitions per chain.
    chains : int
        Independent chains, each with its own random stream.
    random_seed : int or None
        Seed of ``numpy.random.default_rng``; spawned into one stream per chain.

    Returns
    -------
    dict
        ``beta`` (chains, draws), ``rate`` (chains, draws, n).
    """
    return _run_chains(data, draws, tune, chains, random_seed, draw_beta_given_rate)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample like :func:`sample`, but with a planted bug in the ``beta`` step.

    Parameters
    ----------
    data : mapping
        As for :func:`sample`.
    draws, tune, chains : int
        As for :func:`sample`.
    random_seed : int or None
        As for :func:`sample`.

    Returns
    -------
    dict
        As for :func:`sample`.
    """
    return _run_chains(data, draws, tune, chains, random_seed, draw_beta_given_rate_planted_bug)
