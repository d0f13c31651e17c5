"""Every value transform a user gives PyMC, in the zoo style: exact samplers agree, bugs are caught.

A transform the user gives (``transform=ordered``, ``sum_to_zero``, ``simplex``,
``log``, ``logodds``, ``Interval``, a ``Transform`` subclass of their own)
restricts the distribution to the transform's image. Each model below is a fixed
target whose restricted distribution NumPy draws exactly; the witness's log
density (taken without transforms) is -inf outside the image, so a sampler that
ignores the constraint fails the support check, and one that meets it with the
wrong spread fails the agreement checks. SBC's prior draws reject draws outside
the images; a constraint of probability zero is refused before any replication.
PyMC's ``LKJCorr`` (a Cholesky factor through its default Cholesky-correlation transform)
gets the same pair of tests; a Cholesky-correlation transform given to a normal, whose
restricted distribution has no exact sampler here, gets the support test alone.
"""

import numpy as np
import pytest
import xarray as xr

from mcmc_pairs.comparisons.testing import compare
from mcmc_pairs.comparisons.witness import ModelWitness, user_transforms

# ------------------------------------------------------------------ the models


def ordered_normals(data):
    """N(-2, 1), N(0, 1) and N(2, 1) restricted to increasing values (4 % of the mass is cut
    away: NUTS does not meet the transform's funnel at equal cut points)."""
    import pymc as pm
    from pymc.distributions.transforms import ordered

    with pm.Model() as model:
        pm.Normal("cut", [-2.0, 0.0, 2.0], 1.0, shape=3, transform=ordered)
    return model


def _in_order(shape, rng):
    """Exact draws of :func:`ordered_normals`: the three normals, the unordered rejected."""
    n = int(np.prod(shape[:-1]))
    kept = np.empty((0, 3))
    while len(kept) < n:
        x = rng.normal([-2.0, 0.0, 2.0], 1.0, size=(2 * n, 3))
        kept = np.concatenate([kept, x[np.all(np.diff(x, axis=1) > 0, axis=1)]])
    return kept[:n].reshape(shape)


def zero_sum_normals(data):
    """Three N(0, 1) restricted to sum zero: x - mean(x) for x ~ N(0, I), a ZeroSumNormal."""
    import pymc as pm
    from pymc.distributions.transforms import ZeroSumTransform

    with pm.Model() as model:
        pm.Normal("z", 0.0, 1.0, shape=3, transform=ZeroSumTransform([-1]))
    return model


def simplex_normals(data):
    """Three N(1/3, 0.2) restricted to the simplex (density on its first two coordinates)."""
    import pymc as pm
    from pymc.distributions.transforms import simplex

    with pm.Model() as model:
        pm.Normal("p", 1 / 3, 0.2, shape=3, transform=simplex)
    return model


def positive_normal(data):
    """Student's t (10 degrees of freedom) at 2, scale 1, restricted to x > 0 by ``transform=log``.

    Not a normal: on the log scale a normal's upper tail falls doubly exponentially,
    where NUTS diverges now and then; a t's falls exponentially."""
    import pymc as pm
    from pymc.distributions.transforms import log

    with pm.Model() as model:
        pm.StudentT("x", nu=10, mu=2.0, sigma=1.0, transform=log)
    return model


def unit_normal(data):
    """N(0.3, 0.5) restricted to (0, 1) by ``transform=logodds``."""
    import pymc as pm
    from pymc.distributions.transforms import logodds

    with pm.Model() as model:
        pm.Normal("p", 0.3, 0.5, transform=logodds)
    return model


def interval_normal(data):
    """N(0, 1) restricted to (-1, 2) by ``transform=Interval(-1, 2)``."""
    import pymc as pm
    from pymc.distributions.transforms import Interval

    with pm.Model() as model:
        pm.Normal("x", 0.0, 1.0, transform=Interval(-1.0, 2.0))
    return model


def above_one_transform():
    """A user's own transform: ``x > 1`` as ``x = 1 + exp(y)``."""
    import pytensor.tensor as pt
    from pymc.logprob.transforms import Transform

    class AboveOne(Transform):
        name = "above_one"

        def forward(self, value, *inputs):
            return pt.log(value - 1.0)

        def backward(self, value, *inputs):
            return 1.0 + pt.exp(value)

        def log_jac_det(self, value, *inputs):
            return value

    return AboveOne()


