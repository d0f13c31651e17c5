"""The one PyMC runner: what compare runs, the twin runs, and the twin pickles."""

import pickle

import numpy as np

from comparisons import pymc_runner, simulation
from comparisons.loading import load_callable
from comparisons.registry import get_pair


def test_pymc_twin_pickles_and_runs_what_compare_runs():
    twin = pickle.loads(pickle.dumps(pymc_runner.PymcTwin(get_pair("bayes_net"))))
    assert twin == pymc_runner.PymcTwin(get_pair("bayes_net"))
    assert str(twin) == "pymc twin of bayes_net"
    data = simulation.simulator_for(twin.pair).data
    first = twin(data, draws=7, tune=5, chains=2, random_seed=1)
    again = twin(data, draws=7, tune=5, chains=2, random_seed=1)
    assert list(first) == ["B", "C", "D"]
    assert all(first[k].shape == (2, 7) and np.array_equal(first[k], again[k]) for k in first)
    assert twin.describe(data) == "BinaryGibbsMetropolis"
    # describe() names the sampler pm.sample runs, as compare's report does
    pair = get_pair("regression")
    data = simulation.simulator_for(pair).data
    model = load_callable(pair.model)(data)
    settings = {"draws": 5, "tune": 5, "chains": 1, "seed": 0}
    tree = pymc_runner.pymc_sample(model, settings, pair.pymc_kwargs, cores=1, quiet=True)
    library = tree["posterior"].attrs.get("inference_library")
    ran = pymc_runner.pymc_method(model, None, library)
    assert pymc_runner.PymcTwin(pair).describe(data) == ran


def test_a_step_method_replaces_the_pairs_keywords():
    pair = get_pair("mh_normal")
    model = load_callable(pair.model)(pair.load_data())
    settings = {"draws": 20, "tune": 10, "chains": 1, "seed": 3}
    tree = pymc_runner.pymc_sample(model, settings, pair.pymc_kwargs, "Metropolis", cores=1)
    assert tree["posterior"]["x"].shape == (1, 20)
    assert pymc_runner.pymc_method(model, "Metropolis", None) == "Metropolis"
    again = pymc_runner.pymc_sample(model, settings, pair.pymc_kwargs, "Metropolis", cores=1)
    assert np.array_equal(tree["posterior"]["x"], again["posterior"]["x"])  # seeded
