"""The contract's words as enums: each member is its word, in the JSON and in comparisons."""

import json

from mcmc_pairs.comparisons import agreement, run
from mcmc_pairs.comparisons.kinds import SEVERITY, UNDER_TEST, CheckKind, Role, Verdict


def test_members_are_their_words():
    assert [str(v) for v in SEVERITY] == ["agree", "inconclusive", "not converged", "disagree"]
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
