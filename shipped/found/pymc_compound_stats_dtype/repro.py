"""PyMC cannot sample a compound of ``Metropolis`` and ``HamiltonianMC`` or ``DEMetropolis(Z)``.

A minimal reproduction to post upstream (pymc-devs/pymc), PyMC 6.4.0. A discrete
variable gets PyMC's default ``Metropolis``, whose sampler statistic ``accepted``
is ``float64`` (``metropolis.py``: ``"accepted": (np.float64, [])``); the
continuous one is given ``HamiltonianMC``, ``DEMetropolis`` or ``DEMetropolisZ``,
whose ``accepted`` is ``bool``. ``pm.sample`` stops before the first draw::

    ValueError: Sampler statistic accepted appears with different types.

(``pymc/backends/base.py``, ``_set_sampler_vars``). ``NUTS`` and ``Slice`` have
no ``accepted`` statistic, so the same model runs with them; so does
``Metropolis`` for both variables. Seeds do not matter: it fails at setup.

    python repro.py
"""

import pymc as pm


def main() -> None:
    """Try each continuous step beside the default step of a discrete variable."""
    with pm.Model():
        k = pm.DiscreteUniform("k", 0, 10)  # PyMC assigns Metropolis to it
        mu = pm.Normal("mu", 0, 1)
        pm.Normal("y", mu + 0.1 * k, 1, observed=[0.3, 0.5])
        for step in (pm.HamiltonianMC, pm.DEMetropolis, pm.DEMetropolisZ, pm.NUTS, pm.Slice):
            for seed in (1, 2, 3):
                try:
                    pm.sample(
                        draws=50, tune=50, chains=4, cores=1, step=[step([mu])],
                        random_seed=seed, progressbar=False, compute_convergence_checks=False,
                    )  # fmt: skip
                    said = "runs"
                except ValueError as exc:
                    said = f"ValueError: {exc}"
                print(f"{step.__name__:14s} seed {seed}: {said}")


if __name__ == "__main__":
    main()
