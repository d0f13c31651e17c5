"""The quantities compared: components, centred products, lattice (discrete) quantities."""

import numpy as np
import pytest
import xarray as xr

from mcmc_pairs.comparisons.stats import quantities


def test_scalar_components_are_labelled_like_arviz():
    post = xr.Dataset(
        {
            "a": (("chain", "draw"), np.zeros((2, 3))),
            "m": (("chain", "draw", "i", "j"), np.arange(2 * 3 * 2 * 2.0).reshape(2, 3, 2, 2)),
        }
    )
    comps = quantities.scalar_components(post, ["a", "m"])
    assert list(comps["quantity"].values) == ["a", "m[0, 0]", "m[0, 1]", "m[1, 0]", "m[1, 1]"]
    np.testing.assert_array_equal(comps.sel(quantity="m[1, 0]"), post["m"][:, :, 1, 0])


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, 0),
        (10, 45),  # eight schools: mu, tau2, theta[0..7]: every pair
        (quantities.ALL_PAIRS_UP_TO, 66),
        (quantities.ALL_PAIRS_UP_TO + 1, quantities.ALL_PAIRS_UP_TO),  # neighbours
        (650, quantities.MAX_PRODUCTS),  # LDA's theta and phi: bounded
    ],
)
def test_products_follow_the_documented_bound(n, expected):
    pairs = quantities.product_pairs(n)
    assert len(pairs) == expected
    assert all(0 <= i < j < n for i, j in pairs)
    if n > quantities.ALL_PAIRS_UP_TO:
        assert all(j == i + 1 for i, j in pairs)
        assert pairs[0] == (0, 1) and pairs[-1] == (n - 2, n - 1)  # both ends covered


def test_centred_products_are_named_and_centred():
    rng = np.random.default_rng(0)
    post = xr.Dataset({"v": (("chain", "draw", "k"), rng.normal(size=(2, 3, 3)))})
    comps = quantities.scalar_components(post, ["v"])
    centers = {"v[0]": 1.0, "v[1]": -2.0, "v[2]": 0.5}
    products = quantities.centred_products(comps, centers)
    assert list(products["quantity"].values) == ["v[0]*v[1]", "v[0]*v[2]", "v[1]*v[2]"]
    expected = (post["v"][..., 0] - 1.0) * (post["v"][..., 2] - 0.5)
    np.testing.assert_allclose(products.sel(quantity="v[0]*v[2]"), expected)


# A switchpoint-like posterior on 30..50 whose 95 % quantile sits just below a step of the
# CDF (CDF(43) = 0.953; the change-point model had CDF(44) = 0.954): with 4,000
# draws the empirical CDF(43) falls below 0.95 in a fifth of the runs, so two sides' 95 %
# quantiles often differ by one atom while their quantile MCSEs are 0.
SUPPORT = np.arange(30, 51)
PMF = np.exp(-0.5 * ((SUPPORT - 39.85) / 2.2) ** 2)
PMF /= PMF.sum()


def lattice_side(seed: int, shift: int = 0, chains: int = 4, draws: int = 1000) -> xr.DataArray:
    """Draws of the lattice posterior (iid) and a continuous rate beside it."""
    rng = np.random.default_rng(seed)
    s = rng.choice(SUPPORT, p=PMF, size=(chains, draws)) + shift
    rate = rng.gamma(30.0, 0.1, size=(chains, draws))
    values = np.stack([s.astype(float), rate], axis=-1)
    return xr.DataArray(values, dims=("chain", "draw", "quantity"), coords={"quantity": ["s", "r"]})


def test_the_lattice_has_its_95_quantile_on_a_step():
    cdf = np.cumsum(PMF)
    k = SUPPORT[np.searchsorted(cdf, 0.95)]
    assert k == 43 and 0.95 < cdf[SUPPORT == k][0] < 0.955


def test_discrete_quantities_are_whole_numbers_or_few_atoms():
    a, b = lattice_side(1), lattice_side(2)
    assert quantities.discrete_quantities({"a": a, "b": b}) == ["s"]
    few = a.copy(data=np.stack([a.values[..., 0] / 3, a.values[..., 1]], axis=-1))
    assert quantities.discrete_quantities({"a": few}) == ["s"]  # 21 atoms, not integers
    assert quantities.discrete_quantities({"a": a.isel(quantity=[1])}) == []


def test_the_centred_product_of_two_counts_is_discrete_and_of_a_count_and_a_real_is_not():
    rng = np.random.default_rng(3)
    counts = rng.poisson([4.0, 100.0], size=(4, 1000, 2)).astype(float)
    real = rng.normal(size=(4, 1000, 1))
    components = xr.DataArray(
        np.concatenate([counts, real], axis=-1),
        dims=("chain", "draw", "quantity"),
        coords={"quantity": ["x[3]", "x[5]", "y"]},
    )
    products = quantities.centred_products(components, {"x[3]": 4.1, "x[5]": 99.7, "y": 0.0})
    side = xr.concat([components, products], dim="quantity")
    lattice = products.sel(quantity="x[3]*x[5]").values
    assert np.any(lattice != np.round(lattice))  # not whole numbers,
    assert np.unique(lattice).size > quantities.MAX_ATOMS  # and too many atoms to count
    assert quantities.discrete_quantities({"a": side}) == ["x[3]", "x[5]", "x[3]*x[5]"]
