"""Samplers that only look right (issue 31, part 3): each honesty check, in pairs.

The probes: four copies of one AR(1) chain (R-hat 1.0015, ``agree``), a sampler
returning the reference's own draws (max |z| = 0, ``agree``), a sampler that
ignores its seed. Each is caught, and a correct counterpart is not: independent
AR(1) chains (rho 0.9 and 0.999), independent draws, a seeded sampler. The
end-to-end runs compare ``bivariate_normal`` samplers with stored exact draws
(``--reference``), so no PyMC sampling runs.
"""

import contextlib
import io
import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from arviz_base import from_dict

from mcmc_pairs.comparisons import agreement, honesty, registry
from mcmc_pairs.comparisons.contract import call_sampler
from mcmc_pairs.comparisons.kinds import HONESTY_KINDS, CheckKind
from mcmc_pairs.comparisons.run import resolve_settings, run_pair
from mcmc_pairs.handrolled import bivariate_normal
from tests.test_contracts import errors

SEEDS = range(10)


def ar1(rng, rho: float, chains: int = 4, draws: int = 1000) -> np.ndarray:
    """Stationary AR(1) chains with unit innovations, shape (chain, draw)."""
    x = np.empty((chains, draws))
    x[:, 0] = rng.normal(size=chains) / np.sqrt(1 - rho**2)
    noise = rng.normal(size=(chains, draws))
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    return x


def quantities(*columns: np.ndarray, names=None) -> xr.DataArray:
    """Stack (chain, draw) arrays as the quantities of one side."""
    names = names or [f"q{k}" for k in range(len(columns))]
    return xr.DataArray(
        np.stack(columns, axis=-1), dims=("chain", "draw", "quantity"), coords={"quantity": names}
    )


def independent(x: np.ndarray, discrete=()) -> dict:
    return honesty.independence_check("user", quantities(x), list(discrete))


def test_four_copies_of_one_ar1_chain_are_flagged_and_independent_chains_are_not():
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        one = ar1(rng, 0.9, chains=1)
        copies = independent(np.repeat(one, 4, axis=0))
        assert not copies.passed and copies.value == pytest.approx(1.0)
        for rho in (0.9, 0.999):  # the slow mixer's chains correlate widely, by chance alone
            row = independent(ar1(rng, rho))
            assert row.passed, (seed, rho, row.note)


def test_near_identical_chains_are_flagged():
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        one = ar1(rng, 0.9, chains=1)
        near = np.repeat(one, 4, axis=0) + 0.2 * one.std() * rng.normal(size=(4, 1000))
        row = independent(near)
        assert not row.passed and row.value > 0.9, row.note
        assert row.p < row.level and "chains" in row.note


def test_constant_and_rarely_moving_quantities_are_not_tested():
    rng = np.random.default_rng(3)
    constant = np.full((4, 1000), 2.0)
    assert independent(constant).passed
    assert "no quantity moves enough" in independent(constant).note
    jump = np.zeros((4, 1000))
    jump[:, 500:] = 1.0  # one shared jump: r = 1, but two moves are no evidence
    assert independent(jump, discrete=["q0"]).passed
    coin = (rng.random((4, 1000)) < 0.3).astype(float)  # a discrete quantity that moves
    assert independent(coin, discrete=["q0"]).passed
    assert not independent(np.repeat(coin[:1], 4, axis=0), discrete=["q0"]).passed


def test_bartlett_sd_matches_the_spread_of_independent_chains_correlations():
    rng = np.random.default_rng(11)
    z = []
    for _ in range(50):
        _, r, sd = honesty.chain_correlations(ar1(rng, 0.9)[..., None])
        z.append((r / sd).ravel())
    assert 0.8 < np.std(np.concatenate(z)) < 1.25  # 300 correlations in units of Bartlett's sd


