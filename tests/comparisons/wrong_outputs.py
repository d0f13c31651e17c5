"""Samplers whose draws are wrong but well formed: each gets a verdict and a report (issue 15).

``nan_draws`` and ``inf_draws`` are correct Gibbs draws with a few non-finite
values; ``mutates_its_data`` is correct but scribbles over the data it was
given, which must reach neither PyMC nor the exact answer.
"""

import numpy as np

from mcmc_pairs.handrolled import bivariate_normal


def nan_draws(data, *, draws, tune, chains, random_seed):
    x = bivariate_normal.sample(
        data, draws=draws, tune=tune, chains=chains, random_seed=random_seed
    )
    x["x"][-1, -1, 0] = np.nan
    return x


def inf_draws(data, *, draws, tune, chains, random_seed):
    x = bivariate_normal.sample(
        data, draws=draws, tune=tune, chains=chains, random_seed=random_seed
    )
    x["x"][0, :, 1] = np.inf
    return x


def mutates_its_data(data, *, draws, tune, chains, random_seed):
    x = bivariate_normal.sample(
        data, draws=draws, tune=tune, chains=chains, random_seed=random_seed
    )
    data["mu"][:] = 100.0
    data["rho"] = -0.9
    return x
