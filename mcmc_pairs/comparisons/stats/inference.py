"""Numeric kernels of the tests: z-scores, their p-values, Holm, resolutions, R-hat thresholds.

The first layer of the statistics (:mod:`mcmc_pairs.comparisons.stats`): numbers in,
numbers out, no checks and no verdicts. The rules they serve are those of
docs/contracts.md, "What 'agree' means":

* for each quantity and statistic (mean, sd, 5/50/95 % quantiles),
  ``z = (a - b) / sqrt(mcse_a**2 + mcse_b**2)`` between two sides, and
  ``z = (a - exact) / mcse_a`` against an exact answer where one is known;
* a z-score's p-value comes from a Student-t with :data:`Z_DF` degrees of
  freedom per statistic (the MCSE is estimated, which fattens the tails);
* all z-checks of one run form one family, corrected by Holm's step-down
  procedure (:func:`holm`) so that a correct pair raises a false alarm in about
  ``alpha`` of runs (1 % by default);
* ``agree`` certifies each difference within its tolerance (:func:`tolerances`)
  by two one-sided tests (:func:`resolutions`);
* the R-hat threshold scales with the number of quantities
  (:func:`rhat_threshold`): 1.01, or the R-hat that correct chains of the same
  bulk ESS exceed with probability ``alpha / (2 m)`` for ``m`` quantities,
  whichever is larger, so that a side of correct chains fails the R-hat gate in
  at most ``alpha`` of runs however many quantities it has;
* a side that fails its gates is still ``disagree`` when a difference is far
  beyond any plausible Monte Carlo error (:func:`gross_differences`).

SciPy is imported in the functions that use it, so a run loads it only once it compares.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import numpy as np
import pandas as pd

from mcmc_pairs.comparisons.kinds import Statistic
from mcmc_pairs.comparisons.pair import PROBS, quantile_label
from mcmc_pairs.comparisons.settings import TOLERANCE

ALPHA = 0.01
"""Family-wise false-alarm rate of the z-checks of one run."""
ALPHA_EQUIVALENCE = 0.05
"""Error rate of ``agree``: the probability of certifying a resolution that a difference exceeds.

Each check's resolution is the upper end of the (1 - 2 alpha) confidence
interval of its absolute difference, and ``agree`` needs every resolution
within its tolerance: an intersection-union test (Berger 1982), whose level is
alpha with no multiplicity correction, however many checks there are."""
TAIL_FACTOR = 2.0
"""The 5 % and 95 % quantiles' tolerance is this many times ``delta``: their MCSE is about
2.1 times the mean's for the same ESS (normal theory: sqrt(p (1 - p)) / phi(z_p))."""
Z_DF: dict[str, int] = {
    Statistic.MEAN: 30,
    Statistic.SD: 30,
    Statistic.Q5: 20,
    Statistic.Q50: 30,
    Statistic.Q95: 20,
}
"""Degrees of freedom of the Student-t that turns a z-score into a p-value, per statistic.

The MCSE in the denominator is itself estimated, so z has heavier tails than a
normal, and how much heavier depends on how the MCSE is estimated: a tail
quantile's rests on the ESS of an indicator and the spacing of a few order
statistics. Measured by ``scripts/z_calibration.py`` (``benchmarks/z_calibration.md``)
on 2,000 runs of each of five correct samplers against exact answers (16,000
z-scores per statistic): means, sds and medians follow t(30) or lighter
(|z| > 4.5: 0, 3 and 0 times, t(30) predicts 1.5), the 5 % and 95 % quantiles
t(20) (|z| > 4, 4.5, 5: 23, 10 and 2 of 32,000; t(20) predicts 22.5, 7.0 and
2.2, t(30) 12.2, 3.0 and 0.7). With t(30) for every statistic, ``regression``
raised 2 % false alarms, all from tail quantiles just over their Holm
thresholds (``benchmarks/power.md``)."""
CHECK_LABELS = frozenset(statistic.check for statistic in Statistic)
"""The ``statistic`` words of z-checks in a checks table: ``"z(mean)"`` ..."""


def z_df(statistic: str) -> int:
    """Return the degrees of freedom of a statistic's z-scores (:data:`Z_DF`; else the mean's).

    ``statistic`` may be a z-check's label (:attr:`Statistic.check`): ``"q95"`` and
    ``"z(q95)"`` alike, as a report's JSON has them.
    """
    if statistic not in Z_DF and statistic in CHECK_LABELS:
        statistic = Statistic.of_check(statistic)
    return Z_DF.get(statistic, Z_DF[Statistic.MEAN])


RHAT_MAX = 1.01
"""The R-hat gate of a side with few quantities and a large ESS (Vehtari et al. 2021)."""
ESS_PER_CHAIN_MIN = 100
GROSS_FACTOR = 4.0
"""A side that fails its gates is still ``disagree`` when a z-check exceeds this many
times its Holm threshold: its MCSE would have to be underestimated fourfold (its
ESS sixteenfold) for Monte Carlo error to explain the difference."""


