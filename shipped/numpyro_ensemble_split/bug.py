"""NumPyro's ``AIES`` ensemble sampler as it shipped in NumPyro 0.14.0 to 0.21.0.

:class:`AIESBefore2189` is today's :class:`numpyro.infer.AIES` with
``EnsembleSampler.sample`` replaced by the one NumPyro shipped from 0.14.0
(2024) to 0.21.0 (May 2026), copied verbatim from 0.21.0's
``numpyro/infer/ensemble.py``: one line differs from today's, marked
``SHIPPED BUG``. In the second of the two sub-iterations the second half of
the walkers is updated against *itself* (``inactive = x[split_ind:]``) instead
of the first half, so a walker's differential-evolution move (AIES's default)
can use a difference that involves its own position, and the proposal is no
longer symmetric. pyro-ppl/numpyro#2189 fixed it (``x[:split_ind]``);
``fixed.py`` is this file with today's ``AIES``, and ``diff bug.py fixed.py``
shows the fix.

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
from numpyro.infer.ensemble import EnsembleSamplerState
from numpyro.infer.ensemble_util import batch_ravel_pytree

WALKERS = 16
"""Walkers per ensemble: what NumPyro's own test gives ``AIES`` on this model."""


class AIESBefore2189(AIES):
    """``AIES`` with the ``EnsembleSampler.sample`` of NumPyro 0.14.0 to 0.21.0."""

    def sample(self, state, model_args, model_kwargs):
        """One iteration: each half of the walkers updated in turn (pre-fix lines)."""
        z, inner_state, rng_key = state
        rng_key, _ = jax.random.split(rng_key)
        z_flat, unravel_fn = batch_ravel_pytree(z)

        if self._randomize_split:
            z_flat = jax.random.permutation(rng_key, z_flat, axis=0)

        split_ind = self._num_chains // 2

        def body_fn(i, z_flat_inner_state):
            z_flat, inner_state = z_flat_inner_state

            active, inactive = jax.lax.cond(
                i == 0,
                lambda x: (x[:split_ind], x[split_ind:]),
                lambda x: (x[split_ind:], x[split_ind:]),  # SHIPPED BUG: x[:split_ind]
                z_flat,
            )

            z_updates, inner_state = self.update_active_chains(active, inactive, inner_state)

            z_flat = jax.lax.cond(
                i == 0,
                lambda x: x.at[:split_ind].set(z_updates),
                lambda x: x.at[split_ind:].set(z_updates),
                z_flat,
            )
            return (z_flat, inner_state)

        z_flat, inner_state = jax.lax.fori_loop(0, 2, body_fn, (z_flat, inner_state))

        return EnsembleSamplerState(unravel_fn(z_flat), inner_state, rng_key)


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
    """Sample the logistic regression with the ``AIES`` of NumPyro 0.14.0 to 0.21.0.

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
    return run_ensemble(AIESBefore2189, data, draws, tune, chains, random_seed)
