"""The one PyMC runner: what compare runs, the twin runs, and the twin pickles."""

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from mcmc_pairs.comparisons import pymc_runner, simulation
from mcmc_pairs.comparisons.loading import load_callable
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.settings import SamplerRun


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
    settings = SamplerRun(draws=5, tune=5, chains=1, seed=0)
    tree = pymc_runner.pymc_sample(model, settings, pair.pymc_kwargs, cores=1, quiet=True)
    library = tree["posterior"].attrs.get("inference_library")
    ran = pymc_runner.pymc_method(model, None, library)
    assert pymc_runner.PymcTwin(pair).describe(data) == ran


def test_a_step_method_replaces_the_pairs_keywords():
    pair = get_pair("mh_normal")
    model = load_callable(pair.model)(pair.load_data())
    settings = SamplerRun(draws=20, tune=10, chains=1, seed=3)
    tree = pymc_runner.pymc_sample(model, settings, pair.pymc_kwargs, "Metropolis", cores=1)
    assert tree["posterior"]["x"].shape == (1, 20)
    assert pymc_runner.pymc_method(model, "Metropolis", None) == "Metropolis"
    again = pymc_runner.pymc_sample(model, settings, pair.pymc_kwargs, "Metropolis", cores=1)
    assert np.array_equal(tree["posterior"]["x"], again["posterior"]["x"])  # seeded


def test_nutpie_runs_its_chains_on_every_core_with_the_same_draws(monkeypatch):
    """nutpie_cores: NUTS through nutpie gets the cores (PyMC's default would be one here)."""
    monkeypatch.setattr(pymc_runner, "default_nuts", lambda: "nutpie")
    monkeypatch.setattr("mcmc_pairs.comparisons.execution.available_cores", lambda: 3)
    assert pymc_runner.nutpie_cores({}, None) == {"cores": 3}
    assert pymc_runner.nutpie_cores({"nuts_sampler": "nutpie"}, None) == {"cores": 3}
    assert pymc_runner.nutpie_cores({"nuts_sampler": "pymc"}, None) == {}  # processes: PyMC's
    assert pymc_runner.nutpie_cores({}, "Metropolis") == {}
    pair = get_pair("bivariate_normal")
    model = load_callable(pair.model)(pair.load_data())
    settings = SamplerRun(draws=50, tune=50, chains=4, seed=11)
    draws = [
        pymc_runner.pymc_sample(model, settings, {"nuts_sampler": "nutpie"}, cores=cores)[
            "posterior"
        ]["x"].values
        for cores in (1, 2)
    ]
    np.testing.assert_array_equal(draws[0], draws[1])


def test_a_daemonic_worker_samples_on_one_core_with_the_same_draws(monkeypatch):
    """A Dask or multiprocessing worker may not start processes: PyMC's chains run in turn.

    The zoo's change point (Metropolis + NUTS) failed on the power study's workers with
    "daemonic processes are not allowed to have children" before.
    """
    import multiprocessing

    monkeypatch.setattr(pymc_runner, "default_nuts", lambda: "nutpie")
    monkeypatch.setattr("mcmc_pairs.comparisons.execution.available_cores", lambda: 3)
    assert pymc_runner.pymc_cores({}, None) == {"cores": 3}  # not a daemon: nutpie's threads
    with monkeypatch.context() as daemon:
        daemon.setattr(multiprocessing.current_process(), "daemon", True)
        assert pymc_runner.pymc_cores({}, None) == {"cores": 1}
        assert pymc_runner.pymc_cores({}, "Metropolis") == {"cores": 1}
        assert pymc_runner.pymc_cores({"cores": 2}, None) == {}  # the pair's own setting stays
    pair = get_pair("bayes_net")  # BinaryGibbsMetropolis: PyMC's own processes
    model = load_callable(pair.model)(pair.load_data())
    settings = SamplerRun(draws=50, tune=50, chains=4, seed=11)
    one, two = (pymc_runner.pymc_sample(model, settings, {}, cores=c) for c in (1, 2))
    assert all(np.array_equal(one["posterior"][v], two["posterior"][v]) for v in ("B", "C"))


FRESH_AND_WARM = """
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.pymc_runner import pymc_sample
from mcmc_pairs.comparisons.settings import SamplerRun
from mcmc_pairs.comparisons.witness import ModelWitness

pair = get_pair("regression")
witness = ModelWitness(pair.model, pair.load_data())
settings = SamplerRun(draws=50, tune=50, chains=2, seed=1)
posterior = pymc_sample(witness.model, settings, pair.pymc_kwargs, cores=1, quiet=True)
posterior = posterior["posterior"].to_dataset()
print([posterior[v].values.tobytes().hex() for v in pair.variables])
print({k: v.values.tobytes().hex() for k, v in witness.log_density(posterior).items()})
"""


def test_a_fresh_compile_cache_and_a_warm_one_give_the_same_bits(tmp_path):
    # PyTensor's numba backend compiles with fast-math by default: a fresh compile and one
    # assembled from its on-disk cache rounded differently, so the first run of `regression`
    # on a machine gave other draws than the next (witness.exact_arithmetic).
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={tmp_path / 'cache'}"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", FRESH_AND_WARM], env=env, capture_output=True, text=True
        )
        for _ in range(2)  # the first compiles into the empty cache, the second reads it
    ]
    assert all(run.returncode == 0 for run in runs), runs[0].stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout.count("\n") == 2


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conjugate_step"
STEP_FILE = """
import pymc as pm


class NotAStep:
    pass


def not_steps(model):
    return [1, 2]


def raises(model):
    raise RuntimeError("boom")


def metropolis_on_mu(model):
    return pm.Metropolis([model["mu"]])  # one step: PyMC assigns the rest
"""


