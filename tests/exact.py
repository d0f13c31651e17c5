"""MCSE-scaled distance of draws from an exact distribution, shared by the MH tests."""

import numpy as np
from arviz_stats import mcse


def z_scores(x, dist):
    """(estimate - truth) / MCSE for the mean, sd and 5 %, 50 %, 95 % quantiles."""
    out = {
        "mean": (x.mean() - dist.mean()) / mcse(x),
        "sd": (x.std() - dist.std()) / mcse(x, method="sd"),
    }
    for p in (0.05, 0.5, 0.95):
        out[f"q{round(100 * p)}"] = (np.quantile(x, p) - dist.ppf(p)) / mcse(
            x, method="quantile", prob=p
        )
    return out
