"""Deliberately wrong samplers: each must be caught by the checks that are meant to catch it.

They keep the contract's signature, so they can be passed as ``--sampler
tests/wrong_samplers.py:<name>``.
"""

import numpy as np

from handrolled.bivariate_normal import validate_data


def bivariate_gibbs_without_shrinkage(data, *, draws, tune, chains, random_seed):
    """Gibbs whose conditional sds forget the factor sqrt(1 - rho**2): too wide."""
    d = validate_data(data)
    (m1, m2), (s1, s2), rho = d["mu"], d["sigma"], d["rho"]
    x = np.empty((chains, draws, 2))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        x2 = m2 + 3 * s2 * rng.standard_normal()
        for t in range(tune + draws):
            x1 = m1 + rho * s1 / s2 * (x2 - m2) + s1 * rng.standard_normal()
            x2 = m2 + rho * s2 / s1 * (x1 - m1) + s2 * rng.standard_normal()
            if t >= tune:
                x[c, t - tune] = x1, x2
    return {"x": x}


def bivariate_independent_marginals(data, *, draws, tune, chains, random_seed):
    """Exact marginals, no dependence: every univariate check passes, products fail."""
    d = validate_data(data)
    x = np.empty((chains, draws, 2))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        x[c] = d["mu"] + d["sigma"] * rng.standard_normal((draws, 2))
    return {"x": x}


def bivariate_wrong_name(data, *, draws, tune, chains, random_seed):
    """Returns the draws under the name ``y`` instead of ``x``."""
    return {"y": np.zeros((chains, draws, 2))}


def bivariate_wrong_shape(data, *, draws, tune, chains, random_seed):
    """Returns draw-major arrays, (draws, chains, 2), the classic transposition slip."""
    return {"x": np.zeros((draws, chains, 2))}


def bivariate_raises(data, *, draws, tune, chains, random_seed):
    """Fails midway, as a buggy user sampler does."""
    raise RuntimeError("step size became negative")