def above_one_normal(data):
    """t (10 degrees of freedom) at 3 restricted to x > 1 by a ``Transform`` of the user's own."""
    import pymc as pm

    with pm.Model() as model:
        pm.StudentT("x", nu=10, mu=3.0, sigma=1.0, transform=above_one_transform())
    return model


# -------------------------------------------------------- exact samplers, and bugs


def _truncated(mean, sd, low, high, shape, rng, df=None):
    """Normal (or ``df`` Student's t) draws at ``mean``, scale ``sd``, restricted to (low, high).

    By rejection, of ``shape``."""
    n = int(np.prod(shape))
    kept = np.empty(0)
    while kept.size < n:
        noise = rng.standard_normal(4 * n) if df is None else rng.standard_t(df, 4 * n)
        x = mean + sd * noise
        kept = np.concatenate([kept, x[(x > low) & (x < high)]])
    return kept[:n].reshape(shape)


def _on_simplex(shape, rng, *, accept=True):
    """Draws of N(1/3, 0.2)^3 on the simplex: Dirichlet(1, 1, 1) proposals, kept by density."""
    n = int(np.prod(shape[:-1]))
    kept = np.empty((0, 3))
    while len(kept) < n:
        x = rng.dirichlet(np.ones(3), size=4 * n)
        keep = np.log(rng.uniform(size=4 * n)) < -0.5 * np.sum((x - 1 / 3) ** 2, axis=1) / 0.04
        kept = np.concatenate([kept, x[keep] if accept else x])
    return kept[:n].reshape(shape)


def sampler(draw):
    """Return a sampler with the contract's signature, from ``draw(rng, (chains, draws))``."""

    def sample(data, *, draws, tune, chains, random_seed):
        return draw(np.random.default_rng(random_seed), (chains, draws))

    return sample


CASES = {
    "ordered": (
        ordered_normals,
        lambda rng, s: {"cut": _in_order((*s, 3), rng)},
        lambda rng, s: {"cut": rng.normal([-2.0, 0.0, 2.0], 1.0, size=(*s, 3))},  # WRONG: any order
        "support",
    ),
    "sum_to_zero": (
        zero_sum_normals,
        lambda rng, s: {"z": (x := rng.normal(size=(*s, 3))) - x.mean(axis=-1, keepdims=True)},
        lambda rng, s: {"z": rng.normal(size=(*s, 3))},  # WRONG: not centred
        "support",
    ),
    "simplex": (
        simplex_normals,
        lambda rng, s: {"p": _on_simplex((*s, 3), rng)},
        lambda rng, s: {"p": _on_simplex((*s, 3), rng, accept=False)},  # WRONG: uniform
        "agreement",
    ),
    "log": (
        positive_normal,
        lambda rng, s: {"x": _truncated(2.0, 1.0, 0.0, np.inf, s, rng, df=10)},
        lambda rng, s: {"x": 2.0 + rng.standard_t(10, size=s)},  # WRONG: not truncated (4 % < 0)
        "support",
    ),
    "logodds": (
        unit_normal,
        lambda rng, s: {"p": _truncated(0.3, 0.5, 0.0, 1.0, s, rng)},
        lambda rng, s: {"p": _truncated(0.3, 0.7, 0.0, 1.0, s, rng)},  # WRONG: too wide
        "agreement",
    ),
    "interval": (
        interval_normal,
        lambda rng, s: {"x": _truncated(0.0, 1.0, -1.0, 2.0, s, rng)},
        lambda rng, s: {"x": _truncated(0.0, 1.0, -1.0, 3.0, s, rng)},  # WRONG: too far
        "support",
    ),
    "custom": (
        above_one_normal,
        lambda rng, s: {"x": _truncated(3.0, 1.0, 1.0, np.inf, s, rng, df=10)},
        lambda rng, s: {"x": 3.0 + rng.standard_t(10, size=s)},  # WRONG: not truncated (4 % < 1)
        "support",
    ),
}
"""By transform: the model, its exact draws, a planted bug, and the kind of check that fails."""


RUN = {"seed": 3, "draws": 500, "tune": 500}
"""One look of 4 chains of 500 draws. Each test gives the reference cache a folder of its own:
the bug's run reads PyMC's reference from the correct sampler's (one NUTS run per model)."""


