"""One Settings record: defaults and bounds in one place, the CLI and the Python API built on it."""

import inspect
import math
from collections.abc import Mapping
from types import SimpleNamespace

import pytest

from mcmc_pairs.comparisons import cli, run, settings, testing
from mcmc_pairs.comparisons.settings import FIELDS, NAMES, Settings


def test_defaults_then_the_pairs_then_overrides():
    s = Settings.resolve({"draws": 500, "seed": 7}, draws=200, tolerance=None, timeout=30)
    assert (s.draws, s.tune, s.chains, s.seed) == (200, 1000, 4, 7)
    assert s.tolerance == settings.TOLERANCE
    assert s.max_draws == settings.BUDGET_FACTOR * 200
    assert (s.max_seconds, s.timeout) == (None, 30)


def test_a_record_whose_json_is_in_the_fields_order():
    s = Settings.resolve(timeout=30)
    assert list(s.as_json()) == list(NAMES) == [f.name for f in FIELDS]
    assert s.as_json() == {name: getattr(s, name) for name in NAMES}
    assert s.as_json()["timeout"] == 30 and s.as_json()["max_seconds"] is None
    assert not isinstance(s, Mapping)  # read by attribute: no settings["draws"]
    with pytest.raises(TypeError):
        s["draws"]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"draws": 0}, "draws must be an integer >= 1, got 0"),
        ({"tune": -1}, "tune must be an integer >= 0, got -1"),
        ({"chains": 1}, "chains must be >= 2 so that R-hat can be computed, got 1"),
        ({"chains": 2.5}, "chains must be an integer >= 1, got 2.5"),
        ({"seed": True}, "seed must be an integer >= 0, got True"),
        ({"draws": 100, "max_draws": 50}, "max_draws must be an integer >= 100, got 50"),
        ({"tolerance": 0}, "tolerance must be a positive number (posterior sds), got 0"),
        ({"tolerance": math.inf}, "tolerance must be a positive number (posterior sds)"),
        ({"max_seconds": -1.0}, "max_seconds must be a positive number, got -1.0"),
        ({"timeout": "10"}, "timeout must be a positive number, got '10'"),
        ({"thin": 2}, "unknown setting 'thin'"),
    ],
)
def test_bad_settings_name_the_argument(overrides, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Settings.resolve(**overrides)


def test_frozen_and_replace_checks_again():
    s = Settings.resolve(draws=100)
    with pytest.raises(AttributeError):
        s.draws = 5
    assert s.replace(draws=200, max_draws=200).max_draws == 200
    with pytest.raises(ValueError, match="max_draws"):
        s.replace(draws=2000)  # its max_draws (1600) is now below draws


def test_the_python_keywords_and_the_cli_flags_are_the_fields():
    compare = inspect.signature(testing.compare).parameters
    assert set(NAMES) <= set(compare)  # the Python API's keywords, for users
    assert all(compare[name].default is None for name in NAMES)  # None: the default
    run_pair = inspect.signature(run.run_pair).parameters  # the record, not its fields again
    assert run_pair["settings"].annotation == "Settings | None"
    assert not set(NAMES) & set(run_pair)
    parser = cli.build_parser()
    compare_cli = parser._subparsers._group_actions[0].choices["compare"]
    flags = {option for action in compare_cli._actions for option in action.option_strings}
    assert {f.flag for f in FIELDS} <= flags
    args = parser.parse_args(["compare", "x", "--max-draws", "8", "--timeout", "2.5"])
    given = settings.from_args(args, {"draws": 4})
    assert given == Settings.resolve(draws=4, max_draws=8, timeout=2.5)


def test_compare_passes_its_keywords_on_as_one_record(monkeypatch):
    """Every keyword of ``testing.compare`` that is a setting reaches ``run_pair``'s record."""
    from mcmc_pairs.comparisons import byom

    seen = []
    pair = SimpleNamespace(name="p", settings={"draws": 2})  # overridden by every keyword
    monkeypatch.setattr(byom, "model_pair", lambda *args, **kwargs: pair)
    monkeypatch.setattr(run, "run_pair", lambda pair, settings, **kwargs: seen.append(settings))
    monkeypatch.setattr(testing, "_written", lambda result, out: result)
    given = {"draws": 7, "tune": 3, "chains": 3, "seed": 9, "tolerance": 0.5}
    given |= {"max_draws": 14, "max_seconds": 60.0, "timeout": 5.0}
    assert set(given) == set(NAMES)
    testing.compare("m:build", "s:sample", {}, cache=False, **given)
    assert seen == [Settings.resolve(**given)]
