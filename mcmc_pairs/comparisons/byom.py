"""Bring your own model: a :class:`~mcmc_pairs.comparisons.pair.Pair` from a PyMC model and sampler.

The user writes ``build_model(data) -> pm.Model`` and a sampler with the
contract's signature; :func:`model_pair` describes them as a pair, the same
description the built-in pairs use, and everything else is derived from the
model (:mod:`mcmc_pairs.comparisons.witness`): the compared variables, PyMC's log prior
and log likelihood of every draw, and the prior-predictive simulations of SBC
and Geweke's test.

Optional, in the model's module (a missing piece is simply not used):

``exact(data) -> {quantity: marginal}``
    Exact marginals, checked against both sides. A marginal is an
    :class:`~mcmc_pairs.comparisons.pair.ExactMarginal`, a frozen ``scipy.stats``
    distribution, or a mapping with any of ``mean``, ``sd`` and ``quantiles``
    (``{0.05: ..., 0.5: ..., 0.95: ...}``). Quantities are named like ArviZ
    (``"mu"``, ``"theta[3]"``, ``"mu*tau2"`` for a centred product).
``align(posterior, target) -> posterior``
    Relabel exchangeable labels (mixture components, topics) of every chain
    of ``posterior`` (an ``xarray.Dataset``) to match ``target`` (the posterior
    means of the PyMC side's first chain) before any statistic.
``derived(posterior, data, centers) -> {name: DataArray(chain, draw)}``
    Extra per-draw quantities to compare (for example a predictive quantity).
``SETTINGS``
    A dict of default ``draws``, ``tune``, ``chains``, ``seed``.
``PYMC_KWARGS``
    A dict of extra keyword arguments for ``pm.sample`` (say
    ``{"target_accept": 0.95}``, or a ``nuts_sampler``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from mcmc_pairs.comparisons.datafile import refuse_non_finite
from mcmc_pairs.comparisons.errors import one_line
from mcmc_pairs.comparisons.loading import load_callable, load_module
from mcmc_pairs.comparisons.pair import PROBS, ExactMarginal, Pair
from mcmc_pairs.comparisons.preflight import refuse_unportable_name, refuse_unstorable_dims
from mcmc_pairs.comparisons.settings import SAMPLING
from mcmc_pairs.comparisons.witness import ModelWitness, spec_name

FUNCTIONS = ("exact", "align", "derived")
"""Optional functions of a model's module; see the module docstring."""
DICTS = {"SETTINGS": "settings", "PYMC_KWARGS": "pymc_kwargs"}
"""Optional dicts of a model's module, by the keyword that overrides each."""
SETTING_KEYS = SAMPLING


@dataclass(frozen=True)
class FixedData:
    """``load_data`` of a user's pair: the data it was given (a picklable callable)."""

    data: Mapping[str, Any]

    def __call__(self) -> dict:
        """Return the data."""
        return dict(self.data)