@pytest.mark.parametrize("case", list(CASES))
def test_a_users_transform_is_respected_the_exact_sampler_agrees_and_a_bug_is_caught(
    case, tmp_path
):
    build, exact, wrong, kind = CASES[case]
    assert user_transforms(build({}))  # the model gives a transform of its own
    right = compare(build, sampler(exact), {}, cache=tmp_path, **RUN)
    assert right.verdict == "agree", case
    bug = compare(build, sampler(wrong), {}, cache=tmp_path, **RUN)
    assert bug.sides["pymc"].from_cache
    failed = bug.checks[~bug.checks["passed"]]
    assert bug.verdict == "disagree" and kind in set(failed["kind"]), case


def test_only_transforms_the_user_gave_are_constraints():
    import pymc as pm
    from pymc.distributions.transforms import ordered

    with pm.Model() as model:
        pm.HalfNormal("scale")  # its default transform, log: not the user's
        pm.Uniform("u", 0.0, 1.0)  # Interval, its default
        pm.Dirichlet("w", np.ones(3))  # simplex, its default
        pm.HalfNormal("gaps", shape=2, transform=ordered)  # log, then the user's ordered
        pm.Normal("free", 0.0, 1.0)
    given = user_transforms(model)
    assert list(given) == ["gaps"] and type(given["gaps"]).__name__ == "ChainedTransform"


@pytest.mark.parametrize(
    ("case", "inside", "outside"),
    [
        ("ordered", [-1.0, 0.0, 2.0], [-1.0, 2.0, 0.0]),
        ("sum_to_zero", [1.0, -3.0, 2.0], [1.0, -3.0, 2.1]),
        ("simplex", [0.2, 0.3, 0.5], [0.2, 0.3, 0.6]),
        ("log", 0.5, -0.5),
        ("logodds", 0.3, 1.3),
        ("interval", 1.5, 2.5),
        ("custom", 1.5, 0.5),
    ],
)
def test_the_log_density_is_minus_inf_outside_the_transforms_image(case, inside, outside):
    witness = ModelWitness(CASES[case][0], {})
    (name,) = witness.variables
    values = np.asarray([inside, outside], dtype=float)
    dims = ("chain", "draw", *(f"d{k}" for k in range(values.ndim - 1)))
    logp = witness.log_density(xr.Dataset({name: (dims, values[None])}))["log_prior"].values
    assert np.isfinite(logp[0, 0]) and logp[0, 1] == -np.inf


def cholesky_normals(data):
    """Normals on the Cholesky factors of 3 x 3 correlation matrices (no exact sampler here)."""
    import pymc as pm
    from pymc.distributions.transforms import CholeskyCorrTransform

    with pm.Model() as model:
        pm.Normal("L", 0.0, 1.0, shape=(3, 3), transform=CholeskyCorrTransform(3))
    return model


def test_a_factor_whose_rows_are_not_unit_length_is_outside_a_cholesky_corr_transform():
    witness = ModelWitness(cholesky_normals, {})
    factor = np.linalg.cholesky([[1.0, 0.3, 0.2], [0.3, 1.0, 0.1], [0.2, 0.1, 1.0]])
    longer = factor.copy()
    longer[2, 2] *= 1.1  # the last row's length is no longer 1
    draws = xr.Dataset({"L": (("chain", "draw", "row", "col"), np.array([[factor, longer]]))})
    values = witness.log_density(draws)["log_prior"].values[0]
    assert np.isfinite(values[0]) and values[1] == -np.inf


def lkj_cholesky(data):
    """The Cholesky factor of a 3 x 3 LKJ(2) correlation matrix: PyMC's ``LKJCorr``, whose
    value is the factor, through its default Cholesky-correlation transform."""
    import pymc as pm

    with pm.Model() as model:
        pm.LKJCorr("L", n=3, eta=2.0)
    return model


def _lkj_factors(eta, shape, rng):
    """Exact draws (*shape, 3, 3) of the Cholesky factor of an LKJ(eta) 3 x 3 correlation matrix.

    The C-vine of Lewandowski, Kurowicka and Joe (2009): the partial correlations of
    column j are 2 Beta(b_j, b_j) - 1 with b = (eta + 1/2, eta), each row broken as a
    stick of unit length (checked once against ``pm.draw`` of ``LKJCorr``: every entry's
    mean and sd within 0.001 at 200,000 draws; each correlation's sd is 1/sqrt(6))."""
    b = (eta + 0.5, eta)
    factor = np.zeros((*shape, 3, 3))
    factor[..., 0, 0] = 1.0
    for i in (1, 2):
        left = np.ones(shape)
        for j in range(i):
            factor[..., i, j] = (2 * rng.beta(b[j], b[j], size=shape) - 1) * np.sqrt(left)
            left = left - factor[..., i, j] ** 2
        factor[..., i, i] = np.sqrt(left)
    return factor


