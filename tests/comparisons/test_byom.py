"""Bring your own model: a model and a sampler the project has never seen, end to end.

The model is the BUGS "pumps" example (Gaver and O'Muircheartaigh 1987; George,
Makov and Smith 1993): failures ``y_i ~ Poisson(lambda_i t_i)`` of ten pumps run
for ``t_i`` thousand hours, ``lambda_i ~ Gamma(alpha, beta)`` with alpha fixed,
``beta ~ Gamma(gamma, delta)``. Its Gibbs sampler draws from the two conjugate
full conditionals. Both files are written to a temporary directory, as a user's
would be, and reach the harness only through ``--model`` and ``--sampler``.
"""

import json
import textwrap

import numpy as np
import pytest

from mcmc_pairs.comparisons import cli
from mcmc_pairs.comparisons.testing import assert_agree, compare

MODEL = '''
"""Pumps: hierarchical Poisson-Gamma failure rates."""
import numpy as np
import pymc as pm

def build_model(data):
    with pm.Model() as model:
        beta = pm.Gamma("beta", alpha=data["gamma"], beta=data["delta"])
        rate = pm.Gamma("rate", alpha=data["alpha"], beta=beta, shape=len(data["y"]))
        pm.Poisson("y", mu=rate * np.asarray(data["t"]), observed=data["y"])
    return model

def broken_model(data):
    raise KeyError("t_hours")

def potential_model(data):
    with pm.Model() as model:
        x = pm.Normal("x")
        pm.Potential("pull", -x**2)
    return model

def misnamed_model(data):
    with pm.Model() as model:
        beta = pm.Gamma("beta", alpha=1.0, beta=1.0)
        pm.Poisson("failures", mu=beta, observed=data["y"])
    return model

def flat_model(data):
    with pm.Model() as model:
        beta = pm.HalfFlat("beta")
        pm.Poisson("y", mu=beta, observed=data["y"])
    return model
'''

SAMPLER = """
import numpy as np

def draw_rate_given_rest(beta, data, rng):
    return rng.gamma(data["alpha"] + data["y"], 1.0 / (beta + data["t"]))

def draw_beta_given_rest(rate, data, rng):
    shape = data["gamma"] + len(rate) * data["alpha"]
    return rng.gamma(shape, 1.0 / (data["delta"] + rate.sum()))

def sample(data, *, draws, tune, chains, random_seed, wrong=False):
    data = {k: np.asarray(v, dtype=float) for k, v in data.items()}
    n = len(data["y"])
    beta_out = np.empty((chains, draws))
    rate_out = np.empty((chains, draws, n))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        beta = rng.gamma(data["gamma"], 1.0 / data["delta"]) + 0.1
        for i in range(tune + draws):
            rate = draw_rate_given_rest(beta, data, rng)
            if wrong:  # beta's rate adds the number of pumps where the sum of the rates belongs
                beta = rng.gamma(data["gamma"] + n * data["alpha"], 1.0 / (data["delta"] + n))
            else:
                beta = draw_beta_given_rest(rate, data, rng)
            if i >= tune:
                beta_out[c, i - tune], rate_out[c, i - tune] = beta, rate
    return {"beta": beta_out, "rate": rate_out}

def sample_wrong(data, *, draws, tune, chains, random_seed):
    return sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed, wrong=True)

def sample_extra(data, *, draws, tune, chains, random_seed):
    out = sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)
    return {**out, "latent": np.zeros((chains, draws))}

def sample_missing(data, *, draws, tune, chains, random_seed):
    out = sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)
    return {"beta": out["beta"]}

def sample_bad_shape(data, *, draws, tune, chains, random_seed):
    out = sample(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)
    return {"beta": out["beta"], "rate": out["rate"][..., :3]}
"""

PUMPS = {
    "y": [5, 1, 5, 14, 3, 19, 1, 1, 4, 22],
    "t": [94.3, 15.7, 62.9, 126.0, 5.24, 31.4, 1.05, 1.05, 2.1, 10.5],
    "alpha": 1.802,
    "gamma": 0.1,
    "delta": 1.0,
}
SMALL = ["--draws", "500", "--tune", "300", "--chains", "4", "--seed", "7"]


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    root = tmp_path_factory.mktemp("user")
    (root / "pumps.py").write_text(textwrap.dedent(MODEL))
    (root / "gibbs.py").write_text(textwrap.dedent(SAMPLER))
    (root / "pumps.json").write_text(json.dumps(PUMPS))
    # Validation simulates data from the prior: gamma = 0.1 puts beta near 0 now and then,
    # and Poisson counts beyond int64. Geweke's test functions rate and rate^2 need finite
    # variances, so E[beta^-4] < inf: gamma > 4.
    (root / "pumps_sbc.json").write_text(json.dumps({**PUMPS, "gamma": 6.0, "delta": 6.0}))
    return root


