"""PyMC's ``Metropolis`` as fixed by pymc-devs/pymc#6678 (PyMC 5.3.1, April 2023).

:class:`MetropolisAfter6678` is today's
:class:`pymc.step_methods.metropolis.Metropolis` with its ``astep`` written out
again: the body of PyMC 5.3.1, ported to today's interface exactly as
``bug.py`` ports 5.3.0's (it is today's ``astep`` line for line), so that
``diff bug.py fixed.py`` shows the fix: ``q0d``, the point each coordinate's
proposal is compared against, is a private copy that moves with every accepted
coordinate, so each coordinate's Metropolis ratio is taken against the current
point.

Made with no arguments inside the model's context, the step covers every free
variable: ``--sampler pymc-step:fixed.py:MetropolisAfter6678``.
"""

import numpy as np
from pymc.blocking import RaveledVars
from pymc.pytensorf import floatX
from pymc.step_methods.metropolis import Metropolis, metrop_select, tune


class MetropolisAfter6678(Metropolis):
    """``Metropolis`` with the ``astep`` of PyMC 5.3.1 and later (today's)."""

    def astep(self, q0: RaveledVars) -> tuple[RaveledVars, list[dict]]:
        """Propose all coordinates, accept each in turn against the current point (fixed)."""
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
            q0d = q0d.copy()  # FIX
            q_temp = q0d.copy()
            # Shuffle order of updates (probably we don't need to do this in every step)
            self.rng.shuffle(self.enum_dims)
            for i in self.enum_dims:
                q_temp[i] = q[i]
                accept_rate_i = self.delta_logp(q_temp, q0d)
                q_temp_, accepted_i = metrop_select(accept_rate_i, q_temp, q0d, rng=self.rng)
                q_temp[i] = q0d[i] = q_temp_[i]  # FIX
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
