"""Numeric kernels of the quantities: what is compared, drawn from each side's draws.

Everything in the statistics works on *quantities*: a ``DataArray`` with dims
``(chain, draw, quantity)`` holding, per draw, each scalar component of the
compared variables (:func:`scalar_components`) and the derived quantities that
probe joint structure (:func:`centred_products`). A *discrete* quantity
(:func:`discrete_quantities`: integer-valued draws on every side, or few distinct
values) is compared by its mean, its sd and the probabilities ``P(X <= k)`` at
the pooled draws' 5/50/95 % quantiles (:func:`lattice_indicators`), each the mean
of an indicator whose MCSE comes from the indicator's ESS: a quantile of a
lattice has no Monte Carlo error to estimate (its MCSE is 0 whenever the order
statistics tie). A quantity constant in every draw (:func:`constant_quantities`)
is compared exactly (:mod:`.constants`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons.kinds import Statistic
from mcmc_pairs.comparisons.pair import PROBS, quantile_label

SAMPLE_DIMS = ("chain", "draw")
"""The dims of a quantities array before ``quantity``."""
MAX_COMPONENTS_FOR_PRODUCTS = 6
"""Geweke's test and SBC add pairwise products (and sums) only up to this many components."""
ALL_PAIRS_UP_TO = 12
"""``compare`` multiplies every pair of components up to this many (at most 66 products)."""
MAX_PRODUCTS = 64
"""Beyond :data:`ALL_PAIRS_UP_TO` components, at most this many neighbour products."""

MAX_ATOMS = 100
"""A quantity whose draws (all sides pooled) take at most this many distinct values is
treated as discrete, as is one whose draws are integers on every side."""
DISCRETE_STATISTICS = (Statistic.MEAN, Statistic.SD)
"""What a discrete quantity is compared by itself; its quantiles become indicators."""


def discrete_quantities(sides: Mapping[str, xr.DataArray]) -> list[str]:
    """Return the quantities that lie on a lattice on every side: compared as discrete.

    A quantity is discrete when its draws are whole numbers on every side (a
    PyMC discrete variable, a count, a 0/1 node, an index) or when all sides'
    draws together take at most :data:`MAX_ATOMS` distinct values (the log
    density of a model whose variables are all discrete). Its quantiles then
    sit on atoms: two sides' 95 % quantiles may differ by a step of the lattice
    while their MCSEs, from the spacing of order statistics, are 0.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity), the same quantities.

    Returns
    -------
    list of str
        In the order of the first side's quantities.
    """
    if not sides:
        return []
    names = [str(q) for q in next(iter(sides.values()))["quantity"].values]
    names = [q for q in names if all(q in da.indexes["quantity"] for da in sides.values())]
    if not names:
        return []
    columns = {label: _draw_columns(da, names) for label, da in sides.items()}
    found = []
    for i, name in enumerate(names):
        # a continuous quantity shows many values (or a fraction) in its first draws
        head = next(iter(columns.values()))[: 4 * MAX_ATOMS, i]
        head = head[np.isfinite(head)]
        if np.any(head != np.round(head)) and np.unique(head).size > MAX_ATOMS:
            continue
        pooled = np.concatenate([values[:, i] for values in columns.values()])
        pooled = pooled[np.isfinite(pooled)]
        if pooled.size and (
            np.all(pooled == np.round(pooled)) or np.unique(pooled).size <= MAX_ATOMS
        ):
            found.append(name)
    return _with_lattice_products(names, found)


def _with_lattice_products(names: Sequence[str], found: list[str]) -> list[str]:
    """Add the centred products ``"a*b"`` (:func:`centred_products`) of two discrete factors.

    ``(a - c_a) (b - c_b)`` of two lattice quantities lies on a lattice too, but a
    shifted one (not whole numbers) with many atoms: two counts of means 4 and 100
    give hundreds. Independent chains share such values bit for bit, so a product
    left continuous is a false alarm of the copy and independence checks
    (``shipped/pymc_metropolis_elemwise``, PyMC's Metropolis on Poisson counts),
    and its quantiles' MCSE, from the spacing of order statistics, is wrong.
    """
    discrete = set(found)
    for name in names:
        a, star, b = name.partition("*")
        if star and name not in discrete and a in discrete and b in discrete:
            discrete.add(name)
    return [name for name in names if name in discrete]


