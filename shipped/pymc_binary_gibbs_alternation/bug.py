"""PyMC's ``BinaryGibbsMetropolis`` as it shipped before pymc-devs/pymc#2867 (fixes #2866).

:class:`BinaryGibbsMetropolisBefore2867` is today's
:class:`pymc.step_methods.metropolis.BinaryGibbsMetropolis` with its
``astep`` replaced by the one PyMC3 shipped until #2867 (merged February 2018,
released in PyMC3 3.4), ported line for line to today's interface
(``self.rng`` for ``numpy.random``, the raveled point, ``metrop_select``
returning ``(value, accepted)``, the ``(point, stats)`` return).

The shipped step proposes to flip every coordinate, always (a Metropolised
Gibbs move). That leaves the target invariant, but when flipping does not
change the density, as for a fair coin, every flip is accepted: each
coordinate alternates 0, 1, 0, 1 deterministically. Two fair coins started at
the same value stay equal forever, so ``z = x + y`` is never 1. The fix flips
with probability ``transit_p`` (default 0.8) only; ``fixed.py`` is the same
step after the fix (today's class), and ``diff bug.py fixed.py`` shows it.

``steps(model)`` is the ``--sampler pymc-step:...:steps`` factory (the class
needs its variables, so it cannot be made with no arguments).
"""

import numpy as np
from pymc.blocking import RaveledVars
from pymc.step_methods.metropolis import BinaryGibbsMetropolis, metrop_select


class BinaryGibbsMetropolisBefore2867(BinaryGibbsMetropolis):
    """``BinaryGibbsMetropolis`` with the ``astep`` of PyMC3 3.3 and earlier."""

    def astep(self, apoint: RaveledVars, *args) -> tuple[RaveledVars, list[dict]]:
        """Propose to flip each binary coordinate in a random order (pre-fix lines)."""
        logp = args[0]
        order = self.order
        if self.shuffle_dims:
            self.rng.shuffle(order)

        q = RaveledVars(np.copy(apoint.data), apoint.point_map_info)
        logp_curr = logp(q)

        for idx in order:
            curr_val, q.data[idx] = q.data[idx], True - q.data[idx]  # SHIPPED BUG: always
            logp_prop = logp(q)
            q.data[idx], _ = metrop_select(
                logp_prop - logp_curr, q.data[idx], curr_val, rng=self.rng
            )
            if q.data[idx] != curr_val:
                logp_curr = logp_prop

        return q, [{}]


def steps(model):
    """Return the pre-fix step over every free variable of ``model`` (all binary)."""
    return BinaryGibbsMetropolisBefore2867(model.free_RVs)
