r"""A multivariate two-sample check: the energy distance between two sides' draws.

Univariate checks miss a sampler that gets every marginal right and the
dependence wrong. The energy distance (Székely and Rizzo 2013) of two samples
:math:`X` (n draws) and :math:`Y` (m draws), in its unbiased form (a U-statistic),

.. math::

    E = \frac{2}{nm}\sum_{i,j}\lVert x_i - y_j\rVert
        - \frac{1}{n(n-1)}\sum_{i \ne i'}\lVert x_i - x_{i'}\rVert
        - \frac{1}{m(m-1)}\sum_{j \ne j'}\lVert y_j - y_{j'}\rVert,

is zero only when the two distributions are the same, whatever the
dimension. Here it is computed on every compared quantity at once (the
components, their centred products and the log densities: the products carry
the dependence), each standardised by its pooled sd, on draws thinned to
near-independence by the side's smallest bulk ESS (:data:`THIN_FACTOR`, at
most :data:`MAX_DRAWS` per side).

*Calibration that respects autocorrelation.* Thinned MCMC draws are not quite
independent, so labels are permuted in blocks: each chain's thinned draws are
cut into consecutive blocks of :func:`block_length` draws, and every one of
:data:`PERMUTATIONS` permutations deals whole blocks to the two sides (a block
permutation test, the two-sample form of the block bootstrap). The p-value is
``(1 + #{E* >= E}) / (1 + PERMUTATIONS)``. Its size on AR(1) chains with
rho = 0.9 is measured in ``tests/comparisons/test_energy.py``.

*Why thinning by the ESS makes the permutation null hold* (issue 40). A
permutation null treats the draws as exchangeable; MCMC draws are
autocorrelated, and a null built on them as if they were independent is too
narrow, the more so the slower the chain and the more quantities are pooled
(each adds its share of the understated variance). Thinning fixes it at the
source. For a component that is AR(1) with coefficient rho, the integrated
autocorrelation time is ``tau = (1 + rho) / (1 - rho)``, the ESS ``N / tau``,
and the step :data:`THIN_FACTOR` ``* tau = 2 tau``; the thinned draws' lag-1
autocorrelation is ``rho ** (2 tau) = exp(2 tau log rho)``, about
``exp(-2 (1 + rho))`` for rho near 1, at most 0.018 for any rho (0.008 at
rho = 0.3, 0.016 at 0.5 and 0.9, 0.018 at 0.99). The variance of a thinned mean is then
``1 + 2 sum_j rho ** (2 tau j)``, at most 1.04 times what exchangeable draws
would give, and the blocks of consecutive thinned draws that the permutations
deal keep even that within a block: a test at 5 % has size about
``P(|Z| > 1.96 / sqrt(1.04)) = 5.5 %``, which is what was measured (below). The
thinning uses the smallest bulk ESS over every quantity pooled, so the
slowest one sets it, and a side that is not converged (fewer than 400
effective draws) is never called ``disagree`` on this check alone
(:func:`~.agreement.verdict`: only a gross z-difference does). Measured sizes
on deliberately slow correct samplers (AR(1) with rho = 0.99, a random-walk
Metropolis in 50 dimensions) are in ``benchmarks/energy_slow.md``
(``scripts/energy_slow.py``).

*Permutations that keep the sample sizes, and an unbiased statistic.* Each
side is thinned by its own ESS, so the two sides keep different numbers of
draws per chain. Blocks of one length on both sides (:func:`block_length` of
the longer side's draws per chain; each chain's last, partial block left out)
make every permutation deal exactly n draws to the first side and m to the
second, as observed. Before, each side had blocks of its own length, a
permutation dealt samples of other sizes, and the V-statistic (``1/n**2``
over all pairs, the zero diagonal included), whose null expectation
``E||X - X'|| (1/n + 1/m)`` grows with the dimension, rejected every one of
200 correct pairs at 0.001 with 130 quantities, one side thinned to 500 draws
and the other to 51 (``benchmarks/energy_size.md``). The U-statistic's null
expectation is 0 for any n and m.

*The same bits on any machine load.* The check's matrix products run on one
BLAS thread (:func:`energy_test`): OpenBLAS splits a product differently for
different thread counts, and the sums then round differently (the critical
value moved in its 14th digit between one worker process and two).
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr
from threadpoolctl import threadpool_limits

THIN_FACTOR = 2
"""Draws are thinned to one per ``THIN_FACTOR`` effective draws' worth. Measured on
AR(1) chains with rho = 0.9 at nominal 5 %: one per effective draw rejected in 9 %
of 200 runs (the thinned draws are still correlated), one per two in 5.5 %."""
PERMUTATIONS = 1999
"""Block permutations per test: p-values down to 1/2000."""
MAX_DRAWS = 500
"""Thinned draws kept per side at most (the test costs O((n + m)^2) per permutation)."""
ALPHA = 0.001
"""False-alarm rate of one energy check; added to the z-checks' family-wise rate."""


