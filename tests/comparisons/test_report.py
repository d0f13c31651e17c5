"""`mcmc-pairs report` and the compare pages: the verdict shown is the run's verdict, exactly.

One known-agreeing run (the bivariate Gibbs sampler at its defaults) and one
known-disagreeing run (the same pair with a Gibbs sampler that forgets the
conditional's shrinkage): each assertion would fail on the other's report.
"""

import dataclasses
import json
import re
from html.parser import HTMLParser

import pytest

from mcmc_pairs.comparisons import cli, execution, registry
from mcmc_pairs.comparisons.report import write_index
from mcmc_pairs.comparisons.settings import Settings

WRONG = "mcmc_pairs.handrolled.wrong_samplers:bivariate_gibbs_without_shrinkage"


class _ClassText(HTMLParser):
    """The text of every element of one class, in page order."""

    def __init__(self, cls: str):
        super().__init__()
        self.cls, self.depth, self.found = cls, 0, []

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += 1
        elif self.cls in (dict(attrs).get("class") or "").split():
            self.depth = 1
            self.found.append("")

    def handle_endtag(self, tag):
        self.depth = max(0, self.depth - 1)

    def handle_data(self, data):
        if self.depth:
            self.found[-1] += data


def texts(page: str, cls: str) -> list[str]:
    parser = _ClassText(cls)
    parser.feed(page)
    return parser.found


def report(tmp_path, monkeypatch, pair):
    monkeypatch.setattr(registry, "PAIRS", (pair,))
    code = cli.main(["report", "--out", str(tmp_path)])
    return code, tmp_path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """``report`` on the agreeing and on the disagreeing pair: (exit code, directory) each."""
    out = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        right = registry.get_pair("bivariate_normal")
        wrong = dataclasses.replace(right, handrolled={"shrinkless": WRONG})
        for name, pair in (("agree", right), ("disagree", wrong)):
            out[name] = report(tmp_path_factory.mktemp(name), monkeypatch, pair)
    return out


@pytest.mark.parametrize(("verdict", "exit_code"), [("agree", 0), ("disagree", 1)])
def test_report_states_the_verdict_and_exits_with_its_code(runs, verdict, exit_code):
    code, out = runs[verdict]
    assert code == exit_code
    document = json.loads((out / "bivariate_normal.json").read_text())
    assert document["verdict"] == verdict
    page = (out / "bivariate_normal.html").read_text()
    assert texts(page, "verdict") == [f"Verdict: {verdict}"]
    assert re.search(r"<title>bivariate_normal: ([a-z ]+)</title>", page)[1] == verdict
    index = (out / "index.html").read_text()
    assert texts(index, "pair-verdict") == [verdict]
    assert 'href="bivariate_normal.html"' in index


def test_every_side_has_its_role_and_verdict_in_the_json(runs):
    for name, variant in (("agree", "gibbs"), ("disagree", "shrinkless")):
        sides = json.loads((runs[name][1] / "bivariate_normal.json").read_text())["sides"]
        assert {label: side["role"] for label, side in sides.items()} == {
            f"handrolled:{variant}": "handrolled",
            "pymc": "pymc",
        }
        assert sides[f"handrolled:{variant}"]["verdict"] == name and "verdict" not in sides["pymc"]


def test_every_check_names_the_side_it_judges(runs):
    checks = json.loads((runs["disagree"][1] / "bivariate_normal.json").read_text())["checks"]
    by_comparison = {(c["comparison"], c["side"]) for c in checks}
    assert by_comparison == {
        ("handrolled:shrinkless vs pymc", "handrolled:shrinkless"),
        ("handrolled:shrinkless vs exact", "handrolled:shrinkless"),
        ("handrolled:shrinkless", "handrolled:shrinkless"),
        ("pymc vs exact", "pymc"),
        ("pymc", "pymc"),
    }
    assert any(not c["passed"] and c["side"] == "handrolled:shrinkless" for c in checks)


