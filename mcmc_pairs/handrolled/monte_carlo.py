"""Plain Monte Carlo: seed 002's estimate of pi by scattering rice on a square.

Throw ``n`` points uniformly on the square [-1, 1]^2; the fraction ``C / S``
landing in the inscribed unit disc estimates its area ratio ``pi / 4``, so
``pi_hat = 4 C / S`` (seed 002, 3.1). Each point is a Bernoulli(pi / 4) trial,
so ``pi_hat`` is unbiased with standard error::

    se = 4 sqrt(p (1 - p) / n),   p = pi / 4,   about 1.642 / sqrt(n)

estimated from the draws by plugging in ``p_hat = C / S``. The error shrinks as
``1 / sqrt(n)``: a hundred times more points buy one more correct digit.
:func:`estimates_by_n` and :func:`root_mean_square_errors` show it, and
:func:`loglog_slope` measures the exponent (about -0.5).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

CHUNK = 1_000_000
"""Points drawn at a time, to bound memory for large ``n``."""

P_DISC = np.pi / 4
"""Probability that a uniform point of the square falls in the disc."""


def _check_n(n: object, name: str = "n") -> int:
    """Check that ``n`` is an integer >= 1 and return it."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {n!r}")
    return int(n)


def count_in_disc(n: int, rng: np.random.Generator) -> int:
    """Throw ``n`` uniform points on [-1, 1]^2 and count those with x^2 + y^2 <= 1.

    Parameters
    ----------
    n : int
        Number of points, >= 1.
    rng : numpy.random.Generator

    Returns
    -------
    int
    """
    n = _check_n(n)
    hits, left = 0, n
    while left > 0:
        m = min(left, CHUNK)
        xy = rng.uniform(-1.0, 1.0, size=(m, 2))
        hits += int(np.count_nonzero((xy**2).sum(axis=1) <= 1.0))
        left -= m
    return hits


def estimate_pi(n: int, rng: np.random.Generator) -> tuple[float, float]:
    """Estimate pi from ``n`` points, with its estimated standard error.

    Parameters
    ----------
    n : int
        Number of points, >= 1.
    rng : numpy.random.Generator

    Returns
    -------
    estimate : float
        ``4 C / n``.
    standard_error : float
        ``4 sqrt(p_hat (1 - p_hat) / n)`` with ``p_hat = C / n``.
    """
    n = _check_n(n)
    p_hat = count_in_disc(n, rng) / n
    return 4.0 * p_hat, 4.0 * float(np.sqrt(p_hat * (1.0 - p_hat) / n))


def exact_standard_error(n: ArrayLike) -> np.ndarray:
    """Return the true standard error ``4 sqrt(p (1 - p) / n)``, ``p = pi / 4``.

    Parameters
    ----------
    n : array_like of int

    Returns
    -------
    ndarray of float, shape of ``n``
    """
    return 4.0 * np.sqrt(P_DISC * (1.0 - P_DISC) / np.asarray(n, dtype=np.float64))


def estimates_by_n(ns: Sequence[int], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Estimate pi once for each sample size.

    Parameters
    ----------
    ns : sequence of int
        Sample sizes, each >= 1.
    rng : numpy.random.Generator

    Returns
    -------
    estimates, standard_errors : ndarray of float, shape (len(ns),)
    """
    ns = [_check_n(n, "ns") for n in ns]
    results = np.array([estimate_pi(n, rng) for n in ns]).reshape(len(ns), 2)
    return results[:, 0], results[:, 1]


def root_mean_square_errors(
    ns: Sequence[int], replicates: int, rng: np.random.Generator
) -> np.ndarray:
    """Return the root mean square error of ``pi_hat`` over replicate runs, per sample size.

    Parameters
    ----------
    ns : sequence of int
        Sample sizes, each >= 1.
    replicates : int
        Independent estimates per sample size, >= 1.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of float, shape (len(ns),)
        ``sqrt(mean((pi_hat - pi) ** 2))``; close to :func:`exact_standard_error`.
    """
    ns = [_check_n(n, "ns") for n in ns]
    replicates = _check_n(replicates, "replicates")
    # The hit count of n points is Binomial(n, pi/4); drawing the points keeps it honest.
    errors = np.array(
        [[estimate_pi(n, rng)[0] - np.pi for _ in range(replicates)] for n in ns]
    ).reshape(len(ns), replicates)
    return np.sqrt((errors**2).mean(axis=1))


def loglog_slope(ns: Sequence[int], errors: Sequence[float]) -> tuple[float, float]:
    """Fit ``log(error) = a + slope * log(n)`` by least squares.

    Parameters
    ----------
    ns : sequence of int
        Sample sizes (at least 3, all > 0).
    errors : sequence of float
        Errors at those sizes (all > 0).

    Returns
    -------
    slope : float
        About -0.5 for Monte Carlo.
    slope_se : float
        Standard error of the slope from the regression residuals.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.log(np.asarray(ns, dtype=np.float64))
        y = np.log(np.asarray(errors, dtype=np.float64))
    if x.shape != y.shape or x.ndim != 1 or x.size < 3:
        raise ValueError(
            f"ns and errors must be 1-D of the same length >= 3, got {x.shape} and {y.shape}"
        )
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("ns and errors must be positive and finite")
    xc = x - x.mean()
    slope = float(xc @ (y - y.mean()) / (xc @ xc))
    residuals = y - y.mean() - slope * xc
    slope_se = float(np.sqrt(residuals @ residuals / (x.size - 2) / (xc @ xc)))
    return slope, slope_se
