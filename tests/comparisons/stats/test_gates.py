"""The convergence gates: R-hat scaled to the number of quantities, ESS per chain."""

import numpy as np
import pandas as pd
import xarray as xr

from mcmc_pairs.comparisons.kinds import Gate
from mcmc_pairs.comparisons.stats import gates, inference
from mcmc_pairs.comparisons.stats.checks import checks_frame
from mcmc_pairs.comparisons.stats.summaries import summarize


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
    table = checks_frame(gates.diagnostic_checks({"side": summarize(side)}, 4, side.sizes["draw"]))
    return table[table["statistic"] == Gate.R_HAT]


def test_many_correct_quantities_pass_the_scaled_rhat_gate():
    table = rhat_gates(ar1(seed=3, m=650, rho=0.7))
    assert (table["value"] >= inference.RHAT_MAX).any(), "the fixed 1.01 would raise a false alarm"
    assert table["passed"].all()


def test_one_chain_apart_among_many_quantities_still_fails_the_rhat_gate():
    side = ar1(seed=3, m=650, rho=0.7)
    side[0, :, 17] += 1.0  # one chain of one quantity one sd away
    table = rhat_gates(side)
    assert list(table.loc[~table["passed"], "quantity"]) == ["17"]  # a check names it in words
