"""PyMC's ``DEMetropolis`` samples too narrow a distribution: its chains move together.

A minimal reproduction to post upstream (pymc-devs/pymc), PyMC 6.4.0. The
target is a standard normal in 3 dimensions (no data); ``DEMetropolis`` with
4 chains, PyMC's defaults otherwise.

``DEMetropolis`` is differential-evolution MCMC (ter Braak 2006): chain ``i``
proposes ``x_i + lambda (x_r1 - x_r2) + epsilon`` from two other chains. That
leaves the product of the targets invariant when the chains are updated one
after another, each proposal built from the others' *current* states. PyMC's
population sampler (``pymc/sampling/population.py``, ``_iter_population`` and
``PopulationStepper.step``) steps every chain from the *same* list of the
previous iteration's points and writes the new points back only after all
chains have stepped: a simultaneous (Jacobi) update, which is not a
Metropolis-Hastings move on the product space. The population contracts, and
the draws' spread is too small, however long the run.

The second half re-implements DE-MC in NumPy with both updates and the same
proposal (``lambda = 2.38 / sqrt(2 d)``, uniform ``epsilon`` of half-width
1e-4), over 2,000 independent populations so that its second moment is exact to
about 0.005: one by one it is 1; all at once it is about 0.75, PyMC's
shortfall (sd about 0.87). So the cause is the update order, not the proposal.

    python repro.py
"""

import numpy as np
import pymc as pm

D, CHAINS = 3, 4


def pymc_sd(seed: int, draws: int) -> np.ndarray:
    """Return the per-coordinate sd of PyMC's DEMetropolis draws (4 chains pooled)."""
    with pm.Model():
        pm.Normal("x", 0.0, 1.0, shape=D)
        idata = pm.sample(
            draws=draws, tune=2000, chains=CHAINS, cores=1, step=pm.DEMetropolis(),
            random_seed=seed, progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    return idata.posterior["x"].values.reshape(-1, D).std(axis=0)


def de_mc_second_moment(seed: int, simultaneous: bool, populations: int = 2000) -> np.ndarray:
    """Return E[x^2] per coordinate of NumPy DE-MC on N(0, I) (exact: 1), many populations.

    ``populations`` independent populations of 4 chains, started from the target,
    run 6,000 iterations; the second half's squares averaged over every chain and
    population. ``simultaneous``: every chain's proposal reads the previous
    iteration's points (PyMC's order); else each reads the others' current points.
    """
    rng = np.random.default_rng(seed)
    lamb, iterations, rows = 2.38 / np.sqrt(2 * D), 6000, np.arange(populations)
    x = rng.normal(size=(populations, CHAINS, D))
    total = np.zeros(D)
    for t in range(iterations):
        frozen = x.copy()
        others = frozen if simultaneous else x
        for i in range(CHAINS):
            choices = np.array([c for c in range(CHAINS) if c != i])
            first = rng.integers(0, CHAINS - 1, size=populations)
            second = (first + 1 + rng.integers(0, CHAINS - 2, size=populations)) % (CHAINS - 1)
            r1, r2 = choices[first], choices[second]
            jump = lamb * (others[rows, r1] - others[rows, r2])
            proposal = x[:, i] + jump + rng.uniform(-1e-4, 1e-4, (populations, D))
            log_ratio = 0.5 * ((x[:, i] ** 2).sum(1) - (proposal**2).sum(1))
            accept = np.log(rng.uniform(size=populations)) < log_ratio
            x[accept, i] = proposal[accept]
        if t >= iterations // 2:
            total += (x**2).mean(axis=(0, 1))
    return total / (iterations - iterations // 2)


def main() -> None:
    """Print PyMC's sds at three seeds and in a long run, then DE-MC's second moments."""
    for seed, draws in ((1, 20_000), (2, 20_000), (3, 20_000), (4, 100_000)):
        sd = pymc_sd(seed, draws)
        said = f"seed {seed}, {draws:,} draws x {CHAINS} chains"
        print(f"PyMC DEMetropolis, {said}: sd {np.round(sd, 3)}")
    print("NumPy DE-MC, 2,000 populations of 4 chains, E[x^2] (exact 1):")
    for simultaneous in (False, True):
        moment = de_mc_second_moment(1, simultaneous)
        print(f"  {'all at once' if simultaneous else 'one by one '}: {np.round(moment, 4)}")


if __name__ == "__main__":
    main()
