r"""The collinear regression by exact iid draws from its Gaussian posterior, in NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code).
With design rows ``X_i = (1, x1_i, x2_i)`` and known noise sd ``sigma``::

    beta ~ N(0, s^2 I)
    y    ~ N(X beta, sigma^2 I)

The normal prior is conjugate: ``beta | y ~ N(m, V)`` with
``V = (X'X / sigma^2 + I / s^2)^-1`` and ``m = V X'y / sigma^2``
(:func:`posterior_moments`). Each draw is ``m + L e`` with ``L L' = V`` the
Cholesky factor and ``e ~ N(0, I)`` (:func:`draw_beta_given_data`): exact and
independent, so no burn-in is needed; ``tune`` draws are made and discarded
only to honour the contract.

:func:`sample_planted_bug` is the same sampler with the prior left out of the
posterior moments (:func:`posterior_moments_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np


def design_matrix(data: Mapping) -> np.ndarray:
    """Return ``X = [1, x1, x2]``.

    Parameters
    ----------
    data : mapping
        ``x1``, ``x2`` (N,).

    Returns
    -------
    numpy.ndarray
        Shape (N, 3).
    """
    x1 = np.asarray(data["x1"], dtype=float)
    return np.column_stack([np.ones_like(x1), x1, np.asarray(data["x2"], dtype=float)])


def posterior_moments(
    design: np.ndarray, y: np.ndarray, sigma: float, prior_sd: float
) -> tuple[np.ndarray, np.ndarray]:
    """Return the posterior mean and covariance of ``beta``.

    Parameters
    ----------
    design : numpy.ndarray
        ``X``, shape (N, K).
    y : numpy.ndarray
        Responses, shape (N,).
    sigma : float
        Known noise sd.
    prior_sd : float
        Prior sd ``s`` of every coefficient (prior mean 0).

    Returns
    -------
    mean : numpy.ndarray
        ``m``, shape (K,).
    covariance : numpy.ndarray
        ``V = (X'X / sigma^2 + I / s^2)^-1``, shape (K, K).
    """
    precision = design.T @ design / sigma**2 + np.eye(design.shape[1]) / prior_sd**2
    covariance = np.linalg.inv(precision)
    return covariance @ design.T @ y / sigma**2, covariance


def posterior_moments_planted_bug(
    design: np.ndarray, y: np.ndarray, sigma: float, prior_sd: float
) -> tuple[np.ndarray, np.ndarray]:
    """Return *wrong* posterior moments (planted bug, for the harness to catch).

    Parameters
    ----------
    design : numpy.ndarray
        ``X``, shape (N, K).
    y : numpy.ndarray
        Responses, shape (N,).
    sigma : float
        Known noise sd.
    prior_sd : float
        Prior sd of every coefficient (ignored: that is the bug).

    Returns
    -------
    mean, covariance : numpy.ndarray
        The least-squares fit and its covariance ``sigma^2 (X'X)^-1``: as under
        a flat prior.
    """
    # PLANTED BUG: the prior precision I / s^2 is left out. Beside X'X / sigma^2
    # it looks negligible, but X'X is nearly singular along beta_1 - beta_2, where
    # the prior is what keeps the posterior narrow.
    covariance = np.linalg.inv(design.T @ design / sigma**2)
    return covariance @ design.T @ y / sigma**2, covariance


def draw_beta_given_data(
    rng: np.random.Generator, mean: np.ndarray, covariance: np.ndarray, size: int
) -> np.ndarray:
    """Draw coefficients from ``N(mean, covariance)``.

    Parameters
    ----------
    rng : numpy.random.Generator
    mean : numpy.ndarray
        Shape (K,).
    covariance : numpy.ndarray
        Shape (K, K), positive definite.
    size : int
        Number of draws.

    Returns
    -------
    numpy.ndarray
        Shape (size, K).
    """
    chol = np.linalg.cholesky(covariance)
    return mean + rng.standard_normal((size, mean.size)) @ chol.T


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    moments: Callable[..., tuple[np.ndarray, np.ndarray]],
) -> dict[str, np.ndarray]:
    """Draw exactly from the given moments; see :func:`sample`."""
    design = design_matrix(data)
    y = np.asarray(data["y"], dtype=float)
    mean, covariance = moments(design, y, float(data["sigma"]), float(data["prior_sd"]))
    out = np.empty((chains, draws, mean.size))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        out[c] = draw_beta_given_data(rng, mean, covariance, tune + draws)[tune:]
    return {"beta": out}


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Draw the regression's posterior exactly (iid).

    Parameters
    ----------
    data : mapping
        ``x1``, ``x2``, ``y`` (N,), ``sigma``, ``prior_sd``; read, never modified.
    draws : int
        Kept draws per chain.
    tune : int
        Draws made and discarded per chain (iid draws need no burn-in).
    chains : int
        Independent chains, each with its own random stream.
    random_seed : int or None
        Seed of ``numpy.random.default_rng``; spawned into one stream per chain.

    Returns
    -------
    dict
        ``beta``, shape (chains, draws, 3).
    """
    return _run_chains(data, draws, tune, chains, random_seed, posterior_moments)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Draw like :func:`sample`, but from moments that leave the prior out.

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
    return _run_chains(data, draws, tune, chains, random_seed, posterior_moments_planted_bug)