def _draw_columns(da: xr.DataArray, names: Sequence[str]) -> np.ndarray:
    """Return the draws of ``names`` as a (chains * draws, quantity) array."""
    values = da.sel(quantity=list(names)).transpose("chain", "draw", "quantity").values
    return np.asarray(values, dtype=float).reshape(-1, len(names))


def indicator_name(quantity: str, cut: float) -> str:
    """Name the indicator quantity of ``quantity <= cut``: ``P(quantity <= cut)``."""
    return f"P({quantity} <= {cut:.6g})"


def lattice_indicators(
    sides: Mapping[str, xr.DataArray], discrete: Sequence[str], probs: Sequence[float] = PROBS
) -> dict[str, xr.DataArray]:
    """Return each side's indicators ``1[X <= k]`` of the discrete quantities, as quantities.

    For a discrete quantity ``X``, the cuts ``k`` are the pooled draws' (all
    sides together) 5, 50 and 95 % quantiles; a cut that every draw lies
    at or below moves down to the next atom below it, so that ``P(X <= k) < 1``;
    repeated cuts are kept once, and a quantity with at most two distinct
    values gets none (its mean already determines its distribution). Taken
    from the pooled draws, the cuts depend on the sides' sum, not on their
    difference, which is what a z-check tests.

    The mean of an indicator is ``P(X <= k)``; its MCSE (from the indicator's
    ESS) is well defined on a lattice, and its z-check, resolution and gates
    are a mean's: the resolution is measured in the indicator's sd,
    ``sqrt(P (1 - P))``, so the tolerance ``delta`` of ``P(X <= k95)`` is
    ``0.2 * 0.22 = 0.044`` in probability (a continuous quantity's 95 %
    quantile off by ``2 delta = 0.4`` sd moves its CDF there by about 0.041).

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity).
    discrete : sequence of str
        The quantities to cut (:func:`discrete_quantities`).
    probs : sequence of float
        The quantiles to cut at: those a continuous quantity would be compared by.

    Returns
    -------
    dict of str to DataArray
        Per side, shape (chain, draw, indicator), values 0.0 or 1.0; quantity
        names from :func:`indicator_name`. Empty arrays when there is nothing to cut.
    """
    cuts: list[tuple[str, float]] = []
    for name in discrete:
        pooled = np.concatenate(
            [np.asarray(da.sel(quantity=name).values, dtype=float).ravel() for da in sides.values()]
        )
        pooled = np.sort(pooled[np.isfinite(pooled)])
        atoms = np.unique(pooled)
        if atoms.size <= 2:
            continue
        chosen: list[float] = []
        for p in probs:
            cut = float(np.quantile(pooled, p, method="inverted_cdf"))
            if cut >= atoms[-1]:
                cut = float(atoms[-2])  # P(X <= max) = 1 says nothing: the atom below
            if cut not in chosen:
                chosen.append(cut)
        cuts += [(name, cut) for cut in chosen]
    out = {}
    for label, da in sides.items():
        columns = [
            (da.sel(quantity=name) <= cut).astype(float).drop_vars("quantity", errors="ignore")
            for name, cut in cuts
        ]
        names = [indicator_name(name, cut) for name, cut in cuts]
        if columns:
            out[label] = xr.concat(columns, dim="quantity").assign_coords(quantity=names)
            out[label] = out[label].transpose("chain", "draw", "quantity")
        else:
            out[label] = da.isel(quantity=slice(0, 0))
    return out


def scalar_components(posterior: xr.Dataset, variables: Sequence[str]) -> xr.DataArray:
    """Flatten the compared variables into scalar components.

    Parameters
    ----------
    posterior : xarray.Dataset
        Draws with dims ``(chain, draw, ...)``.
    variables : sequence of str
        Names of the variables to flatten.

    Returns
    -------
    xarray.DataArray
        Shape (chain, draw, quantity), ``quantity`` labelled like ArviZ:
        ``"beta0"``, ``"x[1]"``, ``"theta[2, 0]"``.
    """
    blocks, labels = [], []
    for var in variables:
        da = posterior[var].transpose(*SAMPLE_DIMS, ...)
        event_shape = da.shape[2:]
        blocks.append(da.values.reshape(da.shape[0], da.shape[1], -1))
        if not event_shape:
            labels.append(var)
        else:
            labels.extend(f"{var}[{', '.join(map(str, idx))}]" for idx in np.ndindex(*event_shape))
    values = np.concatenate(blocks, axis=2)
    return xr.DataArray(values, dims=(*SAMPLE_DIMS, "quantity"), coords={"quantity": labels})