def _name(user) -> str:
    """The default report name of the user's model: folder, module and function."""
    return f"{user.name}.pumps.build_model"


def _args(user, sampler="sample", model="build_model", data="pumps.json"):
    return [
        "--model", f"{user}/pumps.py:{model}",
        "--data", f"{user}/{data}",
        "--sampler", "pymc" if sampler == "pymc" else f"{user}/gibbs.py:{sampler}",
    ]  # fmt: skip


@pytest.fixture(scope="module")
def agreed(user, tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    code = cli.main(["compare", *_args(user), *SMALL, "--out", str(out)])
    return code, out


def test_users_sampler_agrees_with_users_model(agreed):
    code, out = agreed
    assert code == 0
    name = next(p.stem for p in out.iterdir() if p.suffix == ".json")
    assert name.endswith(".pumps.build_model")  # NAME: the model's folder, module, function
    document = json.loads((out / f"{name}.json").read_text())
    assert document["verdict"] == "agree"
    page = (out / f"{name}.html").read_text()
    assert "Verdict: agree" in page and "Your model" in page and "pumps.py:build_model" in page
    quantities = {c["quantity"] for c in document["checks"]}
    # The free variables, every centred product (11 components), PyMC's log densities.
    assert {"beta", "rate[0]", "rate[9]", "beta*rate[0]", "rate[8]*rate[9]"} <= quantities
    assert {"log_prior", "log_likelihood"} <= quantities
    assert set(document["sides"]) == {"user", "pymc"}


def test_planted_bug_disagrees_with_exit_1(user, tmp_path, capsys):
    code = cli.main(["compare", *_args(user, "sample_wrong"), *SMALL, "--out", str(tmp_path)])
    assert code == 1
    assert "verdict: disagree" in capsys.readouterr().out
    document = json.loads((tmp_path / f"{_name(user)}.json").read_text())
    failed = {c["quantity"] for c in document["checks"] if not c["passed"]}
    assert "beta" in failed and "log_prior" in failed


def test_name_sets_the_report_files(user, tmp_path):
    code = cli.main(
        ["compare", *_args(user), *SMALL, "--name", "pump-failures", "--out", str(tmp_path)]
    )
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "pump-failures.html",
        "pump-failures.json",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"model": "no_such"}, "has no callable named 'no_such'"),
        ({"model": "broken_model"}, "--model .*pumps.py:broken_model raised KeyError: 't_hours'"),
        ({"data": "missing.json"}, "--data file .*missing.json' does not exist"),
        ({"data": "bad.json"}, "--data .*bad.json': not valid JSON"),
        ({"data": "labels.csv"}, "column 'pump' is not numeric \\(line 2: 'A'\\)"),
        ({"data": "pumps.txt"}, "expected a .json, .npz, .csv file"),
        # Issue 39: PyMC's traceback then a segmentation fault, before; now refused by name.
        ({"data": "infinite.json"}, "--data .*infinite.json': key 't' holds inf at index 2"),
        ({"data": "huge.json"}, "--data .*huge.json': key 'delta' holds inf;"),
        ({"data": "infinite.csv"}, "--data .*infinite.csv': key 'y' holds -inf at index 1"),
        ({"sampler": "sample_extra"}, "returned variable\\(s\\) \\['latent'\\] that the model"),
        ({"sampler": "sample_missing"}, "did not return variable\\(s\\) \\['rate'\\]"),
        (
            {"sampler": "sample_bad_shape"},
            "rate with shape \\(4, 500, 3\\), expected \\(4, 500, 10\\)",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(
    user, change, message, tmp_path, capsys
):
    (user / "bad.json").write_text("{not json")
    (user / "labels.csv").write_text("pump,y\nA,5\nB,1\n")
    (user / "pumps.txt").write_text("5 1 5")
    t = [*PUMPS["t"][:2], float("inf"), *PUMPS["t"][3:]]
    (user / "infinite.json").write_text(json.dumps({**PUMPS, "t": t}))  # JSON's Infinity
    (user / "huge.json").write_text(json.dumps({**PUMPS, "delta": 0.0}).replace("0.0}", "1e400}"))
    (user / "infinite.csv").write_text("y\n5\n-inf\n")
    out = tmp_path / "out"
    code = cli.main(["compare", *_args(user, **change), *SMALL, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    # Progress lines aside, one error line and no traceback.
    assert len([line for line in err.splitlines() if "error" in line]) == 1
    assert "Traceback" not in err
    import re

    assert re.search(message, err), err
    assert not out.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["compare", "regression", "--model", "m.py:f"], "not both"),
        (["compare"], "give a pair NAME"),
        (["compare", "--model", "m.py:f", "--sampler", "s.py:f"], "--model needs --data"),
        (["compare", "--model", "m.py:f", "--data", "d.json"], "--model needs --sampler"),
        (["compare", "regression", "--data", "d.json"], "--data goes with --model"),
    ],
)
def test_usage_errors(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("potential_model", "potential\\(s\\) \\['pull'\\]"),
        ("misnamed_model", "observed variable 'failures' is not named after a data key"),
        ("flat_model", "'beta' has an improper prior"),
    ],
)
def test_sbc_needs_a_model_it_can_simulate(user, model, message, tmp_path, capsys):
    argv = ["validate", *_args(user, model=model), "--method", "sbc", "--out", str(tmp_path)]
    assert cli.main(argv) == 2
    import re

    assert re.search(message, capsys.readouterr().err)


