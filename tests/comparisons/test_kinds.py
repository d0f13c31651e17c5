"""The contract's words as enums: each member is its word, in the JSON and in comparisons."""

import json

import pytest

from mcmc_pairs.comparisons import agreement, run
from mcmc_pairs.comparisons.kinds import SEVERITY, UNDER_TEST, CheckKind, Role, Verdict


def test_members_are_their_words():
    assert [str(v) for v in SEVERITY] == [
        "agree",
        "reference failed",
        "inconclusive",
        "not converged",
        "disagree",
    ]
    assert json.dumps([Verdict.NOT_CONVERGED, Role.PYMC_STEP, CheckKind.EXACT]) == (
        '["not converged", "pymc_step", "exact"]'
    )
    assert Verdict.AGREE == "agree" and f"{Verdict.DISAGREE}" == "disagree"
    assert f"{Verdict.NOT_CONVERGED!r} {[Role.USER]}" == "'not converged' ['user']"  # messages
    assert {"support": 0}[CheckKind.SUPPORT] == 0  # hashes as its word


def test_the_harness_uses_them():
    assert agreement.VERDICTS == SEVERITY == run.SEVERITY
    assert (agreement.AGREE, agreement.NOT_CONVERGED) == (Verdict.AGREE, Verdict.NOT_CONVERGED)
    assert run.UNDER_TEST == UNDER_TEST == (Role.HANDROLLED, Role.USER)
    assert max(["agree", Verdict.INCONCLUSIVE], key=SEVERITY.index) == "inconclusive"


def test_a_statistic_is_written_once_and_read_back_exactly():
    from mcmc_pairs.comparisons.kinds import Statistic
    from mcmc_pairs.comparisons.pair import PROBS, quantile_label

    assert [s.check for s in Statistic] == ["z(mean)", "z(sd)", "z(q5)", "z(q50)", "z(q95)"]
    assert all(Statistic.of_check(s.check) is s for s in Statistic)
    assert Statistic.Q95.mcse == "mcse_q95"
    assert {quantile_label(p) for p in PROBS} <= set(Statistic)  # every compared quantile
    for wrong in ("mean", "z(q99)", "z(mean", "energy"):
        with pytest.raises(ValueError, match="not a z-check's statistic"):
            Statistic.of_check(wrong)


def test_gates_and_measures_are_the_words_of_the_checks_table():
    from mcmc_pairs.comparisons.kinds import ESS_GATES, Gate, Measure

    assert [str(g) for g in Gate] == ["r_hat", "ess_bulk", "ess_tail", "divergences"]
    assert ESS_GATES == ("ess_bulk", "ess_tail")
    assert json.dumps([Measure.NON_FINITE, Measure.ENERGY]) == '["non-finite draws", "energy"]'


def test_validates_words_are_enums_too():
    from mcmc_pairs.comparisons import sbc, validation
    from mcmc_pairs.comparisons.kinds import ValidationTest, ValidationVerdict

    assert [str(v) for v in ValidationVerdict] == ["pass", "fail", "not converged", "error"]
    assert json.dumps(list(ValidationTest)) == '["ecdf band", "refused fraction"]'
    assert sbc.ECDF_BAND is ValidationTest.ECDF_BAND
    assert sbc.REFUSED_FRACTION is ValidationTest.REFUSED_FRACTION
    assert validation.PASS is ValidationVerdict.PASS and sbc.NOT_CONVERGED == "not converged"
