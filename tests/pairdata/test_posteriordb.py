"""posteriordb's posteriors: shipped data and draws load, and their PyMC models fit the draws."""

import functools
import hashlib
import importlib
import json
import math
import re

import numpy as np
import pytest
from pymc.initial_point import make_initial_point_fn
from pymc.model.transform.conditioning import remove_value_transforms

from mcmc_pairs.pairdata import posteriordb as pdb

NAMES = pdb.POSTERIORS
pytestmark = pytest.mark.usefixtures("python_linker")  # log densities and shapes, evaluated once


@functools.cache
def model_of(name):
    module, function = pdb.model_spec(name).split(":")
    return getattr(importlib.import_module(module), function)(pdb.load_data(name))


@functools.cache
def draws_of(name):
    return pdb.load_reference_draws(name)


def test_at_least_eight_posteriors_and_every_file_is_shipped_unchanged():
    index = json.loads((pdb.DATA_DIR / "posteriors.json").read_text(encoding="utf-8"))
    assert len(NAMES) >= 8 and len(set(NAMES)) == len(NAMES)
    assert set(index["posteriors"]) == set(NAMES)
    shipped = {p.name for p in pdb.DATA_DIR.iterdir()}
    for name in NAMES:
        entry = pdb.info(name)
        for kind in ("data", "draws"):
            raw = (pdb.DATA_DIR / entry["files"][kind]).read_bytes()
            assert hashlib.sha256(raw).hexdigest() == entry["sha256"][kind], (name, kind)
            shipped.discard(entry["files"][kind])
    assert shipped == {"posteriors.json", "README.md"}


@pytest.mark.parametrize("name", NAMES)
def test_info_names_source_licence_and_paths(name):
    entry = pdb.info(name)
    assert entry["name"] == name == f"{entry['data_name']}-{entry['model_name']}"
    assert entry["licence"].startswith("BSD-3-Clause") and entry["source"]
    stan = f"posterior_database/models/stan/{entry['model_name']}.stan"
    assert entry["paths"]["stan_model"] == stan
    assert re.fullmatch(r"[0-9a-f]{40}", entry["posteriordb_commit"])
    entry["dimensions"].clear()  # a copy: the next call is whole again
    assert pdb.info(name)["dimensions"]


@pytest.mark.parametrize("name", NAMES)
def test_data_are_numbers_and_arrays(name):
    data = pdb.load_data(name)
    for key, value in data.items():
        if isinstance(value, np.ndarray):
            assert value.dtype in (np.int64, np.float64) and value.ndim in (1, 2), key
        else:
            assert type(value) in (int, float), key


def test_data_keep_integers_apart_from_reals():
    kidiq = pdb.load_data("kidiq-kidscore_momiq")
    assert kidiq["kid_score"].dtype == np.int64 and kidiq["mom_iq"].dtype == np.float64
    assert kidiq["N"] == 434 and type(kidiq["N"]) is int and kidiq["kid_score"].shape == (434,)
    blr = pdb.load_data("sblrc-blr")
    assert blr["X"].shape == (100, 5) and blr["X"].dtype == np.float64
    assert type(pdb.load_data("garch-garch11")["sigma1"]) is float


@pytest.mark.parametrize("name", NAMES)
def test_reference_draws_are_the_models_free_variables(name):
    draws, entry, model = draws_of(name), pdb.info(name), model_of(name)
    nchains = entry["reference"]["nchains"]
    ndraws = entry["reference"]["ndraws"] // nchains
    assert {var: a.shape[:2] for var, a in draws.items()} == dict.fromkeys(draws, (nchains, ndraws))
    shapes = model.eval_rv_shapes()
    free = {rv.name: tuple(int(n) for n in shapes[rv.name]) for rv in model.free_RVs}
    assert free == {var: a.shape[2:] for var, a in draws.items()}
    assert entry["dimensions"] == {var: math.prod(a.shape[2:]) for var, a in draws.items()}


