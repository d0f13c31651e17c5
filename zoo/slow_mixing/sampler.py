r"""The 50-bump regression by deliberately slow-mixing but correct Markov chains, in NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code).
With ``K`` Gaussian bumps ``phi_k(x) = exp(-(x - c_k)^2 / (2 w^2))``,
``c_k = k / (K - 1)``, design ``B[i, k] = phi_k(x_i)`` (:func:`bump_design`) and
known noise sd ``sigma``::

    beta ~ N(0, s^2 I_K)
    y    ~ N(B beta, sigma^2 I)

The posterior is Gaussian, ``beta | y ~ N(m, V)`` with
``V = (B'B / sigma^2 + I / s^2)^-1`` and ``m = V B'y / sigma^2``
(:func:`posterior_moments`). The samplers here do not draw it exactly: they are
correct Markov chains with strongly autocorrelated draws, for measuring whether
the harness stays calibrated on such draws.

- :func:`sample`: random-walk Metropolis in all ``K`` dimensions at once
  (:func:`random_walk_metropolis_step`). Proposal ``beta + (2.38 / sqrt(K)) d * e``,
  ``e ~ N(0, I)``, with a fixed diagonal preconditioner ``d`` of rough scales,
  ``d_k = (B'B[k, k] / sigma^2 + 1 / s^2)^(-1/2)`` (:func:`rough_scales`): each
  coefficient's sd *given all the others*, smaller than its posterior sd
  where neighbours are correlated. Acceptance 0.24; integrated autocorrelation
  time of the coefficients about 330 (median) and up to 800.
- :func:`sample_ar1`: an exactly stationary AR(1) chain
  ``beta_t = m + rho (beta_{t-1} - m) + sqrt(1 - rho^2) L e`` with ``L L' = V``
  and ``rho`` = :data:`RHO` (:func:`autoregressive_step`): reversible with the
  posterior as its stationary law, integrated autocorrelation time
  ``(1 + rho) / (1 - rho) = 199`` for every linear function of ``beta``.
- :func:`sample_planted_bug`: the random-walk Metropolis with one planted bug
  (:func:`langevin_metropolis_step_planted_bug`): a Langevin drift added to
  the proposal without the Hastings correction it then needs.

Chains are vectorised: every step moves all chains at once, with each chain's
random numbers from its own stream. ``tune`` transitions are discarded (no
adaptation: the preconditioner is fixed). Each Metropolis chain starts at the
posterior mode (the ridge fit a user's optimiser would return) plus its own
``N(0, diag(d^2))`` jitter; each AR(1) chain starts from its own exact posterior draw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

STEP = 2.38
"""Proposal scale ``STEP / sqrt(K)`` times the rough scales (Roberts, Gelman & Gilks 1997)."""
RHO = 0.99
"""Autocorrelation of :func:`sample_ar1`'s chain."""
BLOCK = 1024
"""Transitions whose random numbers are drawn at once, per chain."""


def bump_design(data: Mapping) -> np.ndarray:
    """Return the design ``B[i, k] = exp(-(x_i - c_k)^2 / (2 w^2))``.

    Parameters
    ----------
    data : mapping
        ``x`` (N,), ``n_basis`` (``K``), ``basis_sd`` (``w``).

    Returns
    -------
    numpy.ndarray
        Shape (N, K).
    """
    x = np.asarray(data["x"], dtype=float)
    centres = np.arange(int(data["n_basis"])) / (int(data["n_basis"]) - 1)
    return np.exp(-0.5 * np.subtract.outer(x, centres) ** 2 / float(data["basis_sd"]) ** 2)


