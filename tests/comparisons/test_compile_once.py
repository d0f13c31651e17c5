"""nutpie compiles a model once: the same draws as compiling afresh, fewer compiles."""

import numpy as np
import pymc as pm

from mcmc_pairs.comparisons import compile_once, pymc_runner
from mcmc_pairs.comparisons.compile_once import SameModel, SameStructure, data_constants
from mcmc_pairs.comparisons.registry import get_pair

SETTINGS = {"draws": 30, "tune": 30, "chains": 2, "seed": 4}


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


def test_one_model_sampled_again_is_compiled_once_with_the_same_draws():
    model = regression(*data(0))
    fresh = sample(model)
    compiles = SameModel()
    first, again = sample(model, compiles), sample(model, compiles)
    assert compiles.compiles == 1
    assert np.array_equal(first, fresh) and np.array_equal(again, fresh)
    sample(regression(*data(0)), compiles)  # another model object: compiled for itself
    assert compiles.compiles == 2


def test_models_with_other_data_share_a_compile_and_their_draws_do_not_depend_on_order():
    """Replication 3's draws are the same whether replication 1 compiled first or not."""
    in_turn = SameStructure()
    draws = [sample(regression(*data(seed)), in_turn) for seed in (1, 2, 3)]
    assert in_turn.compiles == 1
    alone = SameStructure()
    assert np.array_equal(sample(regression(*data(3)), alone), draws[2])
    assert alone.compiles == 1
    assert not np.array_equal(draws[0], draws[2])  # the data did go in


def test_a_model_that_differs_beyond_its_data_is_compiled_for_itself():
    """A prior scale (a scalar) or the number of observations changes the compiled code."""
    compiles = SameStructure()
    sample(regression(*data(1)), compiles)
    sample(regression(*data(1), prior_sd=5.0), compiles)
    assert compiles.compiles == 2
    sample(regression(*data(1, n=20)), compiles)
    assert compiles.compiles == 3


def test_the_twin_reuses_its_compile_across_replications(monkeypatch):
    """PymcTwin (SBC, Geweke) builds each replication's model and compiles the first only."""
    monkeypatch.setattr(pymc_runner, "TWIN_COMPILES", SameStructure())
    pair = get_pair("regression")
    twin = pymc_runner.PymcTwin(pair)
    base = pair.load_data()
    for shift in (0.0, 1.0):
        replication = {**base, "weight": np.asarray(base["weight"]) + shift}
        out = twin(replication, draws=10, tune=10, chains=1, random_seed=2)
        assert out["beta0"].shape == (1, 10)
    assert pymc_runner.TWIN_COMPILES.compiles == 1


def test_outside_a_block_nutpie_compiles_as_always():
    import nutpie

    compiles = SameModel()
    model = regression(*data(0))
    with compile_once.compiled_once(compiles):
        nutpie.compile_pymc_model(model)
        nutpie.compile_pymc_model(model)
    nutpie.compile_pymc_model(model)  # after the block: nutpie's own compile
    assert compiles.compiles == 1


def test_numbas_shape_error_is_kept_in_its_disk_cache():
    """The workaround of :func:`cache_shape_error_on_disk` still finds numba's templates."""
    from mcmc_pairs.comparisons.compile_once import cache_shape_error_on_disk, shape_error_templates

    cache_shape_error_on_disk()
    cache_shape_error_on_disk()  # idempotent
    found = [template._jit_options for template in shape_error_templates()]
    assert found and all(options.get("cache") is True for options in found)
