"""Deliberately wrong samplers: each must be caught by the checks that are meant to catch it.

They keep the contract's signature, so they can be passed as ``--sampler
tests/wrong_samplers.py:<name>``.
"""

import math

import numpy as np
from numba import njit

from handrolled import mh as mh_
from handrolled import mh_beta as mb_
from handrolled import mh_normal as mn_
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


def regression_blocked_rate_as_scale(data, *, draws, tune, chains, random_seed):
    """Blocked regression Gibbs that passes the Gamma *rate* where NumPy wants a scale."""
    from handrolled import regression as reg

    d = reg.validate_data(data)
    stats = reg.sufficient_statistics(d["height"], d["weight"])
    out = np.empty((chains, draws, 3))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        _, _, sigma2 = reg.initial_point(stats, rng)
        for t in range(tune + draws):
            beta0, beta1 = reg.sample_beta_given_sigma2(sigma2, stats, d["m0"], d["m1"], rng)
            shape, rate = reg.precision_conditional(beta0, beta1, stats, d["epsilon"])
            sigma2 = 1.0 / rng.gamma(shape, rate)  # the bug: should be scale=1 / rate
            if t >= tune:
                out[c, t - tune] = beta0, beta1, sigma2
    return {"beta0": out[..., 0], "beta1": out[..., 1], "sigma2": out[..., 2]}


def bayes_net_gibbs_ignoring_children(data, *, draws, tune, chains, random_seed):
    """Gibbs on the network that conditions each node on its parents only, not its blanket."""
    from handrolled import bayes_net as bnet

    d = bnet.validate_data(data)
    cpts, evidence = d["cpts"], d["evidence"]
    free = bnet.free_nodes(evidence)
    out = {node: np.empty((chains, draws), dtype=np.int64) for node in free}
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        state = {node: int(rng.integers(2)) for node in free} | dict(evidence)
        for t in range(tune + draws):
            for node in free:
                parents = tuple(state[p] for p in bnet.PARENTS[node])
                state[node] = int(rng.random() < cpts[node][parents])
            if t >= tune:
                for node in free:
                    out[node][c, t - tune] = state[node]
    return out


def mh_normal_independence_without_hastings(data, *, draws, tune, chains, random_seed):
    """WRONG: the independence sampler of seed 001 section 6.3 with q(x) / q(x') dropped.

    It accepts with min(1, pi(x') / pi(x)), as if the proposal were symmetric, so
    its draws follow pi * q (here N(10, 4.47)), not pi.
    """
    d = mn_.validate_data(data)
    return mh_.sample_independence(
        lambda x: mn_.logdensity(x, d),
        lambda rng: mn_.draw_start(rng, d),
        lambda rng, n: mn_.draw_proposals(rng, n, d),
        lambda x: np.zeros_like(np.asarray(x, dtype=float)),  # no Hastings correction
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
    )


def mh_beta_independence_without_hastings(data, *, draws, tune, chains, random_seed):
    """WRONG: the independence sampler with the correction q(x) / q(x') dropped.

    Its draws follow pi * q = Beta(2.31, 0.254), not Beta(2.31, 0.627).
    """
    d = mb_.validate_data(data)
    return mh_.sample_independence(
        lambda x: mb_.logdensity(x, d),
        lambda rng: mb_.draw_start(rng, d),
        lambda rng, n: mb_.draw_proposals(rng, n, d),
        lambda x: np.zeros_like(np.asarray(x, dtype=float)),  # no Hastings correction
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
    )


@njit(mh_.LOGDENSITY_SIGNATURE)
def beta_logdensity_clipped(x, params):
    """WRONG: clips x into (0, 1) 'to avoid log(0)', so it never says -inf.

    A proposal past 1 gets the (huge) density just below 1 and is accepted.
    """
    x = min(max(x, 1e-12), 1.0 - 1e-12)
    return (params[0] - 1.0) * math.log(x) + (params[1] - 1.0) * math.log1p(-x) + params[2]


def mh_beta_random_walk_accepting_out_of_support(data, *, draws, tune, chains, random_seed):
    """WRONG: the random walk with :func:`beta_logdensity_clipped` as its target."""
    d = mb_.validate_data(data)
    return mh_.sample_random_walk(
        beta_logdensity_clipped,
        mb_.kernel_params(d),
        lambda rng: mb_.draw_start(rng, d),
        d["proposal_sd"],
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        adapt=True,
    )
