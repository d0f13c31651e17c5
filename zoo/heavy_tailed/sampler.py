r"""The Student-t model by Gibbs sampling through the normal scale mixture, in NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code)::

    mu     ~ N(m, s^2)
    sigma2 ~ InvGamma(a, b)                     (shape, scale)
    y_i    ~ StudentT(nu, mu, sqrt(sigma2))     nu fixed

A Student-t variate is a normal whose precision is scaled by a gamma variate:
with a latent weight ``lambda_i ~ Gamma(nu/2, rate nu/2)`` and
``y_i | lambda_i ~ N(mu, sigma2 / lambda_i)``, integrating ``lambda_i`` out
gives back the t likelihood. Every full conditional is then standard:

- ``lambda_i | rest ~ Gamma((nu + 1)/2, rate (nu + (y_i - mu)^2 / sigma2) / 2)``,
  independently over ``i`` (:func:`draw_lambda_given_rest`): an outlier gets a
  small weight;
- ``mu | rest ~ N(v (sum_i lambda_i y_i / sigma2 + m / s^2), v)`` with
  ``1/v = sum_i lambda_i / sigma2 + 1/s^2`` (:func:`draw_mu_given_rest`);
- ``sigma2 | rest ~ InvGamma(a + n/2, b + sum_i lambda_i (y_i - mu)^2 / 2)``
  (:func:`draw_sigma2_given_rest`).

One *transition* is :data:`THIN` sweeps; ``tune`` transitions are discarded.
The weights are auxiliary and are not reported. Each chain starts at its own
draw of ``sigma2`` from the prior and ``mu`` at the data's median plus noise.

:func:`sample_planted_bug` is the same sampler with one mistake in the
conditional of ``sigma2`` (:func:`draw_sigma2_given_rest_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

THIN = 2
"""Gibbs sweeps per kept draw (and per tuning transition)."""


def draw_lambda_given_rest(
    rng: np.random.Generator, y: np.ndarray, mu: float, sigma2: float, nu: float
) -> np.ndarray:
    """Draw every observation's latent precision weight from its gamma conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (n,).
    mu : float
        Location.
    sigma2 : float
        Squared scale.
    nu : float
        Degrees of freedom.

    Returns
    -------
    numpy.ndarray
        ``lambda``, shape (n,).
    """
    rate = 0.5 * (nu + (y - mu) ** 2 / sigma2)
    return rng.gamma(0.5 * (nu + 1.0), size=y.shape) / rate


def draw_mu_given_rest(
    rng: np.random.Generator,
    y: np.ndarray,
    weights: np.ndarray,
    sigma2: float,
    m: float,
    s: float,
) -> float:
    """Draw the location from its normal full conditional (a weighted mean).

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (n,).
    weights : numpy.ndarray
        ``lambda``, shape (n,).
    sigma2 : float
        Squared scale.
    m, s : float
        Prior mean and sd of ``mu``.

    Returns
    -------
    float
        ``mu``.
    """
    precision = weights.sum() / sigma2 + 1.0 / s**2
    mean = (np.dot(weights, y) / sigma2 + m / s**2) / precision
    return mean + rng.standard_normal() / np.sqrt(precision)


def draw_sigma2_given_rest(
    rng: np.random.Generator, y: np.ndarray, weights: np.ndarray, mu: float, a: float, b: float
) -> float:
    """Draw the squared scale from its inverse-gamma full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (n,).
    weights : numpy.ndarray
        ``lambda``, shape (n,).
    mu : float
        Location.
    a, b : float
        Shape and scale of the inverse-gamma prior.

    Returns
    -------
    float
        ``sigma2 ~ InvGamma(a + n/2, b + sum(lambda (y - mu)^2) / 2)``.
    """
    scale = b + 0.5 * np.dot(weights, (y - mu) ** 2)
    return scale / rng.gamma(a + 0.5 * y.size)


def draw_sigma2_given_rest_planted_bug(
    rng: np.random.Generator, y: np.ndarray, weights: np.ndarray, mu: float, a: float, b: float
) -> float:
    """Draw ``sigma2`` from a *wrong* conditional (planted bug, for the harness to catch).

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (n,).
    weights : numpy.ndarray
        ``lambda``, shape (n,).
    mu : float
        Location.
    a, b : float
        Shape and scale of the inverse-gamma prior.

    Returns
    -------
    float
        ``sigma2 ~ InvGamma(a + (n - 2)/2, ...)``: the shape one too small.
    """
    scale = b + 0.5 * np.dot(weights, (y - mu) ** 2)
    # PLANTED BUG: off by one in the shape, a + n/2 - 1 instead of a + n/2 (the
    # "- 1" of the inverse-gamma's mean b / (a - 1) carried into the shape).
    return scale / rng.gamma(a + 0.5 * y.size - 1.0)


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    draw_sigma2: Callable[..., float],
) -> dict[str, np.ndarray]:
    """Run the Gibbs sampler with the given ``sigma2`` step; see :func:`sample`."""
    y = np.asarray(data["y"], dtype=float).copy()
    nu = float(data["nu"])
    m, s = float(data["mu_prior_mean"]), float(data["mu_prior_sd"])
    a, b = float(data["sigma2_alpha"]), float(data["sigma2_beta"])
    out = {"mu": np.empty((chains, draws)), "sigma2": np.empty((chains, draws))}
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        sigma2 = b / rng.gamma(a)  # a prior draw
        mu = np.median(y) + np.sqrt(sigma2) * rng.standard_normal()
        for t in range(tune + draws):
            for _ in range(THIN):
                weights = draw_lambda_given_rest(rng, y, mu, sigma2, nu)
                mu = draw_mu_given_rest(rng, y, weights, sigma2, m, s)
                sigma2 = draw_sigma2(rng, y, weights, mu, a, b)
            if t >= tune:
                out["mu"][c, t - tune], out["sigma2"][c, t - tune] = mu, sigma2
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the Student-t posterior by Gibbs sampling with latent weights.

    Parameters
    ----------
    data : mapping
        ``y`` (n,), ``nu``, ``mu_prior_mean``, ``mu_prior_sd``, ``sigma2_alpha``,
        ``sigma2_beta``; read, never modified.
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
        ``mu`` and ``sigma2``, each (chains, draws). The weights are not returned.
    """
    return _run_chains(data, draws, tune, chains, random_seed, draw_sigma2_given_rest)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample like :func:`sample`, but with a planted bug in the ``sigma2`` step.

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
    return _run_chains(data, draws, tune, chains, random_seed, draw_sigma2_given_rest_planted_bug)
