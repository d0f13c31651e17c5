"""emcee's ``DESnookerMove`` as it shipped in emcee 3.0.0 to 3.1.6 (2019 to today's release).

:class:`DESnookerMoveBefore531` is today's :class:`emcee.moves.DESnookerMove`
with ``get_proposal`` copied verbatim from emcee 3.1.6 (the newest release,
the one installed here, whose own class is therefore the same bug): two lines
differ from emcee's main branch since commit ``946e664`` (dfm/emcee#531),
marked ``SHIPPED BUG``. The "unit" vector of the snooker axis is ``delta /
sqrt(norm)``, of length ``sqrt(|x - z|)``, so the proposal moves a walker
``x`` to ``z + (x - z)(1 + gammas * e.(z1 - z2))`` (``e`` the unit vector),
a stretch about ``z`` by a factor that does not invert when the move is
reversed, and the Jacobian factor is halved to ``0.5 * (ndim - 1)``. The
chain's stationary distribution is not the target, and the error depends on
the parameters' scale. ``fixed.py`` is this file with #531's lines; ``diff
bug.py fixed.py`` shows the fix.

As a sampler with the contract's signature: each of the ``chains`` chains is
its own ensemble of :data:`WALKERS` walkers (the tutorial's number, and that of
emcee's own move tests) running ``DESnookerMove`` alone on the tutorial's
log density, stated again below from ``data``. The walkers start uniform on
the box ``m in (-1.2, -0.8)``, ``b in (3.8, 5.3)``, ``log_f in (-1.1, -0.45)``
(about two to three posterior sds either side of the optimum; wider boxes leave
a walker in a second, negligible local mode near ``log_f = 0.9``), run ``tune``
discarded iterations and then ``ceil(draws / WALKERS)`` kept ones; the chain's
``draws`` are the walkers' kept iterations one walker after the other
(walker-major, so that the autocorrelation the effective sample size sees is
one walker's), cut to ``draws``. Chain ``c`` draws its start from
``np.random.default_rng(seed).spawn(chains)[c]`` and seeds emcee's
``RandomState`` from the same stream: the same seed gives the same draws.
"""

from __future__ import annotations

from collections.abc import Mapping

import emcee
import numpy as np
from emcee.moves import DESnookerMove

WALKERS = 32
"""Walkers per ensemble: the tutorial's ``32``, also emcee's ``_test_normal`` default."""


class DESnookerMoveBefore531(DESnookerMove):
    """``DESnookerMove`` with the ``get_proposal`` of emcee 3.0.0 to 3.1.6."""

    def get_proposal(self, s, c, random):
        """Snooker proposals for the walkers ``s`` (Ns, ndim) from the three complements ``c``."""
        Ns = len(s)
        Nc = list(map(len, c))
        ndim = s.shape[1]
        q = np.empty_like(s)
        metropolis = np.empty(Ns, dtype=np.float64)
        for i in range(Ns):
            w = np.array([c[j][random.randint(Nc[j])] for j in range(3)])
            random.shuffle(w)
            z, z1, z2 = w
            delta = s[i] - z
            norm = np.linalg.norm(delta)
            u = delta / np.sqrt(norm)  # SHIPPED BUG: delta / norm
            q[i] = s[i] + u * self.gammas * (np.dot(u, z1) - np.dot(u, z2))
            metropolis[i] = np.log(np.linalg.norm(q[i] - z)) - np.log(norm)
        return q, 0.5 * (ndim - 1.0) * metropolis  # SHIPPED BUG: (ndim - 1.0) * metropolis


MOVE = DESnookerMoveBefore531


def log_probability(theta: np.ndarray, x: np.ndarray, y: np.ndarray, yerr: np.ndarray) -> float:
    """Return the tutorial's ``log_probability``: box prior plus the line's log likelihood."""
    m, b, log_f = theta
    if not (-5.0 < m < 0.5 and 0.0 < b < 10.0 and -10.0 < log_f < 1.0):
        return -np.inf
    model = m * x + b
    sigma2 = yerr**2 + model**2 * np.exp(2 * log_f)
    return -0.5 * np.sum((y - model) ** 2 / sigma2 + np.log(sigma2))


def sample(
    data: Mapping, *, draws: int, tune: int, chains: int, random_seed: int | None
) -> dict[str, np.ndarray]:
    """Sample the line fit with ``DESnookerMove`` alone; see the module's docstring.

    Parameters
    ----------
    data : mapping
        ``x``, ``y``, ``yerr``, each (N,).
    draws, tune, chains : int
        Kept draws per chain, discarded ensemble iterations, independent ensembles.
    random_seed : int or None
        Seed of ``np.random.default_rng``.

    Returns
    -------
    dict
        ``m``, ``b``, ``log_f``, each of shape (chains, draws).
    """
    args = tuple(np.asarray(data[k], dtype=float) for k in ("x", "y", "yerr"))
    iterations = -(-draws // WALKERS)
    out = np.empty((chains, draws, 3))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        start = rng.uniform([-1.2, 3.8, -1.1], [-0.8, 5.3, -0.45], size=(WALKERS, 3))
        sampler = emcee.EnsembleSampler(WALKERS, 3, log_probability, moves=MOVE(), args=args)
        sampler._random = np.random.RandomState(rng.integers(2**32))
        sampler.run_mcmc(start, tune + iterations)
        kept = sampler.get_chain(discard=tune)  # (iterations, WALKERS, 3)
        out[c] = kept.transpose(1, 0, 2).reshape(WALKERS * iterations, 3)[:draws]
    return {"m": out[..., 0], "b": out[..., 1], "log_f": out[..., 2]}
