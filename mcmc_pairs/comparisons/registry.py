"""The registered pairs: an explicit list, in the order reports show them."""

from __future__ import annotations

from mcmc_pairs.comparisons.pair import Pair
from mcmc_pairs.comparisons.pairs import (
    bayes_net,
    bivariate_normal,
    lda,
    mh_beta,
    mh_normal,
    regression,
)

PAIRS: tuple[Pair, ...] = (
    bivariate_normal.PAIR,
    regression.PAIR,
    mh_normal.PAIR,
    mh_beta.PAIR,
    bayes_net.PAIR,
    lda.PAIR,
)


def get_pair(name: str) -> Pair:
    """Return the registered pair called ``name``.

    Raises
    ------
    ValueError
        If no pair has that name; the message lists the known ones.
    """
    for pair in PAIRS:
        if pair.name == name:
            return pair
    known = ", ".join(p.name for p in PAIRS)
    raise ValueError(f"unknown pair {name!r}; known pairs: {known}")