def test_an_lkj_cholesky_factor_agrees_and_a_wrong_eta_is_caught(tmp_path):
    exact = sampler(lambda rng, s: {"L": _lkj_factors(2.0, s, rng)})
    right = compare(lkj_cholesky, exact, {}, cache=tmp_path, **RUN)
    assert right.verdict == "agree"
    wrong = sampler(lambda rng, s: {"L": _lkj_factors(1.0, s, rng)})  # WRONG: eta 1, sds 0.5
    bug = compare(lkj_cholesky, wrong, {}, cache=tmp_path, **RUN)
    failed = bug.checks[~bug.checks["passed"]]
    assert bug.verdict == "disagree" and "agreement" in set(failed["kind"])


def test_a_rounding_error_is_inside_the_image_a_planted_offset_is_not():
    witness = ModelWitness(zero_sum_normals, {})
    z = np.array([0.1, 0.2, -0.3]) * 1e3
    off = [z + 1e-12, z + 1e-3]  # 1e-15 and 1e-6 of the scale: rounding, and a bug
    logp = witness.log_density(xr.Dataset({"z": (("chain", "draw", "d"), np.array([off]))}))
    values = logp["log_prior"].values[0]
    assert np.isfinite(values[0]) and values[1] == -np.inf


# ------------------------------------------------------------ the initial point


def test_a_variable_whose_initial_point_is_not_finite_starts_at_the_origin():
    import pymc as pm
    from pymc.distributions.transforms import ordered

    from mcmc_pairs.comparisons.pymc_runner import origin_initvals, pymc_sample
    from mcmc_pairs.comparisons.settings import SamplerRun

    with pm.Model() as model:  # PyMC starts it at forward([0, 0, 0]) = [0, -inf, -inf]
        pm.Normal("cut", 0.0, 1.0, shape=3, transform=ordered)
        pm.HalfNormal("scale")
    assert not np.all(np.isfinite(model.initial_point()["cut_ordered__"]))
    origin = origin_initvals(model)
    assert list(origin) == ["cut"] and np.array_equal(origin["cut"], [0.0, 1.0, 2.0])
    settings = SamplerRun(draws=30, tune=30, chains=1, seed=0)
    tree = pymc_sample(model, settings, {}, cores=1, quiet=True)  # before: could not start
    cut = tree["posterior"]["cut"].values
    assert cut.shape == (1, 30, 3) and np.all(np.diff(cut, axis=-1) > 0)
    assert all(v is None for v in model.rvs_to_initial_values.values())  # the model unchanged
    assert origin_initvals(zero_sum_normals({})) == {}  # finite: PyMC's own start
    with pm.Model() as given:
        pm.Normal("cut", 0.0, 1.0, shape=3, transform=ordered, initval=[-1.0, 0.0, 1.0])
    assert origin_initvals(given) == {}  # the user's own initial value


# ------------------------------------------------------------------- SBC's prior


def ordinal(data):
    """The issue's ordinal probit: a slope and three N(0, 2) cut points, ordered."""
    import pymc as pm
    from pymc.distributions.transforms import ordered

    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, 1.0)
        cut = pm.Normal("cut", 0.0, 2.0, shape=3, transform=ordered)
        eta = beta * np.asarray(data["x"], dtype=float)
        pm.OrderedProbit("y", eta=eta, cutpoints=cut, sigma=1.0, observed=data["y"])
    return model


ORDINAL_DATA = {"x": np.linspace(-1.5, 1.5, 12), "y": np.array([0, 1, 1, 2, 3, 1] * 2)}


def test_sbcs_prior_draws_are_the_restricted_prior_and_reproducible():
    witness = ModelWitness(ordinal, ORDINAL_DATA)
    witness.check_generative()
    kept, by_variable = witness.prior_acceptance()
    assert kept == by_variable["cut"] and 0.1 < kept < 0.25  # 1/6 of N(0, 4)^3 is in order
    draws = np.array(
        [witness.draw_prior(ORDINAL_DATA, np.random.default_rng(k))["cut"] for k in range(400)]
    )
    assert np.all(np.diff(draws, axis=1) > 0)
    again = witness.draw_prior(ORDINAL_DATA, np.random.default_rng(7))["cut"]
    np.testing.assert_array_equal(again, draws[7])  # the same seed, the same bits
    # order statistics of three N(0, 2): means -1.69, 0, 1.69
    np.testing.assert_allclose(draws.mean(axis=0), [-1.69, 0.0, 1.69], atol=0.35)


