"""Checkers for the notebooks' exercises: each tells the reader whether an answer is right.

An exercise cell sets ``answer = None``; the reader replaces ``None`` with a
number or a letter and runs the next cell, which calls one of these functions.
Unanswered, the checker says so and gives nothing away (so the notebooks run
unattended in the tests). Wrong, it gives a hint; right, the explanation. The
checking cells are tagged ``checker`` and hidden (``jupyter.source_hidden``;
the published pages show their output only), since their code holds the answer.

A number typed as a string (``"3"`` for ``3``) is refused with a one-line
message asking for a number, never a traceback. :func:`check_number` accepts a
right answer rounded sensibly: with ``digits=2`` (the default), an answer within
half a unit of the expected value's second significant digit (0.005 for 1/6 =
0.1667, so 0.17 passes; 0.0005 for 0.0123), besides the relative and absolute
tolerances; ``digits=None`` turns that off.

Every checker names one plausible ``wrong`` answer (the mistake the hint warns
against). With :data:`SELFTEST` set in the environment (the notebook tests set
it), an unanswered checker also checks itself, silently: the right answer is
accepted and the wrong one refused, or it raises ``AssertionError``. So a
tolerance too loose to tell the two apart fails ``make test``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

SELFTEST = "MCMC_PAIRS_EXERCISE_SELFTEST"
"""Environment variable: when set, an unanswered checker tests itself (see the module)."""


def _unanswered(answer) -> bool:
    if answer is None or answer is Ellipsis:
        print("✎ Not answered yet: replace None in the cell above with your answer, run it, "
              "then run this cell again.")  # fmt: skip
        return True
    return False


def _selftest(accepts, expected, wrong) -> None:
    """Raise ``AssertionError`` unless ``accepts(expected)`` and not ``accepts(wrong)``."""
    if not os.environ.get(SELFTEST):
        return
    assert wrong is not None, "an exercise must name a plausible wrong answer (wrong=...)"
    assert accepts(expected), f"the checker refuses its own answer {expected!r}"
    assert not accepts(wrong), f"the checker accepts the wrong answer {wrong!r}"


def _is_number(value) -> bool:
    """True for an int, float or NumPy number (not a bool, not a string)."""
    if isinstance(value, (bool, str, bytes)):
        return False
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def _not_a_number(answer) -> None:
    print(f"✘ Expected a number, got {answer!r} ({type(answer).__name__}): type it without "
          "quotes, e.g. 3 or 0.25.")  # fmt: skip


def _rounding(expected: float, digits: int | None) -> float:
    """Half a unit of ``expected``'s ``digits``-th significant digit: what rounding may move."""
    if digits is None or expected == 0 or not math.isfinite(expected):
        return 0.0
    return 0.5 * 10.0 ** (math.floor(math.log10(abs(expected))) - digits + 1) * (1 + 1e-9)


def _number_accepted(
    value, expected: float, rel: float, absolute: float, digits: int | None = None
) -> bool:
    if not _is_number(value):
        return False
    error = abs(float(value) - expected)
    return error <= max(rel * abs(expected), absolute, _rounding(expected, digits))


def check_number(
    answer, expected: float, *, rel: float = 0.05, absolute: float = 0.0, hint: str = "",
    why: str = "", wrong: float | None = None, digits: int | None = 2,
) -> bool | None:  # fmt: skip
    """Say whether a number ``answer`` is within ``rel`` (relative) or ``absolute`` of ``expected``.

    An answer rounded to ``digits`` significant digits is accepted too: within
    half a unit of the expected value's ``digits``-th significant digit, so 0.17
    passes for 1/6 = 0.1667.

    Parameters
    ----------
    answer : float or None
        The reader's answer; ``None`` means not answered yet.
    expected : float
        The right answer (computed in the notebook, so it holds at any settings).
    rel, absolute : float
        Accepted relative and absolute error.
    digits : int or None
        Significant digits a reader may round to (default 2); None accepts only
        ``rel`` and ``absolute``.
    hint, why : str
        Shown after a wrong and after a right answer.
    wrong : float
        A plausible wrong answer, which must be refused (:data:`SELFTEST`).

    Returns
    -------
    bool or None
        ``None`` when unanswered.
    """
    if _unanswered(answer):
        _selftest(lambda v: _number_accepted(v, expected, rel, absolute, digits), expected, wrong)
        return None
    if not _is_number(answer):
        _not_a_number(answer)
        return False
    value = float(answer)
    right = _number_accepted(value, expected, rel, absolute, digits)
    if right:
        print(f"✔ Right: {value:g} (the answer is {expected:.4g}). {why}".rstrip())
    else:
        print(f"✘ Not quite: {value:g} is off. Hint: {hint}".rstrip())
    return right


def _integer_accepted(value, expected: int) -> bool:
    return _is_number(value) and float(value) == int(expected)


def check_integer(
    answer, expected: int, *, hint: str = "", why: str = "", wrong: int | None = None
) -> bool | None:
    """Say whether an integer ``answer`` is exactly ``expected`` (a count, a period, a size).

    Parameters
    ----------
    answer : int or None
        The reader's answer; ``None`` means not answered yet.
    expected : int
        The right answer.
    hint, why : str
        Shown after a wrong and after a right answer.
    wrong : int
        A plausible wrong answer (often the off-by-one), refused (:data:`SELFTEST`).

    Returns
    -------
    bool or None
        ``None`` when unanswered.
    """
    if _unanswered(answer):
        _selftest(lambda v: _integer_accepted(v, expected), int(expected), wrong)
        return None
    if not _is_number(answer):
        _not_a_number(answer)
        return False
    right = _integer_accepted(answer, expected)
    if right:
        print(f"✔ Right: {int(expected)}. {why}".rstrip())
    else:
        print(f"✘ Not quite: {float(answer):g} is not it. Hint: {hint}".rstrip())
    return right


def check_choice(
    answer, expected: str, explanations: Mapping[str, str], *, wrong: str | None = None
) -> bool | None:
    """Say whether a multiple-choice ``answer`` (a letter) is ``expected``.

    Parameters
    ----------
    answer : str or None
        The reader's letter; ``None`` means not answered yet.
    expected : str
        The right letter.
    explanations : mapping of str to str
        For each letter, why it is right or wrong (shown for the chosen one).
    wrong : str
        A plausible wrong letter, which must be refused (:data:`SELFTEST`).

    Returns
    -------
    bool or None
        ``None`` when unanswered.
    """
    if _unanswered(answer):
        accepts = lambda letter: str(letter).strip().lower() == expected.lower()  # noqa: E731
        _selftest(accepts, expected, wrong)
        if wrong is not None and os.environ.get(SELFTEST):
            assert str(wrong).strip().lower() in explanations, f"{wrong!r} is not a choice"
        return None
    letter = str(answer).strip().lower()
    if letter not in explanations:
        print(f"✘ Choose one of {', '.join(sorted(explanations))}; got {answer!r}.")
        return False
    right = letter == expected.lower()
    print(("✔ Right: " if right else "✘ Not this one: ") + explanations[letter])
    return right
