"""What a repeated ``compare`` need not redo: compiles kept in the process, log densities on disk.

A user iterating on a sampler runs ``compare`` again and again on one model,
in one process (a notebook, a test suite) or in new ones (the command line).
Besides PyMC's reference draws (:mod:`~.reference_cache`), two costs repeat:

* **compiles within a process.** PyMC's log density of the draws
  (:func:`~.witness._compile_log_density`) and nutpie's compile of the
  reference (``pm.sample``) are compiled afresh for every new ``pm.Model``.
  :class:`Memo` keeps the last log densities of the process (least recently
  used first out) keyed by the *graph* they compile (:func:`graph_key`): every
  operation, every constant's dtype, shape and bytes, every input's type and
  position. A model rebuilt from an unchanged source and equal data has an
  equal graph and gets the compile back; a changed source file, other data
  structure or another value of a scalar baked into the graph (eight schools'
  ``mu_sd``) makes another graph, and is compiled for itself. The log density
  takes the observed values as inputs, so data that differ only in their
  observed values (a test parametrised over data sets) share one compile. An
  equal graph compiles to the same code, so a reused compile gives the numbers
  of a fresh one, bit for bit. Nothing is keyed on names or file paths, so a
  stale compile cannot be handed back: an edited ``build_model``, a module
  global changed by a test, a closure over other values all make other graphs.
  nutpie's compiles of the references and the PyMC twins are kept by
  :data:`NUTPIE` (:class:`~.compile_once.SameStructure`): compiled with the
  data lifted into shared variables, one compile serves every model of that
  structure, whatever its data arrays hold.
* **summaries within a process.** The per-quantity statistics, MCSEs, ESS and
  R-hat of a side's compared quantities (:func:`~.agreement.summarize_sides`)
  are kept by the quantities' bytes (:func:`array_key`): PyMC's reference read
  back from the cache, or a sampler that gives the same draws again, is not
  summarised twice.
* **the witness's log densities across processes.** :class:`LogDensityMemo`
  keeps PyMC's ``log_prior`` and ``log_likelihood`` of a side's draws in the
  reference cache's directory, ``DIR/log_density/``, keyed by the model's key
  as the reference cache computes it (source files, versions, CPU, the
  harness's runner), the data's digest and the digest of the draws' bytes; a
  file that does not read back as written is recomputed, never trusted.

A compiled function keeps its own working storage, so compiles are kept per
thread (the thread is part of their keys). ``clear()`` empties the process's
memos (the tests count compiles, ``Memo.made``).
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import functools
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mcmc_pairs.comparisons.compile_once import SameStructure

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr
    from pytensor.graph.basic import Variable
from mcmc_pairs.comparisons.files import write_atomic

MEMO_SIZE = 32
"""Results a :class:`Memo` keeps (a few dozen models per process)."""
FORMAT = 1
"""The log-density memo's layout: part of its key, raised when the layout changes."""


def graph_key(inputs: Sequence, outputs: Sequence) -> tuple | None:
    """Return a hashable key of the graph computing ``outputs`` from ``inputs``, or None.

    Two graphs have equal keys when they apply equal operations (PyTensor's
    ``Op`` equality: the same class and parameters) in the same order to
    equal leaves, and their variables have the same names: the inputs by
    position and type, constants by type and bytes, random generators as
    such, other unowned variables (a model's value variables) by name and
    type. A shared variable that is not a random generator (``pm.Data``) is
    keyed by identity: a compile reads its value at run time, so only the
    same variable may share it. None when an operation is not hashable
    (nothing is reused then).

    Parameters
    ----------
    inputs : sequence of Variable
        The compiled function's explicit inputs, in order.
    outputs : sequence of Variable

    Returns
    -------
    tuple or None
    """
    from pytensor.graph.traversal import io_toposort  # where PyTensor 3.3 (PyMC 6.4's) has it

    refs: dict[Any, Hashable] = {v: ("input", i, v.type) for i, v in enumerate(inputs)}
    tokens: list[Hashable] = []

    def ref(variable: Variable) -> Hashable:
        if variable not in refs:
            refs[variable] = _leaf(variable)
        return refs[variable]

    for k, node in enumerate(io_toposort(list(inputs), list(outputs))):
        tokens.append((node.op, tuple(ref(v) for v in node.inputs)))
        for j, out in enumerate(node.outputs):
            refs[out] = ("node", k, j, out.type, out.name)
    key = (tuple(tokens), tuple(ref(v) for v in outputs))
    try:
        hash(key)
    except TypeError:  # an operation without hashable parameters
        return None
    return key


