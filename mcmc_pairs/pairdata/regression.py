"""Data of the ``regression`` pair (seed 000): heights, weights and the priors' constants.

R's ``women`` (the default) and ``Davis`` ship in ``pairdata/files/`` (sources
and licences in its README); :func:`synthetic_data` simulates data sets of any
size for the benchmarks.
"""

from __future__ import annotations

import csv
import math
import numbers
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from mcmc_pairs.pairdata.checks import check_mapping, finite_array, positive_scalar

DATA_DIR = Path(__file__).parent / "files"
"""Folder of the shipped CSV files (see ``files/README.md``)."""


def _read_csv(name: str) -> dict[str, np.ndarray]:
    with open(DATA_DIR / name, newline="") as f:
        rows = list(csv.DictReader(f))
    return {
        key: np.array([float(row[key]) for row in rows], dtype=np.float64)
        for key in ("height", "weight")
    }


def women_data(*, m0: float = 1e6, m1: float = 1e6, epsilon: float = 1e-3) -> dict:
    """Return R's ``women`` data (15 rows, inches and pounds) with the seed's priors.

    Parameters
    ----------
    m0, m1 : float
        Prior variances of ``beta0`` and ``beta1``.
    epsilon : float
        Shape and scale of the inverse-gamma prior of ``sigma2``.

    Returns
    -------
    dict
        ``height`` (15,), ``weight`` (15,), ``m0``, ``m1``, ``epsilon``.
    """
    return {**_read_csv("women.csv"), "m0": m0, "m1": m1, "epsilon": epsilon}


def davis_data(
    *, corrected: bool = False, m0: float = 1e6, m1: float = 1e6, epsilon: float = 1e-3
) -> dict:
    """Return ``Davis`` from R's car package (200 rows, kg and cm) with the seed's priors.

    Parameters
    ----------
    corrected : bool
        Row 12 (index 11) has its measured height and weight swapped (57 cm,
        166 kg). False keeps the data as published; True swaps them back.
    m0, m1 : float
        Prior variances of ``beta0`` and ``beta1``.
    epsilon : float
        Shape and scale of the inverse-gamma prior of ``sigma2``.

    Returns
    -------
    dict
        ``height`` (200,), ``weight`` (200,), ``m0``, ``m1``, ``epsilon``.
    """
    data = _read_csv("davis.csv")
    if corrected:
        data["height"][11], data["weight"][11] = data["weight"][11], data["height"][11]
    return {**data, "m0": m0, "m1": m1, "epsilon": epsilon}


def default_data() -> dict:
    """Return the pair's default data: ``women`` with ``m0 = m1 = 1e6``, ``epsilon = 1e-3``.

    Returns
    -------
    dict
        ``height`` (15,), ``weight`` (15,), ``m0``, ``m1``, ``epsilon``.
    """
    return women_data()


def synthetic_data(
    n: int = 50,
    beta0: float = -87.0,
    beta1: float = 3.45,
    sigma2: float = 2.0,
    rng: np.random.Generator | None = None,
    *,
    height_loc: float = 65.0,
    height_scale: float = 4.5,
    m0: float = 1e6,
    m1: float = 1e6,
    epsilon: float = 1e-3,
) -> dict:
    """Simulate data from the model with known parameters.

    Heights are drawn from ``N(height_loc, height_scale**2)`` (the defaults
    resemble ``women``), weights from ``N(beta0 + beta1 * height, sigma2)``.

    Parameters
    ----------
    n : int
        Number of points, at least 3.
    beta0, beta1 : float
        True intercept and slope.
    sigma2 : float
        True noise variance, positive.
    rng : numpy.random.Generator, optional
        Random stream; a fresh unseeded one when None.
    height_loc, height_scale : float
        Location and scale of the simulated heights.
    m0, m1, epsilon : float
        Priors stored in the returned data.

    Returns
    -------
    dict
        ``height`` (n,), ``weight`` (n,), ``m0``, ``m1``, ``epsilon``.
    """
    if not isinstance(n, numbers.Integral) or n < 3:
        raise ValueError(f"n must be an integer >= 3, got {n!r}")
    if not (np.isfinite(sigma2) and sigma2 > 0):
        raise ValueError(f"sigma2 must be positive and finite, got {sigma2!r}")
    rng = np.random.default_rng() if rng is None else rng
    height = rng.normal(height_loc, height_scale, size=n)
    weight = beta0 + beta1 * height + math.sqrt(sigma2) * rng.standard_normal(n)
    return {"height": height, "weight": weight, "m0": m0, "m1": m1, "epsilon": epsilon}


def validate_data(data: Mapping) -> dict:
    """Check the regression data and return a normalised copy.

    Parameters
    ----------
    data : mapping
        ``height`` (N,) and ``weight`` (N,), finite, N >= 3, heights not all
        equal; ``m0``, ``m1``, ``epsilon`` positive and finite.

    Returns
    -------
    dict
        The same keys, arrays as new float64 arrays and scalars as floats.

    Raises
    ------
    ValueError
        Naming the offending key and value.
    """
    check_mapping(data)
    height = finite_array(data, "height", ndim=1)
    weight = finite_array(data, "weight", ndim=1)
    if height.shape != weight.shape:
        raise ValueError(
            f"height and weight must have the same length, got {height.size} and {weight.size}"
        )
    if height.size < 3:
        raise ValueError(f"height and weight need at least 3 points, got {height.size}")
    if np.ptp(height) == 0:
        raise ValueError(f"height must not be constant, got all values equal to {height[0]!r}")
    return {
        "height": height,
        "weight": weight,
        "m0": positive_scalar(data, "m0"),
        "m1": positive_scalar(data, "m1"),
        "epsilon": positive_scalar(data, "epsilon"),
    }
