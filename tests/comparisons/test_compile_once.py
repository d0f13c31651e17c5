"""nutpie compiles a model once: the same draws as compiling afresh, fewer compiles."""

import numpy as np
import pymc as pm

from mcmc_pairs.comparisons import compile_once, pymc_runner, reuse
from mcmc_pairs.comparisons.compile_once import SameStructure, data_constants
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.settings import SamplerRun

SETTINGS = SamplerRun(draws=30, tune=30, chains=2, seed=4)


def regression(x, y, prior_sd=2.0) -> pm.Model:
    """A small regression whose data are constants, as users write them."""
    with pm.Model() as model:
        slope = pm.Normal("slope", 0.0, prior_sd)
        noise = pm.HalfNormal("noise", 1.0)
        pm.Normal("y", mu=slope * x, sigma=noise, observed=y)
    return model


def data(seed: int, n: int = 12) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return x, 0.7 * x + rng.normal(size=n)


def sample(model, compiles=None) -> np.ndarray:
    tree = pymc_runner.pymc_sample(
        model, SETTINGS, {"nuts_sampler": "nutpie"}, None, compiles, cores=1, quiet=True
    )
    return tree["posterior"]["slope"].values


def test_the_data_of_a_model_are_its_arrays_that_are_read():
    """x and y are data; the scalars and the size of a vector variable are not."""
    from pymc.model.fgraph import fgraph_from_model

    x, y = data(0)
    model = regression(x, y)
    with model:
        pm.Normal("pair", 0.0, 1.0, shape=2)
    fgraph, _ = fgraph_from_model(model)
    found = [np.asarray(c.data) for c in data_constants(fgraph)]
    assert len(found) == 2
    assert {tuple(a) for a in found} == {tuple(x), tuple(y)}


def test_one_model_sampled_again_or_rebuilt_is_compiled_once_with_the_same_draws():
    """A compare's looks sample one model again; a compare run again rebuilds it."""
    model = regression(*data(0))
    compiles = SameStructure()
    first, again = sample(model, compiles), sample(model, compiles)
    rebuilt = sample(regression(*data(0)), compiles)
    assert (compiles.made, compiles.hits) == (1, 2)
    assert np.array_equal(first, again) and np.array_equal(rebuilt, first)


def test_a_model_with_initial_values_is_compiled_as_it_is():
    """PyMC cannot copy its graph (fgraph_from_model refuses initial values): no reuse."""
    compiles = SameStructure()
    x, y = data(0)
    with pm.Model() as model:
        slope = pm.Normal("slope", 0.0, 2.0, initval=0.5)
        pm.Normal("y", mu=slope * x, sigma=1.0, observed=y)
    first, again = sample(model, compiles), sample(model, compiles)
    assert (compiles.made, compiles.hits) == (2, 0)
    assert np.array_equal(first, again)


def test_other_coordinates_are_compiled_for_themselves():
    """The compile names the draws' dimensions by the model's coordinates."""
    compiles = SameStructure()
    x, y = data(0, n=3)
    for labels in (["a", "b", "c"], ["d", "e", "f"]):
        with pm.Model(coords={"case": labels}) as model:
            slope = pm.Normal("slope", 0.0, 2.0)
            pm.Normal("y", mu=slope * x, sigma=1.0, observed=y, dims="case")
        sample(model, compiles)
    assert (compiles.made, compiles.hits) == (2, 0)


def test_a_model_with_dims_is_compiled_once_too():
    """PyMC keeps a dimension's length in a shared variable nutpie's code never reads.

    It was handed to nutpie's ``with_data`` with the lifted data, which refused it
    (``KeyError: 'Unknown shared variable: coef'``) at every model with ``dims``
    sampled a second time (zoo/deterministic_dims in the power study).
    """
    compiles = SameStructure()
    x, y = data(0)

    def model_with_dims():
        with pm.Model(coords={"coef": ["intercept", "slope"]}) as model:
            beta = pm.Normal("beta", 0.0, 2.0, dims="coef")
            pm.Normal("y", mu=beta[0] + beta[1] * x, sigma=1.0, observed=y)
        return model

    def draws(model):
        tree = pymc_runner.pymc_sample(
            model, SETTINGS, {"nuts_sampler": "nutpie"}, None, compiles, cores=1, quiet=True
        )
        return tree["posterior"]["beta"].values

    first, again = draws(model_with_dims()), draws(model_with_dims())
    assert (compiles.made, compiles.hits) == (1, 1)
    assert np.array_equal(first, again)


def test_models_with_other_data_share_a_compile_and_their_draws_do_not_depend_on_order():
    """Replication 3's draws are the same whether replication 1 compiled first or not."""
    in_turn = SameStructure()
    draws = [sample(regression(*data(seed)), in_turn) for seed in (1, 2, 3)]
    assert (in_turn.made, in_turn.hits) == (1, 2)
    alone = SameStructure()
    assert np.array_equal(sample(regression(*data(3)), alone), draws[2])
    assert alone.made == 1
    assert not np.array_equal(draws[0], draws[2])  # the data did go in


def test_a_model_that_differs_beyond_its_data_is_compiled_for_itself():
    """A prior scale (a scalar) or the number of observations changes the compiled code."""
    compiles = SameStructure()
    sample(regression(*data(1)), compiles)
    sample(regression(*data(1), prior_sd=5.0), compiles)
    assert compiles.made == 2
    sample(regression(*data(1, n=20)), compiles)
    assert compiles.made == 3


def test_the_twin_reuses_its_compile_across_replications():
    """PymcTwin (SBC, Geweke) builds each replication's model and compiles the first only."""
    reuse.clear()
    pair = get_pair("regression")
    twin = pymc_runner.PymcTwin(pair)
    base = pair.load_data()
    for shift in (0.0, 1.0):
        replication = {**base, "weight": np.asarray(base["weight"]) + shift}
        out = twin(replication, draws=10, tune=10, chains=1, random_seed=2)
        assert out["beta0"].shape == (1, 10)
    assert reuse.NUTPIE.made == 1


def test_outside_a_block_nutpie_compiles_as_always():
    import nutpie

    compiles = SameStructure()
    model = regression(*data(0))
    with compile_once.compiled_once(compiles):
        nutpie.compile_pymc_model(model)
        nutpie.compile_pymc_model(model)
    nutpie.compile_pymc_model(model)  # after the block: nutpie's own compile
    assert (compiles.made, compiles.hits) == (1, 1)


def test_numbas_shape_error_is_kept_in_its_disk_cache():
    """The workaround of :func:`cache_shape_error_on_disk` still finds numba's templates."""
    from mcmc_pairs.comparisons.compile_once import cache_shape_error_on_disk, shape_error_templates

    cache_shape_error_on_disk()
    cache_shape_error_on_disk()  # idempotent
    found = [template._jit_options for template in shape_error_templates()]
    assert found and all(options.get("cache") is True for options in found)
