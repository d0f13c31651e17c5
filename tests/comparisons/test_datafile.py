"""--data files: JSON, NPZ and CSV become dicts of numbers and arrays; anything else is named."""

import json
from pathlib import Path

import numpy as np
import pytest

from mcmc_pairs.comparisons.datafile import read_data


def test_json_lists_become_int_or_float_arrays(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(
        json.dumps(
            {"y": [1, 2, 3], "x": [1, 2.5], "m": [[1, 2], [3, 4]], "n": 3, "s": 0.5, "label": "a"}
        )
    )
    data = read_data(path)
    assert data["y"].dtype == np.int64 and data["y"].tolist() == [1, 2, 3]
    assert data["x"].dtype == np.float64
    assert data["m"].shape == (2, 2) and data["m"].dtype == np.int64
    assert data["n"] == 3 and data["s"] == 0.5 and data["label"] == "a"


def test_json_objects_nest(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"evidence": {"A": 1}, "cpts": {"A": [0.5]}}))
    data = read_data(path)
    assert data["evidence"] == {"A": 1} and data["cpts"]["A"].tolist() == [0.5]


def test_npz_arrays_by_name(tmp_path):
    path = tmp_path / "d.npz"
    np.savez(path, y=np.arange(3), X=np.ones((3, 2)))
    data = read_data(path)
    assert sorted(data) == ["X", "y"] and data["X"].shape == (3, 2)


def test_csv_columns_become_1d_arrays(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("temperature,distress\n53,1\n57.5,0\n\n")
    data = read_data(path)
    assert data["temperature"].dtype == np.float64 and data["temperature"].tolist() == [53, 57.5]
    assert data["distress"].dtype == np.int64 and data["distress"].tolist() == [1, 0]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("d.json", "{", "not valid JSON"),
        ("d.json", "[1, 2]", "top level must be an object"),
        ("d.json", '{"y": [1, [2]]}', "ragged"),
        ("d.json", '{"y": [1, "two"]}', "key 'y' holds a non-numeric entry 'two'"),
        ("d.json", '{"y": [true, false]}', "non-numeric entry True"),
        ("d.json", '{"y": null}', "key 'y' holds None"),
        ("d.json", "{}", "holds no data"),
        ("d.csv", "pump,y\nA,5\n", "column 'pump' is not numeric \\(line 2: 'A'\\)"),
        ("d.csv", "y,t\n5,1\n6\n", "line 3 has 1 fields, the header 2"),
        ("d.csv", "y,y\n5,1\n", "name every column once"),
        ("d.csv", "y,t\n", "no rows below the header"),
        ("d.npz", "not a zip", "not a readable .npz"),
        ("d.txt", "5 1 5", "expected a .json, .npz, .csv file, got .txt"),
    ],
)
def test_bad_files_name_the_argument_and_the_problem(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ValueError, match=f"^--data '.*{name}'.*{message}"):
        read_data(path)


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="--data file '.*nope.csv' does not exist"):
        read_data(tmp_path / "nope.csv")


def test_npz_of_strings_is_refused(tmp_path):
    path = tmp_path / "d.npz"
    np.savez(path, labels=np.array(["a", "b"]))
    with pytest.raises(ValueError, match="array 'labels' has dtype <U1; expected numbers"):
        read_data(path)


def test_a_csv_saved_with_a_byte_order_mark_reads_its_first_column_by_name(tmp_path):
    """Spreadsheets write a UTF-8 BOM; it was part of the first name (``KeyError: 'y'``)."""
    path = tmp_path / "d.csv"
    path.write_bytes("\ufeffy,x\n1,0.5\n2,1.5\n".encode())
    data = read_data(path)
    assert sorted(data) == ["x", "y"] and data["y"].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"y": [1.0, float("nan")]}, "key 'y' holds nan at index 1"),
        ({"X": np.array([[0.0, 1.0], [np.inf, 2.0]])}, "key 'X' holds inf at index \\(1, 0\\)"),
        ({"prior": {"scale": -np.inf}}, "key 'prior.scale' holds -inf;"),
    ],
)
def test_data_that_are_not_finite_are_refused_by_name_from_python(data, message):
    """compare(...) with a mapping: refused before PyMC imputes a NaN or crashes on an inf."""
    from mcmc_pairs import compare

    example = Path(__file__).resolve().parents[2] / "examples" / "eight_schools"
    data = {**json.loads((example / "data.json").read_text()), **data}
    with pytest.raises(ValueError, match=message):
        compare(f"{example}/model.py:build_model", f"{example}/sampler.py:sample", data)
