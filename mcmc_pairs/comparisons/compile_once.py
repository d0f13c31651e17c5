"""Compile a PyMC model for nutpie once, then sample it again and again.

``pm.sample`` with nutpie compiles the model (PyTensor to numba) at every call:
on a small model that is nearly all of the PyMC side's time (7 s of compiling
against 0.13 s of sampling on the eight-schools example). Two kinds of run
sample one model many times:

* **a compare**: each look reruns ``pm.sample`` on the same ``pm.Model`` with
  more draws; a compare run again in one process (``cache=False``, or a
  reference not yet cached) rebuilds an equal model; a test suite
  parametrised over data sets builds the model of one source from other data.
* **SBC and Geweke of the PyMC twin** (:class:`~.pymc_runner.PymcTwin`): each
  replication builds the model from its own simulated data.

:class:`SameStructure` serves both: it compiles a model once with its data
*lifted* into shared variables (what ``pm.Data`` makes) and gives every later
model with the same graph, apart from those data, the compiled model with its
data swapped in (nutpie's ``with_data``). Which constants are data is decided
from the graph alone (:func:`data_constants`), never from the order models
arrive in: a model's draws are the same whether its process compiled it for
itself or reused another's compile, so compare and SBC give the same bits on
any number of workers, with a warm process or a fresh one (tested). The
process keeps one :class:`SameStructure`, :data:`~.reuse.NUTPIE`.

It works inside ``pm.sample``: :func:`compiled_once` routes nutpie's
``compile_pymc_model``, which ``pm.sample`` calls, through a cache for the
duration of a ``with`` block, so seeds, initial points and the returned
``DataTree`` stay PyMC's own. Samplers other than nutpie compile as before.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, cast

import numpy as np

if TYPE_CHECKING:
    from numba.core.caching import _CacheLocator
    from pytensor.compile.sharedvalue import SharedVariable
    from pytensor.graph.basic import Apply, Constant, Variable
    from pytensor.graph.fg import FunctionGraph

LIFTED_PREFIX = "__mcmc_pairs_data_"
"""Names of the shared variables :class:`SameStructure` lifts a model's data into."""

_ACTIVE: contextvars.ContextVar[CompileCache | None] = contextvars.ContextVar(
    "compile_cache", default=None
)
_INSTALL = threading.Lock()


class CompileCache(Protocol):
    """What :func:`compiled_once` asks: the compiled model for ``model`` and nutpie's options."""

    def compiled(self, model: Any, options: Mapping[str, Any], compile_: Callable) -> Any:
        """Return nutpie's compiled model for ``model``; ``compile_`` compiles one afresh."""
        ...


@contextlib.contextmanager
def compiled_once(cache: CompileCache) -> Iterator[None]:
    """Within the block, nutpie's compiles (``pm.sample``'s) go through ``cache``.

    The block may nest and run on several threads: each sees its own cache
    (a context variable); outside any block nutpie compiles as it always does.
    """
    _install()
    token = _ACTIVE.set(cache)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def _install() -> None:
    """Wrap ``nutpie.compile_pymc_model`` once per process (idempotent)."""
    import nutpie

    with _INSTALL:
        if getattr(nutpie.compile_pymc_model, "_mcmc_pairs_original", None) is not None:
            return
        cache_shape_error_on_disk()
        original = nutpie.compile_pymc_model

        def compile_pymc_model(model: Any, **options: Any) -> Any:
            cache = _ACTIVE.get()
            if cache is None:
                return original(model, **options)
            return cache.compiled(model, options, original)

        compile_pymc_model.__dict__["_mcmc_pairs_original"] = original
        nutpie.compile_pymc_model = compile_pymc_model


def cache_shape_error_on_disk() -> None:
    """Let numba keep its "cannot assign slice" error function in its on-disk cache.

    nutpie's compiled log density copies the gradient with ``out[...] = grad``.
    numba lowers every such assignment with a call to ``raise_with_shape_context``,
    whose CPU implementation (it formats both shapes into the message) numba
    compiles once per process and never caches: about 2 of the 4 s of a
    process's first nutpie compile of a small model, in every process that compiles
    one (the command line, each test worker, each notebook kernel). Compiled with
    ``cache=True`` it is read back from numba's cache by every later process
    (``python -m benchmarks.compile_overhead``). Only the error path changes
    where its code comes from; no draw does. A numba whose overload registry
    differs, or that has nowhere to write its cache, is left as it is.
    """
    try:
        from numba.core.caching import CacheImpl
        from numba.np import arrayobj

        where = arrayobj.__file__  # a cache numba cannot write would fail the compile instead
        # numba's list, inferred as list[type[object]]: some of its classes mix in a plain class
        locators = cast("list[type[_CacheLocator]]", CacheImpl._locator_classes)
        if not any(c.from_function(arrayobj.raise_with_shape_context, where) for c in locators):
            return
        for template in shape_error_templates():
            template._jit_options = {**template._jit_options, "cache": True}
    except (ImportError, AttributeError, TypeError):
        return


