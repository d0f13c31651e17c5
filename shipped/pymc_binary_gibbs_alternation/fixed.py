"""PyMC's ``BinaryGibbsMetropolis`` as fixed by pymc-devs/pymc#2867 (February 2018).

Today's :class:`pymc.step_methods.metropolis.BinaryGibbsMetropolis`, whose
``astep`` is the fixed one of #2867 (released in PyMC3 3.4) in today's
interface: each coordinate is proposed for a flip only with probability
``transit_p`` (default 0.8), which breaks the deterministic alternation of the
shipped step on coordinates whose flip does not change the density.
``bug.py`` holds the pre-fix ``astep``; ``diff bug.py fixed.py`` shows the fix:

.. code-block:: python

    for idx in order:
        # No need to do metropolis update if the same value is proposed,
        # as you will get the same value regardless of accepted or reject
        if self.rng.random() < self.transit_p:  # FIX
            curr_val, q.data[idx] = q.data[idx], True - q.data[idx]
            logp_prop = logp(q)
            q.data[idx], accepted = metrop_select(
                logp_prop - logp_curr, q.data[idx], curr_val, rng=self.rng
            )
            if accepted:
                logp_curr = logp_prop

``steps(model)`` is the ``--sampler pymc-step:...:steps`` factory.
"""

from pymc.step_methods.metropolis import BinaryGibbsMetropolis


def steps(model):
    """Return today's (fixed) step over every free variable of ``model`` (all binary)."""
    return BinaryGibbsMetropolis(model.free_RVs)
