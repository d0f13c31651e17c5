import numpy as np
import pymc as pm
import pytest
from arviz_stats import mcse, rhat
from scipy import stats

from mcmc_pairs.models.mh_beta import build_model as build_beta
from mcmc_pairs.models.mh_normal import build_model as build_normal
from mcmc_pairs.pairdata import mh_beta, mh_normal

Z = 4.0
CASES = {
    "mh_normal": (build_normal, mh_normal.default_data(), stats.norm(10.0, 5.0)),
    "mh_beta": (build_beta, mh_beta.default_data(), stats.beta(2.31, 0.627)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_free_variable_is_scalar_x(name):
    build, data, _ = CASES[name]
    model = build(data)
    assert [rv.name for rv in model.free_RVs] == ["x"]
    assert tuple(model.eval_rv_shapes()["x"]) == ()


@pytest.mark.parametrize(
    ("name", "x"), [("mh_normal", -3.0), ("mh_normal", 12.5), ("mh_beta", 0.3)]
)
@pytest.mark.usefixtures("python_linker")
def test_log_density_is_the_target(name, x):
    build, data, target = CASES[name]
    model = build(data)
    assert pm.logp(model["x"], x).eval() == pytest.approx(target.logpdf(x))


@pytest.mark.usefixtures("python_linker")
@pytest.mark.parametrize("x", [-0.2, 1.5])
def test_beta_log_density_is_minus_infinity_outside_the_support(x):
    model = build_beta(mh_beta.default_data())
    assert pm.logp(model["x"], x).eval() == -np.inf


@pytest.mark.parametrize(
    ("build", "data", "message"),
    [
        (build_normal, {**mh_normal.default_data(), "sigma": 0.0}, "sigma must be > 0"),
        (build_normal, {**mh_normal.default_data(), "mu": np.nan}, "mu must be finite"),
        (build_normal, {**mh_normal.default_data(), "proposal_sd": -1.0}, "proposal_sd"),
        (build_beta, {**mh_beta.default_data(), "a": 0.0}, "a must be > 0"),
        (build_beta, {**mh_beta.default_data(), "b": -0.627}, "b must be > 0"),
        (build_beta, {**mh_beta.default_data(), "proposal_sd": 0.0}, "proposal_sd"),
    ],
)
def test_bad_data_is_rejected_before_building(build, data, message):
    with pytest.raises(ValueError, match=message):
        build(data)


@pytest.fixture(scope="module")
def posteriors():
    """NUTS once (on the Beta, whose support PyMC transforms) and Metropolis on both."""
    out = {}
    kwargs = {"draws": 1000, "tune": 1000, "chains": 4, "random_seed": 3, "progressbar": False}
    with build_beta(mh_beta.default_data()):
        out["mh_beta", "nuts"] = pm.sample(**kwargs)
    for name, (build, data, _) in CASES.items():
        with build(data):
            out[name, "metropolis"] = pm.sample(step=pm.Metropolis(), **kwargs)
    return out


@pytest.mark.parametrize(
    ("name", "method"),
    [("mh_beta", "nuts"), ("mh_normal", "metropolis"), ("mh_beta", "metropolis")],
)
def test_pymc_samples_the_exact_target(posteriors, name, method):
    x = posteriors[name, method].posterior["x"].values
    assert x.shape == (4, 1000)
    assert rhat(x) < 1.01
    target = CASES[name][2]
    assert abs(x.mean() - target.mean()) / mcse(x) < Z
    assert abs(x.std() - target.std()) / mcse(x, method="sd") < Z
    if name == "mh_beta":
        assert np.all((x > 0) & (x < 1))
