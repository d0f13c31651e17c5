"""The kernels of the tests: resolutions, tolerances, Holm, z-scores, R-hat thresholds."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mcmc_pairs.comparisons.stats import inference


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
    out = inference.resolutions(table, delta=0.25, alpha=0.05, means_only=["x*y"])
    t = stats.t.isf(0.05, inference.z_df("mean"))
    t_sd = stats.t.isf(0.05, inference.z_df("sd"))
    np.testing.assert_allclose(out["difference"], [0.2, 0.0, 0.1, -1.0])
    np.testing.assert_allclose(
        out["resolution"], [0.2 + t * 0.04, 0.0, 0.1 + t * 0.05, 1 + t_sd * 0.05]
    )
    np.testing.assert_allclose(out["tolerance"], [0.25, 0.5, 0.25, np.nan])
    assert out["equivalent"].tolist() == [bool(0.2 + t * 0.04 < 0.25), True, True, None]


@pytest.mark.parametrize("delta", [0, -0.1, float("nan"), "0.2"])
def test_tolerance_is_checked(delta):
    with pytest.raises(ValueError, match="tolerance"):
        inference.tolerances(delta)


def test_holm_matches_its_definition():
    p = np.array([0.001, 0.004, 0.03, 0.2])
    table = pd.DataFrame({"p": p})
    out = inference.holm(table, alpha=0.01)
    # sorted p against alpha/4, alpha/3, ...: 0.001 <= .0025 rejects, 0.004 > .00333 stops.
    assert out["passed"].tolist() == [False, True, True, True]
    # |z| whose two-sided p-value is 0.0025 under the t with the mean's degrees of freedom
    assert out["threshold"].iloc[0] == pytest.approx(stats.t.isf(0.00125, inference.z_df("mean")))


def test_each_statistic_gets_its_own_degrees_of_freedom():
    table = pd.DataFrame({"statistic": ["mean", "q95", "z(q5)"], "p": [0.2, 0.2, 0.2]})
    out = inference.holm(table, alpha=0.01)
    levels = 0.01 / np.array([3, 2, 1])  # equal p-values: Holm's ranks in table order
    dfs = [inference.Z_DF[s] for s in ("mean", "q95", "q5")]
    expected = stats.t.isf(levels / 2, dfs)
    np.testing.assert_allclose(out["threshold"], expected)
    assert inference.z_score(1.0, 0.0, 0.25) == 4.0
    p = inference.z_p_values(np.array([4.0, 4.0]), ["q95", "z(mean)"])
    np.testing.assert_array_equal(
        p, 2 * stats.t.sf(4.0, [inference.Z_DF[s] for s in ("q95", "mean")])
    )


def test_holm_stops_at_the_first_acceptance():
    out = inference.holm(pd.DataFrame({"p": [0.5, 1e-9]}), alpha=0.01)
    assert out["passed"].tolist() == [True, False]


def test_identical_degenerate_statistics_pass_and_unexplained_differences_fail():
    z_same = inference.z_score(0.0, 0.0, np.nan)
    z_diff = inference.z_score(0.0, 1.0, 0.0)
    p_same, p_diff = inference.z_p_values(np.array([z_same, z_diff]), ["q5", "q5"])
    assert z_same == 0.0 and p_same == 1.0
    assert p_diff == 0.0


def test_rhat_threshold_is_one_hundredth_for_few_quantities_and_many_draws():
    assert inference.rhat_threshold(4000.0, 4, 1000, 1) == inference.RHAT_MAX
    assert inference.rhat_threshold(np.nan, 4, 1000, 650) == inference.RHAT_MAX
    low_ess = inference.rhat_threshold(np.array([400.0, 800.0]), 4, 1000, 650)
    assert low_ess[0] > low_ess[1] > inference.RHAT_MAX  # fewer draws, wider null
