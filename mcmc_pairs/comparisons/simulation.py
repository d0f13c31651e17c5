"""What Geweke's test and SBC simulate: a pair's data, prior, data simulator and test quantities.

:func:`simulator_for` reads them from a pair: its own ``validation_data``,
``prior`` and ``simulate`` when it declares them, else simulations from its
model's prior predictive (:class:`mcmc_pairs.comparisons.witness.ModelWitness`).
:func:`test_quantities` turns draws into the test functions both methods judge.
Replication ``i`` of a run draws every random number from child seeds of its
own seed (:func:`child_seed`), so reruns agree bit for bit.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons import agreement, datafile
from mcmc_pairs.comparisons.contract import check_output
from mcmc_pairs.comparisons.loading import resolve
from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.witness import ModelWitness


@dataclass(frozen=True)
class Simulator:
    """What a validation needs from a pair: its data, prior, simulator and quantities."""

    pair: Pair
    data: dict
    prior: Callable[[Mapping, np.random.Generator], dict]
    simulate: Callable[[Mapping, Mapping, np.random.Generator], dict]
    test_params: Callable[[Mapping, Mapping], dict] | None = None
    """Label-invariant replacement of the variables' components (LDA), or ``None``."""
    witness: Any = None
    """The :class:`mcmc_pairs.comparisons.witness.ModelWitness` that simulates, when the model does;
    its ``log_prior`` and ``log_likelihood`` join the test quantities."""


def simulator_for(pair: Pair) -> Simulator:
    """Return the pair's validation data, prior and simulator.

    A pair that declares ``validation_data``, ``prior`` and ``simulate`` uses
    them. Any other pair is simulated from its model's prior predictive
    (:class:`mcmc_pairs.comparisons.witness.ModelWitness`) under its own data, with
    ``validation_data`` (when declared) as the design: every free and every
    observed variable is drawn, and each observed draw goes into the data under
    its own name.

    Raises
    ------
    ValueError
        If the model has no observed variable (a fixed target), has a
        potential or an improper prior, or names an observed variable after no
        data key.
    """

    def load(spec: str | Callable) -> Callable:
        return resolve(spec, argument="pair simulator")

    test_params = None if pair.test_params is None else load(pair.test_params)
    data_spec, prior_spec, simulate_spec = pair.validation_data, pair.prior, pair.simulate
    if data_spec is not None and prior_spec is not None and simulate_spec is not None:
        data_fn, prior, simulate = load(data_spec), load(prior_spec), load(simulate_spec)
        return Simulator(
            pair=pair, data=data_fn(), prior=prior, simulate=simulate, test_params=test_params
        )
    data = load(pair.validation_data)() if pair.validation_data is not None else pair.load_data()
    datafile.refuse_non_finite(data)
    witness = ModelWitness(pair.model, data, argument="model")
    if not witness.observed and not witness.potentials:
        raise ValueError(
            f"pair {pair.name!r} samples a fixed target: there is no data to simulate, so "
            f"Geweke's test and SBC do not apply; its exact-answer checks run with "
            f"`mcmc-pairs compare {pair.name}`"
        )
    witness.check_generative()
    return Simulator(
        pair=pair,
        data=data,
        prior=witness.draw_prior,
        simulate=witness.simulate,
        test_params=test_params,
        witness=witness,
    )


def test_quantities(
    sim: Simulator,
    params: Mapping[str, np.ndarray],
    data: Mapping,
    *,
    squares: bool,
    sums: bool,
    log_likelihood: bool = False,
) -> tuple[np.ndarray, list[str]]:
    """Return the test functions of every draw in ``params``.

    Parameters
    ----------
    sim : Simulator
        Its pair gives the variables and the ``derived`` quantities (``logp``);
        its ``test_params`` (when given) replace the variables' components by
        those of ``test_params(params, data) -> {name: ndarray (chain, draw,
        *shape)}`` (label-invariant quantities for exchangeable labels,
        the pair's ``test_params``; ``derived`` still sees
        ``params``); its ``witness`` (when the model simulates) adds PyMC's
        ``log_prior`` and ``log_likelihood`` of every draw given ``data``.
    params : mapping of str to ndarray
        Parameter draws, each shaped (chain, draw, *event_shape).
    data : mapping
        The data the draws are conditioned on (or were simulated with).
    squares : bool
        Add the square of each component (Geweke's second moments).
    sums : bool
        Add pairwise sums of components (SBC's derived quantities).
    log_likelihood : bool
        Add ``log_likelihood``, the log likelihood of ``data`` at each draw, from
        the pair's ``log_likelihood`` when it declares one (a model that
        simulates adds it anyway, from PyMC).

    Returns
    -------
    values : ndarray, shape (chain, draw, quantity)
        Components, ``a^2`` for each component (if ``squares``), ``a*b`` (and
        ``a+b`` if ``sums``) for each pair of components (up to
        :data:`mcmc_pairs.comparisons.agreement.MAX_COMPONENTS_FOR_PRODUCTS` components),
        then the pair's derived quantities (and ``log_likelihood``).
    names : list of str
        The quantity names, labelled as
        :func:`mcmc_pairs.comparisons.agreement.scalar_components` labels them.
    """
    comp, names = _components(sim, params, data)
    out, labels = _moments(comp, names, squares=squares, sums=sums)
    for qname, da in _derived_quantities(sim, params, data, names, log_likelihood).items():
        out.append(np.asarray(da.transpose("chain", "draw").values, float)[..., None])
        labels.append(qname)
    return np.concatenate(out, axis=-1), labels


