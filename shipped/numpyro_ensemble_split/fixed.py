"""NumPyro's ``AIES`` ensemble sampler as fixed by pyro-ppl/numpyro#2189 (May 2026).

Today's :class:`numpyro.infer.AIES` (NumPyro 0.22.0 here), whose
``EnsembleSampler.sample`` updates the second half of the walkers against the
first half. ``bug.py`` is this file with the ``sample`` that shipped in NumPyro
0.14.0 to 0.21.0; ``diff bug.py fixed.py`` shows the fix.

As a sampler with the contract's signature (``--sampler`` takes a NumPyro
*model* only for NUTS, so a kernel under test comes as a plain function):
each of the ``chains`` chains is its own ensemble of :data:`WALKERS` walkers
(NumPyro's ``num_chains``, ``chain_method="vectorized"``, as the docs require),
started by NumPyro's ``init_to_uniform`` and run for ``tune`` discarded
iterations and then ``ceil(draws / WALKERS)`` kept ones; the chain's ``draws``
are the walkers' kept iterations one walker after the other (walker-major, so
that the autocorrelation the effective sample size sees is one walker's), cut
to ``draws``. Each ensemble's key is ``jax.random.split(PRNGKey(seed),
chains)[c]``: the same seed gives the same draws.
"""

from __future__ import annotations

from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import AIES, MCMC

WALKERS = 16
"""Walkers per ensemble: what NumPyro's own test gives ``AIES`` on this model."""


def model(data: Mapping) -> None:
    """Logistic regression in NumPyro: ``coefs ~ N(0, 1)``, ``y ~ Bernoulli(logit = X coefs)``."""
    x = jnp.asarray(data["X"])
    coefs = numpyro.sample("coefs", dist.Normal(jnp.zeros(x.shape[1]), jnp.ones(x.shape[1])))
    numpyro.sample("y", dist.Bernoulli(logits=jnp.sum(coefs * x, axis=-1)), obs=data["y"])


def run_ensemble(
    kernel: type, data: Mapping, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Run ``chains`` independent ensembles of ``kernel``; see the module's docstring.

    Returns
    -------
    dict
        ``coefs``, shape (chains, draws, 3).
    """
    jax.config.update("jax_enable_x64", True)
    arrays = {"X": np.asarray(data["X"], dtype=float), "y": np.asarray(data["y"], dtype=int)}
    iterations = -(-draws // WALKERS)
    mcmc = MCMC(
        kernel(model),
        num_warmup=tune,
        num_samples=iterations,
        num_chains=WALKERS,
        chain_method="vectorized",
        progress_bar=False,
    )
    keys = jax.random.split(jax.random.PRNGKey(0 if random_seed is None else random_seed), chains)
    out = np.empty((chains, draws, arrays["X"].shape[1]))
    for c in range(chains):
        mcmc.run(keys[c], arrays)
        walkers = np.asarray(mcmc.get_samples(group_by_chain=True)["coefs"])  # (W, it, 3)
        out[c] = walkers.reshape(WALKERS * iterations, -1)[:draws]
    return {"coefs": out}


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the logistic regression with today's (fixed) ``AIES``.

    Parameters
    ----------
    data : mapping
        ``X`` (N, 3) and ``y`` (N,).
    draws, tune, chains : int
        Kept draws per chain, discarded ensemble iterations, independent ensembles.
    random_seed : int or None
        Seed of ``jax.random.PRNGKey``.

    Returns
    -------
    dict
        ``coefs``, shape (chains, draws, 3).
    """
    return run_ensemble(AIES, data, draws, tune, chains, random_seed)
