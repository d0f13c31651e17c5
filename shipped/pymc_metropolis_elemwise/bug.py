"""PyMC's ``Metropolis`` as it shipped before pymc-devs/pymc#6678 (PyMC 4.0.0 to 5.3.0).

:class:`MetropolisBefore6678` is today's
:class:`pymc.step_methods.metropolis.Metropolis` with its ``astep`` replaced by
the one PyMC shipped from 4.0.0 (June 2022, when #5823 made ``Metropolis``
update one coordinate at a time) to 5.3.0 (April 2023), ported line for line to
today's interface (``self.rng`` for ``numpy.random``, ``metrop_select(...,
rng=self.rng)``, today's stats without ``tune``).

With more than one scalar coordinate (a vector variable, or several variables
in one step), ``Metropolis`` proposes every coordinate at once and then accepts
or rejects them one at a time in a random order. The shipped ``astep`` compared
each coordinate's proposal against the point the sweep *started* from
(``q0d``), not against the current point, which already holds the coordinates
accepted earlier in the sweep: the acceptance ratio of coordinate ``i`` carries
the log-density changes of every earlier accepted coordinate, and the step no
longer leaves the target invariant. The fix (#6678, PyMC 5.3.1) moves ``q0d``
along with each accepted coordinate; ``fixed.py`` is the same port with the
fixed lines, and ``diff bug.py fixed.py`` shows the fix.

Made with no arguments inside the model's context, the step covers every free
variable: ``--sampler pymc-step:bug.py:MetropolisBefore6678``.
"""

import numpy as np
from pymc.blocking import RaveledVars
from pymc.pytensorf import floatX
from pymc.step_methods.metropolis import Metropolis, metrop_select, tune


class MetropolisBefore6678(Metropolis):
    """``Metropolis`` with the ``astep`` of PyMC 4.0.0 to 5.3.0."""

    def astep(self, q0: RaveledVars) -> tuple[RaveledVars, list[dict]]:
        """Propose all coordinates, accept each in turn against the sweep's start (pre-fix)."""
        point_map_info = q0.point_map_info
        q0d = q0.data

        if not self.steps_until_tune and self.tune:
            # Tune scaling parameter
            self.scaling = tune(self.scaling, self.accepted_sum / float(self.tune_interval))
            # Reset counter
            self.steps_until_tune = self.tune_interval
            self.accepted_sum[:] = 0

        delta = self.proposal_dist(rng=self.rng) * self.scaling

        if self.any_discrete:
            if self.all_discrete:
                delta = np.round(delta, 0).astype("int64")
                q0d = q0d.astype("int64")
                q = (q0d + delta).astype("int64")
            else:
                delta[self.discrete] = np.round(delta[self.discrete], 0)
                q = q0d + delta
        else:
            q = floatX(q0d + delta)

        if self.elemwise_update:
            q_temp = q0d.copy()
            # Shuffle order of updates (probably we don't need to do this in every step)
            self.rng.shuffle(self.enum_dims)
            for i in self.enum_dims:
                q_temp[i] = q[i]
                accept_rate_i = self.delta_logp(q_temp, q0d)  # SHIPPED BUG: q0d never moves
                q_temp_, accepted_i = metrop_select(accept_rate_i, q_temp, q0d, rng=self.rng)
                q_temp[i] = q_temp_[i]  # SHIPPED BUG: q0d[i] not updated
                self.accept_rate_iter[i] = accept_rate_i
                self.accepted_iter[i] = accepted_i
                self.accepted_sum[i] += accepted_i
            q = q_temp
        else:
            accept_rate = self.delta_logp(q, q0d)
            q, accepted = metrop_select(accept_rate, q, q0d, rng=self.rng)
            self.accept_rate_iter = accept_rate
            self.accepted_iter[0] = accepted
            self.accepted_sum += accepted

        self.steps_until_tune -= 1

        stats = {
            "scaling": np.mean(self.scaling),
            "accept": np.mean(np.exp(self.accept_rate_iter)),
            "accepted": np.mean(self.accepted_iter),
        }

        return RaveledVars(q, point_map_info), [stats]
