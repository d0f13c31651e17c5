"""Stored draws as a side: a file of draws instead of a sampler run (issue 29).

``compare --reference FILE`` replaces the fresh PyMC run with stored draws, and
``--sampler FILE`` puts stored draws under test. :func:`read_draws` reads four
formats into a DataTree (``posterior``, and ``sample_stats`` where the file has
them); :func:`check_draws` holds them to the model's free variables, shapes and
support; :class:`StoredSource` is the side, a
:class:`~mcmc_pairs.comparisons.sides.DrawSource` that cannot grow.

* netCDF, ``*.nc``, and zarr, ``*.zarr`` (what ``pm.sample(...).to_netcdf`` and
  ``.to_zarr`` write), read with ``xarray.open_datatree``;
* CmdStan CSV, ``*.csv``, one file per chain (a glob: ``'fit-*.csv'``),
  :func:`read_cmdstan_csv`;
* posteriordb's draws, ``*.json`` or ``*.json.zip`` (a list of chains), and
  ``posteriordb:NAME`` for a posterior shipped with the suite
  (:mod:`mcmc_pairs.pairdata.posteriordb`).

Names: Stan's ``theta.3`` (CSV) and ``theta[3]`` (posteriordb) are component 2 of
``theta``; ``--rename OLD=NEW`` renames a stored variable and ``--rename OLD=``
leaves it out. Every free variable of the model must be there with its shape;
the model's deterministics may be there too (they are left out); any other
variable, a NaN, chains of different lengths or a draw outside the model's
support is bad input (:class:`ValueError` naming the argument: exit 2).
"""

from __future__ import annotations

import glob
import io
import json
import re
import time
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from types import EllipsisType
from typing import TYPE_CHECKING, NoReturn

import arviz_base as azb
import numpy as np
import xarray as xr

from mcmc_pairs.comparisons.kinds import Role
from mcmc_pairs.comparisons.sides import (
    Rerun,
    RunEvent,
    Side,
    SideUnderTest,
    Stage,
    side_label,
)
from mcmc_pairs.comparisons.witness import ModelWitness
from mcmc_pairs.pairdata import posteriordb

if TYPE_CHECKING:
    from mcmc_pairs.comparisons.pair import Pair

SUFFIXES = (".nc", ".zarr", ".csv", ".json", ".json.zip")
"""What a stored file's name ends with (a CmdStan glob too: ``fit-*.csv``)."""
CMDSTAN_STATS = {
    "lp__": "lp",
    "accept_stat__": "acceptance_rate",
    "stepsize__": "step_size",
    "treedepth__": "tree_depth",
    "n_leapfrog__": "n_steps",
    "divergent__": "diverging",
    "energy__": "energy",
}
"""CmdStan's sampler columns and their names in ``sample_stats`` (ArviZ's)."""


def is_stored(spec: object) -> bool:
    """Return True when ``spec`` names stored draws rather than a sampler to run.

    ``posteriordb:NAME``, or a path (a glob for CmdStan) ending in one of
    :data:`SUFFIXES`; an import string ``file.py:function`` is not.
    """
    if not isinstance(spec, str | Path):
        return False
    text = str(spec)
    return text.startswith(posteriordb.PREFIX) or text.rstrip("/").lower().endswith(SUFFIXES)


def parse_rename(pairs: list[str] | None, *, argument: str = "--rename") -> dict[str, str | None]:
    """Return ``{old: new}`` from ``["old=new", "gq="]`` (``None``: leave the variable out)."""
    rename: dict[str, str | None] = {}
    for item in pairs or []:
        old, sep, new = item.partition("=")
        if not sep or not old.strip():
            raise ValueError(f"{argument} must look like OLD=NEW or OLD=, got {item!r}")
        rename[old.strip()] = new.strip() or None
    return rename


