"""The kinds of side under test, in one table: what ``--sampler`` names, and what becomes of it.

``compare`` (:func:`mcmc_pairs.comparisons.run.run_pair`) and ``validate``
(:func:`mcmc_pairs.comparisons.validation.validate`) take the same ``--sampler``
spec, and both ask this table what it is: the first kind whose ``parse``
recognises the spec is its kind. ``compare`` makes it a
:class:`~mcmc_pairs.comparisons.sides.DrawSource` (:func:`source_under_test`),
``validate`` a sampler with the contract's signature (:func:`sampler_under_test`).
Each kind's pieces live in its side's module; a new kind is a new entry of
:data:`SIDE_KINDS` (docs/architecture.md, "Adding a side kind").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcmc_pairs.comparisons import numpyro_side, sides, stored
from mcmc_pairs.comparisons.numpyro_side import NumpyroSampler
from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.pymc_runner import PymcTwin
from mcmc_pairs.comparisons.sides import DrawSource, SideUnderTest

SamplerSpec = str | Callable[..., Any]
"""What ``--sampler`` (``sampler=``) gives, an import string, a prefixed spec or a callable, and
what ``validate`` runs: a callable with the contract's signature, or its import string."""


@dataclass(frozen=True)
class SideKind[P]:
    """One kind of side under test: an entry of :data:`SIDE_KINDS`.

    Attributes
    ----------
    name : str
        What the kind is, for readers.
    parse : callable
        ``parse(spec, pair) -> P | None``: the spec as this kind's own record (an
        import failing fast with a ``ValueError`` naming ``--sampler``), or None
        when the spec is not of this kind.
    source : callable
        ``source(parsed, side) -> DrawSource``: the side in a ``compare`` run.
    sampler : callable
        ``sampler(parsed) -> SamplerSpec``: what ``validate`` runs (or a ``ValueError``
        when the kind cannot be validated).
    rerun : bool
        Whether the reproducibility check (:mod:`~.honesty`) calls the sampler again
        with the seed: False where the user's code cannot make the draws
        irreproducible, or nothing is called.
    """

    name: str
    parse: Callable[[SamplerSpec, Pair], P | None]
    source: Callable[[P, SideUnderTest], DrawSource]
    sampler: Callable[[P], SamplerSpec]
    rerun: bool


def itself[P](parsed: P) -> P:
    """Return ``parsed``: a kind whose record is already a sampler with the contract's signature."""
    return parsed


SIDE_KINDS: tuple[SideKind[Any], ...] = (
    SideKind(
        "stored draws: a file, or posteriordb:NAME",
        parse=stored.stored_spec,
        source=stored.stored_under_test,
        sampler=stored.refuse_to_validate,
        rerun=False,
    ),
    SideKind(
        "PyMC on the pair's model: pymc, or a step method pymc-step:FILE.py:NAME",
        parse=PymcTwin.parse,
        source=sides.pymc_under_test,
        sampler=itself,
        rerun=True,
    ),
    SideKind(
        "a NumPyro port of the model: numpyro:FILE.py:MODEL",
        parse=NumpyroSampler.parse,
        source=numpyro_side.numpyro_under_test,
        sampler=itself,
        rerun=False,  # NUTS from PRNGKey(seed) alone; a rerun would compile twice (~20 s)
    ),
    SideKind(
        "a Python sampler: an import string or a callable",
        parse=sides.python_spec,
        source=sides.python_under_test,
        sampler=sides.python_sampler,
        rerun=True,
    ),
)
"""Every kind of side under test, in the order a spec is tried (the last takes any spec)."""


def kind_of(spec: SamplerSpec, pair: Pair) -> tuple[SideKind[Any], Any]:
    """Return the kind of ``spec``, the first of :data:`SIDE_KINDS` to parse it, and its record."""
    return next(
        (kind, parsed) for kind in SIDE_KINDS if (parsed := kind.parse(spec, pair)) is not None
    )


def source_under_test(spec: SamplerSpec, side: SideUnderTest) -> DrawSource:
    """Return the side ``spec`` names in a ``compare`` run, as a :class:`~.sides.DrawSource`."""
    kind, parsed = kind_of(spec, side.pair)
    source = kind.source(parsed, side)
    if not kind.rerun:
        source.rerun = None
    return source


def sampler_under_test(spec: SamplerSpec, pair: Pair) -> SamplerSpec:
    """Return what ``validate`` runs for ``spec`` (a ``ValueError`` for a kind it cannot run)."""
    kind, parsed = kind_of(spec, pair)
    return kind.sampler(parsed)