def test_sbc_from_the_models_prior_predictive(user, tmp_path):
    argv = [
        "validate", *_args(user, data="pumps_sbc.json"), "--method", "sbc",
        "--scheduler", "synchronous", "--replications", "40", "--draws", "1000",
        "--tune", "100", "--out", str(tmp_path),
    ]  # fmt: skip
    assert cli.main(argv) == 0
    document = json.loads((tmp_path / f"{_name(user)}_sbc.json").read_text())  # NAME_METHOD.json
    assert document["verdict"] == "pass"
    assert {"beta", "rate[0]", "log_prior", "log_likelihood"} <= {
        c["quantity"] for c in document["checks"]
    }


def test_sbc_catches_the_planted_bug(user, tmp_path):
    argv = [
        "validate", *_args(user, "sample_wrong", data="pumps_sbc.json"), "--method", "sbc",
        "--scheduler", "synchronous", "--replications", "40", "--draws", "1000", "--tune", "100",
        "--out", str(tmp_path),
    ]  # fmt: skip
    assert cli.main(argv) == 1


def test_from_python_compare_and_assert(user):
    import importlib.util

    def load(name, file):
        spec = importlib.util.spec_from_file_location(name, user / file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    model, gibbs = load("pumps_model", "pumps.py"), load("pumps_gibbs", "gibbs.py")
    data = {k: np.asarray(v) for k, v in PUMPS.items()}
    settings = {"draws": 500, "tune": 300, "seed": 7}
    result = assert_agree(model.build_model, gibbs.sample, data, **settings)
    assert result.verdict == "agree" and set(result.summaries) == {"user", "pymc"}
    with pytest.raises(AssertionError, match="verdict 'disagree'.*\n.*z\\(") as caught:
        assert_agree(model.build_model, gibbs.sample_wrong, data, **settings)
    assert "user vs pymc" in str(caught.value)
    assert "FAILED" in str(caught.value) and "against its Holm threshold" in str(caught.value)
    assert "p = " in str(caught.value)  # the p-value and its level, in words
    # The sampler gets its own copy of the data: the caller's data is unchanged.
    again = compare(model.build_model, gibbs.sample, user / "pumps.json", **settings)
    assert again.verdict == "agree"


def test_geweke_from_the_model(user, tmp_path):
    argv = [
        "validate", *_args(user, data="pumps_sbc.json"), "--method", "geweke",
        "--scheduler", "synchronous", "--replications", "4", "--steps", "60",
        "--tune", "10", "--out", str(tmp_path),
    ]  # fmt: skip
    assert cli.main(argv) == 0
    document = json.loads((tmp_path / f"{_name(user)}_geweke.json").read_text())
    assert {"beta", "beta^2", "log_likelihood"} <= {c["quantity"] for c in document["checks"]}


def test_sampler_pymc_is_the_models_own_nuts(user, tmp_path):
    argv = [
        "validate", *_args(user, "pymc", data="pumps_sbc.json"), "--method", "geweke",
        "--out", str(tmp_path),
    ]  # fmt: skip
    assert cli.main(argv) == 2  # Geweke would compile a model at every step: refused


def test_a_models_default_name_keeps_its_folder_when_run_from_inside_it(tmp_path, monkeypatch):
    from mcmc_pairs.comparisons.byom import default_name

    folder = tmp_path / "changepoint"
    folder.mkdir()
    monkeypatch.chdir(folder)
    assert default_name("model.py:build_model") == "changepoint.model.build_model"
    assert default_name("zoo/counts/model.py:build_model") == "counts.model.build_model"