def read_draws(spec: str | Path, *, argument: str) -> tuple[xr.DataTree, str]:
    """Read stored draws; return the DataTree and the format's name.

    Raises
    ------
    ValueError
        A missing, unreadable or truncated file, or an unknown format, naming ``argument``.
    """
    text = str(spec)
    if text.startswith(posteriordb.PREFIX):
        name = text.removeprefix(posteriordb.PREFIX)
        try:
            draws = posteriordb.load_reference_draws(name)
        except ValueError as exc:
            raise ValueError(f"{argument} {text}: {exc}") from None
        return azb.from_dict({"posterior": draws}), "posteriordb reference draws"
    suffix = next((s for s in SUFFIXES if text.rstrip("/").lower().endswith(s)), None)
    if suffix is None:
        raise ValueError(
            f"{argument} {text!r}: unknown format of stored draws (a file ending in "
            f"{', '.join(SUFFIXES)}, or posteriordb:NAME)"
        )
    if suffix == ".csv":
        return read_cmdstan_csv(text, argument=argument), "CmdStan CSV"
    path = Path(text)
    if not path.exists():
        raise ValueError(f"{argument} file {text!r} does not exist")
    try:
        if suffix in (".nc", ".zarr"):
            engine = "zarr" if suffix == ".zarr" else None
            tree = xr.open_datatree(path, engine=engine).load()
            return tree, "netCDF" if suffix == ".nc" else "zarr"
        return _read_posteriordb_file(path), "posteriordb draws"
    except ValueError as exc:
        raise ValueError(f"{argument} {text!r}: {exc}") from None
    except Exception as exc:  # a truncated or foreign file: any reader's failure is bad input
        raise ValueError(
            f"{argument} {text!r} does not read: {type(exc).__name__}: {exc}"
        ) from None


def _read_posteriordb_file(path: Path) -> xr.DataTree:
    """Read posteriordb's draws format (a JSON list of chains), zipped or not."""
    if path.name.lower().endswith(".zip"):
        with zipfile.ZipFile(path) as archive:
            (member,) = [n for n in archive.namelist() if not n.endswith("/")]
            chains = json.loads(archive.read(member))
    else:
        chains = json.loads(path.read_text(encoding="utf-8"))
    return azb.from_dict({"posterior": posteriordb.parse_draws(chains)})


def read_cmdstan_csv(pattern: str, *, argument: str) -> xr.DataTree:
    """Read CmdStan's output CSV files, one per chain (``pattern`` may be a glob).

    Comment lines (``#``) are skipped; with ``save_warmup = 1`` the first
    ``num_warmup`` rows are dropped. A column ``theta.2.3`` is component
    (1, 2) of ``theta``; the sampler's columns (:data:`CMDSTAN_STATS`) go to
    ``sample_stats``.
    """
    files = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
    if not files or not all(Path(f).is_file() for f in files):
        raise ValueError(f"{argument} {pattern!r}: no such CmdStan CSV file")
    chains = [_read_cmdstan_chain(Path(f), argument=argument) for f in files]
    lengths = {len(rows) for _, rows in chains}
    if len(lengths) != 1 or {tuple(h) for h, _ in chains} != {tuple(chains[0][0])}:
        raise ValueError(
            f"{argument} {pattern!r}: the chains differ in length ({sorted(lengths)} draws) "
            "or in their columns"
        )
    header = chains[0][0]
    values = np.stack([rows for _, rows in chains])  # (chain, draw, column)
    posterior: dict[str, list[tuple[tuple[int, ...], int]]] = {}
    stats = {}
    for j, column in enumerate(header):
        if column in CMDSTAN_STATS:
            stats[CMDSTAN_STATS[column]] = values[..., j]
            continue
        name, *index = column.split(".")
        if not name or not all(i.isdigit() and int(i) >= 1 for i in index):
            raise ValueError(f"{argument} {pattern!r}: column {column!r} is not a Stan name")
        posterior.setdefault(name, []).append((tuple(int(i) - 1 for i in index), j))
    arrays = {name: _assemble(values, cells) for name, cells in posterior.items()}
    if "diverging" in stats:
        stats["diverging"] = stats["diverging"].astype(bool)
    return azb.from_dict({"posterior": arrays, "sample_stats": stats})


