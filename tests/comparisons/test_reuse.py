"""What a repeated compare reuses: compiles within a process, log densities on disk (issue 38).

Every reuse is paired with a fresh computation it must equal bit for bit.
"""

import base64
import json
import os
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from mcmc_pairs import compare
from mcmc_pairs.comparisons import agreement, reference_cache, reuse
from mcmc_pairs.comparisons.loading import load_callable
from mcmc_pairs.comparisons.testing import cache_directory
from mcmc_pairs.comparisons.witness import ModelWitness

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "eight_schools"
MODEL = f"{EXAMPLE}/model.py:build_model"
SAMPLER = f"{EXAMPLE}/sampler.py:sample"
SMALL = {"draws": 200, "tune": 200, "chains": 2, "seed": 5, "max_draws": 200}


@pytest.fixture
def data():
    return json.loads((EXAMPLE / "data.json").read_text())


@pytest.fixture(autouse=True)
def _fresh_memos():
    reuse.clear()
    yield
    reuse.clear()


def posterior(seed: int, chains: int = 2, draws: int = 30) -> xr.Dataset:
    """Draws of eight schools' free variables (not from its posterior: any values do)."""
    rng = np.random.default_rng(seed)
    return xr.Dataset(
        {
            "mu": (("chain", "draw"), rng.normal(size=(chains, draws))),
            "tau2": (("chain", "draw"), rng.gamma(2.0, size=(chains, draws))),
            "theta": (("chain", "draw", "school"), rng.normal(size=(chains, draws, 8))),
        }
    )


def same_values(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k].values, b[k].values) for k in a)


def run(**kwargs):
    return compare(
        MODEL, SAMPLER, EXAMPLE / "data.json", progress=lambda e: None, **SMALL, **kwargs
    )


def test_a_second_compare_in_one_process_compiles_nothing_and_gives_the_same_checks():
    """The default cache, then no cache: each second run reuses, every check the same bits."""
    first = run()  # the Python API reads and writes $MCMC_PAIRS_CACHE by default
    made = (reuse.NUTPIE.made, reuse.LOG_DENSITIES.made)
    assert made == (1, 1) and not first.sides["pymc"].from_cache
    second = run()
    assert second.sides["pymc"].from_cache  # the reference, read back
    assert (reuse.NUTPIE.made, reuse.LOG_DENSITIES.made) == made  # log densities from disk
    pd.testing.assert_frame_equal(first.checks, second.checks, check_exact=True)

    reuse.clear()  # as in a fresh process
    files = sorted(p for p in Path(os.environ["MCMC_PAIRS_CACHE"]).rglob("*"))
    fresh = run(cache=False)
    assert (reuse.NUTPIE.made, reuse.LOG_DENSITIES.made) == (1, 1)
    again = run(cache=False)
    assert (reuse.NUTPIE.made, reuse.LOG_DENSITIES.made) == (1, 1)  # compiled once
    assert reuse.NUTPIE.hits == 1 and not again.sides["pymc"].from_cache
    assert sorted(p for p in Path(os.environ["MCMC_PAIRS_CACHE"]).rglob("*")) == files
    for result in (fresh, again):
        pd.testing.assert_frame_equal(first.checks, result.checks, check_exact=True)
        pd.testing.assert_frame_equal(first.summaries["pymc"], result.summaries["pymc"])


def test_the_cache_argument_names_a_directory_or_none(tmp_path, monkeypatch):
    monkeypatch.setenv("MCMC_PAIRS_CACHE", str(tmp_path / "env"))
    assert cache_directory(True) == tmp_path / "env"
    assert cache_directory(False) is None and cache_directory(None) is None
    assert cache_directory(str(tmp_path)) == tmp_path
    with pytest.raises(ValueError, match="cache must be"):
        cache_directory(1)


def test_new_observed_values_compile_once_and_equal_a_fresh_compile(data):
    draws = posterior(1)
    first = ModelWitness(MODEL, data).log_density(draws)
    other = {**data, "y": [3.0, -2.0, 5.0, 1.0, 0.0, 9.0, -4.0, 2.0]}  # a new data set
    reused = ModelWitness(MODEL, other).log_density(draws)
    assert reuse.LOG_DENSITIES.made == 1 and reuse.LOG_DENSITIES.hits == 1
    assert not np.array_equal(first["log_likelihood"], reused["log_likelihood"])
    reuse.clear()
    fresh = ModelWitness(MODEL, other).log_density(draws)
    assert reuse.LOG_DENSITIES.made == 1 and reuse.LOG_DENSITIES.hits == 0
    assert same_values(reused, fresh)


