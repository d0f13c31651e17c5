"""What the harness derives from a PyMC model: PyMC as the independent witness.

Given ``build_model(data) -> pm.Model`` and data, :class:`ModelWitness` gives

- the compared variables: the model's free random variables, names and event
  shapes (:attr:`ModelWitness.variables`); a sampler returns them in the
  constrained space, as ``pm.sample`` reports them;
- the per-draw ``log_prior`` (free variables) and ``log_likelihood`` (observed
  variables and potentials) of any draws, computed by PyMC from the model
  (:meth:`ModelWitness.log_density`, the graphs of ``pm.compute_log_prior`` and
  ``pm.compute_log_likelihood``: value transforms removed, so the draws enter
  as they are). Neither side's code computes them, so they check each side's
  joint distribution against the model; a draw outside the support has log
  density ``-inf``, which the harness reports as ``disagree``;
- simulations from the prior predictive for SBC and Geweke's test
  (:meth:`ModelWitness.draw_prior`, :meth:`ModelWitness.simulate`): every
  free and every observed variable drawn, and each observed draw put into the
  data under its own name. Convention: every observed variable is named after
  the data key that holds its values (:meth:`ModelWitness.check_generative`).

Each PyTensor function is compiled once per process and reused: the log
densities take the observed values as inputs, so SBC replications, whose data
differ only in their observed part, share one compiled function. A witness
pickles as its model's import string (or callable) and data, so Dask workers
rebuild and recompile it themselves.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import pickle
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons import files, reuse
from mcmc_pairs.comparisons.errors import one_line
from mcmc_pairs.comparisons.loading import load_callable

if TYPE_CHECKING:
    import pymc as pm
    from numpy.typing import ArrayLike
    from pytensor.compile.executor import Function
    from pytensor.configparser import _ChangeFlagsDecorator
    from pytensor.tensor.variable import TensorVariable

_LogDensity = tuple["Function", list[str], list[str], list[str], list[str]]
"""A compiled log density, and its free and observed inputs' names and dtypes, in order."""
_Simulator = tuple["Function", list[Any], list[str]]
"""A compiled simulator, its random generators' shared variables and its outputs' names."""

LOG_DENSITIES = ("log_prior", "log_likelihood")
"""Names of the per-draw quantities computed by PyMC."""


def exact_arithmetic() -> _ChangeFlagsDecorator:
    """Return a context in which PyTensor compiles without fast-math: the same bits every run.

    PyTensor's numba backend compiles with ``fastmath`` by default, which lets
    LLVM reorder floating-point operations. A function compiled afresh (inlined
    into one module) and the same function assembled from PyTensor's on-disk
    cache then round differently, so the first run of a model on a machine gave
    other draws than every later run with the same seed (measured: NUTS on
    ``regression``, and on posteriordb's ``kidiq-kidscore_momiq``, where the
    posterior means moved by 0.1 sd). Without fast-math a fresh compile and a
    cached one give the same bits (``tests/comparisons/test_pymc_runner.py``).
    Every model the harness compiles (``pm.sample``, the log densities, the
    simulators) is compiled inside this context.
    """
    import pytensor

    return pytensor.config.change_flags(numba__fastmath=False)


