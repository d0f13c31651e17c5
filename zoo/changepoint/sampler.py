r"""The change-point model by exact iid draws, in plain NumPy and SciPy.

The model (stated here again; ``model.py`` is the PyMC twin and shares no code)::

    s      ~ uniform on {1, ..., N-1}
    l1, l2 ~ Gamma(a, b) independently               (shape a, rate b)
    y_t    ~ Poisson(l1) for t < s, Poisson(l2) for t >= s

The gamma prior is conjugate to the Poisson likelihood, so both rates
integrate out in closed form. With ``S1(s) = sum_{t<s} y_t`` and
``S2(s) = sum_{t>=s} y_t``, and dropping factors that do not depend on ``s``::

    p(s | y) propto Gamma(a + S1) / (b + s)^(a + S1)
                  * Gamma(a + S2) / (b + N - s)^(a + S2)

a distribution on ``N - 1`` points, computed exactly
(:func:`log_switchpoint_posterior`). Given ``s``, the rates are independent::

    l1 | s, y ~ Gamma(a + S1(s), b + s)
    l2 | s, y ~ Gamma(a + S2(s), b + N - s)

So every draw is exact and independent: ``s`` from its marginal posterior
(:func:`draw_switchpoint_given_data`), then the rates from their conditional
(:func:`draw_rates_given_switchpoint`). No burn-in is needed; ``tune`` draws
are made and discarded only to honour the contract.

:func:`sample_planted_bug` is the same sampler with an off-by-one in the
segment sums (:func:`segment_sums_planted_bug`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
from scipy import special


def segment_sums(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the counts and years of both segments for every switchpoint.

    Parameters
    ----------
    y : numpy.ndarray
        Yearly counts, shape (N,).

    Returns
    -------
    s : numpy.ndarray
        The switchpoints ``1 .. N-1``, shape (N-1,).
    early_sum, late_sum : numpy.ndarray
        ``sum(y[:s])`` and ``sum(y[s:])`` for each ``s``, shape (N-1,).
    early_years : numpy.ndarray
        ``s``, the number of years before the switch (the late segment has
        ``N - s``), shape (N-1,).
    """
    s = np.arange(1, y.size)
    cumulative = np.cumsum(y)
    early_sum = cumulative[s - 1]  # y[0] + ... + y[s-1]
    late_sum = cumulative[-1] - early_sum
    return s, early_sum, late_sum, s.astype(float)