def z_p_values(z: np.ndarray, statistics: Iterable[str]) -> np.ndarray:
    """Return two-sided p-values of z-scores, each under its statistic's Student-t (:func:`z_df`).

    One call for the whole table: scipy's per-call overhead would otherwise
    dominate a large run (LDA: 22,000 checks).
    """
    from scipy import stats

    df = np.array([z_df(statistic) for statistic in statistics], dtype=float)
    return 2 * np.asarray(stats.t.sf(np.abs(np.asarray(z, dtype=float)), df), dtype=float)


def z_score(a: float, b: float, se: float) -> float:
    """Return the z-score of the difference ``a - b`` with standard error ``se``.

    0 for identical values (a degenerate quantile of a discrete quantity), NaN
    without an MCSE (a draw or two per chain: no test; the gates say not
    converged), infinite for a difference with no Monte Carlo error to explain it.
    """
    diff = float(a) - float(b)
    if diff == 0.0:
        return 0.0
    if np.isnan(se):
        return np.nan
    if np.isfinite(se) and se > 0:
        return diff / se
    return np.inf


def holm(checks: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Apply Holm's step-down correction to a family of z-checks.

    Adds ``threshold`` (the |z| a check must not exceed at its rank, under the
    Student-t of its ``statistic``, :func:`z_df`), ``level`` (the p-value it
    must not reach at its rank, ``alpha / (m - rank)``) and ``passed``. Controls the
    family-wise error rate at ``alpha`` under any dependence between the checks.
    """
    from scipy import stats

    checks = checks.copy()
    m = len(checks)
    if m == 0:
        empty = pd.Series(dtype=float)
        return checks.assign(threshold=empty, level=empty, passed=pd.Series(dtype=bool))
    order = np.argsort(checks["p"].to_numpy(), kind="stable")
    level = alpha / (m - np.arange(m))  # alpha/m, alpha/(m-1), ..., alpha
    rejected_sorted = np.cumprod(checks["p"].to_numpy()[order] <= level).astype(bool)
    threshold = np.empty(m)
    passed = np.empty(m, dtype=bool)
    df: np.ndarray | float = float(z_df(Statistic.MEAN))
    if "statistic" in checks:
        df = checks["statistic"].map(z_df).to_numpy(dtype=float)[order]
    threshold[order] = stats.t.isf(level / 2, df)
    passed[order] = ~rejected_sorted
    levels = np.empty(m)
    levels[order] = level
    return checks.assign(threshold=threshold, level=levels, passed=passed)


def tolerances(delta: float = TOLERANCE) -> dict[str, float]:
    """Return the tolerance of every statistic, in posterior sd units, for a given ``delta``.

    ``delta`` for the mean, the sd (a relative error of the sd) and the median;
    :data:`TAIL_FACTOR` times ``delta`` for the 5 % and 95 % quantiles.
    """
    if not (isinstance(delta, (int, float)) and np.isfinite(delta) and delta > 0):
        raise ValueError(f"tolerance must be a positive number (posterior sds), got {delta!r}")
    tails = {quantile_label(p): TAIL_FACTOR * delta for p in PROBS if p != 0.5}
    return {Statistic.MEAN: delta, Statistic.SD: delta, quantile_label(0.5): delta, **tails}


def resolutions(
    z_table: pd.DataFrame,
    delta: float = TOLERANCE,
    alpha: float = ALPHA_EQUIVALENCE,
    means_only: Collection[str] = (),
) -> pd.DataFrame:
    """Add each check's resolution and whether it lies within its tolerance (two one-sided tests).

    The difference ``(a - b) / scale`` is in posterior sd units, and so is its
    standard error ``se / scale``. The check's *resolution* is
    ``|difference| + t(1 - alpha, z_df(statistic)) * se / scale``: the smallest tolerance
    whose two one-sided tests (Schuirmann 1987) both reject at level ``alpha``,
    i.e. the upper end of the difference's (1 - 2 alpha) confidence interval in
    absolute value. A check is ``equivalent`` when its resolution is below its
    tolerance (:func:`tolerances`). ``agree`` needs every check equivalent: by
    the intersection-union principle the claim "every difference is within
    its tolerance" then errs with probability at most ``alpha``.

    Parameters
    ----------
    z_table : pandas.DataFrame
        From :func:`z_checks` (columns ``a``, ``b``, ``se``, ``scale``, ``statistic``).
    delta : float
        The tolerance of means, sds and medians (:func:`tolerances`).
    alpha : float
        Level of each one-sided test.
    means_only : collection of str
        Quantities whose mean alone is certified: the centred products, whose
        mean is a covariance but whose sd and tail quantiles are fourth-moment
        statistics of heavy-tailed draws (a product of two normals has kurtosis
        9; with an inverse-gamma factor, far more). Their other statistics
        keep their z-checks (a difference is still detected) but get no
        tolerance (``NaN``, ``equivalent`` missing).

    Returns
    -------
    pandas.DataFrame
        ``z_table`` with ``difference`` (sd units, signed), ``resolution``,
        ``tolerance`` and ``equivalent``. Identical statistics (a degenerate
        quantile of a discrete quantity) have resolution 0; a difference with
        no finite standard error or scale has an infinite one.
    """
    from scipy import stats

    limits = tolerances(delta)
    critical = stats.t.isf(alpha, z_table["statistic"].map(z_df).to_numpy(dtype=float))
    diff = (z_table["a"] - z_table["b"]).to_numpy(dtype=float)
    se = z_table["se"].to_numpy(dtype=float)
    scale = z_table["scale"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        resolution = (np.abs(diff) + critical * se) / scale
    usable = np.isfinite(resolution) & (scale > 0)
    resolution = np.where(usable, resolution, np.where(diff == 0, 0.0, np.inf))
    with np.errstate(divide="ignore", invalid="ignore"):
        difference = np.where(scale > 0, diff / scale, np.where(diff == 0, 0.0, np.inf))
    tolerance = z_table["statistic"].map(limits).to_numpy(dtype=float, copy=True)
    spread = z_table["quantity"].isin(list(means_only)) & (z_table["statistic"] != Statistic.MEAN)
    tolerance[spread.to_numpy()] = np.nan
    equivalent = pd.Series(resolution < tolerance, index=z_table.index, dtype=object)
    equivalent[np.isnan(tolerance)] = None
    return z_table.assign(
        difference=difference,
        resolution=resolution,
        tolerance=tolerance,
        equivalent=equivalent,
    )


def rhat_threshold(
    ess: np.ndarray | float, chains: int, draws: int, quantities: int, alpha: float = ALPHA
) -> np.ndarray:
    """Return the R-hat above which a side is not converged, for one of ``quantities``.

    For ``M = 2 chains`` split chains of ``N = draws / 2`` stationary draws with
    ``n = ess / M`` effective draws each, the variance of the chain means is
    about ``F sigma**2 / n`` with ``F ~ chi2(M - 1) / (M - 1)``, and R-hat's
    ``(N - 1) / N + B / (N W)`` (Vehtari et al. 2021) is about
    ``1 - 1 / N + F / n``. The threshold is the R-hat that ``F``'s
    upper ``alpha / (2 quantities)`` quantile gives (two R-hats per quantity:
    arviz-stats takes the larger of the bulk and the folded one), Bonferroni
    over the side's quantities, and never below :data:`RHAT_MAX`. Measured on
    AR(1) chains (``scripts/rhat_gate.py``, ``benchmarks/rhat_gate.md``).

    Parameters
    ----------
    ess : float or ndarray
        ESS of each quantity from within the chains (``ess_within`` of
        :func:`summarize`): chains that disagree with each other, which R-hat
        is there to detect, do not lower it. It is taken at least at the ESS
        gate (:data:`ESS_PER_CHAIN_MIN` per chain), below which a side is not
        converged anyway, so the threshold never exceeds its value there.
    chains, draws : int
        Number of chains, and of draws per chain.
    quantities : int
        Number of quantities the side is judged on.
    alpha : float
        Family-wise false-alarm rate of the side's R-hat gates.

    Returns
    -------
    ndarray
        Shape of ``ess``; :data:`RHAT_MAX` where the ESS is not a number.
    """
    from scipy import stats

    splits = 2 * chains
    f = stats.chi2.isf(alpha / (2 * max(quantities, 1)), splits - 1) / (splits - 1)
    ess = np.maximum(np.asarray(ess, dtype=float), ESS_PER_CHAIN_MIN * chains)
    with np.errstate(divide="ignore", invalid="ignore"):
        null = np.sqrt(1.0 - 2.0 / draws + f * splits / ess)
    return np.where(np.isfinite(null) & (ess > 0), np.maximum(RHAT_MAX, null), RHAT_MAX)


def gross_differences(z_table: pd.DataFrame) -> pd.Series:
    """Flag the z-checks whose difference no plausible Monte Carlo error explains.

    A check is gross when its difference exceeds :data:`GROSS_FACTOR` times its
    Holm threshold both in units of its MCSE (``|z|``) and in units of its
    standard error with the chains as batches (``se_batch``), which stays
    honest when chains disagree with each other: a chain stuck far away makes
    ``se_batch`` large, so a side that is merely not converged is not called
    ``disagree``; chains that agree with each other on a wrong answer are.

    Parameters
    ----------
    z_table : pandas.DataFrame
        Holm-corrected z-checks with columns ``a``, ``b``, ``z``, ``threshold``
        and ``se_batch``.

    Returns
    -------
    pandas.Series of bool
    """
    bound = GROSS_FACTOR * z_table["threshold"]
    with np.errstate(divide="ignore", invalid="ignore"):
        z_batch = (z_table["a"] - z_table["b"]).abs() / z_table["se_batch"]
    return (z_table["z"].abs() > bound) & (z_batch > bound)
