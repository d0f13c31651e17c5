"""--data files: JSON, NPZ and CSV become dicts of numbers and arrays; anything else is named."""

import json

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