def thin_step(total: int, ess: float, at_most: int) -> int:
    """Return the step that keeps one draw per :data:`THIN_FACTOR` effective draws.

    ``total`` draws (all chains) worth ``ess`` effective ones; raised so that at
    most ``at_most`` are kept in all. The energy check thins by it, and so do the
    report's rank plots (:func:`~.report.rank_step`).
    """
    step = math.ceil(THIN_FACTOR * total / max(ess, 1.0))
    return max(1, step, math.ceil(total / at_most))


def thinned(quantities: xr.DataArray, min_ess: float) -> np.ndarray:
    """Return near-independent draws: every chain thinned by the smallest bulk ESS.

    Parameters
    ----------
    quantities : xarray.DataArray
        Shape (chain, draw, quantity).
    min_ess : float
        The smallest bulk ESS of the quantities (all chains together).

    Returns
    -------
    ndarray, shape (chain, kept, quantity)
        Every ``step``-th draw of each chain, ``step`` = :data:`THIN_FACTOR`
        times the draws per effective draw (at least one), raised so that at
        most :data:`MAX_DRAWS` are kept in all.
    """
    chains, draws = quantities.sizes["chain"], quantities.sizes["draw"]
    min_ess = min_ess if np.isfinite(min_ess) else 1.0
    step = thin_step(chains * draws, min_ess, MAX_DRAWS)
    values = quantities.transpose("chain", "draw", "quantity").values
    return values[:, ::step, :]


def block_length(kept_per_chain: int) -> int:
    """Block length for ``kept_per_chain`` thinned draws per chain: about their cube root."""
    return max(1, round(kept_per_chain ** (1 / 3)))


