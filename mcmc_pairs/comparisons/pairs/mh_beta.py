"""Pair ``mh_beta``: seed 003's Metropolis–Hastings on Beta(2.31, 0.627) against PyMC.

(The seed's text says ``a = 2.37``; its code uses 2.31, and so does this pair.)

Hand-rolled variants: ``random_walk`` (seed 003's ``N(x, 1)`` proposal on the
seed's scale, its scale tuned during ``tune`` only, out-of-support proposals
rejected) and ``independence`` (seed 001 section 6.3, proposal
``Beta(min(a, 1), min(b, 1))`` with the Hastings correction). The PyMC twin is
``pm.Beta``; PyMC's ``pm.Metropolis`` works on it too.

Settings: 10 000 draws per chain. The density is unbounded at 1 (``b < 1``)
and the random walk sticks near 1: at 1000 draws its tail ESS was below 400 in
20 of 20 seeds (as low as 47) and R-hat up to 1.04. At 10 000 draws the bulk
ESS was at least 1064 and the tail ESS at least 423 (1st percentile 533) in
100 of 100 seeds, R-hat at most 1.007. All other samplers are cheap at this
length (the independence sampler and NUTS have ESS far above the gates).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from mcmc_pairs.comparisons.pair import PROBS, ExactMarginal, Pair, PlantedShifts
from mcmc_pairs.pairdata.mh_beta import default_data, validate_data

if TYPE_CHECKING:
    import xarray as xr
    from numpy.typing import ArrayLike


def logdensity(x: ArrayLike, data: Mapping) -> np.ndarray:
    """Return ``log Beta(x | a, b)`` of validated ``data``; ``-inf`` outside the open (0, 1)."""
    from scipy import stats

    x = np.asarray(x, dtype=float)
    inside = (x > 0.0) & (x < 1.0)
    value = stats.beta(data["a"], data["b"]).logpdf(np.where(inside, x, 0.5))
    return np.where(inside, value, -np.inf)


def log_density(posterior: xr.Dataset, data: Mapping, centers: Mapping) -> dict[str, xr.DataArray]:
    """Return ``{"logp": log Beta(x | a, b)}`` of every draw, shape (chain, draw).

    Parameters
    ----------
    posterior : xarray.Dataset
        Draws with ``x`` of dims (chain, draw).
    data : mapping
        The pair's data.
    centers : mapping
        Unused (the harness's fixed centres of the scalar components).

    Returns
    -------
    dict of str to xarray.DataArray
        ``logp``, dims (chain, draw); ``-inf`` for a draw outside (0, 1).
    """
    import xarray as xr

    d = validate_data(data)
    return {"logp": xr.apply_ufunc(lambda x: logdensity(x, d), posterior["x"])}


def logp_moments(a: float, b: float) -> tuple[float, float]:
    """Exact mean and sd of ``L = log Beta(X | a, b)`` for ``X ~ Beta(a, b)``.

    ``L = -log B(a, b) + (a - 1) log X + (b - 1) log(1 - X)``, and with
    ``s = a + b``: ``E log X = psi(a) - psi(s)``, ``E log(1 - X) = psi(b) - psi(s)``,
    ``Var log X = psi1(a) - psi1(s)``, ``Var log(1 - X) = psi1(b) - psi1(s)``,
    ``Cov(log X, log(1 - X)) = -psi1(s)``.

    Parameters
    ----------
    a, b : float
        Beta parameters, > 0.

    Returns
    -------
    tuple of float
        ``(mean, sd)``.
    """
    from scipy import special

    s = a + b
    psi, psi1 = special.digamma, lambda v: special.polygamma(1, v)
    mean = -special.betaln(a, b) + (a - 1) * (psi(a) - psi(s)) + (b - 1) * (psi(b) - psi(s))
    var = (
        (a - 1) ** 2 * (psi1(a) - psi1(s))
        + (b - 1) ** 2 * (psi1(b) - psi1(s))
        - 2 * (a - 1) * (b - 1) * psi1(s)
    )
    return float(mean), float(np.sqrt(max(float(var), 0.0)))


def exact(data: Mapping) -> dict[str, ExactMarginal]:
    """Exact distributions of ``x`` and of its log density ``logp``.

    ``x ~ Beta(a, b)``. The mean and sd of ``logp`` are in closed form
    (:func:`logp_moments`). When ``a >= 1 >= b`` (the default) ``logp`` is
    increasing in ``x``, so its quantiles are the log density at the quantiles
    of ``x``; when ``a <= 1 <= b`` it is decreasing; otherwise its quantiles are
    not given (and are not checked).

    Parameters
    ----------
    data : mapping
        The pair's data.

    Returns
    -------
    dict of str to ExactMarginal
        Keys ``"x"`` and ``"logp"``.
    """
    from scipy import stats

    d = validate_data(data)
    a, b = d["a"], d["b"]
    target = stats.beta(a, b)
    mean, sd = logp_moments(a, b)
    quantiles = {}
    if a >= 1.0 >= b:
        quantiles = {p: float(logdensity(target.ppf(p), d)) for p in PROBS}
    elif a <= 1.0 <= b:
        quantiles = {p: float(logdensity(target.ppf(1.0 - p), d)) for p in PROBS}
    return {
        "x": ExactMarginal.from_scipy(target),
        "logp": ExactMarginal(mean=mean, sd=sd, quantiles=quantiles),
    }


PAIR = Pair(
    name="mh_beta",
    title="Metropolis–Hastings on Beta(2.31, 0.627): random walk and independence sampler",
    seed="003_032267b94d21de83.txt",
    load_data=default_data,
    model="mcmc_pairs.models.mh_beta:build_model",
    handrolled={
        "random_walk": "mcmc_pairs.handrolled.mh_beta:sample",
        "independence": "mcmc_pairs.handrolled.mh_beta:sample_independence",
    },
    variables=("x",),
    derived=log_density,
    reference=exact,
    settings={"draws": 10000, "tune": 1000, "chains": 4},
    pymc_steps={"metropolis": "Metropolis"},
    wrong={
        "independence_without_hastings": (
            "mcmc_pairs.handrolled.wrong_samplers:mh_beta_independence_without_hastings"
        ),
        "random_walk_accepting_out_of_support": (
            "mcmc_pairs.handrolled.wrong_samplers:mh_beta_random_walk_accepting_out_of_support"
        ),
    },
    planted=PlantedShifts(("x", ()), None, mean="reflect0", sd="shrink", corr=None),
)
