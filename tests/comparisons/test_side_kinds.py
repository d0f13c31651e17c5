"""The table of side kinds: one parse for compare and validate, and what each makes of a spec."""

import pytest

from mcmc_pairs.comparisons.numpyro_side import NumpyroSampler
from mcmc_pairs.comparisons.pymc_runner import PymcTwin, StepMethod
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.run import _witness, resolve_settings
from mcmc_pairs.comparisons.side_kinds import (
    SIDE_KINDS,
    SideUnderTest,
    kind_of,
    sampler_under_test,
    source_under_test,
)
from mcmc_pairs.comparisons.sides import HandwrittenSource, PymcSource

PAIR = get_pair("mh_normal")
STEP = "pymc-step:pymc.step_methods.metropolis:Metropolis"
PYTHON = PAIR.handrolled["random_walk"]


def _side(reference=None):
    data = PAIR.load_data()
    witness, shapes = _witness(PAIR, data)
    settings = resolve_settings(PAIR, draws=20, tune=10, chains=2, seed=1)
    return SideUnderTest(PAIR, "user", "user", data, settings, witness, shapes, reference, {})


@pytest.mark.parametrize(
    ("spec", "kind"),
    [("draws.nc", 0), ("posteriordb:eight_schools-eight_schools_noncentered", 0), ("pymc", 1),
     (STEP, 1), (NumpyroSampler("m.py:model", ("x",)), 2), (PYTHON, 3), (print, 3)],
)  # fmt: skip
def test_a_spec_is_of_the_first_kind_that_parses_it(spec, kind):
    assert kind_of(spec, PAIR)[0] is SIDE_KINDS[kind]


def test_pymc_and_a_step_method_are_the_pairs_twin_in_both_commands():
    _, twin = kind_of("pymc", PAIR)
    assert twin == PymcTwin(PAIR) and sampler_under_test("pymc", PAIR) == twin
    assert sampler_under_test(STEP, PAIR) == PymcTwin(PAIR, StepMethod(STEP.split(":", 1)[1]))
    source = source_under_test(STEP, _side())
    assert isinstance(source, PymcSource) and str(source.step) == STEP
    with pytest.raises(ValueError, match="--sampler pymc puts PyMC's own sampler under test"):
        source_under_test("pymc", _side())  # no stored draws to compare it with


def test_a_python_sampler_runs_as_itself_and_stored_draws_cannot_be_validated():
    assert sampler_under_test(PYTHON, PAIR) == PYTHON
    assert isinstance(source_under_test(PYTHON, _side()), HandwrittenSource)
    with pytest.raises(ValueError, match="must be an import string or a callable, got 3"):
        sampler_under_test(3, PAIR)
    with pytest.raises(ValueError, match="stored draws cannot be validated"):
        sampler_under_test("draws.nc", PAIR)


def test_the_table_says_which_kinds_the_reproducibility_check_calls_again():
    assert [kind.rerun for kind in SIDE_KINDS] == [False, True, False, True]
    port = NumpyroSampler("m.py:model", ("x",))
    assert source_under_test(port, _side()).rerun is None
    assert source_under_test(PYTHON, _side()).rerun is not None