@pytest.mark.parametrize(
    "change",
    [
        {"mu_sd": 7},  # a scalar baked into the graph as a constant
        {"sigma": [15, 10, 16, 11, 9, 11, 10, 19]},  # a constant array's values
        {"y": [28, 8, -3, 7, -1], "sigma": [15, 10, 16, 11, 9]},  # another shape
    ],
)
def test_other_data_structure_compiles_again_with_its_own_values(data, change):
    draws = posterior(2, draws=10)
    ModelWitness(MODEL, data).log_density(draws)
    other = {**data, **change}
    if len(other["y"]) == 5:
        draws = draws.isel(school=slice(0, 5))
    changed = ModelWitness(MODEL, other).log_density(draws)
    assert reuse.LOG_DENSITIES.made == 2
    reuse.clear()
    assert same_values(changed, ModelWitness(MODEL, other).log_density(draws))


def model_file(path: Path, sd: float) -> str:
    path.write_text(
        textwrap.dedent(
            f"""
            import pymc as pm

            def build_model(data):
                with pm.Model() as model:
                    mu = pm.Normal("mu", 0.0, {sd})
                    pm.Normal("y", mu, 1.0, observed=data["y"])
                return model
            """
        )
    )
    return f"{path}:build_model"


def test_a_changed_model_source_compiles_again_and_moves_the_disk_memo(tmp_path):
    data = {"y": np.array([0.5, 1.5, -0.2])}
    draws = xr.Dataset({"mu": (("chain", "draw"), np.linspace(-1, 1, 8).reshape(2, 4))})
    one = model_file(tmp_path / "one.py", 1.0)
    before = ModelWitness(one, data).log_density(draws)
    assert ModelWitness(one, dict(data)).log_density(draws) and reuse.LOG_DENSITIES.made == 1
    two = model_file(tmp_path / "two.py", 2.0)  # the source edited (a new file: a new module)
    after = ModelWitness(two, data).log_density(draws)
    assert reuse.LOG_DENSITIES.made == 2
    assert not np.array_equal(before["log_prior"], after["log_prior"])

    build = load_callable(model_file(tmp_path / "three.py", 1.0), argument="model")
    folders = []
    for sd in (1.0, 3.0):  # the file on disk edited: the disk memo's key follows it
        model_file(tmp_path / "three.py", sd)
        key = {"model": reference_cache.model_sources(build)}
        folders.append(reuse.LogDensityMemo(tmp_path, key, "data").folder)
    assert folders[0] != folders[1]


def memo_witness(data, tmp_path):
    witness = ModelWitness(MODEL, data)
    witness.memo = reuse.LogDensityMemo(tmp_path, {"model": "eight schools"}, "data digest")
    calls = []
    compute = witness._log_density_values
    witness._log_density_values = lambda *a: calls.append(1) or compute(*a)
    return witness, calls


def test_the_disk_memo_is_keyed_on_the_draws(data, tmp_path):
    witness, calls = memo_witness(data, tmp_path)
    first = witness.log_density(posterior(3))
    assert len(calls) == 1 and len(list(tmp_path.rglob("*.json"))) == 1
    again, calls_again = memo_witness(data, tmp_path)  # as another process would
    assert same_values(again.log_density(posterior(3)), first) and not calls_again
    changed = posterior(3)
    changed["mu"][0, 0] = changed["mu"][0, 0] + 1e-12  # one draw, one bit
    assert not same_values(again.log_density(changed), first) and len(calls_again) == 1
    assert len(list(tmp_path.rglob("*.json"))) == 2
    reuse.clear()
    fresh = ModelWitness(MODEL, data).log_density(changed)
    assert same_values(again.log_density(changed), fresh) and len(calls_again) == 1


