r"""Probit regression by Albert-Chib (1993) data augmentation, in plain NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code).
With ``x_i = (t_i - mean(t)) / sd(t)`` (population sd, ``ddof=0``) and design
rows ``X_i = (1, x_i)``::

    beta       ~ N(0, s^2 I_2)                     s = PRIOR_SD
    distress_i ~ Bernoulli(Phi(X_i beta))

Albert and Chib add a latent ``z_i ~ N(X_i beta, 1)`` with ``distress_i = 1``
exactly when ``z_i > 0``; integrating ``z`` out gives back the probit model.
Both full conditionals are standard:

- ``z_i | beta, distress`` is ``N(X_i beta, 1)`` truncated to ``(0, inf)`` if
  ``distress_i = 1`` and to ``(-inf, 0]`` if ``distress_i = 0``, independently
  over ``i`` (:func:`draw_latent_given_beta`);
- ``beta | z ~ N(V X'z, V)`` with ``V = (X'X + I/s^2)^-1``: the conjugate
  update of a normal prior by a linear regression with unit noise variance
  (:func:`draw_beta_given_latent`).

One *transition* is :data:`THIN` Gibbs sweeps (``z``, then ``beta``); the
sampler runs ``tune`` transitions, discards them, and keeps ``draws``. The
latent ``z`` is auxiliary and is not reported. Data augmentation mixes slowly
when the latents are tightly truncated: per sweep, the lag-1 autocorrelation
is about 0.55 for the intercept and 0.7 for the slope on the shipped data, and
higher on nearly separated data sets. Three sweeps per kept draw bring it to
about 0.15 and 0.4 (bulk ESS about 2,800 and 1,900 of 4 x 1,000 draws).

:func:`sample_planted_bug` is the same sampler with one deliberate mistake in
the conditional of ``beta`` (:func:`posterior_factors_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from scipy import special

PRIOR_SD = 1.0
"""Prior standard deviation of both coefficients (intercept and slope)."""

THIN = 3
"""Gibbs sweeps per kept draw (and per tuning transition)."""


def design_matrix(temperature: np.ndarray) -> np.ndarray:
    """Return the design ``[1, x]`` with the temperature standardised.

    Parameters
    ----------
    temperature : numpy.ndarray
        Launch temperatures, shape (N,).

    Returns
    -------
    numpy.ndarray
        Shape (N, 2): a column of ones and ``(t - mean(t)) / sd(t)`` (``ddof=0``).
    """
    t = np.asarray(temperature, dtype=float)
    x = (t - t.mean()) / t.std()
    return np.column_stack([np.ones_like(x), x])


def posterior_factors(design: np.ndarray, prior_sd: float) -> tuple[np.ndarray, np.ndarray]:
    """Return the fixed pieces of ``beta | z``: ``V X'`` and a Cholesky factor of ``V``.

    Parameters
    ----------
    design : numpy.ndarray
        ``X``, shape (N, K).
    prior_sd : float
        Prior standard deviation ``s`` of every coefficient.

    Returns
    -------
    v_xt : numpy.ndarray
        ``V X'`` with ``V = (X'X + I/s^2)^-1``, shape (K, N): maps ``z`` to the
        conditional mean of ``beta``.
    chol_v : numpy.ndarray
        Lower-triangular ``L`` with ``L L' = V``, shape (K, K).
    """
    k = design.shape[1]
    precision = design.T @ design + np.eye(k) / prior_sd**2
    covariance = np.linalg.inv(precision)
    return covariance @ design.T, np.linalg.cholesky(covariance)


def posterior_factors_planted_bug(
    design: np.ndarray, prior_sd: float
) -> tuple[np.ndarray, np.ndarray]:
    """Return *wrong* pieces of ``beta | z`` (planted bug, for the harness to catch).

    Parameters
    ----------
    design : numpy.ndarray
        ``X``, shape (N, K).
    prior_sd : float
        Prior standard deviation ``s`` of every coefficient (ignored: that is the bug).

    Returns
    -------
    v_xt : numpy.ndarray
        ``V X'``, shape (K, N), with the wrong ``V = (X'X)^-1``.
    chol_v : numpy.ndarray
        Lower-triangular Cholesky factor of that ``V``, shape (K, K).
    """
    # PLANTED BUG: the prior precision I/s^2 is left out of the conditional
    # precision, so beta | z is the least-squares fit of z on X with covariance
    # (X'X)^-1, as under a flat prior. With N = 23 launches X'X = 23 I dwarfs
    # I/s^2 = I, so the error looks negligible, but the flat prior lets the
    # slope run further from zero than the model allows.
    precision = design.T @ design
    covariance = np.linalg.inv(precision)
    return covariance @ design.T, np.linalg.cholesky(covariance)


def draw_latent_given_beta(
    rng: np.random.Generator, beta: np.ndarray, design: np.ndarray, distress: np.ndarray
) -> np.ndarray:
    """Draw the latent utilities from their truncated-normal full conditional.

    Inverse-CDF sampling in log space, so it stays exact far in the tails: for
    ``distress_i = 1``, ``z_i = m_i + e`` with ``e ~ N(0, 1)`` truncated to
    ``e > -m_i``, drawn as ``e = -Phi^-1(U Phi(m_i))`` with ``U ~ U(0, 1]``; for
    ``distress_i = 0`` the mirror image, ``e = Phi^-1(U Phi(-m_i))``.

    Parameters
    ----------
    rng : numpy.random.Generator
    beta : numpy.ndarray
        Coefficients, shape (K,).
    design : numpy.ndarray
        ``X``, shape (N, K).
    distress : numpy.ndarray
        0/1 outcomes, shape (N,).

    Returns
    -------
    numpy.ndarray
        ``z``, shape (N,): positive where ``distress = 1``, non-positive elsewhere.
    """
    mean = design @ beta
    sign = 2.0 * distress - 1.0  # +1 where z must be positive, -1 where it must not
    u = 1.0 - rng.random(mean.shape)  # in (0, 1]: log(u) is finite
    # P(e > -m) = Phi(m) for the upper side; P(e <= -m) = Phi(-m) for the lower side.
    log_mass = special.log_ndtr(sign * mean)
    e = -sign * special.ndtri_exp(np.log(u) + log_mass)
    return mean + e


def draw_beta_given_latent(
    rng: np.random.Generator, latent: np.ndarray, v_xt: np.ndarray, chol_v: np.ndarray
) -> np.ndarray:
    """Draw the coefficients from their normal full conditional ``N(V X'z, V)``.

    Parameters
    ----------
    rng : numpy.random.Generator
    latent : numpy.ndarray
        ``z``, shape (N,).
    v_xt : numpy.ndarray
        ``V X'``, shape (K, N) (:func:`posterior_factors`).
    chol_v : numpy.ndarray
        Cholesky factor of ``V``, shape (K, K).

    Returns
    -------
    numpy.ndarray
        ``beta``, shape (K,).
    """
    return v_xt @ latent + chol_v @ rng.standard_normal(chol_v.shape[0])


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    initial: Mapping[str, np.ndarray] | None,
    factors: Callable[[np.ndarray, float], tuple[np.ndarray, np.ndarray]],
) -> dict[str, np.ndarray]:
    """Run the Gibbs sampler with the given ``beta | z`` factors; see :func:`sample`."""
    design = design_matrix(data["temperature"])
    distress = np.asarray(data["distress"], dtype=float)
    v_xt, chol_v = factors(design, PRIOR_SD)
    k = design.shape[1]
    out = np.empty((chains, draws, k))
    rngs = np.random.default_rng(random_seed).spawn(chains)
    for c, rng in enumerate(rngs):
        if initial is None:
            beta = PRIOR_SD * rng.standard_normal(k)  # a prior draw: dispersed starts
        else:
            beta = np.asarray(initial["beta"], dtype=float).reshape(k).copy()
        for t in range(tune + draws):
            for _ in range(THIN):
                latent = draw_latent_given_beta(rng, beta, design, distress)
                beta = draw_beta_given_latent(rng, latent, v_xt, chol_v)
            if t >= tune:
                out[c, t - tune] = beta
    return {"beta": out}


def sample(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    initial: Mapping[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Sample the probit posterior by Albert-Chib Gibbs sampling.

    Parameters
    ----------
    data : mapping
        ``temperature`` (N,), ``distress`` (N,) 0/1; read, never modified.
    draws : int
        Kept transitions per chain (each :data:`THIN` sweeps).
    tune : int
        Discarded transitions per chain, before the kept ones.
    chains : int
        Independent chains, each with its own random stream.
    random_seed : int or None
        Seed of ``numpy.random.default_rng``; spawned into one stream per chain.
    initial : mapping, optional
        ``beta`` (2,): start every chain there. By default each chain starts at
        its own draw from the prior.

    Returns
    -------
    dict
        ``beta``, shape (chains, draws, 2). The latents are not returned.
    """
    return _run_chains(data, draws, tune, chains, random_seed, initial, posterior_factors)


def sample_planted_bug(
    data: Mapping,
    *,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    initial: Mapping[str, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Sample like :func:`sample`, but with a planted bug in the ``beta`` step.

    The conditional of ``beta`` leaves out the prior precision
    (:func:`posterior_factors_planted_bug`); the harness should report that
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
        data, draws, tune, chains, random_seed, initial, posterior_factors_planted_bug
    )
