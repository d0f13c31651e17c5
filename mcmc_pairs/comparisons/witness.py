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
  joint distribution against the model; a draw outside the support, or
  outside the image of a value transform the user gave (:func:`in_image`),
  has log density ``-inf``, which the harness reports as ``disagree``;
- simulations from the prior predictive for SBC and Geweke's test
  (:meth:`ModelWitness.draw_prior`, :meth:`ModelWitness.simulate`): every
  free and every observed variable drawn (a prior draw outside a user's
  transform's image drawn again), and each observed draw put into the
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
    from pymc.logprob.transforms import Transform
    from pytensor.compile.executor import Function
    from pytensor.configparser import _ChangeFlagsDecorator
    from pytensor.tensor.variable import TensorVariable

_LogDensity = tuple["Function", list[str], list[str], list[str], list[str]]
"""A compiled log density, and its free and observed inputs' names and dtypes, in order."""
_Simulator = tuple["Function", list[Any], list[str]]
"""A compiled simulator, its random generators' shared variables and its outputs' names."""

LOG_DENSITIES = ("log_prior", "log_likelihood")
"""Names of the per-draw quantities computed by PyMC."""
ACCEPTANCE_DRAWS = 1000
"""Prior draws on which :meth:`ModelWitness.prior_acceptance` measures the share kept."""
ACCEPTANCE_SEED = 0
"""The seed of those draws: the measured share is the same on every run."""
MIN_ACCEPTANCE = 0.01
"""The least share of prior draws in the transforms' images that SBC and Geweke's test
accept: below it, drawing the prior by rejection costs over a hundred draws per
replication's draw, and a constraint of probability zero (``sum_to_zero`` on a
normal, ``simplex`` on a normal) keeps none."""
PRIOR_TRIES = 10_000
"""Joint prior draws :meth:`ModelWitness.draw_prior` makes before it gives up (at the
least share :data:`MIN_ACCEPTANCE`, all are rejected with probability ``e**-100``)."""
_INSTEAD = {
    "ZeroSumTransform": "pm.ZeroSumNormal (a normal that sums to zero by construction)",
    "SimplexTransform": "pm.Dirichlet (a distribution on the simplex)",
    "Ordered": "a prior whose draws are mostly in order, or the cut points as a "
    "pm.Deterministic cumulative sum of positive increments",
    "CholeskyCorrTransform": "pm.LKJCholeskyCov or pm.LKJCorr",
}
"""What to write instead of a transform whose constraint the prior rarely meets, by class."""
_ELSE = (
    "a distribution whose support is the transform's image, or build the variable as a "
    "pm.Deterministic of free variables that meets the constraint by construction"
)


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

        A prior draw outside the image of a transform the user gave is drawn
        again (:meth:`draw_prior`); the share of prior draws that are kept is
        measured first (:meth:`prior_acceptance`), before any replication.

        Raises
        ------
        ValueError
            If the model has a potential (no generative form), an observed
            variable that is not named after a data key, an integer-valued
            likelihood given non-integer data (:meth:`check_observed_types`),
            an improper prior, or a transform whose image holds fewer than
            :data:`MIN_ACCEPTANCE` of the prior's draws (a constraint of
            probability zero, such as ``sum_to_zero`` on a normal): naming the
            variable, its transform, the share kept and what to write instead.
        """
        self._check_simulable()
        if not user_transforms(self.model):
            return
        kept, by_variable = self.prior_acceptance()
        if kept >= MIN_ACCEPTANCE:
            return
        name = min(by_variable, key=by_variable.__getitem__)
        transform = type(user_transforms(self.model)[name]).__name__
        raise ValueError(
            f"{self.argument} {self.name}: free variable {name!r} has transform {transform}, "
            f"whose image holds {by_variable[name]:.1%} of the variable's prior draws "
            f"({kept:.1%} of {ACCEPTANCE_DRAWS} joint draws kept, at least "
            f"{MIN_ACCEPTANCE:.0%} needed): SBC and Geweke's test draw the prior by "
            f"rejection, and this constraint is too rare; write {_INSTEAD.get(transform, _ELSE)}"
        )

    def prior_acceptance(self) -> tuple[float, dict[str, float]]:
        """Return the share of prior draws in every transform's image, and each variable's share.

        :data:`ACCEPTANCE_DRAWS` joint draws from the prior of the model without
        its constraints, seeded with :data:`ACCEPTANCE_SEED` (the same numbers on
        every run, whatever the run's seed): a draw is kept when every variable
        with a transform the user gave (:func:`user_transforms`) lies in the
        transform's image (:func:`in_image`).

        Returns
        -------
        tuple of float and dict of str to float
            The share of joint draws kept, and by variable the share of draws
            in its own transform's image (empty without such a variable).
        """
        func, rngs, names = self._forward("prior")
        _reseed(rngs, np.random.default_rng(ACCEPTANCE_SEED))
        inside = np.array(  # shape (ACCEPTANCE_DRAWS, variables with a user's transform)
            [[bool(v) for v in func()[len(names) :]] for _ in range(ACCEPTANCE_DRAWS)]
        )
        shares = dict(zip(user_transforms(self.model), inside.mean(axis=0).tolist(), strict=True))
        return float(inside.all(axis=1).mean()), shares

    def _check_simulable(self) -> None:
        """Raise the structural refusals of :meth:`check_generative` (no draws needed)."""
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

        The model's prior is the distributions' joint density restricted to the
        images of the transforms the user gave (``transform=ordered``: PyMC's
        log density on the unconstrained space is the base density there), so
        a joint draw with a variable outside its transform's image
        (:func:`in_image`) is drawn again: rejection, which draws exactly that
        restricted prior. :meth:`check_generative` refuses a model whose
        constraints keep too few draws for this.

        Returns
        -------
        dict of str to ndarray
            One value per free variable, of its event shape.

        Raises
        ------
        ValueError
            If none of :data:`PRIOR_TRIES` joint draws is kept.
        """
        func, rngs, names = self._forward("prior")
        _reseed(rngs, rng)
        for _ in range(PRIOR_TRIES):
            values = func()
            if all(values[len(names) :]):
                return dict(zip(names, (np.asarray(v) for v in values[: len(names)]), strict=True))
        raise ValueError(
            f"{self.argument} {self.name}: none of {PRIOR_TRIES} prior draws lies in the images "
            f"of the transforms given to {sorted(user_transforms(self.model))}"
        )

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

            self._check_simulable()
            model = self.model
            free, observed = list(model.free_RVs), list(model.observed_RVs)
            if kind == "prior":  # and whether each constrained variable is in its image
                given = user_transforms(model)
                inside = [
                    in_image(given[rv.name], rv, rv.owner.inputs) for rv in free if rv.name in given
                ]
                inputs, outputs, names = [], [*free, *inside], [rv.name for rv in free]
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
    log_prior = umodel.logp(vars=free, sum=True) + _image_constraints(model, umodel)
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


IMAGE_RTOL = 1e-6
"""How far ``backward(forward(x))`` may lie from ``x``, relative to ``max |x|``, for ``x`` in
the image of a transform (rounding: a sum-to-zero draw of float32 values misses zero by about
``1e-7`` of its scale; a planted bug, by its whole scale)."""


def user_transforms(model: pm.Model) -> dict[str, Transform]:
    """Return each free variable's value transform that its user gave, by variable name.

    A transform the user gives (``transform=ordered``, ``sum_to_zero``, a
    ``Transform`` subclass of their own) restricts the distribution to the
    transform's image: PyMC's log density on the unconstrained space is the
    base density there, and nothing elsewhere. The distribution's default
    transform (``log`` for a half-normal, ``Interval`` for a uniform) maps onto
    the support its density already enforces, and is left out; PyMC chains a
    user's transform after a default (:class:`ChainedTransform`), and the chain
    is returned. A user's transform of the default's type (``transform=log``
    on a half-normal) counts as the default.
    """
    from pymc.distributions.transforms import _default_transform
    from pymc.logprob.transforms import ChainedTransform

    given = {}
    for rv in model.free_RVs:
        transform = model.rvs_to_transforms.get(rv)
        if transform is None:
            continue
        default = _default_transform(rv.owner.op, rv)
        if isinstance(transform, ChainedTransform) or type(transform) is not type(default):
            given[rv.name] = transform
    return given


def in_image(
    transform: Transform, value: TensorVariable, inputs: Sequence[TensorVariable]
) -> TensorVariable:
    """Return whether ``value`` (the constrained space) is in ``transform``'s image, a boolean.

    ``value`` is in the image when ``forward(value)`` is finite and
    ``backward(forward(value))`` gives ``value`` back (within :data:`IMAGE_RTOL`
    of ``max |value|``): an unordered vector has a ``log`` of a negative
    difference, a vector that does not sum to zero comes back centred, one off
    the simplex comes back normalised, an angle beyond pi comes back wrapped.

    Parameters
    ----------
    transform : pymc.logprob.transforms.Transform
    value : TensorVariable
        A value of the variable, of its shape.
    inputs : sequence of TensorVariable
        The inputs of the variable's node (its parameters), as ``forward``
        and ``backward`` take them.
    """
    import pytensor.tensor as pt

    forward = transform.forward(value, *inputs)
    back = transform.backward(forward, *inputs)
    scale = pt.max(pt.abs(value))
    close = pt.all(pt.le(pt.abs(back - value), IMAGE_RTOL * scale))
    return pt.and_(pt.all(pt.isfinite(forward)), close)


def _image_constraints(model: pm.Model, umodel: pm.Model) -> TensorVariable:
    """Return 0 where every draw lies in its transform's image, -inf where one does not.

    Without its transforms a model's log density no longer knows that
    ``transform=ordered`` restricts a vector to increasing values (or
    ``sum_to_zero`` to vectors summing to zero, ``simplex`` to the simplex): an
    unordered draw would get a finite density and pass the support check. Each
    variable's transform the user gave (:func:`user_transforms`) adds its
    :func:`in_image` test on the draw; a model without one adds the constant 0.
    """
    import pytensor.tensor as pt

    by_name = {rv.name: rv for rv in umodel.free_RVs}
    inside = [
        in_image(transform, umodel.rvs_to_values[by_name[name]], by_name[name].owner.inputs)
        for name, transform in user_transforms(model).items()
    ]
    if not inside:
        return pt.constant(0.0)
    return pt.switch(pt.all(pt.stack(inside)), 0.0, -np.inf)


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
