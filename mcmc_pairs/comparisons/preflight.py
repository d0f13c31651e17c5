"""Checks that run before any sampling: a run that would fail or do harm is refused at once.

Each check is a function named after what it refuses and raises ``ValueError``
naming the argument (the CLI turns it into exit 2 and one line; the Python API
lets it through). Nothing is sampled or written before they pass:

* :func:`refuse_reserved_name`: a report name that would replace the suite's
  page (``index``) or a built-in pair's pages;
* :func:`refuse_unportable_name`: a name that is not a portable file name;
* :func:`refuse_long_name`: a name whose files (and :func:`~.files.write_atomic`'s
  temporary files) would pass the file system's limit on a name's length;
* :func:`refuse_unstorable_dims`: dims, coordinates or variables named so that
  PyMC cannot store its draws (xarray's DataTree forbids ``/`` in names);
* :func:`refuse_oversized_run`: a run whose draws would not fit in memory,
  estimated from the model's sizes and the settings (:func:`run_bytes`).

(A dangling ``--out`` is refused by :func:`mcmc_pairs.comparisons.files.writable_dir`;
control characters of user text are stripped by
:func:`mcmc_pairs.comparisons.errors.printable`.)

This module imports nothing heavy: ``mcmc-pairs list`` may load it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not at import: the settings' checks import numpy
    import pymc as pm
    from pytensor.tensor.variable import TensorVariable

    from mcmc_pairs.comparisons.pair import Pair
    from mcmc_pairs.comparisons.settings import Sampling

RESERVED = ("index",)
"""Report names the suite itself writes: ``index.html``, the page of ``report``."""
METHODS = ("geweke", "sbc")
"""``validate`` writes ``NAME_METHOD.json``/``.html`` for each of these."""
WINDOWS_DEVICES = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{d}{i}" for d in ("com", "lpt") for i in range(1, 10)]
)
"""Names no file may have on Windows (with any extension): not portable."""
NAME_MAX_FALLBACK = 255
"""The limit on a file name's length in bytes when the file system does not say."""
TEMP_NAME_EXTRA = len(".") + len(".html") + len(".") + 8 + len(".tmp")
"""What :func:`~.files.write_atomic`'s temporary file adds to a report's stem:
``.STEM.html.XXXXXXXX.tmp`` (``tempfile.mkstemp`` draws 8 characters)."""
BYTES_PER_VALUE = 8
"""Every draw and quantity is held as a float64."""
WORKING_NUMERATOR, WORKING_DENOMINATOR = 3, 2
"""The summaries, log densities and conversions work on copies: a run's peak memory beyond
the interpreter's is about 1.5 times what it holds (measured: a 100-dimensional model, 2
sides x 4 chains x 10,000 and 20,000 draws, peak RSS 228 and 490 MB above a 200-draw run
against 170 and 340 MB held)."""
OVERHEAD_BYTES = 1 << 30
"""Memory the interpreter, PyMC and the compiled samplers need besides the draws."""


def refuse_bad_report_name(
    name: str, out: Path, *, user: bool, stem: str | None = None, argument: str = "--name"
) -> None:
    """Refuse a report name before the run: reserved (for a user's pair), or too long.

    Parameters
    ----------
    name : str
        The pair's name.
    out : Path
        The report directory.
    user : bool
        The pair is the user's (``--model``), not a registered one.
    stem : str, optional
        The report files' stem when it is not ``name`` (``validate``: ``NAME_METHOD``).
    argument : str

    Raises
    ------
    ValueError
    """
    if user:
        refuse_reserved_name(name, argument)
    refuse_long_name(name if stem is None else stem, out, argument)


def refuse_bad_report_output(name: str, out: Path) -> None:
    """Refuse, for the Python API's ``compare(..., out=...)``, what the CLI refuses.

    An ``out`` that cannot be written (:func:`~.files.writable_dir`) and a
    ``name`` that is taken or too long (:func:`refuse_bad_report_name`).

    Raises
    ------
    ValueError
        Naming ``out`` or ``name``.
    """
    from mcmc_pairs.comparisons.files import writable_dir

    writable_dir(Path(out), argument="out")
    refuse_bad_report_name(name, Path(out), user=True, argument="name")


def refuse_reserved_name(name: str, argument: str = "--name") -> None:
    """Refuse a user's report name that would replace the suite page or a built-in pair's.

    ``index``, a registered pair's name and a registered pair's ``validate``
    stem (``regression_sbc``) are refused, ignoring case (a case-insensitive
    file system would take ``Index.html`` for ``index.html``).

    Raises
    ------
    ValueError
    """
    from mcmc_pairs.comparisons.registry import PAIRS

    taken = {n.casefold(): n for n in RESERVED}
    for pair in PAIRS:
        taken[pair.name.casefold()] = pair.name
        taken |= {f"{pair.name}_{m}".casefold(): f"{pair.name}_{m}" for m in METHODS}
    clash = taken.get(str(name).casefold())
    if clash is None:
        return
    what = f"the built-in pair {clash}'s pages"
    if clash in RESERVED:
        what = "the suite page index.html"
    raise ValueError(f"{argument} {name!r} would replace {what}; choose another name")


