"""Resolve import strings: ``package.module:function`` or ``path/to/file.py:function``."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from mcmc_pairs.comparisons import files


def load_callable(spec: str, *, argument: str = "--sampler") -> Callable:
    """Import and return the callable named by ``spec``.

    Parameters
    ----------
    spec : str
        ``package.module:function`` or ``path/to/file.py:function``.
    argument : str
        Name of the argument ``spec`` came from, used in error messages.

    Raises
    ------
    ValueError
        If ``spec`` is malformed, does not import, or does not name a callable.
    """
    target, sep, attr = str(spec).rpartition(":")
    if not sep or not target or not attr.isidentifier():
        raise ValueError(
            f"{argument} must look like package.module:function or path/to/file.py:function, "
            f"got {spec!r}"
        )
    module = load_module(target, argument=argument, spec=spec)
    func = getattr(module, attr, None)
    if not callable(func):
        raise ValueError(f"{argument} {spec!r}: {target} has no callable named {attr!r}")
    return func


def resolve(spec: str | Callable, *, argument: str = "--sampler") -> Callable:
    """Return ``spec`` itself when it is callable, else the callable its import string names.

    Raises
    ------
    ValueError
        As :func:`load_callable`.
    """
    return spec if callable(spec) else load_callable(spec, argument=argument)


def load_module(target: str, *, argument: str = "--sampler", spec: str | None = None) -> ModuleType:
    """Import and return the module ``target`` (``package.module`` or ``path/to/file.py``).

    A file is imported once per process under a stable name, so every caller
    (and numba's on-disk cache) sees the same module.

    Raises
    ------
    ValueError
        If the file does not exist or the module does not import.
    """
    spec = target if spec is None else spec
    if target.endswith(".py") and not Path(target).is_file():
        raise ValueError(f"{argument} file {target!r} does not exist")
    try:
        return _import_file(target) if target.endswith(".py") else importlib.import_module(target)
    except (Exception, SystemExit) as exc:  # any import-time failure of user code, sys.exit too
        raise ValueError(
            f"{argument} {spec!r} does not import: {type(exc).__name__}: {exc}"
            + _moved_hint(target, spec)
        ) from None


OLD_NAMES = ("models", "handrolled", "comparisons", "pairdata")
"""The suite's top-level import names before they moved under ``mcmc_pairs`` (issue 27)."""


def _moved_hint(target: str, spec: str) -> str:
    """Return a hint when ``target`` is an old module name of the suite and the new one exists."""
    if target.partition(".")[0] not in OLD_NAMES or target.endswith(".py"):
        return ""
    try:
        found = importlib.util.find_spec(f"mcmc_pairs.{target}") is not None
    except ImportError:
        found = False
    return f" (the suite's modules are now under mcmc_pairs: 'mcmc_pairs.{spec}')" if found else ""


def _import_file(path: str) -> ModuleType:
    file = Path(path)
    # A stable name (the same in every process) keeps numba's on-disk caches valid.
    digest = hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:12]
    name = f"_mcmc_pairs_user_{file.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, file)
    if module_spec is None or module_spec.loader is None:  # not for a file named *.py
        raise ImportError(f"no loader for {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        with files.record_reads() as reads:  # a module-level read of a file, for the cache's key
            module_spec.loader.exec_module(module)
        setattr(module, files.READS_ATTRIBUTE, frozenset(reads))
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
