"""Report files: JSON and HTML written atomically, JSON numbers finite or null.

Every file is written through a temporary file in the same directory and a
rename, so a failed run leaves nothing half-written.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a report is for reading
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
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
    """Write ``out/<stem>.json`` and ``out/<stem>.html``, each atomically.

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
    write_atomic(json_path, json.dumps(document, indent=2))
    write_atomic(html_path, page)
    return html_path, json_path


def finite_or_none(value: Any) -> float | None:
    """Return ``value`` as a float, or ``None`` (JSON ``null``) when it is not finite."""
    value = float(value)
    return value if math.isfinite(value) else None
