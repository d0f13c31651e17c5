"""Every registered pair agrees at its default settings; a wrong sampler of each is caught.

These are the suite's end-to-end statistical tests. NUTS runs once per pair: the
wrong samplers face the same PyMC draws (``run_pair(..., pymc_from=...)``).
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
    ("lda", "lda_gibbs_keeping_the_current_token"),
]
ALREADY_COVERED = {"bivariate_normal"}  # test_cli.py runs it through the command line


def quiet(line):
    pass


@pytest.fixture(scope="module")
def results():
    """Run each pair at its defaults once, on first use."""
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = run_pair(get_pair(name), progress=quiet)
        return cache[name]

    return get


@pytest.mark.parametrize("name", [p.name for p in PAIRS if p.name not in ALREADY_COVERED])
def test_every_variant_agrees_at_default_settings(name, results):
    result = results(name)
    failed = result.checks[~result.checks["passed"]]
    assert result.verdict == "agree", failed.to_string()
    assert set(result.verdicts.values()) == {"agree"}


@pytest.mark.parametrize(("name", "wrong"), WRONG_SAMPLERS)
def test_a_wrong_sampler_is_caught(name, wrong, results):
    result = run_pair(
        get_pair(name), sampler=f"{WRONG}:{wrong}", progress=quiet, pymc_from=results(name)
    )
    assert result.verdict != "agree"
    checks = result.checks
    caught = checks[~checks["passed"] & checks["kind"].isin(["agreement", "exact", "support"])]
    assert len(caught), "caught by a comparison, not only by slow mixing"


def test_every_pair_has_a_wrong_sampler_to_catch():
    covered = {name for name, _ in WRONG_SAMPLERS} | ALREADY_COVERED
    assert {p.name for p in PAIRS} <= covered


def test_reusing_pymc_draws_needs_the_same_settings(results):
    with pytest.raises(ValueError, match="pymc_from ran regression with"):
        run_pair(get_pair("regression"), draws=10, progress=quiet, pymc_from=results("regression"))