def _read_cmdstan_chain(path: Path, *, argument: str) -> tuple[list[str], np.ndarray]:
    """Return one CSV file's header and its draws (draw, column), warm-up left out."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    comments = "\n".join(line for line in lines if line.startswith("#"))
    rows = [line for line in lines if line.strip() and not line.startswith("#")]
    if len(rows) < 2:
        raise ValueError(f"{argument} {str(path)!r}: no header and draws (not a CmdStan CSV)")
    header = rows[0].split(",")
    try:
        values = np.loadtxt(io.StringIO("\n".join(rows[1:])), delimiter=",", ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{argument} {str(path)!r} is truncated or malformed: {exc}") from None
    if values.shape[1] != len(header):
        raise ValueError(f"{argument} {str(path)!r}: rows do not match the header")
    if re.search(r"save_warmup\s*=\s*(1|true)", comments):
        warmup = re.search(r"num_warmup\s*=\s*(\d+)", comments)
        values = values[int(warmup.group(1)) if warmup else 0 :]
    return header, values


def _assemble(values: np.ndarray, cells: list[tuple[tuple[int, ...], int]]) -> np.ndarray:
    """Return one variable, (chain, draw, *shape), from its columns ``(index, column)``."""
    if cells == [((), cells[0][1])]:
        return values[..., cells[0][1]]
    shape = tuple(max(index[k] for index, _ in cells) + 1 for k in range(len(cells[0][0])))
    out = np.full((*values.shape[:2], *shape), np.nan)
    for index, column in cells:
        at: tuple[EllipsisType | int, ...] = (..., *index)
        out[at] = values[..., column]
    return out


def check_draws(
    tree: xr.DataTree,
    variables: Mapping[str, tuple[int, ...]],
    deterministics: tuple[str, ...],
    rename: Mapping[str, str | None],
    *,
    argument: str,
) -> xr.DataTree:
    """Hold stored draws to the model: return them with the free variables alone.

    Parameters
    ----------
    tree : xarray.DataTree
        As :func:`read_draws` returns it.
    variables : mapping of str to tuple
        The model's free variables and their event shapes.
    deterministics : tuple of str
        The model's deterministics, which the file may hold too (left out).
    rename : mapping of str to str or None
        ``--rename``: a stored name to the model's, or ``None`` to leave it out.

    Raises
    ------
    ValueError
        A variable missing or extra, a shape, a NaN, or chains of one draw.
    """
    if "posterior" not in tree.children:
        raise ValueError(f"{argument}: the stored draws have no posterior group")
    posterior = tree["posterior"].to_dataset()
    posterior = posterior.drop_vars(
        [old for old, new in rename.items() if new is None], errors="ignore"
    )
    posterior = posterior.rename({o: n for o, n in rename.items() if n and o in posterior})
    missing = [v for v in variables if v not in posterior]
    extra = [v for v in posterior.data_vars if v not in variables and v not in deterministics]
    if missing or extra:
        raise ValueError(
            f"{argument}: the stored draws {'lack ' + str(missing) if missing else ''}"
            f"{' and ' if missing and extra else ''}"
            f"{'have variables the model lacks: ' + str(extra) if extra else ''} (the model's "
            f"free variables: {list(variables)}; --rename OLD=NEW renames, OLD= leaves out)"
        )
    posterior = posterior[list(variables)]
    for name, shape in variables.items():
        da = posterior[name]
        if da.dims[:2] != ("chain", "draw") or tuple(da.shape[2:]) != shape:
            raise ValueError(
                f"{argument}: stored {name} has dims {dict(da.sizes)}; the model's {name} is "
                f"(chain, draw, *{shape})"
            )
        if not np.all(np.isfinite(da.values)):
            raise ValueError(f"{argument}: stored {name} holds NaN or infinite draws")
    if posterior.sizes["draw"] < 2 or posterior.sizes["chain"] < 2:
        raise ValueError(
            f"{argument}: the stored draws have {posterior.sizes['chain']} chain(s) of "
            f"{posterior.sizes['draw']} draw(s); at least 2 of 2 are needed"
        )
    groups = {"posterior": posterior}
    if "sample_stats" in tree.children:
        groups["sample_stats"] = tree["sample_stats"].to_dataset()
    return xr.DataTree.from_dict(groups)


def check_support(tree: xr.DataTree, log_density: Callable, *, argument: str) -> None:
    """Refuse stored draws outside the model's support (a log prior of -inf or NaN)."""
    densities = log_density(tree["posterior"].to_dataset())
    for name, values in densities.items():
        outside = int((~np.isfinite(values.values)).sum())
        if outside:
            raise ValueError(
                f"{argument}: {outside} stored draw(s) lie outside the model's support "
                f"(their {name} is not finite)"
            )


