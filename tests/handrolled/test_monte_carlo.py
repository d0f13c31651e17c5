"""Tests of the Monte Carlo estimate of pi (seed 002)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mcmc_pairs.handrolled import monte_carlo as mcarlo

Z = 4.0
NS = [100 * 2**k for k in range(9)]  # 100 .. 25_600
REPLICATES = 200


def estimate_pi_first_chunk_only(n, rng, chunk=1000):
    """A WRONG estimator: a chunking bug counts the first ``chunk`` points only."""
    m = min(n, chunk)
    xy = rng.uniform(-1.0, 1.0, size=(m, 2))
    return 4.0 * np.count_nonzero((xy**2).sum(axis=1) <= 1.0) / m


def test_estimate_within_its_standard_error():
    estimate, se = mcarlo.estimate_pi(200_000, np.random.default_rng(1))
    assert abs(estimate - np.pi) / se < Z
    assert se == pytest.approx(float(mcarlo.exact_standard_error(200_000)), rel=0.01)


def test_estimate_is_reproducible():
    a = mcarlo.estimate_pi(1000, np.random.default_rng(2))
    b = mcarlo.estimate_pi(1000, np.random.default_rng(2))
    assert a == b


def test_chunks_add_up(monkeypatch):
    """Counting in chunks gives the same count as one batch of the same stream."""
    n = 2500
    whole = mcarlo.count_in_disc(n, np.random.default_rng(3))
    monkeypatch.setattr(mcarlo, "CHUNK", 1000)
    chunked = mcarlo.count_in_disc(n, np.random.default_rng(3))
    assert chunked == whole


def test_standard_error_covers_pi():
    """About 95 % of the intervals estimate +- 1.96 se hold pi (binomial tolerance)."""
    rng = np.random.default_rng(4)
    runs = 400
    covered = 0
    for _ in range(runs):
        estimate, se = mcarlo.estimate_pi(2000, rng)
        covered += abs(estimate - np.pi) <= 1.96 * se
    assert abs(covered / runs - 0.95) / np.sqrt(0.95 * 0.05 / runs) < Z


def test_estimates_by_n_shapes():
    estimates, ses = mcarlo.estimates_by_n([10, 100, 1000], np.random.default_rng(5))
    assert estimates.shape == ses.shape == (3,)
    assert np.all(np.diff(ses) < 0)


def test_rmse_matches_exact_standard_error():
    """Over replicates, RMSE^2 * R / se^2 is about chi-square with R degrees of freedom."""
    rmse = mcarlo.root_mean_square_errors(NS[:5], REPLICATES, np.random.default_rng(6))
    ratio = REPLICATES * (rmse / mcarlo.exact_standard_error(NS[:5])) ** 2
    lo, hi = stats.chi2(REPLICATES).ppf([1e-4, 1 - 1e-4])
    assert np.all((ratio > lo) & (ratio < hi))


def test_error_shrinks_as_one_over_sqrt_n():
    rmse = mcarlo.root_mean_square_errors(NS, REPLICATES, np.random.default_rng(7))
    slope, slope_se = mcarlo.loglog_slope(NS, rmse)
    assert abs(slope + 0.5) / slope_se < Z
    assert abs(slope + 0.5) < 0.1


def test_slope_catches_a_chunking_bug():
    rng = np.random.default_rng(7)
    rmse = [
        np.sqrt(
            np.mean(
                [(estimate_pi_first_chunk_only(n, rng) - np.pi) ** 2 for _ in range(REPLICATES)]
            )
        )
        for n in NS
    ]
    slope, slope_se = mcarlo.loglog_slope(NS, rmse)
    assert abs(slope + 0.5) / slope_se > Z


def test_loglog_slope_of_an_exact_power_law():
    ns = np.array([10, 100, 1000, 10_000])
    slope, slope_se = mcarlo.loglog_slope(ns, 3.0 * ns**-0.5)
    assert slope == pytest.approx(-0.5)
    assert slope_se == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("n", [0, -5, 2.5, True])
def test_bad_n(n):
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        mcarlo.estimate_pi(n, np.random.default_rng(0))


def test_bad_sequences():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="ns"):
        mcarlo.estimates_by_n([10, 0], rng)
    with pytest.raises(ValueError, match="replicates"):
        mcarlo.root_mean_square_errors([10], 0, rng)
    with pytest.raises(ValueError, match="same length"):
        mcarlo.loglog_slope([10, 100, 1000], [0.1, 0.01])
    with pytest.raises(ValueError, match="positive"):
        mcarlo.loglog_slope([10, 100, 1000], [0.1, 0.0, 0.01])
