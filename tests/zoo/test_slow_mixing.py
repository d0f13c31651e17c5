"""The slow-mixing zoo model (``zoo/slow_mixing``): correct but autocorrelated samplers.

The 50-bump regression's posterior is Gaussian; its mean and covariance are
computed here by augmented least squares (the prior as pseudo-observations),
independently of the sampler's normal equations. Each correct sampler (random-walk
Metropolis, AR(1)) must match every coefficient's mean and variance, and the
whitened total variance, within 4.5 Monte Carlo standard errors, the standard
errors from arviz_stats' ESS of the autocorrelated draws; the planted bug must
fail the same check. Its two correct samplers are two entries of ``zoo.MODELS``
(``slow_mixing``, ``slow_ar1``).
"""

import ast
import functools
import importlib.util
import json

import arviz_stats as azs
import numpy as np
import pytest

import zoo

FOLDER = zoo.HERE / "slow_mixing"
DRAWS, TUNE, CHAINS, SEED = 16_000, 1_000, 4, 3
"""Every sampler's run here: 64,000 draws, about 0.4 s on one core."""


def _load(module="sampler"):
    spec = importlib.util.spec_from_file_location(
        f"zoo_slow_mixing_{module}", FOLDER / f"{module}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _data():
    return json.loads((FOLDER / "data.json").read_text())


@functools.cache
def _run(function):
    """The draws (chains, draws, K) of ``sampler.py:function`` at the settings above."""
    sampler = getattr(_load(), function)
    data = _data()
    beta = sampler(data, draws=DRAWS, tune=TUNE, chains=CHAINS, random_seed=SEED)["beta"]
    assert data == _data()
    return beta


def _exact_posterior(data):
    """Mean (K,) and covariance (K, K) of beta by augmented least squares and QR."""
    x, y = np.asarray(data["x"]), np.asarray(data["y"])
    k, w = data["n_basis"], data["basis_sd"]
    centres = np.linspace(0.0, 1.0, k)
    design = np.exp(-((x[:, None] - centres) ** 2) / (2 * w**2))
    # the prior as K pseudo-observations 0 = beta_k + N(0, prior_sd^2)
    augmented = np.vstack([design / data["sigma"], np.eye(k) / data["prior_sd"]])
    target = np.concatenate([y / data["sigma"], np.zeros(k)])
    mean = np.linalg.lstsq(augmented, target, rcond=None)[0]
    r_inv = np.linalg.inv(np.linalg.qr(augmented, mode="r"))
    return mean, r_inv @ r_inv.T


def _failed_checks(beta, mean, covariance, k=4.5):
    """Names of the moments further than ``k`` MCSEs from the exact ones (ESS-based MCSE).

    ``beta`` is (chains, draws, K). Checked: each coefficient's mean, each one's
    variance (the mean of ``(beta_j - m_j)^2``) and the mean of the whitened
    squared distance ``(beta - m)' V^-1 (beta - m)``, which is K exactly.
    """
    centred = beta - mean
    whitened = np.einsum("cdj,jl,cdl->cd", centred, np.linalg.inv(covariance), centred)
    checks = {
        "mean": (beta, mean),
        "variance": (centred**2, np.diag(covariance)),
        "whitened": (whitened[..., None], np.array([mean.size])),
    }
    failed = []
    for name, (values, exact) in checks.items():
        mcse = values.std(axis=(0, 1)) / np.sqrt(azs.ess(values, method="mean"))
        z = (values.mean(axis=(0, 1)) - exact) / mcse
        failed += [f"{name}[{j}]: {z[j]:+.1f} MCSE" for j in np.flatnonzero(np.abs(z) > k)]
    return failed


def _acceptance(beta):
    """Fraction of transitions that moved, over all chains."""
    return float(np.mean(np.any(np.diff(beta, axis=1) != 0, axis=2)))


def test_files_and_no_shared_code():
    for file in ("model.py", "sampler.py", "README.md", "data.json", "simulate.py"):
        assert (FOLDER / file).is_file(), file
    for module, other in (("model", "sampler"), ("sampler", "model")):
        tree = ast.parse((FOLDER / f"{module}.py").read_text())
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                names.add(node.module or "")
        assert not any(other in n or "zoo" in n for n in names), f"{module}.py imports {names}"
    assert "pymc" not in (FOLDER / "sampler.py").read_text().replace("PyMC", "")


def test_posterior_has_moderate_correlations_and_unequal_scales():
    mean, covariance = _exact_posterior(_data())
    assert mean.shape == (50,)
    sd = np.sqrt(np.diag(covariance))
    correlation = covariance / np.outer(sd, sd)
    off_diagonal = np.abs(correlation[~np.eye(50, dtype=bool)])
    assert 0.6 < off_diagonal.max() < 0.8
    assert sd.max() / sd.min() > 5


@pytest.mark.parametrize(
    ("function", "correct"),
    [("sample", True), ("sample_ar1", True), ("sample_planted_bug", False)],
)
def test_sampler_moments_against_closed_form(function, correct):
    mean, covariance = _exact_posterior(_data())
    beta = _run(function)
    assert beta.shape == (CHAINS, DRAWS, 50)
    failed = _failed_checks(beta, mean, covariance)
    if correct:
        assert failed == []
    else:
        assert any(name.startswith("whitened") for name in failed), failed
        assert sum(name.startswith("variance") for name in failed) >= 25, failed


@pytest.mark.parametrize(("function", "low", "high"), [("sample", 0.2, 0.3), ("sample_ar1", 1, 1)])
def test_correct_samplers_mix_slowly(function, low, high):
    beta = _run(function)
    assert low <= _acceptance(beta) <= high
    iat = beta.shape[0] * beta.shape[1] / azs.ess(beta, method="mean")
    assert np.median(iat) > 100  # the folder's point: strongly autocorrelated draws


def test_each_chain_has_its_own_stream():
    data = _data()
    module = _load()
    for sampler in (module.sample, module.sample_ar1):
        two = sampler(data, draws=300, tune=50, chains=2, random_seed=9)["beta"]
        three = sampler(data, draws=300, tune=50, chains=3, random_seed=9)["beta"]
        np.testing.assert_array_equal(two, three[:2])
