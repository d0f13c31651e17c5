"""The catalogue of deliberately wrong samplers: each is a bug the harness must catch.

Every one keeps the contract's signature and plants one mistake that a
hand-written sampler really makes (a dropped Hastings term, a rate passed as a
scale, the current token left in its counts, ...). Each pair names its own in
its ``wrong`` field (``comparisons/pairs/<name>.py``); the tests, ``make
power`` and the notebooks run them from there, and any of them can be passed
as ``--sampler mcmc_pairs.handrolled.wrong_samplers:<name>``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from mcmc_pairs.handrolled import mh as mh_
from mcmc_pairs.handrolled import mh_beta as mb_
from mcmc_pairs.handrolled import mh_normal as mn_
from mcmc_pairs.handrolled.bivariate_normal import validate_data
from mcmc_pairs.handrolled.regression import (
    beta1_given_rest,
    precision_given_rest,
    sample_beta0_given_rest,
)

if TYPE_CHECKING:
    import xarray as xr


def bivariate_gibbs_without_shrinkage(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
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


def bivariate_independent_marginals(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Exact marginals, no dependence: every univariate check passes, products fail."""
    d = validate_data(data)
    x = np.empty((chains, draws, 2))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        x[c] = d["mu"] + d["sigma"] * rng.standard_normal((draws, 2))
    return {"x": x}


