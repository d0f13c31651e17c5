"""However wrong a sampler's draws, it gets a verdict and a report (issue 15).

A catalogue of pathological outputs for ``bivariate_normal`` (``x`` of shape
(chains, draws, 2)): non-finite values, constant chains, extreme magnitudes,
one draw per chain, integer and boolean draws, a chain stuck at its start.
Each is judged in one look against one PyMC run per settings (``pymc_from``),
and its page, JSON document and index row must be built without raising: the page states
the verdict, the JSON dumps with ``allow_nan=False``, and the verdict is never
``agree``.
"""

import dataclasses
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mcmc_pairs.comparisons import registry
from mcmc_pairs.comparisons.agreement import AGREE, NOT_CONVERGED
from mcmc_pairs.comparisons.report import index_entry, render_pair, to_json, write_index
from mcmc_pairs.comparisons.run import resolve_settings, run_pair
from mcmc_pairs.handrolled import bivariate_normal

SETTINGS = {"draws": 300, "tune": 200, "chains": 4, "seed": 20261122}
ONE_DRAW = {**SETTINGS, "draws": 1}
TWO_CHAINS_ONE_DRAW = {**SETTINGS, "draws": 1, "chains": 2}
QUIET = {"progress": lambda event: None}


def gibbs(data, *, draws, tune, chains, random_seed):
    """The registered, correct Gibbs sampler's draws."""
    return bivariate_normal.sample(
        data, draws=draws, tune=tune, chains=chains, random_seed=random_seed
    )


def _edited(edit):
    """A sampler returning correct Gibbs draws of ``x`` passed through ``edit(x, data)``."""

    def sample(data, *, draws, tune, chains, random_seed):
        x = gibbs(data, draws=draws, tune=tune, chains=chains, random_seed=random_seed)["x"]
        return {"x": edit(x, data)}

    sample.__qualname__ = edit.__name__
    return sample


def nan_in_one_draw(x, data):
    x[-1, x.shape[1] // 2, 0] = np.nan
    return x


def posinf_whole_chain(x, data):
    x[0] = np.inf
    return x


def neginf_whole_chain(x, data):
    x[-1, :, 1] = -np.inf
    return x


def constant_at_the_mean(x, data):
    return np.broadcast_to(data["mu"], x.shape).copy()


def one_value_per_chain(x, data):
    offsets = np.linspace(-1.0, 1.0, x.shape[0])[:, None, None]
    return np.broadcast_to(data["mu"] + offsets, x.shape).copy()


def near_plus_1e300(x, data):
    return 1e300 * (1.0 + 0.1 * (x - data["mu"]))


def near_minus_1e300(x, data):
    return -1e300 * (1.0 + 0.1 * (x - data["mu"]))


def scaled_by_1e300(x, data):
    return 1e300 * x  # squares and products overflow to inf


def int_draws(x, data):
    return x.astype(np.int64)  # truncated towards zero


def bool_draws(x, data):
    return x > data["mu"]


def chain_stuck_at_its_start(x, data):
    x[0] = x[0, :1]
    return x


WRONG = [
    (nan_in_one_draw, SETTINGS),
    (posinf_whole_chain, SETTINGS),
    (neginf_whole_chain, SETTINGS),
    (constant_at_the_mean, SETTINGS),
    (one_value_per_chain, SETTINGS),
    (near_plus_1e300, SETTINGS),
    (near_minus_1e300, SETTINGS),
    (scaled_by_1e300, SETTINGS),
    (int_draws, SETTINGS),
    (bool_draws, SETTINGS),
    (chain_stuck_at_its_start, SETTINGS),
]


@dataclasses.dataclass
class References:
    """One run of the correct Gibbs sampler per settings, whose PyMC draws the others reuse,
    and the cache directory whose ``figures/`` memo keeps the figures of PyMC's side: each
    page draws its own sampler's figures, not the same reference's again."""

    cache: Path
    runs: dict = dataclasses.field(default_factory=dict)


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    return References(tmp_path_factory.mktemp("memo"))


def reference(references, settings, pair=None):
    pair = pair or registry.get_pair("bivariate_normal")
    key = (pair.derived is None, *sorted(settings.items()))
    if key not in references.runs:
        references.runs[key] = run_pair(
            pair,
            resolve_settings(pair, **settings, max_draws=settings["draws"]),
            sampler=gibbs,
            cache=references.cache,
            **QUIET,
        )
    return references.runs[key]


def judge(references, sampler, settings, pair=None):
    """Run ``sampler`` against the reference run's PyMC draws; return (result, page, JSON)."""
    earlier = reference(references, settings, pair)
    result = run_pair(
        earlier.pair,
        resolve_settings(earlier.pair, **settings, max_draws=settings["draws"]),
        sampler=sampler,
        pymc_from=earlier,
        cache=references.cache,
        **QUIET,
    )
    page = render_pair(result)
    document = json.dumps(to_json(result), allow_nan=False)
    assert f"Verdict: {result.verdict}" in page
    assert json.loads(document)["verdict"] == result.verdict
    with tempfile.TemporaryDirectory() as out:  # the suite page's row too
        index = write_index([index_entry(result, 1.0)], Path(out)).read_text()
    assert result.verdict in index
    return result, page, document


@pytest.mark.parametrize(("edit", "settings"), WRONG, ids=[edit.__name__ for edit, _ in WRONG])
def test_wrong_draws_get_a_verdict_other_than_agree_and_a_report(references, edit, settings):
    result, _, _ = judge(references, _edited(edit), settings)
    assert result.verdict != AGREE


def test_the_correct_sampler_gets_its_report_too(references):
    result, _, _ = judge(references, gibbs, SETTINGS)
    assert result.verdict in ("agree", "inconclusive", "not converged")


@pytest.mark.parametrize("settings", [ONE_DRAW, TWO_CHAINS_ONE_DRAW], ids=["4x1", "2x1"])
def test_one_draw_per_chain_gets_a_verdict_and_a_report(references, settings):
    result, _, _ = judge(references, gibbs, settings)
    assert result.verdict == NOT_CONVERGED  # one draw per chain: no MCSE, no test, no agree


@pytest.mark.parametrize("settings", [ONE_DRAW, TWO_CHAINS_ONE_DRAW], ids=["4x1", "2x1"])
def test_one_draw_per_chain_gets_a_report_without_the_pairs_own_log_density(references, settings):
    """The harness and the report cope with one draw; only the pair's log density does not."""
    pair = dataclasses.replace(registry.get_pair("bivariate_normal"), derived=None)
    result, _, document = judge(references, gibbs, settings, pair)
    assert result.verdict != AGREE
    assert '"ess_bulk_per_second": null' in document  # no effective draws to speak of
