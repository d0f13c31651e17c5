"""Samplers that break the contract or crash: bad input, answered with exit 2.

Unlike the catalogue of wrong samplers (:mod:`mcmc_pairs.handrolled.wrong_samplers`), whose
draws are wrong but well formed, these return the wrong names or shapes, or
raise. They keep the contract's signature, so they can be passed as
``--sampler tests/malformed_samplers.py:<name>``.
"""

import numpy as np


def bivariate_wrong_name(data, *, draws, tune, chains, random_seed):
    """Returns the draws under the name ``y`` instead of ``x``."""
    return {"y": np.zeros((chains, draws, 2))}


def bivariate_wrong_shape(data, *, draws, tune, chains, random_seed):
    """Returns draw-major arrays, (draws, chains, 2), the classic transposition slip."""
    return {"x": np.zeros((draws, chains, 2))}


def bivariate_raises(data, *, draws, tune, chains, random_seed):
    """Fails midway, as a buggy user sampler does."""
    raise RuntimeError("step size became negative")


def regression_raises_midway(data, *, draws, tune, chains, random_seed):
    """Correct blocked Gibbs that fails on some data sets, as a buggy sampler does midway."""
    from mcmc_pairs.handrolled import regression as reg

    if random_seed is not None and random_seed % 16 == 3:
        raise FloatingPointError("sigma2 underflowed to zero")
    return reg.sample_blocked(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)


def bivariate_exits(data, *, draws, tune, chains, random_seed):
    """Ends the process as a script would: ``sys.exit(0)`` must not read as "agree"."""
    import sys

    sys.exit(0)


def bivariate_object_dtype(data, *, draws, tune, chains, random_seed):
    """Returns an object array (Python floats in boxes), as a list-of-lists slip does."""
    return {"x": np.zeros((chains, draws, 2)).astype(object)}


def bivariate_complex(data, *, draws, tune, chains, random_seed):
    """Returns complex draws (a square root of a negative variance gone unnoticed)."""
    return {"x": np.zeros((chains, draws, 2)) + 0j}


def bivariate_strings(data, *, draws, tune, chains, random_seed):
    """Returns the draws as strings, as a sampler that read them from a text file does."""
    return {"x": np.full((chains, draws, 2), "5.0")}


def bivariate_hangs(data, *, draws, tune, chains, random_seed):
    """Never returns, as a sampler stuck in a loop that cannot end does."""
    import time

    while True:
        time.sleep(0.05)
