r"""Eight schools: a Gibbs sampler over the full conditionals, in plain NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code)::

    mu      ~ N(0, mu_sd^2)
    tau2    ~ InvGamma(a, b)                       a = tau2_alpha, b = tau2_beta
    theta_j ~ N(mu, tau2)                          j = 1 .. J
    y_j     ~ N(theta_j, sigma_j^2)                sigma_j known

Every full conditional is a standard distribution:

- ``theta_j | rest ~ N(m_j, v_j)`` with ``1/v_j = 1/sigma_j^2 + 1/tau2`` and
  ``m_j = v_j (y_j/sigma_j^2 + mu/tau2)``, independently over ``j``
  (:func:`draw_theta_given_rest`);
- ``mu | rest ~ N(m, v)`` with ``1/v = J/tau2 + 1/mu_sd^2`` and
  ``m = v sum_j theta_j / tau2`` (:func:`draw_mu_given_rest`);
- ``tau2 | rest ~ InvGamma(a + J/2, b + sum_j (theta_j - mu)^2 / 2)``
  (:func:`draw_tau2_given_rest`).

One *transition* is :data:`THIN` Gibbs sweeps (theta, then mu, then tau2); the
sampler runs ``tune`` transitions, discards them, and keeps ``draws``. The
centred parametrisation couples ``mu`` and ``theta`` through ``tau2``, so one
sweep leaves the draws autocorrelated; thinning inside the sampler makes the
kept draws nearly independent at a small cost (a sweep is a few microseconds).

:func:`sample_planted_bug` is the same sampler with one deliberate mistake in
the conditional of ``tau2`` (:func:`draw_tau2_given_rest_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

THIN = 4
"""Gibbs sweeps per kept draw (and per tuning transition)."""

VARIABLES = ("mu", "tau2", "theta")
"""The model's free variables, in the order they are reported."""


def draw_theta_given_rest(
    rng: np.random.Generator,
    mu: float,
    tau2: float,
    y: np.ndarray,
    sigma2: np.ndarray,
) -> np.ndarray:
    """Draw the school effects from their full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    mu : float
        Population mean.
    tau2 : float
        Population variance.
    y : numpy.ndarray
        Estimated effects, shape (J,).
    sigma2 : numpy.ndarray
        Squared standard errors of ``y``, shape (J,).

    Returns
    -------
    numpy.ndarray
        ``theta``, shape (J,).
    """
    precision = 1.0 / sigma2 + 1.0 / tau2
    mean = (y / sigma2 + mu / tau2) / precision
    return mean + rng.standard_normal(y.shape) / np.sqrt(precision)


def draw_mu_given_rest(
    rng: np.random.Generator, theta: np.ndarray, tau2: float, mu_sd: float
) -> float:
    """Draw the population mean from its full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    theta : numpy.ndarray
        School effects, shape (J,).
    tau2 : float
        Population variance.
    mu_sd : float
        Prior standard deviation of ``mu`` (prior mean 0).

    Returns
    -------
    float
        ``mu``.
    """
    precision = theta.size / tau2 + 1.0 / mu_sd**2
    mean = theta.sum() / tau2 / precision
    return mean + rng.standard_normal() / np.sqrt(precision)


def draw_tau2_given_rest(
    rng: np.random.Generator, theta: np.ndarray, mu: float, alpha: float, beta: float
) -> float:
    """Draw the population variance from its inverse-gamma full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    theta : numpy.ndarray
        School effects, shape (J,).
    mu : float
        Population mean.
    alpha, beta : float
        Shape and scale of the inverse-gamma prior of ``tau2``.

    Returns
    -------
    float
        ``tau2 ~ InvGamma(alpha + J/2, beta + sum((theta - mu)^2) / 2)``.
    """
    shape = alpha + theta.size / 2.0
    scale = beta + 0.5 * np.sum((theta - mu) ** 2)
    return scale / rng.gamma(shape)  # 1/Gamma(shape, rate=scale) is InvGamma(shape, scale)


def draw_tau2_given_rest_planted_bug(
    rng: np.random.Generator, theta: np.ndarray, mu: float, alpha: float, beta: float
) -> float:
    """Draw ``tau2`` from a *wrong* conditional (planted bug, for the harness to catch).

    Parameters
    ----------
    rng : numpy.random.Generator
    theta : numpy.ndarray
        School effects, shape (J,).
    mu : float
        Population mean.
    alpha, beta : float
        Shape and scale of the inverse-gamma prior of ``tau2``.

    Returns
    -------
    float
        ``tau2 ~ InvGamma(alpha + J/2, beta + sum((theta - mu)^2))``: wrong.
    """
    shape = alpha + theta.size / 2.0
    # PLANTED BUG: the sum of squares lacks its factor 1/2 (the normal density is
    # exp(-SS / (2 tau2)), so the scale must be beta + SS/2). The wrong scale
    # inflates tau2 and, through it, the spread of theta.
    scale = beta + np.sum((theta - mu) ** 2)
    return scale / rng.gamma(shape)


