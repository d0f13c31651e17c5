r"""The 60-group hierarchical normal model by Gibbs sampling, in plain NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code).
Observation ``i`` is in group ``g[i]``; group ``j`` has ``n_j`` observations::

    mu      ~ N(m, s^2)
    tau2    ~ InvGamma(a_t, b_t)                (shape, scale)
    sigma2  ~ InvGamma(a_s, b_s)
    theta_j ~ N(mu, tau2)                       j = 1 .. J
    y_i     ~ N(theta_{g[i]}, sigma2)

Every full conditional is standard:

- ``theta_j | rest ~ N(v_j (S_j / sigma2 + mu / tau2), v_j)`` with
  ``1/v_j = n_j / sigma2 + 1/tau2`` and ``S_j`` the sum of group j's data,
  independently over ``j`` (:func:`draw_theta_given_rest`);
- ``mu | rest ~ N(v (sum_j theta_j / tau2 + m / s^2), v)`` with
  ``1/v = J / tau2 + 1/s^2`` (:func:`draw_mu_given_rest`);
- ``tau2 | rest ~ InvGamma(a_t + J/2, b_t + sum_j (theta_j - mu)^2 / 2)``
  (:func:`draw_tau2_given_rest`);
- ``sigma2 | rest ~ InvGamma(a_s + N/2, b_s + sum_i (y_i - theta_{g[i]})^2 / 2)``
  (:func:`draw_sigma2_given_rest`).

One *transition* is :data:`THIN` sweeps (theta, mu, tau2, sigma2); ``tune``
transitions are discarded. Each chain starts from its own prior draw of the
variances and at the data's grand mean plus noise for the rest.

:func:`sample_planted_bug` is the same sampler with one mistake in the
conditional of ``tau2`` (:func:`draw_tau2_given_rest_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

THIN = 3
"""Gibbs sweeps per kept draw (and per tuning transition)."""


def draw_theta_given_rest(
    rng: np.random.Generator,
    group_sums: np.ndarray,
    group_sizes: np.ndarray,
    mu: float,
    tau2: float,
    sigma2: float,
) -> np.ndarray:
    """Draw every group mean from its normal full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    group_sums, group_sizes : numpy.ndarray
        ``S_j`` and ``n_j``, shape (J,).
    mu, tau2 : float
        Population mean and variance.
    sigma2 : float
        Observation variance.

    Returns
    -------
    numpy.ndarray
        ``theta``, shape (J,).
    """
    precision = group_sizes / sigma2 + 1.0 / tau2
    mean = (group_sums / sigma2 + mu / tau2) / precision
    return mean + rng.standard_normal(mean.shape) / np.sqrt(precision)


def draw_mu_given_rest(
    rng: np.random.Generator, theta: np.ndarray, tau2: float, m: float, s: float
) -> float:
    """Draw the population mean from its normal full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    theta : numpy.ndarray
        Group means, shape (J,).
    tau2 : float
        Population variance.
    m, s : float
        Prior mean and standard deviation of ``mu``.

    Returns
    -------
    float
        ``mu``.
    """
    precision = theta.size / tau2 + 1.0 / s**2
    mean = (theta.sum() / tau2 + m / s**2) / precision
    return mean + rng.standard_normal() / np.sqrt(precision)


def draw_tau2_given_rest(
    rng: np.random.Generator, theta: np.ndarray, mu: float, a_t: float, b_t: float
) -> float:
    """Draw the population variance from its inverse-gamma full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    theta : numpy.ndarray
        Group means, shape (J,).
    mu : float
        Population mean.
    a_t, b_t : float
        Shape and scale of the inverse-gamma prior of ``tau2``.

    Returns
    -------
    float
        ``tau2 ~ InvGamma(a_t + J/2, b_t + sum((theta - mu)^2) / 2)``.
    """
    return (b_t + 0.5 * np.sum((theta - mu) ** 2)) / rng.gamma(a_t + 0.5 * theta.size)


def draw_tau2_given_rest_planted_bug(
    rng: np.random.Generator, theta: np.ndarray, mu: float, a_t: float, b_t: float
) -> float:
    """Draw ``tau2`` from a *wrong* conditional (planted bug, for the harness to catch).

    Parameters
    ----------
    rng : numpy.random.Generator
    theta : numpy.ndarray
        Group means, shape (J,).
    mu : float
        Population mean.
    a_t, b_t : float
        Shape and scale of the inverse-gamma prior of ``tau2``.

    Returns
    -------
    float
        ``tau2 ~ InvGamma(b_t + J/2, a_t + sum((theta - mu)^2) / 2)``: wrong.
    """
    # PLANTED BUG: the prior's shape and scale are swapped (a_t = 2.5, b_t = 2 in
    # the shipped data). Against 60 groups the prior looks negligible, but the
    # smaller shape and larger scale both inflate tau2.
    return (a_t + 0.5 * np.sum((theta - mu) ** 2)) / rng.gamma(b_t + 0.5 * theta.size)


def draw_sigma2_given_rest(
    rng: np.random.Generator,
    y: np.ndarray,
    group: np.ndarray,
    theta: np.ndarray,
    a_s: float,
    b_s: float,
) -> float:
    """Draw the observation variance from its inverse-gamma full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (N,).
    group : numpy.ndarray
        Group of each observation, shape (N,).
    theta : numpy.ndarray
        Group means, shape (J,).
    a_s, b_s : float
        Shape and scale of the inverse-gamma prior of ``sigma2``.

    Returns
    -------
    float
        ``sigma2 ~ InvGamma(a_s + N/2, b_s + sum((y - theta[g])^2) / 2)``.
    """
    return (b_s + 0.5 * np.sum((y - theta[group]) ** 2)) / rng.gamma(a_s + 0.5 * y.size)


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    draw_tau2: Callable[..., float],
) -> dict[str, np.ndarray]:
    """Run the Gibbs sampler with the given ``tau2`` step; see :func:`sample`."""
    y = np.asarray(data["y"], dtype=float).copy()
    group = np.asarray(data["group"], dtype=np.int64)
    n_groups = int(data["n_groups"])
    m, s = float(data["mu_prior_mean"]), float(data["mu_prior_sd"])
    a_t, b_t = float(data["tau2_alpha"]), float(data["tau2_beta"])
    a_s, b_s = float(data["sigma2_alpha"]), float(data["sigma2_beta"])
    sums = np.bincount(group, weights=y, minlength=n_groups)
    sizes = np.bincount(group, minlength=n_groups).astype(float)
    out = {
        "mu": np.empty((chains, draws)),
        "tau2": np.empty((chains, draws)),
        "sigma2": np.empty((chains, draws)),
        "theta": np.empty((chains, draws, n_groups)),
    }
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        tau2, sigma2 = b_t / rng.gamma(a_t), b_s / rng.gamma(a_s)  # prior draws
        mu = y.mean() + y.std() * rng.standard_normal()  # dispersed around the data
        for t in range(tune + draws):
            for _ in range(THIN):
                theta = draw_theta_given_rest(rng, sums, sizes, mu, tau2, sigma2)
                mu = draw_mu_given_rest(rng, theta, tau2, m, s)
                tau2 = draw_tau2(rng, theta, mu, a_t, b_t)
                sigma2 = draw_sigma2_given_rest(rng, y, group, theta, a_s, b_s)
            if t >= tune:
                k = t - tune
                out["mu"][c, k], out["tau2"][c, k], out["sigma2"][c, k] = mu, tau2, sigma2
                out["theta"][c, k] = theta
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the hierarchical normal posterior by Gibbs sampling.

    Parameters
    ----------
    data : mapping
        ``y`` (N,), ``group`` (N,), ``n_groups`` and the priors' ``mu_prior_mean``,
        ``mu_prior_sd``, ``tau2_alpha``, ``tau2_beta``, ``sigma2_alpha``,
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
        ``mu``, ``tau2``, ``sigma2`` (chains, draws); ``theta`` (chains, draws, J).
    """
    return _run_chains(data, draws, tune, chains, random_seed, draw_tau2_given_rest)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample like :func:`sample`, but with a planted bug in the ``tau2`` step.

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
    return _run_chains(data, draws, tune, chains, random_seed, draw_tau2_given_rest_planted_bug)
