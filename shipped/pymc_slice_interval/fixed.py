"""PyMC's ``Slice`` step as fixed by pymc-devs/pymc#5816 (May 2022).

:class:`SliceAfter5816` is today's :class:`pymc.step_methods.slicer.Slice`
with its ``astep`` replaced by the one #5816 merged, ported line for line to
today's step-method interface exactly as ``bug.py`` ports the pre-fix one
(``self.rng``, ``self.logp(q)``, the ``(point, stats)`` return, no
``iter_limit``). The lines the fix changed are marked ``FIX``;
``diff bug.py fixed.py`` shows the fix.

``Slice`` (imported here) is today's PyMC step, which has the same interval
and a later change: stepping out is capped at ``max_steps`` widths, split at
random between the two ends (Neal 2003, Figure 3);
``--sampler pymc-step:shipped/pymc_slice_interval/fixed.py:Slice`` runs it.
"""

import numpy as np
from pymc.blocking import RaveledVars
from pymc.step_methods.slicer import Slice

__all__ = ["Slice", "SliceAfter5816"]


class SliceAfter5816(Slice):
    """Univariate slice sampler with the ``astep`` of PyMC after #5816."""

    def astep(self, apoint: RaveledVars) -> tuple[RaveledVars, list[dict]]:
        """Update each coordinate of ``apoint`` in turn by slice sampling (fixed lines)."""
        q0_val = apoint.data
        self.w = np.resize(self.w, len(q0_val))  # this is a repmat
        q = np.copy(q0_val)
        ql = np.copy(q0_val)  # l for left boundary
        qr = np.copy(q0_val)  # r for right boundary
        nstep_out = nstep_in = 0
        for i in range(len(q0_val)):
            # uniformly sample from 0 to p(q), but in log space
            y = self.logp(q) - self.rng.standard_exponential()

            # Create initial interval
            ql[i] = q[i] - self.rng.uniform() * self.w[i]  # FIX (1): q[i] + r * w
            qr[i] = ql[i] + self.w[i]  # FIX (1): Equivalent to q[i] + (1-r) * w

            # Stepping out procedure
            cnt = 0
            while y <= self.logp(ql):  # changed lt to leq  for locally uniform posteriors
                ql[i] -= self.w[i]
                cnt += 1
            nstep_out += cnt
            cnt = 0
            while y <= self.logp(qr):
                qr[i] += self.w[i]
                cnt += 1
            nstep_out += cnt

            cnt = 0
            q[i] = self.rng.uniform(ql[i], qr[i])
            while self.logp(q) < y:  # Changed leq to lt, to accomodate for locally flat posteriors
                # Sample uniformly from slice
                if q[i] > q0_val[i]:
                    qr[i] = q[i]
                elif q[i] < q0_val[i]:
                    ql[i] = q[i]
                q[i] = self.rng.uniform(ql[i], qr[i])
                cnt += 1
            nstep_in += cnt

            if self.tune:
                self.w[i] = self.w[i] * (self.n_tunes / (self.n_tunes + 1)) + (qr[i] - ql[i]) / (
                    self.n_tunes + 1
                )

            # Set qr and ql to the accepted points (they matter for subsequent iterations)
            qr[i] = ql[i] = q[i]  # FIX (2): after tuning too
        if self.tune:
            self.n_tunes += 1
        stats = {"nstep_out": nstep_out, "nstep_in": nstep_in}
        return RaveledVars(q, apoint.point_map_info), [stats]
