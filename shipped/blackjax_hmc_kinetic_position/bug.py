"""BlackJAX's HMC as it shipped in 0.1 and 0.2 (May to June 2021).

Today's HMC kernel (``blackjax.mcmc.hmc.build_kernel``, BlackJAX 1.7.1) with
its proposal, ``blackjax.mcmc.hmc.hmc_proposal``, written out here with the
total energy of BlackJAX 0.1 and 0.2 (``blackjax/inference/proposal.py``,
``proposal_generator``): ``state.potential_energy + kinetic_energy(
state.position, state.momentum)``, ported line for line (today's state carries
``logdensity``, the negative potential) and marked ``SHIPPED BUG``. The kinetic
energy's first argument is the momentum (``kinetic_energy(momentum, *_)`` then,
``kinetic_energy(momentum, position=None)`` today), so the energy was
``-log p(q) + K(q)``, the kinetic energy of the *position*, at both ends of the
trajectory, and the Metropolis test compared the wrong Hamiltonian.
blackjax-devs/blackjax#47 passed the momentum (released in 0.2.1); ``fixed.py``
is this file with today's energy, and ``diff bug.py fixed.py`` shows the fix.

As a sampler with the contract's signature: the target is the standard normal
of blackjax-devs/blackjax#46 (``data.json``: ``loc``, ``scale``; position of
shape (1,)), its log density written here again from ``data``, sampled with the
issue's settings: :data:`STEP_SIZE`, :data:`INVERSE_MASS_MATRIX` and
:data:`NUM_INTEGRATION_STEPS`, fixed (no adaptation, as in the issue). Chain
``c`` has the key ``jax.random.split(PRNGKey(seed), chains)[c]``, split into a
start key (a uniform start in ``loc +- 2 scale``) and a run key whose ``i``-th
transition uses ``fold_in(run_key, i)``; ``tune`` transitions are run and
discarded, then ``draws`` kept. The chains are ``vmap``-ed and the transitions
``scan``-ned in blocks of :data:`BLOCK`, one compilation per process whatever
``draws`` and ``tune`` are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np
from blackjax.mcmc import hmc, trajectory
from blackjax.mcmc.proposal import safe_energy_diff, static_binomial_sampling

STEP_SIZE = 1e-2
"""The issue's step size."""

INVERSE_MASS_MATRIX = np.array([0.1])
"""The issue's inverse mass matrix, ``0.1 * jnp.ones_like(initial_position)``."""

NUM_INTEGRATION_STEPS = 100
"""The issue's number of leapfrog steps per transition."""

BLOCK = 500
"""Transitions per compiled block."""


def hmc_energy(kinetic_energy):
    """Total energy ``-log p(q) + K(q)`` of BlackJAX 0.1 and 0.2 (``proposal_generator``)."""

    def energy(state):
        return -state.logdensity + kinetic_energy(state.position, state.momentum)  # SHIPPED BUG

    return energy


def hmc_proposal(
    integrator: Callable,
    kinetic_energy: Callable,
    step_size: float,
    num_integration_steps: int = 1,
    divergence_threshold: float = 1000,
    *,
    sample_proposal: Callable = static_binomial_sampling,
) -> Callable:
    """Today's ``blackjax.mcmc.hmc.hmc_proposal``, with the energy of :func:`hmc_energy`."""
    build_trajectory = trajectory.static_integration(integrator)
    hmc_energy_fn = hmc_energy(kinetic_energy)

    def generate(rng_key, state):
        """Generate a new chain state."""
        end_state = build_trajectory(state, step_size, num_integration_steps)
        end_state = hmc.flip_momentum(end_state)
        proposal_energy = hmc_energy_fn(state)
        new_energy = hmc_energy_fn(end_state)
        delta_energy = safe_energy_diff(proposal_energy, new_energy)
        is_diverging = -delta_energy > divergence_threshold
        sampled_state, info = sample_proposal(rng_key, delta_energy, state, end_state)
        do_accept, p_accept, other_proposal_info = info

        info = hmc.HMCInfo(
            state.momentum,
            p_accept,
            do_accept,
            is_diverging,
            new_energy,
            end_state,
            num_integration_steps,
        )

        return sampled_state, info, other_proposal_info

    return generate


KERNEL = hmc.build_kernel(build_proposal=hmc_proposal)


@jax.jit
def _advance(states, run_keys, start, loc, scale):
    """Run every chain ``BLOCK`` transitions on from ``states``; positions (chains, BLOCK, 1)."""

    def logdensity(x):
        return jax.scipy.stats.norm.logpdf(x, loc, scale).squeeze()

    def one_chain(state, run_key):
        def step(s, i):
            s, info = KERNEL(
                jax.random.fold_in(run_key, i),
                s,
                logdensity,
                STEP_SIZE,
                jnp.asarray(INVERSE_MASS_MATRIX),
                NUM_INTEGRATION_STEPS,
            )
            return s, (s.position, info.acceptance_rate)

        return jax.lax.scan(step, state, start + jnp.arange(BLOCK))

    return jax.vmap(one_chain)(states, run_keys)


def run_chains(
    data: Mapping, draws: int, tune: int, chains: int, random_seed: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Run ``chains`` HMC chains; see the module's docstring.

    Returns
    -------
    tuple of ndarray
        The kept positions, (chains, draws, 1), and their acceptance
        probabilities, (chains, draws).
    """
    jax.config.update("jax_enable_x64", True)
    loc, scale = float(data["loc"]), float(data["scale"])
    keys = jax.random.split(jax.random.PRNGKey(0 if random_seed is None else random_seed), chains)
    start_keys, run_keys = jax.vmap(jax.random.split, out_axes=1)(keys)
    x0 = loc + 2.0 * scale * jax.vmap(
        lambda k: jax.random.uniform(k, (1,), minval=-1.0, maxval=1.0)
    )(start_keys)
    states = jax.vmap(
        lambda x: hmc.init(x, lambda y: jax.scipy.stats.norm.logpdf(y, loc, scale).squeeze())
    )(x0)
    positions, rates = [], []
    for start in range(0, tune + draws, BLOCK):
        states, (x, a) = _advance(states, run_keys, start, loc, scale)
        positions.append(np.asarray(x))
        rates.append(np.asarray(a))
    positions = np.concatenate(positions, axis=1)[:, tune : tune + draws]
    rates = np.concatenate(rates, axis=1)[:, tune : tune + draws]
    return positions, rates


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the standard normal with the HMC of BlackJAX 0.1 and 0.2.

    Parameters
    ----------
    data : mapping
        ``loc`` and ``scale`` of the normal.
    draws, tune, chains : int
        Kept draws per chain, discarded transitions before them, chains.
    random_seed : int or None
        Seed of ``jax.random.PRNGKey``.

    Returns
    -------
    dict
        ``x``, shape (chains, draws, 1).
    """
    positions, _ = run_chains(data, draws, tune, chains, random_seed)
    return {"x": positions}