def draw_from_prior(rng: np.random.Generator, j: int, hyper: Mapping) -> dict[str, np.ndarray]:
    """Draw a starting point from the prior (dispersed over chains).

    Parameters
    ----------
    rng : numpy.random.Generator
    j : int
        Number of schools.
    hyper : mapping
        ``mu_sd``, ``alpha``, ``beta``.

    Returns
    -------
    dict
        ``mu`` (), ``tau2`` (), ``theta`` (J,).
    """
    mu = hyper["mu_sd"] * rng.standard_normal()
    tau2 = hyper["beta"] / rng.gamma(hyper["alpha"])
    theta = mu + np.sqrt(tau2) * rng.standard_normal(j)
    return {"mu": np.float64(mu), "tau2": np.float64(tau2), "theta": theta}


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    initial: Mapping[str, np.ndarray] | None,
    draw_tau2: Callable[..., float],
) -> dict[str, np.ndarray]:
    """Run the Gibbs sampler with the given ``tau2`` step; see :func:`sample`."""
    y = np.asarray(data["y"], dtype=float).copy()
    sigma2 = np.asarray(data["sigma"], dtype=float) ** 2
    hyper = {
        "mu_sd": float(data["mu_sd"]),
        "alpha": float(data["tau2_alpha"]),
        "beta": float(data["tau2_beta"]),
    }
    j = y.size
    out = {
        "mu": np.empty((chains, draws)),
        "tau2": np.empty((chains, draws)),
        "theta": np.empty((chains, draws, j)),
    }
    rngs = np.random.default_rng(random_seed).spawn(chains)
    for c, rng in enumerate(rngs):
        if initial is None:
            start = draw_from_prior(rng, j, hyper)
        else:
            start = {k: np.asarray(initial[k], dtype=float).copy() for k in VARIABLES}
        mu, tau2 = float(start["mu"]), float(start["tau2"])
        theta = start["theta"].reshape(j)
        for t in range(tune + draws):
            for _ in range(THIN):
                theta = draw_theta_given_rest(rng, mu, tau2, y, sigma2)
                mu = draw_mu_given_rest(rng, theta, tau2, hyper["mu_sd"])
                tau2 = draw_tau2(rng, theta, mu, hyper["alpha"], hyper["beta"])
            if t >= tune:
                out["mu"][c, t - tune] = mu
                out["tau2"][c, t - tune] = tau2
                out["theta"][c, t - tune] = theta
    return out


def sample(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    initial: Mapping[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Sample the eight-schools posterior by Gibbs sampling.

    Parameters
    ----------
    data : mapping
        ``y`` (J,), ``sigma`` (J,), ``mu_sd``, ``tau2_alpha``, ``tau2_beta``;
        read, never modified.
    draws : int
        Kept transitions per chain (each :data:`THIN` sweeps).
    tune : int
        Discarded transitions per chain, before the kept ones.
    chains : int
        Independent chains, each with its own random stream.
    random_seed : int or None
        Seed of ``numpy.random.default_rng``; spawned into one stream per chain.
    initial : mapping, optional
        ``mu``, ``tau2``, ``theta``: start every chain there. By default each
        chain starts at its own draw from the prior.

    Returns
    -------
    dict
        ``mu`` (chains, draws), ``tau2`` (chains, draws), ``theta`` (chains, draws, J).
    """
    return _run_chains(data, draws, tune, chains, random_seed, initial, draw_tau2_given_rest)


def sample_planted_bug(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    initial: Mapping[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Sample like :func:`sample`, but with a planted bug in the ``tau2`` step.

    The conditional of ``tau2`` drops the 1/2 in front of the sum of squares
    (:func:`draw_tau2_given_rest_planted_bug`); the harness should report that
    this sampler disagrees with the PyMC model.

    Parameters
    ----------
    data : mapping
        As for :func:`sample`.
    draws, tune, chains : int
        As for :func:`sample`.
    random_seed : int or None
        As for :func:`sample`.
    initial : mapping, optional
        As for :func:`sample`.

    Returns
    -------
    dict
        As for :func:`sample`.
    """
    return _run_chains(
        data, draws, tune, chains, random_seed, initial, draw_tau2_given_rest_planted_bug
    )
