"""Every registered pair agrees at its default settings; a wrong sampler of each is caught.

These are the suite's end-to-end statistical tests: one NUTS run per case.
"""

import pytest

from comparisons.registry import PAIRS, get_pair
from comparisons.run import run_pair

WRONG = "tests/wrong_samplers.py"
WRONG_SAMPLERS = [
    ("regression", "regression_blocked_rate_as_scale"),
    ("bayes_net", "bayes_net_gibbs_ignoring_children"),
    ("mh_normal", "mh_normal_independence_without_hastings"),
    ("mh_beta", "mh_beta_independence_without_hastings"),
    ("mh_beta", "mh_beta_random_walk_accepting_out_of_support"),
]
ALREADY_COVERED = {"bivariate_normal"}  # test_cli.py runs it through the command line


@pytest.mark.parametrize("name", [p.name for p in PAIRS if p.name not in ALREADY_COVERED])
def test_every_variant_agrees_at_default_settings(name):
    result = run_pair(get_pair(name), progress=lambda line: None)
    failed = result.checks[~result.checks["passed"]]
    assert result.verdict == "agree", failed.to_string()
    assert set(result.verdicts.values()) == {"agree"}


@pytest.mark.parametrize(("name", "wrong"), WRONG_SAMPLERS)
def test_a_wrong_sampler_is_caught(name, wrong):
    result = run_pair(get_pair(name), sampler=f"{WRONG}:{wrong}", progress=lambda line: None)
    assert result.verdict != "agree"
    checks = result.checks
    caught = checks[~checks["passed"] & checks["kind"].isin(["agreement", "exact", "support"])]
    assert len(caught), "caught by a comparison, not only by slow mixing"


def test_every_pair_has_a_wrong_sampler_to_catch():
    covered = {name for name, _ in WRONG_SAMPLERS} | ALREADY_COVERED
    assert {p.name for p in PAIRS} <= covered
