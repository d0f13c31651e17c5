import arviz_stats
import numpy as np
import pymc as pm
import pytest

from mcmc_pairs.comparisons.pairs import regression as reference
from mcmc_pairs.comparisons.pairs.regression import PAIR
from mcmc_pairs.handrolled import regression as reg
from mcmc_pairs.models.regression import build_model
from mcmc_pairs.pairdata import regression as rdata

DATA = rdata.default_data()
Z = 4.0


def test_free_variables_are_the_three_scalars():
    model = build_model(DATA)
    assert [rv.name for rv in model.free_RVs] == list(reg.VARIABLES)
    shapes = model.eval_rv_shapes()
    assert all(tuple(shapes[name]) == () for name in reg.VARIABLES)


@pytest.mark.usefixtures("python_linker")
def test_log_density_is_the_hand_rolled_posterior():
    """Same model up to a constant: differences of log densities agree."""
    logp = build_model(DATA).compile_logp(jacobian=False)
    points = [(-87.0, 3.45, 2.5), (-80.0, 3.3, 4.0), (-95.0, 3.6, 1.2)]
    ours = [logp({"beta0": b0, "beta1": b1, "sigma2_log__": np.log(s2)}) for b0, b1, s2 in points]
    theirs = reference.log_posterior(*np.array(points).T, DATA)
    np.testing.assert_allclose(np.diff(ours), np.diff(theirs), rtol=1e-9)


@pytest.mark.parametrize(
    ("change", "match"),
    [({"weight": DATA["weight"][:-1]}, "same length"), ({"m1": 0.0}, "m1")],
)
def test_bad_data_is_rejected_before_building(change, match):
    with pytest.raises(ValueError, match=match):
        build_model({**DATA, **change})


@pytest.fixture(scope="module")
def posterior():
    """NUTS once, at the pair's default settings and sampler options."""
    with build_model(DATA):
        tree = pm.sample(
            draws=1000,
            tune=1000,
            chains=4,
            random_seed=11,
            progressbar=False,
            compute_convergence_checks=False,
            **PAIR.pymc_kwargs,
        )
    return tree["posterior"].to_dataset()


def test_nuts_converges_and_matches_the_exact_posterior(posterior):
    exact = reference.exact_marginals(DATA)
    for name in reg.VARIABLES:
        assert posterior[name].shape == (4, 1000)
        values = posterior[name].values
        assert arviz_stats.ess(values) >= 400
        assert arviz_stats.ess(values, method="tail", prob=(0.05, 0.95)) >= 400
        assert arviz_stats.rhat(values) < 1.01
        z = (values.mean() - exact[name].mean) / arviz_stats.mcse(values)
        assert abs(z) < Z, name
        for p, q in exact[name].quantiles.items():
            mcse = arviz_stats.mcse(values, method="quantile", prob=p)
            assert abs(np.quantile(values, p) - q) / mcse < Z, (name, p)


def test_pair_reference_and_derived_quantities(posterior):
    exact = PAIR.reference(DATA)
    assert set(exact) == {*reg.VARIABLES, "beta0*beta1", "beta0*sigma2", "beta1*sigma2"}
    assert (
        exact["beta1"].statistic("q95") == reference.exact_marginals(DATA)["beta1"].quantiles[0.95]
    )
    grid = np.linspace(1.0, 6.0, 5)
    assert np.all(exact["sigma2"].pdf(grid) > 0)
    logp = PAIR.derived(posterior, DATA, {})["logp"]
    assert logp.dims == ("chain", "draw") and logp.shape == (4, 1000)
    expected = reference.log_posterior(
        posterior["beta0"].values, posterior["beta1"].values, posterior["sigma2"].values, DATA
    )
    np.testing.assert_array_equal(logp.values, expected)
    # NUTS's draws carry the exact covariance of the coefficients, too
    values = (posterior["beta0"] - exact["beta0"].mean) * (posterior["beta1"] - exact["beta1"].mean)
    z = (values.mean() - exact["beta0*beta1"].mean) / arviz_stats.mcse(values.values)
    assert abs(float(z)) < Z
