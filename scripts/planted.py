"""Planted shifts for ``make power``: a correct sampler whose draws are moved by a known amount.

:func:`planted` wraps a pair's first registered hand-rolled sampler (any sampler
with the contract's signature) and transforms the draws it returns:

* ``mean``: the first scalar component moved by ``s`` posterior sd;
* ``sd``: the first component's deviations from its mean scaled by ``1 + s``;
* ``corr``: the correlation of the first two components changed by ``s``, the
  second component mixed with the first, ``v' = a v + b u`` on the standardised
  draws, so that its mean and sd are kept (for jointly normal draws, its marginal).

Draws stay in the support (each pair's ``Pair.planted`` says how): ``mh_beta`` moves
its mean down with a reflection at 0 and scales its sd by ``1 - s`` (a wider
spread would leave (0, 1)); ``bayes_net`` flips a random fraction of node
``B``'s draws for the mean and copies ``B`` into ``C`` in a random fraction of
draws for the dependence (its sd is fixed by its mean); ``lda`` moves mass from
``theta[0, 1]`` to ``theta[0, 0]`` for the mean and shrinks ``theta[0, 0]``'s
deviations by ``1 - s``, giving the difference to ``theta[0, 1]``, for the sd
(the simplex is kept either way), after relabelling every chain's topics to
chain 0's (:func:`align_chains`); no plant changes a correlation of simplex
components while keeping both marginals and the simplex, so LDA's is n/a.
Posterior mean and sd come from the pair's exact reference where it has the
component, else from the wrapped sampler's own draws; correlations from the draws.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import xarray as xr

from mcmc_pairs.comparisons.contract import resumable
from mcmc_pairs.comparisons.loading import resolve
from mcmc_pairs.comparisons.pair import PlantedShifts
from mcmc_pairs.comparisons.registry import get_pair

KINDS = ("mean", "sd", "corr")


def plan_of(pair: str) -> PlantedShifts:
    """Return where and how shifts are planted in ``pair``'s draws (its ``Pair.planted``).

    Raises
    ------
    ValueError
        When the pair declares no plan.
    """
    plan = get_pair(pair).planted
    if plan is None:
        raise ValueError(f"pair {pair!r} declares no planted shifts (Pair.planted)")
    return plan


def align_chains(draws: dict, pair: str) -> dict:
    """Relabel every chain's topics to chain 0's (``draws`` changed in place and returned).

    The harness aligns each chain to PyMC's first chain before any statistic; a
    shift planted on raw labels would land on different aligned topics in
    different chains (and show as chains that disagree, not as a shift).
    """
    names = [n for n in ("phi", "theta") if n in draws]
    posterior = xr.Dataset({n: (("chain", "draw", f"{n}_a", f"{n}_b"), draws[n]) for n in names})
    target = posterior[["phi"]].isel(chain=0).mean("draw")
    aligned = get_pair(pair).align(posterior, target)
    for n in names:
        draws[n] = aligned[n].values
    return draws


def label(component: tuple[str, tuple[int, ...]]) -> str:
    """Name a scalar component as the harness does: ``x[0]``, ``beta0``, ``theta[0, 1]``."""
    name, index = component
    return name if not index else f"{name}[{', '.join(map(str, index))}]"


def method(pair: str, kind: str) -> str | None:
    """Return the method that plants ``kind`` in ``pair`` (``None``: not applicable)."""
    return getattr(plan_of(pair), kind)


def _posterior(out) -> dict[str, np.ndarray]:
    """Copy a sampler's output into a dict of (chain, draw, *shape) arrays, copied (dtypes kept)."""
    if not isinstance(out, xr.DataTree):
        return {k: np.array(v) for k, v in out.items()}
    posterior = out["posterior"]
    return {k: np.array(posterior[k].values) for k in posterior.data_vars}


def _component(draws: dict, component) -> np.ndarray:
    name, index = component
    return draws[name][(Ellipsis, *index)] if index else draws[name]


def _set(draws: dict, component, values: np.ndarray) -> None:
    name, index = component
    if index:
        draws[name][(Ellipsis, *index)] = values
    else:
        draws[name] = values


def mix_coefficients(rho: float, target: float) -> tuple[float, float]:
    """Return ``(a, b)``: ``a v + b u`` has unit variance and correlation ``target`` with ``u``.

    ``u`` and ``v`` standardised with correlation ``rho``: ``a^2 (1 - rho^2) = 1 - target^2``
    and ``b = target - a rho``.
    """
    a = np.sqrt((1.0 - target**2) / (1.0 - rho**2))
    return float(a), float(target - a * rho)


def corr_target(rho: float, s: float) -> float:
    """Return the correlation ``s`` away from ``rho``, towards zero (and across it if need be)."""
    return rho - s if rho > 0 else rho + s


