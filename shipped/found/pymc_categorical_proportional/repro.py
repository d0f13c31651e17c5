"""PyMC's ``CategoricalGibbsMetropolis(proposal="proportional")`` samples the wrong distribution.

A minimal reproduction to post upstream (pymc-devs/pymc), PyMC 6.4.0: one
categorical variable with known probabilities and no data, so the posterior is
the prior and the exact answer is ``p``. ``proposal="uniform"`` (the default)
gets it; ``"proportional"`` does not, at every seed and in a long run.

    python repro.py            # 4 chains x 20,000 draws at seeds 1, 2, 3, then 4 x 250,000

The cause, in ``CategoricalGibbsMetropolis.metropolis_proportional``: the
proposal is ``q(j | i) = p_j / (1 - p_i)`` (the current category excluded),
whose Metropolis-Hastings ratio is ``(1 - p_i) / (1 - p_j)`` (Liu 1996). The
code rescales ``probs`` in place before it forms the ratio::

    prob_curr, probs[given_cat] = probs[given_cat], 0.0
    probs /= 1.0 - prob_curr
    proposed_cat = self.rng.choice(candidates, p=probs)
    accept_ratio = (1.0 - prob_curr) / (1.0 - probs[proposed_cat])   # probs[j] is p_j / (1 - p_i)

so the ratio uses ``p_j / (1 - p_i)`` where it needs ``p_j``. With two
categories the rescaled ``probs[proposed_cat]`` is 1 and the ratio is infinite:
every proposal is rejected (``not np.isfinite``) and the chain never moves.
"""

import numpy as np
import pymc as pm

P = np.array([0.2, 0.3, 0.5])


def frequencies(proposal: str, seed: int, draws: int) -> np.ndarray:
    """Return the share of each category over 4 chains of ``draws`` draws."""
    with pm.Model():
        x = pm.Categorical("x", p=P)
        step = pm.CategoricalGibbsMetropolis([x], proposal=proposal)
        idata = pm.sample(
            draws=draws, tune=1000, chains=4, cores=1, step=step, random_seed=seed,
            progressbar=False, compute_convergence_checks=False,
        )  # fmt: skip
    values = idata.posterior["x"].values.ravel()
    return np.bincount(values, minlength=P.size) / values.size


def main() -> None:
    """Print each proposal's frequencies, their Monte Carlo error, against the exact ``p``."""
    print(f"exact p            {P}")
    for seed, draws in ((1, 20_000), (2, 20_000), (3, 20_000), (4, 250_000)):
        for proposal in ("uniform", "proportional"):
            f = frequencies(proposal, seed, draws)
            se = np.sqrt(P * (1 - P) / (4 * draws))  # the error of independent draws
            print(f"seed {seed} {4 * draws:>9,} {proposal:12s} {np.round(f, 4)}  "
                  f"(f - p) / iid se {np.round((f - P) / se, 1)}")  # fmt: skip


if __name__ == "__main__":
    main()
