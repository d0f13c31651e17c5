"""What every hand-written sampler does the same way: one random stream per chain."""

from __future__ import annotations

import numpy as np


def chain_rngs(random_seed: int | None, chains: int) -> list[np.random.Generator]:
    """Return one independent Generator per chain, spawned from ``random_seed``."""
    return np.random.default_rng(random_seed).spawn(chains)
