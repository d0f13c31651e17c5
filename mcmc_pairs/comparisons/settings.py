"""The settings of a run: frozen records, their defaults and bounds in one place.

:class:`Settings` is what :func:`mcmc_pairs.comparisons.run.run_pair` runs with,
what :func:`mcmc_pairs.comparisons.testing.compare` builds from its keywords and
``mcmc-pairs compare`` from its flags: the CLI's flags are generated from
:data:`FIELDS` (:func:`add_flags`), and a test checks the keywords of ``compare``
against them, so a new setting is added here once.

A record is checked once, when it is made (:meth:`Settings.resolve`), and read
by attribute (``settings.draws``); :meth:`Settings.as_json` is the JSON report's
``settings`` object, in :data:`FIELDS` order.

:class:`ValidationSettings` are the settings of ``validate`` (Geweke's test,
:class:`GewekeSettings`; SBC, :class:`SbcSettings`), with the same default seed
(:data:`SEED`) and growth budget (:data:`BUDGET_FACTOR`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal, Protocol

from mcmc_pairs.pairdata.checks import check_integer, check_positive

BUDGET_FACTOR = 16
"""By default an undecided run may grow to this many times its first look's draws (SBC: a
refused replication may be rerun with up to this many times its draws)."""
SEED = 20261122
"""The default seed of ``compare`` and ``validate``."""
TOLERANCE = 0.2
"""Default ``delta`` of ``agree``: differences within +-0.2 posterior sd
(:func:`mcmc_pairs.comparisons.agreement.tolerances`)."""


@dataclass(frozen=True)
class Field:
    """One setting: its name, type, smallest value, default and the CLI's help text.

    ``low`` is the smallest accepted integer for an ``int`` setting (``None``:
    a rule of its own in :meth:`Settings.resolve`); a ``float`` setting must be
    a finite number > 0. ``default`` ``None`` means "no limit", except for
    ``max_draws``, whose default depends on ``draws``.
    """

    name: str
    kind: type
    low: int | None
    default: Any
    help: str
    metavar: str | None = None

    @property
    def flag(self) -> str:
        """The CLI flag: ``--max-draws`` for ``max_draws``."""
        return "--" + self.name.replace("_", "-")


FIELDS: tuple[Field, ...] = (
    Field("draws", int, 1, 1000, "kept draws per chain"),
    Field("tune", int, 0, 1000, "discarded tuning draws per chain"),
    Field("chains", int, 1, 4, "number of chains (>= 2)"),
    Field("seed", int, 0, SEED, "random seed shared by both sides"),
    Field(
        "tolerance",
        float,
        None,
        TOLERANCE,
        "the resolution 'agree' certifies, in posterior sds "
        "(default 0.2; twice that for the 5%% and 95%% quantiles)",
        "DELTA",
    ),
    Field(
        "max_draws",
        int,
        None,
        None,
        f"draws per chain an undecided run may grow to (default {BUDGET_FACTOR} x --draws; "
        "equal to --draws for one look)",
        "N",
    ),
    Field(
        "max_seconds",
        float,
        None,
        None,
        "start no new look that would end after S seconds (default: no limit)",
        "S",
    ),
    Field(
        "timeout",
        float,
        None,
        None,
        "stop the hand-written sampler when one call takes longer than S seconds "
        "(exit 2; default: no limit)",
        "S",
    ),
)
"""Every setting of a comparison, in the order of the JSON report's ``settings``."""
NAMES = tuple(f.name for f in FIELDS)
SAMPLING = ("draws", "tune", "chains", "seed")
"""The settings a pair may give defaults for (``Pair.settings``); both sides get them."""


class Sampling(Protocol):
    """What a sampler's run reads of a record of settings (:class:`Settings` has them)."""

    @property
    def draws(self) -> int:
        """Kept draws per chain."""
        ...

    @property
    def tune(self) -> int:
        """Discarded tuning draws per chain."""
        ...

    @property
    def chains(self) -> int:
        """Number of chains."""
        ...

    @property
    def seed(self) -> int:
        """The run's random seed."""
        ...


