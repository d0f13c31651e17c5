r"""The two-component normal mixture by Gibbs sampling with indicators, in plain NumPy.

The model (stated here again; ``model.py`` is the PyMC twin, which sums the
indicators out, and shares no code)::

    w        ~ Beta(a_w, b_w)
    mu_k     ~ N(m_k, s^2)                  k = 1, 2
    sigma2_k ~ InvGamma(a, b)               (shape, scale)
    z_i      ~ Categorical(w, 1 - w)        the component of y_i (not reported)
    y_i | z_i = k ~ N(mu_k, sigma2_k)

Summing ``z`` out gives back the mixture likelihood. Every full conditional is
standard:

- ``z_i | rest``: ``P(z_i = 1) propto w N(y_i | mu_1, sigma2_1)`` against
  ``(1 - w) N(y_i | mu_2, sigma2_2)``, independently over ``i``
  (:func:`draw_z_given_rest`);
- ``w | rest ~ Beta(a_w + n_1, b_w + n_2)``, ``n_k`` the size of component k
  (:func:`draw_w_given_rest`);
- ``mu_k | rest ~ N(v_k (sum_{z_i=k} y_i / sigma2_k + m_k / s^2), v_k)`` with
  ``1/v_k = n_k / sigma2_k + 1/s^2`` (:func:`draw_mu_given_rest`);
- ``sigma2_k | rest ~ InvGamma(a + n_k/2, b + sum_{z_i=k} (y_i - mu_k)^2 / 2)``
  (:func:`draw_sigma2_given_rest`).

One *transition* is :data:`THIN` sweeps; ``tune`` transitions are discarded.
Each chain starts from its own draw of the prior (with the components ordered
as the priors' means are, so that no chain starts on the other labelling).

:func:`sample_planted_bug` is the same sampler with one mistake in the
means' conditional (:func:`draw_mu_given_rest_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

THIN = 2
"""Gibbs sweeps per kept draw (and per tuning transition)."""


def draw_z_given_rest(
    rng: np.random.Generator, y: np.ndarray, w: float, mu: np.ndarray, sigma2: np.ndarray
) -> np.ndarray:
    """Draw every observation's component from its full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (N,).
    w : float
        Weight of component 1.
    mu, sigma2 : numpy.ndarray
        Component means and variances, shape (2,).

    Returns
    -------
    numpy.ndarray
        Boolean, shape (N,): True where ``y_i`` is in component 1.
    """
    log1 = np.log(w) - 0.5 * np.log(sigma2[0]) - 0.5 * (y - mu[0]) ** 2 / sigma2[0]
    log2 = np.log1p(-w) - 0.5 * np.log(sigma2[1]) - 0.5 * (y - mu[1]) ** 2 / sigma2[1]
    p1 = 1.0 / (1.0 + np.exp(log2 - log1))
    return rng.random(y.shape) < p1


def draw_w_given_rest(rng: np.random.Generator, z: np.ndarray, a_w: float, b_w: float) -> float:
    """Draw the weight of component 1 from its beta full conditional.

    Parameters
    ----------
    rng : numpy.random.Generator
    z : numpy.ndarray
        Boolean, shape (N,): membership of component 1.
    a_w, b_w : float
        The beta prior's parameters.

    Returns
    -------
    float
        ``w ~ Beta(a_w + n_1, b_w + n_2)``.
    """
    n1 = int(z.sum())
    return rng.beta(a_w + n1, b_w + z.size - n1)


def draw_mu_given_rest(
    rng: np.random.Generator,
    y: np.ndarray,
    z: np.ndarray,
    sigma2: np.ndarray,
    m: np.ndarray,
    s: float,
) -> np.ndarray:
    """Draw both component means from their normal full conditionals.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (N,).
    z : numpy.ndarray
        Boolean, shape (N,): membership of component 1.
    sigma2 : numpy.ndarray
        Component variances, shape (2,).
    m : numpy.ndarray
        Prior means, shape (2,).
    s : float
        Prior standard deviation of each mean.

    Returns
    -------
    numpy.ndarray
        ``mu``, shape (2,).
    """
    counts = np.array([z.sum(), (~z).sum()], dtype=float)
    sums = np.array([y[z].sum(), y[~z].sum()])
    precision = counts / sigma2 + 1.0 / s**2
    mean = (sums / sigma2 + m / s**2) / precision
    return mean + rng.standard_normal(2) / np.sqrt(precision)


def draw_mu_given_rest_planted_bug(
    rng: np.random.Generator,
    y: np.ndarray,
    z: np.ndarray,
    sigma2: np.ndarray,
    m: np.ndarray,
    s: float,
) -> np.ndarray:
    """Draw the means from a *wrong* conditional (planted bug, for the harness to catch).

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (N,).
    z : numpy.ndarray
        Boolean, shape (N,): membership of component 1.
    sigma2 : numpy.ndarray
        Component variances, shape (2,).
    m : numpy.ndarray
        Prior means, shape (2,) (ignored: that is the bug).
    s : float
        Prior standard deviation of each mean.

    Returns
    -------
    numpy.ndarray
        ``mu``, shape (2,), shrunk towards 0 instead of towards ``m``.
    """
    counts = np.array([z.sum(), (~z).sum()], dtype=float)
    sums = np.array([y[z].sum(), y[~z].sum()])
    precision = counts / sigma2 + 1.0 / s**2
    # PLANTED BUG: the prior mean's term m / s^2 is left out of the conditional
    # mean (as if the prior were centred at 0); the precision is right. Each mean
    # is pulled towards 0 by m_k / (s^2 * precision_k).
    mean = (sums / sigma2) / precision
    return mean + rng.standard_normal(2) / np.sqrt(precision)


def draw_sigma2_given_rest(
    rng: np.random.Generator, y: np.ndarray, z: np.ndarray, mu: np.ndarray, a: float, b: float
) -> np.ndarray:
    """Draw both component variances from their inverse-gamma full conditionals.

    Parameters
    ----------
    rng : numpy.random.Generator
    y : numpy.ndarray
        Observations, shape (N,).
    z : numpy.ndarray
        Boolean, shape (N,): membership of component 1.
    mu : numpy.ndarray
        Component means, shape (2,).
    a, b : float
        Shape and scale of the inverse-gamma prior.

    Returns
    -------
    numpy.ndarray
        ``sigma2``, shape (2,).
    """
    counts = np.array([z.sum(), (~z).sum()], dtype=float)
    squares = np.array([np.sum((y[z] - mu[0]) ** 2), np.sum((y[~z] - mu[1]) ** 2)])
    return (b + 0.5 * squares) / rng.gamma(a + 0.5 * counts)


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    draw_mu: Callable[..., np.ndarray],
) -> dict[str, np.ndarray]:
    """Run the Gibbs sampler with the given step for the means; see :func:`sample`."""
    y = np.asarray(data["y"], dtype=float).copy()
    a_w, b_w = float(data["w_alpha"]), float(data["w_beta"])
    m = np.asarray(data["mu_prior_mean"], dtype=float)
    s = float(data["mu_prior_sd"])
    a, b = float(data["sigma2_alpha"]), float(data["sigma2_beta"])
    out = {
        "w": np.empty((chains, draws)),
        "mu": np.empty((chains, draws, 2)),
        "sigma2": np.empty((chains, draws, 2)),
    }
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        w = rng.beta(a_w, b_w)  # a dispersed start: a prior draw, components in order
        mu = np.sort(m + s * rng.standard_normal(2))
        sigma2 = b / rng.gamma(a, size=2)
        for t in range(tune + draws):
            for _ in range(THIN):
                z = draw_z_given_rest(rng, y, w, mu, sigma2)
                w = draw_w_given_rest(rng, z, a_w, b_w)
                mu = draw_mu(rng, y, z, sigma2, m, s)
                sigma2 = draw_sigma2_given_rest(rng, y, z, mu, a, b)
            if t >= tune:
                out["w"][c, t - tune], out["mu"][c, t - tune] = w, mu
                out["sigma2"][c, t - tune] = sigma2
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the mixture posterior by Gibbs sampling with component indicators.

    Parameters
    ----------
    data : mapping
        ``y`` (N,) and the priors' ``w_alpha``, ``w_beta``, ``mu_prior_mean`` (2,),
        ``mu_prior_sd``, ``sigma2_alpha``, ``sigma2_beta``; read, never modified.
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
        ``w`` (chains, draws), ``mu`` and ``sigma2`` (chains, draws, 2). The
        indicators are not returned.
    """
    return _run_chains(data, draws, tune, chains, random_seed, draw_mu_given_rest)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample like :func:`sample`, but with a planted bug in the means' step.

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
    return _run_chains(data, draws, tune, chains, random_seed, draw_mu_given_rest_planted_bug)