def log_posterior(
    beta: np.ndarray, design: np.ndarray, y: np.ndarray, sigma: float, prior_sd: float
) -> np.ndarray:
    """Return the unnormalised log posterior density of each row of ``beta``.

    Parameters
    ----------
    beta : numpy.ndarray
        Coefficients, shape (chains, K).
    design : numpy.ndarray
        ``B``, shape (N, K).
    y : numpy.ndarray
        Responses, shape (N,).
    sigma : float
        Known noise sd.
    prior_sd : float
        Prior sd ``s`` of every coefficient (prior mean 0).

    Returns
    -------
    numpy.ndarray
        ``-|y - B beta|^2 / (2 sigma^2) - |beta|^2 / (2 s^2)``, shape (chains,).
    """
    residual = y - beta @ design.T
    return (
        -0.5 * np.sum(residual**2, axis=1) / sigma**2 - 0.5 * np.sum(beta**2, axis=1) / prior_sd**2
    )


def posterior_moments(
    design: np.ndarray, y: np.ndarray, sigma: float, prior_sd: float
) -> tuple[np.ndarray, np.ndarray]:
    """Return the posterior mean (also its mode) and covariance of ``beta``.

    Parameters
    ----------
    design : numpy.ndarray
        ``B``, shape (N, K).
    y : numpy.ndarray
        Responses, shape (N,).
    sigma : float
        Known noise sd.
    prior_sd : float
        Prior sd ``s`` of every coefficient.

    Returns
    -------
    mean : numpy.ndarray
        ``m``, shape (K,).
    covariance : numpy.ndarray
        ``V = (B'B / sigma^2 + I / s^2)^-1``, shape (K, K).
    """
    precision = design.T @ design / sigma**2 + np.eye(design.shape[1]) / prior_sd**2
    covariance = np.linalg.inv(precision)
    return covariance @ design.T @ y / sigma**2, covariance


def rough_scales(design: np.ndarray, sigma: float, prior_sd: float) -> np.ndarray:
    """Return the diagonal preconditioner: each coefficient's conditional sd.

    Parameters
    ----------
    design : numpy.ndarray
        ``B``, shape (N, K).
    sigma : float
        Known noise sd.
    prior_sd : float
        Prior sd ``s`` of every coefficient.

    Returns
    -------
    numpy.ndarray
        ``(sum_i B[i, k]^2 / sigma^2 + 1 / s^2)^(-1/2)``, shape (K,): the
        posterior sd of ``beta_k`` with the other coefficients held fixed, not
        its marginal sd (0.59 to 0.93 of it here).
    """
    return 1.0 / np.sqrt(np.sum(design**2, axis=0) / sigma**2 + 1.0 / prior_sd**2)


def grad_log_posterior(
    beta: np.ndarray, design: np.ndarray, y: np.ndarray, sigma: float, prior_sd: float
) -> np.ndarray:
    """Return the gradient of :func:`log_posterior` at each row of ``beta``.

    Parameters
    ----------
    beta : numpy.ndarray
        Coefficients, shape (chains, K).
    design, y, sigma, prior_sd
        As for :func:`log_posterior`.

    Returns
    -------
    numpy.ndarray
        ``B'(y - B beta) / sigma^2 - beta / s^2``, shape (chains, K).
    """
    return (y - beta @ design.T) @ design / sigma**2 - beta / prior_sd**2


