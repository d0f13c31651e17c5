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

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class ZooModel:
    """One model of the zoo and where its pieces are.

    Attributes
    ----------
    name : str
        The folder under ``zoo/`` and the report's name.
    shape : str
        The model shape it adds to the suite (one line).
    data_file : str
        The data file's name in the folder (``.json``, ``.csv`` or ``.npz``).
    bug : str
        What ``sample_planted_bug`` gets wrong, and by how many posterior sds.
    sbc : bool
        Whether simulation-based calibration applies (a proper prior to simulate from).
    correct : str
        The correct sampler's function in ``sampler.py`` (default ``sample``).
    directory : str
        The folder under ``zoo/`` when it is not ``name`` (two entries, two correct
        samplers of one model).
    verdict : str
        What ``compare`` of the correct sampler says at the defaults and seed 1:
        ``agree``, or ``not converged`` for a sampler built to mix too slowly to
        reach the ESS gate within the default draws (never ``disagree``).
    """

    name: str
    shape: str
    data_file: str
    bug: str
    sbc: bool = True
    correct: str = "sample"
    directory: str = ""
    verdict: str = "agree"

    @property
    def folder(self) -> Path:
        """The model's folder."""
        return HERE / (self.directory or self.name)

    @property
    def model(self) -> str:
        """``--model`` spec: ``zoo/<name>/model.py:build_model``."""
        return f"{self.folder / 'model.py'}:build_model"

    @property
    def data(self) -> Path:
        """``--data``: the data file's path."""
        return self.folder / self.data_file

    def sampler(self, planted_bug: bool = False) -> str:
        """``--sampler`` spec of the correct sampler, or of its planted bug."""
        function = "sample_planted_bug" if planted_bug else self.correct
        return f"{self.folder / 'sampler.py'}:{function}"


MODELS: tuple[ZooModel, ...] = (
    ZooModel(
        name="changepoint",
        shape="a discrete latent variable: a switchpoint in Poisson counts (coal-mining disasters)",
        data_file="data.json",
        bug="off-by-one in the segment sums: switchpoint mean -0.46 sd, early rate +0.29 sd",
    ),
    ZooModel(
        name="mixture",
        shape="two-component normal mixture: indicators sampled (Gibbs) vs summed out (PyMC)",
        data_file="data.json",
        bug="prior-mean term left out of mu's conditional: mu[0] +0.28 sd, mu[1] -0.23 sd",
    ),
    ZooModel(
        name="hierarchical",
        shape="hierarchical normal, 60 groups, 63 parameters (centred), Gibbs",
        data_file="data.json",
        bug="tau2's prior shape and scale swapped in its conditional: tau2 mean +0.28 sd",
    ),
    ZooModel(
        name="correlated",
        shape="strongly correlated posterior: collinear regression, corr(beta1, beta2) = -0.986",
        data_file="data.json",
        bug="prior precision left out: beta1/beta2 means -/+0.32 sd, their sds 1.24x",
    ),
    ZooModel(
        name="counts",
        shape="integer counts: Poisson-gamma hierarchical model of pump failures, Gibbs",
        data_file="data.json",
        bug="beta's conditional skips pump 0 (1-based loop): beta mean -0.44 sd",
    ),
    ZooModel(
        name="boundary",
        shape="probabilities at the boundary: Beta(31, 1) (mode at 1) and Beta(2, 80), exact",
        data_file="data.json",
        bug="q's prior hard-coded as Jeffreys Beta(1/2, 1/2): q mean -0.35 sd, sd x0.88",
    ),
    ZooModel(
        name="heavy_tailed",
        shape="Student-t likelihood (nu = 4, Newcomb's light speed), Gibbs via scale mixture",
        data_file="data.json",
        bug="off by one in sigma2's inverse-gamma shape (a + n/2 - 1): sigma2 mean +0.24 sd",
    ),
    ZooModel(
        name="deterministic_dims",
        shape="pm.Deterministic and dims: normal-inverse-gamma regression, named coefficients",
        data_file="data.csv",
        bug="sigma2's shape a + (N - K)/2 (least-squares df): sigma2 mean +0.31 sd",
    ),
    ZooModel(
        name="growth",
        shape="hierarchical linear growth (BUGS rats), 30 lines, 65 parameters (centred), Gibbs",
        data_file="data.json",
        bug="tau2_beta's shape a + N/2 + 1 (the density's exponent): tau2_beta mean -0.30 sd",
    ),
    ZooModel(
        name="slow_mixing",
        shape="slow but correct: random-walk Metropolis in 50 dimensions (IAT 140-800), "
        "a 50-bump Gaussian regression",
        data_file="data.json",
        bug="Langevin-drifted proposal without the Hastings correction: every beta sd x 0.71 "
        "(-0.29 sd), log_prior +0.99 sd",
        verdict="not converged",
    ),
    ZooModel(
        name="slow_ar1",
        shape="slow but correct: an exact AR(1) chain with rho = 0.99 (IAT 199) on slow_mixing's "
        "posterior",
        data_file="data.json",
        bug="slow_mixing's planted bug",
        correct="sample_ar1",
        directory="slow_mixing",
        verdict="not converged",
    ),
)
"""Every zoo model, in the order the power study and the tests run them."""


def get(name: str) -> ZooModel:
    """Return the zoo model called ``name``.

    Raises
    ------
    KeyError
        Naming the known models.
    """
    for model in MODELS:
        if model.name == name:
            return model
    raise KeyError(f"no zoo model {name!r}; known: {[m.name for m in MODELS]}")
