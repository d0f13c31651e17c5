"""Properties of bad input (hypothesis): a one-line ValueError or a verdict, never a traceback.

(a) Whatever a sampler returns for ``bivariate_normal`` (right and wrong
shapes; float, int, bool, object, complex and string dtypes; NaN and inf at
random places; constant chains; extreme magnitudes), ``run_pair`` either
raises a one-line ``ValueError`` naming the sampler or returns a result whose
page renders and whose JSON dumps with ``allow_nan=False``; and it is
``agree`` only for finite float draws of the right shape.

(b) Whatever a ``--data`` file holds (random keys; numbers, NaN, inf,
strings, nested, empty and ragged lists; broken files), ``read_data`` and
building the eight-schools example model on it either succeed or raise a
one-line ``ValueError``; and ``mcmc-pairs compare --model ... --data FILE``
with ``--draws 0`` exits 2 with exactly one ``mcmc-pairs: error:`` line
before any sampling.

Examples are derandomized and few, so the file runs in well under a minute.
"""

import csv
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from mcmc_pairs.comparisons import cli, registry
from mcmc_pairs.comparisons.agreement import AGREE
from mcmc_pairs.comparisons.byom import model_pair
from mcmc_pairs.comparisons.datafile import read_data
from mcmc_pairs.comparisons.report import render_pair, to_json
from mcmc_pairs.comparisons.run import resolve_settings, run_pair
from mcmc_pairs.handrolled import bivariate_normal

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "eight_schools"
MODEL = f"{EXAMPLES / 'model.py'}:build_model"
SAMPLER = f"{EXAMPLES / 'sampler.py'}:sample"
SETTINGS = {"draws": 200, "tune": 100, "chains": 4, "seed": 7}
QUIET = {"progress": lambda event: None}

FEW = settings(
    max_examples=16,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
MANY = settings(FEW, max_examples=60)


def one_line_value_error(exc: BaseException) -> bool:
    return isinstance(exc, ValueError) and "\n" not in str(exc) and str(exc).strip() != ""


# (a) sampler outputs ---------------------------------------------------------------------

SHAPES = {
    "right": lambda c, d: (c, d, 2),
    "no event axis": lambda c, d: (c, d),
    "draws first": lambda c, d: (d, c, 2),
    "three components": lambda c, d: (c, d, 3),
    "one draw short": lambda c, d: (c, max(d - 1, 0), 2),
    "one chain": lambda c, d: (1, d, 2),
    "scalar": lambda c, d: (),
}
DTYPES = ("float64", "float32", "int64", "bool", "object", "complex128", "str")
MAGNITUDES = (1.0, 1e-300, 1e150, 1e300, -1e300)


@st.composite
def outputs(draw):
    """A recipe for a sampler's output: how correct Gibbs draws are bent out of shape."""
    return {
        "shape": draw(st.sampled_from(["right"] * 6 + list(SHAPES))),  # mostly right
        "dtype": draw(st.sampled_from(["float64"] * 4 + list(DTYPES))),  # mostly float
        "inject": draw(st.sampled_from((None, np.nan, np.inf, -np.inf))),
        "fraction": draw(st.sampled_from((0.0005, 0.05, 1.0))),
        "constant_chains": draw(st.integers(0, 4)),
        "magnitude": draw(st.sampled_from(MAGNITUDES)),
        "seed": draw(st.integers(0, 2**16)),
    }


def sampler_from(recipe):
    def sample(data, *, draws, tune, chains, random_seed):
        x = bivariate_normal.sample(
            data, draws=draws, tune=tune, chains=chains, random_seed=random_seed
        )["x"]
        rng = np.random.default_rng(recipe["seed"])
        x = x * recipe["magnitude"]
        for c in range(min(recipe["constant_chains"], chains)):
            x[c] = x[c, :1]
        if recipe["inject"] is not None:
            hit = rng.random(x.shape) < recipe["fraction"]
            hit.flat[rng.integers(hit.size)] = True  # at least one
            x[hit] = recipe["inject"]
        x = np.resize(x, SHAPES[recipe["shape"]](chains, draws))
        return {"x": x.astype(recipe["dtype"])}

    return sample


def well_formed(recipe) -> bool:
    """Draws that could truly agree: finite, real and of the right shape, not stuck."""
    return (
        recipe["shape"] == "right"
        and recipe["dtype"] in ("float64", "float32")
        and recipe["inject"] is None
        and recipe["constant_chains"] == 0
        and recipe["magnitude"] == 1.0
    )


@pytest.fixture(scope="module")
def reference():
    pair = registry.get_pair("bivariate_normal")
    return run_pair(
        pair,
        resolve_settings(pair, **SETTINGS, max_draws=SETTINGS["draws"]),
        sampler="mcmc_pairs.handrolled.bivariate_normal:sample",
        **QUIET,
    )


@FEW
@given(recipe=outputs())
def test_any_sampler_output_is_a_one_line_error_or_a_verdict_with_a_report(reference, recipe):
    try:
        result = run_pair(
            reference.pair,
            reference.settings,
            sampler=sampler_from(recipe),
            pymc_from=reference,
            **QUIET,
        )
    except ValueError as exc:
        assert one_line_value_error(exc), repr(exc)
        assert "sampler user" in str(exc)
        assert recipe["shape"] != "right" or recipe["dtype"] in ("object", "complex128", "str")
        event("refused")
        return
    event(f"verdict {result.verdict}")
    page = render_pair(result)
    assert f"Verdict: {result.verdict}" in page
    json.dumps(to_json(result), allow_nan=False)
    if result.verdict == AGREE:
        assert well_formed(recipe), recipe


# (b) data files ---------------------------------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
NUMBERS = st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True))
SCALARS = st.one_of(NUMBERS, TEXT, st.booleans(), st.none())
LISTS = st.recursive(
    st.lists(NUMBERS, max_size=4),
    lambda inner: st.lists(inner, max_size=3),  # nested, empty and ragged lists
    max_leaves=12,
)
JSON_VALUES = st.recursive(
    st.one_of(SCALARS, LISTS),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=12,
)


