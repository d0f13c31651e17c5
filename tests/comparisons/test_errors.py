"""Errors reach the user as one line."""

from comparisons.errors import one_line


def test_one_line():
    assert one_line(ValueError("two\n  lines")) == "two lines"
    assert one_line(KeyboardInterrupt()) == "KeyboardInterrupt"
