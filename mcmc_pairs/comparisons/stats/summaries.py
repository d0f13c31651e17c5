"""Numeric kernel of the summaries: every side's statistics, MCSEs, ESS and R-hat.

Summaries and diagnostics come from :mod:`arviz_stats`, imported in the function
that uses it, so a run loads it only once it has sampled. This module computes;
splitting a large summary over two processes is the execution side's
(:func:`mcmc_pairs.comparisons.split_summaries.summarize_sides`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import xarray as xr

from mcmc_pairs.comparisons.kinds import Gate, Statistic
from mcmc_pairs.comparisons.pair import PROBS, quantile_label
from mcmc_pairs.comparisons.stats.quantities import SAMPLE_DIMS


def summarize(quantities: xr.DataArray) -> pd.DataFrame:
    """Per quantity: statistics, their MCSEs, bulk and tail ESS, and R-hat.

    Parameters
    ----------
    quantities : xarray.DataArray
        Shape (chain, draw, quantity).

    Returns
    -------
    pandas.DataFrame
        Indexed by quantity; columns ``mean``, ``sd``, ``q5``, ``q50``,
        ``q95``, ``mcse_<statistic>`` for each, ``batch_<statistic>`` for each
        (the standard error of the statistic with the chains as batches: the
        sd of its per-chain values over sqrt(chains), large when chains
        disagree), ``ess_bulk``, ``ess_tail``, ``ess_within`` (the sum of
        every chain's own bulk ESS: what the chains would give if they mixed
        with each other), ``r_hat``.
    """
    import arviz_stats as azs

    ds = xr.Dataset({"q": quantities})
    columns = {
        Statistic.MEAN: quantities.mean(SAMPLE_DIMS),
        Statistic.SD: quantities.std(SAMPLE_DIMS, ddof=1),
        Statistic.MEAN.mcse: azs.mcse(ds, method="mean")["q"],
        Statistic.SD.mcse: azs.mcse(ds, method="sd")["q"],
    }
    # every quantile from one partition of the draws (numpy's, for all of PROBS at once):
    # the same values as one call per quantile, at a third of the time
    pooled = quantities.quantile(list(PROBS), dim=SAMPLE_DIMS)
    within = quantities.quantile(list(PROBS), dim="draw")
    for p in PROBS:
        label = quantile_label(p)
        columns[label] = pooled.sel(quantile=p, drop=True)
        columns[f"mcse_{label}"] = azs.mcse(ds, method="quantile", prob=p)["q"]
    per_chain = {
        Statistic.MEAN: quantities.mean("draw"),
        Statistic.SD: quantities.std("draw", ddof=1),
        **{quantile_label(p): within.sel(quantile=p, drop=True) for p in PROBS},
    }
    root_chains = np.sqrt(quantities.sizes["chain"])
    for label, values in per_chain.items():
        columns[f"batch_{label}"] = values.std("chain", ddof=1) / root_chains
    columns[Gate.ESS_BULK] = azs.ess(ds, method="bulk")["q"]
    each_chain = ds.rename(chain="batch").expand_dims(chain=1)  # every chain on its own
    columns["ess_within"] = azs.ess(each_chain, method="bulk")["q"].sum("batch")
    columns[Gate.ESS_TAIL] = azs.ess(ds, method="tail")["q"]
    columns[Gate.R_HAT] = azs.rhat(ds)["q"]
    index = pd.Index(quantities["quantity"].values, name="quantity")
    return pd.DataFrame(
        {k: np.asarray(v.values, dtype=float) for k, v in columns.items()}, index=index
    )


def summarize_quietly(quantities: xr.DataArray) -> pd.DataFrame:
    """:func:`summarize`, quiet: non-finite draws warn, and the support checks report them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return summarize(quantities)