def refuse_unportable_name(name: str, argument: str = "--name") -> str:
    """Refuse a report name that is not a portable file name; return it.

    Letters, digits, ``_``, ``-`` and ``.``; not starting with ``.`` (a hidden
    file), not ending with ``.`` (Windows drops it), not a Windows device name
    (``CON``, ``NUL``, ``COM1``, ...).

    Raises
    ------
    ValueError
    """
    if not isinstance(name, str) or not name or not all(c.isalnum() or c in "_-." for c in name):
        raise ValueError(
            f"{argument} must be a non-empty name of letters, digits, '_', '-' or '.', got {name!r}"
        )
    if name.startswith(".") or name.endswith("."):
        raise ValueError(f"{argument} must not start or end with '.', got {name!r}")
    if name.split(".")[0].casefold() in WINDOWS_DEVICES:
        raise ValueError(f"{argument} {name!r} is a device name on Windows, not a file name")
    return name


def name_max(directory: Path) -> int:
    """Return the longest file name in bytes ``directory``'s file system allows.

    Asked of ``directory`` or its nearest existing ancestor;
    :data:`NAME_MAX_FALLBACK` when the file system does not say.
    """
    existing = Path(directory)
    while not existing.is_dir() and existing != existing.parent:
        existing = existing.parent
    try:
        return int(os.pathconf(existing, "PC_NAME_MAX"))
    except (AttributeError, OSError, ValueError):
        return NAME_MAX_FALLBACK


def refuse_long_name(stem: str, out: Path, argument: str = "--name") -> None:
    """Refuse a report stem whose files would be too long a name in ``out``.

    The longest name a report writes is its temporary HTML file,
    ``.STEM.html.XXXXXXXX.tmp`` (:data:`TEMP_NAME_EXTRA` bytes more than ``STEM``).

    Raises
    ------
    ValueError
    """
    limit = name_max(out)
    longest = len(os.fsencode(stem)) + TEMP_NAME_EXTRA
    if longest > limit:
        raise ValueError(
            f"{argument} is too long: its report files' names would be {longest} bytes, "
            f"more than the {limit} this file system allows; use at most "
            f"{limit - TEMP_NAME_EXTRA} bytes"
        )


def refuse_unstorable_dims(model: pm.Model, argument: str = "--model") -> None:
    """Refuse a PyMC model whose dims, coordinates or variables PyMC cannot store.

    xarray's DataTree (PyMC's draws) forbids ``/`` in a name: PyMC accepts
    such a dim when the model is built and fails only after sampling.

    Parameters
    ----------
    model : pymc.Model

    Raises
    ------
    ValueError
    """
    names = [("variable", v) for v in model.named_vars]
    names += [("coordinate", c) for c in model.coords]
    for var, dims in model.named_vars_to_dims.items():
        names += [(f"dim of {var}", d) for d in dims if d is not None]
    for kind, name in names:
        if isinstance(name, str) and "/" in name:
            raise ValueError(
                f"{argument}: the {kind} {name!r} contains '/', which PyMC cannot store "
                "(xarray's DataTree forbids it in names); rename it"
            )


def run_bytes(
    held: int,
    compared: int,
    *,
    sides: int,
    chains: int,
    draws: int,
    max_draws: int,
    references: int = 1,
) -> int:
    """Return the bytes a run of :func:`~.run.run_pair` needs at most for its draws.

    At the last look every one of the ``sides`` has ``max_draws`` draws per
    chain of its ``held`` scalar components and of its quantities: the
    ``compared`` components, their centred products
    (:func:`~.agreement.product_pairs`), the log prior and the log likelihood.
    A run that can grow (``max_draws > draws``) also keeps its earlier looks,
    whose draws sum to less than the last look's: every side's quantities and
    PyMC's draws (its ``references``, kept for reuse). The total is scaled by
    :data:`WORKING_NUMERATOR` / :data:`WORKING_DENOMINATOR` for the copies the
    computations make.

    Parameters
    ----------
    held : int
        Scalar components of every free variable and deterministic.
    compared : int
        Scalar components of the compared variables.
    sides, chains, draws, max_draws : int
    references : int
        PyMC's sides among ``sides`` (the reference and its step methods).

    Returns
    -------
    int
    """
    quantities = compared + _product_count(compared) + 2
    per_draw = sides * (held + quantities)
    if max_draws > draws:
        per_draw += sides * quantities + references * held
    values = chains * max_draws * per_draw
    return BYTES_PER_VALUE * values * WORKING_NUMERATOR // WORKING_DENOMINATOR