def test_draws_of_the_reference_are_flagged_as_copies_and_other_draws_are_not():
    rng = np.random.default_rng(4)
    reference = quantities(rng.normal(size=(4, 500)), rng.integers(0, 3, (4, 500)).astype(float))
    discrete = ["q1"]
    same = honesty.copy_check("user", reference.copy(), reference, discrete)
    assert not same.passed and same.value == 1.0 and same.quantity == "q0"
    values = reference.values.reshape(-1, 2)[rng.permutation(2000)].reshape(4, 500, 2)
    shuffled = honesty.copy_check("user", reference.copy(data=values), reference, discrete)
    assert not shuffled.passed and shuffled.value == 1.0  # copies at other positions
    other = quantities(rng.normal(size=(4, 500)), rng.integers(0, 3, (4, 500)).astype(float))
    row = honesty.copy_check("user", other, reference, discrete)
    assert row.passed and row.value == 0.0  # the equal discrete values do not count


def test_chains_that_are_shifts_or_reversals_of_one_chain_are_flagged():
    """Issue 39: equal-index correlation alone let these through, ESS overstated fourfold."""
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        one = ar1(rng, 0.9, chains=1)[0]
        shifted = np.stack([np.roll(one, 250 * k) for k in range(4)])
        reversed_ = np.stack([one, one[::-1], np.roll(one, 500), np.roll(one, 500)[::-1]])
        for chains in (shifted, reversed_):
            row = independent(chains)
            assert not row.passed, row.note
            assert row.statistic == honesty.SHARED and "share 100%" in row.note
        metropolis = np.repeat(ar1(rng, 0.5, draws=250), 4, axis=1)  # each value held 4 steps
        assert independent(metropolis).passed


def near_copy(side: np.ndarray, reference: np.ndarray) -> dict:
    return honesty.near_copy_check("user", quantities(side), quantities(reference))


def test_near_copies_of_the_reference_are_flagged_and_independent_draws_are_not():
    """Noise of 1e-6 sd, float32, a shift per chain: no value equal, every draw followed."""
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        reference = ar1(rng, 0.9)
        sd = reference.std()
        copies = {
            "noise": reference + 1e-6 * sd * rng.normal(size=reference.shape),
            "float32": reference.astype(np.float32).astype(float),
            "shift": reference + 1e-9 * np.arange(1, 5)[:, None],
        }
        for how, side in copies.items():
            assert not np.isin(side, reference).any() or how == "float32"
            row = near_copy(side, reference)
            assert not row.passed and row.value > 0.99, (seed, how, row.note)
        for rho in (0.9, 0.999):  # slow mixers correlate widely by chance: not flagged
            row = near_copy(ar1(rng, rho), ar1(rng, rho))
            assert row.passed, (seed, rho, row.note)


def test_near_copy_check_uses_the_draws_both_sides_have():
    rng = np.random.default_rng(2)
    reference = ar1(rng, 0.5, draws=2000)
    row = near_copy(reference[:, :1000] + 1e-6 * rng.normal(size=(4, 1000)), reference)
    assert not row.passed and "4 of 16 chain pairs" in row.note  # chain c with chain c


def clock_seeded(data, *, draws, tune, chains, random_seed):
    import time

    rng = np.random.default_rng(int(time.time()))  # "a fresh seed every run"
    return {"x": rng.normal(size=(chains, draws, 2))}


def test_a_sampler_seeded_from_the_clock_is_flagged_however_fast_its_calls():
    def call(draws, tune):
        return call_sampler("s", clock_seeded, {}, draws=draws, tune=tune, chains=2, random_seed=7)

    import time

    before = time.time()
    row = honesty.reproducibility_check("user", call, 7)
    assert not row.passed and row.value == 1.0
    assert abs(time.time() - before) < 60  # the clock is the real one again


def seeded(data, *, draws, tune, chains, random_seed):
    rng = np.random.default_rng(random_seed)
    return {"x": rng.normal(size=(chains, draws, 2))}