@dataclass(frozen=True)
class SamplerRun:
    """The settings of one sampler run (a :class:`Sampling`): draws, tune, chains, seed."""

    draws: int
    tune: int
    chains: int
    seed: int


@dataclass(frozen=True)
class Settings:
    """The checked settings of one comparison (:data:`FIELDS` documents each).

    Attributes
    ----------
    draws, tune, chains, seed : int
        Per chain; both sides run with the same ones.
    tolerance : float
        The ``delta`` that ``agree`` certifies, in posterior sds.
    max_draws : int
        Draws per chain an undecided run may grow to (``draws``: one look).
    max_seconds, timeout : float or None
        No new look after this many seconds; a hand-written sampler's call is
        stopped after this many (``None``: no limit).
    """

    draws: int
    tune: int
    chains: int
    seed: int
    tolerance: float
    max_draws: int
    max_seconds: float | None
    timeout: float | None

    @classmethod
    def resolve(cls, defaults: Mapping[str, Any] | None = None, **overrides: Any) -> Settings:
        """Return checked settings: :data:`FIELDS`' defaults, then ``defaults``, then ``overrides``.

        Parameters
        ----------
        defaults : mapping, optional
            A pair's (or a model module's) defaults for ``draws``, ``tune``,
            ``chains`` and ``seed``.
        **overrides
            Any setting; ``None`` keeps the default.

        Raises
        ------
        ValueError
            Naming the setting and its bad value; also an unknown name.
        """
        given = {**dict(defaults or {}), **{k: v for k, v in overrides.items() if v is not None}}
        unknown = sorted(set(given) - set(NAMES))
        if unknown:
            raise ValueError(f"unknown setting {unknown[0]!r}; settings are {', '.join(NAMES)}")
        values = {f.name: given.get(f.name, f.default) for f in FIELDS}
        for f in FIELDS:
            if f.kind is int and f.low is not None:
                values[f.name] = check_integer(f.name, values[f.name], f.low)
        if values["chains"] < 2:
            raise ValueError(
                f"chains must be >= 2 so that R-hat can be computed, got {values['chains']}"
            )
        if values["max_draws"] is None:
            values["max_draws"] = BUDGET_FACTOR * values["draws"]
        values["max_draws"] = check_integer("max_draws", values["max_draws"], values["draws"])
        check_positive("tolerance", values["tolerance"], "number (posterior sds)")
        for name in ("max_seconds", "timeout"):
            if values[name] is not None:  # checked, and kept as given (the JSON writes it so)
                check_positive(name, values[name])
        return cls(**values)

    def replace(self, **changes: Any) -> Settings:
        """Return these settings with ``changes``, checked again."""
        return Settings.resolve(**{**self.as_json(), **changes})

    def as_json(self) -> dict[str, int | float | None]:
        """Return the JSON report's ``settings`` object: every setting, in :data:`FIELDS` order."""
        return {name: getattr(self, name) for name in NAMES}


def add_flags(parser: argparse.ArgumentParser) -> None:
    """Add one flag per setting of :data:`FIELDS` to ``parser`` (all optional, default None)."""
    for f in FIELDS:
        parser.add_argument(f.flag, type=f.kind, metavar=f.metavar, help=f.help)


def from_args(args: argparse.Namespace, defaults: Mapping[str, Any] | None = None) -> Settings:
    """Return the checked settings of the command line, over ``defaults`` (a pair's).

    A flag not given (``None``, or absent from ``args``) keeps the default
    (:meth:`Settings.resolve`).
    """
    return Settings.resolve(defaults, **{name: getattr(args, name, None) for name in NAMES})