def _copy_fraction(b: np.ndarray, c: np.ndarray, s: float) -> float:
    """Fraction f of draws in which copying ``b`` into ``c`` raises corr(b, c) by ``s``."""
    mb, mc, ebc = b.mean(), c.mean(), (b * c).mean()

    def corr(f: float) -> float:
        m = (1 - f) * mc + f * mb
        cov = (1 - f) * ebc + f * mb - mb * m
        return cov / np.sqrt(mb * (1 - mb) * m * (1 - m))

    target = corr(0.0) + s
    if corr(1.0) <= target:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if corr(mid) < target else (low, mid)
    return (low + high) / 2


def plant(
    draws: dict,
    pair: str,
    kind: str,
    s: float,
    rng: np.random.Generator,
    moments: Mapping[str, tuple[float | None, float | None]] | None = None,
) -> dict:
    """Plant a shift of ``kind`` and size ``s`` in ``draws`` (changed in place and returned).

    ``moments`` maps a component's label to its exact (mean, sd) where known.
    """
    plan = plan_of(pair)
    how = getattr(plan, kind)
    if how is None:
        raise ValueError(f"no {kind} shift is planted in {pair}")
    if plan.aligned and draws[plan.first[0]].shape[1] > 1:
        align_chains(draws, pair)
    u = _component(draws, plan.first)
    exact_mean, exact_sd = (moments or {}).get(label(plan.first), (None, None))
    mean = float(u.mean()) if exact_mean is None else exact_mean
    sd = float(u.std()) if exact_sd is None else exact_sd
    if u.size < 2:  # the harness's probe call (one draw): shapes only
        return draws
    if how == "add":
        new = u + s * sd
    elif how == "reflect0":
        new = np.abs(u - s * sd)
    elif how == "flip":
        if mean > 0.5:  # ones to zeros: the mean moves down by f * mean
            hit = (u == 1) & (rng.random(u.shape) < s * sd / mean)
        else:
            hit = (u == 0) & (rng.random(u.shape) < s * sd / (1 - mean))
        new = np.where(hit, 1 - u, u)
    elif how == "simplex":
        v = _component(draws, plan.second)
        moved = min(1.0, s * sd / float(v.mean())) * v  # mean of theta[0, 0] up by s sd
        _set(draws, plan.second, v - moved)
        new = u + moved
    elif how == "simplex_shrink":
        v = _component(draws, plan.second)
        new = np.clip(mean + (1 - s) * (u - mean), 0.0, u + v)
        _set(draws, plan.second, u + v - new)
    elif how == "scale":
        new = mean + (1 + s) * (u - mean)
    elif how == "shrink":
        new = mean + (1 - s) * (u - mean)
    elif how == "mix":
        v = _component(draws, plan.second)
        mu, su, mv, sv = u.mean(), u.std(), v.mean(), v.std()
        if su == 0 or sv == 0:  # one draw (the harness's probe call): nothing to mix
            return draws
        zu, zv = (u - mu) / su, (v - mv) / sv
        rho = float(np.mean(zu * zv))
        a, b = mix_coefficients(rho, corr_target(rho, s))
        _set(draws, plan.second, mv + sv * (a * zv + b * zu))
        return draws
    elif how == "copy":
        v = _component(draws, plan.second)
        hit = rng.random(v.shape) < _copy_fraction(u, v, s)
        _set(draws, plan.second, np.where(hit, u, v))
        return draws
    else:  # pragma: no cover
        raise ValueError(how)
    _set(draws, plan.first, new)
    return draws


def planted(
    sampler: str | Callable,
    pair: str,
    kind: str,
    s: float,
    moments: Mapping[str, tuple[float | None, float | None]] | None = None,
    resume: bool = False,
) -> Callable:
    """Return a sampler (the contract's signature): ``sampler``'s draws, a shift planted.

    With ``resume``, a ``sampler`` that accepts ``state`` is continued across the
    harness's looks and each new chunk of draws gets the shift (its own moments
    where they come from the draws); else it is rerun from the start at each look.
    """
    inner = resolve(sampler, argument="sampler") if isinstance(sampler, str) else sampler

    calls: dict[int, int] = {}

    def sample(data, *, draws, tune, chains, random_seed, state=None):
        extra = {} if state is None else {"state": state}
        out = inner(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed, **extra)
        call = calls[id(state)] = calls.get(id(state), -1) + 1  # a continued run's next chunk
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 14, call])
        return plant(_posterior(out), pair, kind, s, rng, moments)

    if not (resume and resumable(inner)):  # the harness reruns it from the start at each look
        del calls

        def sample(data, *, draws, tune, chains, random_seed):  # noqa: F811
            out = inner(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)
            rng = np.random.default_rng([0 if random_seed is None else random_seed, 14])
            return plant(_posterior(out), pair, kind, s, rng, moments)

    sample.__qualname__ = f"planted_{kind}_{s:g}"
    return sample


def exact_moments(pair) -> dict[str, tuple[float | None, float | None]]:
    """Return the pair's exact (mean, sd) per component label, where it has a reference."""
    if pair.reference is None:
        return {}
    return {k: (m.mean, m.sd) for k, m in pair.reference(pair.load_data()).items()}