def _components(
    sim: Simulator, params: Mapping[str, np.ndarray], data: Mapping
) -> tuple[np.ndarray, list[str]]:
    """Return the scalar components of every draw, (chain, draw, C), and their names.

    The components are those of the pair's variables (each (chain, draw, *shape) in
    ``params``), or of ``sim.test_params(params, data)`` when the simulator has one,
    flattened in C order and labelled ``var[i, j]``.
    """
    test_params = sim.test_params
    blocks, names = [], []
    components = dict(test_params(params, data)) if test_params is not None else params
    for var in components if test_params is not None else sim.pair.variables:
        a = np.asarray(components[var], dtype=float)
        event = a.shape[2:]
        blocks.append(a.reshape(*a.shape[:2], -1))
        if not event:
            names.append(var)
        else:
            names.extend(f"{var}[{', '.join(map(str, i))}]" for i in np.ndindex(*event))
    return np.concatenate(blocks, axis=-1), names


def _moments(
    comp: np.ndarray, names: list[str], *, squares: bool, sums: bool
) -> tuple[list[np.ndarray], list[str]]:
    """Return the components ``comp`` (chain, draw, C), their squares, products and sums.

    A list of blocks, each (chain, draw, k), and their labels: the components,
    ``a^2`` of each (if ``squares``), then ``a*b`` (and ``a+b`` if ``sums``) for
    each pair of components when there are at most
    :data:`mcmc_pairs.comparisons.agreement.MAX_COMPONENTS_FOR_PRODUCTS`.
    """
    out, labels = [comp], list(names)
    if squares:
        out.append(comp**2)
        labels += [f"{n}^2" for n in names]
    if len(names) <= agreement.MAX_COMPONENTS_FOR_PRODUCTS:
        for i, j in itertools.combinations(range(len(names)), 2):
            out.append(comp[..., i : i + 1] * comp[..., j : j + 1])
            labels.append(f"{names[i]}*{names[j]}")
            if sums:
                out.append(comp[..., i : i + 1] + comp[..., j : j + 1])
                labels.append(f"{names[i]}+{names[j]}")
    return out, labels


def _derived_quantities(
    sim: Simulator,
    params: Mapping[str, np.ndarray],
    data: Mapping,
    names: list[str],
    log_likelihood: bool,
) -> dict[str, xr.DataArray]:
    """Return the derived quantities of every draw: ``{name: DataArray (chain, draw)}``.

    The witness's ``log_prior`` and ``log_likelihood`` (when the model
    simulates), then the pair's ``derived`` quantities, then (if
    ``log_likelihood`` and the model does not simulate) the pair's own
    ``log_likelihood`` of ``data``. Empty when there are none.
    """
    pair, witness = sim.pair, sim.witness
    own_loglik = pair.log_likelihood if log_likelihood and witness is None else None
    if pair.derived is None and witness is None and own_loglik is None:
        return {}
    ds = xr.Dataset(
        {
            var: (("chain", "draw", *(f"{var}_dim_{k}" for k in range(np.ndim(v) - 2))), v)
            for var, v in params.items()
        }
    )
    derived = {} if witness is None else dict(witness.log_density(ds, data))
    if pair.derived is not None:
        derived.update(pair.derived(ds, data, dict.fromkeys(names, 0.0)))
    if own_loglik is not None:
        loglik = resolve(own_loglik, argument="pair log_likelihood")(ds, data)
        derived["log_likelihood"] = loglik
    return derived


def one_draw(params: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """One draw ``{name: value}`` shaped (chain=1, draw=1, *event_shape)."""
    return {name: np.asarray(v)[None, None] for name, v in params.items()}


def check_draws(output: object, params: Mapping, name: str, chains: int, draws: int) -> dict:
    """Check a sampler's output against the contract; return ``{variable: ndarray}``.

    Parameters
    ----------
    output : mapping or DataTree
        What the sampler returned.
    params : mapping
        A prior draw: the expected variables and their event shapes.
    name : str
        The sampler, for messages.
    chains, draws : int

    Returns
    -------
    dict of str to ndarray
        Each shaped (chains, draws, *event_shape).

    Raises
    ------
    SamplerError
        Missing variables, wrong shapes, non-finite draws
        (:func:`mcmc_pairs.comparisons.contract.check_output`).
    """
    shapes = {v: np.shape(p) for v, p in params.items()}
    return check_output(output, list(params), shapes, chains, draws, name)


def child_seed(seed: np.random.SeedSequence, k: int) -> np.random.SeedSequence:
    """Child ``k`` of ``seed``, without the side effect of ``seed.spawn`` (reruns agree)."""
    return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, k))
