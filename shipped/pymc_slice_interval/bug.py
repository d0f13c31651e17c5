"""PyMC's ``Slice`` step as it shipped before pymc-devs/pymc#5816 (fixes #5815).

:class:`SliceBefore5816` is today's :class:`pymc.step_methods.slicer.Slice`
with its ``astep`` replaced by the one PyMC shipped until May 2022 (PyMC3 3.x
and PyMC 4.0 betas), ported line for line to today's step-method interface:
``self.rng`` for ``numpy.random``, ``self.logp(q)`` on the raveled point for
``logp(RaveledVars(q, ...))``, and the ``(point, stats)`` return. The
``iter_limit`` guard of the time (``np.inf`` by default, never reached) is left
out. The two lines the fix changed are marked ``SHIPPED BUG``:

1. the initial interval ``[q - U(0, w), q + w]`` has width between ``w`` and
   ``2 w`` and is not placed uniformly around ``q``; Neal (2003) and MacKay
   (2003, p. 375) place a width-``w`` interval at ``[q - r w, q + (1 - r) w]``;
2. ``ql`` and ``qr`` were set back to the accepted point only while tuning, so
   after tuning the stepping-out for coordinate ``i`` evaluates the density at
   the left and right bounds of the *earlier* coordinates' last shrinkage, not
   at their accepted values.

``fixed.py`` is the same port with the fixed lines; ``diff bug.py fixed.py``
shows the fix.
"""

import numpy as np
from pymc.blocking import RaveledVars
from pymc.step_methods.slicer import Slice


class SliceBefore5816(Slice):
    """Univariate slice sampler with the ``astep`` of PyMC before #5816."""

    def astep(self, apoint: RaveledVars) -> tuple[RaveledVars, list[dict]]:
        """Update each coordinate of ``apoint`` in turn by slice sampling (pre-fix lines)."""
        q0_val = apoint.data
        self.w = np.resize(self.w, len(q0_val))  # this is a repmat
        q = np.copy(q0_val)
        ql = np.copy(q0_val)  # l for left boundary
        qr = np.copy(q0_val)  # r for right boundary
        nstep_out = nstep_in = 0
        for i in range(len(q0_val)):
            # uniformly sample from 0 to p(q), but in log space
            y = self.logp(q) - self.rng.standard_exponential()
            ql[i] = q[i] - self.rng.uniform(0, self.w[i])  # SHIPPED BUG (1)
            qr[i] = q[i] + self.w[i]  # SHIPPED BUG (1)
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
                # unobvious and important: return qr and ql to the same point
                qr[i] = q[i]  # SHIPPED BUG (2): only while tuning
                ql[i] = q[i]  # SHIPPED BUG (2)
        if self.tune:
            self.n_tunes += 1
        stats = {"nstep_out": nstep_out, "nstep_in": nstep_in}
        return RaveledVars(q, apoint.point_map_info), [stats]
