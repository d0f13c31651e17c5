import numpy as np
import pytest
from scipy import stats

from mcmc_pairs.comparisons.pairs.bivariate_normal import covariance
from mcmc_pairs.models.bivariate_normal import build_model
from mcmc_pairs.pairdata.bivariate_normal import default_data


def test_free_variable_is_x_of_shape_2():
    model = build_model(default_data())
    assert [rv.name for rv in model.free_RVs] == ["x"]
    assert tuple(model.eval_rv_shapes()["x"]) == (2,)


@pytest.mark.usefixtures("python_linker")
def test_log_density_is_the_target():
    data = default_data()
    model = build_model(data)
    point = {"x": np.array([4.0, 0.5])}
    expected = stats.multivariate_normal(data["mu"], covariance(data)).logpdf(point["x"])
    assert model.compile_logp()(point) == pytest.approx(expected)


def test_bad_data_is_rejected_before_building():
    with pytest.raises(ValueError, match="rho must lie in"):
        build_model({**default_data(), "rho": -1.5})
