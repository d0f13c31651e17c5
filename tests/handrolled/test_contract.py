"""The sampler contract (docs/contracts.md), checked on every hand-written sampler of every pair.

Every variant of ``Pair.handrolled`` in :data:`mcmc_pairs.comparisons.registry.PAIRS` runs
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
import inspect
from collections.abc import Mapping

import numpy as np
import pytest
import xarray as xr

from mcmc_pairs.comparisons.loading import load_callable
from mcmc_pairs.comparisons.registry import PAIRS, get_pair
from mcmc_pairs.comparisons.witness import ModelWitness
from mcmc_pairs.handrolled import _common

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
    """Same keys, and the same values bit for bit (NaN equal to NaN, e.g. a missing scale)."""
    return a.keys() == b.keys() and all(
        np.array_equal(a[k], b[k], equal_nan=np.asarray(a[k]).dtype.kind in "fc") for k in a
    )


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


# ------------------------------------------- continuing chains (the ``state`` keyword)

FIRST, SECOND = 5, 3  # FIRST + SECOND == DRAWS: the two calls together are the reference run

# Samplers that draw two blocks of random numbers of different kinds per run (normals or
# proposals, then uniforms or gammas): a run of FIRST draws does not use the first numbers
# of a run of FIRST + SECOND, so no continuation can match one longer run without changing
# today's draws for a seed. They continue the same chains instead (mcmc_pairs.handrolled._common).
CONTINUES_BUT_NOT_BIT_IDENTICAL = {
    "mcmc_pairs.handrolled.mh_normal:sample",
    "mcmc_pairs.handrolled.mh_normal:sample_independence",
    "mcmc_pairs.handrolled.mh_beta:sample",
    "mcmc_pairs.handrolled.mh_beta:sample_independence",
    "mcmc_pairs.handrolled.regression:sample",
    "mcmc_pairs.handrolled.regression:sample_blocked",
}


def everything(result) -> dict[str, np.ndarray]:
    """Posterior draws and per-draw sample stats, keyed ``group/name``."""
    if isinstance(result, xr.DataTree):
        return {
            f"{group}/{name}": var.values
            for group in ("posterior", "sample_stats")
            if group in result.children
            for name, var in result[group].data_vars.items()
        }
    return {f"posterior/{name}": np.asarray(values) for name, values in result.items()}


def call(pair, spec, *, draws, tune, chains=CHAINS, random_seed=SEED, data=None, **kwargs):
    data = pair.load_data() if data is None else data
    return everything(
        sampler_of(spec)(
            data, draws=draws, tune=tune, chains=chains, random_seed=random_seed, **kwargs
        )
    )


@functools.cache
def _reference_everything(pair_name: str, name: str):
    pair = get_pair(pair_name)
    return call(pair, pair.handrolled[name], draws=DRAWS, tune=TUNE)


def continued(pair, spec, state, *, chains=CHAINS):
    first = call(pair, spec, draws=FIRST, tune=TUNE, chains=chains, state=state)
    second = call(pair, spec, draws=SECOND, tune=0, chains=chains, state=state)
    return first, second


def spec_name(spec) -> str:
    return spec if isinstance(spec, str) else f"{spec.__module__}:{spec.__qualname__}"


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_state_none_and_an_empty_state_give_todays_draws(pair, name, spec):
    reference = _reference_everything(pair.name, name)
    assert same(call(pair, spec, draws=DRAWS, tune=TUNE, state=None), reference)
    state = {}
    assert same(call(pair, spec, draws=DRAWS, tune=TUNE, state=state), reference)
    assert state["chains"] == CHAINS
    assert sum(1 for _ in leaves(state, np.random.Generator)) >= CHAINS


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_continuing_gives_the_draws_of_one_longer_run(pair, name, spec):
    """``draws=FIRST`` then ``draws=SECOND, tune=0`` on one state == one run of ``DRAWS``.

    Posterior and sample stats, bit for bit. The samplers of
    :data:`CONTINUES_BUT_NOT_BIT_IDENTICAL` are held to less: the first call is
    today's run of ``FIRST`` draws, the continuation is reproducible and is not a
    restart (their module tests check that it starts from the stored point).
    """
    state = {}
    first, second = continued(pair, spec, state)
    reference = _reference_everything(pair.name, name)
    assert first.keys() == second.keys() == reference.keys()
    if spec_name(spec) not in CONTINUES_BUT_NOT_BIT_IDENTICAL:
        joined = {k: np.concatenate([first[k], second[k]], axis=1) for k in first}
        assert same(joined, reference)
        return
    assert same(first, call(pair, spec, draws=FIRST, tune=TUNE))
    again = continued(pair, spec, {})
    assert same(first, again[0]) and same(second, again[1])
    restarted = call(pair, spec, draws=SECOND, tune=0)
    assert not same(second, restarted)


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_a_state_for_other_chains_or_from_elsewhere_is_refused(pair, name, spec):
    state = {}
    call(pair, spec, draws=2, tune=0, chains=2, state=state)
    with pytest.raises(ValueError, match="state"):
        call(pair, spec, draws=2, tune=0, chains=3, state=state)
    with pytest.raises(ValueError, match="state"):
        call(pair, spec, draws=2, tune=0, chains=2, state={"x": 1.0, "chains": 2})
    with pytest.raises(ValueError, match="state"):
        call(pair, spec, draws=2, tune=0, chains=2, state=state | {"sampler": "someone else"})
    with pytest.raises(ValueError, match="state"):
        call(pair, spec, draws=2, tune=0, chains=2, state=[1, 2])


def leaves(value, kind=np.ndarray):
    """The objects of type ``kind`` in nested mappings and sequences."""
    if isinstance(value, Mapping):
        for v in value.values():
            yield from leaves(v, kind)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from leaves(v, kind)
    elif isinstance(value, kind):
        yield value


@pytest.mark.parametrize(("pair", "name", "spec"), VARIANTS, ids=IDS)
def test_a_state_shares_no_memory_with_the_data_or_the_draws(pair, name, spec):
    data = pair.load_data()
    before = copy.deepcopy(data)
    state = {}
    result = sampler_of(spec)(
        data, draws=FIRST, tune=TUNE, chains=CHAINS, random_seed=SEED, state=state
    )
    outputs = list(everything(result).values())
    for held in leaves(state):
        for other in [*leaves(data), *outputs]:
            assert not np.shares_memory(held, other)
    call(pair, spec, draws=SECOND, tune=0, data=data, state=state)
    assert_unchanged(before, data)


THREADED = [
    (pair, name, spec)
    for pair, name, spec in VARIANTS
    if "cores" in inspect.signature(sampler_of(spec)).parameters
]


@pytest.mark.parametrize(
    ("pair", "name", "spec"), THREADED, ids=[f"{p.name}:{n}" for p, n, _ in THREADED]
)
def test_chains_on_threads_give_the_sequential_draws_bit_for_bit(pair, name, spec, monkeypatch):
    """A sampler that runs its chains on threads (``cores``) draws the same on 1 or 4."""
    monkeypatch.setattr(_common, "PARALLEL_MIN_STEPS", 0)  # threads even for these few sweeps
    data = pair.load_data()
    sampler = sampler_of(spec)
    runs = [
        posterior(sampler(data, draws=DRAWS, tune=TUNE, chains=4, random_seed=SEED, cores=cores))
        for cores in (1, 4)
    ]
    for var, values in runs[0].items():
        np.testing.assert_array_equal(runs[1][var], values)
