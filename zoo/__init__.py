"""The calibration zoo: model shapes the six seed pairs do not have.

Each model lives in ``zoo/<name>/``: ``model.py`` (``build_model(data) -> pm.Model``),
a data file, and ``sampler.py`` with a correct sampler ``sample`` (exact iid draws
where the posterior is known in closed form, else a hand-written Gibbs sampler)
and ``sample_planted_bug``, the same sampler with one bug whose size in posterior
sd is stated in ``zoo/README.md``. The model and the sampler share no code.

They are brought to the harness exactly as a user brings a model
(:func:`mcmc_pairs.comparisons.byom.model_pair`); ``make test`` runs each one small
(``tests/zoo``) and ``make power`` measures the verdicts' error rates on them
(``scripts/power.py``, section "zoo").
"""

from __future__ import annotations

from pathlib import Path

from mcmc_pairs.comparisons.registry import ModelFolder, Registry

HERE = Path(__file__).resolve().parent


MODELS: Registry[ModelFolder] = Registry(
    "zoo model",
    ModelFolder(
        name="changepoint",
        folder=HERE / "changepoint",
        shape="a discrete latent variable: a switchpoint in Poisson counts (coal-mining disasters)",
        data_file="data.json",
        bug="off-by-one in the segment sums: switchpoint mean -0.46 sd, early rate +0.29 sd",
    ),
    ModelFolder(
        name="mixture",
        folder=HERE / "mixture",
        shape="two-component normal mixture: indicators sampled (Gibbs) vs summed out (PyMC)",
        data_file="data.json",
        bug="prior-mean term left out of mu's conditional: mu[0] +0.28 sd, mu[1] -0.23 sd",
    ),
    ModelFolder(
        name="hierarchical",
        folder=HERE / "hierarchical",
        shape="hierarchical normal, 60 groups, 63 parameters (centred), Gibbs",
        data_file="data.json",
        bug="tau2's prior shape and scale swapped in its conditional: tau2 mean +0.28 sd",
    ),
    ModelFolder(
        name="correlated",
        folder=HERE / "correlated",
        shape="strongly correlated posterior: collinear regression, corr(beta1, beta2) = -0.986",
        data_file="data.json",
        bug="prior precision left out: beta1/beta2 means -/+0.32 sd, their sds 1.24x",
    ),
    ModelFolder(
        name="counts",
        folder=HERE / "counts",
        shape="integer counts: Poisson-gamma hierarchical model of pump failures, Gibbs",
        data_file="data.json",
        bug="beta's conditional skips pump 0 (1-based loop): beta mean -0.44 sd",
    ),
    ModelFolder(
        name="boundary",
        folder=HERE / "boundary",
        shape="probabilities at the boundary: Beta(31, 1) (mode at 1) and Beta(2, 80), exact",
        data_file="data.json",
        bug="q's prior hard-coded as Jeffreys Beta(1/2, 1/2): q mean -0.35 sd, sd x0.88",
    ),
    ModelFolder(
        name="heavy_tailed",
        folder=HERE / "heavy_tailed",
        shape="Student-t likelihood (nu = 4, Newcomb's light speed), Gibbs via scale mixture",
        data_file="data.json",
        bug="off by one in sigma2's inverse-gamma shape (a + n/2 - 1): sigma2 mean +0.24 sd",
    ),
    ModelFolder(
        name="deterministic_dims",
        folder=HERE / "deterministic_dims",
        shape="pm.Deterministic and dims: normal-inverse-gamma regression, named coefficients",
        data_file="data.csv",
        bug="sigma2's shape a + (N - K)/2 (least-squares df): sigma2 mean +0.31 sd",
    ),
    ModelFolder(
        name="growth",
        folder=HERE / "growth",
        shape="hierarchical linear growth (BUGS rats), 30 lines, 65 parameters (centred), Gibbs",
        data_file="data.json",
        bug="tau2_beta's shape a + N/2 + 1 (the density's exponent): tau2_beta mean -0.30 sd",
    ),
    ModelFolder(
        name="slow_mixing",
        folder=HERE / "slow_mixing",
        shape="slow but correct: random-walk Metropolis in 50 dimensions (IAT 140-800), "
        "a 50-bump Gaussian regression",
        data_file="data.json",
        bug="Langevin-drifted proposal without the Hastings correction: every beta sd x 0.71 "
        "(-0.29 sd), log_prior +0.99 sd",
        verdict="not converged",
    ),
    ModelFolder(
        name="slow_ar1",
        folder=HERE / "slow_mixing",
        shape="slow but correct: an exact AR(1) chain with rho = 0.99 (IAT 199) on slow_mixing's "
        "posterior",
        data_file="data.json",
        bug="slow_mixing's planted bug",
        correct="sample_ar1",
        verdict="not converged",
    ),
)
"""Every zoo model, in the order the power study and the tests run them."""


def get(name: str) -> ModelFolder:
    """Return the zoo model called ``name`` (:meth:`~mcmc_pairs.comparisons.registry.Registry.get`).

    Raises
    ------
    ValueError
        Naming the known models.
    """
    return MODELS.get(name)