def shape_error_templates() -> list:
    """Return numba's typing templates of ``raise_with_shape_context`` (one per target)."""
    from numba.core.typing import templates
    from numba.np import arrayobj

    return [
        template
        for function, typ in templates.builtin_registry.globals
        if function is arrayobj.raise_with_shape_context
        for template in typ.templates
    ]


def _options_key(options: Mapping[str, Any]) -> str:
    return repr(sorted(options.items()))


def data_constants(fgraph: FunctionGraph) -> list[Constant]:
    """Return the constants of a model's graph that hold data, in graph order.

    A constant is data when it is an array of more than one element and every
    use of it reads its values: an observed value, a distribution's parameter,
    an operand of an elementwise operation or a dot product. Constants that
    set sizes, shapes or indices, and scalars, stay constants (they shape the
    compiled code). ``fgraph`` is :func:`pymc.model.fgraph.fgraph_from_model`'s.
    """
    from pymc.model.fgraph import ModelObservedRV
    from pytensor.graph.basic import Constant
    from pytensor.tensor.blockwise import Blockwise
    from pytensor.tensor.elemwise import Elemwise
    from pytensor.tensor.math import Dot
    from pytensor.tensor.random.op import RandomVariable

    def reads_values(node: Apply, index: int) -> bool:
        op = node.op
        if isinstance(op, ModelObservedRV):
            return index == 1
        if isinstance(op, RandomVariable):
            return index >= 2  # (rng, size, *parameters)
        return isinstance(op, Elemwise | Dot | Blockwise)

    found: list[Constant] = []
    for node in fgraph.toposort():
        for variable in node.inputs:
            if not isinstance(variable, Constant) or variable in found:
                continue
            if np.ndim(variable.data) == 0 or np.size(variable.data) < 2:
                continue
            if all(reads_values(client, i) for client, i in fgraph.clients[variable]):
                found.append(variable)
    return found


@dataclass
class _Template:
    """One lifted model: its graph, its data's shared variables and nutpie's compile."""

    fgraph: FunctionGraph
    shared: dict[str, SharedVariable]  # lifted name -> shared variable
    key: tuple[str, str]  # nutpie's options and the model's coordinates
    compiled: Any

    def values_for(self, fgraph: FunctionGraph) -> dict[str, np.ndarray] | None:
        """Return the data ``fgraph`` puts into this template's slots; None unless it fits.

        It fits when the two graphs are the same operations on the same
        variables with equal constants, apart from the lifted data, which must
        keep their dtype and shape (nutpie's compiled code is specialised on
        static shapes).
        """
        slots: dict[Variable, str] = {v: name for name, v in self.shared.items()}
        values: dict[str, np.ndarray] = {}
        seen: dict[Any, Any] = {}
        if len(self.fgraph.outputs) != len(fgraph.outputs):
            return None
        stack = list(zip(self.fgraph.outputs, fgraph.outputs, strict=True))
        while stack:
            mine, theirs = stack.pop()
            if mine in seen:
                if seen[mine] is not theirs:
                    return None
                continue
            seen[mine] = theirs
            if mine in slots:
                value = _data_of(theirs)
                if value is None or mine.type != theirs.type:
                    return None
                values[slots[mine]] = value
                continue
            if mine.type != theirs.type or (mine.owner is None) != (theirs.owner is None):
                return None
            if mine.owner is None:
                if not _same_root(mine, theirs):
                    return None
                continue
            a, b = mine.owner, theirs.owner
            if a.op != b.op or len(a.inputs) != len(b.inputs):
                return None
            if a.outputs.index(mine) != b.outputs.index(theirs):
                return None
            stack.extend(zip(a.inputs, b.inputs, strict=True))
        return values

    def with_values(self, values: Mapping[str, np.ndarray]) -> Any:
        """Return the compiled model holding ``values``; the shared variables hold them too.

        nutpie's compiled log density reads the data it is given (``with_data``);
        the initial-point function PyMC compiled reads the shared variables. nutpie
        takes only the shared variables its code reads: a dimension's length, which
        PyMC keeps in a shared variable too (``dims``), is not one of them.
        """
        for name, value in values.items():
            self.shared[name].set_value(value)
        read = {var.name for var in self.compiled.shared_var_keys}
        return self.compiled.with_data(**{k: v for k, v in values.items() if k in read})


def _data_of(variable: Variable) -> np.ndarray | None:
    """Return a data leaf's values (a constant's, or ``pm.Data``'s), else None."""
    from pytensor.graph.basic import Constant

    if isinstance(variable, Constant):
        return np.asarray(variable.data)
    if _is_data(variable):
        return np.asarray(variable.get_value(borrow=True))
    return None


