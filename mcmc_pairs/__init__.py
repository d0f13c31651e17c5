"""mcmc-pairs: check a hand-written MCMC sampler against a PyMC model, statistically.

One import name for everything the distribution installs, in four subpackages
(the repository's top-level folders of the same names link to them):

* :mod:`mcmc_pairs.models`: the seed documents' examples as PyMC models;
* :mod:`mcmc_pairs.handrolled`: the same examples as hand-written samplers;
* :mod:`mcmc_pairs.pairdata`: their data, shared by both sides and nothing else;
* :mod:`mcmc_pairs.comparisons`: the harness (registry, runs, checks, reports, CLI).

The public API, in the manner of :mod:`numpy.testing`::

    from mcmc_pairs import assert_agree, compare

    def test_my_gibbs_sampler():
        assert_agree(build_model, my_gibbs, data, draws=1000, seed=1)

(:func:`compare` and :func:`assert_agree` are
:mod:`mcmc_pairs.comparisons.testing`'s, imported on first use so that
``import mcmc_pairs`` stays cheap.) ``python -m mcmc_pairs`` is the
``mcmc-pairs`` command.
"""

from __future__ import annotations

from importlib import metadata
from typing import TYPE_CHECKING

try:
    __version__ = metadata.version("mcmc-pairs")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

if TYPE_CHECKING:  # for type checkers and editors; imported on first use at run time
    from mcmc_pairs.comparisons.testing import assert_agree, compare

__all__ = ["__version__", "assert_agree", "compare"]


def __getattr__(name: str) -> object:
    if name in ("compare", "assert_agree"):
        from mcmc_pairs.comparisons import testing

        return getattr(testing, name)
    raise AttributeError(f"module 'mcmc_pairs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "compare", "assert_agree"])
