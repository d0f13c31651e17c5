"""The registries: the built-in pairs, the zoo's models and the examples, in one shape.

Each is a :class:`Registry`: named records in the order reports show them, and
one lookup, :meth:`Registry.get`. The pairs (:data:`PAIRS`) are
:class:`~mcmc_pairs.comparisons.pair.Pair` s, listed here. The zoo's models
(``zoo/__init__.py``, ``zoo.MODELS``) and the examples
(``tests/examples/end_to_end.py``, ``EXAMPLES``) are :class:`ModelFolder` s: a
folder with ``model.py``, a data file and ``sampler.py`` (a correct sampler and
``sample_planted_bug``), brought to the harness as a user brings a model. Those
folders are in the checkout only, not in the wheel, so they register themselves
with the types of this module; the package never imports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, overload

from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.pairs import (
    bayes_net,
    bivariate_normal,
    lda,
    mh_beta,
    mh_normal,
    regression,
)


class Named(Protocol):
    """A record a :class:`Registry` holds: it has a ``name``."""

    @property
    def name(self) -> str:
        """The record's name, unique in its registry."""
        ...


class Registry[R: Named](Sequence[R]):
    """Named records in order, with one lookup by name.

    Parameters
    ----------
    what : str
        What a record is, for messages: ``"pair"``, ``"zoo model"``, ``"example"``.
    *records
        The records, in the order reports show them; their names are unique.
    """

    def __init__(self, what: str, *records: R) -> None:
        self.what = what
        self._records = tuple(records)
        names = [record.name for record in self._records]
        if len(set(names)) != len(names):
            raise ValueError(f"the {what}s' names are not unique: {names}")

    @overload
    def __getitem__(self, index: int) -> R: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[R]: ...

    def __getitem__(self, index: int | slice) -> R | Sequence[R]:
        return self._records[index]

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {list(self.names)})"

    @property
    def names(self) -> tuple[str, ...]:
        """The records' names, in order."""
        return tuple(record.name for record in self._records)

    def get(self, name: str) -> R:
        """Return the record called ``name``.

        Raises
        ------
        ValueError
            If no record has that name; the message lists the known ones.
        """
        for record in self._records:
            if record.name == name:
                return record
        raise ValueError(
            f"unknown {self.what} {name!r}; known {self.what}s: {', '.join(self.names)}"
        )


@dataclass(frozen=True)
class ModelFolder:
    """A model brought as a user brings one: a folder of files (a zoo model, an example).

    Attributes
    ----------
    name : str
        The report's name (the folder's, unless two records share a folder).
    folder : Path
        The folder: ``model.py`` (``build_model(data) -> pm.Model``), the data
        file and ``sampler.py``.
    data_file : str
        The data file's name in the folder (``.json``, ``.csv`` or ``.npz``).
    shape : str
        The model shape it adds to the suite (one line).
    bug : str
        What ``sample_planted_bug`` gets wrong, and by how many posterior sds.
    sbc : bool
        Whether simulation-based calibration applies (a proper prior to simulate from).
    correct : str
        The correct sampler's function in ``sampler.py`` (default ``sample``).
    verdict : str
        What ``compare`` of the correct sampler says at the defaults and seed 1:
        ``agree``, or ``not converged`` for a sampler built to mix too slowly to
        reach the ESS gate within the default draws (never ``disagree``).
    """

    name: str
    folder: Path
    data_file: str
    shape: str
    bug: str
    sbc: bool = True
    correct: str = "sample"
    verdict: str = "agree"

    @property
    def model(self) -> str:
        """``--model`` spec: ``<folder>/model.py:build_model``."""
        return f"{self.folder / 'model.py'}:build_model"

    @property
    def data(self) -> Path:
        """``--data``: the data file's path."""
        return self.folder / self.data_file

    def sampler(self, planted_bug: bool = False) -> str:
        """``--sampler`` spec of the correct sampler, or of its planted bug."""
        function = "sample_planted_bug" if planted_bug else self.correct
        return f"{self.folder / 'sampler.py'}:{function}"


PAIRS: Registry[Pair] = Registry(
    "pair",
    bivariate_normal.PAIR,
    regression.PAIR,
    mh_normal.PAIR,
    mh_beta.PAIR,
    bayes_net.PAIR,
    lda.PAIR,
)
"""The registered pairs, in the order reports show them."""


def get_pair(name: str) -> Pair:
    """Return the registered pair called ``name`` (:meth:`Registry.get` of :data:`PAIRS`).

    Raises
    ------
    ValueError
        If no pair has that name; the message lists the known ones.
    """
    return PAIRS.get(name)