def _example_model():
    data = json.loads((EXAMPLE / "data.json").read_text())
    return load_callable(f"{EXAMPLE}/model.py:build_model")(data), data


def test_a_users_step_method_is_named_parsed_and_run_with_the_same_draws_for_a_seed():
    assert pymc_runner.StepMethod.parse("examples/x.py:sample") is None  # a plain sampler
    step = pymc_runner.StepMethod.parse(f"pymc-step:{EXAMPLE}/step.py:ConjugateGibbs")
    assert str(step) == f"pymc-step:{EXAMPLE}/step.py:ConjugateGibbs"
    assert pymc_runner.StepMethod.parse(step) is step
    model, _ = _example_model()
    settings = SamplerRun(draws=30, tune=5, chains=2, seed=4)
    first = pymc_runner.pymc_sample(model, settings, {}, step, quiet=True)
    again = pymc_runner.pymc_sample(model, settings, {}, step, quiet=True)
    assert first["posterior"]["theta"].shape == (2, 30, 4)
    for name in ("mu", "sigma2", "tau2", "theta"):
        assert np.array_equal(first["posterior"][name], again["posterior"][name])
    assert pymc_runner.pymc_method(model, step, None) == str(step)
    assert pymc_runner.pymc_cores({}, step) == {"cores": 1}  # a user's class need not pickle


def test_the_twin_with_a_step_method_is_a_sampler_that_pickles(tmp_path):
    from mcmc_pairs.comparisons.byom import model_pair

    model_spec = f"{EXAMPLE}/model.py:build_model"
    _, data = _example_model()
    pair = model_pair(model_spec, data, None, name="conjugate_step")
    step = pymc_runner.StepMethod(f"{EXAMPLE}/step.py:ConjugateGibbsPlantedBug")
    twin = pickle.loads(pickle.dumps(pymc_runner.PymcTwin(pair, step)))
    assert str(twin) == str(step) and twin.describe(data) == str(step)
    draws = twin(data, draws=6, tune=2, chains=2, random_seed=1)
    assert sorted(draws) == ["mu", "sigma2", "tau2", "theta"]
    assert draws["theta"].shape == (2, 6, 4) and np.all(draws["sigma2"] > 0)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("NotAStep", "NotAStep is a class but not a PyMC step method"),
        ("not_steps", r"returned \[1, 2\], not a PyMC step method"),
        ("raises", "raised RuntimeError: boom"),
        ("missing", "has no callable named 'missing'"),
    ],
)
def test_a_step_that_is_not_one_is_bad_input_naming_the_argument(tmp_path, name, message):
    (tmp_path / "steps.py").write_text(STEP_FILE)
    model, _ = _example_model()
    with pytest.raises(ValueError, match=message) as caught:
        step = pymc_runner.StepMethod.parse(f"pymc-step:{tmp_path}/steps.py:{name}")
        step.steps(model)
    assert str(caught.value).startswith("--sampler pymc-step:")


def test_a_step_for_some_variables_leaves_the_rest_to_pymc(tmp_path):
    (tmp_path / "steps.py").write_text(STEP_FILE)
    model, _ = _example_model()
    step = pymc_runner.StepMethod.parse(f"pymc-step:{tmp_path}/steps.py:metropolis_on_mu")
    (made,) = step.steps(model)
    assert [v.name for v in made.vars] == ["mu"]
    settings = SamplerRun(draws=10, tune=10, chains=1, seed=0)
    tree = pymc_runner.pymc_sample(model, settings, {}, step, quiet=True)
    assert "accepted" in tree["sample_stats"]  # Metropolis's statistics are kept for the report


BINOMIAL = """
import pymc as pm


def build_model(data):
    with pm.Model() as model:
        p = pm.Uniform("p", 0.0, 1.0)
        pm.Binomial("y", n=5, p=p, observed=data["y"])
    return model
"""

UNIFORM = """
import numpy as np


def sample(data, *, draws, tune, chains, random_seed):
    return {"p": np.random.default_rng(random_seed).uniform(size=(chains, draws))}
"""


def test_a_model_pymc_cannot_start_is_exit_2_with_one_line_not_a_crash(tmp_path):
    """Issue 39: a count above the Binomial's n: nutpie's traceback, then exit 139, every time.

    Run as its own process: nutpie's threads, once its start failed, crash the
    interpreter's final garbage collection, which the program now skips.
    """
    import json
    import subprocess
    import sys

    (tmp_path / "model.py").write_text(BINOMIAL)
    (tmp_path / "sampler.py").write_text(UNIFORM)
    (tmp_path / "data.json").write_text(json.dumps({"y": [7, 2]}))
    argv = [
        sys.executable, "-m", "mcmc_pairs", "compare",
        "--model", f"{tmp_path}/model.py:build_model", "--sampler", f"{tmp_path}/sampler.py:sample",
        "--data", f"{tmp_path}/data.json",
        "--no-cache", "--draws", "100", "--tune", "100", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    errors = [line for line in done.stderr.splitlines() if line.startswith("mcmc-pairs: error")]
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(errors) == 1 and "no initial point has a finite log density" in errors[0]
    assert "initvals" in errors[0] and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
