"""The exercise checkers of the notebooks: silent on no answer, right and wrong told apart."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location(
    "_exercises", Path(__file__).resolve().parents[2] / "notebooks" / "_exercises.py"
)
ex = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ex)


def test_unanswered_gives_nothing_away(capsys):
    assert ex.check_number(None, 0.25, why="SECRET") is None
    assert ex.check_choice(None, "b", {"a": "SECRET", "b": "SECRET"}) is None
    assert "SECRET" not in capsys.readouterr().out


def test_check_number_tolerances(capsys):
    assert ex.check_number(0.25, 0.25)
    assert ex.check_number(0.26, 0.25, rel=0.05)
    assert not ex.check_number(0.3, 0.25, rel=0.05, hint="HINT")
    assert "HINT" in capsys.readouterr().out
    assert ex.check_number(2, 2, rel=0)
    assert ex.check_number(523, 522, rel=0, absolute=1.5)
    assert not ex.check_number("two", 2)


def test_check_choice(capsys):
    explanations = {"a": "why a", "b": "why b"}
    assert ex.check_choice(" B ", "b", explanations)
    assert not ex.check_choice("a", "b", explanations)
    assert "why a" in capsys.readouterr().out
    assert not ex.check_choice("z", "b", explanations)


def test_check_integer_is_exact(capsys):
    assert ex.check_integer(522, 522)
    assert ex.check_integer(522.0, 522)
    assert not ex.check_integer(523, 522, hint="HINT")
    assert "HINT" in capsys.readouterr().out
    assert not ex.check_integer("many", 522)


def test_an_unanswered_checker_tests_itself_when_asked(monkeypatch):
    ex.check_number(None, 0.1, rel=0.01, wrong=0.2)  # not asked: nothing checked
    monkeypatch.setenv(ex.SELFTEST, "1")
    ex.check_number(None, 0.1, rel=0.01, wrong=0.2)
    ex.check_integer(None, 522, wrong=521)
    ex.check_choice(None, "b", {"a": "", "b": ""}, wrong="a")
    with pytest.raises(AssertionError, match="accepts the wrong answer"):
        ex.check_number(None, 522, rel=0, absolute=1.5, wrong=523)  # too loose to tell them apart
    with pytest.raises(AssertionError, match="must name a plausible wrong answer"):
        ex.check_integer(None, 3)
    with pytest.raises(AssertionError, match="accepts the wrong answer"):
        ex.check_choice(None, "b", {"a": "", "b": ""}, wrong="B")
    with pytest.raises(AssertionError, match="not a choice"):
        ex.check_choice(None, "b", {"a": "", "b": ""}, wrong="z")


def test_a_string_answer_is_refused_in_one_line(capsys):
    # issue 42: check_integer crashed with "Unknown format code 'g'" on "3"
    assert ex.check_integer("3", 3) is False
    assert ex.check_number("0.25", 0.25) is False
    assert ex.check_integer(True, 1) is False  # a bool is not a count
    out = capsys.readouterr().out
    assert out.count("Expected a number") == 3 and "Traceback" not in out
    assert len(out.strip().splitlines()) == 3  # one line each


def test_a_rounded_right_answer_is_accepted(capsys):
    # issue 42: lda's Exercise 2 refused 0.17 for 1/6 (rel=0, absolute=0.001)
    assert ex.check_number(0.17, 1 / 6, rel=0, absolute=0.001)
    assert ex.check_number(0.167, 1 / 6, rel=0, absolute=0.001)
    assert ex.check_number(0.012, 0.0123, rel=0)  # two significant digits, however small
    assert not ex.check_number(0.01, 0.0123, rel=0)  # one is not enough
    assert not ex.check_number(0.18, 1 / 6, rel=0)
    assert not ex.check_number(0.17, 1 / 6, rel=0, absolute=0.001, digits=None)  # opted out
    assert not ex.check_number(0.3, 0.25, rel=0.05)


def test_rounding_keeps_the_selftest(monkeypatch):
    monkeypatch.setenv(ex.SELFTEST, "1")
    ex.check_number(None, 1 / 6, rel=0, absolute=0.001, wrong=0.25)
    with pytest.raises(AssertionError, match="accepts the wrong answer"):
        ex.check_number(None, 1 / 6, rel=0, absolute=0.001, wrong=0.17)
