r"""Geweke's joint-distribution test of a sampler: replications and the z-tests that judge them.

Geweke (2004), "Getting it right"
---------------------------------
Two simulators of the joint distribution p(theta, y):

* *marginal-conditional*: ``theta ~ prior``, ``y ~ p(y | theta)``, independent draws;
* *successive-conditional*: a chain that alternates ``y ~ p(y | theta)`` and a
  transition of the sampler under test, ``theta ~ K(theta, . | y)``.

If the sampler leaves p(theta | y) invariant, both simulate p(theta, y), so
every test function g(theta, y) has the same mean under both. The test
functions are each scalar parameter, its square (skipped for 0/1 variables,
whose square is itself), the pairwise products, and the pair's log density of
the draw (its ``derived`` quantity ``logp``, a function of theta and y); a pair
with exchangeable labels (LDA) replaces the parameters' components by
label-invariant functions of them (the pair's ``test_params``). For
each, ``z = (mean_mc - mean_sc) / sqrt(mcse_mc**2 + mcse_sc**2)``; the MCSE of
the autocorrelated successive chain comes from :func:`arviz_stats.mcse` over
its independent replications (chains), the marginal one is ``sd / sqrt(n)``.
Each ``z`` gets a Student-t p-value with :func:`mcmc_pairs.comparisons.agreement.z_df` of the mean
degrees of freedom and the family gets Holm's correction
(:func:`mcmc_pairs.comparisons.agreement.holm`), as in the harness.

*The contract has no initial state.* A sampler whose signature accepts an
``initial`` keyword gets ``initial={variable: value}`` and ``tune=0``, and its
single draw is one exact transition of the successive-conditional chain. Any
other sampler restarts from its own dispersed start at every step and runs
``tune`` transitions before the kept draw: theta then follows
``K^(tune+1)(start(y), . | y)``, which approaches p(theta | y) as ``tune``
grows, so the chain is an *approximate* successive-conditional simulator (a
data-augmentation chain on (theta, y)). A correct sampler that has not
converged within ``tune`` transitions fails it; raise ``tune``. Each
replication is one successive-conditional chain started at a prior draw (so it
starts in the stationary distribution) plus as many marginal-conditional draws.
"""

from __future__ import annotations

import inspect
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import arviz_stats as azs
import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from mcmc_pairs.comparisons import agreement
from mcmc_pairs.comparisons.contract import call_sampler, sampler_name
from mcmc_pairs.comparisons.kinds import Statistic
from mcmc_pairs.comparisons.loading import resolve
from mcmc_pairs.comparisons.settings import GewekeSettings
from mcmc_pairs.comparisons.simulation import (
    Simulator,
    check_draws,
    child_seed,
    one_draw,
    test_quantities,
)


