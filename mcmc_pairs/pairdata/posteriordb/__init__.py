"""Posteriors of posteriordb with reference draws: their data, draws and provenance.

posteriordb (stan-dev/posteriordb, BSD-3-Clause) collects posteriors, each a
Stan model with a data set, and for some of them *reference draws*: 10 chains
of 1000 draws made by Stan's NUTS (thinned by 10, checked by posteriordb for
R-hat, ESS, E-FMI, autocorrelation and divergences). The data and the draws of
the posteriors in :data:`POSTERIORS` ship in ``files/`` byte for byte as
posteriordb distributes them (sources, licences and the commit in
``files/README.md`` and ``files/posteriors.json``). Their PyMC models, written
here from the Stan models, live in ``mcmc_pairs.models.posteriordb``
(:func:`model_spec` names them); their free variables are the names and shapes
of the Stan ``parameters`` block, which are the variables of the reference
draws. No modelling code here.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import numbers
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

DATA_DIR = Path(__file__).parent / "files"
PREFIX = "posteriordb:"
"""``posteriordb:NAME`` names a shipped posterior: its data (``--data``) or its reference
draws (``--reference``, ``--sampler``)."""
"""Folder of the shipped zips and ``posteriors.json`` (see ``files/README.md``)."""

POSTERIORS: tuple[str, ...] = (
    "kidiq-kidscore_momiq",
    "kidiq-kidscore_momhs",
    "earnings-earn_height",
    "earnings-logearn_height",
    "mesquite-logmesquite_logvolume",
    "kilpisjarvi_mod-kilpisjarvi",
    "sblrc-blr",
    "arma-arma11",
    "garch-garch11",
    "low_dim_gauss_mix-low_dim_gauss_mix",
    "gp_pois_regr-gp_regr",
)
"""The shipped posteriors, by their posteriordb names (``<data>-<model>``)."""

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)(?:\[([1-9][0-9]*(?:,[1-9][0-9]*)*)\])?")
"""A draws key: ``sigma``, ``theta[3]`` or ``z[1,2]`` (Stan's 1-based indices)."""


def _check_name(name: str) -> str:
    if not isinstance(name, str) or name not in POSTERIORS:
        raise ValueError(f"name must be one of {', '.join(POSTERIORS)}; got {name!r}")
    return name


@functools.cache
def _index() -> dict[str, Any]:
    with open(DATA_DIR / "posteriors.json", encoding="utf-8") as f:
        return json.load(f)["posteriors"]


def _read_zip(filename: str) -> Any:
    """Return the JSON document that is the single member of the zip ``filename``."""
    with zipfile.ZipFile(DATA_DIR / filename) as archive:
        members = archive.namelist()
        if len(members) != 1:
            raise ValueError(f"{filename} must hold one JSON file, holds {members}")
        return json.loads(archive.read(members[0]))


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _flatten(value: Any) -> list:
    return [x for item in value for x in _flatten(item)] if isinstance(value, list) else [value]


def _as_value(key: str, value: Any) -> Any:
    """One data entry: a number stays a Python int or float, a (nested) list an array."""
    if _is_integer(value) or isinstance(value, float):
        return value
    if not isinstance(value, list):
        raise ValueError(f"data entry {key!r} must be a number or a list, got {value!r}")
    entries = _flatten(value)
    dtype = np.int64 if entries and all(_is_integer(x) for x in entries) else np.float64
    array = np.array(value, dtype=dtype)
    if array.dtype == object or array.size != len(entries):
        raise ValueError(f"data entry {key!r} is a ragged list")
    return array


def load_data(name: str) -> dict[str, Any]:
    """Return the data of the posterior ``name``, read from its shipped zip.

    Parameters
    ----------
    name : str
        One of :data:`POSTERIORS`.

    Returns
    -------
    dict
        The data as the Stan model reads it: a JSON number stays a Python
        ``int`` or ``float``; a list becomes an array of shape (N,) (a list of
        lists: (N, D)), ``int64`` when every entry is an integer, else
        ``float64``. Keys the model does not use are kept (e.g. ``kidiq``'s
        ``mom_hs_new``).

    Raises
    ------
    ValueError
        ``name`` is not a shipped posterior.
    """
    document = _read_zip(_index()[_check_name(name)]["files"]["data"])
    return {key: _as_value(key, value) for key, value in document.items()}


def _parse_key(key: str) -> tuple[str, tuple[int, ...]]:
    """Split ``"z[1,2]"`` into ``("z", (0, 1))``; ``"sigma"`` is ``("sigma", ())``."""
    match = _KEY.fullmatch(key) if isinstance(key, str) else None
    if match is None:
        raise ValueError(
            f"malformed draws key {key!r}: expected a name, optionally with 1-based indices "
            "in brackets such as 'theta[3]' or 'z[1,2]'"
        )
    name, indices = match.groups()
    return name, tuple(int(i) - 1 for i in indices.split(",")) if indices else ()


def parse_draws(chains: list[dict[str, list[float]]]) -> dict[str, np.ndarray]:
    """Turn posteriordb's draws format into one array per variable.

    Parameters
    ----------
    chains : list of dict
        posteriordb's format: one dict per chain, mapping a scalar component's
        name (``"sigma"``, ``"theta[3]"``, ``"z[1,2]"``; Stan's 1-based
        indices) to its draws. Every chain has the same keys and every list the
        same length.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{variable: array of shape (chain, draw, *shape)}`` (``float64``),
        where ``shape`` is the largest index of each dimension: ``theta[3]`` is
        ``theta[..., 2]``; ``z[1,2]`` is ``z[..., 0, 1]``; a key without brackets
        a scalar (shape (chain, draw)).

    Raises
    ------
    ValueError
        No chains; a chain that is not a dict or whose keys differ from the
        first's; draws of different lengths; a value that is not a finite
        number (NaN, infinity); a malformed key; a variable given both as a
        scalar and indexed, with indices of different lengths, or with an
        index missing.
    """
    if not isinstance(chains, list) or not chains:
        raise ValueError("chains must be a non-empty list of dicts (one per chain)")
    if not all(isinstance(chain, dict) and chain for chain in chains):
        raise ValueError("every chain must be a non-empty dict of draws")
    keys = list(chains[0])
    for c, chain in enumerate(chains):
        if set(chain) != set(keys):
            raise ValueError(f"chain {c} has keys {sorted(chain)}, chain 0 has {sorted(keys)}")
    lengths = {len(d) if isinstance(d, list) else -1 for chain in chains for d in chain.values()}
    if -1 in lengths:
        raise ValueError("the draws of every key must be a list of numbers")
    if len(lengths) != 1 or 0 in lengths:
        raise ValueError(
            f"chains of different lengths: every key of every chain needs the same "
            f"number of draws (> 0), got lengths {sorted(lengths)}"
        )
    n_draws = lengths.pop()
    components: dict[str, dict[tuple[int, ...], str]] = {}
    for key in keys:
        name, index = _parse_key(key)
        components.setdefault(name, {})[index] = key
    out = {}
    for name, by_index in components.items():
        ndims = {len(index) for index in by_index}
        if len(ndims) != 1:
            raise ValueError(f"variable {name!r} has keys of different dimensions: {by_index}")
        shape = tuple(max(i[d] for i in by_index) + 1 for d in range(ndims.pop()))
        if len(by_index) != math.prod(shape):
            raise ValueError(
                f"variable {name!r} of shape {shape} misses indices: "
                f"{math.prod(shape) - len(by_index)} of {math.prod(shape)} are not in the keys"
            )
        array = np.empty((len(chains), n_draws, *shape), dtype=np.float64)
        for index, key in by_index.items():
            values = [chain[key] for chain in chains]
            if not all(_is_real(x) for draws in values for x in draws):
                raise ValueError(f"draws of {key!r} must be numbers")
            where: tuple[slice | int, ...] = (slice(None), slice(None), *index)
            array[where] = values
        if not np.isfinite(array).all():
            bad = int(np.size(array) - np.isfinite(array).sum())
            raise ValueError(f"draws of {name!r}: {bad} of {array.size} values are NaN or infinite")
        out[name] = array
    return out


def load_reference_draws(name: str) -> dict[str, np.ndarray]:
    """Return posteriordb's reference draws of ``name``, parsed by :func:`parse_draws`.

    Parameters
    ----------
    name : str
        One of :data:`POSTERIORS`.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{variable: array of shape (chain, draw, *shape)}``; 10 chains of 1000
        draws for every shipped posterior (``info(name)["reference"]``).

    Raises
    ------
    ValueError
        ``name`` is not a shipped posterior.
    """
    return parse_draws(_read_zip(_index()[_check_name(name)]["files"]["draws"]))


def model_spec(name: str) -> str:
    """Return the import string of the PyMC model of ``name``.

    Parameters
    ----------
    name : str
        One of :data:`POSTERIORS`.

    Returns
    -------
    str
        ``"mcmc_pairs.models.posteriordb.<module>:build_model"``, the module
        being ``name`` with ``-`` and ``.`` replaced by ``_``. ``build_model``
        takes the dict of :func:`load_data`.
    """
    module = _check_name(name).replace("-", "_").replace(".", "_")
    return f"mcmc_pairs.models.posteriordb.{module}:build_model"


def info(name: str) -> dict[str, Any]:
    """Return what is known about ``name``: source, licence and where it came from.

    Parameters
    ----------
    name : str
        One of :data:`POSTERIORS`.

    Returns
    -------
    dict
        A fresh copy of its entry of ``files/posteriors.json``: ``name``,
        ``model_name``, ``data_name``, ``title``, ``keywords``, ``dimensions``
        (variable to number of scalar components), ``source``, ``licence``,
        ``posteriordb_commit``, ``paths`` (the posteriordb paths of the
        posterior, Stan model, data and reference draws with their info
        files), ``files`` and ``sha256`` (the shipped zips), and
        ``reference`` (how posteriordb made the draws: method, its arguments,
        ``nchains``, ``ndraws``, the checks made).
    """
    return copy.deepcopy(_index()[_check_name(name)])
