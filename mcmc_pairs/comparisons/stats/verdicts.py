"""The verdict rules: a side's verdict from its checks, and when a run holds a side for more.

The third layer of the statistics: it reads the checks table
(:func:`~.checks.checks_frame`) of every kind, and nothing else. The rules, in
order, are :func:`verdict`'s; a side's own checks and the reference's are
separated by :func:`side_verdicts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from mcmc_pairs.comparisons.kinds import HONESTY_KINDS, Z_KINDS, CheckKind, Gate, Verdict


def verdict(checks: pd.DataFrame, reference: pd.DataFrame | None = None) -> Verdict:
    """Return a side's verdict from its own checks and, optionally, the reference's own checks.

    The rules, in this order (the first that applies decides), the side's own
    failures first:

    1. draws outside the support (:func:`support_failed`), or a failed honesty
       check (:func:`honesty_failed`: chains not independent, draws copied from the
       reference, a sampler not reproducible): ``disagree``;
    2. a failed gate (:func:`gates_failed`): ``not converged``, unless a z-check
       of the side is gross (:func:`gross_difference`: a difference no
       plausible Monte Carlo error explains), which is ``disagree``;
    3. a failed exact check (:func:`exact_failed`): ``disagree``;
    4. the reference failed its own gates, support or exact checks
       (:func:`reference_at_fault`): ``reference failed``; no comparison with
       it can be attributed to the side, however large;
    5. a failed z-check or multivariate check against the reference
       (:func:`difference_detected`): ``disagree``;
    6. every z-check ``equivalent`` (:func:`all_equivalent`): ``agree``;
    7. otherwise ``inconclusive`` (nothing detected, resolution not reached: run longer).

    Parameters
    ----------
    checks : pandas.DataFrame
        The side's own checks, every kind (columns ``kind``, ``passed``, and
        ``gross``/``equivalent`` for z-checks); without ``reference``, the checks
        of every side taken together.
    reference : pandas.DataFrame, optional
        The reference's own checks (rows whose ``side`` is the reference).

    Returns
    -------
    Verdict
    """
    blamed = reference_at_fault(reference)
    if support_failed(checks):
        return Verdict.DISAGREE
    if honesty_failed(checks):  # issue 31 part 3: a sampler that only looks right
        return Verdict.DISAGREE
    if gates_failed(checks):
        return (
            Verdict.DISAGREE
            if gross_difference(checks, reference_failed=blamed)
            else Verdict.NOT_CONVERGED
        )
    if exact_failed(checks):
        return Verdict.DISAGREE
    if blamed:
        return Verdict.REFERENCE_FAILED
    if difference_detected(checks):
        return Verdict.DISAGREE
    return Verdict.AGREE if all_equivalent(checks) else Verdict.INCONCLUSIVE


def _of_kind(checks: pd.DataFrame | None, *kinds: str) -> pd.DataFrame:
    """Return the rows of ``checks`` of the given kinds (none when ``checks`` is None)."""
    if checks is None or not len(checks):
        return pd.DataFrame(columns=["kind", "passed"])
    return checks[checks["kind"].isin(kinds)]


def _any_failed(rows: pd.DataFrame) -> bool:
    """Return True when one of ``rows`` did not pass."""
    return bool(len(rows)) and not rows["passed"].astype(bool).all()


def support_failed(checks: pd.DataFrame) -> bool:
    """Return True when a draw of the side is not finite: outside the target's support."""
    return _any_failed(_of_kind(checks, CheckKind.SUPPORT))


def honesty_failed(checks: pd.DataFrame) -> bool:
    """Return True when an honesty check of the side failed (:data:`~.kinds.HONESTY_KINDS`)."""
    return _any_failed(_of_kind(checks, *HONESTY_KINDS))


def gates_failed(checks: pd.DataFrame) -> bool:
    """Return True when a gate of the side (R-hat, bulk or tail ESS) failed: not converged."""
    return _any_failed(_of_kind(checks, CheckKind.DIAGNOSTIC))


def exact_failed(checks: pd.DataFrame) -> bool:
    """Return True when a z-check of the side against the exact answer failed."""
    return _any_failed(_of_kind(checks, CheckKind.EXACT))


def difference_detected(checks: pd.DataFrame) -> bool:
    """Return True when a z-check or energy check of the side against the reference failed."""
    return _any_failed(_of_kind(checks, CheckKind.AGREEMENT, CheckKind.MULTIVARIATE))


def gross_difference(checks: pd.DataFrame, reference_failed: bool = False) -> bool:
    """Return True when a z-check of the side is gross (:func:`gross_differences`).

    A gross difference from the exact answer always counts; one from the
    reference counts only when the reference did not fail its own checks.
    """
    kinds = (CheckKind.EXACT,) if reference_failed else Z_KINDS
    z = _of_kind(checks, *kinds)
    return "gross" in z and bool(z["gross"].fillna(False).astype(bool).any())