def energy_statistics(distances: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Return the energy distance for every column of 0/1 ``labels``.

    Parameters
    ----------
    distances : ndarray, shape (N, N)
        Pairwise Euclidean distances of the pooled draws.
    labels : ndarray of float, shape (N, L)
        Each column marks the draws of the first sample with 1, the rest with 0.

    Returns
    -------
    ndarray, shape (L,)
    """
    x = labels
    y = 1.0 - labels
    n, m = x.sum(axis=0), y.sum(axis=0)
    dx = distances @ x
    dy = distances.sum(axis=1, keepdims=True) - dx  # distances @ y, without a second product
    s_xx = np.einsum("il,il->l", x, dx)
    s_xy = np.einsum("il,il->l", y, dx)
    s_yy = np.einsum("il,il->l", y, dy)
    return 2 * s_xy / (n * m) - s_xx / (n * (n - 1)) - s_yy / (m * (m - 1))


def energy_test(
    a: xr.DataArray,
    b: xr.DataArray,
    min_ess: tuple[float, float],
    rng: np.random.Generator,
    level: float = ALPHA,
) -> tuple[float, float, float]:
    """Return the energy distance of two sides, its p-value and its critical value.

    Parameters
    ----------
    a, b : xarray.DataArray
        Quantities of the two sides, shape (chain, draw, quantity), the same
        quantities, finite.
    min_ess : (float, float)
        The smallest bulk ESS of each side's quantities.
    rng : numpy.random.Generator
        For the permutations.
    level : float
        The check's false-alarm rate (default :data:`ALPHA`; a run given its own
        rate gets its share, :func:`~.budget.levels`).

    Returns
    -------
    statistic : float
        The energy distance of the thinned, standardised draws.
    p : float
        Block-permutation p-value.
    critical : float
        The ``1 - level`` quantile of the permutation distribution.
    """
    with threadpool_limits(limits=1, user_api="blas"):
        return _energy_test(a, b, min_ess, rng, level)


def _energy_test(
    a: xr.DataArray,
    b: xr.DataArray,
    min_ess: tuple[float, float],
    rng: np.random.Generator,
    level: float,
) -> tuple[float, float, float]:
    xa, xb = thinned(a, min_ess[0]), thinned(b, min_ess[1])
    length = min(block_length(max(xa.shape[1], xb.shape[1])), xa.shape[1], xb.shape[1])
    xa = xa[:, : xa.shape[1] // length * length]  # whole blocks of one length on both sides,
    xb = xb[:, : xb.shape[1] // length * length]  # so every permutation keeps n and m
    pooled = np.concatenate([xa.reshape(-1, xa.shape[-1]), xb.reshape(-1, xb.shape[-1])])
    scale = pooled.std(axis=0)
    keep = np.isfinite(scale) & (scale > 0)
    z = pooled[:, keep] / scale[keep]
    squared = (z**2).sum(axis=1)
    distances = np.sqrt(np.maximum(squared[:, None] + squared[None, :] - 2 * z @ z.T, 0.0))
    n_a = xa.shape[0] * xa.shape[1]
    blocks_a = _blocks(xa.shape[:2], length)
    blocks = blocks_a + _blocks(xb.shape[:2], length, offset=n_a)
    membership = np.zeros((len(pooled), len(blocks)))
    for k, index in enumerate(blocks):
        membership[index, k] = 1.0
    # every permutation deals as many whole blocks to the first side as it had
    dealt = np.argsort(rng.random((len(blocks), PERMUTATIONS)), axis=0)[: len(blocks_a)]
    chosen = np.zeros((len(blocks), PERMUTATIONS))
    np.put_along_axis(chosen, dealt, 1.0, axis=0)
    labels = membership @ chosen
    observed = np.zeros((len(pooled), 1))
    observed[:n_a, 0] = 1.0
    statistic = float(energy_statistics(distances, observed)[0])
    null = energy_statistics(distances, labels)
    p = (1 + np.count_nonzero(null >= statistic)) / (1 + PERMUTATIONS)
    return statistic, float(p), float(np.quantile(null, 1 - level))


DRIVERS = 3
"""Quantities :func:`drivers` names."""


def drivers(
    a: xr.DataArray, b: xr.DataArray, min_ess: tuple[float, float], top: int = DRIVERS
) -> list[tuple[str, float]]:
    """Return the quantities whose own distributions differ most: what drives the distance.

    The energy distance of all quantities at once does not say which of them
    differ; the one-dimensional energy distance of each (``scipy.stats.energy_distance``
    of the same thinned draws, each standardised by its pooled sd) does, for a
    difference in the marginals. When every marginal agrees and the check still
    fails, the dependence between the quantities differs.

    Parameters
    ----------
    a, b : xarray.DataArray
        Shape (chain, draw, quantity), the same quantities.
    min_ess : (float, float)
        The smallest bulk ESS of each side (thinning, as :func:`energy_test`).
    top : int
        How many to name.

    Returns
    -------
    list of (str, float)
        ``(quantity, distance)``, largest first.
    """
    from scipy.stats import energy_distance

    xa, xb = thinned(a, min_ess[0]), thinned(b, min_ess[1])
    xa, xb = xa.reshape(-1, xa.shape[-1]), xb.reshape(-1, xb.shape[-1])
    scale = np.concatenate([xa, xb]).std(axis=0)
    names = [str(q) for q in a["quantity"].values]
    found = [
        (names[i], float(energy_distance(xa[:, i] / scale[i], xb[:, i] / scale[i])))
        for i in range(len(names))
        if np.isfinite(scale[i]) and scale[i] > 0
    ]
    return sorted(found, key=lambda item: -item[1])[:top]


def _blocks(shape: tuple[int, int], length: int, offset: int = 0) -> list[np.ndarray]:
    """Return the indices of each chain's consecutive blocks in the pooled, chain-major order."""
    chains, kept = shape
    return [
        offset + c * kept + np.arange(start, min(start + length, kept))
        for c in range(chains)
        for start in range(0, kept, length)
    ]