class StoredSource:
    """Stored draws as a side: a :class:`~mcmc_pairs.comparisons.sides.DrawSource` that cannot grow.

    Every look gets the same draws; the run grows only its other sides, and says
    when the stored side's own Monte Carlo error is what limits the resolution.
    """

    grows = False
    continues = False
    rerun: Rerun | None = None  # nothing is called: nothing to call again

    def __init__(
        self,
        pair_name: str,
        role: Role,
        variant: str,
        spec: str,
        tree: xr.DataTree,
        form: str,
        read_s: float,
    ) -> None:
        self.pair_name, self.role, self.variant, self.read_s = pair_name, role, variant, read_s
        self.label = side_label(role, variant)
        self.sampler = f"stored draws: {spec} ({form})"
        self.tree = tree
        self.side: Side | None = None

    def grow(self, draws: int, say: Callable[[RunEvent], None]) -> Side:
        """Return the stored side (``draws`` is ignored: a stored side cannot grow)."""
        if self.side is None:
            chains, have = (
                self.tree["posterior"].sizes["chain"],
                self.tree["posterior"].sizes["draw"],
            )
            say(RunEvent(self.pair_name, self.label, Stage.START, chains, have))
            timings = {"compile_s": 0.0, "sampling_s": 0.0, "total_s": self.read_s}
            self.side = Side(self.role, self.variant, self.sampler, self.tree, timings, stored=True)
            say(
                RunEvent(
                    self.pair_name,
                    self.label,
                    Stage.DONE,
                    chains,
                    have,
                    self.read_s,
                    None,
                    self.sampler,
                )
            )
        return self.side


def stored_source(
    pair_name: str,
    role: Role,
    variant: str,
    spec: str,
    witness: ModelWitness,
    rename: Mapping[str, str | None] | None,
    *,
    argument: str,
) -> StoredSource:
    """Read, check and wrap stored draws as a side of ``witness``'s model."""
    start = time.perf_counter()
    tree, form = read_draws(spec, argument=argument)
    deterministics = tuple(d.name for d in witness.model.deterministics)
    tree = check_draws(tree, witness.variables, deterministics, rename or {}, argument=argument)
    check_support(tree, witness.log_density, argument=argument)
    seconds = time.perf_counter() - start
    return StoredSource(pair_name, role, variant, str(spec), tree, form, seconds)


def stored_spec(spec: object, pair: Pair) -> str | None:
    """Return ``spec`` when it names stored draws (:func:`is_stored`), else None (a side kind)."""
    return str(spec) if is_stored(spec) else None


def stored_under_test(spec: str, side: SideUnderTest) -> StoredSource:
    """Return stored draws under test (``--sampler FILE``) as a side of ``compare``."""
    return stored_source(
        side.pair.name, side.role, side.variant, spec, side.witness, side.rename,
        argument="--sampler",
    )  # fmt: skip


def refuse_to_validate(spec: str) -> NoReturn:
    """Refuse stored draws in ``validate``: Geweke's test and SBC run a sampler."""
    raise ValueError(
        f"--sampler {spec}: stored draws cannot be validated (Geweke's test and SBC "
        "run the sampler on simulated data); compare them with `mcmc-pairs compare`"
    )
