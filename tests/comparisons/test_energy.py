"""The multivariate check: its size on autocorrelated chains, its power on dependence bugs."""

import numpy as np
import pytest
import xarray as xr

from mcmc_pairs.comparisons import agreement, energy
from mcmc_pairs.handrolled import bayes_net, bivariate_normal, wrong_samplers
from mcmc_pairs.pairdata import bayes_net as bayes_net_data
from mcmc_pairs.pairdata import bivariate_normal as bivariate_data


def ar1(rng: np.random.Generator, rho: float, m: int = 2, draws: int = 1000) -> np.ndarray:
    x = np.empty((4, draws, m))
    x[:, 0] = rng.standard_normal((4, m))
    noise = np.sqrt(1 - rho**2) * rng.standard_normal((4, draws, m))
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    return x


def side(values: np.ndarray) -> tuple[xr.DataArray, float]:
    """Quantities of a (chain, draw, m) array, and a rough bulk ESS for thinning."""
    import arviz_stats as azs

    da = xr.DataArray(values, dims=("chain", "draw", "quantity"))
    ess = azs.ess(xr.Dataset({"q": da}), method="bulk")["q"].values
    return da, float(np.nanmin(ess))


def p_value(a: np.ndarray, b: np.ndarray, seed: int = 0) -> float:
    (qa, ea), (qb, eb) = side(a), side(b)
    return energy.energy_test(qa, qb, (ea, eb), np.random.default_rng(seed))[1]


def test_size_on_ar1_chains_with_rho_0_9_is_nominal():
    rng = np.random.default_rng(2026)
    runs, level = 200, 0.05
    rejected = sum(p_value(ar1(rng, 0.9), ar1(rng, 0.9), seed=r) <= level for r in range(runs))
    se = np.sqrt(level * (1 - level) / runs)
    assert abs(rejected / runs - level) <= 2 * se, rejected


def test_p_values_are_reproducible_and_bounded():
    rng = np.random.default_rng(1)
    a, b = ar1(rng, 0.5), ar1(rng, 0.5)
    assert p_value(a, b) == p_value(a, b)
    assert 1 / (1 + energy.PERMUTATIONS) <= p_value(a, b) <= 1


def test_every_number_is_the_same_whatever_blas_threads_the_caller_allows():
    """OpenBLAS rounds a product by its thread count: the check fixes one thread itself."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(7)
    a, b = rng.normal(size=(2, 4, 1000, 30))
    da = [xr.DataArray(x, dims=("chain", "draw", "quantity")) for x in (a, b)]
    results = []
    for threads in (1, 2, 4):
        with threadpool_limits(limits=threads, user_api="blas"):
            results.append(energy.energy_test(*da, (4000.0, 4000.0), np.random.default_rng(5)))
    assert results[0] == results[1] == results[2]  # bit for bit: statistic, p, critical value


def test_every_permutation_keeps_both_sample_sizes(monkeypatch):
    """Sides thinned differently: blocks of one length deal n and m draws, as observed."""
    seen = []
    original = energy.energy_statistics

    def spy(distances, labels):
        seen.append(labels.sum(axis=0))
        return original(distances, labels)

    monkeypatch.setattr(energy, "energy_statistics", spy)
    rng = np.random.default_rng(3)
    slow, fast = side(ar1(rng, 0.97, m=5)), side(ar1(rng, 0.2, m=5))
    energy.energy_test(slow[0], fast[0], (slow[1], fast[1]), np.random.default_rng(0))
    observed, permuted = seen
    assert observed[0] < 200  # the slow side keeps far fewer draws than the fast one
    assert np.all(permuted == observed[0])


def test_many_quantities_with_unequal_thinning_raise_no_alarm():
    """130 quantities, one side thinned to about 50 draws, the other to 500: before the
    fix (V-statistic, blocks of each side's own length) every such correct pair failed."""
    rng = np.random.default_rng(130)
    p = []
    for r in range(10):
        slow = side(ar1(rng, 0.95, m=130))
        fast = side(ar1(rng, 0.3, m=130))
        p.append(
            energy.energy_test(slow[0], fast[0], (slow[1], fast[1]), np.random.default_rng(r))[1]
        )
    assert sum(x <= 0.05 for x in p) <= 1 and min(p) > energy.ALPHA


@pytest.mark.parametrize(
    ("sample", "wrong", "data", "variables"),
    [
        (
            bivariate_normal.sample,
            wrong_samplers.bivariate_independent_marginals,
            bivariate_data.default_data(),
            ("x",),
        ),
        (
            bayes_net.sample,
            wrong_samplers.bayes_net_right_marginals_wrong_dependence,
            bayes_net_data.default_data(),
            ("B", "C", "D"),
        ),
    ],
    ids=["bivariate_independent_marginals", "bayes_net_right_marginals_wrong_dependence"],
)
def test_dependence_bugs_of_the_catalogue_are_caught(sample, wrong, data, variables):
    """On the harness's quantities: the components and their products, centred as one."""

    def components(sampler, seed):
        out = sampler(data, draws=1000, tune=200, chains=4, random_seed=seed)
        posterior = xr.Dataset(
            {v: (("chain", "draw", *np.shape(out[v])[2:]), out[v]) for v in variables}
        )
        return agreement.scalar_components(posterior, variables)

    reference = components(sample, 1)
    means = reference.mean(("chain", "draw"))
    centers = {str(q): float(means.sel(quantity=q)) for q in reference["quantity"].values}

    def quantities(comps):
        products = agreement.centred_products(comps, centers)
        return xr.concat([comps, products], dim="quantity").values

    def draws(sampler, seed):
        return quantities(reference if seed == 1 else components(sampler, seed))

    assert p_value(draws(sample, 1), draws(sample, 2)) > energy.ALPHA  # correct: no alarm
    assert p_value(draws(sample, 1), draws(wrong, 3)) <= energy.ALPHA  # the bug: caught