def _product_count(n: int) -> int:
    """Return ``len(agreement.product_pairs(n))`` without importing the agreement module."""
    from mcmc_pairs.comparisons.agreement import ALL_PAIRS_UP_TO, MAX_PRODUCTS

    return n * (n - 1) // 2 if n <= ALL_PAIRS_UP_TO else min(n - 1, MAX_PRODUCTS)


def available_memory() -> int | None:
    """Return the bytes of memory available to a new allocation, or None when unknown."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - not installed, or not on this platform
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def refuse_oversized_run(
    held: int,
    compared: int,
    settings: Sampling,
    sides: int,
    available: int | None = None,
    references: int = 1,
) -> None:
    """Refuse a run whose first look's :func:`run_bytes` plus :data:`OVERHEAD_BYTES` do not fit.

    PyMC's warm-up counts too: nutpie keeps every tuning draw of the reference
    (and of its step methods) in memory until the run ends, so a ``tune`` of
    10**12 would abort in Rust's allocator, not with a message.

    Only the first look is certain: most runs decide there or at the next, and
    refusing every run that could grow to ``max_draws`` would refuse LDA at its
    defaults on a 16 GB machine (12.8 GiB at 32,000 draws per chain). A run that
    grows is not checked again (lower ``--max-draws`` on a small machine).

    Parameters
    ----------
    held, compared, sides, references : int
        See :func:`run_bytes`.
    settings : Sampling
        The run's ``chains``, ``draws`` and ``tune``
        (:class:`~mcmc_pairs.comparisons.settings.Settings`).
    available : int, optional
        Bytes available (default :func:`available_memory`; unknown: no check).

    Raises
    ------
    ValueError
    """
    available = available_memory() if available is None else available
    if available is None:
        return
    chains, draws = settings.chains, settings.draws
    need = run_bytes(
        held, compared, sides=sides, chains=chains, draws=draws, max_draws=draws,
        references=references,
    )  # fmt: skip
    free = max(available - OVERHEAD_BYTES, 0)
    if need > free:
        raise ValueError(
            f"--draws: this run would hold about {_gib(need)} of draws ({sides} sides x {chains} "
            f"chains x {draws} draws x {held + compared} components and their derived "
            f"quantities), more than the {_gib(free)} of memory available for them; lower "
            f"--chains or --draws"
        )
    tune = settings.tune
    warm_up = BYTES_PER_VALUE * references * chains * tune * held  # nutpie keeps its warm-up
    if need + warm_up > free:
        raise ValueError(
            f"--tune: PyMC's warm-up would hold about {_gib(warm_up)} ({references} reference(s) "
            f"x {chains} chains x {tune} tuning draws x {held} components) besides "
            f"{_gib(need)} of draws, more than the {_gib(free)} of memory available; lower "
            f"--tune"
        )


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB"


def refuse_unfit_model(
    model: pm.Model,
    shapes: Mapping[str, tuple[int, ...]],
    pair: Pair,
    settings: Sampling,
    under_test: int,
    argument: str,
) -> None:
    """Run the checks of a built model before any sampling: its names, then its memory.

    Parameters
    ----------
    model : pymc.Model
    shapes : mapping of str to tuple of int
        Shapes of the model's free variables.
    pair : Pair
        Its ``variables`` are compared; its ``pymc_steps`` are extra sides.
    settings : Sampling
        The run's settings.
    under_test : int
        Sides under test (the hand-rolled variants, or the user's sampler).
    argument : str
        What the model was given as, for messages.

    Raises
    ------
    ValueError
    """
    refuse_unstorable_dims(model, argument)
    held, compared = model_sizes(model, shapes, pair.variables)
    references = 1 + len(pair.pymc_steps)  # PyMC's reference and its step methods
    refuse_oversized_run(held, compared, settings, under_test + references, None, references)


def model_sizes(
    model: pm.Model, shapes: Mapping[str, tuple[int, ...]], compared: Iterable[str]
) -> tuple[int, int]:
    """Return ``(held, compared)``: scalar components of the model and of the compared variables.

    ``held`` counts ``model``'s free variables (``shapes``) and deterministics,
    ``compared`` the ``compared`` variables' (:func:`run_bytes`).
    """
    import math

    free = {name: math.prod(int(s) for s in shape) for name, shape in shapes.items()}
    held = sum(free.values()) + sum(_size(d) for d in model.deterministics)
    return held, sum(free.get(name, 0) for name in compared)


def _size(variable: TensorVariable) -> int:
    """Return the number of scalars of a deterministic (0 when its shape cannot be told)."""
    import math

    static = variable.type.shape
    try:
        if all(s is not None for s in static):
            return math.prod(static)
        return math.prod(int(s) for s in variable.shape.eval())
    except Exception:  # noqa: BLE001 - a shape that needs inputs: left out of the estimate
        return 0