def test_an_agree_report_states_the_resolution_it_certifies(runs):
    code, out = runs["agree"]
    document = json.loads((out / "bivariate_normal.json").read_text())
    tolerance = document["resolution"]["tolerance"]
    assert tolerance == {"mean": 0.2, "sd": 0.2, "q50": 0.2, "q5": 0.4, "q95": 0.4}
    reached = document["resolution"]["reached"]
    assert set(reached) == set(tolerance) and all(reached[k] < tolerance[k] for k in reached)
    certified = [c for c in document["checks"] if c["equivalent"] is not None]
    assert max(c["resolution"] for c in certified if c["statistic"] == "z(mean)") == reached["mean"]
    products = [c for c in document["checks"] if c["quantity"] == "x[0]*x[1]"]
    assert {c["statistic"]: c["tolerance"] for c in products if c["kind"] == "agreement"} == {
        "z(mean)": 0.2, "z(sd)": None, "z(q5)": None, "z(q50)": None, "z(q95)": None,
    }  # fmt: skip
    page = (out / "bivariate_normal.html").read_text()
    assert "Resolution reached" in page and "less than 0.2 posterior sd" in page
    assert document["looks"][-1]["verdicts"]["handrolled:gibbs"] == "agree"


def test_index_shows_speed_ratios_below_one(tmp_path):
    entry = {
        "name": "regression", "title": "t", "verdict": "agree", "seconds": 1.0,
        "sides": [
            {"variant": "gibbs", "role": "handrolled", "ess_per_second": 4.7e3},
            {"variant": "blocked", "role": "handrolled", "ess_per_second": 2.4e6},
            {"variant": "pymc", "role": "pymc", "ess_per_second": 1e4},
        ],
    }  # fmt: skip
    page = write_index([entry], tmp_path).read_text()
    assert "gibbs: 4.7k/s (0.47x PyMC)" in page
    assert "blocked: 2.4M/s (240x PyMC)" in page
    assert "pymc: 10k/s<" in page  # the reference gets no ratio
    assert texts(page, "pair-verdict") == ["agree"]


def test_a_failed_pair_is_listed_with_its_error(tmp_path):
    entry = {"name": "lda", "title": "t", "verdict": "error", "seconds": 2.0, "error": "boom"}
    page = write_index([entry], tmp_path).read_text()
    assert texts(page, "pair-verdict") == ["error"]
    assert "boom" in page and 'href="lda.html"' not in page


def _sentence(verdict, failed_kind):
    from types import SimpleNamespace

    import pandas as pd

    from mcmc_pairs.comparisons.report import verdict_sentence

    rows = [
        ("agreement", "x[0]", "z(mean)", 0.5, 3.9, True),
        ("multivariate", "all", "energy", 0.09, 0.035, failed_kind != "multivariate"),
        ("diagnostic", "x[0]", "r_hat", 1.2, 1.01, failed_kind != "diagnostic"),
    ]
    checks = pd.DataFrame(
        rows, columns=["kind", "quantity", "statistic", "value", "threshold", "passed"]
    ).assign(comparison="user vs pymc", side="user", gross=False)
    sides = {
        "user": SimpleNamespace(role="user", variant="user", sampler="user", stored=False),
        "pymc": SimpleNamespace(role="pymc", variant="pymc", sampler="NUTS", stored=False),
    }
    result = SimpleNamespace(
        verdict=verdict,
        checks=checks,
        sides=sides,
        pair=SimpleNamespace(variables=("x",)),
        settings=Settings.resolve(tolerance=0.2, draws=1000),
        looks=[{"draws": 1000}],
        cannot_grow=[],
    )
    return verdict_sentence(result)


def test_the_verdict_sentence_names_what_failed():
    assert "joint distribution differs" in _sentence("disagree", "multivariate")
    assert "outside the support" not in _sentence("disagree", "multivariate")
    assert _sentence("not converged", "diagnostic").startswith("Not converged: 1 convergence")


def test_the_resolution_rests_on_the_sides_that_decide_not_on_second_references():
    from mcmc_pairs.comparisons.report import deciding_checks, resolution_table
    from mcmc_pairs.comparisons.run import resolve_settings, run_pair

    pair = registry.get_pair("mh_normal")
    settings = resolve_settings(pair, draws=300, tune=300, chains=2, max_draws=300)
    result = run_pair(pair, settings, progress=lambda event: None)
    assert "pymc:metropolis" in set(result.checks["side"])
    assert "pymc:metropolis" not in set(deciding_checks(result)["side"])
    z = deciding_checks(result)
    z = z[z["tolerance"].notna()]
    table = resolution_table(result)
    assert table.max().max() == z["resolution"].max()


