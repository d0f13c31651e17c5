"""Checkers for the notebooks' exercises: each tells the reader whether an answer is right.

An exercise cell sets ``answer = None``; the reader replaces ``None`` with a
number or a letter and runs the next cell, which calls one of these functions.
Unanswered, the checker says so and gives nothing away (so the notebooks run
unattended in the tests). Wrong, it gives a hint; right, the explanation. The
checking cells are tagged ``checker`` and hidden (``jupyter.source_hidden``;
the published pages show their output only), since their code holds the answer.
"""

from __future__ import annotations

from collections.abc import Mapping


def _unanswered(answer) -> bool:
    if answer is None or answer is Ellipsis:
        print("✎ Not answered yet: replace None in the cell above with your answer, run it, "
              "then run this cell again.")  # fmt: skip
        return True
    return False


def check_number(
    answer, expected: float, *, rel: float = 0.05, absolute: float = 0.0, hint: str = "",
    why: str = "",
) -> bool | None:  # fmt: skip
    """Say whether a number ``answer`` is within ``rel`` (relative) or ``absolute`` of ``expected``.

    Parameters
    ----------
    answer : float or None
        The reader's answer; ``None`` means not answered yet.
    expected : float
        The right answer (computed in the notebook, so it holds at any settings).
    rel, absolute : float
        Accepted relative and absolute error.
    hint, why : str
        Shown after a wrong and after a right answer.

    Returns
    -------
    bool or None
        ``None`` when unanswered.
    """
    if _unanswered(answer):
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError):
        print(f"✘ Expected a number, got {answer!r}.")
        return False
    right = abs(value - expected) <= max(rel * abs(expected), absolute)
    if right:
        print(f"✔ Right: {value:g} (the answer is {expected:.4g}). {why}".rstrip())
    else:
        print(f"✘ Not quite: {value:g} is off. Hint: {hint}".rstrip())
    return right


def check_choice(answer, expected: str, explanations: Mapping[str, str]) -> bool | None:
    """Say whether a multiple-choice ``answer`` (a letter) is ``expected``.

    Parameters
    ----------
    answer : str or None
        The reader's letter; ``None`` means not answered yet.
    expected : str
        The right letter.
    explanations : mapping of str to str
        For each letter, why it is right or wrong (shown for the chosen one).

    Returns
    -------
    bool or None
        ``None`` when unanswered.
    """
    if _unanswered(answer):
        return None
    letter = str(answer).strip().lower()
    if letter not in explanations:
        print(f"✘ Choose one of {', '.join(sorted(explanations))}; got {answer!r}.")
        return False
    right = letter == expected.lower()
    print(("✔ Right: " if right else "✘ Not this one: ") + explanations[letter])
    return right
