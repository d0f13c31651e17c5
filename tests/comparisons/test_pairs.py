"""Every registered pair agrees at its default settings; a wrong sampler of each is caught.

These are the suite's end-to-end statistical tests. NUTS runs once per pair: the
wrong samplers of the pair's catalogue (``Pair.wrong``) face the same PyMC draws
(``run_pair(..., pymc_from=...)``).
"""

import pytest

from mcmc_pairs.comparisons.registry import PAIRS, get_pair
from mcmc_pairs.comparisons.run import resolve_settings, run_pair

LONG = {"lda"}
"""Pairs whose default run takes minutes on 2 cores (NUTS on LDA's marginalised model):
their tests are marked ``slow`` and run by ``make test-slow``."""


def _marked(name, *rest):
    return pytest.param(name, *rest, marks=[pytest.mark.slow] if name in LONG else [])


CATALOGUE = [_marked(pair.name, wrong) for pair in PAIRS for wrong in pair.wrong]
"""Every pair's wrong samplers, as the pair declares them (``Pair.wrong``)."""


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


@pytest.mark.parametrize("name", [_marked(p.name) for p in PAIRS])
def test_every_variant_agrees_at_default_settings(name, results):
    result = results(name)
    failed = result.checks[~result.checks["passed"]]
    assert result.verdict == "agree", failed.to_string()
    under_test = {label for label, side in result.sides.items() if side.role == "handrolled"}
    assert {result.verdicts[label] for label in under_test} == {"agree"}


@pytest.mark.parametrize(("name", "wrong"), CATALOGUE)
def test_every_wrong_sampler_of_the_catalogue_is_caught(name, wrong, results):
    pair = get_pair(name)
    result = run_pair(pair, sampler=pair.wrong[wrong], progress=quiet, pymc_from=results(name))
    assert result.verdict == "disagree"
    checks = result.checks
    caught = checks[~checks["passed"] & checks["kind"].isin(["agreement", "exact", "support"])]
    assert len(caught), "caught by a comparison, not only by slow mixing"


def test_every_pair_has_a_wrong_sampler_to_catch():
    assert all(pair.wrong for pair in PAIRS)


def test_reusing_pymc_draws_needs_the_same_settings(results):
    with pytest.raises(ValueError, match="pymc_from ran regression with"):
        pair = get_pair("regression")
        run_pair(
            pair, resolve_settings(pair, draws=10), progress=quiet, pymc_from=results("regression")
        )
