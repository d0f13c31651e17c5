"""The issue's target: ``x ~ Uniform(-1, 1)``, in PyMC (dfm/emcee#198).

The issue ran ``emcee.MHSampler(eye(1), 1, lambda x: 0 if -1 < x < 1 else
-inf)``: a flat log density on ``(-1, 1)``, no data (``data.json`` holds
the bounds, -1 and 1). This file shares no code
with ``bug.py`` and ``fixed.py``, which state the log density again for emcee.
"""

from __future__ import annotations

from collections.abc import Mapping

import pymc as pm


def build_model(data: Mapping) -> pm.Model:
    """Build the uniform target.

    Parameters
    ----------
    data : mapping
        ``lower``, ``upper``: the bounds (-1 and 1).

    Returns
    -------
    pymc.Model
        Free variable ``x`` (scalar).
    """
    with pm.Model() as model:
        pm.Uniform("x", lower=float(data["lower"]), upper=float(data["upper"]))
    return model