@pytest.mark.slow  # two reports, each pair's PyMC model compiled in three processes: ~30 s
def test_pairs_on_worker_processes_give_the_sequential_reports(tmp_path, monkeypatch):
    """`report` on two workers: every pair's checks as on one, the index in registry order."""
    pairs = tuple(registry.get_pair(name) for name in ("mh_beta", "bayes_net"))
    monkeypatch.setattr(registry, "PAIRS", pairs)
    monkeypatch.setenv("MCMC_PAIRS_FIGURES", "off")  # checks and order, not pictures
    outputs = {}
    for cores in (1, 2):
        monkeypatch.setattr(execution, "available_cores", lambda cores=cores: cores)
        out = tmp_path / str(cores)
        # --no-cache: the second report runs PyMC on its workers too, not from the first's cache
        assert cli.main(["report", "--out", str(out), "--no-cache"]) == 0
        outputs[cores] = out
    for pair in pairs:
        one, two = (json.loads((outputs[c] / f"{pair.name}.json").read_text()) for c in (1, 2))
        assert one["checks"] == two["checks"] and one["verdict"] == two["verdict"] == "agree"
    index = (outputs[2] / "index.html").read_text()
    assert index.index('href="mh_beta.html"') < index.index('href="bayes_net.html"')


def test_one_draw_in_thousands_outside_the_support_is_not_said_as_zero_percent():
    """Issue 39: 1 non-finite draw in 4,000 was printed as "0.0 % of the draws"."""
    from dataclasses import replace

    from mcmc_pairs.comparisons.kinds import CheckKind, Measure
    from mcmc_pairs.comparisons.report import describe_check
    from mcmc_pairs.comparisons.stats.checks import Check

    row = Check("user", "user", CheckKind.SUPPORT, "x", Measure.NON_FINITE, 1 / 4000, 0.0, False)
    assert "0.025% of the draws of x are not finite" in describe_check(row)
    assert "50.0% of the draws" in describe_check(replace(row, value=0.5))


def _ar1(rho, chains=4, draws=4000, seed=0):
    """Stationary AR(1) chains with N(0, 1) marginals, shape (chain, draw, quantity=2)."""
    import numpy as np
    import xarray as xr

    rng = np.random.default_rng(seed)
    x = np.empty((chains, draws, 2))
    x[:, 0] = rng.standard_normal((chains, 2))
    noise = np.sqrt(1 - rho**2) * rng.standard_normal((chains, draws, 2))
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    return xr.DataArray(x, dims=("chain", "draw", "quantity"), coords={"quantity": ["a", "b"]})


def _lag1(values):
    """Mean lag-1 autocorrelation of (chain, draw, quantity) values over chains and quantities."""
    import numpy as np

    x = values - values.mean(axis=1, keepdims=True)
    return float(np.mean((x[:, 1:] * x[:, :-1]).sum(axis=1) / (x**2).sum(axis=1)))