def _is_data(variable: Variable) -> TypeGuard[SharedVariable]:
    """Whether a leaf is a shared variable holding data (``pm.Data``), not a random generator."""
    from pytensor.compile.sharedvalue import SharedVariable
    from pytensor.tensor.random.type import RandomType

    return isinstance(variable, SharedVariable) and not isinstance(variable.type, RandomType)


def _same_root(mine: Variable, theirs: Variable) -> bool:
    """Whether two leaves of two model graphs, neither of them data, are interchangeable."""
    from pytensor.compile.sharedvalue import SharedVariable
    from pytensor.graph.basic import Constant
    from pytensor.tensor.random.type import RandomType

    if isinstance(mine, Constant):
        return isinstance(theirs, Constant) and mine.equals(theirs)
    if isinstance(mine.type, RandomType):  # random generators: the log density uses none
        return isinstance(theirs.type, RandomType)
    if isinstance(mine, SharedVariable) or isinstance(theirs, SharedVariable | Constant):
        return False
    return mine.name == theirs.name  # value variables, by name (types are already equal)


class SameStructure:
    """Reuse nutpie's compile across models of one structure, whatever their data.

    A model is compiled with its data lifted (:func:`data_constants`) into
    shared variables named ``__mcmc_pairs_data_<i>`` (its ``pm.Data`` already
    are); a later model that fits a kept one (:meth:`_Template.values_for`: the
    same operations on the same variables and constants, the same coordinates
    and nutpie options, data of the same dtypes and shapes) gets that compile
    with its own data swapped in. The same model sampled again (a compare's
    looks), the same model rebuilt (a compare run again, a test calling it
    twice), and one built from other data (SBC's replications, a test
    parametrised over data sets) therefore compile once. Which constants are
    data is decided from each model's graph alone, so a model's draws are the
    same bits whether it was compiled for itself or given another's compile.

    Keeps the last ``size`` structures per thread (a compile's data are
    swapped in for one call at a time, so two threads never share one). A
    model PyMC cannot copy into a graph (one with initial values) is compiled
    as it is, every time.

    Attributes
    ----------
    made : int
        How many compiles it ran (the tests count them).
    hits : int
        How many times it handed a kept compile back.
    """

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._by_thread: dict[int, list[_Template]] = {}
        self.made = 0
        self.hits = 0

    def _templates(self) -> list[_Template]:
        with self._lock:
            return self._by_thread.setdefault(threading.get_ident(), [])

    def _count(self, made: int, hits: int) -> None:
        with self._lock:
            self.made += made
            self.hits += hits

    def compiled(self, model: Any, options: Mapping[str, Any], compile_: Callable) -> Any:
        """Return a kept compile that fits ``model``, holding its data; else compile it lifted."""
        from pymc.model.fgraph import fgraph_from_model

        try:
            fgraph, _ = fgraph_from_model(model)
        except NotImplementedError:  # initial values: PyMC cannot copy this model's graph
            self._count(1, 0)
            return compile_(model, **options)
        key = (_options_key(options), _coords_key(model))
        templates = self._templates()
        for k, template in enumerate(templates):
            if template.key != key:
                continue
            values = template.values_for(fgraph)
            if values is not None:
                templates.insert(0, templates.pop(k))  # the most recently used first
                self._count(0, 1)
                return template.with_values(values)
        template = self._lift(fgraph, key, options, compile_)
        templates[:] = [template, *templates][: self.size]
        self._count(1, 0)
        return template.compiled

    def clear(self) -> None:
        """Forget every kept compile (and reset the counts)."""
        with self._lock:
            self._by_thread.clear()
            self.made = self.hits = 0

    def _lift(
        self,
        fgraph: FunctionGraph,
        key: tuple[str, str],
        options: Mapping[str, Any],
        compile_: Callable,
    ) -> _Template:
        """Compile the model of ``fgraph`` with its data in shared variables."""
        import pytensor
        from pymc.model.fgraph import model_from_fgraph

        shared = {
            v.name: v
            for v in fgraph.variables
            if v.owner is None and _is_data(v) and v.name is not None  # pm.Data: named
        }
        for i, constant in enumerate(data_constants(fgraph)):
            name = f"{LIFTED_PREFIX}{i}"
            value = np.array(constant.data)
            shared[name] = pytensor.shared(value, name=name, shape=value.shape)
            fgraph.replace(constant, shared[name], import_missing=True)
        model = model_from_fgraph(fgraph)
        return _Template(fgraph, shared, key, compile_(model, **options))


def _coords_key(model: Any) -> str:
    """Return a model's coordinates as text: a compile names the draws' dimensions by them."""
    return repr(sorted((str(k), repr(v)) for k, v in model.coords.items()))
