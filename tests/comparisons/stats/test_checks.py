"""A check is a typed record; the checks table is made of records in one function."""

import dataclasses
import math

import pandas as pd
import pytest

from mcmc_pairs.comparisons.kinds import CheckKind, Gate, Measure
from mcmc_pairs.comparisons.stats.checks import FRAME_COLUMNS, Check, checks_frame
from mcmc_pairs.comparisons.stats.constants import NOT_APPLICABLE, STUCK, constant_gates


def gate(side: str, quantity: str, statistic: Gate, passed: bool = True) -> Check:
    return Check(side, side, CheckKind.DIAGNOSTIC, quantity, statistic, 1.0, 1.01, passed)


def test_a_check_has_the_sixteen_columns_and_the_defaults_of_the_kinds_that_leave_them():
    assert tuple(field.name for field in dataclasses.fields(Check)) == FRAME_COLUMNS
    assert len(FRAME_COLUMNS) == 16
    check = Check("a", "a", CheckKind.SUPPORT, "x", Measure.NON_FINITE, 0.0, 0.0, True)
    assert check.gross is False and check.equivalent is None and check.note == ""
    assert all(math.isnan(getattr(check, name)) for name in ("difference", "p", "level"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        check.passed = False  # type: ignore[misc]


def test_the_table_of_records_has_the_columns_in_order_and_their_dtypes():
    z = Check(
        "a vs b", "a", CheckKind.AGREEMENT, "x", "z(mean)", 0.5, 3.2, True,
        difference=0.01, resolution=0.1, tolerance=0.2, equivalent=True, p=0.6, level=0.01,
    )  # fmt: skip
    frame = checks_frame([z, gate("a", "x", Gate.R_HAT)])
    assert list(frame.columns) == list(FRAME_COLUMNS)
    assert frame["passed"].dtype == bool and frame["gross"].dtype == bool
    assert frame["equivalent"].dtype == object and frame["equivalent"].tolist() == [True, None]
    assert frame["value"].dtype == float and pd.isna(frame.at[1, "resolution"])
    assert frame["statistic"].tolist() == ["z(mean)", "r_hat"]
    empty = checks_frame([])
    assert list(empty.columns) == list(FRAME_COLUMNS) and empty.empty


def test_constant_quantities_gates_are_marked_on_the_records():
    gates = [
        gate("user", "c", Gate.R_HAT),
        gate("user", "c", Gate.ESS_BULK, passed=False),
        gate("pymc", "s", Gate.R_HAT),
        gate("pymc", "s", Gate.ESS_TAIL),
        gate("pymc", "x", Gate.R_HAT),
    ]
    constant = {"user": {"c"}, "pymc": {"c", "s"}}
    marked = constant_gates(gates, constant, [("user", "pymc")])
    assert [(g.passed, g.note) for g in marked] == [
        (True, NOT_APPLICABLE),  # constant on both sides: R-hat undefined, not applicable
        (True, NOT_APPLICABLE),
        (False, STUCK),  # constant on the reference only: its R-hat gate fails
        (True, ""),  # not R-hat: untouched
        (True, ""),
    ]
    assert marked[4] is gates[4]
