r"""A straight line with underestimated error bars: emcee's own tutorial model, in PyMC.

emcee's "Fitting a model to data" (``docs/tutorials/line.ipynb``, the example
of the package's documentation since emcee 2)::

    m     ~ Uniform(-5, 0.5)
    b     ~ Uniform(0, 10)
    log_f ~ Uniform(-10, 1)
    y_n   ~ N(m x_n + b, yerr_n^2 + (m x_n + b)^2 exp(2 log_f))     n = 1 .. 50

on the tutorial's own data (``simulate.py``). This file shares no code with
``bug.py`` and ``fixed.py``, which state the log density again for emcee.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm

PYMC_KWARGS = {
    "initvals": {"m": -1.0, "b": 4.5, "log_f": -0.8},
    "compile_kwargs": {"jitter_rvs": set()},
}
"""PyMC's reference starts every chain at the tutorial's maximum-likelihood point, unjittered.

The posterior has a second, negligible local mode near ``m = -0.2``,
``log_f = 0.9`` (log likelihood about 100 below the main mode's), next to the
prior's bound ``log_f < 1``. nutpie's default start, jittered uniformly by
``+-1`` on the interval-transformed scale around the priors' midpoints, leaves
a chain there in 5 of 8 seeds tried (4 chains, 1,000 draws; jittered around
this point instead, in 6 of 8), and a chain that starts there stays for the
whole run. The tutorial itself starts its walkers at the optimum.
"""


def build_model(data: Mapping) -> pm.Model:
    """Build the line fit.

    Parameters
    ----------
    data : mapping
        ``x``, ``y``, ``yerr``, each (50,).

    Returns
    -------
    pymc.Model
        Free variables ``m``, ``b``, ``log_f`` (scalars); observed ``y``.
    """
    x = np.asarray(data["x"], dtype=float)
    y = np.asarray(data["y"], dtype=float)
    yerr = np.asarray(data["yerr"], dtype=float)
    with pm.Model() as model:
        m = pm.Uniform("m", lower=-5.0, upper=0.5)
        b = pm.Uniform("b", lower=0.0, upper=10.0)
        log_f = pm.Uniform("log_f", lower=-10.0, upper=1.0)
        mu = m * x + b
        sigma = pm.math.sqrt(yerr**2 + mu**2 * pm.math.exp(2.0 * log_f))
        pm.Normal("y", mu=mu, sigma=sigma, observed=y)
    return model
