"""The words of a comparison's contract, as enums: verdicts, roles, checks, statistics.

Each is a :class:`enum.StrEnum`, so a member *is* its word: it is written to the
JSON report and the page as that word (``Verdict.AGREE`` as ``"agree"``) and
compares equal to it, while code names it once, here, and a typo is an
``AttributeError`` instead of a check that never matches.
"""

from __future__ import annotations

from enum import StrEnum


class _Word(StrEnum):
    """A member that also *reads* as its word: ``repr`` too, in messages and tables."""

    def __repr__(self) -> str:
        return repr(self.value)


class Verdict(_Word):
    """A comparison's verdict, from best to worst (:data:`SEVERITY`)."""

    AGREE = "agree"
    REFERENCE_FAILED = "reference failed"
    """The side passed its own checks but the reference (PyMC) failed its own: nothing can be
    said about the side until PyMC's run is fixed (other step methods, or a longer run)."""
    INCONCLUSIVE = "inconclusive"
    NOT_CONVERGED = "not converged"
    DISAGREE = "disagree"


SEVERITY = tuple(Verdict)
"""Verdicts from best to worst: a run's verdict is its worst side's under test.

``reference failed`` comes right after ``agree``: it says nothing against the side under
test, while every worse verdict does (or leaves the side's own resolution unreached); a
side's own failure (not converged, disagree) outranks the reference's."""


class ValidationVerdict(_Word):
    """The verdict of ``validate``: Geweke's test or SBC of one sampler on its own."""

    PASS = "pass"
    FAIL = "fail"
    NOT_CONVERGED = "not converged"
    """SBC: too many replications short of effective draws even at ``max_draws``, and no
    rank test of the others rejects (the sampler mixes too slowly to judge)."""
    ERROR = "error"
    """A replication failed; the finished ones are kept."""


class ValidationTest(_Word):
    """The ``statistic`` of a check of ``validate --method sbc``.

    Geweke's checks are z-checks: their statistic is :attr:`Statistic.MEAN`'s ``check``.
    """

    ECDF_BAND = "ecdf band"
    """The rank ECDF's simultaneous band: the smallest pointwise binomial tail probability."""
    REFUSED_FRACTION = "refused fraction"
    """The fraction of replications refused (short of effective draws at ``max_draws``)."""


class Role(_Word):
    """What a side of a comparison is."""

    HANDROLLED = "handrolled"
    """A hand-written sampler of the pair (a variant)."""
    USER = "user"
    """The sampler given with ``--sampler``."""
    PYMC = "pymc"
    """The reference: PyMC's default sampler on the pair's model."""
    PYMC_STEP = "pymc_step"
    """A second PyMC reference with a step method of the pair's choice; it decides nothing."""


UNDER_TEST = (Role.HANDROLLED, Role.USER)
"""The roles whose verdicts make the run's."""


class CheckKind(_Word):
    """What a row of the checks table checks."""

    AGREEMENT = "agreement"
    """A z-check of one statistic between a side and the reference."""
    EXACT = "exact"
    """A z-check of one statistic of a side against the exact answer."""
    MULTIVARIATE = "multivariate"
    """The energy check of all quantities at once between a side and the reference."""
    DIAGNOSTIC = "diagnostic"
    """A side's own gate: R-hat, bulk or tail ESS, or (PyMC's reference) no divergence."""
    SUPPORT = "support"
    """A side's draws inside the model's support (finite log density)."""
    INDEPENDENCE = "independence"
    """A side's chains independent of each other: no chain correlation far beyond chance."""
    COPY = "copy"
    """A side's draws not copied from the reference's."""
    REPRODUCIBILITY = "reproducibility"
    """A side's sampler gives the same draws, bit for bit, when called again with the seed."""


Z_KINDS = (CheckKind.AGREEMENT, CheckKind.EXACT)
"""The kinds whose rows are z-checks (a statistic, its MCSE, a Holm threshold)."""
HONESTY_KINDS = (CheckKind.INDEPENDENCE, CheckKind.COPY, CheckKind.REPRODUCIBILITY)
"""The kinds of the honesty checks (:mod:`~mcmc_pairs.comparisons.honesty`): a failed one
makes its side ``disagree``, whatever else its checks say."""


class Statistic(_Word):
    """A statistic compared for every quantity: the mean, the sd and three quantiles.

    The quantiles are those of :data:`mcmc_pairs.comparisons.pair.PROBS`
    (``q5`` is the 5 % quantile). A z-check of a statistic is written in the
    checks table as :attr:`check` (``"z(mean)"``) and read back with
    :meth:`of_check`, an exact lookup that refuses any other word.
    """

    MEAN = "mean"
    SD = "sd"
    Q5 = "q5"
    Q50 = "q50"
    Q95 = "q95"

    @property
    def check(self) -> str:
        """The ``statistic`` of its z-checks in the checks table: ``"z(mean)"``."""
        return f"z({self.value})"

    @property
    def mcse(self) -> str:
        """The column of its Monte Carlo standard error in a summary: ``"mcse_mean"``."""
        return f"mcse_{self.value}"

    @classmethod
    def of_check(cls, label: str) -> Statistic:
        """Return the statistic a z-check's ``label`` names: ``"z(q95)"`` -> ``Q95``.

        Raises
        ------
        ValueError
            ``label`` is not the :attr:`check` of a statistic.
        """
        for statistic in cls:
            if statistic.check == label:
                return statistic
        raise ValueError(f"{label!r} is not a z-check's statistic ({[s.check for s in cls]})")


class Gate(_Word):
    """A side's own gate: the ``statistic`` of a :attr:`CheckKind.DIAGNOSTIC` check."""

    R_HAT = "r_hat"
    """R-hat below its threshold (:func:`~.stats.inference.rhat_threshold`)."""
    ESS_BULK = "ess_bulk"
    """Bulk ESS at least ``ESS_PER_CHAIN_MIN`` per chain."""
    ESS_TAIL = "ess_tail"
    """Tail ESS at least ``ESS_PER_CHAIN_MIN`` per chain."""
    DIVERGENCES = "divergences"
    """No divergent transition in any chain."""


ESS_GATES = (Gate.ESS_BULK, Gate.ESS_TAIL)
"""The gates on an effective sample size: a larger value is better."""


class Measure(_Word):
    """The ``statistic`` of a check that is neither a z-check nor a gate."""

    NON_FINITE = "non-finite draws"
    """Of a :attr:`CheckKind.SUPPORT` check: the fraction of non-finite draws of a quantity."""
    ENERGY = "energy"
    """Of a :attr:`CheckKind.MULTIVARIATE` check: the energy distance of two sides' draws."""
