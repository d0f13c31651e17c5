"""A conjugate Gibbs sweep for the coagulation model, written as a PyMC step method.

Every full conditional of the model in ``model.py`` is a standard distribution
(Gelman et al., *Bayesian Data Analysis*, 3rd ed., section 11.6, with the proper
priors of README.md); one function per conditional draws it, and
:class:`ConjugateGibbs` runs them in turn as one PyMC ``BlockedStep`` over all
four free variables. PyMC samples ``sigma2`` and ``tau2`` on the log scale
(``sigma2_log__``, ``tau2_log__``): the step reads and writes those values.

This file states the priors itself and shares no code with ``model.py``.
"""

import numpy as np
import pymc as pm
from pymc.step_methods.compound import BlockedStep

MU_MEAN, MU_SD = 60.0, 10.0
SIGMA2_SHAPE, SIGMA2_SCALE = 3.0, 10.0
TAU2_SHAPE, TAU2_SCALE = 3.0, 20.0


def draw_theta_given_rest(rng, mu, tau2, sigma2, counts, sums):
    """Draw ``theta | rest``, shape (J,): ``N(v_j (mu/tau2 + sum_j/sigma2), v_j)``.

    ``1/v_j = 1/tau2 + n_j/sigma2``; ``counts`` (J,) are the ``n_j`` and ``sums``
    (J,) the sums of each group's observations.
    """
    precision = 1.0 / tau2 + counts / sigma2
    mean = (mu / tau2 + sums / sigma2) / precision
    return mean + rng.standard_normal(len(counts)) / np.sqrt(precision)


def draw_mu_given_rest(rng, theta, tau2):
    """Draw ``mu | rest``: ``N(v (MU_MEAN/MU_SD^2 + sum_j theta_j/tau2), v)``.

    ``1/v = 1/MU_SD^2 + J/tau2``; ``theta`` has shape (J,).
    """
    precision = 1.0 / MU_SD**2 + len(theta) / tau2
    mean = (MU_MEAN / MU_SD**2 + theta.sum() / tau2) / precision
    return mean + rng.standard_normal() / np.sqrt(precision)


def draw_sigma2_given_rest(rng, theta, y, group):
    """Draw ``sigma2 | rest``: ``InvGamma(SIGMA2_SHAPE + n/2, SIGMA2_SCALE + SSE/2)``.

    ``SSE = sum_ij (y_ij - theta_j)^2``; ``y`` and ``group`` have shape (n,).
    """
    sse = np.sum((y - theta[group]) ** 2)
    return (SIGMA2_SCALE + sse / 2.0) / rng.gamma(SIGMA2_SHAPE + len(y) / 2.0)


def draw_tau2_given_rest(rng, theta, mu):
    """Draw ``tau2 | rest``: ``InvGamma(TAU2_SHAPE + J/2, TAU2_SCALE + S/2)``.

    ``S = sum_j (theta_j - mu)^2``; ``theta`` has shape (J,).
    """
    return (TAU2_SCALE + np.sum((theta - mu) ** 2) / 2.0) / rng.gamma(TAU2_SHAPE + len(theta) / 2.0)


class ConjugateGibbs(BlockedStep):
    """One Gibbs sweep over ``theta``, ``mu``, ``sigma2`` and ``tau2``: a PyMC step method.

    Made inside the model's context with no arguments (``ConjugateGibbs()``); it
    reads the observed ``y`` and the ``group`` container from the model. PyMC
    seeds ``self.rng`` for every chain, so the same seed gives the same draws.
    """

    def __init__(self, vars=None, model=None, blocked=True, rng=None):
        model = pm.modelcontext(model)
        self.vars = [model.rvs_to_values[model[n]] for n in ("theta", "mu", "sigma2", "tau2")]
        self.y = np.asarray(model.rvs_to_values[model["y"]].data, dtype=float)
        self.group = np.asarray(model["group"].get_value(), dtype=np.int64)
        groups = len(model.initial_point()["theta"])
        self.counts = np.bincount(self.group, minlength=groups).astype(float)
        self.sums = np.bincount(self.group, weights=self.y, minlength=groups)

    def step(self, point):
        """Return the point after one sweep, and no sampler statistics."""
        rng = self.rng
        mu, tau2, sigma2 = point["mu"], np.exp(point["tau2_log__"]), np.exp(point["sigma2_log__"])
        theta = self.draw_theta(rng, mu, tau2, sigma2)
        mu = draw_mu_given_rest(rng, theta, tau2)
        sigma2 = draw_sigma2_given_rest(rng, theta, self.y, self.group)
        tau2 = draw_tau2_given_rest(rng, theta, mu)
        new = dict(point)
        new["theta"] = theta
        new["mu"] = np.asarray(mu)
        new["sigma2_log__"] = np.asarray(np.log(sigma2))
        new["tau2_log__"] = np.asarray(np.log(tau2))
        return new, []

    def draw_theta(self, rng, mu, tau2, sigma2):
        """Draw ``theta | rest`` (a method, so that the planted bug can replace it)."""
        return draw_theta_given_rest(rng, mu, tau2, sigma2, self.counts, self.sums)


def draw_theta_given_rest_planted_bug(rng, mu, tau2, sigma2, counts, sums):
    """Draw ``theta | rest`` with the planted bug: each group's mean weighs as one observation.

    ``1/v_j = 1/tau2 + 1/sigma2`` and the mean uses ``ybar_j``: the group sizes
    are forgotten, so ``theta`` is too wide and pulled too far towards ``mu``.
    """
    precision = 1.0 / tau2 + 1.0 / sigma2
    mean = (mu / tau2 + (sums / counts) / sigma2) / precision
    return mean + rng.standard_normal(len(counts)) / np.sqrt(precision)


class ConjugateGibbsPlantedBug(ConjugateGibbs):
    """:class:`ConjugateGibbs` with :func:`draw_theta_given_rest_planted_bug`."""

    def draw_theta(self, rng, mu, tau2, sigma2):
        """Draw ``theta`` with the group sizes forgotten."""
        return draw_theta_given_rest_planted_bug(rng, mu, tau2, sigma2, self.counts, self.sums)
