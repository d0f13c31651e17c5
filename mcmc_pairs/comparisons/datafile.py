"""Read a user's data file (``--data``): ``.json``, ``.npz`` or ``.csv``.

The result is a plain ``dict`` that a ``build_model(data)`` and a sampler both
receive (each its own copy):

- ``.json``: an object whose values are numbers, lists of numbers (nested lists
  for arrays of more dimensions), strings or objects of those; a list becomes a
  NumPy array, ``int64`` when every entry is an integer within int64's range,
  else ``float64``.
- ``.npz``: every array of the archive under its name (``allow_pickle=False``).
- ``.csv``: a header row naming the columns, then one row per observation; each
  column becomes a 1-D array, ``int64`` when every entry is an integer within
  int64's range, else ``float64``. A column with a non-numeric entry is an error (naming it): the
  harness compares numbers, so labels belong in a README, not in the data.

Every problem is a :class:`ValueError` that names ``--data``, the file and what
is wrong.
"""

from __future__ import annotations

import csv
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mcmc_pairs.comparisons.errors import one_line
from mcmc_pairs.pairdata import posteriordb

SUFFIXES = (".json", ".npz", ".csv")
INT64 = np.iinfo(np.int64)


def read_data(path: str | Path, *, argument: str = "--data") -> dict[str, Any]:
    """Read a data file into ``{key: value}``.

    Parameters
    ----------
    path : str or Path
        A ``.json``, ``.npz`` or ``.csv`` file, or ``posteriordb:NAME``: the data of
        a posterior shipped with the suite (:mod:`mcmc_pairs.pairdata.posteriordb`).
    argument : str
        Name of the argument ``path`` came from, for messages.

    Returns
    -------
    dict
        Arrays (int64 or float64), numbers, strings and nested dicts of those.

    Raises
    ------
    ValueError
        A missing or unreadable file, an unknown suffix, malformed content, a
        non-numeric CSV column or list, or an empty file.
    """
    if str(path).startswith(posteriordb.PREFIX):  # a posterior shipped with the suite
        try:
            return posteriordb.load_data(str(path).removeprefix(posteriordb.PREFIX))
        except ValueError as exc:
            raise ValueError(f"{argument} {path}: {exc}") from None
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(
            f"{argument} {str(path)!r}: expected a {', '.join(SUFFIXES)} file, "
            f"got {suffix or 'no suffix'}"
        )
    if not file.is_file():
        raise ValueError(f"{argument} file {str(path)!r} does not exist")
    try:
        reader = {".json": _read_json, ".npz": _read_npz, ".csv": _read_csv}[suffix]
        data = reader(file)
    except ValueError as exc:
        raise ValueError(f"{argument} {str(path)!r}: {exc}") from None
    except RecursionError:  # JSON lists or objects nested thousands deep
        raise ValueError(f"{argument} {str(path)!r}: nested too deeply to read") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"{argument} {str(path)!r} cannot be read: {type(exc).__name__}: {exc}"
        ) from None
    if not data:
        raise ValueError(f"{argument} {str(path)!r} holds no data")
    refuse_non_finite(data, argument=f"{argument} {str(path)!r}")
    return data


def refuse_non_finite(data: Mapping[str, Any], *, argument: str = "data", _path: str = "") -> None:
    """Raise :class:`ValueError` naming the first value of ``data`` that is not finite.

    ``inf`` (JSON's ``Infinity`` or ``1e400``, a CSV's ``inf``) makes PyMC's
    initial point fail and nutpie crash; a ``NaN`` in an observed variable makes
    PyMC impute it as a free variable (``y_unobserved``) that the sampler under
    test would have to return. Both are refused before anything is sampled.
    Nested mappings are searched too (the key named ``outer.inner``).
    """
    for key, value in data.items():
        name = f"{_path}{key}"
        if isinstance(value, Mapping):
            refuse_non_finite(value, argument=argument, _path=f"{name}.")
            continue
        if isinstance(value, str | bytes):
            continue
        try:
            array = np.asarray(value)
        except Exception:  # an object NumPy cannot hold: the model's business, not ours
            continue
        if array.dtype.kind not in "fc" or np.isfinite(array).all():
            continue
        index = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        where = f" at index {index[0] if len(index) == 1 else index}" if index else ""
        raise ValueError(
            f"{argument}: key {name!r} holds {complex(array[index]).real:g}{where}; every "
            f"number must be finite (a NaN in observed data would make PyMC impute it as a "
            f"free variable that the sampler would have to return: leave missing rows out)"
        )


