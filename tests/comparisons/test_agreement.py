"""The agreement checks on their own: correct runs pass, shifted or rescaled draws fail."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats

from mcmc_pairs.comparisons import agreement
from mcmc_pairs.comparisons.execution import ChildInterpreter
from mcmc_pairs.comparisons.pair import ExactMarginal
from mcmc_pairs.comparisons.pairs.bivariate_normal import exact, log_density
from mcmc_pairs.handrolled import bivariate_normal as bn
from mcmc_pairs.handrolled import wrong_samplers
from mcmc_pairs.pairdata.bivariate_normal import default_data

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


def test_resolution_is_the_upper_end_of_the_two_sided_interval():
    table = pd.DataFrame(
        {
            "quantity": ["x", "x", "x*y", "x*y"],
            "statistic": ["mean", "q95", "mean", "sd"],
            "a": [1.1, 2.0, 0.5, 1.0],
            "b": [1.0, 2.0, 0.3, 3.0],
            "se": [0.02, 0.0, 0.1, 0.1],
            "scale": [0.5, 0.5, 2.0, 2.0],
        }
    )
    out = agreement.resolutions(table, delta=0.25, alpha=0.05, means_only=["x*y"])
    t = stats.t.isf(0.05, agreement.z_df("mean"))
    t_sd = stats.t.isf(0.05, agreement.z_df("sd"))
    np.testing.assert_allclose(out["difference"], [0.2, 0.0, 0.1, -1.0])
    np.testing.assert_allclose(
        out["resolution"], [0.2 + t * 0.04, 0.0, 0.1 + t * 0.05, 1 + t_sd * 0.05]
    )
    np.testing.assert_allclose(out["tolerance"], [0.25, 0.5, 0.25, np.nan])
    assert out["equivalent"].tolist() == [bool(0.2 + t * 0.04 < 0.25), True, True, None]


@pytest.mark.parametrize("delta", [0, -0.1, float("nan"), "0.2"])
def test_tolerance_is_checked(delta):
    with pytest.raises(ValueError, match="tolerance"):
        agreement.tolerances(delta)


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


def test_holm_matches_its_definition():
    p = np.array([0.001, 0.004, 0.03, 0.2])
    table = pd.DataFrame({"p": p})
    out = agreement.holm(table, alpha=0.01)
    # sorted p against alpha/4, alpha/3, ...: 0.001 <= .0025 rejects, 0.004 > .00333 stops.
    assert out["passed"].tolist() == [False, True, True, True]
    # |z| whose two-sided p-value is 0.0025 under the t with the mean's degrees of freedom
    assert out["threshold"].iloc[0] == pytest.approx(stats.t.isf(0.00125, agreement.z_df("mean")))


def test_each_statistic_gets_its_own_degrees_of_freedom():
    table = pd.DataFrame({"statistic": ["mean", "q95", "z(q5)"], "p": [0.2, 0.2, 0.2]})
    out = agreement.holm(table, alpha=0.01)
    levels = 0.01 / np.array([3, 2, 1])  # equal p-values: Holm's ranks in table order
    dfs = [agreement.Z_DF[s] for s in ("mean", "q95", "q5")]
    expected = stats.t.isf(levels / 2, dfs)
    np.testing.assert_allclose(out["threshold"], expected)
    assert agreement._z_row("a vs b", "x", "q95", 1.0, 0.0, 0.25)["z"] == 4.0
    p = agreement.z_p_values(np.array([4.0, 4.0]), ["q95", "z(mean)"])
    np.testing.assert_array_equal(
        p, 2 * stats.t.sf(4.0, [agreement.Z_DF[s] for s in ("q95", "mean")])
    )


def test_holm_stops_at_the_first_acceptance():
    out = agreement.holm(pd.DataFrame({"p": [0.5, 1e-9]}), alpha=0.01)
    assert out["passed"].tolist() == [True, False]


def test_identical_degenerate_statistics_pass_and_unexplained_differences_fail():
    row_same = agreement._z_row("a vs b", "q", "q5", 0.0, 0.0, np.nan)
    row_diff = agreement._z_row("a vs b", "q", "q5", 0.0, 1.0, 0.0)
    p_same, p_diff = agreement.z_p_values([row_same["z"], row_diff["z"]], ["q5", "q5"])
    assert row_same["z"] == 0.0 and p_same == 1.0
    assert p_diff == 0.0


def test_scalar_components_are_labelled_like_arviz():
    post = xr.Dataset(
        {
            "a": (("chain", "draw"), np.zeros((2, 3))),
            "m": (("chain", "draw", "i", "j"), np.arange(2 * 3 * 2 * 2.0).reshape(2, 3, 2, 2)),
        }
    )
    comps = agreement.scalar_components(post, ["a", "m"])
    assert list(comps["quantity"].values) == ["a", "m[0, 0]", "m[0, 1]", "m[1, 0]", "m[1, 1]"]
    np.testing.assert_array_equal(comps.sel(quantity="m[1, 0]"), post["m"][:, :, 1, 0])


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, 0),
        (10, 45),  # eight schools: mu, tau2, theta[0..7]: every pair
        (agreement.ALL_PAIRS_UP_TO, 66),
        (agreement.ALL_PAIRS_UP_TO + 1, agreement.ALL_PAIRS_UP_TO),  # neighbours
        (650, agreement.MAX_PRODUCTS),  # LDA's theta and phi: bounded
    ],
)
def test_products_follow_the_documented_bound(n, expected):
    pairs = agreement.product_pairs(n)
    assert len(pairs) == expected
    assert all(0 <= i < j < n for i, j in pairs)
    if n > agreement.ALL_PAIRS_UP_TO:
        assert all(j == i + 1 for i, j in pairs)
        assert pairs[0] == (0, 1) and pairs[-1] == (n - 2, n - 1)  # both ends covered


def test_centred_products_are_named_and_centred():
    rng = np.random.default_rng(0)
    post = xr.Dataset({"v": (("chain", "draw", "k"), rng.normal(size=(2, 3, 3)))})
    comps = agreement.scalar_components(post, ["v"])
    centers = {"v[0]": 1.0, "v[1]": -2.0, "v[2]": 0.5}
    products = agreement.centred_products(comps, centers)
    assert list(products["quantity"].values) == ["v[0]*v[1]", "v[0]*v[2]", "v[1]*v[2]"]
    expected = (post["v"][..., 0] - 1.0) * (post["v"][..., 2] - 0.5)
    np.testing.assert_allclose(products.sel(quantity="v[0]*v[2]"), expected)


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


def test_side_verdicts_read_each_sides_checks_and_the_references():
    def row(side, kind, passed):
        return {"side": side, "kind": kind, "passed": passed}

    base = [row("ref", "diagnostic", True), row("ref", "exact", True)]
    checks = pd.DataFrame(
        [
            *base,
            row("good", "agreement", True),
            row("good", "diagnostic", True),
            row("bad", "agreement", False),
            row("slow", "diagnostic", False),
            row("slow", "agreement", False),
            row("outside", "support", False),
        ]
    )
    sides = ["good", "bad", "ref", "slow", "outside"]
    assert agreement.side_verdicts(checks, sides, reference="ref") == {
        "good": agreement.AGREE,
        "bad": agreement.DISAGREE,
        "slow": agreement.NOT_CONVERGED,
        "outside": agreement.DISAGREE,
    }
    stuck_reference = checks.assign(passed=checks["passed"] | (checks["side"] != "ref"))
    stuck_reference.loc[0, "passed"] = False  # the reference's own gate fails
    verdicts = agreement.side_verdicts(stuck_reference, ["good", "ref"], reference="ref")
    assert verdicts == {"good": agreement.REFERENCE_FAILED}  # the reference's fault, not good's


def ar1(seed: int, m: int, rho: float, draws: int = 1000, shift: float = 0.0) -> xr.DataArray:
    """Stationary AR(1) quantities (4 chains), unit variance, centred at ``shift``."""
    rng = np.random.default_rng(seed)
    x = np.empty((4, draws, m))
    x[:, 0] = rng.standard_normal((4, m))
    noise = np.sqrt(1 - rho**2) * rng.standard_normal((4, draws, m))
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    return xr.DataArray(
        x + shift, dims=("chain", "draw", "quantity"), coords={"quantity": np.arange(m)}
    )


def rhat_gates(side: xr.DataArray) -> pd.DataFrame:
    gates = agreement.diagnostic_checks({"side": agreement.summarize(side)}, 4, side.sizes["draw"])
    return gates[gates["statistic"] == "r_hat"]


def test_rhat_threshold_is_one_hundredth_for_few_quantities_and_many_draws():
    assert agreement.rhat_threshold(4000.0, 4, 1000, 1) == agreement.RHAT_MAX
    assert agreement.rhat_threshold(np.nan, 4, 1000, 650) == agreement.RHAT_MAX
    low_ess = agreement.rhat_threshold(np.array([400.0, 800.0]), 4, 1000, 650)
    assert low_ess[0] > low_ess[1] > agreement.RHAT_MAX  # fewer draws, wider null


def test_many_correct_quantities_pass_the_scaled_rhat_gate():
    gates = rhat_gates(ar1(seed=3, m=650, rho=0.7))
    assert (gates["value"] >= agreement.RHAT_MAX).any(), "the fixed 1.01 would raise a false alarm"
    assert gates["passed"].all()


def test_one_chain_apart_among_many_quantities_still_fails_the_rhat_gate():
    side = ar1(seed=3, m=650, rho=0.7)
    side[0, :, 17] += 1.0  # one chain of one quantity one sd away
    gates = rhat_gates(side)
    assert list(gates.loc[~gates["passed"], "quantity"]) == [17]


def test_a_wrong_side_that_mixes_slowly_is_disagree_not_just_not_converged():
    wrong = ar1(seed=4, m=2, rho=0.995, draws=2000, shift=3.0)  # chains agree on a wrong answer
    verdict, checks, _ = agreement.compare_draws(
        {"wrong": wrong, "right": ar1(seed=5, m=2, rho=0.5, draws=2000)}, [("wrong", "right")]
    )
    assert not checks[checks["kind"] == "diagnostic"]["passed"].all()  # ESS gate fails
    assert checks["gross"].any()
    assert verdict == agreement.DISAGREE


def test_summaries_in_a_second_process_are_the_same_bit_for_bit(monkeypatch):
    """summarize_sides: the last quantities of every side in a child, the frames of one call."""
    sides = {f"side{i}": quantities(gibbs(seed=20 + i, draws=300)) for i in range(3)}
    sides["one quantity"] = sides["side0"].isel(quantity=[0])
    here = {label: agreement.summarize(da) for label, da in sides.items()}
    monkeypatch.setattr(agreement, "PARALLEL_MIN_VALUES", 0)
    calls = []
    real = ChildInterpreter.__enter__

    def enter(self):
        calls.append({label: da.sizes["quantity"] for label, da in self.payload.items()})
        return real(self)

    monkeypatch.setattr(ChildInterpreter, "__enter__", enter)
    both = agreement.summarize_sides(sides, cores=2)
    n = sides["side0"].sizes["quantity"]
    away = n - round(agreement.HERE_SHARE * n)
    assert calls == [{"side0": away, "side1": away, "side2": away}]  # one quantity: here
    assert list(both) == list(sides)
    for label in sides:
        pd.testing.assert_frame_equal(both[label], here[label], check_exact=True)


def test_a_failing_summary_child_is_replaced_by_this_process(monkeypatch, tmp_path):
    """A child that cannot run (here: no interpreter) costs time, never the summaries."""
    sides = {f"side{i}": quantities(gibbs(seed=30 + i, draws=200)) for i in range(2)}
    monkeypatch.setattr(agreement, "PARALLEL_MIN_VALUES", 0)
    monkeypatch.setattr("sys.executable", "/bin/false")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    both = agreement.summarize_sides(sides, cores=2)
    for label, da in sides.items():
        pd.testing.assert_frame_equal(both[label], agreement.summarize(da), check_exact=True)
    assert list(tmp_path.iterdir()) == []  # the pickle of the sides is removed


def test_one_core_or_few_draws_summarise_here(monkeypatch):
    sides = {f"side{i}": quantities(gibbs(seed=40 + i, draws=100)) for i in range(2)}

    def no_child(self):
        raise AssertionError("a child was started")

    monkeypatch.setattr(ChildInterpreter, "__enter__", no_child)
    agreement.summarize_sides(sides, cores=2)  # below PARALLEL_MIN_VALUES
    monkeypatch.setattr(agreement, "PARALLEL_MIN_VALUES", 0)
    agreement.summarize_sides(sides, cores=1)


def test_an_interrupted_summary_leaves_no_child_and_no_file(monkeypatch, tmp_path):
    """Ctrl-C (or report's SIGTERM) while this process summarises: the child is killed."""
    sides = {f"side{i}": quantities(gibbs(seed=50 + i, draws=200)) for i in range(2)}
    monkeypatch.setattr(agreement, "PARALLEL_MIN_VALUES", 0)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    children = []
    real = ChildInterpreter.__enter__

    def enter(self):
        children.append(real(self))
        return children[-1]

    def interrupted(da):
        raise KeyboardInterrupt

    monkeypatch.setattr(ChildInterpreter, "__enter__", enter)
    monkeypatch.setattr(agreement, "_summarize_quietly", interrupted)  # this process only
    with pytest.raises(KeyboardInterrupt):
        agreement.summarize_sides(sides, cores=2)
    assert children and children[0].process.poll() is not None
    assert list(tmp_path.iterdir()) == []


# A switchpoint-like posterior on 30..50 whose 95 % quantile sits just below a step of the
# CDF (CDF(43) = 0.953; the change-point model had CDF(44) = 0.954): with 4,000
# draws the empirical CDF(43) falls below 0.95 in a fifth of the runs, so two sides' 95 %
# quantiles often differ by one atom while their quantile MCSEs are 0.
SUPPORT = np.arange(30, 51)
PMF = np.exp(-0.5 * ((SUPPORT - 39.85) / 2.2) ** 2)
PMF /= PMF.sum()


def lattice_side(seed: int, shift: int = 0, chains: int = 4, draws: int = 1000) -> xr.DataArray:
    """Draws of the lattice posterior (iid) and a continuous rate beside it."""
    rng = np.random.default_rng(seed)
    s = rng.choice(SUPPORT, p=PMF, size=(chains, draws)) + shift
    rate = rng.gamma(30.0, 0.1, size=(chains, draws))
    values = np.stack([s.astype(float), rate], axis=-1)
    return xr.DataArray(values, dims=("chain", "draw", "quantity"), coords={"quantity": ["s", "r"]})


def test_the_lattice_has_its_95_quantile_on_a_step():
    cdf = np.cumsum(PMF)
    k = SUPPORT[np.searchsorted(cdf, 0.95)]
    assert k == 43 and 0.95 < cdf[SUPPORT == k][0] < 0.955


def test_discrete_quantities_are_whole_numbers_or_few_atoms():
    a, b = lattice_side(1), lattice_side(2)
    assert agreement.discrete_quantities({"a": a, "b": b}) == ["s"]
    few = a.copy(data=np.stack([a.values[..., 0] / 3, a.values[..., 1]], axis=-1))
    assert agreement.discrete_quantities({"a": few}) == ["s"]  # 21 atoms, not integers
    assert agreement.discrete_quantities({"a": a.isel(quantity=[1])}) == []


def test_the_centred_product_of_two_counts_is_discrete_and_of_a_count_and_a_real_is_not():
    rng = np.random.default_rng(3)
    counts = rng.poisson([4.0, 100.0], size=(4, 1000, 2)).astype(float)
    real = rng.normal(size=(4, 1000, 1))
    components = xr.DataArray(
        np.concatenate([counts, real], axis=-1),
        dims=("chain", "draw", "quantity"),
        coords={"quantity": ["x[3]", "x[5]", "y"]},
    )
    products = agreement.centred_products(components, {"x[3]": 4.1, "x[5]": 99.7, "y": 0.0})
    side = xr.concat([components, products], dim="quantity")
    lattice = products.sel(quantity="x[3]*x[5]").values
    assert np.any(lattice != np.round(lattice))  # not whole numbers,
    assert np.unique(lattice).size > agreement.MAX_ATOMS  # and too many atoms to count
    assert agreement.discrete_quantities({"a": side}) == ["x[3]", "x[5]", "x[3]*x[5]"]


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
