"""The agreement procedure (compare_draws): correct runs pass, shifted or rescaled draws fail."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from mcmc_pairs.comparisons import agreement
from mcmc_pairs.comparisons.pair import ExactMarginal
from mcmc_pairs.comparisons.pairs.bivariate_normal import exact, log_density
from mcmc_pairs.handrolled import bivariate_normal as bn
from mcmc_pairs.handrolled import wrong_samplers
from mcmc_pairs.pairdata.bivariate_normal import default_data
from tests.comparisons.stats.test_gates import ar1
from tests.comparisons.stats.test_quantities import lattice_side

DATA = default_data()
REFERENCE = exact(DATA)
CENTERS = {"x[0]": 5.0, "x[1]": -1.0}


def quantities(x: np.ndarray) -> xr.DataArray:
    """Components, centred product and log density of bivariate draws (chains, draws, 2)."""
    post = xr.Dataset({"x": (("chain", "draw", "x_dim_0"), x)})
    comps = agreement.scalar_components(post, ["x"])
    logp = log_density(post, DATA, CENTERS)["logp"].expand_dims(quantity=["logp"], axis=-1)
    return xr.concat([comps, agreement.centred_products(comps, CENTERS), logp], dim="quantity")


def gibbs(seed: int, draws: int = 1000) -> np.ndarray:
    return bn.sample(DATA, draws=draws, tune=100, chains=4, random_seed=seed)["x"]


def judge(a: np.ndarray, b: np.ndarray, reference=None, **kwargs) -> tuple[str, pd.DataFrame]:
    verdict, checks, _ = agreement.compare_draws(
        {"a": quantities(a), "b": quantities(b)},
        [("a", "b")],
        reference,
        means_only=["x[0]*x[1]"],
        **kwargs,
    )
    return verdict, checks


def test_two_independent_correct_runs_agree():
    verdict, checks = judge(gibbs(1), gibbs(2), REFERENCE)
    assert verdict == agreement.AGREE
    kinds = {"agreement", "exact", "multivariate", "diagnostic", "support"}
    assert set(checks["kind"]) == kinds


def test_false_alarm_rate_is_near_nominal_over_seeds():
    """Twenty correct comparisons: at alpha = 1 % family-wise, at most one false alarm."""
    verdicts = [judge(gibbs(100 + s), gibbs(200 + s), REFERENCE)[0] for s in range(20)]
    assert verdicts.count(agreement.DISAGREE) <= 1
    assert verdicts.count(agreement.AGREE) >= 15  # one look of 4,000 draws mostly resolves 0.2 sd


def test_a_tolerance_finer_than_the_draws_resolve_is_inconclusive_not_agree():
    verdict, checks = judge(gibbs(1), gibbs(2), REFERENCE, tolerance=0.02)
    assert verdict == agreement.INCONCLUSIVE
    z = checks[checks["kind"].isin(["agreement", "exact"])]
    assert z["passed"].all()  # nothing detected...
    assert not z["equivalent"].dropna().all()  # ...and nothing certified at 0.02 sd either


@pytest.mark.parametrize("shift_in_sds", [0.15, -0.15])
def test_shifted_draws_fail(shift_in_sds):
    b = gibbs(2).copy()
    b[..., 0] += shift_in_sds * DATA["sigma"][0]
    verdict, checks = judge(gibbs(1), b)
    assert verdict == agreement.DISAGREE
    failed = checks[~checks["passed"]]
    assert "x[0]" in set(failed["quantity"])


@pytest.mark.parametrize("scale", [1.15, 0.87])
def test_rescaled_draws_fail(scale):
    b = gibbs(2).copy()
    b[..., 1] = DATA["mu"][1] + scale * (b[..., 1] - DATA["mu"][1])
    verdict, checks = judge(gibbs(1), b)
    assert verdict == agreement.DISAGREE
    assert "z(sd)" in set(checks[~checks["passed"]]["statistic"])


def test_right_marginals_wrong_dependence_is_caught_by_joint_quantities():
    wrong = wrong_samplers.bivariate_independent_marginals(
        DATA, draws=1000, tune=0, chains=4, random_seed=3
    )["x"]
    verdict, checks = judge(wrong, gibbs(1))
    assert verdict == agreement.DISAGREE
    failed = set(checks[~checks["passed"]]["quantity"])
    assert failed <= {"x[0]*x[1]", "logp", "all"} and failed  # "all": the energy check


def test_stuck_chains_are_not_converged_not_disagree():
    x = gibbs(1, draws=400)
    x[0] += 3.0  # one chain far away: R-hat fails
    verdict, checks = judge(x, gibbs(2, draws=400))
    assert verdict == agreement.NOT_CONVERGED
    gates = checks[checks["kind"] == "diagnostic"]
    assert not gates[gates["statistic"] == "r_hat"]["passed"].all()


def test_too_few_draws_fail_the_ess_gate():
    verdict, checks = judge(gibbs(1, draws=60), gibbs(2, draws=60))
    assert verdict == agreement.NOT_CONVERGED
    assert not checks[checks["statistic"] == "ess_tail"]["passed"].all()


def test_exact_checks_catch_a_side_that_agrees_with_nothing():
    b = gibbs(2).copy()
    b[..., 0] += 0.2
    _, checks = judge(b, gibbs(3), REFERENCE)
    failed = checks[~checks["passed"]]
    assert {"a vs exact", "a vs b"} <= set(failed["comparison"])


def test_exact_marginal_statistics():
    m = ExactMarginal(mean=1.0, quantiles={0.05: -1.0})
    assert m.statistic("mean") == 1.0 and m.statistic("q5") == -1.0
    assert m.statistic("sd") is None and m.statistic("q95") is None


def test_alpha_is_checked():
    with pytest.raises(ValueError, match="alpha must lie in"):
        agreement.compare_draws({"a": quantities(gibbs(1, 50))}, [], alpha=1.5)


def test_every_check_names_the_side_it_judges():
    b = gibbs(2).copy()
    b[..., 0] += 0.2
    _, checks = judge(b, gibbs(3), REFERENCE)
    sides = checks.groupby("comparison")["side"].unique().map(list).to_dict()
    assert sides == {
        "a vs b": ["a"],
        "a vs exact": ["a"],
        "b vs exact": ["b"],
        "a": ["a"],
        "b": ["b"],
    }
    kinds = checks.groupby("kind")["comparison"].unique().map(sorted).to_dict()
    assert kinds["exact"] == ["a vs exact", "b vs exact"] and kinds["agreement"] == ["a vs b"]


def test_a_wrong_side_that_mixes_slowly_is_disagree_not_just_not_converged():
    wrong = ar1(seed=4, m=2, rho=0.995, draws=2000, shift=3.0)  # chains agree on a wrong answer
    verdict, checks, _ = agreement.compare_draws(
        {"wrong": wrong, "right": ar1(seed=5, m=2, rho=0.5, draws=2000)}, [("wrong", "right")]
    )
    assert not checks[checks["kind"] == "diagnostic"]["passed"].all()  # ESS gate fails
    assert checks["gross"].any()
    assert verdict == agreement.DISAGREE


def test_a_discrete_quantity_is_compared_by_indicators_not_quantiles():
    verdict, checks, _ = agreement.compare_draws(
        {"a": lattice_side(1), "b": lattice_side(2)}, [("a", "b")]
    )
    z = checks[checks["kind"] == "agreement"]
    of_s = z[z["quantity"] == "s"]
    assert set(of_s["statistic"]) == {"z(mean)", "z(sd)"}  # no quantile of a lattice
    cuts = z[z["quantity"].str.startswith("P(s <= ")]
    assert len(cuts) == 3 and set(cuts["statistic"]) == {"z(mean)"}
    assert np.isfinite(z["value"]).all() and np.isfinite(z["resolution"]).all()
    assert verdict == agreement.AGREE
    assert set(z[z["quantity"] == "r"]["statistic"]) == {f"z({s})" for s in agreement.STATISTICS}


def test_correct_lattice_sides_raise_no_false_alarm_and_reach_their_resolution():
    """Sixty correct runs at alpha = 1 %: no z of inf, at most two alarms, mostly agree."""
    verdicts = []
    for seed in range(60):
        v, checks, _ = agreement.compare_draws(
            {"a": lattice_side(2 * seed), "b": lattice_side(2 * seed + 1)},
            [("a", "b")],
            multivariate=False,
        )
        assert np.isfinite(checks.loc[checks["kind"] == "agreement", "value"]).all()
        verdicts.append(v)
    assert verdicts.count(agreement.DISAGREE) <= 2
    assert verdicts.count(agreement.AGREE) >= 55


def test_an_off_by_one_lattice_sampler_is_caught():
    """The change point off by one: its mean moves 1 / 2.2 = 0.45 posterior sd."""
    assert (
        agreement.compare_draws({"a": lattice_side(1), "b": lattice_side(2)}, [("a", "b")])[0]
        == agreement.AGREE
    )
    verdict, checks, _ = agreement.compare_draws(
        {"a": lattice_side(1, shift=1), "b": lattice_side(2)}, [("a", "b")]
    )
    assert verdict == agreement.DISAGREE
    failed = checks[(checks["kind"] == "agreement") & ~checks["passed"]]
    assert "s" in set(failed["quantity"]) and failed["quantity"].str.startswith("P(s").any()