@pytest.mark.parametrize("name", NAMES)
def test_log_density_is_finite_at_the_reference_mean(name):
    model, draws = model_of(name), draws_of(name)
    mean = {var: a.mean(axis=(0, 1)) for var, a in draws.items()}
    overrides = {rv: mean[rv.name] for rv in model.free_RVs}
    point = make_initial_point_fn(model=model, overrides=overrides, jitter_rvs=set())(0)
    assert set(point) == set(model.initial_point())  # value variables: sigma_log__, ...
    assert np.isfinite(model.compile_logp()(point))
    # the constrained space, as the suite's witnesses evaluate draws
    plain = remove_value_transforms(model)
    assert np.isfinite(plain.compile_logp(jacobian=False)(mean))


@pytest.mark.parametrize("name", NAMES)
def test_model_spec_names_the_module(name):
    module, function = pdb.model_spec(name).split(":")
    assert module == "mcmc_pairs.models.posteriordb." + re.sub(r"[-.]", "_", name)
    assert function == "build_model"
    assert callable(getattr(importlib.import_module(module), function))


def _chains(**overrides):
    chains = [
        {"sigma": [1.0, 2.0, 3.0], "theta[2]": [5.0, 6.0, 7.0], "theta[1]": [1.5, 2.5, 3.5]},
        {"sigma": [4.0, 5.0, 6.0], "theta[1]": [0.5, 0.5, 0.5], "theta[2]": [9.0, 9.0, 9.0]},
    ]
    for chain in chains:
        chain.update(overrides)
    return chains


def test_parse_draws_builds_chain_draw_and_shape():
    draws = pdb.parse_draws(_chains())
    assert draws["sigma"].shape == (2, 3) and draws["theta"].shape == (2, 3, 2)
    np.testing.assert_array_equal(draws["sigma"][1], [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(draws["theta"][0, :, 0], [1.5, 2.5, 3.5])  # theta[1]
    np.testing.assert_array_equal(draws["theta"][1, :, 1], [9.0, 9.0, 9.0])  # theta[2]
    keys = {f"z[{i},{j}]": [10.0 * i + j] for i in (1, 2) for j in (1, 2, 3)}
    z = pdb.parse_draws([keys])["z"]
    assert z.shape == (1, 1, 2, 3) and z[0, 0, 0, 1] == 12.0 and z[0, 0, 1, 2] == 23.0


@pytest.mark.parametrize(
    ("chains", "match"),
    [
        ([], "non-empty list"),
        ([{"a": [1.0]}, {"a": [1.0, 2.0]}], "chains of different lengths"),
        ([{"a": [1.0, 2.0], "b": [1.0]}], "chains of different lengths"),
        ([{"a": [1.0]}, {"b": [1.0]}], "chain 1 has keys"),
        (_chains(sigma=[1.0, float("nan"), 3.0]), "draws of 'sigma': 2 of 6 values are NaN"),
        (_chains(sigma=[1.0, float("inf"), 3.0]), "NaN or infinite"),
        (_chains(sigma=[1.0, "2", 3.0]), "must be numbers"),
        ([{"theta[0]": [1.0]}], "malformed draws key 'theta\\[0\\]'"),
        ([{"theta[1": [1.0]}], "malformed draws key"),
        ([{"theta[1][2]": [1.0]}], "malformed draws key"),
        ([{"theta[a]": [1.0]}], "malformed draws key"),
        ([{"theta[1,]": [1.0]}], "malformed draws key"),
        ([{"2theta": [1.0]}], "malformed draws key"),
        ([{"theta[1]": [1.0], "theta[3]": [1.0]}], "misses indices"),
        ([{"theta": [1.0], "theta[1]": [1.0]}], "keys of different dimensions"),
    ],
)
def test_parse_draws_rejects_bad_input(chains, match):
    with pytest.raises(ValueError, match=match):
        pdb.parse_draws(chains)


@pytest.mark.parametrize(
    "function", [pdb.load_data, pdb.load_reference_draws, pdb.model_spec, pdb.info]
)
@pytest.mark.parametrize("bad", ["eight_schools-eight_schools_noncentered", "", None])
def test_an_unknown_name_is_refused_with_the_known_ones(function, bad):
    with pytest.raises(ValueError, match=f"^name must be one of {re.escape(', '.join(NAMES))}"):
        function(bad)