def test_rank_plots_thin_each_chain_to_near_independent_draws():
    from mcmc_pairs.comparisons.report import RANK_MAX_DRAWS, rank_step

    slow = _ar1(0.99)
    step = rank_step(slow)
    kept = slow.values[:, ::step]
    assert _lag1(kept) < 0.1  # what the band and p-value assume
    # ...where thinning to RANK_MAX_DRAWS alone (the page before) left them dependent
    assert _lag1(slow.values[:, :: 4000 // RANK_MAX_DRAWS]) > 0.8
    assert rank_step(_ar1(0.0, draws=1000)) in (2, 3)  # iid: about two per effective draw


def _rank_p(dataset):
    """The p on a rank plot's panel (arviz-stats' multi-chain uniformity test), per variable."""
    import arviz_stats  # noqa: F401  (the .azstats accessor)

    ranks = dataset.azstats.compute_ranks(dim=("chain", "draw"), relative=True)
    test = ranks.azstats.mchain_uniformity_test(dim=("chain", "draw"))[0]
    return {name: float(p) for name, p in test.items()}


def test_rank_plots_test_near_independent_untied_draws():
    """20 seeds: correct slow or 0/1 chains pass at 1 %, wrong ones are caught (paired).

    Measured over 40 seeds: correct AR(1) chains with rho = 0.99 (4 x 4,000) rejected
    40 times thinned to 500 a chain (the page before), 0 times by ``near_independent``;
    correct 0/1 chains 40 and 1; one chain of four moved by 0.5 sd (rho = 0.9) caught
    36 times, one 0/1 chain with P(1) = 0.4 against 0.3, 30 times.
    """
    import numpy as np
    import xarray as xr

    from mcmc_pairs.comparisons.report import near_independent

    def rejected(draws, thin=None) -> bool:
        dataset = xr.Dataset({"q": (("chain", "draw"), draws)})
        if thin is None:
            dataset = near_independent(dataset)["posterior"].to_dataset()
        else:
            dataset = dataset.isel(draw=slice(None, None, thin))
        return _rank_p(dataset)["q"] < 0.01

    counts = dict.fromkeys(("slow", "slow_500", "coin", "coin_500", "moved", "unfair"), 0)
    for seed in range(20):
        slow = _ar1(0.99, seed=seed).sel(quantity="a").values
        coin = (np.random.default_rng([seed, 1]).random((4, 4000)) < 0.3).astype(float)
        moved = _ar1(0.9, seed=seed).sel(quantity="a").values
        moved[0] += 0.5
        unfair = np.random.default_rng([seed, 2]).random((4, 4000)) < [[0.4], [0.3], [0.3], [0.3]]
        counts["slow"] += rejected(slow)
        counts["slow_500"] += rejected(slow, thin=8)
        counts["coin"] += rejected(coin)
        counts["coin_500"] += rejected(coin, thin=8)
        counts["moved"] += rejected(moved)
        counts["unfair"] += rejected(unfair.astype(float))
    assert counts["slow"] <= 2 and counts["coin"] <= 2, counts  # Binomial(20, 0.01) > 2: 0.1 %
    assert counts["slow_500"] >= 18 and counts["coin_500"] >= 18, counts
    assert counts["moved"] >= 14 and counts["unfair"] >= 12, counts


def test_ties_are_broken_below_the_lattice_and_the_order_kept():
    import numpy as np
    import xarray as xr

    from mcmc_pairs.comparisons.report import near_independent

    coin = (np.random.default_rng(0).random((4, 1000)) < 0.3).astype(float)
    tree, step = near_independent(xr.Dataset({"c": (("chain", "draw"), coin)}), with_step=True)
    kept = tree["posterior"]["c"].values
    assert np.array_equal(np.floor(kept), coin[:, ::step]) and len(np.unique(kept)) == kept.size


def test_the_index_links_the_catalogue_page_only_when_the_directory_has_it(tmp_path):
    from mcmc_pairs.comparisons.report import SHIPPED_PAGE, write_index

    entry = {"name": "p", "title": "t", "verdict": "agree", "seconds": 1.0, "sides": []}
    assert SHIPPED_PAGE not in write_index([entry], tmp_path).read_text()
    (tmp_path / SHIPPED_PAGE).write_text("<html></html>")  # scripts/shipped.py page (make report)
    assert (
        f'<a href="{SHIPPED_PAGE}">Bugs that shipped</a>'
        in write_index([entry], tmp_path).read_text()
    )


def test_check_records_read_back_the_records_a_checks_table_was_made_from():
    """The page and the terminal describe checks as records read from the table."""
    from mcmc_pairs.comparisons.kinds import CheckKind, Gate
    from mcmc_pairs.comparisons.report import check_records
    from mcmc_pairs.comparisons.stats.checks import Check, checks_frame

    z = Check("a vs b", "a", CheckKind.AGREEMENT, "x", "z(mean)", 1.5, 3.0, True, False,
              0.1, 0.2, 0.5, True, 0.13, 0.01, "a note")  # fmt: skip
    gate = Check("a", "a", CheckKind.DIAGNOSTIC, "x", Gate.R_HAT, 1.001, 1.01, False,
                 difference=0.0, resolution=0.0, tolerance=0.0, p=0.0, level=0.0)  # fmt: skip
    table = checks_frame([z, gate]).assign(_rank=[1, 0])  # a caller's own columns are left out
    assert check_records(table) == [z, gate]
    assert check_records(table.iloc[::-1]) == [gate, z]