REFERENCE_KINDS = (CheckKind.DIAGNOSTIC, CheckKind.SUPPORT, CheckKind.EXACT)
"""The reference's own checks whose failure is ``reference failed`` for a healthy side."""


def reference_at_fault(reference: pd.DataFrame | None) -> bool:
    """Return True when the reference failed its own gates, support or exact checks."""
    return _any_failed(_of_kind(reference, *REFERENCE_KINDS))


def all_equivalent(checks: pd.DataFrame) -> bool:
    """Every z-check with a tolerance is ``equivalent``: the resolution is reached."""
    if "equivalent" not in checks:
        return True
    return bool(checks["equivalent"].dropna().astype(bool).all())


def verdict_of(checks: pd.DataFrame) -> Verdict:
    """Return the :func:`verdict` of a table of checks of every kind and side, taken together."""
    return verdict(checks)


LEAD = 1.5
"""A side that agrees before the last look, but whose z-checks' mean squared normal
score (:func:`lead`) is at least this, is held: the run grows on (:mod:`~.run`).

Agreement gives a mean of about 1 (a check's squared z averages 1); a small
difference shared by many checks, too small for any one of them to pass its
Holm threshold, raises them all. Stan's NUTS bug of 2.10-2.13 (sds 4 % too small,
``shipped/stan_nuts_subtree``) gives 3.1 at its first look at seed 1, where no
check is past its threshold and every one is within its tolerance; it is caught
at seeds 1-7 of 8 (the eighth agrees at its first look with 0.56). The correct
samplers of the zoo, the seed pairs and the catalogue's fixes gave 1.5 or more in
15 of 217 first looks that agreed (one look each, seeds 1-12; 2 or more in 5):
those runs take another look. Holding a side spends nothing of either error
rate: each look's tests keep their own share (:func:`~.run.spent`), whatever made
the run take it."""


def lead(checks: pd.DataFrame, side: str) -> float:
    """Return the mean squared normal score of ``side``'s z-checks (NaN: none).

    Each check's two-sided p-value (:func:`z_p_values`) becomes the normal
    score with the same p, so a Student-t's heavier tails do not count as a
    lead; a p of 0 counts as 1e-300.
    """
    from scipy import stats

    rows = checks[(checks["side"] == side) & checks["kind"].isin(Z_KINDS)]
    p = rows["p"].to_numpy(dtype=float) if "p" in rows else np.array([])
    p = p[np.isfinite(p)]
    if not len(p):
        return float("nan")
    return float(np.mean(stats.norm.isf(np.clip(p, 1e-300, 1.0) / 2) ** 2))


def held_sides(
    checks: pd.DataFrame, verdicts: Mapping[str, str], labels: Sequence[str]
) -> dict[str, float]:
    """Return the sides among ``labels`` that agree with a :func:`lead` of :data:`LEAD` or more.

    Returns
    -------
    dict of str to float
        Side label to its lead, for the held sides only.
    """
    leads = {label: lead(checks, label) for label in labels if verdicts[label] == Verdict.AGREE}
    return {label: value for label, value in leads.items() if value >= LEAD}


def side_verdicts(checks: pd.DataFrame, sides: Sequence[str], reference: str) -> dict[str, Verdict]:
    """Return the verdict of every side but ``reference``, from the checks that bear on it.

    A side's own checks are the rows whose ``side`` is that side (its
    comparison with the reference, its exact checks, its gates, its support);
    the reference's own checks (its exact checks, gates and support) are the
    rows whose ``side`` is ``reference``. :func:`verdict` counts the side's own
    failures first; a side that passes them while the reference fails its own
    is ``"reference failed"``.

    Parameters
    ----------
    checks : pandas.DataFrame
        From :func:`compare_draws`, with columns ``side``, ``kind`` and ``passed``.
    sides : sequence of str
        Side labels.
    reference : str
        The reference side's label.

    Returns
    -------
    dict of str to Verdict
        Side label to :func:`verdict`, in the order of ``sides``.
    """
    own = checks[checks["side"] == reference]
    return {
        label: verdict(checks[checks["side"] == label], own)
        for label in sides
        if label != reference
    }


def diverged(checks: pd.DataFrame | None) -> bool:
    """Return True when a divergence gate among ``checks`` failed (:mod:`.divergences`)."""
    rows = _of_kind(checks, CheckKind.DIAGNOSTIC)
    return _any_failed(rows[rows["statistic"] == Gate.DIVERGENCES]) if len(rows) else False
