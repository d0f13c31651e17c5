r"""The plant-growth regression by exact iid draws (normal-inverse-gamma), in NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code).
With design rows ``X_i = (1, dose_i, light_i)`` and ``g = PRIOR_SCALE``::

    sigma2 ~ InvGamma(a, b)                     (shape, scale)
    beta   ~ N(0, g^2 sigma2 I)
    y      ~ N(X beta, sigma2 I)

The prior is conjugate (normal-inverse-gamma), so the posterior is exactly
(:func:`posterior_parameters`)::

    sigma2 | y       ~ InvGamma(a + N/2, b + (y'y - m' P m) / 2)
    beta | sigma2, y ~ N(m, sigma2 P^-1)

with ``P = X'X + I/g^2`` and ``m = P^-1 X'y``. Every draw is exact and
independent: ``sigma2`` from its marginal (:func:`draw_sigma2_given_data`),
then ``beta`` given it (:func:`draw_beta_given_sigma2`). No burn-in is needed;
``tune`` draws are made and discarded only to honour the contract. The
model's deterministics (``sigma``, ``expected_growth``) are functions of these
two and are not returned.

:func:`sample_planted_bug` is the same sampler with one mistake in the shape
of ``sigma2``'s posterior (:func:`posterior_parameters_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

SIGMA2_ALPHA = 2.0
"""Shape ``a`` of the inverse-gamma prior of ``sigma2``."""
SIGMA2_BETA = 2.0
"""Scale ``b`` of the inverse-gamma prior of ``sigma2``."""
PRIOR_SCALE = 10.0
"""``g``: the prior sd of every coefficient in units of ``sqrt(sigma2)``."""


def posterior_parameters(
    design: np.ndarray, y: np.ndarray, a: float, b: float, g: float
) -> tuple[float, float, np.ndarray, np.ndarray]:
    """Return the normal-inverse-gamma posterior's parameters.

    Parameters
    ----------
    design : numpy.ndarray
        ``X``, shape (N, K).
    y : numpy.ndarray
        Responses, shape (N,).
    a, b : float
        Shape and scale of the inverse-gamma prior of ``sigma2``.
    g : float
        Prior sd of the coefficients in units of ``sqrt(sigma2)``.

    Returns
    -------
    shape, scale : float
        Of ``sigma2 | y ~ InvGamma(shape, scale)``.
    mean : numpy.ndarray
        ``m``, shape (K,).
    chol_cov : numpy.ndarray
        Lower Cholesky factor of ``P^-1``, shape (K, K):
        ``beta | sigma2, y ~ N(m, sigma2 P^-1)``.
    """
    precision = design.T @ design + np.eye(design.shape[1]) / g**2
    cov = np.linalg.inv(precision)
    mean = cov @ design.T @ y
    shape = a + 0.5 * y.size
    scale = b + 0.5 * (y @ y - mean @ precision @ mean)
    return shape, scale, mean, np.linalg.cholesky(cov)


def posterior_parameters_planted_bug(
    design: np.ndarray, y: np.ndarray, a: float, b: float, g: float
) -> tuple[float, float, np.ndarray, np.ndarray]:
    """Return *wrong* posterior parameters (planted bug, for the harness to catch).

    Parameters
    ----------
    design : numpy.ndarray
        ``X``, shape (N, K).
    y : numpy.ndarray
        Responses, shape (N,).
    a, b : float
        Shape and scale of the inverse-gamma prior of ``sigma2``.
    g : float
        Prior sd of the coefficients in units of ``sqrt(sigma2)``.

    Returns
    -------
    shape, scale, mean, chol_cov
        As :func:`posterior_parameters`, but ``shape = a + (N - K)/2``.
    """
    shape, scale, mean, chol = posterior_parameters(design, y, a, b, g)
    # PLANTED BUG: the classical residual degrees of freedom N - K carried over
    # from least squares. In the Bayesian posterior the coefficients are
    # integrated against their proper prior and cost no degrees of freedom:
    # the shape is a + N/2.
    shape = a + 0.5 * (y.size - design.shape[1])
    return shape, scale, mean, chol


def draw_sigma2_given_data(
    rng: np.random.Generator, shape: float, scale: float, size: int
) -> np.ndarray:
    """Draw the noise variance from its inverse-gamma marginal posterior.

    Parameters
    ----------
    rng : numpy.random.Generator
    shape, scale : float
        Of the inverse-gamma posterior.
    size : int
        Number of draws.

    Returns
    -------
    numpy.ndarray
        ``sigma2``, shape (size,).
    """
    return scale / rng.gamma(shape, size=size)


def draw_beta_given_sigma2(
    rng: np.random.Generator, sigma2: np.ndarray, mean: np.ndarray, chol_cov: np.ndarray
) -> np.ndarray:
    """Draw the coefficients given each ``sigma2`` from ``N(m, sigma2 P^-1)``.

    Parameters
    ----------
    rng : numpy.random.Generator
    sigma2 : numpy.ndarray
        Shape (M,).
    mean : numpy.ndarray
        ``m``, shape (K,).
    chol_cov : numpy.ndarray
        Lower Cholesky factor of ``P^-1``, shape (K, K).

    Returns
    -------
    numpy.ndarray
        ``beta``, shape (M, K).
    """
    noise = rng.standard_normal((sigma2.size, mean.size)) @ chol_cov.T
    return mean + np.sqrt(sigma2)[:, None] * noise


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    parameters: Callable[..., tuple[float, float, np.ndarray, np.ndarray]],
) -> dict[str, np.ndarray]:
    """Draw exactly with the given posterior parameters; see :func:`sample`."""
    y = np.asarray(data["growth"], dtype=float)
    design = np.column_stack(
        [np.ones_like(y), np.asarray(data["dose"], float), np.asarray(data["light"], float)]
    )
    shape, scale, mean, chol = parameters(design, y, SIGMA2_ALPHA, SIGMA2_BETA, PRIOR_SCALE)
    out = {"sigma2": np.empty((chains, draws)), "beta": np.empty((chains, draws, mean.size))}
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        sigma2 = draw_sigma2_given_data(rng, shape, scale, tune + draws)
        beta = draw_beta_given_sigma2(rng, sigma2, mean, chol)
        out["sigma2"][c], out["beta"][c] = sigma2[tune:], beta[tune:]
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Draw the regression's posterior exactly (iid).

    Parameters
    ----------
    data : mapping
        ``dose``, ``light``, ``growth`` (N,); read, never modified.
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
        ``sigma2`` (chains, draws) and ``beta`` (chains, draws, 3), coefficients
        in the order intercept, dose, light.
    """
    return _run_chains(data, draws, tune, chains, random_seed, posterior_parameters)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Draw like :func:`sample`, but with the residual degrees of freedom N - K.

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
    return _run_chains(data, draws, tune, chains, random_seed, posterior_parameters_planted_bug)
