"""BlackJAX's MALA as it shipped in 1.1.0 and 1.1.1 (January to May 2024).

:func:`build_kernel` is today's ``blackjax.mcmc.mala.build_kernel`` (BlackJAX
1.7.1) with the inner ``transition_energy`` that BlackJAX 1.1.0 and 1.1.1
shipped, ported line for line (``jax.tree_util.tree_map`` and
``tree_reduce`` of 1.1.1 written as today's ``jax.tree.map`` and
``jax.tree.reduce``); the lines are marked ``SHIPPED BUG``. It computes
``-log p(state) - log q(new | state)``, the energy of the transition *from*
``state``, where ``compute_asymmetric_acceptance_ratio`` expects the energy of
the transition *to* ``new_state``: the acceptance ratio comes out as the
reciprocal of the Metropolis-Hastings ratio, ``p(state) q(new | state) /
(p(new) q(state | new))``. blackjax-devs/blackjax#653 reversed it (released
in 1.2.0); ``fixed.py`` is this file with today's ``transition_energy``, and
``diff bug.py fixed.py`` shows the fix.

As a sampler with the contract's signature: the target is ``N(loc, scale^2)``
(``data.json``: the normal of BlackJAX's own ``UnivariateNormalTest``), its log
density written here again from ``data``. MALA runs at the fixed step size
:data:`STEP_SIZE` (no adaptation: BlackJAX's MALA has none, and the test used a
fixed step too). Chain ``c`` has the key ``jax.random.split(PRNGKey(seed),
chains)[c]``, split into a start key (a uniform start in ``loc +- 3 scale``)
and a run key whose ``i``-th transition uses ``fold_in(run_key, i)``; ``tune``
transitions are run and discarded, then ``draws`` kept. The chains are
``vmap``-ed and the transitions ``scan``-ned in blocks of :data:`BLOCK`, one
compilation per process whatever ``draws`` and ``tune`` are.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np
from blackjax.mcmc import diffusions, proposal
from blackjax.mcmc.mala import MALAInfo, MALAState, init

STEP_SIZE = 2.0
"""MALA's step size ``h``: the proposal is ``x + h grad log p(x) + sqrt(2 h) N(0, 1)``."""

BLOCK = 500
"""Transitions per compiled block."""


def build_kernel():
    """Build today's MALA kernel with the ``transition_energy`` of BlackJAX 1.1.0 and 1.1.1."""

    def transition_energy(state, new_state, step_size):
        """Transition energy to go from `state` to `new_state`."""
        theta = jax.tree.map(
            lambda new_x, x, g: new_x - x - step_size * g,  # SHIPPED BUG
            new_state.position,  # SHIPPED BUG
            state.position,  # SHIPPED BUG
            state.logdensity_grad,  # SHIPPED BUG
        )
        theta_dot = jax.tree.reduce(operator.add, jax.tree.map(lambda x: jnp.sum(x * x), theta))
        return -state.logdensity + 0.25 * (1.0 / step_size) * theta_dot  # SHIPPED BUG

    compute_acceptance_ratio = proposal.compute_asymmetric_acceptance_ratio(transition_energy)
    sample_proposal = proposal.static_binomial_sampling

    def kernel(
        rng_key, state: MALAState, logdensity_fn: Callable, step_size: float
    ) -> tuple[MALAState, MALAInfo]:
        """Generate a new sample with the MALA kernel."""
        grad_fn = jax.value_and_grad(logdensity_fn)
        integrator = diffusions.overdamped_langevin(grad_fn)

        key_integrator, key_rmh = jax.random.split(rng_key)

        new_state = integrator(key_integrator, state, step_size)
        new_state = MALAState(*new_state)

        log_p_accept = compute_acceptance_ratio(state, new_state, step_size=step_size)
        accepted_state, info = sample_proposal(key_rmh, log_p_accept, state, new_state)
        do_accept, p_accept, _ = info

        info = MALAInfo(p_accept, do_accept)

        return accepted_state, info

    return kernel


KERNEL = build_kernel()


@jax.jit
def _advance(states, run_keys, start, loc, scale):
    """Run every chain ``BLOCK`` transitions on from ``states``; positions (chains, BLOCK)."""

    def logdensity(x):
        return jax.scipy.stats.norm.logpdf(x, loc, scale)

    def one_chain(state, run_key):
        def step(s, i):
            s, info = KERNEL(jax.random.fold_in(run_key, i), s, logdensity, STEP_SIZE)
            return s, (s.position, info.acceptance_rate)

        return jax.lax.scan(step, state, start + jnp.arange(BLOCK))

    return jax.vmap(one_chain)(states, run_keys)


def run_chains(
    data: Mapping, draws: int, tune: int, chains: int, random_seed: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Run ``chains`` MALA chains; see the module's docstring.

    Returns
    -------
    tuple of ndarray
        The kept positions and their acceptance probabilities, each (chains, draws).
    """
    jax.config.update("jax_enable_x64", True)
    loc, scale = float(data["loc"]), float(data["scale"])
    keys = jax.random.split(jax.random.PRNGKey(0 if random_seed is None else random_seed), chains)
    start_keys, run_keys = jax.vmap(jax.random.split, out_axes=1)(keys)
    x0 = loc + 3.0 * scale * jax.vmap(lambda k: jax.random.uniform(k, minval=-1.0, maxval=1.0))(
        start_keys
    )
    states = jax.vmap(lambda x: init(x, lambda y: jax.scipy.stats.norm.logpdf(y, loc, scale)))(x0)
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
    """Sample ``N(loc, scale^2)`` with the MALA of BlackJAX 1.1.0 and 1.1.1.

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
        ``x``, shape (chains, draws).
    """
    positions, _ = run_chains(data, draws, tune, chains, random_seed)
    return {"x": positions}