def geweke_replication(
    sim: Simulator,
    sampler: str | Callable,
    settings: GewekeSettings,
    seed: np.random.SeedSequence,
) -> dict:
    """Run one successive-conditional chain and as many marginal-conditional draws.

    Parameters
    ----------
    sim : Simulator
    sampler : str or callable
        The sampler under test.
    settings : GewekeSettings
        ``steps`` (chain length) and ``tune`` (transitions per step when the
        sampler takes no ``initial``).
    seed : numpy.random.SeedSequence
        This replication's seed.

    Returns
    -------
    dict
        ``successive`` and ``marginal``: lists of ``steps`` rows of test
        functions; ``quantities``: their names; ``seconds``.
    """
    start = time.perf_counter()
    func = resolve(sampler)
    name = sampler_name(sampler)
    takes_initial = "initial" in inspect.signature(func).parameters
    ss_mc, ss_sc, ss_seeds = (child_seed(seed, k) for k in range(3))
    rng_mc, rng_sc = np.random.default_rng(ss_mc), np.random.default_rng(ss_sc)
    steps = settings.steps
    seeds = np.random.default_rng(ss_seeds).integers(0, 2**32, size=steps)
    data = sim.data

    marginal = []
    for _ in range(steps):
        theta = sim.prior(data, rng_mc)
        y = sim.simulate(data, theta, rng_mc)
        values, names = test_quantities(sim, one_draw(theta), y, squares=True, sums=False)
        marginal.append(values[0, 0])
    successive = []
    theta = sim.prior(data, rng_sc)  # starts in the stationary distribution
    for t in range(steps):
        y = sim.simulate(data, theta, rng_sc)
        kwargs: dict[str, Any] = {"draws": 1, "chains": 1, "random_seed": int(seeds[t])}
        if takes_initial:
            kwargs.update(tune=0, initial={k: np.asarray(v) for k, v in theta.items()})
        else:
            kwargs.update(tune=settings.tune)
        post = check_draws(call_sampler(name, func, y, **kwargs), theta, name, 1, 1)
        theta = {k: post[k][0, 0] for k in theta}
        values, names = test_quantities(sim, post, y, squares=True, sums=False)
        successive.append(values[0, 0])
    return {
        "quantities": names,
        "marginal": np.array(marginal).tolist(),
        "successive": np.array(successive).tolist(),
        "seconds": time.perf_counter() - start,
    }


def geweke_checks(replications: Sequence[Mapping], alpha: float = agreement.ALPHA) -> tuple:
    """Judge Geweke replications: one Holm-corrected z-test per test function.

    Parameters
    ----------
    replications : sequence of mapping
        Outputs of :func:`geweke_replication` (at least two).
    alpha : float
        Family-wise false-alarm rate.

    Returns
    -------
    checks : pandas.DataFrame
        ``quantity``, ``statistic`` (``"z(mean)"``, ``Statistic.MEAN.check``), ``value``
        (z), ``threshold``, ``p``, ``passed``, and ``marginal``, ``successive``, ``mcse_marginal``,
        ``mcse_successive``, ``ess_successive``.
    details : dict
        The means per quantity, for reports.
    """
    names = replications[0]["quantities"]
    mc = np.concatenate([np.asarray(r["marginal"], float) for r in replications])  # (n, Q)
    sc = np.stack([np.asarray(r["successive"], float) for r in replications])  # (R, S, Q)
    sc_da = xr.Dataset({"g": xr.DataArray(sc, dims=("chain", "draw", "quantity"))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mcse_sc = azs.mcse(sc_da, method="mean")["g"].values
        ess_sc = azs.ess(sc_da, method="bulk")["g"].values
    mean_mc, mean_sc = mc.mean(0), sc.mean((0, 1))
    mcse_mc = mc.std(0, ddof=1) / np.sqrt(len(mc))
    rows = []
    for k, name in enumerate(names):
        if np.ptp(mc[:, k]) == 0 and np.ptp(sc[..., k]) == 0:
            continue  # a constant test function carries no information
        if name.endswith("^2") and np.array_equal(mc[:, k], mc[:, names.index(name[:-2])]):
            continue  # the square of a 0/1 variable is the variable
        se = math.hypot(mcse_mc[k], mcse_sc[k])
        diff = mean_mc[k] - mean_sc[k]
        z = 0.0 if diff == 0 else (diff / se if np.isfinite(se) and se > 0 else math.inf)
        rows.append(
            {
                "quantity": name,
                "statistic": Statistic.MEAN.check,
                "value": z,
                "p": float(2 * stats.t.sf(abs(z), agreement.z_df(Statistic.MEAN))),
                "marginal": mean_mc[k],
                "successive": mean_sc[k],
                "mcse_marginal": mcse_mc[k],
                "mcse_successive": mcse_sc[k],
                "ess_successive": ess_sc[k],
            }
        )
    checks = agreement.holm(pd.DataFrame(rows), alpha)
    return checks, {"quantities": [r["quantity"] for r in rows]}