def zero_sum_regression(data):
    """sum_to_zero on a Normal: a constraint of probability zero under the base prior."""
    import pymc as pm
    from pymc.distributions.transforms import ZeroSumTransform

    with pm.Model() as model:
        effect = pm.Normal("effect", 0.0, 1.0, shape=3, transform=ZeroSumTransform([-1]))
        pm.Normal("y", effect[np.asarray(data["group"])], 1.0, observed=data["y"])
    return model


def test_a_constraint_of_probability_zero_is_refused_before_any_replication():
    witness = ModelWitness(zero_sum_regression, {"group": [0, 1, 2], "y": [0.1, 0.2, -0.3]})
    with pytest.raises(ValueError) as refused:
        witness.check_generative()
    message = str(refused.value)
    for words in ("'effect'", "ZeroSumTransform", "0.0%", "pm.ZeroSumNormal"):
        assert words in message


def test_a_prior_draw_that_never_meets_its_constraint_is_an_error_not_a_loop():
    witness = ModelWitness(zero_sum_regression, {"group": [0, 1, 2], "y": [0.1, 0.2, -0.3]})
    assert witness.prior_acceptance() == (0.0, {"effect": 0.0})
    with pytest.raises(ValueError, match="none of 10000 prior draws lies in the images"):
        witness.draw_prior(witness.data, np.random.default_rng(0))


def test_validate_refuses_it_with_one_line_and_exit_2(tmp_path, capsys):
    import json

    from mcmc_pairs.comparisons import cli

    (tmp_path / "model.py").write_text(
        "import numpy as np\nimport pymc as pm\n"
        "from pymc.distributions.transforms import ZeroSumTransform\n\n\n"
        "def build_model(data):\n"
        "    with pm.Model() as model:\n"
        "        e = pm.Normal('effect', 0.0, 1.0, shape=3, transform=ZeroSumTransform([-1]))\n"
        "        pm.Normal('y', e[np.asarray(data['group'])], 1.0, observed=data['y'])\n"
        "    return model\n"
    )
    (tmp_path / "sampler.py").write_text(
        "def sample(data, *, draws, tune, chains, random_seed):\n    raise AssertionError\n"
    )
    (tmp_path / "data.json").write_text(json.dumps({"group": [0, 1, 2], "y": [0.1, 0.2, -0.3]}))
    argv = [
        "validate", "--model", f"{tmp_path}/model.py:build_model",
        "--data", f"{tmp_path}/data.json", "--sampler", f"{tmp_path}/sampler.py:sample",
        "--method", "sbc", "--scheduler", "synchronous", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ZeroSumTransform" in err and "pm.ZeroSumNormal" in err
    assert not (tmp_path / "out").exists()


ORDINAL_MODEL = """
import numpy as np
import pymc as pm
from pymc.distributions.transforms import ordered


def build_model(data):
    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, 1.0)
        cut = pm.Normal("cut", 0.0, 2.0, shape=3, transform=ordered)
        eta = beta * np.asarray(data["x"], dtype=float)
        pm.OrderedProbit("y", eta=eta, cutpoints=cut, sigma=1.0, observed=data["y"])
    return model
"""


@pytest.mark.slow  # about 40 s on one core: 50 replications of NUTS, 2 chains of 500 draws
def test_the_ordinal_models_sbc_passes_pymcs_own_nuts(tmp_path):
    """Issue 44: SBC failed PyMC's own NUTS (24 of 27 rank tests), its prior draws unordered.

    PyMC's initial point of the cut points is not finite, so the reference also
    starts at the origin (:func:`~mcmc_pairs.comparisons.pymc_runner.origin_initvals`).
    """
    import json

    from mcmc_pairs.comparisons import cli

    (tmp_path / "ordinal.py").write_text(ORDINAL_MODEL)
    data = {k: v.tolist() for k, v in ORDINAL_DATA.items()}
    (tmp_path / "data.json").write_text(json.dumps(data))
    argv = [
        "validate", "--model", f"{tmp_path}/ordinal.py:build_model",
        "--data", f"{tmp_path}/data.json", "--sampler", "pymc", "--method", "sbc",
        "--scheduler", "synchronous", "--replications", "50", "--draws", "500",
        "--tune", "500", "--chains", "2", "--seed", "3", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    assert cli.main(argv) == 0
    (written,) = (tmp_path / "out").glob("*_sbc.json")
    document = json.loads(written.read_text())
    assert document["verdict"] == "pass"