@pytest.mark.parametrize("damage", ["truncate", "flip", "key", "shape", "garbage"])
def test_a_corrupt_memo_file_is_recomputed_never_trusted(data, tmp_path, damage):
    witness, calls = memo_witness(data, tmp_path)
    right = witness.log_density(posterior(4))
    (path,) = tmp_path.rglob("*.json")
    stored = json.loads(path.read_text())
    if damage == "truncate":
        path.write_text(path.read_text()[:-50])
    elif damage == "flip":  # the values changed, the SHA-256 kept: a mismatch
        values = bytearray(np.zeros(stored["shape"]).tobytes())
        stored["values"] = base64.b64encode(bytes(values)).decode()
        path.write_text(json.dumps(stored))
    elif damage == "key":
        stored["key"] = stored["key"].replace("eight schools", "another model")
        path.write_text(json.dumps(stored))
    elif damage == "shape":
        stored["shape"] = [2, 2, 60]
        path.write_text(json.dumps(stored))
    else:
        path.write_bytes(b"\x00\xff not json")
    assert same_values(witness.log_density(posterior(4)), right) and len(calls) == 2
    assert json.loads(path.read_text())["sha256"] == stored["sha256"] or damage == "flip"
    witness.log_density(posterior(4))
    assert len(calls) == 2  # rewritten: read back now


def test_summaries_are_kept_by_the_quantities_bytes():
    rng = np.random.default_rng(6)
    q = xr.DataArray(
        rng.normal(size=(2, 100, 2)), dims=("chain", "draw", "quantity"),
        coords={"quantity": ["a", "b"]},
    )  # fmt: skip
    first = agreement.summarize_sides({"x": q})["x"]
    first.loc["a", "mean"] = 99.0  # a caller's change does not reach the memo
    again = agreement.summarize_sides({"x": q.copy(), "y": q + 1})
    assert reuse.SUMMARIES.hits == 1 and reuse.SUMMARIES.made == 2
    expected = agreement.summarize(q)
    pd.testing.assert_frame_equal(again["x"], expected, check_exact=True)
    renamed = q.assign_coords(quantity=["a", "c"])
    assert list(agreement.summarize_sides({"x": renamed})["x"].index) == ["a", "c"]


def test_summaries_on_disk_read_back_as_computed_and_a_corrupt_one_is_recomputed(tmp_path):
    rng = np.random.default_rng(7)
    q = xr.DataArray(
        rng.normal(size=(2, 80, 3)), dims=("chain", "draw", "quantity"),
        coords={"quantity": ["mu", "theta[0]", "log_prior"]},
    )  # fmt: skip
    with reuse.summaries_on_disk(tmp_path):
        first = agreement.summarize_sides({"pymc": q})["pymc"]
    (path,) = (tmp_path / "summaries").glob("*.json")
    reuse.clear()  # as in another process
    with reuse.summaries_on_disk(tmp_path):
        read = agreement.summarize_sides({"pymc": q})["pymc"]
    assert reuse.SUMMARIES.made == 1  # read from disk, kept here, computed nowhere
    pd.testing.assert_frame_equal(read, first, check_exact=True)
    pd.testing.assert_frame_equal(read, agreement.summarize(q), check_exact=True)
    path.write_text(path.read_text().replace('"mu"', '"nu"'))  # the key no longer matches
    reuse.clear()
    with reuse.summaries_on_disk(tmp_path):
        again = agreement.summarize_sides({"pymc": q})["pymc"]
    assert reuse.SUMMARIES.made == 1 and reuse.SUMMARIES.hits == 0  # recomputed
    pd.testing.assert_frame_equal(again, first, check_exact=True)


def test_each_thread_has_its_own_compiled_log_density(data):
    import threading

    draws, results = posterior(8, draws=5), []
    ModelWitness(MODEL, data).log_density(draws)
    worker = threading.Thread(
        target=lambda: results.append(ModelWitness(MODEL, data).log_density(draws))
    )
    worker.start()
    worker.join()
    assert reuse.LOG_DENSITIES.made == 2 and reuse.LOG_DENSITIES.hits == 0
    assert same_values(results[0], ModelWitness(MODEL, data).log_density(draws))
    assert reuse.LOG_DENSITIES.hits == 1  # this thread's own, again


def _figures_drawn(monkeypatch) -> list[str]:
    """Record the name of every figure :func:`html.figure` draws from now on."""
    from mcmc_pairs.comparisons import html

    drawn: list[str] = []
    figure = html.figure

    def counting(make, *args, alt):
        drawn.append(make.__name__)
        return figure(make, *args, alt=alt)

    monkeypatch.setattr(html, "figure", counting)
    return drawn


