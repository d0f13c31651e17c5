"""Report files: JSON and HTML written atomically, JSON numbers finite or null.

Every file is written through a temporary file in the same directory and a
rename, so a failed or interrupted run leaves nothing half-written and no
temporary file (:mod:`~.interrupts` removes the ones being written); a
report's JSON and HTML are renamed into place together or not at all.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import math
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from mcmc_pairs.comparisons import interrupts


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    _commit([(_stage(Path(path), text), Path(path))])


def _stage(path: Path, text: str) -> str:
    """Write ``text`` to a new temporary file beside ``path``; return its name.

    The file is registered with :mod:`~.interrupts` from the moment it exists,
    so an interrupt removes it; a failure removes it here.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with interrupts.critical(commit=False):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        interrupts.register(tmp)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            interrupts.check()  # an interrupted run writes no more
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a report is for reading
    except BaseException:
        interrupts.discard(tmp)
        raise
    return tmp


def _commit(staged: list[tuple[str, Path]]) -> None:
    """Rename every staged ``(temporary, path)`` into place: all of them, or none.

    The renames run in an :func:`~.interrupts.critical` section: an interrupt
    before it renames nothing (the temporary files are removed), one during it
    waits for its end.
    """
    try:
        with interrupts.critical():
            for tmp, path in staged:
                os.replace(tmp, path)
                interrupts.unregister(tmp)
    except BaseException:
        for tmp, _ in staged:
            interrupts.discard(tmp)
        raise


def writable_dir(out: Path, argument: str = "--out") -> Path:
    """Check that reports can be written in ``out``, creating nothing; return it.

    Called before any sampling, so a run that could not save its report fails
    at once (``ValueError`` naming ``argument``), not after minutes of work. The
    directory, or its nearest existing ancestor when it does not exist yet
    (:func:`write_atomic` creates it), must be a directory in which a file can
    be created; the probe file is removed at once. A dangling symbolic link on
    the way (``out`` itself, or the ancestor the walk stops at) is refused:
    :func:`write_atomic` could not create the directory it points to.
    """
    out = Path(out)
    existing = out
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if existing.is_symlink() and not existing.exists():  # dangling, or a loop
        target = os.readlink(existing)
        raise ValueError(
            f"{argument} {str(out)!r} cannot be written: {str(existing)!r} is a symbolic link "
            f"to {target!r}, which does not exist"
        )
    try:
        if not existing.is_dir():
            raise NotADirectoryError(20, "Not a directory")
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".write-test-"):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"{argument} {str(out)!r} cannot be written: {reason}") from None
    return out


def write_report(out: Path, stem: str, document: Mapping[str, Any], page: str) -> tuple[Path, Path]:
    """Write ``out/<stem>.json`` and ``out/<stem>.html``: both new, or both as they were.

    Both are written to temporary files first, then renamed into place
    together (:func:`_commit`): an interrupt or a failure at any moment leaves
    the old pair (or none) and no temporary file.

    Parameters
    ----------
    out : Path
        The report directory (created when missing).
    stem : str
        The files' name without suffix.
    document : mapping
        The JSON document.
    page : str
        The HTML page, rendered before anything is written.

    Returns
    -------
    html_path, json_path : Path
    """
    out = Path(out)
    json_path, html_path = out / f"{stem}.json", out / f"{stem}.html"
    staged = [(_stage(json_path, json.dumps(document, indent=2)), json_path)]
    try:
        staged.append((_stage(html_path, page), html_path))
    except BaseException:
        interrupts.discard(staged[0][0])
        raise
    _commit(staged)
    return html_path, json_path


def finite_or_none(value: Any) -> float | None:
    """Return ``value`` as a float, or ``None`` (JSON ``null``) when it is not finite."""
    value = float(value)
    return value if math.isfinite(value) else None


_READS: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("reads", default=None)
_HOOK = threading.Lock()
_hooked = False
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND  # os.open's writing flags
READS_ATTRIBUTE = "__mcmc_pairs_reads__"
"""The files a user's module read while the harness imported it (:func:`record_reads`)."""


@contextlib.contextmanager
def record_reads() -> Iterator[set[str]]:
    """Within the block, collect the paths of the files this thread opens for reading.

    Python raises an ``open`` audit event for every file it opens (``open``,
    ``Path.read_text``, ``np.load``, ``pandas.read_csv``, ``os.open``): one
    audit hook, installed once per process, adds the path of each one opened
    for reading to the set of the innermost enclosing block (a context
    variable, so other threads and other blocks are not mixed in). Files that C
    libraries open themselves (HDF5, netCDF) raise no event and are not seen.
    """
    _install_hook()
    reads: set[str] = set()
    token = _READS.set(reads)
    try:
        yield reads
    finally:
        _READS.reset(token)


def _install_hook() -> None:
    global _hooked
    with _HOOK:
        if not _hooked:
            sys.addaudithook(_audit)  # cannot be removed: it does nothing outside a block
            _hooked = True


def _audit(event: str, args: tuple) -> None:
    """Add the path of a file opened for reading to the enclosing block's set (if any).

    An audit hook's exception would become the audited call's: nothing here may
    raise (the interpreter's shutdown clears module globals too).
    """
    if event != "open":
        return
    try:
        reads = _READS.get()
        if reads is None:
            return
        path, mode, flags = args
        if path is None or isinstance(path, int):  # a file descriptor: opened elsewhere
            return
        reading = ("r" in mode or "+" in mode) if isinstance(mode, str) else not flags & _WRITE
        if reading:
            reads.add(os.path.abspath(os.fsdecode(path)))
    except Exception:  # noqa: BLE001 - never the audited call's failure
        return