Method = Literal["geweke", "sbc"]
"""A method of ``validate``: Geweke's joint-distribution test or SBC."""
METHODS: tuple[Method, ...] = ("geweke", "sbc")
LOWEST = {"replications": 2, "steps": 2, "draws": 1, "tune": 0, "chains": 1, "seed": 0}
"""The smallest value of each setting of ``validate`` (``max_draws``: ``draws``)."""


@dataclass(frozen=True)
class ValidationSettings:
    """The checked settings of one ``validate`` run, made by :meth:`resolve`.

    A :class:`GewekeSettings` or an :class:`SbcSettings`; both have these.

    Attributes
    ----------
    replications : int
        Replications of the method (each with its own child seed of ``seed``).
    tune : int
        Tuning draws of each sampler call.
    seed : int
        The run's seed.
    """

    method: ClassVar[Method]
    DEFAULTS: ClassVar[Mapping[str, int | None]]
    """The method's settings, their defaults, in the order of the JSON's ``settings``."""

    replications: int
    tune: int
    seed: int

    @staticmethod
    def resolve(method: str, **overrides: object) -> GewekeSettings | SbcSettings:
        """Return the checked settings of ``method``: its ``DEFAULTS``, then ``overrides``.

        ``None`` keeps the default; SBC's ``max_draws`` defaults to
        :data:`BUDGET_FACTOR` times ``draws``.

        Raises
        ------
        ValueError
            An unknown method, a setting the method does not have, or a value
            below its :data:`LOWEST` (``max_draws`` below ``draws``).
        """
        records: dict[str, type[GewekeSettings] | type[SbcSettings]]
        records = {"geweke": GewekeSettings, "sbc": SbcSettings}
        if method not in records:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
        record = records[method]
        values: dict[str, object] = dict(record.DEFAULTS)
        for key, value in overrides.items():
            if value is None:
                continue
            if key not in values:
                raise ValueError(f"{key} is not a setting of {method}; settings: {sorted(values)}")
            values[key] = value
        out = {
            key: check_integer(key, value, LOWEST[key])
            for key, value in values.items()
            if key != "max_draws"
        }
        if "max_draws" in values:
            max_draws = values["max_draws"]
            if max_draws is None:
                max_draws = BUDGET_FACTOR * out["draws"]
            out["max_draws"] = check_integer("max_draws", max_draws, out["draws"])
        return record(**out)

    def as_json(self) -> dict[str, int]:
        """Return the settings as the JSON report writes them, in ``DEFAULTS`` order."""
        return {name: getattr(self, name) for name in self.DEFAULTS}


@dataclass(frozen=True)
class GewekeSettings(ValidationSettings):
    """Geweke's test: ``replications`` chains of ``steps`` successive-conditional steps.

    Attributes
    ----------
    steps : int
        The length of each successive-conditional chain; each step calls the
        sampler with ``tune`` transitions (when it takes no ``initial``).
    """

    method: ClassVar[Method] = "geweke"
    DEFAULTS: ClassVar[Mapping[str, int | None]] = {
        "replications": 20,
        "steps": 250,
        "tune": 20,
        "seed": SEED,
    }

    steps: int


@dataclass(frozen=True)
class SbcSettings(ValidationSettings):
    """SBC: ``replications`` sampler runs of ``chains`` chains, each on its own simulated data.

    Attributes
    ----------
    draws, chains : int
        Kept draws per chain and chains of each run.
    max_draws : int
        Draws per chain a replication refused for too few effective draws may
        be rerun with (doubling); default :data:`BUDGET_FACTOR` times ``draws``.
    """

    method: ClassVar[Method] = "sbc"
    DEFAULTS: ClassVar[Mapping[str, int | None]] = {
        "replications": 200,
        "draws": 1000,
        "tune": 200,
        "chains": 1,
        "seed": SEED,
        "max_draws": None,
    }

    draws: int
    chains: int
    max_draws: int


assert [f.name for f in fields(Settings)] == list(NAMES), "Settings and FIELDS disagree"