def _read_json(file: Path) -> dict[str, Any]:
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(document, dict):
        raise ValueError(f"the top level must be an object, got {type(document).__name__}")
    return {str(key): _json_value(value, str(key)) for key, value in document.items()}


def _json_value(value: Any, key: str) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_value(v, f"{key}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return _numeric_array(value, key)
    if isinstance(value, bool) or value is None:
        raise ValueError(f"key {key!r} holds {value!r}; expected a number, a list or a string")
    return value  # int, float or str


def _numeric_array(values: list, key: str) -> np.ndarray:
    """Turn a (nested) list of numbers into an int64 or float64 array."""
    try:
        array = np.array(values, dtype=object)
    except ValueError:
        raise ValueError(f"key {key!r} is a ragged list; arrays must be rectangular") from None
    flat = array.ravel()
    if any(isinstance(v, list) for v in flat):
        raise ValueError(f"key {key!r} is a ragged list; arrays must be rectangular")
    bad = [v for v in flat if isinstance(v, bool) or not isinstance(v, int | float)]
    if bad:
        raise ValueError(f"key {key!r} holds a non-numeric entry {bad[0]!r}")
    if all(isinstance(v, int) and INT64.min <= v <= INT64.max for v in flat):
        return array.astype(np.int64)
    return array.astype(np.float64)  # an integer beyond int64 too


def _read_npz(file: Path) -> dict[str, Any]:
    try:
        archive = np.load(file, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError("a single .npy array, not an archive of named arrays (np.savez)")
        with archive:
            data = {name: archive[name] for name in archive.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"not a readable .npz archive ({one_line(exc)})") from None
    for name, array in data.items():
        if not isinstance(array, np.ndarray):  # a member that is not a .npy file
            raise ValueError(f"member {name!r} of the archive is not a NumPy array")
        if array.dtype.kind not in "biuf":
            raise ValueError(f"array {name!r} has dtype {array.dtype}; expected numbers")
    return data


def _read_csv(file: Path) -> dict[str, Any]:
    with file.open(newline="", encoding="utf-8-sig") as handle:  # a spreadsheet's BOM too
        rows = [row for row in csv.reader(handle) if any(cell.strip() for cell in row)]
    if not rows:
        return {}
    header = [name.strip() for name in rows[0]]
    if any(not name for name in header) or len(set(header)) != len(header):
        raise ValueError(f"the header row must name every column once, got {rows[0]}")
    if len(rows) < 2:
        raise ValueError("no rows below the header")
    columns: dict[str, list[str]] = {name: [] for name in header}
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ValueError(f"line {number} has {len(row)} fields, the header {len(header)}")
        for name, cell in zip(header, row, strict=True):
            columns[name].append(cell.strip())
    return {name: _csv_column(name, cells) for name, cells in columns.items()}


def _csv_column(name: str, cells: list[str]) -> np.ndarray:
    try:
        return np.array([int(cell) for cell in cells], dtype=np.int64)
    except (ValueError, OverflowError):  # not integers, or beyond int64: floats
        pass
    values = []
    for row, cell in enumerate(cells, start=2):
        try:
            value = float(cell)
        except ValueError:
            raise ValueError(f"column {name!r} is not numeric (line {row}: {cell!r})") from None
        values.append(value)
    return np.array(values, dtype=np.float64)
