r"""Simulation-based calibration of a sampler: replications and the rank tests that judge them.

Simulation-based calibration (Talts et al. 2018; Modrák et al. 2023)
--------------------------------------------------------------------
Each replication draws ``theta* ~ prior`` and ``y ~ p(y | theta*)``, runs the
sampler (``chains`` chains of ``draws`` after ``tune``), thins the draws to
near-independence by their smallest bulk ESS (:func:`arviz_stats.ess`) and
keeps :data:`SBC_RANK_DRAWS` (``L``) of them evenly spaced, and records the
rank of ``theta*`` among them for every test quantity: each scalar parameter,
the pairwise products (and sums) of the components, and ``logp``. Ties (discrete
variables) are broken uniformly at random, so ranks of a calibrated sampler are
uniform on ``0 .. L``. Per quantity a chi-square test on ``bins`` equal bins of
ranks; Holm's correction over the quantities. Replications whose ESS was too
small for ``L`` thinned draws keep the thinnest spacing that still gives ``L``
and are counted in ``under_thinned`` (autocorrelation makes ranks pile up at the
ends).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence

import arviz_stats as azs
import numpy as np
import pandas as pd
from scipy import stats

from comparisons import agreement
from comparisons.contract import call_sampler, sampler_name
from comparisons.loading import resolve
from comparisons.simulation import Simulator, check_draws, child_seed, one_draw, test_quantities

SBC_RANK_DRAWS = 99
"""Posterior draws a prior draw is ranked among (ranks 0 .. 99, 100 values)."""


def sbc_replication(
    sim: Simulator,
    sampler: str | Callable,
    settings: Mapping[str, int],
    seed: np.random.SeedSequence,
) -> dict:
    """Run one SBC replication: prior draw, simulated data, sampler, ranks.

    Parameters
    ----------
    sim : Simulator
    sampler : str or callable
    settings : mapping
        ``draws``, ``tune``, ``chains`` of the sampler run.
    seed : numpy.random.SeedSequence

    Returns
    -------
    dict
        ``ranks`` (quantity -> rank in ``0 .. L``), ``quantities``, ``ess``
        (smallest bulk ESS), ``thin``, ``under_thinned``, ``seconds``.
    """
    start = time.perf_counter()
    func = resolve(sampler)
    name = sampler_name(sampler)
    ss_prior, ss_ties = child_seed(seed, 0), child_seed(seed, 1)
    rng = np.random.default_rng(ss_prior)
    theta = sim.prior(sim.data, rng)
    y = sim.simulate(sim.data, theta, rng)
    draws, chains = settings["draws"], settings["chains"]
    sampler_seed = int(rng.integers(0, 2**32))
    output = call_sampler(
        name, func, y, draws=draws, tune=settings["tune"], chains=chains,
        random_seed=sampler_seed,
    )  # fmt: skip
    post = check_draws(output, theta, name, chains, draws)
    q_post, names = test_quantities(sim, post, y, squares=False, sums=True)
    q_true, _ = test_quantities(sim, one_draw(theta), y, squares=False, sums=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant quantities have NaN ESS
        ess = azs.ess(q_post, method="bulk")
    finite = ess[np.isfinite(ess)]
    min_ess = float(finite.min()) if finite.size else float(chains * draws)
    total = chains * draws
    thin = max(1, math.ceil(total / max(min_ess, 1.0)))
    flat = q_post.reshape(total, -1)  # chain-major: chains concatenated
    under_thinned = total // thin < SBC_RANK_DRAWS
    if total < SBC_RANK_DRAWS:
        raise ValueError(
            f"chains * draws must be >= {SBC_RANK_DRAWS} for SBC ranks, got {chains} * {draws}"
        )
    thinned = flat[::thin] if not under_thinned else flat[:: total // SBC_RANK_DRAWS]
    keep = np.linspace(0, len(thinned) - 1, SBC_RANK_DRAWS).round().astype(int)
    kept = thinned[keep]
    truth = q_true[0, 0]
    rng_ties = np.random.default_rng(ss_ties)
    below = (kept < truth).sum(axis=0)
    ties = (kept == truth).sum(axis=0)
    ranks = below + rng_ties.integers(0, ties + 1)
    return {
        "quantities": names,
        "ranks": [int(r) for r in ranks],
        "ess": min_ess,
        "thin": int(thin),
        "under_thinned": bool(under_thinned),
        "seconds": time.perf_counter() - start,
    }


def sbc_checks(
    replications: Sequence[Mapping], alpha: float = agreement.ALPHA, bins: int | None = None
) -> tuple:
    """Judge SBC ranks: one Holm-corrected chi-square uniformity test per quantity.

    Parameters
    ----------
    replications : sequence of mapping
        Outputs of :func:`sbc_replication`.
    alpha : float
        Family-wise false-alarm rate.
    bins : int, optional
        Number of equal bins of the ``L + 1`` rank values; must divide ``L + 1``.
        Default: the largest divisor of ``L + 1`` up to 20 that leaves at least
        5 replications per bin.

    Returns
    -------
    checks : pandas.DataFrame
        ``quantity``, ``statistic`` (``"chi2(ranks)"``), ``value``, ``threshold``
        (the chi-square critical value at the check's Holm level), ``p``, ``passed``.
    details : dict
        ``ranks`` (R, Q) as lists, ``quantities``, ``bins``, ``L``.
    """
    names = replications[0]["quantities"]
    ranks = np.array([r["ranks"] for r in replications], dtype=int)  # (R, Q)
    n_values = SBC_RANK_DRAWS + 1
    if bins is None:
        divisors = [b for b in range(2, 21) if n_values % b == 0 and len(ranks) / b >= 5]
        bins = max(divisors, default=2)
    if n_values % bins:
        raise ValueError(f"bins must divide {n_values}, got {bins}")
    width = n_values // bins
    rows = []
    for k, name in enumerate(names):
        counts = np.bincount(ranks[:, k] // width, minlength=bins)
        chi2, p = stats.chisquare(counts)
        rows.append(
            {"quantity": name, "statistic": "chi2(ranks)", "value": float(chi2), "p": float(p)}
        )
    checks = agreement.holm(pd.DataFrame(rows), alpha)
    level = 2 * stats.t.sf(checks["threshold"].to_numpy(), agreement.Z_DF)
    checks["threshold"] = stats.chi2.isf(level, bins - 1)
    details = {"ranks": ranks.tolist(), "quantities": names, "bins": bins, "L": SBC_RANK_DRAWS}
    return checks, details
