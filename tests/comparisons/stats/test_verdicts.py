"""The verdict rules on checks tables: a side's own checks first, then the reference's."""

import pandas as pd

from mcmc_pairs.comparisons.kinds import Verdict
from mcmc_pairs.comparisons.stats import verdicts


def test_side_verdicts_read_each_sides_checks_and_the_references():
    def row(side, kind, passed):
        return {"side": side, "kind": kind, "passed": passed}

    base = [row("ref", "diagnostic", True), row("ref", "exact", True)]
    checks = pd.DataFrame(
        [
            *base,
            row("good", "agreement", True),
            row("good", "diagnostic", True),
            row("bad", "agreement", False),
            row("slow", "diagnostic", False),
            row("slow", "agreement", False),
            row("outside", "support", False),
        ]
    )
    sides = ["good", "bad", "ref", "slow", "outside"]
    assert verdicts.side_verdicts(checks, sides, reference="ref") == {
        "good": Verdict.AGREE,
        "bad": Verdict.DISAGREE,
        "slow": Verdict.NOT_CONVERGED,
        "outside": Verdict.DISAGREE,
    }
    stuck_reference = checks.assign(passed=checks["passed"] | (checks["side"] != "ref"))
    stuck_reference.loc[0, "passed"] = False  # the reference's own gate fails
    found = verdicts.side_verdicts(stuck_reference, ["good", "ref"], reference="ref")
    assert found == {"good": Verdict.REFERENCE_FAILED}  # the reference's fault, not good's