def _diagnostic_images(page: Path) -> list[str]:
    """The page's figures from its traces on (the speed figure before them shows timings)."""
    text = page.read_text()
    return [m for m in text[text.index("<h2>Traces</h2>") :].split("<img ")[1:]]


def test_a_second_report_of_unchanged_draws_draws_no_figure_again(tmp_path, monkeypatch):
    """Figures from draws alone are kept beside the cache: the same images, not drawn again."""
    drawn = _figures_drawn(monkeypatch)
    run(out=tmp_path / "first")
    per_side = {"rank_figure": 2, "autocorr_figure": 2}  # user and pymc
    grid = {"trace_figure": 1, "running_mean_figure": 1, "density_figure": 1}
    assert {name: drawn.count(name) for name in [*per_side, *grid]} == per_side | grid
    memo = Path(os.environ["MCMC_PAIRS_CACHE"]) / "figures"
    assert len(list(memo.glob("*.json"))) == 7

    drawn.clear()
    run(out=tmp_path / "second")
    assert drawn == ["speed_figure"]  # timings: drawn every time
    first, second = (
        tmp_path / n / "eight_schools.model.build_model.html" for n in ("first", "second")
    )
    assert _diagnostic_images(first) == _diagnostic_images(second) != []

    drawn.clear()  # the planted bug: its own figures, the reference's kept ones
    compare(
        MODEL, f"{EXAMPLE}/sampler.py:sample_planted_bug", EXAMPLE / "data.json",
        progress=lambda e: None, out=tmp_path / "bug", **SMALL,
    )  # fmt: skip
    assert sorted(drawn) == sorted(["speed_figure", "rank_figure", "autocorr_figure", *grid])

    for path in memo.glob("*.json"):  # damaged: drawn again, the same image
        path.write_text(path.read_text()[:-40] + "0" * 39 + "}")
    drawn.clear()
    run(out=tmp_path / "third")
    assert len(drawn) == 1 + 7
    third = tmp_path / "third" / "eight_schools.model.build_model.html"
    assert _diagnostic_images(third) == _diagnostic_images(first)


def test_figures_with_an_exact_reference_or_without_a_cache_are_drawn_every_time(tmp_path):
    """Running means and densities of a built-in pair show its exact answer: not kept."""
    from mcmc_pairs.comparisons import report
    from mcmc_pairs.comparisons.registry import get_pair
    from mcmc_pairs.comparisons.run import resolve_settings, run_pair

    pair = get_pair("bivariate_normal")
    settings = resolve_settings(pair, draws=200, tune=200, chains=2, seed=3, max_draws=200)
    result = run_pair(pair, settings, cache=tmp_path, progress=lambda e: None)
    assert result.memo_directory == tmp_path and result.reference
    report.render_pair(result)
    kept = {json.loads(p.read_text())["key"] for p in (tmp_path / "figures").glob("*.json")}
    names = sorted(json.loads(key)["figure"].split(":")[0] for key in kept)
    assert names == sorted(["trace_figure", *["rank_figure"] * 2, *["autocorr_figure"] * 2])

    unkept = run_pair(pair, settings, cache=None, progress=lambda e: None)
    assert unkept.memo_directory is None
    assert report.render_pair(unkept).count("<img ") == report.render_pair(result).count("<img ")


def test_a_page_without_figures_keeps_nothing_in_the_memo(tmp_path, monkeypatch):
    """``MCMC_PAIRS_FIGURES=off``: notes instead of images, and no note kept as a figure."""
    from mcmc_pairs.comparisons import report
    from mcmc_pairs.comparisons.registry import get_pair
    from mcmc_pairs.comparisons.run import resolve_settings, run_pair

    pair = get_pair("bivariate_normal")
    settings = resolve_settings(pair, draws=100, tune=100, chains=2, seed=3, max_draws=100)
    result = run_pair(pair, settings, cache=tmp_path, progress=print)
    monkeypatch.setenv("MCMC_PAIRS_FIGURES", "off")
    page = report.render_pair(result)
    assert "<img " not in page and "was not drawn: $MCMC_PAIRS_FIGURES=off" in page
    assert not list((tmp_path / "figures").glob("*.json"))
    monkeypatch.delenv("MCMC_PAIRS_FIGURES")
    assert report.render_pair(result).count("<img ") == page.count("was not drawn")
