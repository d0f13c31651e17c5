"""The sampler contract of DESIGN.md, checked on every hand-written sampler of every pair.

Every variant of ``Pair.handrolled`` in :data:`comparisons.registry.PAIRS` runs
on its pair's default data at tiny settings. It must return exactly the pair's
variables, each shaped ``(chains, draws, *event_shape)`` with the event shapes
of the PyMC twin; give the same draws for the same seed whatever the global
NumPy state, other draws for another seed; run chains that differ from each
other, each on its own stream; reject bad run settings with a ``ValueError``
naming the argument; and leave the data it was given as it was. The
statistical checks of each sampler stay in its module's test file.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping

import numpy as np
import pytest
import xarray as xr

from comparisons.loading import load_callable
from comparisons.registry import PAIRS, get_pair
from comparisons.witness import ModelWitness

DRAWS, TUNE, CHAINS = 8, 4, 3
SEED = 20260101

VARIANTS = [(pair, name, spec) for pair in PAIRS for name, spec in pair.handrolled.items()]
IDS = [f"{pair.name}:{name}" for pair, name, _ in VARIANTS]


@functools.cache
def event_shapes(pair_name: str) -> dict[str, tuple[int, ...]]:
    """Variable name to event shape, from the pair's PyMC twin on its default data."""
    pair = get_pair(pair_name)
    return ModelWitness(pair.model, pair.load_data()).variables


def sampler_of(spec):
    return load_callable(spec) if isinstance(spec, str) else spec


def posterior(result) -> dict[str, np.ndarray]:
    """The draws of a dict or of a DataTree's ``posterior`` group, as arrays."""
    if isinstance(result, xr.DataTree):
        return {name: var.values for name, var in result["posterior"].data_vars.items()}
    return {name: np.asarray(values) for name, values in result.items()}


def run(pair, spec, *, random_seed=SEED, chains=CHAINS, data=None):
    data = pair.load_data() if data is None else data
    result = sampler_of(spec)(data, draws=DRAWS, tune=TUNE, chains=chains, random_seed=random_seed)
    return posterior(result)


@functools.cache
def _reference_run(pair_name: str, name: str):
    pair = get_pair(pair_name)
    return run(pair, pair.handrolled[name])


def reference_run(pair, name):
    """The run at the default settings, made once per variant."""
    return _reference_run(pair.name, name)


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def assert_unchanged(before, after, where="data"):
    """Assert that nested mappings, sequences and arrays hold the same values."""
    if isinstance(before, Mapping):
        assert isinstance(after, Mapping) and before.keys() == after.keys(), where
        for key in before:
            assert_unchanged(before[key], after[key], f"{where}[{key!r}]")
    elif isinstance(before, list | tuple):
        assert type(after) is type(before) and len(after) == len(before), where
        for i, (x, y) in enumerate(zip(before, after, strict=True)):
            assert_unchanged(x, y, f"{where}[{i}]")
    else:
        assert type(after) is type(before), where
        np.testing.assert_array_equal(after, before, err_msg=where)
        assert np.shape(after) == np.shape(before), where


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_returns_the_pairs_variables_shaped_chains_draws_event(pair, name, spec):
    draws = reference_run(pair, name)
    assert set(draws) == set(pair.variables)
    shapes = event_shapes(pair.name)
    for var, values in draws.items():
        assert values.shape == (CHAINS, DRAWS, *shapes[var]), var


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_same_seed_same_draws_whatever_the_global_seed(pair, name, spec):
    np.random.seed(1)  # the sampler must ignore NumPy's global state
    first = run(pair, spec)
    np.random.seed(2)
    second = run(pair, spec)
    assert same(first, second)
    assert same(first, reference_run(pair, name))


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_different_seeds_give_different_draws(pair, name, spec):
    assert not same(run(pair, spec, random_seed=SEED + 1), reference_run(pair, name))


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_chains_differ_from_each_other(pair, name, spec):
    """Dispersed starts and one stream per chain: no two chains are the same."""
    draws = reference_run(pair, name)
    for c in range(CHAINS):
        for other in range(c):
            assert any(not np.array_equal(v[c], v[other]) for v in draws.values()), (c, other)


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_a_chain_does_not_depend_on_how_many_chains_run(pair, name, spec):
    """Chain ``c`` uses ``default_rng(random_seed).spawn(chains)[c]``."""
    alone = run(pair, spec, chains=1)
    together = reference_run(pair, name)
    assert same(alone, {var: values[:1] for var, values in together.items()})


BAD_SETTINGS = [
    ("draws", 0),
    ("draws", 2.5),
    ("tune", -1),
    ("chains", 0),
    ("chains", True),
    ("random_seed", -1),
    ("random_seed", 1.5),
]


@pytest.mark.parametrize(
    ("argument", "value"), BAD_SETTINGS, ids=[f"{a}={v}" for a, v in BAD_SETTINGS]
)
@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_bad_settings_raise_naming_the_argument(pair, name, spec, argument, value):
    settings = {"draws": DRAWS, "tune": TUNE, "chains": CHAINS, "random_seed": SEED}
    with pytest.raises(ValueError, match=argument):
        sampler_of(spec)(pair.load_data(), **(settings | {argument: value}))


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_the_data_passed_in_is_not_modified(pair, name, spec):
    data = pair.load_data()
    before = copy.deepcopy(data)
    run(pair, spec, data=data)
    assert_unchanged(before, data)
