r"""Plant growth by fertiliser and light: a conjugate regression with dims, in PyMC.

Plant ``i`` got ``dose_i`` mg of fertiliser and ``light_i`` hours of light a
day above 12, and grew ``growth_i`` cm. A normal-inverse-gamma regression::

    sigma2   ~ InvGamma(SIGMA2_ALPHA, SIGMA2_BETA)           (shape, scale)
    beta     ~ N(0, PRIOR_SCALE^2 sigma2 I)                  dims "coef"
    growth_i ~ N(beta_intercept + beta_dose dose_i + beta_light light_i, sigma2)

The coefficients carry the dimension ``coef`` with labels ``intercept``,
``dose``, ``light``; the observations the dimension ``plant``. Two
``pm.Deterministic`` quantities ride along: ``sigma`` (the noise sd) and
``expected_growth`` (the regression line at every plant, dims ``plant``). They
are functions of the free variables ``beta`` and ``sigma2``, which a
hand-written sampler returns. This file shares no code with ``sampler.py``:
each states the model itself.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pymc as pm

SIGMA2_ALPHA = 2.0
"""Shape of the inverse-gamma prior of ``sigma2``."""
SIGMA2_BETA = 2.0
"""Scale of the inverse-gamma prior of ``sigma2``."""
PRIOR_SCALE = 10.0
"""Prior sd of every coefficient, in units of the noise sd ``sqrt(sigma2)``."""
COEFS = ("intercept", "dose", "light")
"""Labels of the coefficients (the dimension ``coef``)."""


def build_model(data: Mapping) -> pm.Model:
    """Build the plant-growth regression.

    Parameters
    ----------
    data : mapping
        ``dose`` (N,) mg, ``light`` (N,) hours above 12, ``growth`` (N,) cm.

    Returns
    -------
    pymc.Model
        Free variables ``sigma2`` () and ``beta`` (3,) with dims ``coef``;
        deterministics ``sigma`` () and ``expected_growth`` (N,) with dims
        ``plant``; observed ``growth``.
    """
    growth = np.asarray(data["growth"], dtype=float)
    design = np.column_stack(
        [
            np.ones_like(growth),
            np.asarray(data["dose"], dtype=float),
            np.asarray(data["light"], dtype=float),
        ]
    )
    coords = {"coef": list(COEFS), "plant": np.arange(growth.size)}
    with pm.Model(coords=coords) as model:
        sigma2 = pm.InverseGamma("sigma2", alpha=SIGMA2_ALPHA, beta=SIGMA2_BETA)
        sigma = pm.Deterministic("sigma", pm.math.sqrt(sigma2))
        beta = pm.Normal("beta", mu=0.0, sigma=PRIOR_SCALE * sigma, dims="coef")
        expected = pm.Deterministic("expected_growth", pm.math.dot(design, beta), dims="plant")
        pm.Normal("growth", mu=expected, sigma=sigma, observed=growth, dims="plant")
    return model