def eight_schools_like():
    """Eight-schools data, sometimes bent: lengths, NaN, inf, strings, missing keys."""
    vector = st.lists(NUMBERS, min_size=0, max_size=9)
    return st.fixed_dictionaries(
        {},
        optional={
            "y": st.one_of(vector, SCALARS),
            "sigma": st.one_of(vector, SCALARS),
            "mu_sd": st.one_of(NUMBERS, TEXT, vector),
            "tau2_alpha": NUMBERS,
            "tau2_beta": NUMBERS,
        },
    )


@st.composite
def json_files(draw):
    kind = draw(st.sampled_from(("object", "eight schools", "top level", "garbage")))
    if kind == "object":
        text = json.dumps(draw(st.dictionaries(TEXT, JSON_VALUES, max_size=4)))
    elif kind == "eight schools":
        text = json.dumps(draw(eight_schools_like()))
    elif kind == "top level":
        text = json.dumps(draw(JSON_VALUES))
    else:
        text = draw(TEXT)
    return ".json", text.encode("utf-8")


@st.composite
def csv_files(draw):
    header = draw(st.lists(TEXT, max_size=4))
    cell = st.one_of(
        NUMBERS.map(str), TEXT, st.sampled_from(("nan", "inf", "-inf", "", " 1 ", "1e999"))
    )
    rows = draw(st.lists(st.lists(cell, max_size=5), max_size=5))
    if draw(st.booleans()):  # rectangular, more often parseable
        rows = [(row + [""] * len(header))[: len(header)] for row in rows]
    lines = _csv_text([header, *rows])
    return ".csv", lines.encode("utf-8")


def _csv_text(rows) -> str:
    handle = io.StringIO()
    csv.writer(handle).writerows(rows)
    return handle.getvalue()


ARRAYS = st.one_of(
    st.lists(NUMBERS, max_size=6).map(lambda v: np.array(v, dtype=float)),
    st.lists(st.integers(-5, 5), max_size=6).map(lambda v: np.array(v, dtype=np.int64)),
    st.lists(st.booleans(), max_size=6).map(np.array),
    st.lists(TEXT, min_size=1, max_size=3).map(np.array),
    st.just(np.array([1 + 2j])),
    st.just(np.empty((0, 3))),
    st.just(np.array([[1.0], [2.0, 3.0]], dtype=object)),  # ragged: pickled
)


