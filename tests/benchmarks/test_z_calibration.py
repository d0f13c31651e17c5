"""``scripts/z_calibration.py`` at tiny sizes: the df rule on known tails, one sampler run."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from mcmc_pairs.comparisons import agreement

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("z_calibration", ROOT / "scripts/z_calibration.py")
z_calibration = importlib.util.module_from_spec(spec)
sys.modules.setdefault("z_calibration", z_calibration)
spec.loader.exec_module(z_calibration)


def _counts(z: np.ndarray) -> pd.Series:
    frame = pd.DataFrame({"statistic": "mean", "z": z})
    return z_calibration.tail_table(frame).loc["mean"]


def test_the_rule_picks_heavy_tails_for_t8_and_light_ones_for_normal_z():
    rng = np.random.default_rng(0)
    heavy = _counts(stats.t.rvs(8, size=100_000, random_state=rng))
    light = _counts(rng.standard_normal(100_000))
    assert z_calibration.chosen_df(heavy, 100_000) <= 10
    assert z_calibration.chosen_df(light, 100_000) == max(z_calibration.CANDIDATES)


def test_one_sampler_end_to_end_gives_every_statistic_of_every_component():
    z = z_calibration.z_scores("bivariate_normal", "gibbs", runs=2, seed=7)
    assert set(z["statistic"]) == set(agreement.STATISTICS)
    assert len(z) == 2 * 2 * len(agreement.STATISTICS)  # runs x components x statistics
    page = z_calibration.render(z, 2, 1.0, "python scripts/z_calibration.py --runs 2")
    assert "| q5, q95 |" in page and "chosen df" in page