def segment_sums_planted_bug(
    y: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return *wrong* segment sums (planted bug, for the harness to catch).

    Parameters
    ----------
    y : numpy.ndarray
        Yearly counts, shape (N,).

    Returns
    -------
    s, early_sum, late_sum, early_years : numpy.ndarray
        As :func:`segment_sums`, but the early sum includes year ``s`` itself.
    """
    s = np.arange(1, y.size)
    cumulative = np.cumsum(y)
    # PLANTED BUG: off by one. The early segment is y[0] .. y[s-1], whose sum is
    # cumulative[s-1]; cumulative[s] also counts y[s], the first late year.
    early_sum = cumulative[s]
    late_sum = cumulative[-1] - early_sum
    return s, early_sum, late_sum, s.astype(float)


def log_switchpoint_posterior(
    early_sum: np.ndarray,
    late_sum: np.ndarray,
    early_years: np.ndarray,
    n_years: int,
    a: float,
    b: float,
) -> np.ndarray:
    """Return the normalised log posterior of the switchpoint, rates integrated out.

    Parameters
    ----------
    early_sum, late_sum : numpy.ndarray
        Counts before and from each switchpoint, shape (N-1,).
    early_years : numpy.ndarray
        Years before each switchpoint, shape (N-1,).
    n_years : int
        ``N``.
    a, b : float
        Shape and rate of the gamma prior of each rate.

    Returns
    -------
    numpy.ndarray
        ``log p(s | y)`` for ``s = 1 .. N-1``, shape (N-1,); ``exp`` sums to 1.
    """
    late_years = n_years - early_years
    log_p = (
        special.gammaln(a + early_sum)
        - (a + early_sum) * np.log(b + early_years)
        + special.gammaln(a + late_sum)
        - (a + late_sum) * np.log(b + late_years)
    )
    return log_p - special.logsumexp(log_p)


def draw_switchpoint_given_data(
    rng: np.random.Generator, s: np.ndarray, log_p: np.ndarray, size: int
) -> np.ndarray:
    """Draw switchpoints from their exact marginal posterior.

    Parameters
    ----------
    rng : numpy.random.Generator
    s : numpy.ndarray
        The support ``1 .. N-1``, shape (N-1,).
    log_p : numpy.ndarray
        Its log probabilities, shape (N-1,).
    size : int
        Number of draws.

    Returns
    -------
    numpy.ndarray
        Integer switchpoints, shape (size,).
    """
    return rng.choice(s, size=size, p=np.exp(log_p))


def draw_rates_given_switchpoint(
    rng: np.random.Generator,
    index: np.ndarray,
    early_sum: np.ndarray,
    late_sum: np.ndarray,
    early_years: np.ndarray,
    n_years: int,
    a: float,
    b: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw both rates from their gamma conditional given each switchpoint.

    Parameters
    ----------
    rng : numpy.random.Generator
    index : numpy.ndarray
        Position of each drawn switchpoint in the support (``s - 1``), shape (M,).
    early_sum, late_sum, early_years : numpy.ndarray
        As for :func:`log_switchpoint_posterior`, shape (N-1,).
    n_years : int
        ``N``.
    a, b : float
        Shape and rate of the gamma prior of each rate.

    Returns
    -------
    early_rate, late_rate : numpy.ndarray
        Shape (M,): ``Gamma(a + S1, b + s)`` and ``Gamma(a + S2, b + N - s)``.
    """
    years = early_years[index]
    early = rng.gamma(a + early_sum[index]) / (b + years)
    late = rng.gamma(a + late_sum[index]) / (b + n_years - years)
    return early, late


def _run_chains(
    data: Mapping,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int | None,
    sums: Callable[[np.ndarray], tuple[np.ndarray, ...]],
) -> dict[str, np.ndarray]:
    """Draw exactly with the given segment sums; see :func:`sample`."""
    y = np.asarray(data["disasters"], dtype=np.int64)
    a, b = float(data["rate_alpha"]), float(data["rate_beta"])
    s, early_sum, late_sum, early_years = sums(y)
    log_p = log_switchpoint_posterior(early_sum, late_sum, early_years, y.size, a, b)
    out = {
        "switchpoint": np.empty((chains, draws), dtype=np.int64),
        "early_rate": np.empty((chains, draws)),
        "late_rate": np.empty((chains, draws)),
    }
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        switch = draw_switchpoint_given_data(rng, s, log_p, tune + draws)[tune:]
        early, late = draw_rates_given_switchpoint(
            rng, switch - 1, early_sum, late_sum, early_years, y.size, a, b
        )
        out["switchpoint"][c], out["early_rate"][c], out["late_rate"][c] = switch, early, late
    return out


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Draw the change-point posterior exactly (iid).

    Parameters
    ----------
    data : mapping
        ``disasters`` (N,) counts, ``rate_alpha``, ``rate_beta``; read, never modified.
    draws : int
        Kept draws per chain.
    tune : int
        Draws made and discarded per chain (the draws are iid: no burn-in needed).
    chains : int
        Independent chains, each with its own random stream.
    random_seed : int or None
        Seed of ``numpy.random.default_rng``; spawned into one stream per chain.

    Returns
    -------
    dict
        ``switchpoint`` (chains, draws) int64, ``early_rate`` and ``late_rate``
        (chains, draws).
    """
    return _run_chains(data, draws, tune, chains, random_seed, segment_sums)


def sample_planted_bug(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Draw like :func:`sample`, but with an off-by-one in the segment sums.

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
    return _run_chains(data, draws, tune, chains, random_seed, segment_sums_planted_bug)