def _npz(arrays) -> bytes:
    handle = io.BytesIO()
    np.savez(handle, **arrays)
    return handle.getvalue()


def _npy(array) -> bytes:
    handle = io.BytesIO()
    np.save(handle, array)
    return handle.getvalue()


def _zip(members) -> bytes:
    handle = io.BytesIO()
    with zipfile.ZipFile(handle, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return handle.getvalue()


# Found while writing this file: each raised EOFError, BadZipFile, TypeError or AttributeError.
NPZ_BROKEN = {
    "empty file": b"",
    "zip header only": b"PK\x03\x04garbage",
    "truncated archive": _npz({"a": np.arange(3)})[:40],
    "a .npy array": _npy(np.arange(3)),
    "a text member": _zip({"notes.txt": "hello"}),
    "a member that is not .npy": _zip({"a.npy": "garbage"}),
}


@st.composite
def npz_files(draw):
    names = st.text("abcxyz_0", min_size=1, max_size=6)
    archive = _npz(draw(st.dictionaries(names, ARRAYS, max_size=3)))
    kind = draw(st.sampled_from(("archive", "truncated", "bytes", "broken")))
    if kind == "truncated":
        return ".npz", archive[: draw(st.integers(0, len(archive)))]
    if kind == "bytes":
        return ".npz", draw(st.binary(max_size=40))
    if kind == "broken":
        return ".npz", NPZ_BROKEN[draw(st.sampled_from(sorted(NPZ_BROKEN)))]
    return ".npz", archive


DATA_FILES = st.one_of(json_files(), csv_files(), npz_files())


def write(tmp_path_factory, suffix, content) -> Path:
    path = tmp_path_factory.mktemp("data") / f"data{suffix}"
    path.write_bytes(content)
    return path


@MANY
@given(file=DATA_FILES)
@example(file=(".npz", NPZ_BROKEN["empty file"]))
@example(file=(".npz", NPZ_BROKEN["a .npy array"]))
@example(file=(".npz", NPZ_BROKEN["a member that is not .npy"]))
@example(file=(".json", b'{"y": [1, 1180591620717411303424]}'))  # was OverflowError
@example(file=(".csv", b"y\n1\n-1180591620717411303424\n"))  # was OverflowError
@example(file=(".json", b'{"y": ' + b"[" * 5000 + b"]" * 5000 + b"}"))  # was RecursionError
def test_a_data_file_is_read_or_refused_in_one_line(tmp_path_factory, file):
    path = write(tmp_path_factory, *file)
    try:
        data = read_data(path)
    except ValueError as exc:
        assert one_line_value_error(exc), repr(exc)
        assert "--data" in str(exc)
        return
    assert isinstance(data, dict) and data
    for value in data.values():
        if isinstance(value, np.ndarray):
            assert value.dtype.kind in "biuf"


@FEW
@given(file=st.one_of(json_files(), csv_files()))
def test_the_example_model_is_built_on_any_data_or_refused_in_one_line(tmp_path_factory, file):
    path = write(tmp_path_factory, *file)
    try:
        data = read_data(path)
        pair = model_pair(MODEL, data, SAMPLER)
    except ValueError as exc:
        assert one_line_value_error(exc), repr(exc)
        return
    assert set(pair.variables) == {"mu", "tau2", "theta"}


@FEW
@given(file=DATA_FILES)
def test_compare_with_any_data_file_exits_2_with_one_error_line(tmp_path_factory, capsys, file):
    path = write(tmp_path_factory, *file)
    out = tmp_path_factory.mktemp("out")
    argv = ["compare", "--model", MODEL, "--data", str(path), "--sampler", SAMPLER]
    code = cli.main([*argv, "--draws", "0", "--out", str(out)])  # stops before sampling
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("mcmc-pairs: error:"), err
    assert not any(out.iterdir())