def global_generator(data, *, draws, tune, chains, random_seed):
    return {"x": np.random.normal(size=(chains, draws, 2))}  # noqa: NPY002 - ignores its seed


@pytest.mark.parametrize("timeout", [None, 30.0])  # in a fork too, which copies the state
def test_a_sampler_ignoring_its_seed_is_flagged_and_a_seeded_one_is_not(timeout):
    def rerun(sampler):
        def call(draws, tune):
            kwargs = dict(draws=draws, tune=tune, chains=2, random_seed=7, timeout=timeout)
            return call_sampler("s", sampler, {}, **kwargs)

        return call

    assert honesty.reproducibility_check("user", rerun(seeded), 7).passed
    state = np.random.get_state()  # noqa: NPY002
    row = honesty.reproducibility_check("user", rerun(global_generator), 7)
    assert not row.passed and row.value == 1.0 and "seed 7" in row.note
    assert np.array_equal(np.random.get_state()[1], state[1])  # noqa: NPY002 - restored


def test_a_failed_honesty_check_alone_makes_disagree():
    checks = pd.DataFrame(
        [
            {"side": "user", "kind": CheckKind.DIAGNOSTIC, "passed": True},
            {"side": "user", "kind": CheckKind.AGREEMENT, "passed": True, "equivalent": True},
            {"side": "user", "kind": CheckKind.INDEPENDENCE, "passed": True},
        ]
    )
    assert agreement.verdict_of(checks) == agreement.AGREE
    for kind in (CheckKind.INDEPENDENCE, CheckKind.COPY, CheckKind.REPRODUCIBILITY):
        failed = pd.concat(
            [checks, pd.DataFrame([{"side": "user", "kind": kind, "passed": False}])]
        )
        assert agreement.verdict_of(failed) == agreement.DISAGREE


# End to end: bivariate_normal against stored exact draws (no PyMC sampling).

SETTINGS = {"draws": 500, "tune": 100, "chains": 4, "seed": 20261122}


def exact_draws(chains=4, draws=2000, seed=5) -> np.ndarray:
    """Independent draws of the pair's target N((5, -1), [[1, 1], [1, 4]]): (chain, draw, 2)."""
    cov = np.array([[1.0, 1.0], [1.0, 4.0]])
    return np.random.default_rng(seed).multivariate_normal([5.0, -1.0], cov, size=(chains, draws))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    path = tmp_path_factory.mktemp("honesty") / "exact.nc"
    from_dict({"posterior": {"x": exact_draws(draws=500)}}).to_netcdf(path)
    return str(path)


def gibbs(data, *, draws, tune, chains, random_seed):
    return bivariate_normal.sample(
        data, draws=draws, tune=tune, chains=chains, random_seed=random_seed
    )


def chain_copies(data, *, draws, tune, chains, random_seed):
    x = gibbs(data, draws=draws, tune=tune, chains=1, random_seed=random_seed)["x"]
    return {"x": np.repeat(x, chains, axis=0)}


def the_references_draws(data, *, draws, tune, chains, random_seed):
    return {"x": exact_draws(draws=500)[:chains, :draws].copy()}


def noisy_reference(data, *, draws, tune, chains, random_seed):
    x = exact_draws(draws=500)[:chains, :draws]
    return {"x": x + 1e-6 * np.random.default_rng(random_seed).normal(size=x.shape)}