def _leaf(variable: Variable) -> Hashable:
    """Return the key of a graph's leaf that is not an explicit input."""
    from pytensor.compile.sharedvalue import SharedVariable
    from pytensor.graph.basic import Constant
    from pytensor.tensor.random.type import RandomType

    if isinstance(variable, Constant):
        data = np.asarray(variable.data)
        if data.dtype == object:
            return ("constant", variable.type, repr(variable.data))
        data = np.ascontiguousarray(data)
        digest = hashlib.sha256(data.tobytes()).hexdigest()
        return ("constant", variable.type, data.dtype.str, data.shape, digest)
    if isinstance(variable.type, RandomType):
        return ("rng", variable.type)
    if not isinstance(variable, SharedVariable):
        return ("root", variable.name, variable.type)
    return ("leaf", variable)  # by identity; the key holds it, so its id is never reused


class Memo:
    """The last ``size`` results of one costly function in this process, by a hashable key.

    Thread-safe; a result is made outside the lock (two threads may make one
    at once, and either is kept: they are equal).

    Attributes
    ----------
    made : int
        How many results it made (the tests count compiles so).
    hits : int
        How many results it handed back.
    """

    def __init__(self, size: int = MEMO_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.made = 0
        self.hits = 0

    def lookup(self, key: Hashable | None) -> Any | None:
        """Return the result kept under ``key`` (now the most recently used), or None."""
        if key is None:
            return None
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return self._entries[key]

    def store(self, key: Hashable | None, value: Any) -> None:
        """Keep ``value`` under ``key`` (a key of None keeps nothing); count it as made."""
        with self._lock:
            self.made += 1
            if key is None:
                return
            self._entries[key] = value
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def get(self, key: Hashable | None, make: Callable[[], Any]) -> Any:
        """Return the result kept under ``key``, else ``make()``, kept under it."""
        found = self.lookup(key)
        if found is None:
            found = make()
            self.store(key, found)
        return found

    def clear(self) -> None:
        """Forget every result (and reset the counts)."""
        with self._lock:
            self._entries.clear()
            self.made = self.hits = 0

    def __len__(self) -> int:
        return len(self._entries)


LOG_DENSITIES = Memo()
"""The witnesses' compiled log densities in this process, by :func:`graph_key`
(:func:`~.witness._compile_log_density`)."""
NUTPIE = SameStructure(MEMO_SIZE)
"""nutpie's compiles of the PyMC references and twins in this process, by structure
(:class:`~.compile_once.SameStructure`)."""
SUMMARIES = Memo()
"""Per-side summaries of the compared quantities in this process, by :func:`array_key`
(:func:`~.agreement.summarize_sides`)."""


def clear() -> None:
    """Empty the process's memos."""
    LOG_DENSITIES.clear()
    NUTPIE.clear()
    SUMMARIES.clear()


def array_key(array: xr.DataArray) -> tuple:
    """Return a key of a labelled array: its dims, coordinates' values, dtype, shape and bytes.

    Equal keys hold equal values (the SHA-256 of the bytes), so a statistic of
    the array memoised under its key is the statistic of the array.
    """
    values = np.ascontiguousarray(array.values)
    coords = tuple((name, tuple(np.asarray(array[name].values).tolist())) for name in array.coords)
    return (array.dims, coords, values.dtype.str, values.shape, draws_digest([values]))


def draws_digest(arrays: Sequence[np.ndarray]) -> str:
    """Return the SHA-256 of draws: each array's dtype, shape and bytes, in order."""
    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape}".encode() + array.tobytes())
    return digest.hexdigest()


