"""Every registered pair agrees at its default settings; a wrong sampler of each is caught.

These are the suite's end-to-end statistical tests: one NUTS run per case.
"""

import pytest

from comparisons.registry import PAIRS, get_pair
from comparisons.run import run_pair

WRONG = "tests/wrong_samplers.py"
WRONG_SAMPLERS = {
    "bivariate_normal": "bivariate_gibbs_without_shrinkage",
    "regression": "regression_blocked_rate_as_scale",
    "bayes_net": "bayes_net_gibbs_ignoring_children",
}
ALREADY_COVERED = {"bivariate_normal"}  # test_cli.py runs it through the command line


@pytest.mark.parametrize("name", [p.name for p in PAIRS if p.name not in ALREADY_COVERED])
def test_every_variant_agrees_at_default_settings(name):
    result = run_pair(get_pair(name), progress=lambda line: None)
    failed = result.checks[~result.checks["passed"]]
    assert result.verdict == "agree", failed.to_string()
    assert set(result.verdicts.values()) == {"agree"}


@pytest.mark.parametrize(
    "name", [n for n in WRONG_SAMPLERS if n not in ALREADY_COVERED]
)
def test_a_wrong_sampler_is_caught(name):
    spec = f"{WRONG}:{WRONG_SAMPLERS[name]}"
    result = run_pair(get_pair(name), sampler=spec, progress=lambda line: None)
    assert result.verdict == "disagree"


def test_every_pair_has_a_wrong_sampler_to_catch():
    assert {p.name for p in PAIRS} <= set(WRONG_SAMPLERS)
