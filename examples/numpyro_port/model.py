"""Eight schools ported to NumPyro: the model of ``examples/eight_schools/model.py``.

The same centred hierarchical normal model, written for NumPyro (a port, as a
user moving a model between PPLs writes it)::

    mu      ~ N(0, mu_sd^2)
    tau2    ~ InvGamma(tau2_alpha, tau2_beta)
    theta_j ~ N(mu, tau2)                          j = 1 .. 8
    y_j     ~ N(theta_j, sigma_j^2)                observed, sigma_j known

``model(data)`` takes the data dict that ``--data`` reads, and names its sample
sites after the PyMC model's free variables (``mu``, ``tau2``, ``theta``) and
its observed variable (``y``). ``model_planted_bug`` is the port with one
mistake a port really makes: ``theta``'s *variance* ``tau2`` passed where
NumPyro's ``Normal`` takes a *scale*.
"""

import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist


def model(data):
    """Define the port: every distribution as PyMC's (NumPyro's ``Normal`` takes a scale)."""
    mu = numpyro.sample("mu", dist.Normal(0.0, data["mu_sd"]))
    tau2 = numpyro.sample("tau2", dist.InverseGamma(data["tau2_alpha"], data["tau2_beta"]))
    with numpyro.plate("schools", len(data["y"])):
        theta = numpyro.sample("theta", dist.Normal(mu, jnp.sqrt(tau2)))
        numpyro.sample("y", dist.Normal(theta, data["sigma"]), obs=data["y"])


def model_planted_bug(data):
    """Define the port with a prior's scale read as a variance: ``Normal(mu, tau2)``."""
    mu = numpyro.sample("mu", dist.Normal(0.0, data["mu_sd"]))
    tau2 = numpyro.sample("tau2", dist.InverseGamma(data["tau2_alpha"], data["tau2_beta"]))
    with numpyro.plate("schools", len(data["y"])):
        theta = numpyro.sample("theta", dist.Normal(mu, tau2))  # the bug: tau2 is a variance
        numpyro.sample("y", dist.Normal(theta, data["sigma"]), obs=data["y"])