class LogDensityMemo:
    """PyMC's log densities of draws, kept on disk under the reference cache's directory.

    Layout: ``DIR/log_density/<model digest>/<data and draws digest>.json``, one
    file per side's draws: its key in full, the values' shape and SHA-256 and
    the values (float64, base64). Written through a temporary file and a
    rename (:func:`~.files.write_atomic`); a file whose key, shape or SHA-256
    does not match is a miss, recomputed and rewritten, never trusted.

    Parameters
    ----------
    directory : path
        The reference cache's directory.
    model_key : mapping
        The model's part of :func:`~.reference_cache.reference_key` (source
        files, versions, CPU, runner): what the log density depends on besides
        the data and the draws.
    data : str
        The data's digest (:func:`~.reference_cache.data_digest`).
    """

    def __init__(self, directory: Path, model_key: Mapping[str, Any], data: str):
        text = json.dumps({"format": FORMAT, **model_key}, sort_keys=True)
        self.model_text, self.data = text, data
        model = hashlib.sha256(text.encode()).hexdigest()[:32]
        self.folder = Path(directory) / "log_density" / model

    def _file(self, draws: str) -> tuple[Path, str]:
        key = json.dumps({"model": self.model_text, "data": self.data, "draws": draws})
        name = hashlib.sha256(key.encode()).hexdigest()[:40]
        return self.folder / f"{name}.json", key

    def load(self, draws: str, shape: tuple[int, ...]) -> np.ndarray | None:
        """Return the values stored for the draws' digest, shape ``shape``, or None.

        None for a missing file, or one whose key, shape or SHA-256 differs.
        """
        path, key = self._file(draws)
        try:
            stored = json.loads(path.read_text())
            payload = base64.b64decode(stored["values"], validate=True)
            if stored["key"] != key or tuple(stored["shape"]) != tuple(shape):
                return None
            if hashlib.sha256(payload).hexdigest() != stored["sha256"]:
                return None
            values = np.frombuffer(payload, dtype="<f8").reshape(shape).copy()
        except Exception:  # absent, partial or corrupt: whatever fails to read is not trusted
            return None
        return values

    def save(self, draws: str, values: np.ndarray) -> None:
        """Store ``values`` for the draws' digest (an unwritable memo is skipped)."""
        path, key = self._file(draws)
        payload = np.ascontiguousarray(values, dtype="<f8").tobytes()
        stored = {
            "key": key,
            "shape": list(values.shape),
            "sha256": hashlib.sha256(payload).hexdigest(),
            "values": base64.b64encode(payload).decode("ascii"),
        }
        try:
            write_atomic(path, json.dumps(stored))
        except OSError:  # a full disk or a read-only cache costs speed, not the run
            return


def package_versions(names: Sequence[str]) -> dict[str, str]:
    """Return the installed version of each package in ``names`` (``"absent"`` if not installed).

    Read once per process (what a running process has imported cannot change).
    """
    return dict(_read_versions(tuple(names)))


@functools.cache
def _read_versions(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    from importlib import metadata

    versions = []
    for name in names:
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, "absent"))
    return tuple(versions)


SUMMARY_LIBRARIES = ("arviz-stats", "numpy", "scipy", "xarray", "pandas")
"""The packages a summary's numbers depend on: their versions are in its key."""
_SUMMARY_DIRECTORY: contextvars.ContextVar[Path | None] = contextvars.ContextVar(
    "summary_directory", default=None
)


@contextlib.contextmanager
def summaries_on_disk(directory: Path | str | None) -> Iterator[None]:
    """Within the block, :func:`~.agreement.summarize_sides` keeps summaries in ``directory``.

    ``DIR/summaries/`` beside the reference cache (:class:`SummaryMemo`); None
    keeps them in this process only.
    """
    token = _SUMMARY_DIRECTORY.set(None if directory is None else Path(directory))
    try:
        yield
    finally:
        _SUMMARY_DIRECTORY.reset(token)


def summary_memo(source: str | Path) -> SummaryMemo | None:
    """Return the summaries' disk memo of the enclosing :func:`summaries_on_disk`, or None.

    ``source`` is the file of the code that summarises (``agreement.py``): its
    digest is part of every key.
    """
    directory = _SUMMARY_DIRECTORY.get()
    return None if directory is None else SummaryMemo(directory, source)


