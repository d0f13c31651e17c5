"""emcee's Metropolis acceptance as fixed for dfm/emcee#198 (commit ``fa32b13``, October 2016).

:class:`GaussianMoveAfter198` is today's :class:`emcee.moves.GaussianMove`
(an ensemble of independent Gaussian random-walk Metropolis chains, one per
walker) with ``propose`` replaced by today's ``MHMove.propose`` in which the
accept step is the line of ``fa32b13``, "fixing #198", in ``MHSampler.sample``:
``if diff >= 0.0 or diff >= np.log(rand())``, walker by walker. Today's
``MHMove.propose`` (``np.log(rand) < lnpdiff`` for all walkers at once)
accepts with the same probability. ``bug.py`` is this file with the accept
step that ``MHSampler`` shipped in emcee 1.0.0 to 2.2.1; ``diff bug.py
fixed.py`` shows the fix.

As a sampler with the contract's signature: each of the ``chains`` chains is
its own ensemble of :data:`WALKERS` walkers, each walker one Metropolis chain
with the issue's proposal ``N(x, 1)`` (``MHSampler(eye(1), ...)``) on the
issue's log density, stated again below. The walkers start uniform on
``(-0.5, 0.5)`` (dispersed around the issue's start, 0), run ``tune``
discarded iterations and then ``ceil(draws / WALKERS)`` kept ones; the chain's
``draws`` are the walkers' kept iterations one walker after the other
(walker-major), cut to ``draws``. Chain ``c`` draws its start from
``np.random.default_rng(seed).spawn(chains)[c]`` and seeds emcee's
``RandomState`` from the same stream: the same seed gives the same draws.
"""

from __future__ import annotations

from collections.abc import Mapping

import emcee
import numpy as np
from emcee.moves import GaussianMove
from emcee.state import State

WALKERS = 32
"""Walkers per ensemble (emcee's ``_test_normal`` default); each is one Metropolis chain."""


class GaussianMoveAfter198(GaussianMove):
    """``GaussianMove`` whose accept step is ``MHSampler``'s after ``fa32b13``."""

    def propose(self, model, state):
        """Propose for every walker and accept walker by walker; return ``(state, accepted)``."""
        nwalkers, ndim = state.coords.shape
        if self.ndim is not None and self.ndim != ndim:
            raise ValueError("Dimension mismatch in proposal")
        q, factors = self.get_proposal(state.coords, model.random)
        new_log_probs, new_blobs = model.compute_log_prob_fn(q)
        lnpdiff = new_log_probs - state.log_prob + factors
        accepted = np.zeros(nwalkers, dtype=bool)
        for k in range(nwalkers):
            diff = lnpdiff[k]

            # M-H acceptance ratio
            if diff >= 0.0 or diff >= np.log(model.random.rand()):
                accepted[k] = True
        new_state = State(q, log_prob=new_log_probs, blobs=new_blobs)
        state = self.update(state, new_state, accepted)
        return state, accepted


MOVE = GaussianMoveAfter198


def log_prob(x: np.ndarray, lower: float, upper: float) -> float:
    """Return the issue's log density: 0 on ``(lower, upper)``, ``-inf`` outside."""
    return 0.0 if lower < x[0] < upper else -np.inf


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample ``Uniform(-1, 1)`` with independent Metropolis walkers; see the module's docstring.

    Parameters
    ----------
    data : mapping
        ``lower``, ``upper``: the bounds (-1 and 1, the issue's).
    draws, tune, chains : int
        Kept draws per chain, discarded iterations, independent ensembles.
    random_seed : int or None
        Seed of ``np.random.default_rng``.

    Returns
    -------
    dict
        ``x``, shape (chains, draws).
    """
    bounds = (float(data["lower"]), float(data["upper"]))
    iterations = -(-draws // WALKERS)
    out = np.empty((chains, draws))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        start = rng.uniform(-0.5, 0.5, size=(WALKERS, 1))  # the middle half of (-1, 1)
        sampler = emcee.EnsembleSampler(WALKERS, 1, log_prob, moves=MOVE(1.0), args=bounds)
        sampler._random = np.random.RandomState(rng.integers(2**32))
        sampler.run_mcmc(start, tune + iterations)
        kept = sampler.get_chain(discard=tune)[..., 0]  # (iterations, WALKERS)
        out[c] = kept.T.reshape(WALKERS * iterations)[:draws]
    return {"x": out}
