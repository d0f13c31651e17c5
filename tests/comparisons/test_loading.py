import sys
from pathlib import Path

import pytest

from mcmc_pairs.comparisons.loading import load_callable


def test_module_and_file_specs_load():
    from mcmc_pairs.handrolled.bivariate_normal import sample

    assert load_callable("mcmc_pairs.handrolled.bivariate_normal:sample") is sample
    assert callable(load_callable("tests/malformed_samplers.py:bivariate_raises"))


def test_user_file_that_fails_to_import_is_an_input_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("raise ImportError('needs jax')\n")
    with pytest.raises(ValueError, match="does not import: ImportError: needs jax"):
        load_callable(f"{bad}:sample")


def test_non_callable_is_rejected(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text("sample = 3\n")
    with pytest.raises(ValueError, match="no callable named 'sample'"):
        load_callable(f"{mod}:sample")


OLD = "handrolled"
"""An old top-level name, written apart so that a rename of the tree's names leaves it."""


def test_an_old_module_name_gets_a_one_line_hint(monkeypatch):
    # pytest puts the checkout on sys.path, where the folder `handrolled/` still imports
    root = Path(__file__).resolve().parents[2]
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != root])
    for name in [m for m in sys.modules if m.partition(".")[0] == "handrolled"]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ValueError) as info:
        load_callable(OLD + ".regression:sample")
    message = str(info.value)
    assert "\n" not in message
    assert "now under mcmc_pairs: 'mcmc_pairs.handrolled.regression:sample'" in message
    with pytest.raises(ValueError) as info:  # no such module under the new name: no hint
        load_callable(OLD + ".nope:sample")
    assert "mcmc_pairs" not in str(info.value)