def random_walk_metropolis_step(
    beta: np.ndarray,
    log_density: np.ndarray,
    noise: np.ndarray,
    log_uniform: np.ndarray,
    scales: np.ndarray,
    target: Callable[[np.ndarray], np.ndarray],
    gradient: Callable[[np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Make one random-walk Metropolis transition of every chain.

    Parameters
    ----------
    beta : numpy.ndarray
        Current states, shape (chains, K).
    log_density : numpy.ndarray
        ``target(beta)``, cached, shape (chains,).
    noise : numpy.ndarray
        Standard normal draws, shape (chains, K).
    log_uniform : numpy.ndarray
        Logs of uniform(0, 1) draws, shape (chains,).
    scales : numpy.ndarray
        Proposal sds, shape (K,).
    target : callable
        Unnormalised log density of rows, (chains, K) -> (chains,).
    gradient : callable
        Its gradient, (chains, K) -> (chains, K); unused by the random walk
        (the argument keeps this step and the planted bug's interchangeable).

    Returns
    -------
    beta : numpy.ndarray
        New states, shape (chains, K).
    log_density : numpy.ndarray
        ``target`` at the new states, shape (chains,).
    """
    proposal = beta + scales * noise  # symmetric: the Metropolis ratio is the density ratio
    proposal_log_density = target(proposal)
    accept = log_uniform < proposal_log_density - log_density
    beta = np.where(accept[:, None], proposal, beta)
    log_density = np.where(accept, proposal_log_density, log_density)
    return beta, log_density


def langevin_metropolis_step_planted_bug(
    beta: np.ndarray,
    log_density: np.ndarray,
    noise: np.ndarray,
    log_uniform: np.ndarray,
    scales: np.ndarray,
    target: Callable[[np.ndarray], np.ndarray],
    gradient: Callable[[np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Make one *wrong* Metropolis transition (planted bug, for the harness to catch).

    The random walk's proposal gets a Langevin drift, half a preconditioned
    gradient step, ``beta + scales^2 * gradient(beta) / 2 + scales * noise``
    (MALA's proposal), but the acceptance ratio is left as the random walk's.

    Parameters
    ----------
    beta, log_density, noise, log_uniform, scales, target
        As for :func:`random_walk_metropolis_step`.
    gradient : callable
        Gradient of ``target``, (chains, K) -> (chains, K).

    Returns
    -------
    beta : numpy.ndarray
        New states, shape (chains, K).
    log_density : numpy.ndarray
        ``target`` at the new states, shape (chains,).
    """
    proposal = beta + 0.5 * scales**2 * gradient(beta) + scales * noise
    proposal_log_density = target(proposal)
    # PLANTED BUG: the drifted proposal is not symmetric, so the ratio needs the
    # Hastings factor q(beta | proposal) / q(proposal | beta); it is left out, as
    # for the random walk. Every coefficient's sd comes out about 0.71 times too small.
    accept = log_uniform < proposal_log_density - log_density
    beta = np.where(accept[:, None], proposal, beta)
    log_density = np.where(accept, proposal_log_density, log_density)
    return beta, log_density


def autoregressive_step(
    beta: np.ndarray, noise: np.ndarray, mean: np.ndarray, chol: np.ndarray, rho: float
) -> np.ndarray:
    """Make one AR(1) transition of every chain, exactly stationary at ``N(mean, chol chol')``.

    Parameters
    ----------
    beta : numpy.ndarray
        Current states, shape (chains, K).
    noise : numpy.ndarray
        Standard normal draws, shape (chains, K).
    mean : numpy.ndarray
        Posterior mean ``m``, shape (K,).
    chol : numpy.ndarray
        Lower Cholesky factor ``L`` of the posterior covariance, shape (K, K).
    rho : float
        Autocorrelation, in (-1, 1).

    Returns
    -------
    numpy.ndarray
        ``m + rho (beta - m) + sqrt(1 - rho^2) L e``, shape (chains, K).
    """
    return mean + rho * (beta - mean) + np.sqrt(1.0 - rho**2) * noise @ chol.T


def _unpack(data: Mapping) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Return the design (N, K), ``y`` (N,), ``sigma`` and ``prior_sd``."""
    y = np.asarray(data["y"], dtype=float)
    return bump_design(data), y, float(data["sigma"]), float(data["prior_sd"])


def _random_blocks(rngs: list[np.random.Generator], total: int, size: int, uniforms: bool):
    """Yield each transition's random numbers, drawn :data:`BLOCK` transitions at a time.

    Parameters
    ----------
    rngs : list of numpy.random.Generator
        One stream per chain: a chain's numbers do not depend on the number of chains.
    total : int
        Transitions in all.
    size : int
        Standard normals per chain and transition (``K``).
    uniforms : bool
        Also one log-uniform per chain and transition.

    Yields
    ------
    noise : numpy.ndarray
        Shape (chains, size).
    log_uniform : numpy.ndarray or None
        Shape (chains,), or None without ``uniforms``.
    """
    for start in range(0, total, BLOCK):
        n = min(BLOCK, total - start)
        noise = np.stack([rng.standard_normal((n, size)) for rng in rngs], axis=1)
        log_u = np.log(np.stack([rng.random(n) for rng in rngs], axis=1)) if uniforms else None
        for k in range(n):
            yield noise[k], (None if log_u is None else log_u[k])


def _run_metropolis(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    step: Callable[..., tuple[np.ndarray, np.ndarray]],
) -> dict[str, np.ndarray]:
    """Run the random-walk Metropolis chains with the given step; see :func:`sample`."""
    design, y, sigma, prior_sd = _unpack(data)
    n_coef = design.shape[1]

    def target(beta: np.ndarray) -> np.ndarray:
        return log_posterior(beta, design, y, sigma, prior_sd)

    def gradient(beta: np.ndarray) -> np.ndarray:
        return grad_log_posterior(beta, design, y, sigma, prior_sd)

    rough = rough_scales(design, sigma, prior_sd)
    scales = STEP / np.sqrt(n_coef) * rough
    mode, _ = posterior_moments(design, y, sigma, prior_sd)
    rngs = np.random.default_rng(random_seed).spawn(chains)
    beta = mode + rough * np.stack([rng.standard_normal(n_coef) for rng in rngs])
    log_density = target(beta)
    out = np.empty((chains, draws, n_coef))
    randoms = _random_blocks(rngs, tune + draws, n_coef, uniforms=True)
    for t, (noise, log_uniform) in enumerate(randoms):
        beta, log_density = step(beta, log_density, noise, log_uniform, scales, target, gradient)
        if t >= tune:
            out[:, t - tune] = beta
    return {"beta": out}


def _run_ar1(
    data: Mapping, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Run the AR(1) chains; see :func:`sample_ar1`."""
    design, y, sigma, prior_sd = _unpack(data)
    mean, covariance = posterior_moments(design, y, sigma, prior_sd)
    chol = np.linalg.cholesky(covariance)
    rngs = np.random.default_rng(random_seed).spawn(chains)
    beta = mean + np.stack([rng.standard_normal(mean.size) for rng in rngs]) @ chol.T  # exact
    out = np.empty((chains, draws, mean.size))
    randoms = _random_blocks(rngs, tune + draws, mean.size, uniforms=False)
    for t, (noise, _) in enumerate(randoms):
        beta = autoregressive_step(beta, noise, mean, chol, RHO)
        if t >= tune:
            out[:, t - tune] = beta
    return {"beta": out}


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the 50-bump regression's posterior by random-walk Metropolis (slow, correct).

    Parameters
    ----------
    data : mapping
        ``x``, ``y`` (N,), ``n_basis``, ``basis_sd``, ``sigma``, ``prior_sd``;
        read, never modified.
    draws : int
        Kept transitions per chain (every one: no thinning).
    tune : int
        Discarded transitions per chain (burn-in; the proposal is fixed).
    chains : int
        Chains, each with its own random stream, moved together.
    random_seed : int or None
        Seed of ``numpy.random.default_rng``; spawned into one stream per chain.

    Returns
    -------
    dict
        ``beta``, shape (chains, draws, K).
    """
    return _run_metropolis(data, draws, tune, chains, random_seed, random_walk_metropolis_step)


def sample_ar1(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the posterior by an exactly stationary AR(1) chain (very slow, correct).

    Parameters
    ----------
    data : mapping
        As for :func:`sample`.
    draws : int
        Kept transitions per chain (every one: no thinning).
    tune : int
        Discarded transitions per chain (the chain is stationary from its start).
    chains : int
        Chains, each with its own random stream, moved together.
    random_seed : int or None
        Seed of ``numpy.random.default_rng``; spawned into one stream per chain.

    Returns
    -------
    dict
        ``beta``, shape (chains, draws, K).
    """
    return _run_ar1(data, draws, tune, chains, random_seed)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample like :func:`sample`, but with a drifted proposal and no Hastings correction.

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
    return _run_metropolis(
        data, draws, tune, chains, random_seed, langevin_metropolis_step_planted_bug
    )