class SummaryMemo:
    """Per-side summaries (:func:`~.agreement.summarize`) on disk, by the quantities' bytes.

    ``DIR/summaries/<digest>.json``: the key in full (the quantities'
    :func:`array_key`, the versions of :data:`SUMMARY_LIBRARIES` and the
    SHA-256 of ``agreement.py``), the frame's index and columns, its values
    (float64, base64), and the SHA-256 of all of them. A file that does not
    match is recomputed and rewritten, never trusted.
    """

    def __init__(self, directory: Path, source: str | Path):
        self.folder = Path(directory) / "summaries"
        self.source = hashlib.sha256(Path(source).read_bytes()).hexdigest()

    def _key(self, array_key_: tuple) -> str:
        versions = package_versions(SUMMARY_LIBRARIES)
        return json.dumps(
            {"format": FORMAT, "quantities": repr(array_key_), "versions": versions,
             "agreement": self.source},
            sort_keys=True,
        )  # fmt: skip

    def _file(self, key: str) -> Path:
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:40]}.json"

    def load(self, array_key_: tuple) -> pd.DataFrame | None:
        """Return the summary stored for ``array_key_`` (a DataFrame), or None."""
        import pandas as pd

        key = self._key(array_key_)
        try:
            stored = json.loads(self._file(key).read_text())
            if stored["key"] != key or _content_digest(stored) != stored["sha256"]:
                return None
            payload = base64.b64decode(stored["values"], validate=True)
            shape = (len(stored["index"]), len(stored["columns"]))
            values = np.frombuffer(payload, dtype="<f8").reshape(shape).copy()
            index = pd.Index(np.asarray(stored["index"]), name="quantity")
            return pd.DataFrame(values, index=index, columns=list(stored["columns"]))
        except Exception:  # absent, partial or corrupt: whatever fails to read is not trusted
            return None

    def save(self, array_key_: tuple, frame: pd.DataFrame) -> None:
        """Store ``frame`` for ``array_key_`` (an unwritable memo is skipped)."""
        key = self._key(array_key_)
        payload = np.ascontiguousarray(frame.to_numpy(dtype=float), dtype="<f8").tobytes()
        stored = {
            "key": key,
            "index": [str(q) for q in frame.index],
            "columns": [str(c) for c in frame.columns],
            "values": base64.b64encode(payload).decode("ascii"),
        }
        stored["sha256"] = _content_digest(stored)
        try:
            write_atomic(self._file(key), json.dumps(stored))
        except OSError:  # a full disk or a read-only cache costs speed, not the run
            return


def _content_digest(stored: Mapping[str, Any]) -> str:
    """Return the SHA-256 of a stored memo's every entry but its ``sha256``."""
    content = {k: v for k, v in stored.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


FIGURE_LIBRARIES = ("matplotlib", "arviz-plots", "arviz-stats", "arviz-base", "numpy")
"""The packages a report's figures depend on: their versions are in its key."""


class FigureMemo:
    """A report's figures drawn from draws alone, on disk: ``DIR/figures/<digest>.json``.

    A figure is kept only when nothing but draws went into it (no exact
    density, no timing), keyed by the figure's name, the draws' :func:`array_key`
    of every side it shows and the sides' labels, the versions of
    :data:`FIGURE_LIBRARIES` and the SHA-256 of the ``sources`` that draw it
    (``report.py`` and ``html.py``). The file holds
    that key, the embedded ``<img>`` and the SHA-256 of both; a file that does
    not match is drawn again and rewritten, never trusted. A second ``compare``
    of the same sampler and seed draws no figure again; a changed sampler gets
    the reference's own figures back and draws its own.
    """

    def __init__(self, directory: Path | str, *sources: str | Path):
        self.folder = Path(directory) / "figures"
        digest = hashlib.sha256()
        for source in sources:
            digest.update(hashlib.sha256(Path(source).read_bytes()).digest())
        self.source = digest.hexdigest()

    def _key(self, name: str, inputs: Sequence[tuple[str, tuple]]) -> str:
        versions = package_versions(FIGURE_LIBRARIES)
        drawn = [[label, repr(key)] for label, key in inputs]
        return json.dumps(
            {"format": FORMAT, "figure": name, "inputs": drawn, "versions": versions,
             "report": self.source},
            sort_keys=True,
        )  # fmt: skip

    def _file(self, key: str) -> Path:
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:40]}.json"

    def get(self, name: str, inputs: Sequence[tuple[str, tuple]], draw: Callable[[], str]) -> str:
        """Return the figure ``name`` drawn from ``inputs``: stored, or ``draw()`` stored.

        ``inputs`` is ``(label, array_key)`` per side shown. An unreadable memo is
        drawn again; an unwritable one is skipped.
        """
        key = self._key(name, inputs)
        path = self._file(key)
        try:
            stored = json.loads(path.read_text())
            if stored["key"] == key and _content_digest(stored) == stored["sha256"]:
                return str(stored["img"])
        except Exception:  # absent, partial or corrupt: whatever fails to read is not trusted
            pass
        img = draw()
        if "<img " not in img:  # a figure that could not be drawn is not kept
            return img
        stored = {"key": key, "img": img}
        stored["sha256"] = _content_digest(stored)
        try:
            write_atomic(path, json.dumps(stored))
        except OSError:  # a full disk or a read-only cache costs speed, not the run
            pass
        return img