class ModelWitness:
    """A PyMC model built from data, and what the harness derives from it.

    Parameters
    ----------
    build_model : str or callable
        ``build_model(data) -> pm.Model``, or its import string
        (``pkg.mod:func`` or ``path/to/file.py:func``).
    data : mapping
        The data the model is built from (the design, for simulations).
    argument : str
        Name of the argument ``build_model`` came from, for messages.

    Attributes
    ----------
    reads : frozenset of str
        The files opened for reading while the model was built (and its module
        imported, if the witness imported it): the reference cache's key
        follows their contents (:func:`~.reference_cache.reference_key`).

    Raises
    ------
    ValueError
        If ``build_model`` does not import, raises, or does not return a
        ``pm.Model`` with at least one free variable.
    """

    def __init__(self, build_model: str | Callable, data: Mapping, *, argument: str = "--model"):
        self.build_model = build_model
        self.data = data
        self.argument = argument
        self._log_density_fns: dict[str, _LogDensity] = {}  # by design fingerprint
        self._simulators: dict[str, _Simulator] = {}  # "prior" and "simulate"
        self.memo: reuse.LogDensityMemo | None = None  # log densities on disk (compare sets it)
        with files.record_reads() as reads:  # a file the model reads: part of the cache's key
            self.model = self.build(data)
        self.reads = frozenset(reads)
        shapes = self.model.eval_rv_shapes()
        self.variables: dict[str, tuple[int, ...]] = {
            rv.name: tuple(int(s) for s in shapes[rv.name]) for rv in self.model.free_RVs
        }
        self.observed = tuple(rv.name for rv in self.model.observed_RVs)
        self.potentials = tuple(
            p.name or f"potential {k}" for k, p in enumerate(self.model.potentials)
        )
        self._design = _fingerprint(data, self.observed)
        # The convention (each observed variable holds its data key's values, untransformed)
        # lets other data of the same design give their observed values without a rebuild.
        self._stored = {name: _stored_value(self.model, name) for name in self.observed}
        self._observed_as_given = all(
            name in data and _same(data[name], self._stored[name]) for name in self.observed
        )

    # -------------------------------------------------------------- building

    @property
    def name(self) -> str:
        """The model's import string, or ``module:qualname`` of the callable."""
        return spec_name(self.build_model)

    def build(self, data: Mapping) -> pm.Model:
        """Return the model built from ``data`` (see :func:`build`)."""
        return build(self.build_model, data, argument=self.argument)

    def __getstate__(self) -> dict[str, Any]:
        return {"build_model": self.build_model, "data": self.data, "argument": self.argument}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        type(self).__init__(self, state["build_model"], state["data"], argument=state["argument"])

    # -------------------------------------------------------- log densities

    def log_density(
        self, posterior: xr.Dataset, data: Mapping | None = None
    ) -> dict[str, xr.DataArray]:
        """Return PyMC's ``log_prior`` and ``log_likelihood`` of every draw.

        Parameters
        ----------
        posterior : xarray.Dataset
            The free variables with dims ``(chain, draw, *event)``, in the
            constrained space.
        data : mapping, optional
            The data the draws condition on; default the witness's own. Data
            that differ from it only in the observed variables reuse the
            compiled function; other data build and compile their own.

        Returns
        -------
        dict of str to xarray.DataArray
            ``log_prior`` and, when the model has observed variables or
            potentials, ``log_likelihood``, each with dims ``(chain, draw)``;
            ``-inf`` where a draw lies outside the support.
        """
        data = self.data if data is None else data
        memo, entry = self.memo, self._memo_entry(posterior, data)
        out = None if memo is None or entry is None else memo.load(*entry)
        if out is None:
            out = self._log_density_values(posterior, data)
            if memo is not None and entry is not None:
                memo.save(entry[0], out)
        dims = ("chain", "draw")
        coords = {dim: np.arange(n) for dim, n in zip(dims, out.shape[1:], strict=True)}
        result = {"log_prior": xr.DataArray(out[0], dims=dims, coords=coords)}
        if self.observed or self.potentials:
            result["log_likelihood"] = xr.DataArray(out[1], dims=dims, coords=coords)
        return result

    def _memo_entry(
        self, posterior: xr.Dataset, data: Mapping
    ) -> tuple[str, tuple[int, ...]] | None:
        """Return the log-density memo's ``(draws digest, shape)``, or None.

        None without a memo (:attr:`memo`, which ``compare`` sets for its own
        data when it has a reference cache) or for other data. The draws'
        digest covers every free variable's values as given, in the model's
        order, with their dtypes and shapes.
        """
        if self.memo is None or data is not self.data:
            return None
        raw = [
            np.asarray(posterior[name].transpose("chain", "draw", ...).values)
            for name in self.variables
        ]
        return reuse.draws_digest(raw), (2, *raw[0].shape[:2])

    def _log_density_values(self, posterior: xr.Dataset, data: Mapping) -> np.ndarray:
        """Return ``log_prior`` and ``log_likelihood`` of every draw, shape ``(2, chain, draw)``."""
        key = self._design if data is self.data else _fingerprint(data, self.observed)
        source: Mapping[str, Any]
        if data is self.data:
            model, source = self.model, self._stored
        elif key == self._design and self._observed_as_given:
            model, source = self.model, data  # same design: only the observed values change
        else:
            model = self.build(data)
            source = {name: _stored_value(model, name) for name in self.observed}
        if key not in self._log_density_fns:
            self._log_density_fns[key] = _compile_log_density(model)
        func, free_names, free_dtypes, obs_names, obs_dtypes = self._log_density_fns[key]
        observed = [
            np.asarray(source[name], dtype=dtype)
            for name, dtype in zip(obs_names, obs_dtypes, strict=True)
        ]
        with warnings.catch_warnings(), np.errstate(invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # NaN draws of an integer variable
            draws = [
                np.asarray(posterior[name].transpose("chain", "draw", ...).values).astype(dtype)
                for name, dtype in zip(free_names, free_dtypes, strict=True)
            ]
        chains, n_draws = draws[0].shape[:2]
        out = np.empty((2, chains, n_draws))
        checked = False  # the first call checks the inputs' types; the rest are trusted
        try:
            for c, d in itertools.product(range(chains), range(n_draws)):
                try:  # v[c, d, ...]: an array even for a scalar, as trusted inputs must be
                    values = func(*(v[c, d, ...] for v in draws), *observed)
                except (IndexError, ValueError, TypeError, OverflowError):
                    values = (-np.inf, -np.inf)  # say, a category index outside its table
                else:
                    if not checked:
                        # every draw has the dtype and shape of the first: skip PyTensor's
                        # input checks (about half of a call's 24 us on eight schools)
                        func.trust_input = checked = True
                out[:, c, d] = [float(values[0]), float(values[1])]
        finally:
            func.trust_input = False
        out[np.isnan(out)] = -np.inf  # NaN log density: a draw no parameter can explain
        return out

    # ---------------------------------------------------------- simulation

    def check_generative(self) -> None:
        """Check that prior-predictive simulation can be built from the model.

        Raises
        ------
        ValueError
            If the model has a potential (no generative form), an observed
            variable that is not named after a data key, an integer-valued
            likelihood given non-integer data (:meth:`check_observed_types`),
            or an improper prior.
        """
        if self.potentials:
            raise ValueError(
                f"{self.argument} {self.name} has potential(s) {list(self.potentials)}: a "
                "potential cannot be simulated, so SBC and Geweke's test need the likelihood "
                "written as observed random variables"
            )
        if not self.observed:
            raise ValueError(
                f"{self.argument} {self.name} has no observed variable: there is no data to "
                "simulate, so SBC and Geweke's test do not apply (use compare)"
            )
        for name in self.observed:
            if name not in self.data:
                raise ValueError(
                    f"{self.argument} {self.name}: observed variable {name!r} is not named after "
                    f"a data key (keys: {sorted(self.data)}); name every observed variable after "
                    "the data key that holds its values"
                )
        self.check_observed_types()
        for rv in self.model.free_RVs:
            op = type(rv.owner.op).__name__
            if "Flat" in op:
                raise ValueError(
                    f"{self.argument} {self.name}: free variable {rv.name!r} has an improper "
                    f"prior ({op}), which cannot be drawn from; give it a proper prior"
                )

    def check_observed_types(self) -> None:
        """Check that integer-valued likelihoods are given integer data.

        PyMC casts the observed values to the dtype of their distribution, so a
        Poisson given ``1.5`` would silently condition on ``1``, while the
        sampler under test sees ``1.5``.

        Raises
        ------
        ValueError
            Naming the data key, when an observed variable with an integer
            dtype (Poisson, Binomial, Bernoulli, ...) holds a value that is not
            an integer.
        """
        for rv in self.model.observed_RVs:
            if np.dtype(rv.type.dtype).kind not in "biu" or rv.name not in self.data:
                continue
            try:
                given = np.asarray(self.data[rv.name], dtype=float)
            except (TypeError, ValueError):
                continue  # not numbers: PyMC has already refused or converted them
            bad = np.flatnonzero(~(np.isfinite(given) & (given == np.round(given))).ravel())
            if bad.size:
                where = np.unravel_index(bad[0], given.shape) if given.ndim else ()
                index = f" at index {list(map(int, where))}" if given.ndim else ""
                raise ValueError(
                    f"data key {rv.name!r} holds {float(given.ravel()[bad[0]])!r}{index}, not an "
                    f"integer, but {self.argument} {self.name} gives it an integer-valued "
                    f"likelihood ({type(rv.owner.op).__name__}, dtype {rv.type.dtype}): give "
                    "integer data or a continuous likelihood"
                )

    def draw_prior(self, data: Mapping, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Draw every free variable from its prior (one joint draw).

        Returns
        -------
        dict of str to ndarray
            One value per free variable, of its event shape.
        """
        func, rngs, names = self._forward("prior")
        _reseed(rngs, rng)
        return dict(zip(names, (np.asarray(v) for v in func()), strict=True))

    def simulate(self, data: Mapping, params: Mapping, rng: np.random.Generator) -> dict[str, Any]:
        """Return a copy of ``data`` with every observed variable drawn given ``params``.

        Parameters
        ----------
        data : mapping
            The design; its observed keys are replaced.
        params : mapping of str to ndarray
            A value of every free variable.
        rng : numpy.random.Generator

        Returns
        -------
        dict
            ``data`` with each observed variable's draw under its own name, of
            the dtype its distribution produces (float64 for a normal, int64
            for a Poisson), whatever the dtype of the values it replaces: a
            data file that writes weights as integers (``151``) must not round
            the simulated weights.
        """
        func, rngs, names = self._forward("simulate")
        _reseed(rngs, rng)
        inputs = [np.asarray(params[rv.name], dtype=rv.type.dtype) for rv in self.model.free_RVs]
        out = dict(data)
        for name, value in zip(names, func(*inputs), strict=True):
            out[name] = np.asarray(value)
        return out

    def _forward(self, kind: Literal["prior", "simulate"]) -> _Simulator:
        """Compile (once) the prior draw or the observed-given-free simulator."""
        if kind not in self._simulators:
            import pymc as pm
            from pytensor.graph.replace import graph_replace

            self.check_generative()
            model = self.model
            free, observed = list(model.free_RVs), list(model.observed_RVs)
            if kind == "prior":
                inputs, outputs, names = [], free, [rv.name for rv in free]
            else:
                inputs = [rv.type() for rv in free]
                outputs = graph_replace(
                    observed, dict(zip(free, inputs, strict=True)), strict=False
                )
                names = [rv.name for rv in observed]
            try:
                with exact_arithmetic():
                    func = pm.pytensorf.compile(
                        inputs, outputs, random_seed=False, on_unused_input="ignore"
                    )
            except (Exception, SystemExit) as exc:  # user code: even sys.exit is its failure
                raise ValueError(
                    f"{self.argument} {self.name}: cannot simulate from the model "
                    f"({type(exc).__name__}: {one_line(exc)})"
                ) from None
            rngs = pm.pytensorf.find_rng_nodes(outputs)
            self._simulators[kind] = (func, rngs, names)
        return self._simulators[kind]


def spec_name(func: str | Callable) -> str:
    """Return an import string as it is, a callable as ``module:qualname``."""
    if isinstance(func, str):
        return func
    return f"{getattr(func, '__module__', '?')}:{getattr(func, '__qualname__', func)}"


def build(build_model: str | Callable, data: Mapping, *, argument: str = "--model") -> pm.Model:
    """Return ``build_model(data)``, checked to be a ``pm.Model`` with free variables.

    The builder gets a deep copy of ``data``, so nothing it does reaches the caller.

    Raises
    ------
    ValueError
        Naming ``argument`` when the builder does not import, raises, or
        returns something else.
    """
    import pymc as pm

    name = spec_name(build_model)
    func = (
        load_callable(build_model, argument=argument)
        if isinstance(build_model, str)
        else build_model
    )
    try:
        model = func(copy.deepcopy(dict(data)))
    except (Exception, SystemExit) as exc:  # user code: even sys.exit is its failure
        raise ValueError(
            f"{argument} {name} raised {type(exc).__name__}: {one_line(exc)}"
        ) from None
    if not isinstance(model, pm.Model):
        raise ValueError(f"{argument} {name} must return a pymc.Model, got {type(model).__name__}")
    if not model.free_RVs:
        raise ValueError(f"{argument} {name}: the model has no free variables")
    return model


def _compile_log_density(model: pm.Model) -> _LogDensity:
    """Compile ``(free values..., observed values...) -> (log prior, log likelihood)``.

    A graph compiled before in this process is not compiled again
    (:data:`~.reuse.LOG_DENSITIES`, keyed by the graph: a model rebuilt from the
    same source and data, or from data that differ only in their observed
    values, gets the same compiled function). A compiled function keeps its
    own storage, so each thread has its own.
    """
    import pymc as pm
    import pytensor.tensor as pt
    from pytensor.graph.replace import graph_replace

    umodel = _without_transforms(model)  # draws enter in the constrained space
    free = list(umodel.free_RVs)
    observed = list(umodel.observed_RVs)
    free_values = [umodel.rvs_to_values[rv] for rv in free]
    obs_values = [umodel.rvs_to_values[rv] for rv in observed]
    obs_inputs = [v.type() for v in obs_values]
    log_prior = umodel.logp(vars=free, sum=True) + _order_constraints(model, umodel)
    terms = [*observed, *umodel.potentials]
    log_lik = umodel.logp(vars=terms, sum=True) if terms else pt.constant(0.0)
    log_prior, log_lik = graph_replace(
        [log_prior, pt.as_tensor_variable(log_lik)],
        dict(zip(obs_values, obs_inputs, strict=True)),
        strict=False,
    )
    inputs, outputs = [*free_values, *obs_inputs], [log_prior, log_lik]

    def compile_() -> Any:
        with exact_arithmetic():
            return pm.pytensorf.compile(inputs, outputs, on_unused_input="ignore")

    graph = reuse.graph_key(inputs, outputs)
    key = None if graph is None else (threading.get_ident(), graph)  # a function: one caller
    func = reuse.LOG_DENSITIES.get(key, compile_)
    return (
        func,
        [rv.name for rv in free],
        [v.type.dtype for v in free_values],
        [rv.name for rv in observed],
        [v.type.dtype for v in obs_values],
    )


def _order_constraints(model: pm.Model, umodel: pm.Model) -> TensorVariable:
    """Return 0 where every ordered variable's draw is in order, -inf where one is not.

    Without its transforms a model's log density no longer knows that
    ``transform=ordered`` restricts a vector to increasing values: an
    unordered draw would get a finite density and pass the support check.
    The transform's ``forward`` (the log of the differences) is finite only for
    ordered values; the other transforms PyMC ships either map onto a support
    the distribution's own density already enforces (log, interval) or accept
    every value (sum-to-zero, simplex's stick-breaking of any vector).
    """
    import pytensor.tensor as pt
    from pymc.distributions.transforms import Ordered
    from pymc.logprob.transforms import ChainedTransform

    by_name = {rv.name: rv for rv in umodel.free_RVs}
    in_order = []
    for rv in model.free_RVs:
        transform = model.rvs_to_transforms.get(rv)
        parts = getattr(transform, "transform_list", [transform])
        if not isinstance(transform, Ordered | ChainedTransform) or not any(
            isinstance(part, Ordered) for part in parts
        ):
            continue
        plain = by_name[rv.name]
        ordered = next(part for part in parts if isinstance(part, Ordered))
        forward = ordered.forward(umodel.rvs_to_values[plain], *plain.owner.inputs)
        in_order.append(pt.all(pt.isfinite(forward)))
    if not in_order:
        return pt.constant(0.0)
    return pt.switch(pt.all(pt.stack(in_order)), 0.0, -np.inf)


def _without_transforms(model: pm.Model) -> pm.Model:
    """Return ``model`` with its value transforms removed, whatever its initial values.

    PyMC's ``remove_value_transforms`` refuses a model with an ``initval``
    ("Cannot convert models with non-default initial_values"); the log density
    does not depend on where a sampler starts, so the initial values are set
    aside while the model is converted, and put back.
    """
    from pymc.model.transform.conditioning import remove_value_transforms

    initial = dict(model.rvs_to_initial_values)
    try:
        model.rvs_to_initial_values.update(dict.fromkeys(initial))
        return remove_value_transforms(model)
    finally:
        model.rvs_to_initial_values.update(initial)


def _stored_value(model: pm.Model, name: str) -> np.ndarray:
    """Return the observed values the model holds for observed variable ``name``."""
    value = model.rvs_to_values[model[name]]
    return value.get_value() if hasattr(value, "get_value") else value.data


def _same(given: ArrayLike, stored: ArrayLike) -> bool:
    """Return whether data values ``given`` are the model's ``stored`` observed values."""
    a, b = np.asarray(given), np.asarray(stored)
    return a.shape == b.shape and bool(np.all(a == b))


def _reseed(rngs: Sequence[Any], rng: np.random.Generator) -> None:
    import pymc as pm

    pm.pytensorf.reseed_rngs(rngs, int(rng.integers(0, 2**63)))


def _fingerprint(data: Mapping, observed: tuple[str, ...]) -> str:
    """Return a key for ``data`` without its observed part (the model's design)."""
    design = {k: v for k, v in data.items() if k not in observed}
    return hashlib.sha1(pickle.dumps(_canonical(design))).hexdigest()


def _canonical(value: object) -> object:
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _canonical(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    return value
