"""Tests of the marginalised LDA model (models/lda.py) and the pair's alignment."""

from __future__ import annotations

import arviz_stats as azs
import numpy as np
import pymc as pm
import pytest
from scipy import stats

from mcmc_pairs.comparisons.pairs import lda as lda_pair
from mcmc_pairs.comparisons.pairs.lda import (
    PAIR,
    align,
    joint_quantities,
    log_likelihood_per_token,
    word_counts,
)
from mcmc_pairs.handrolled import lda as L
from mcmc_pairs.models import lda as models_lda
from mcmc_pairs.models.lda import build_model
from mcmc_pairs.pairdata import lda as lda_data


def tiny_data():
    """Bars on a 3 x 3 image: V = 9, K = 6, 30 documents of 60 tokens."""
    docs, topics = lda_data.bars_corpus(30, 60, 0.1, np.random.default_rng(2), side=3)
    return {"docs": docs, "V": 9, "K": 6, "alpha": 1.0, "beta": 1.0, "true_phi": topics}


@pytest.mark.usefixtures("python_linker")
def test_free_variables_match_the_handrolled_names_and_shapes():
    d = lda_data.default_data()
    model = build_model(d)
    assert {rv.name for rv in model.free_RVs} == {"theta", "phi"}
    point = model.initial_point()
    shapes = {rv.name: tuple(model[rv.name].shape.eval()) for rv in model.free_RVs}
    assert shapes == {"theta": (40, 10), "phi": (10, 25)}
    assert len(point) == 2


@pytest.mark.parametrize("dense_fill", [0.0, 1.1], ids=["dense", "observed cells"])
@pytest.mark.usefixtures("python_linker")
def test_logp_is_dirichlet_priors_plus_marginal_likelihood(dense_fill, monkeypatch):
    """Both expressions of the likelihood (theta @ phi, or the observed cells only)."""
    monkeypatch.setattr(models_lda, "DENSE_FILL", dense_fill)
    d = tiny_data()
    model = build_model(d)
    rng = np.random.default_rng(0)
    theta = rng.dirichlet(np.ones(6), size=30)
    phi = rng.dirichlet(np.ones(9), size=6)
    point = {}
    for name, value in (("theta", theta), ("phi", phi)):
        rv = model[name]
        value_var = model.rvs_to_values[rv]
        point[value_var.name] = model.rvs_to_transforms[rv].forward(value).eval()
    got = model.compile_logp(jacobian=False)(point)
    counts = word_counts(d)
    want = (
        sum(stats.dirichlet.logpdf(t, np.ones(6)) for t in theta)
        + sum(stats.dirichlet.logpdf(p, np.ones(9)) for p in phi)
        + log_likelihood_per_token(theta, phi, counts) * counts.sum()
    )
    assert got == pytest.approx(want, rel=1e-9)


def test_bad_data_raises():
    with pytest.raises(ValueError, match="docs"):
        build_model({"docs": [], "V": 3, "K": 2, "alpha": 1.0, "beta": 1.0})
    with pytest.raises(ValueError, match="K"):
        build_model({"docs": [np.array([0])], "V": 3, "K": 1, "alpha": 1.0, "beta": 1.0})


def test_align_undoes_a_permutation_of_topics():
    tree = L.sample(tiny_data(), draws=50, tune=100, chains=1, random_seed=4)
    post = tree["posterior"].to_dataset()
    perm = np.array([3, 0, 5, 1, 4, 2])
    shuffled = post.copy()
    shuffled["phi"] = post["phi"].copy(data=post["phi"].values[:, :, perm, :])
    shuffled["theta"] = post["theta"].copy(data=post["theta"].values[:, :, :, perm])
    target = post.mean(("chain", "draw"))
    back = align(shuffled, target)
    np.testing.assert_array_equal(back["phi"].values, post["phi"].values)
    np.testing.assert_array_equal(back["theta"].values, post["theta"].values)


@pytest.fixture(scope="module")
def both_sides():
    d = tiny_data()
    with build_model(d):
        nuts = pm.sample(
            draws=500,
            tune=500,
            chains=2,
            random_seed=1,
            progressbar=False,
            compute_convergence_checks=False,
        )
    gibbs = L.sample(d, draws=1000, tune=200, chains=2, random_seed=1)
    nuts_post = nuts["posterior"].to_dataset()
    target = nuts_post.isel(chain=[0]).mean(("chain", "draw"))
    return d, align(nuts_post, target), align(gibbs["posterior"].to_dataset(), target)


@pytest.mark.slow  # their fixture runs NUTS on the LDA model (about 11 s)
def test_nuts_and_gibbs_agree_on_the_tiny_bars(both_sides):
    """MCSE-scaled z of the means of phi and the joint quantities, Bonferroni-corrected."""
    d, nuts, gibbs = both_sides
    qs = {}
    for label, post in (("nuts", nuts), ("gibbs", gibbs)):
        phi = post["phi"].stack(q=post["phi"].dims[2:])
        derived = joint_quantities(post, d, {})
        qs[label] = [phi.isel(q=j) for j in range(phi.sizes["q"])] + list(derived.values())
    n = len(qs["nuts"])
    threshold = stats.norm.ppf(1 - 0.01 / (2 * n))
    for a, b in zip(qs["nuts"], qs["gibbs"], strict=True):
        assert float(azs.rhat(a)) < 1.05 and float(azs.rhat(b)) < 1.05
        z = (float(a.mean()) - float(b.mean())) / np.hypot(float(azs.mcse(a)), float(azs.mcse(b)))
        assert abs(z) < threshold


@pytest.mark.slow  # their fixture runs NUTS on the LDA model (about 11 s)
def test_both_sides_recover_the_true_bars(both_sides):
    d, nuts, gibbs = both_sides
    from mcmc_pairs.comparisons.pairs.lda import hellinger_matrix, topic_permutation

    for post in (nuts, gibbs):
        mean_phi = post["phi"].mean(("chain", "draw")).values
        perm = topic_permutation(mean_phi, d["true_phi"])
        assert np.diag(hellinger_matrix(mean_phi[perm], d["true_phi"])).max() < 0.3


def test_pair_is_registered_with_alignment():
    assert PAIR.align is align
    assert PAIR.variables == ("theta", "phi")
    assert PAIR.model == "mcmc_pairs.models.lda:build_model"


def test_log_likelihood_in_chunks_of_draws_is_the_whole_computation(monkeypatch):
    """Chunks of draws (down to one draw) give the formula's value, to rounding."""
    rng = np.random.default_rng(3)
    theta = rng.dirichlet(np.ones(6), size=(2, 7, 30))
    phi = rng.dirichlet(np.ones(9), size=(2, 7, 6))
    counts = word_counts(tiny_data())
    rows, cols = np.nonzero(counts)
    phi_t = np.swapaxes(phi, -1, -2)
    rate = np.einsum("...dk,...dk->...d", theta[..., rows, :], phi_t[..., cols, :])
    want = (np.log(rate) * counts[rows, cols]).sum(axis=-1) / counts.sum()
    for chunk in (1, 5 * len(rows) * 6, 2**20):
        monkeypatch.setattr(lda_pair, "LOGLIK_CHUNK_VALUES", chunk)
        got = log_likelihood_per_token(theta, phi, counts)
        assert got.shape == (2, 7)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    one = log_likelihood_per_token(theta[0, 0], phi[0, 0], counts)
    assert one == pytest.approx(want[0, 0], rel=1e-13)
