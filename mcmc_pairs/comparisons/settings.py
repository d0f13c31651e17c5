"""The settings of one comparison: one frozen record, its defaults and bounds in one place.

:class:`Settings` is what :func:`mcmc_pairs.comparisons.run.run_pair` runs with,
what :func:`mcmc_pairs.comparisons.testing.compare` accepts as keywords and what
``mcmc-pairs compare`` takes as flags: the CLI's flags are generated from
:data:`FIELDS` (:func:`add_flags`), and a test checks the keywords of ``run_pair``
and ``compare`` against them, so a new setting is added here once.

A record is checked once, when it is made (:meth:`Settings.resolve`); it is
also a read-only mapping (``settings["draws"]``), whose items are the JSON
report's ``settings`` object, in :data:`FIELDS` order.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from mcmc_pairs.pairdata.checks import check_integer, check_positive

BUDGET_FACTOR = 16
"""By default an undecided run may grow to this many times its first look's draws."""
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
    Field("seed", int, 0, 20261122, "random seed shared by both sides"),
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


@dataclass(frozen=True)
class Settings(Mapping):
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
        return Settings.resolve(**{**dict(self), **changes})

    def __getitem__(self, name: str) -> Any:
        if name not in NAMES:
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(NAMES)

    def __len__(self) -> int:
        return len(NAMES)


def add_flags(parser: argparse.ArgumentParser) -> None:
    """Add one flag per setting of :data:`FIELDS` to ``parser`` (all optional, default None)."""
    for f in FIELDS:
        parser.add_argument(f.flag, type=f.kind, metavar=f.metavar, help=f.help)


def from_args(args: argparse.Namespace) -> dict[str, Any]:
    """Return the settings given on the command line (``None`` for those not given)."""
    return {name: getattr(args, name, None) for name in NAMES}


assert [f.name for f in fields(Settings)] == list(NAMES), "Settings and FIELDS disagree"
