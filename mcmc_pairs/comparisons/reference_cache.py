"""The reference cache: PyMC's reference draws kept on disk from one ``compare`` to the next.

A user fixing a sampler runs ``compare`` again and again on one model and one
data set. The reference side, PyMC's run, is then the same every time: it is a
function of the model, the data, the settings and the seed (the harness runs it
bit for bit reproducibly, :func:`~.witness.exact_arithmetic`). The cache keeps
each reference run and hands it back to the next run with the same **key**:

* the model's source: the file of ``build_model`` and every file of the user's
  (or of the suite's) that it imports, followed import by import
  (:func:`model_sources`); the libraries' files are covered by their versions;
* every other file the model read while it was built, or while the harness
  imported its module (a ``prior.json`` beside it, a CSV of covariates), by its
  contents (:func:`files_read`; Python's ``open`` audit events: a file a C
  library opens itself, as HDF5 does, is not seen);
* the data (every key, value and dtype, :func:`data_digest`);
* ``tune``, ``chains`` and ``seed``, the pair's ``pm.sample`` keywords and the
  step method of a second reference; each entry's files are per label and draws;
* the versions of Python, PyMC, PyTensor, nutpie, numba, NumPy and the suite,
  the host CPU numba compiles for, and the source of the harness's PyMC runner
  (with the compile it reuses, :mod:`~.compile_once`, and the witness).

Layout: ``DIR/<digest of the key>/key.json`` (the key in full) and, per run,
``<label>-<draws>.json`` (its sampler, timings and the SHA-256 of its draws'
file) beside ``<label>-<draws>-<sha>.nc`` (the draws, netCDF). Every file is
written to a temporary name and renamed into place, the draws before the
manifest that names them, so a reader sees a complete run or none, and runs
sharing a directory never corrupt it. A run whose manifest or draws do not read
back, or whose draws do not match their SHA-256, is run again and rewritten,
never trusted. Growing a cached reference at a later look adds that look's
run to the entry.

PyMC's log densities of each side's draws are kept beside the runs, in
``DIR/log_density/`` (:class:`~.reuse.LogDensityMemo`, keyed by the model's
part of the key, the data and the draws' bytes), so a second ``compare`` of an
unchanged model and sampler compiles no log density. Each side's summaries
(``DIR/summaries/``, :class:`~.reuse.SummaryMemo`) and the page's figures drawn
from draws alone (``DIR/figures/``, :class:`~.reuse.FigureMemo`) are kept there
too.

The default directory is ``$MCMC_PAIRS_CACHE``, else
``$XDG_CACHE_HOME/mcmc-pairs/references``, else
``~/.cache/mcmc-pairs/references`` (:func:`default_cache_dir`).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import json
import os
import platform
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mcmc_pairs.comparisons import interrupts
from mcmc_pairs.comparisons.files import READS_ATTRIBUTE, write_atomic
from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.reuse import package_versions
from mcmc_pairs.comparisons.settings import Sampling

if TYPE_CHECKING:
    import xarray as xr

    from mcmc_pairs.comparisons.reuse import LogDensityMemo
    from mcmc_pairs.comparisons.sides import Side

FORMAT = 2
"""The layout's version: part of every key, raised when the layout changes (2: the key names
the model's function, not only its files)."""
LIBRARIES = ("pymc", "pytensor", "nutpie", "numba", "numpy", "mcmc-pairs")
"""The packages whose versions are part of the key."""
LOG_DENSITY_KEY = ("function", "model", "reads", "versions", "cpu", "runner")
"""The parts of the key PyMC's log density of given draws depends on (with the data)."""


