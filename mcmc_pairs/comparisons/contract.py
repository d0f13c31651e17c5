"""The sampler contract (docs/contracts.md): calling a sampler and checking its output.

``sample(data, *, draws, tune, chains, random_seed)`` returns ``{variable:
array}`` with every array shaped ``(chains, draws, *event_shape)``, or a
DataTree with a ``posterior`` group. A sampler that raises (``SystemExit``
included), or returns other names or shapes, or draws that are not real
numbers, breaks the contract: :class:`SamplerError` (a ``ValueError``, so the
command line exits 2 naming it). Non-finite draws are wrong draws, not a broken
contract: ``compare`` judges them (:func:`to_datatree`); Geweke's test and SBC,
which must rank them, refuse them (:func:`check_output`, ``finite=True``).

Continuing chains (optional). A sampler that accepts a keyword ``state``
(:func:`resumable`) can be continued: the harness passes an empty dict the
first time, the sampler starts fresh and stores in it what it needs to go on,
and later calls with the same dict (and ``tune=0``) continue those chains for
``draws`` more draws (``handrolled/_common.py`` states the protocol). A
sampler without ``state`` is rerun from the start with more draws.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import arviz_base as azb
import numpy as np
import xarray as xr

from mcmc_pairs.comparisons import interrupts
from mcmc_pairs.comparisons.execution import ChildFailed, ChildTimedOut, call_in_fork
from mcmc_pairs.comparisons.interrupts import kept_handlers


class SamplerError(ValueError):
    """A sampler under test failed or returned output that breaks the contract."""


def sampler_name(sampler: str | Callable) -> str:
    """Name a sampler for messages and reports: its import string, or ``module:qualname``.

    A callable object without a ``__qualname__`` (say
    :class:`mcmc_pairs.comparisons.pymc_runner.PymcTwin`) is named by ``str(sampler)``.
    """
    if isinstance(sampler, str):
        return sampler
    qualname = getattr(sampler, "__qualname__", None)
    if qualname is None:
        return str(sampler)
    return f"{getattr(sampler, '__module__', '?')}:{qualname}"


def call_sampler(
    name: str, func: Callable, data: Mapping, *, timeout: float | None = None, **kwargs: Any
) -> Any:
    """Call ``func(data, **kwargs)`` on its own copy of ``data``; return what it returns.

    Nothing the sampler does to its data reaches the caller (or the other side).
    With a ``timeout`` (seconds) the call runs in a forked child process that
    is killed when it has not returned in time: a sampler that hangs, even
    inside compiled code, ends with a clear error (a resumable sampler's
    ``state`` comes back from the child with its draws).

    Raises
    ------
    SamplerError
        Whatever the sampler raised (``SystemExit`` included: only
        ``KeyboardInterrupt`` goes through), or its timeout, named with ``name``.
    """
    if timeout is not None:
        output = _call_in_child(name, func, data, timeout, kwargs)
    else:
        try:
            with kept_handlers():  # its signal.signal cannot drop the run's signals
                output = func(copy.deepcopy(data), **kwargs)
        except (Exception, SystemExit) as exc:  # user code: even sys.exit is its failure
            raise SamplerError(f"sampler {name} raised {type(exc).__name__}: {exc}") from exc
    interrupts.check()  # a sampler that swallowed Ctrl-C returns cut short: not used
    return output


def _call_in_child(
    name: str, func: Callable, data: Mapping, timeout: float, kwargs: dict[str, Any]
) -> Any:
    """Run the sampler in a forked child (:func:`~.execution.call_in_fork`), stopped on time."""

    def call() -> tuple[Any, dict | None]:
        return func(copy.deepcopy(data), **kwargs), kwargs.get("state")

    try:
        output, state = call_in_fork(call, timeout)
    except ChildTimedOut:
        raise SamplerError(
            f"sampler {name} did not finish within {timeout:g} s (--timeout); it was stopped"
        ) from None
    except ChildFailed as exc:
        raise SamplerError(f"sampler {name} {exc}") from None
    if kwargs.get("state") is not None:
        kwargs["state"].clear()
        kwargs["state"].update(state)
    return output


def resumable(func: Callable) -> bool:
    """Return True when ``func`` accepts a keyword ``state``: it can continue its chains."""
    try:
        parameter = inspect.signature(func).parameters.get("state")
    except (TypeError, ValueError):  # a builtin or other callable without a signature
        return False
    keyword = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return parameter is not None and parameter.kind in keyword


def concat_draws(first: xr.DataTree, more: xr.DataTree) -> xr.DataTree:
    """Return ``first`` followed by ``more`` along ``draw``: the same chains, continued.

    The ``posterior`` and, where both have it, the ``sample_stats`` group are
    joined; draws are numbered ``0 .. n - 1`` again.
    """
    groups = {}
    for group in ("posterior", "sample_stats"):
        if group in first.children and group in more.children:
            joined = xr.concat(
                [first[group].to_dataset(), more[group].to_dataset()],
                dim="draw",
                coords="minimal",
                compat="override",
            )
            groups[group] = joined.assign_coords(draw=np.arange(joined.sizes["draw"]))
    return xr.DataTree.from_dict(groups)


def to_datatree(
    output: Any,
    variables: Sequence[str],
    shapes: Mapping[str, tuple],
    chains: int,
    draws: int,
    name: str,
) -> xr.DataTree:
    """Check a sampler's output against the contract and return it as a DataTree.

    See :func:`check_output` for the parameters and the checks; non-finite
    draws are kept (a wrong sampler's draws get a verdict, not an error). A
    returned DataTree is kept as it is (with its ``sample_stats``), a dict is
    converted with ``arviz_base.from_dict``.
    """
    arrays = check_output(output, variables, shapes, chains, draws, name, finite=False)
    if isinstance(output, xr.DataTree):
        return output
    return azb.from_dict({"posterior": arrays})


def check_output(
    output: Any,
    variables: Sequence[str],
    shapes: Mapping[str, tuple],
    chains: int,
    draws: int,
    name: str,
    *,
    finite: bool = True,
) -> dict[str, np.ndarray]:
    """Check a sampler's output against the contract; return ``{variable: ndarray}``.

    Parameters
    ----------
    output : mapping of str to ndarray, or DataTree
        What the sampler returned.
    variables : sequence of str
        Variables it must contain, and nothing else.
    shapes : mapping of str to tuple
        Event shape of each variable (from the PyMC model).
    chains, draws : int
        Expected leading dimensions.
    name : str
        The sampler's name, for messages.
    finite : bool
        Refuse non-finite draws (Geweke's test and SBC need numbers to rank);
        ``compare`` keeps them and judges them (its support checks).

    Returns
    -------
    dict of str to ndarray
        Each shaped (chains, draws, *event_shape), as float64, in the order of
        ``variables``.

    Raises
    ------
    SamplerError
        On missing or extra variables, wrong shapes, draws that are not real
        numbers (object, string, complex dtypes), or non-finite draws when
        ``finite``.
    """
    if isinstance(output, xr.DataTree):
        if "posterior" not in output.children:
            raise SamplerError(f"sampler {name} returned a DataTree without a posterior group")
        posterior = output.children["posterior"].dataset  # its variables, not its child nodes
        arrays = {v: posterior[v].values for v in variables if v in posterior}
    elif isinstance(output, Mapping):
        arrays = {v: _as_array(output[v], v, name) for v in variables if v in output}
    else:
        raise SamplerError(
            f"sampler {name} must return a dict of arrays or a DataTree, "
            f"got {type(output).__name__}"
        )
    missing = [v for v in variables if v not in arrays]
    if missing:
        raise SamplerError(
            f"sampler {name} did not return variable(s) {missing}; expected {list(variables)}"
        )
    returned = output["posterior"].data_vars if isinstance(output, xr.DataTree) else output
    extra = [str(v) for v in returned if v not in arrays]
    if extra:
        raise SamplerError(
            f"sampler {name} returned variable(s) {extra} that the model does not have; "
            f"expected {list(variables)}"
        )
    for var, values in arrays.items():
        if values.dtype.kind not in "biuf":
            raise SamplerError(
                f"sampler {name} returned {var} of dtype {values.dtype}; draws must be real "
                "numbers (bool, int or float)"
            )
        expected = (chains, draws, *shapes[var])
        if values.shape != expected:
            raise SamplerError(
                f"sampler {name} returned {var} with shape {values.shape}, expected {expected} "
                "(chains, draws, *event_shape)"
            )
        if finite and not np.all(np.isfinite(values)):
            raise SamplerError(f"sampler {name} returned non-finite values in {var}")
    return {v: arrays[v].astype(float) for v in variables}


def _as_array(values: Any, var: str, name: str) -> np.ndarray:
    """Return a sampler's draws of ``var`` as an array, or a one-line SamplerError."""
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as exc:  # ragged lists, odd objects
        raise SamplerError(f"sampler {name} returned {var} that is not an array: {exc}") from None
