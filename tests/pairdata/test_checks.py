"""The argument checks of the whole project name the argument and the bad value."""

import re

import numpy as np
import pytest

from mcmc_pairs.pairdata.checks import check_integer, check_positive


@pytest.mark.parametrize("value", [3, np.int64(3), np.uint8(3)])
def test_check_integer_accepts_python_and_numpy_integers(value):
    assert check_integer("draws", value, 1) == 3 and type(check_integer("d", value, 1)) is int


@pytest.mark.parametrize("value", [0, -1, 2.0, "3", True, None, np.float64(3)])
def test_check_integer_refuses_everything_else(value):
    message = f"draws must be an integer >= 1, got {value!r}"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        check_integer("draws", value, 1)


def test_check_positive():
    assert check_positive("timeout", 2) == 2.0
    for value in (0, -1.0, float("nan"), float("inf"), True, "1"):
        with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
            check_positive("timeout", value, "number of seconds")
