r"""Two probabilities at their boundaries by exact iid draws, in plain NumPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code)::

    p ~ Beta(a, b),   successes ~ Binomial(trials, p)
    q ~ Beta(a, b),   defects   ~ Binomial(inspected, q)

The beta prior is conjugate to the binomial likelihood, and the two parts share
no parameter, so the posterior is exactly::

    p | data ~ Beta(a + successes, b + trials - successes)
    q | data ~ Beta(a + defects,   b + inspected - defects)

independently (:func:`draw_p_given_data`, :func:`draw_q_given_data`). Every
draw is exact and independent: no burn-in is needed; ``tune`` draws are made
and discarded only to honour the contract. A beta variate is drawn as
``X / (X + Y)`` with ``X ~ Gamma(alpha)`` and ``Y ~ Gamma(beta)``; with the
shipped data ``p`` comes within 1e-3 of 1 in about 3 % of draws.

:func:`sample_planted_bug` is the same sampler with one mistake in the
conditional of ``q`` (:func:`draw_q_given_data_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np


def draw_beta(rng: np.random.Generator, alpha: float, beta: float, size: int) -> np.ndarray:
    """Draw ``Beta(alpha, beta)`` variates as a ratio of gamma variates.

    Parameters
    ----------
    rng : numpy.random.Generator
    alpha, beta : float
        Positive shape parameters.
    size : int
        Number of draws.

    Returns
    -------
    numpy.ndarray
        Shape (size,), in [0, 1].
    """
    x = rng.gamma(alpha, size=size)
    return x / (x + rng.gamma(beta, size=size))


def draw_p_given_data(
    rng: np.random.Generator, successes: int, trials: int, a: float, b: float, size: int
) -> np.ndarray:
    """Draw the success probability from its beta posterior.

    Parameters
    ----------
    rng : numpy.random.Generator
    successes, trials : int
        The binomial data.
    a, b : float
        The beta prior's parameters.
    size : int
        Number of draws.

    Returns
    -------
    numpy.ndarray
        Shape (size,): ``Beta(a + successes, b + trials - successes)``.
    """
    return draw_beta(rng, a + successes, b + trials - successes, size)


def draw_q_given_data(
    rng: np.random.Generator, defects: int, inspected: int, a: float, b: float, size: int
) -> np.ndarray:
    """Draw the defect probability from its beta posterior.

    Parameters
    ----------
    rng : numpy.random.Generator
    defects, inspected : int
        The binomial data.
    a, b : float
        The beta prior's parameters.
    size : int
        Number of draws.

    Returns
    -------
    numpy.ndarray
        Shape (size,): ``Beta(a + defects, b + inspected - defects)``.
    """
    return draw_beta(rng, a + defects, b + inspected - defects, size)


def draw_q_given_data_planted_bug(
    rng: np.random.Generator, defects: int, inspected: int, a: float, b: float, size: int
) -> np.ndarray:
    """Draw ``q`` from a *wrong* posterior (planted bug, for the harness to catch).

    Parameters
    ----------
    rng : numpy.random.Generator
    defects, inspected : int
        The binomial data.
    a, b : float
        The beta prior's parameters (ignored: that is the bug).
    size : int
        Number of draws.

    Returns
    -------
    numpy.ndarray
        Shape (size,): ``Beta(0.5 + defects, 0.5 + inspected - defects)``.
    """
    # PLANTED BUG: the prior is hard-coded as Jeffreys' Beta(1/2, 1/2) instead of
    # the model's Beta(a, b) = Beta(1, 1). Half a pseudo-count looks negligible
    # beside 80 inspections, but with a single defect it is a third of the data.
    return draw_beta(rng, 0.5 + defects, 0.5 + inspected - defects, size)


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    draw_q: Callable[..., np.ndarray],
) -> dict[str, np.ndarray]:
    """Draw exactly, with the given draw of ``q``; see :func:`sample`."""
    a, b = float(data["prior_alpha"]), float(data["prior_beta"])
    successes, trials = int(data["successes"]), int(data["trials"])
    defects, inspected = int(data["defects"]), int(data["inspected"])
    out = {"p": np.empty((chains, draws)), "q": np.empty((chains, draws))}
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        p = draw_p_given_data(rng, successes, trials, a, b, tune + draws)
        q = draw_q(rng, defects, inspected, a, b, tune + draws)
        out["p"][c], out["q"][c] = p[tune:], q[tune:]
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Draw both probabilities exactly (iid).

    Parameters
    ----------
    data : mapping
        ``successes``, ``trials``, ``defects``, ``inspected``, ``prior_alpha``,
        ``prior_beta``; read, never modified.
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
        ``p`` and ``q``, each (chains, draws).
    """
    return _run_chains(data, draws, tune, chains, random_seed, draw_q_given_data)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Draw like :func:`sample`, but ``q`` under a hard-coded Jeffreys prior.

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
    return _run_chains(data, draws, tune, chains, random_seed, draw_q_given_data_planted_bug)