@dataclass(frozen=True)
class ModuleFunction:
    """A function of the model's module, imported when called (so it pickles as a name).

    Parameters
    ----------
    target : str
        The module: ``package.module`` or ``path/to/file.py``.
    attr : str
        The function's name in it.
    """

    target: str
    attr: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function (a user's: it returns whatever that returns)."""
        return load_callable(f"{self.target}:{self.attr}", argument="--model")(*args, **kwargs)


@dataclass(frozen=True)
class ExactFrom:
    """The pair's ``reference``: the module's ``exact(data)``, each marginal converted."""

    exact: Callable[[Mapping], Mapping]

    def __call__(self, data: Mapping) -> dict[str, ExactMarginal]:
        """Return ``{quantity: ExactMarginal}``."""
        try:
            marginals = self.exact(data)
        except (Exception, SystemExit) as exc:  # user code: even sys.exit is its failure
            raise ValueError(
                f"--model: exact(data) raised {type(exc).__name__}: {one_line(exc)}"
            ) from None
        if not isinstance(marginals, Mapping):
            raise ValueError(
                f"--model: exact(data) must return a dict, got {type(marginals).__name__}"
            )
        return {str(q): as_marginal(m, str(q)) for q, m in marginals.items()}


def as_marginal(value: Any, quantity: str) -> ExactMarginal:
    """Convert an exact marginal given as a scipy distribution or a mapping.

    Raises
    ------
    ValueError
        Naming the quantity, for anything else or for non-finite numbers.
    """
    if isinstance(value, ExactMarginal):
        return value
    if hasattr(value, "ppf") and hasattr(value, "mean") and hasattr(value, "std"):
        return ExactMarginal.from_scipy(value)
    if isinstance(value, Mapping):
        unknown = set(value) - {"mean", "sd", "quantiles"}
        if unknown:
            raise ValueError(
                f"--model: exact marginal of {quantity!r} has unknown key(s) {sorted(unknown)}; "
                "use mean, sd, quantiles"
            )
        quantiles = {float(p): float(q) for p, q in dict(value.get("quantiles", {})).items()}
        if any(p not in PROBS for p in quantiles):
            raise ValueError(
                f"--model: exact quantiles of {quantity!r} must be at levels {PROBS}, "
                f"got {sorted(quantiles)}"
            )
        marginal = ExactMarginal(
            mean=None if value.get("mean") is None else float(value["mean"]),
            sd=None if value.get("sd") is None else float(value["sd"]),
            quantiles=quantiles,
        )
        numbers = [marginal.mean, marginal.sd, *quantiles.values()]
        if not all(math.isfinite(v) for v in numbers if v is not None):
            raise ValueError(f"--model: exact marginal of {quantity!r} is not finite: {value!r}")
        return marginal
    raise ValueError(
        f"--model: exact marginal of {quantity!r} must be a scipy.stats distribution, an "
        f"ExactMarginal or a dict of mean/sd/quantiles, got {type(value).__name__}"
    )


def model_pair(
    model: str | Callable,
    data: Mapping,
    sampler: str | Callable | None = None,
    *,
    name: str | None = None,
    **extras: Any,
) -> Pair:
    """Describe a user's PyMC model and sampler as a pair.

    Parameters
    ----------
    model : str or callable
        ``build_model(data) -> pm.Model``, or its import string
        (``path/to/model.py:build_model`` or ``package.module:build_model``).
    data : mapping
        The data both sides receive (each its own copy).
    sampler : str or callable, optional
        The sampler under test, recorded as the pair's hand-rolled side.
    name : str, optional
        The pair's name (report files ``NAME.html``, ``NAME.json``); default the
        model function's module and function (:func:`default_name`).
    **extras
        Override the optional pieces of the model's module: ``exact``,
        ``align``, ``derived``, ``settings``, ``pymc_kwargs``.

    Returns
    -------
    Pair
        Its ``variables`` are the model's free variables.

    Raises
    ------
    ValueError
        A model that does not import, raises on ``data`` or is not a
        ``pm.Model``; malformed optional pieces; a bad ``name``.
    """
    unknown = set(extras) - {*FUNCTIONS, *DICTS.values()}
    if unknown:
        raise ValueError(f"unknown keyword(s) {sorted(unknown)} for the pair's optional pieces")
    if not isinstance(data, Mapping):
        raise ValueError(f"data must be a mapping of names to values, got {type(data).__name__}")
    refuse_non_finite(data)  # an inf crashes PyMC's initial point, a NaN is imputed
    witness = ModelWitness(model, data)  # builds the model: fails early, naming --model
    refuse_unstorable_dims(witness.model)
    module, found = _module_pieces(model)
    pieces = {**found, **{k: v for k, v in extras.items() if v is not None}}
    name = _check_name(name if name is not None else default_name(model, module))
    settings = dict(pieces.get("settings") or {})
    bad = set(settings) - set(SETTING_KEYS)
    if bad:
        raise ValueError(f"--model: SETTINGS has unknown key(s) {sorted(bad)}; use {SETTING_KEYS}")
    pymc_kwargs = pieces.get("pymc_kwargs") or {}
    if not isinstance(pymc_kwargs, Mapping):
        raise ValueError(f"--model: PYMC_KWARGS must be a dict, got {type(pymc_kwargs).__name__}")
    doc = (getattr(module, "__doc__", None) or "").strip().splitlines()
    return Pair(
        name=name,
        title=doc[0] if doc else f"{spec_name(model)} against its sampler",
        seed="",
        load_data=FixedData(dict(data)),
        model=model,
        handrolled={} if sampler is None else {"sampler": sampler},
        variables=tuple(witness.variables),
        derived=pieces.get("derived"),
        reference=ExactFrom(pieces["exact"]) if pieces.get("exact") is not None else None,
        align=pieces.get("align"),
        pymc_kwargs=dict(pymc_kwargs),
        settings=settings,
    )


def _module_pieces(model: str | Callable) -> tuple[ModuleType | None, dict[str, Any]]:
    """Return the model's module and the optional pieces it defines."""
    module: ModuleType | None
    wrap: Callable[[str], Callable[..., Any]]
    if isinstance(model, str):
        target = model.rpartition(":")[0]
        module = load_module(target, argument="--model", spec=model)
        wrap = lambda attr: ModuleFunction(target, attr)  # noqa: E731 (pickles by name)
    else:
        import sys

        module = sys.modules.get(getattr(model, "__module__", ""), None)
        wrap = lambda attr: getattr(module, attr)  # noqa: E731
    pieces: dict[str, Any] = {}
    if module is None:
        return None, pieces
    for attr in FUNCTIONS:
        value = getattr(module, attr, None)
        if value is None:
            continue
        if not callable(value):
            raise ValueError(f"--model: {attr} in the model's module must be a function")
        pieces[attr] = wrap(attr)
    for attr, key in DICTS.items():
        value = getattr(module, attr, None)
        if value is not None:
            if not isinstance(value, Mapping):
                raise ValueError(f"--model: {attr} in the model's module must be a dict")
            pieces[key] = dict(value)
    return module, pieces


def default_name(model: str | Callable, module: ModuleType | None = None) -> str:
    """Return a run's name when none is given: the model function's module and function.

    ``path/to/changepoint/model.py:build_model`` is ``changepoint.model.build_model``
    (the folder too: every zoo and example model lives in a ``model.py``, and
    ``model.py:build_model`` run from inside ``changepoint/`` is the same name), and
    ``package.module:build_model`` or that function itself ``package.module.build_model``,
    so that two models never write over each other's report. Characters a file
    name should not carry become ``_``.
    """
    if isinstance(model, str):
        target, _, function = model.rpartition(":")
        if target.endswith(".py"):
            path = Path(target).absolute()  # run from inside the folder, still its name
            parts = [path.parent.name, path.stem] if path.parent.name else [path.stem]
        else:
            parts = [target]
    else:
        module_name = getattr(module, "__name__", None) or getattr(model, "__module__", None)
        parts = [module_name or "model"]
        function = str(getattr(model, "__qualname__", None) or getattr(model, "__name__", "model"))
    name = ".".join([*parts, function]).lstrip(".")
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in name)


def _check_name(name: str) -> str:
    return refuse_unportable_name(name, argument="--name")
