r"""The rats' linear growth model by Gibbs sampling, in plain NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code).
Rat ``i`` (``i = 1 .. N``, N = 30) weighs ``y_ij`` at age ``x_j`` (``j = 1 .. T``,
T = 5); ``xc_j = x_j - xbar`` are the ages centred at their mean::

    alpha_c    ~ N(m_a, s_a^2)
    beta_c     ~ N(m_b, s_b^2)
    tau2_alpha ~ InvGamma(a_a, b_a)              (shape, scale)
    tau2_beta  ~ InvGamma(a_b, b_b)
    sigma2     ~ InvGamma(a_s, b_s)
    alpha_i    ~ N(alpha_c, tau2_alpha)
    beta_i     ~ N(beta_c, tau2_beta)
    y_ij       ~ N(alpha_i + beta_i xc_j, sigma2)

Every full conditional is standard:

- ``alpha_i | rest ~ N(v (sum_j (y_ij - beta_i xc_j) / sigma2 + alpha_c / tau2_alpha), v)``
  with ``1/v = T / sigma2 + 1/tau2_alpha``, independently over ``i``
  (:func:`draw_alpha_given_rest`);
- ``beta_i | rest ~ N(v (sum_j xc_j (y_ij - alpha_i) / sigma2 + beta_c / tau2_beta), v)``
  with ``1/v = sum_j xc_j^2 / sigma2 + 1/tau2_beta``, independently over ``i``
  (:func:`draw_beta_given_rest`);
- ``alpha_c | rest ~ N(v (sum_i alpha_i / tau2_alpha + m_a / s_a^2), v)`` with
  ``1/v = N / tau2_alpha + 1/s_a^2`` (:func:`draw_alpha_c_given_rest`), and
  ``beta_c`` alike (:func:`draw_beta_c_given_rest`);
- ``tau2_alpha | rest ~ InvGamma(a_a + N/2, b_a + sum_i (alpha_i - alpha_c)^2 / 2)``
  (:func:`draw_tau2_alpha_given_rest`), and ``tau2_beta`` alike
  (:func:`draw_tau2_beta_given_rest`);
- ``sigma2 | rest ~ InvGamma(a_s + N T / 2, b_s + sum_ij (y_ij - alpha_i - beta_i xc_j)^2 / 2)``
  (:func:`draw_sigma2_given_rest`).

Because the ages are centred (``sum_j xc_j = 0``), ``alpha_i`` and ``beta_i``
are independent given the rest: drawing all the intercepts, then all the
slopes, is one exact draw of the block ``(alpha, beta)``.

One *transition* is :data:`THIN` sweeps (alpha, beta, alpha_c, beta_c,
tau2_alpha, tau2_beta, sigma2); ``tune`` transitions are discarded. Each chain
starts from its own prior draw of the variances and at the pooled
least-squares line plus noise for the population means.

:func:`sample_planted_bug` is the same sampler with one mistake in the
conditional of ``tau2_beta`` (:func:`draw_tau2_beta_given_rest_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

THIN = 3
"""Gibbs sweeps per kept draw (and per tuning transition)."""


def draw_alpha_given_rest(
    rng: np.random.Generator,
    y: np.ndarray,
    xc: np.ndarray,
    beta: np.ndarray,
    alpha_c: float,
    tau2_alpha: float,
    sigma2: float,
) -> np.ndarray:
    """Draw every rat's intercept (its weight at the mean age) from its normal conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Weights, shape (N, T).
    xc : numpy.ndarray
        Centred ages ``x - xbar``, shape (T,).
    beta : numpy.ndarray
        Slopes, shape (N,).
    alpha_c, tau2_alpha : float
        Population mean and variance of the intercepts.
    sigma2 : float
        Observation variance.

    Returns
    -------
    numpy.ndarray
        ``alpha``, shape (N,).
    """
    residual_sums = np.sum(y - beta[:, None] * xc[None, :], axis=1)
    precision = xc.size / sigma2 + 1.0 / tau2_alpha
    mean = (residual_sums / sigma2 + alpha_c / tau2_alpha) / precision
    return mean + rng.standard_normal(mean.shape) / np.sqrt(precision)


def draw_beta_given_rest(
    rng: np.random.Generator,
    y: np.ndarray,
    xc: np.ndarray,
    alpha: np.ndarray,
    beta_c: float,
    tau2_beta: float,
    sigma2: float,
) -> np.ndarray:
    """Draw every rat's growth rate from its normal full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Weights, shape (N, T).
    xc : numpy.ndarray
        Centred ages ``x - xbar``, shape (T,).
    alpha : numpy.ndarray
        Intercepts, shape (N,).
    beta_c, tau2_beta : float
        Population mean and variance of the slopes.
    sigma2 : float
        Observation variance.

    Returns
    -------
    numpy.ndarray
        ``beta``, shape (N,).
    """
    cross = (y - alpha[:, None]) @ xc
    precision = np.sum(xc**2) / sigma2 + 1.0 / tau2_beta
    mean = (cross / sigma2 + beta_c / tau2_beta) / precision
    return mean + rng.standard_normal(mean.shape) / np.sqrt(precision)


def draw_alpha_c_given_rest(
    rng: np.random.Generator, alpha: np.ndarray, tau2_alpha: float, m: float, s: float
) -> float:
    """Draw the population mean of the intercepts from its normal full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    alpha : numpy.ndarray
        Intercepts, shape (N,).
    tau2_alpha : float
        Their population variance.
    m, s : float
        Prior mean and standard deviation of ``alpha_c``.

    Returns
    -------
    float
        ``alpha_c``.
    """
    precision = alpha.size / tau2_alpha + 1.0 / s**2
    mean = (alpha.sum() / tau2_alpha + m / s**2) / precision
    return mean + rng.standard_normal() / np.sqrt(precision)


def draw_beta_c_given_rest(
    rng: np.random.Generator, beta: np.ndarray, tau2_beta: float, m: float, s: float
) -> float:
    """Draw the population mean of the slopes from its normal full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    beta : numpy.ndarray
        Slopes, shape (N,).
    tau2_beta : float
        Their population variance.
    m, s : float
        Prior mean and standard deviation of ``beta_c``.

    Returns
    -------
    float
        ``beta_c``.
    """
    precision = beta.size / tau2_beta + 1.0 / s**2
    mean = (beta.sum() / tau2_beta + m / s**2) / precision
    return mean + rng.standard_normal() / np.sqrt(precision)


def draw_tau2_alpha_given_rest(
    rng: np.random.Generator, alpha: np.ndarray, alpha_c: float, a: float, b: float
) -> float:
    """Draw the population variance of the intercepts from its inverse-gamma conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    alpha : numpy.ndarray
        Intercepts, shape (N,).
    alpha_c : float
        Their population mean.
    a, b : float
        Shape and scale of the inverse-gamma prior of ``tau2_alpha``.

    Returns
    -------
    float
        ``tau2_alpha ~ InvGamma(a + N/2, b + sum((alpha - alpha_c)^2) / 2)``.
    """
    return (b + 0.5 * np.sum((alpha - alpha_c) ** 2)) / rng.gamma(a + 0.5 * alpha.size)


def draw_tau2_beta_given_rest(
    rng: np.random.Generator, beta: np.ndarray, beta_c: float, a: float, b: float
) -> float:
    """Draw the population variance of the slopes from its inverse-gamma conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    beta : numpy.ndarray
        Slopes, shape (N,).
    beta_c : float
        Their population mean.
    a, b : float
        Shape and scale of the inverse-gamma prior of ``tau2_beta``.

    Returns
    -------
    float
        ``tau2_beta ~ InvGamma(a + N/2, b + sum((beta - beta_c)^2) / 2)``.
    """
    return (b + 0.5 * np.sum((beta - beta_c) ** 2)) / rng.gamma(a + 0.5 * beta.size)


def draw_tau2_beta_given_rest_planted_bug(
    rng: np.random.Generator, beta: np.ndarray, beta_c: float, a: float, b: float
) -> float:
    """Draw ``tau2_beta`` from a *wrong* conditional (planted bug, for the harness to catch).

    Parameters
    ----------
    rng : numpy.random.Generator
    beta : numpy.ndarray
        Slopes, shape (N,).
    beta_c : float
        Their population mean.
    a, b : float
        Shape and scale of the inverse-gamma prior of ``tau2_beta``.

    Returns
    -------
    float
        ``tau2_beta ~ InvGamma(a + N/2 + 1, b + sum((beta - beta_c)^2) / 2)``: wrong.
    """
    # PLANTED BUG: the conditional's density is tau2^-(a + N/2 + 1) exp(-scale / tau2),
    # and the whole exponent was read as the shape: a + N/2 + 1, not a + N/2. One
    # against a + N/2 = 17 looks negligible, but the larger shape shrinks tau2_beta.
    return (b + 0.5 * np.sum((beta - beta_c) ** 2)) / rng.gamma(a + 0.5 * beta.size + 1.0)


def draw_sigma2_given_rest(
    rng: np.random.Generator,
    y: np.ndarray,
    xc: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    a: float,
    b: float,
) -> float:
    """Draw the observation variance from its inverse-gamma full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Weights, shape (N, T).
    xc : numpy.ndarray
        Centred ages ``x - xbar``, shape (T,).
    alpha, beta : numpy.ndarray
        Intercepts and slopes, shape (N,).
    a, b : float
        Shape and scale of the inverse-gamma prior of ``sigma2``.

    Returns
    -------
    float
        ``sigma2 ~ InvGamma(a + N T / 2, b + sum((y - alpha - beta xc)^2) / 2)``.
    """
    residuals = y - alpha[:, None] - beta[:, None] * xc[None, :]
    return (b + 0.5 * np.sum(residuals**2)) / rng.gamma(a + 0.5 * y.size)


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    draw_tau2_beta: Callable[..., float],
) -> dict[str, np.ndarray]:
    """Run the Gibbs sampler with the given ``tau2_beta`` step; see :func:`sample`."""
    y = np.asarray(data["y"], dtype=float).copy()
    x = np.asarray(data["x"], dtype=float).copy()
    xc = x - x.mean()
    n_rats = y.shape[0]
    m_a, s_a = float(data["alpha_c_prior_mean"]), float(data["alpha_c_prior_sd"])
    m_b, s_b = float(data["beta_c_prior_mean"]), float(data["beta_c_prior_sd"])
    a_a, b_a = float(data["tau2_alpha_shape"]), float(data["tau2_alpha_scale"])
    a_b, b_b = float(data["tau2_beta_shape"]), float(data["tau2_beta_scale"])
    a_s, b_s = float(data["sigma2_shape"]), float(data["sigma2_scale"])
    pooled_slope = float(np.sum(y.mean(axis=0) * xc) / np.sum(xc**2))
    out = {
        "alpha_c": np.empty((chains, draws)),
        "beta_c": np.empty((chains, draws)),
        "tau2_alpha": np.empty((chains, draws)),
        "tau2_beta": np.empty((chains, draws)),
        "sigma2": np.empty((chains, draws)),
        "alpha": np.empty((chains, draws, n_rats)),
        "beta": np.empty((chains, draws, n_rats)),
    }
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        tau2_alpha, tau2_beta = b_a / rng.gamma(a_a), b_b / rng.gamma(a_b)  # prior draws
        sigma2 = b_s / rng.gamma(a_s)
        # dispersed around the pooled least-squares line
        alpha_c = y.mean() + y.std() * rng.standard_normal()
        beta_c = pooled_slope * (1.0 + 0.5 * rng.standard_normal())
        beta = np.full(n_rats, beta_c)
        for t in range(tune + draws):
            for _ in range(THIN):
                alpha = draw_alpha_given_rest(rng, y, xc, beta, alpha_c, tau2_alpha, sigma2)
                beta = draw_beta_given_rest(rng, y, xc, alpha, beta_c, tau2_beta, sigma2)
                alpha_c = draw_alpha_c_given_rest(rng, alpha, tau2_alpha, m_a, s_a)
                beta_c = draw_beta_c_given_rest(rng, beta, tau2_beta, m_b, s_b)
                tau2_alpha = draw_tau2_alpha_given_rest(rng, alpha, alpha_c, a_a, b_a)
                tau2_beta = draw_tau2_beta(rng, beta, beta_c, a_b, b_b)
                sigma2 = draw_sigma2_given_rest(rng, y, xc, alpha, beta, a_s, b_s)
            if t >= tune:
                k = t - tune
                out["alpha_c"][c, k], out["beta_c"][c, k] = alpha_c, beta_c
                out["tau2_alpha"][c, k], out["tau2_beta"][c, k] = tau2_alpha, tau2_beta
                out["sigma2"][c, k] = sigma2
                out["alpha"][c, k], out["beta"][c, k] = alpha, beta
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the rats' growth posterior by Gibbs sampling.

    Parameters
    ----------
    data : mapping
        ``x`` (T,) ages, ``y`` (N, T) weights and the priors' ``alpha_c_prior_mean``,
        ``alpha_c_prior_sd``, ``beta_c_prior_mean``, ``beta_c_prior_sd``,
        ``tau2_alpha_shape``, ``tau2_alpha_scale``, ``tau2_beta_shape``,
        ``tau2_beta_scale``, ``sigma2_shape``, ``sigma2_scale``; read, never modified.
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
        ``alpha_c``, ``beta_c``, ``tau2_alpha``, ``tau2_beta``, ``sigma2``
        (chains, draws); ``alpha``, ``beta`` (chains, draws, N).
    """
    return _run_chains(data, draws, tune, chains, random_seed, draw_tau2_beta_given_rest)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample like :func:`sample`, but with a planted bug in the ``tau2_beta`` step.

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
    return _run_chains(
        data, draws, tune, chains, random_seed, draw_tau2_beta_given_rest_planted_bug
    )
