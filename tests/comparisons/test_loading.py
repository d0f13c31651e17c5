import pytest

from comparisons.loading import load_callable


def test_module_and_file_specs_load():
    from handrolled.bivariate_normal import sample

    assert load_callable("handrolled.bivariate_normal:sample") is sample
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