def regression_blocked_rate_as_scale(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Blocked regression Gibbs that passes the Gamma *rate* where NumPy wants a scale."""
    from mcmc_pairs.handrolled import regression as reg

    d = reg.validate_data(data)
    stats = reg.sufficient_statistics(d["height"], d["weight"])
    out = np.empty((chains, draws, 3))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        _, _, sigma2 = reg.initial_point(stats, rng)
        for t in range(tune + draws):
            z0, z1 = rng.standard_normal(), rng.standard_normal()
            beta0, beta1 = reg.sample_beta_given_sigma2(sigma2, stats, d["m0"], d["m1"], z0, z1)
            shape, rate = reg.precision_given_rest(beta0, beta1, stats, d["epsilon"])
            sigma2 = 1.0 / rng.gamma(shape, rate)  # the bug: should be scale=1 / rate
            if t >= tune:
                out[c, t - tune] = beta0, beta1, sigma2
    return {"beta0": out[..., 0], "beta1": out[..., 1], "sigma2": out[..., 2]}


def bayes_net_gibbs_ignoring_children(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Gibbs on the network that conditions each node on its parents only, not its blanket."""
    from mcmc_pairs.handrolled import bayes_net as bnet

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


@njit(mh_.LOGDENSITY_SIGNATURE)
def flat_logdensity(x: float, params: np.ndarray) -> float:
    """WRONG as a proposal density: log q(x) = 0, as if q(x) / q(x') were 1."""
    return 0.0


FLAT = mh_.Target(flat_logdensity, np.zeros(0))
"""A proposal density that drops the Hastings correction of an independence sampler."""


def mh_normal_independence_without_hastings(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> xr.DataTree:
    """WRONG: the independence sampler of seed 001 section 6.3 with q(x) / q(x') dropped.

    It accepts with min(1, pi(x') / pi(x)), as if the proposal were symmetric, so
    its draws follow pi * q (here N(10, 4.47)), not pi.
    """
    d = mn_.validate_data(data)
    return mh_.sample_independence(
        mn_.target(d),
        FLAT,  # no Hastings correction
        lambda rng: mn_.draw_start(rng, d),
        lambda rng, n: mn_.draw_proposals(rng, n, d),
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
    )


def mh_beta_independence_without_hastings(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> xr.DataTree:
    """WRONG: the independence sampler with the correction q(x) / q(x') dropped.

    Its draws follow pi * q = Beta(2.31, 0.254), not Beta(2.31, 0.627).
    """
    d = mb_.validate_data(data)
    return mh_.sample_independence(
        mb_.target(d),
        FLAT,  # no Hastings correction
        lambda rng: mb_.draw_start(rng, d),
        lambda rng, n: mb_.draw_proposals(rng, n, d),
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
    )


@njit(mh_.LOGDENSITY_SIGNATURE)
def beta_logdensity_clipped(x: float, params: np.ndarray) -> float:
    """WRONG: clips x into (0, 1) 'to avoid log(0)', so it never says -inf.

    A proposal past 1 gets the (huge) density just below 1 and is accepted.
    """
    x = min(max(x, 1e-12), 1.0 - 1e-12)
    return (params[0] - 1.0) * math.log(x) + (params[1] - 1.0) * math.log1p(-x) + params[2]


def mh_beta_random_walk_accepting_out_of_support(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> xr.DataTree:
    """WRONG: the random walk on :func:`beta_logdensity_clipped`, with no support declared."""
    d = mb_.validate_data(data)
    return mh_.sample_random_walk(
        mh_.Target(beta_logdensity_clipped, mb_.target(d).params),  # the bug: support (-inf, inf)
        lambda rng: mb_.draw_start(rng, d),
        d["proposal_sd"],
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        adapt=True,
    )


# ------------------------------------------------- wrong samplers for validation
# (Geweke's test and SBC, comparisons/validation.py; measured by scripts/power.py)


def regression_blocked_sse_not_halved(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """WRONG conditional variance: ``1 / sigma2 ~ Gamma(eps + N/2, rate = eps + SSE)``.

    The rate forgets the 1/2 in front of the sum of squared residuals, so the noise
    variance is drawn about twice as large as it should be.
    """
    from mcmc_pairs.handrolled import regression as reg

    d = reg.validate_data(data)
    stats = reg.sufficient_statistics(d["height"], d["weight"])
    out = np.empty((chains, draws, 3))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        _, _, sigma2 = reg.initial_point(stats, rng)
        for t in range(tune + draws):
            z0, z1 = rng.standard_normal(), rng.standard_normal()
            beta0, beta1 = reg.sample_beta_given_sigma2(sigma2, stats, d["m0"], d["m1"], z0, z1)
            shape, rate = reg.precision_given_rest(beta0, beta1, stats, d["epsilon"])
            rate = d["epsilon"] + 2.0 * (rate - d["epsilon"])  # the bug: SSE, not SSE / 2
            sigma2 = 1.0 / rng.gamma(shape, 1.0 / rate)
            if t >= tune:
                out[c, t - tune] = beta0, beta1, sigma2
    return {"beta0": out[..., 0], "beta1": out[..., 1], "sigma2": out[..., 2]}


@njit
def _gibbs_variance_as_sd(
    stats: np.ndarray,
    m0: float,
    m1: float,
    epsilon: float,
    state: np.ndarray,
    normals: np.ndarray,
    gammas: np.ndarray,
    thin: int,
    out: np.ndarray,
) -> None:
    """One-at-a-time regression Gibbs whose beta1 draw is scaled by the variance, not the sd."""
    beta0, beta1, sigma2 = state[0], state[1], state[2]
    for t in range(normals.shape[0]):
        beta0 = sample_beta0_given_rest(beta1, sigma2, stats, m0, normals[t, 0])
        mean, sd = beta1_given_rest(beta0, sigma2, stats, m1)
        beta1 = mean + sd * sd * normals[t, 1]  # the bug: variance used as the scale
        _, rate = precision_given_rest(beta0, beta1, stats, epsilon)
        sigma2 = 1.0 / (gammas[t] / rate)
        if (t + 1) % thin == 0:
            k = t // thin
            out[k, 0], out[k, 1], out[k, 2] = beta0, beta1, sigma2
    state[0], state[1], state[2] = beta0, beta1, sigma2


def regression_gibbs_variance_as_sd(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """WRONG conditional variance: ``beta1`` drawn with the variance as its sd.

    The seed's one-at-a-time Gibbs sampler (thinned as
    :func:`mcmc_pairs.handrolled.regression.sample`) draws ``beta1 = mean + var * z`` instead of
    ``mean + sd * z``, the ``np.random.normal(mean, var)`` slip.
    """
    from mcmc_pairs.handrolled import regression as reg

    d = reg.validate_data(data)
    stats = reg.sufficient_statistics(d["height"], d["weight"])
    thin = reg.default_thin(d)
    shape = d["epsilon"] + 0.5 * stats[0]
    out = np.empty((chains, tune + draws, 3))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        state = np.array(reg.initial_point(stats, rng), dtype=float)
        sweeps = (tune + draws) * thin
        normals = rng.standard_normal((sweeps, 2))
        gammas = rng.standard_gamma(shape, sweeps)
        _gibbs_variance_as_sd(stats, d["m0"], d["m1"], d["epsilon"], state, normals, gammas,
                              thin, out[c])  # fmt: skip
    out = out[:, tune:]
    return {"beta0": out[..., 0], "beta1": out[..., 1], "sigma2": out[..., 2]}


def bayes_net_right_marginals_wrong_dependence(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """WRONG dependence: the nodes drawn independently, each from its exact marginal.

    Every unobserved node is drawn from its posterior marginal P(node | evidence).
    Each node's draws are exactly right; the joint is not: every pair of B, C and D
    is dependent given A and E (covariances 0.0555, 0.1031 and 0.0278; C and D
    through their common parent B), and these draws make all three 0.
    """
    from mcmc_pairs.handrolled import bayes_net as bnet

    d = bnet.validate_data(data)
    marginals = bnet.exact_posterior(d["cpts"], d["evidence"])
    out = {node: np.empty((chains, draws), dtype=np.int64) for node in marginals}
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        for node, p in marginals.items():
            out[node][c] = rng.random(draws) < p
    return out


def bayes_net_gibbs_without_evidence_on_children(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """WRONG: Gibbs on Markov blankets that resamples an observed child.

    It reads the children's *unobserved* values, forgetting that an observed child
    (E) is clamped: E is resampled from P(E | C) inside the state, so C is
    conditioned on a random E instead of the evidence.
    """
    from mcmc_pairs.handrolled import bayes_net as bnet

    d = bnet.validate_data(data)
    cpts, evidence = d["cpts"], d["evidence"]
    nodes = bnet.free_nodes(evidence)
    rngs = np.random.default_rng(random_seed).spawn(chains)
    state = bnet.initial_states(cpts, evidence, rngs)
    out = {node: np.empty((chains, draws), dtype=np.int64) for node in nodes}
    scan = [*nodes, *(n for n in bnet.NODES if n in evidence and bnet.PARENTS[n])]
    for it in range(tune + draws):
        u = np.stack([rng.random(len(scan)) for rng in rngs])
        bnet.gibbs_sweep(state, cpts, scan, u)  # the bug: observed children are resampled
        if it >= tune:
            for node in nodes:
                out[node][:, it - tune] = state[:, bnet.INDEX[node]]
    return out


@njit  # no cache: this file is also loaded under another name by --sampler
def resample_token_keeping_it(
    i: int,
    m: int,
    words: np.ndarray,
    z: np.ndarray,
    n_mk: np.ndarray,
    n_kv: np.ndarray,
    n_k: np.ndarray,
    alpha: float,
    beta: float,
    u: float,
    p: np.ndarray,
) -> int:
    """Resample token ``i`` as LDA's ``resample_token``, first step skipped: ``i`` stays counted.

    Same arguments and return value as the correct one (``p``, shape (K,), is
    work space).
    """
    K, V = n_kv.shape
    v, k = words[i], z[i]
    total = 0.0
    for j in range(K):  # the bug: n_mk, n_kv, n_k still count token i
        total += (n_mk[m, j] + alpha) * (n_kv[j, v] + beta) / (n_k[j] + V * beta)
        p[j] = total
    new = 0
    while new < K - 1 and p[new] <= u * total:
        new += 1
    n_mk[m, k] -= 1
    n_kv[k, v] -= 1
    n_k[k] -= 1
    z[i] = new
    n_mk[m, new] += 1
    n_kv[new, v] += 1
    n_k[new] += 1
    return new


@njit
def _lda_sweep_keeping_the_token(
    words: np.ndarray,
    offsets: np.ndarray,
    z: np.ndarray,
    n_mk: np.ndarray,
    n_kv: np.ndarray,
    n_k: np.ndarray,
    alpha: float,
    beta: float,
    u: np.ndarray,
) -> None:
    """Run the seed's sweep over every token with :func:`resample_token_keeping_it`."""
    p = np.empty(n_k.shape[0])
    for m in range(offsets.shape[0] - 1):
        for i in range(offsets[m], offsets[m + 1]):
            resample_token_keeping_it(i, m, words, z, n_mk, n_kv, n_k, alpha, beta, u[i], p)


def lda_gibbs_keeping_the_current_token(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Collapsed Gibbs that forgets to remove the current token before resampling it."""
    from mcmc_pairs.handrolled import lda

    d = lda.validate_data(data)
    D, K, V, N = d["D"], d["K"], d["V"], d["N"]
    theta = np.empty((chains, draws, D, K))
    phi = np.empty((chains, draws, K, V))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        z = rng.integers(0, K, size=N).astype(np.int32)
        n_mk = np.zeros((D, K), dtype=np.int32)
        n_kv = np.zeros((K, V), dtype=np.int32)
        n_k = np.zeros(K, dtype=np.int32)
        lda.initial_counts(d["words"], d["offsets"], z, n_mk, n_kv, n_k)
        for t in range(tune + draws):
            _lda_sweep_keeping_the_token(
                d["words"], d["offsets"], z, n_mk, n_kv, n_k, d["alpha"], d["beta"], rng.random(N)
            )
            if t >= tune:
                phi[c, t - tune] = lda.sample_phi_given_z(n_kv, d["beta"], rng)
                theta[c, t - tune] = lda.sample_theta_given_z(n_mk, d["alpha"], rng)
    return {"theta": theta, "phi": phi}