def default_cache_dir() -> Path:
    """Return the cache's default directory (``$MCMC_PAIRS_CACHE`` wins)."""
    if os.environ.get("MCMC_PAIRS_CACHE"):
        return Path(os.environ["MCMC_PAIRS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mcmc-pairs" / "references"


def data_digest(data: Any) -> str:
    """Return the SHA-256 of ``data``: keys, values, dtypes and shapes, nested.

    Equal data give equal digests in every process: mappings are read in key
    order and arrays as their bytes with their dtype and shape.
    """
    digest = hashlib.sha256()

    def feed(value: Any) -> None:
        if isinstance(value, Mapping):
            digest.update(b"{")
            for key in sorted(value, key=repr):
                digest.update(repr(key).encode() + b":")
                feed(value[key])
            digest.update(b"}")
        elif isinstance(value, list | tuple):
            digest.update(b"[")
            for item in value:
                feed(item)
            digest.update(b"]")
        else:
            array = np.asarray(value)
            if array.dtype == object:
                digest.update(b"O" + repr(value).encode())
                return
            array = np.ascontiguousarray(array)
            digest.update(f"{array.dtype.str}{array.shape}".encode() + array.tobytes())

    feed(data)
    return digest.hexdigest()


def _library_roots() -> tuple[str, ...]:
    """Return the folders of installed code: the standard library and every site-packages.

    Besides this interpreter's own, a ``site-packages`` (or Debian's
    ``dist-packages``) folder that a ``.pth`` file or ``PYTHONPATH`` put on
    ``sys.path`` holds installed packages too.
    """
    paths = sysconfig.get_paths()
    roots = {paths["stdlib"], paths["platstdlib"], paths["purelib"], paths["platlib"]}
    roots |= {e for e in sys.path if {"site-packages", "dist-packages"} & set(Path(e).parts)}
    return tuple(str(Path(p).resolve()) for p in roots if p)


def _imported_names(tree: ast.Module, package: str) -> list[str]:
    """Return the modules a module's source imports (relative names made absolute)."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if package else ""
                base = f"{parent}.{base}".strip(".") if parent else base
            names.append(base)
            names += [f"{base}.{alias.name}" for alias in node.names]  # submodules
    return [n for n in names if n]


def _origin(name: str) -> str | None:
    """Return the source file of the module ``name``, or None (built-in, missing)."""
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    if file is None:
        try:
            spec = importlib.util.find_spec(name)
        except Exception:  # noqa: BLE001 - finding a parent package runs its __init__: anything
            return None
        file = getattr(spec, "origin", None)
    return file if file and file.endswith(".py") and Path(file).is_file() else None


def model_sources(build_model: Callable) -> dict[str, str]:
    """Return ``{file: SHA-256}`` of ``build_model``'s file and the files it imports, transitively.

    Imports are read from each file's source; files of the standard library and
    of installed packages are left out (their versions are in the key). Raises
    :class:`ValueError` when ``build_model`` has no source file (a function
    typed at a prompt): such a model is not cached.
    """
    try:
        first = inspect.getsourcefile(inspect.unwrap(build_model))
    except TypeError:
        first = None
    if first is None or not Path(first).is_file():  # <string>, <stdin>: typed, not saved
        raise ValueError(f"{build_model!r} has no source file")
    libraries = _library_roots()
    todo, found = [(str(Path(first).resolve()), _package_of(build_model))], {}
    while todo:
        file, package = todo.pop()
        if file in found or file.startswith(libraries):
            continue
        source = Path(file).read_bytes()
        found[file] = hashlib.sha256(source).hexdigest()
        for name in _imported_names(ast.parse(source), package):
            origin = _origin(name)
            if origin is not None:  # a package's __init__ resolves its relative imports in itself
                inside = name if Path(origin).name == "__init__.py" else name.rpartition(".")[0]
                todo.append((str(Path(origin).resolve()), inside))
    return dict(sorted(found.items()))


def _package_of(function: Callable) -> str:
    module = sys.modules.get(getattr(function, "__module__", ""), None)
    return getattr(module, "__package__", "") or ""


def _versions() -> dict[str, str]:
    return {"python": platform.python_version(), **package_versions(LIBRARIES)}


def _host_cpu() -> str:
    import llvmlite.binding as llvm

    return f"{platform.machine()}/{llvm.get_host_cpu_name()}"


def files_read(build_model: Callable, reads: Iterable[str] = ()) -> dict[str, str]:
    """Return ``{file: SHA-256}`` of the data files a model read, ``"absent"`` for a gone one.

    ``reads`` are the files opened while the model was built
    (:attr:`~.witness.ModelWitness.reads`); the files its module read when the
    harness imported it (:func:`~.loading.load_module`) are added. Source files
    (``.py``, followed by :func:`model_sources`), installed code, PyTensor's
    and numba's compile caches and the system's pseudo-files (``/proc``,
    ``/sys``, ``/dev``) are left out.
    """
    module = sys.modules.get(getattr(build_model, "__module__", ""), None)
    paths = {*reads, *getattr(module, READS_ATTRIBUTE, ())}
    skip = (*_library_roots(), *SYSTEM_FILES, *_compile_caches())
    found = {}
    for file in sorted(paths):
        if file.startswith(skip) or file.endswith((".py", ".pyc")):
            continue
        try:
            found[file] = _sha256(Path(file))
        except OSError:  # gone since, or never there: its absence is part of the key
            found[file] = "absent"
    return found


def _compile_caches() -> tuple[str, ...]:
    """Return PyTensor's and numba's compile caches: files read there are code, not data."""
    import pytensor

    roots = [pytensor.config.base_compiledir, os.environ.get("NUMBA_CACHE_DIR")]
    return tuple(str(Path(root).resolve()) + os.sep for root in roots if root)


SYSTEM_FILES = ("/proc/", "/sys/", "/dev/")
"""Pseudo-files read while a model is built (cgroup limits, CPU counts): not data."""


def reference_key(
    build_model: Callable,
    data: Mapping,
    settings: Sampling,
    pair: Pair,
    reads: Iterable[str] = (),
) -> dict[str, Any]:
    """Return the key of a pair's reference runs (everything they depend on but the draws).

    ``reads`` are the files opened while the model was built (:func:`files_read`).
    """
    from mcmc_pairs.comparisons import compile_once, pymc_runner, witness

    runner = [Path(str(m.__file__)).read_bytes() for m in (pymc_runner, compile_once, witness)]
    return {
        "format": FORMAT,
        "function": witness.spec_name(inspect.unwrap(build_model)),
        "model": model_sources(build_model),
        "reads": files_read(build_model, reads),
        "data": data_digest(data),
        "settings": {"tune": settings.tune, "chains": settings.chains, "seed": settings.seed},
        "pymc_kwargs": repr(sorted(pair.pymc_kwargs.items())),
        "pymc_steps": repr(sorted(pair.pymc_steps.items())),
        "versions": _versions(),
        "cpu": _host_cpu(),
        "runner": hashlib.sha256(b"".join(runner)).hexdigest(),
    }


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class ReferenceCache:
    """One reference's runs on disk: :meth:`load` and :meth:`save` by (label, draws).

    Parameters
    ----------
    directory : path
        The cache's directory (created when first written).
    key : dict
        :func:`reference_key`: which entry this run reads and writes.
    """

    def __init__(self, directory: Path, key: Mapping[str, Any]):
        text = json.dumps(key, sort_keys=True, indent=1)
        self.key, self.key_text, self.directory = dict(key), text, Path(directory)
        self.entry = Path(directory) / hashlib.sha256(text.encode()).hexdigest()[:32]

    def log_densities(self) -> LogDensityMemo:
        """Return the memo of PyMC's log densities of draws of this model, in this directory.

        Its key is the model's part of this key (:data:`LOG_DENSITY_KEY`) and the
        data's digest: the settings and the seed do not change a log density
        (:class:`~.reuse.LogDensityMemo`, which adds the draws).
        """
        from mcmc_pairs.comparisons.reuse import LogDensityMemo

        model = {k: self.key.get(k) for k in LOG_DENSITY_KEY}
        return LogDensityMemo(self.directory, model, str(self.key.get("data")))

    def _stem(self, label: str, draws: int) -> str:
        return f"{label.replace(':', '_')}-{int(draws)}"

    def load(self, label: str, draws: int) -> Side | None:
        """Return the cached :class:`~.sides.Side` for ``label`` at ``draws``, or None.

        None also for a partial, stale or corrupt run (never trusted; the run
        that follows rewrites it).
        """
        import xarray as xr

        from mcmc_pairs.comparisons.kinds import Role
        from mcmc_pairs.comparisons.sides import Side

        try:
            if (self.entry / "key.json").read_text() != self.key_text:
                return None
            manifest = json.loads((self.entry / f"{self._stem(label, draws)}.json").read_text())
            draws_file = self.entry / manifest["file"]
            if _sha256(draws_file) != manifest["sha256"]:
                return None
            with xr.open_datatree(draws_file, engine="h5netcdf") as opened:
                tree = opened.load()
            timings = {k: float(v) for k, v in manifest["timings"].items()}
            role = Role(manifest["role"])
            side = Side(role, manifest["variant"], manifest["sampler"], tree, timings)
        except Exception:  # absent, partial or corrupt: whatever fails to read is not trusted
            return None
        if tree["posterior"].sizes.get("draw") != draws:
            return None
        side.from_cache = True
        return side

    def save(self, label: str, draws: int, side: Side) -> None:
        """Store ``side``'s run at ``draws`` (atomically; an unwritable cache is skipped)."""
        try:
            write_atomic(self.entry / "key.json", self.key_text)
            stem = self._stem(label, draws)
            draws_file, sha = self._write_draws(stem, side.tree)
            manifest = {
                "file": draws_file.name,
                "sha256": sha,
                "role": str(side.role),
                "variant": side.variant,
                "sampler": side.sampler,
                "timings": side.timings,
            }
            write_atomic(self.entry / f"{stem}.json", json.dumps(manifest, indent=1))
        except OSError:  # a full disk or a read-only cache costs speed, not the run
            return

    def _write_draws(self, stem: str, tree: xr.DataTree) -> tuple[Path, str]:
        """Write ``tree`` under a name holding its SHA-256 (no two writers share a file).

        Returns the file and its SHA-256. A netCDF file is written by path, so
        it has its own temporary name here; the text files go through
        :func:`~.files.write_atomic`.
        """
        with interrupts.critical(commit=False):  # an interrupt removes it from here on
            handle, temporary = tempfile.mkstemp(dir=self.entry, prefix=f".{stem}.", suffix=".nc")
            interrupts.register(temporary)
        os.close(handle)
        try:
            tree.to_netcdf(temporary, engine="h5netcdf")
            sha = _sha256(Path(temporary))
            target = self.entry / f"{stem}-{sha[:16]}.nc"
            with interrupts.critical():
                os.replace(temporary, target)
                interrupts.unregister(temporary)
        except BaseException:
            interrupts.discard(temporary)
            raise
        return target, sha