def shifted_chains(data, *, draws, tune, chains, random_seed):
    x = gibbs(data, draws=draws, tune=tune, chains=1, random_seed=random_seed)["x"]
    return {"x": np.stack([np.roll(x[0], k * draws // chains, axis=0) for k in range(chains)])}


def unseeded_gibbs(data, *, draws, tune, chains, random_seed):
    seed = int(np.random.randint(2**31))  # noqa: NPY002 - ignores random_seed
    return gibbs(data, draws=draws, tune=tune, chains=chains, random_seed=seed)


def compare(sampler, reference):
    pair = registry.get_pair("bivariate_normal")
    kwargs = dict(sampler=sampler, reference=reference, progress=lambda event: None)
    settings = resolve_settings(pair, **SETTINGS, max_draws=SETTINGS["draws"])
    return run_pair(pair, settings, **kwargs)


def honesty_rows(result) -> pd.DataFrame:
    return result.checks[result.checks["kind"].isin(HONESTY_KINDS)].set_index("kind")


@pytest.mark.parametrize(
    "sampler, failed",
    [
        (gibbs, set()),
        (chain_copies, {"independence"}),
        (the_references_draws, {"copy"}),
        (unseeded_gibbs, {"reproducibility"}),
        (noisy_reference, {"copy"}),
        (shifted_chains, {"independence"}),
    ],
)
def test_compare_catches_each_and_passes_a_correct_sampler(reference, sampler, failed):
    result = compare(sampler, reference)
    rows = honesty_rows(result)
    assert list(rows.index) == ["independence", "copy", "copy", "reproducibility"]
    assert {kind for kind, ok in rows["passed"].items() if not ok} == failed
    # at 500 draws the correct sampler's resolution is not reached yet: inconclusive
    assert result.verdict == ("disagree" if failed else "inconclusive")


def test_the_finding_is_in_the_json_the_page_and_the_terminal(reference, monkeypatch):
    from mcmc_pairs.comparisons import cli, html, report
    from mcmc_pairs.comparisons.report import honesty_sentence, to_json, verdict_sentence

    result = compare(chain_copies, reference)
    document = json.loads(json.dumps(to_json(result), allow_nan=False))
    assert errors("compare", document) == []
    found = {c["kind"]: c for c in document["checks"] if c["kind"] in HONESTY_KINDS}
    assert not found["independence"]["passed"] and found["independence"]["value"] == 1.0
    assert found["copy"]["passed"] and found["reproducibility"]["passed"]
    assert document["sides"]["user"]["verdict"] == "disagree"
    assert "fails an honesty check" in verdict_sentence(result)
    assert (
        "its chains are copies of one chain, shifted, reversed or shuffled: chains 0 and 1 "
        "share 100%" in honesty_sentence(result)
    )
    monkeypatch.setattr(html, "figure", lambda *args, alt: "")  # the page's words only
    monkeypatch.setattr(report, "_diagnostic_figures", lambda result: [])
    page = report.render_pair(result)
    assert "Honesty checks failed" in page and "chains 0 and 1" in page
    assert page.index("Verdict: disagree") < page.index("Honesty checks failed")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli._print_summary(result)
    printed = out.getvalue()
    assert "honesty of user: independence FAILED, copy passed, reproducibility passed" in printed
    assert "    FAILED: user, independence of its chains: chains 0 and 1 share 100%" in printed


def test_reproducibility_is_checked_where_the_harness_calls_a_sampler_with_the_seed():
    from mcmc_pairs.comparisons.numpyro_side import NumpyroSampler
    from mcmc_pairs.comparisons.registry import get_pair
    from mcmc_pairs.comparisons.run import _witness, resolve_settings
    from mcmc_pairs.comparisons.side_kinds import SideUnderTest, source_under_test

    pair = get_pair("mh_normal")
    data = pair.load_data()
    witness, shapes = _witness(pair, data)
    settings = resolve_settings(pair, draws=20, tune=10, chains=2, seed=1)
    side = SideUnderTest(pair, "user", "user", data, settings, witness, shapes, None, {})
    assert source_under_test(seeded, side).rerun is not None  # a hand-written sampler
    step = source_under_test("pymc-step:pymc.step_methods.metropolis:Metropolis", side)
    assert step.rerun is not None  # PyMC under test
    port = NumpyroSampler("model.py:model", ("x",))  # NUTS from PRNGKey(seed), not the user's
    assert source_under_test(port, side).rerun is None