def product_pairs(n: int) -> list[tuple[int, int]]:
    """Return the pairs of component indices whose centred products ``compare`` checks.

    The rule, bounded for high-dimensional variables: every pair when there are
    at most :data:`ALL_PAIRS_UP_TO` components; otherwise the neighbours
    ``(i, i + 1)`` in the flattened order (each component of a vector with the
    next, the last of one variable with the first of the next), thinned evenly
    to at most :data:`MAX_PRODUCTS`. So a 10-dimensional posterior gets all 45
    products and LDA's 650 components get 64, not 210,925.

    Parameters
    ----------
    n : int
        Number of scalar components.

    Returns
    -------
    list of (int, int)
    """
    if n <= ALL_PAIRS_UP_TO:
        return list(itertools.combinations(range(n), 2))
    neighbours = [(i, i + 1) for i in range(n - 1)]
    if len(neighbours) <= MAX_PRODUCTS:
        return neighbours
    keep = np.linspace(0, len(neighbours) - 1, MAX_PRODUCTS).round().astype(int)
    return [neighbours[k] for k in keep]


def centred_products(components: xr.DataArray, centers: Mapping[str, float]) -> xr.DataArray:
    """Return ``(a - c_a) * (b - c_b)`` for the pairs of :func:`product_pairs`, named ``"a*b"``.

    The centres are fixed numbers shared by both sides, so the mean of a
    product is comparable across sides (it is the covariance when the centres
    are the exact means).
    """
    names = list(components["quantity"].values)
    pairs = [(names[i], names[j]) for i, j in product_pairs(len(names))]
    if not pairs:
        return components.isel(quantity=slice(0, 0))
    centred = components.values - np.array([centers[n] for n in names])
    index = {name: k for k, name in enumerate(names)}
    values = np.stack([centred[..., index[a]] * centred[..., index[b]] for a, b in pairs], axis=-1)
    return xr.DataArray(
        values,
        dims=(*SAMPLE_DIMS, "quantity"),
        coords={"quantity": [f"{a}*{b}" for a, b in pairs]},
    )


def constant_quantities(sides: Mapping[str, xr.DataArray]) -> dict[str, set[str]]:
    """Return, per side, the quantities with one value in every draw of every chain.

    Parameters
    ----------
    sides : mapping of str to DataArray
        Quantities of each side, shape (chain, draw, quantity).

    Returns
    -------
    dict of str to set of str
        Side label to its constant quantities (a non-finite draw is never constant).
    """
    out = {}
    for label, da in sides.items():
        values = np.asarray(da.transpose("chain", "draw", "quantity").values, dtype=float)
        flat = values.reshape(-1, values.shape[-1])
        same = np.all(flat == flat[:1], axis=0) if len(flat) else np.zeros(flat.shape[-1], bool)
        out[label] = {str(q) for q, c in zip(da["quantity"].values, same, strict=True) if c}
    return out


def with_lattice_indicators(
    sides: Mapping[str, xr.DataArray], statistics: Sequence[str]
) -> tuple[dict[str, xr.DataArray], dict[str, list[str]]]:
    """Return the sides with their discrete quantities' indicators added, and what each compares.

    A discrete quantity (:func:`discrete_quantities`) is compared by its mean and
    sd only (:data:`DISCRETE_STATISTICS`), and its indicators ``P(X <= k)`` at the
    pooled quantiles (:func:`lattice_indicators`) by their mean; the second value
    maps each such quantity to its statistics (every other quantity: ``statistics``).
    """
    discrete = discrete_quantities(sides)
    probs = [p for p in PROBS if quantile_label(p) in statistics]
    indicators = lattice_indicators(sides, discrete, probs)
    statistics_of = {q: [s for s in statistics if s in DISCRETE_STATISTICS] for q in discrete}
    cut = [str(q) for q in next(iter(indicators.values()))["quantity"].values] if sides else []
    statistics_of.update({q: [s for s in statistics if s == Statistic.MEAN] for q in cut})
    if cut:
        sides = {
            label: xr.concat([da, indicators[label]], "quantity") for label, da in sides.items()
        }
    return dict(sides), statistics_of
