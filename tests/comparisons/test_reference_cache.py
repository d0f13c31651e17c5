"""The reference cache: a repeated compare reads PyMC's runs back, and never trusts a bad entry."""

import json
import multiprocessing
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mcmc_pairs.comparisons import cli, reference_cache, run
from mcmc_pairs.comparisons.cli import build_parser, main
from mcmc_pairs.comparisons.loading import load_callable
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.report import to_json
from mcmc_pairs.comparisons.sides import Side

SMALL = {"draws": 150, "tune": 150, "chains": 2, "seed": 4, "max_draws": 150}
PYMC_SIDES = ("pymc", "pymc:metropolis")


def compare(cache, **overrides):
    events = []
    pair = get_pair("mh_normal")
    settings = run.resolve_settings(pair, **(SMALL | overrides))
    result = run.run_pair(pair, settings, progress=events.append, cache=cache)
    return result, [str(e) for e in events]


def without_timings(doc):
    doc = json.loads(json.dumps(doc))
    doc.pop("timings")
    for look in doc["looks"]:
        look.pop("seconds")
    for side in doc["sides"].values():
        side.pop("timings"), side.pop("ess_bulk_per_second"), side.pop("from_cache", None)
    return doc


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    """The same compare run twice on one cache directory."""
    directory = tmp_path_factory.mktemp("cache")
    return directory, compare(directory), compare(directory)


def test_a_repeated_compare_reads_the_reference_back_with_the_same_report(twice):
    _, (first, first_events), (second, second_events) = twice
    assert [first.sides[s].from_cache for s in PYMC_SIDES] == [False, False]
    assert [second.sides[s].from_cache for s in PYMC_SIDES] == [True, True]
    assert "[mh_normal] pymc: 2 chains x 150 draws" in first_events
    assert not any(e.startswith("[mh_normal] pymc") and "from the" not in e for e in second_events)
    assert any("pymc: 2 chains x 150 draws from the reference cache" in e for e in second_events)
    assert without_timings(to_json(first)) == without_timings(to_json(second))
    assert to_json(second)["sides"]["pymc"]["from_cache"] is True
    assert "from_cache" not in to_json(second)["sides"]["handrolled:independence"]
    for label in PYMC_SIDES:  # the draws, bit for bit
        a, b = first.sides[label].tree["posterior"], second.sides[label].tree["posterior"]
        assert all(np.array_equal(a[v].values, b[v].values) for v in a.data_vars)


def test_other_settings_data_or_steps_are_other_entries():
    """Everything PyMC's run depends on is in the key; a new seed is a new entry."""
    pair = get_pair("mh_normal")
    build = load_callable(pair.model, argument="model")
    settings, data = run.resolve_settings(pair, **SMALL), pair.load_data()
    key = reference_cache.reference_key(build, data, settings, pair)
    assert key == reference_cache.reference_key(build, dict(data), settings, pair)
    others = [
        reference_cache.reference_key(build, data, settings.replace(seed=5), pair),
        reference_cache.reference_key(build, data, settings.replace(tune=151), pair),
        reference_cache.reference_key(build, {**data, "mu": 10.5}, settings, pair),
        reference_cache.reference_key(build, data, settings, replace(pair, pymc_steps={})),
    ]
    assert all(other != key for other in others)
    draws_do_not_count = settings.replace(draws=300, max_draws=300)
    assert reference_cache.reference_key(build, data, draws_do_not_count, pair) == key


def test_a_corrupt_partial_or_stale_entry_is_not_trusted(twice, tmp_path):
    """A run that does not read back as written is a miss (the run that follows rewrites it)."""
    _, (first, _), _ = twice
    cache = reference_cache.ReferenceCache(tmp_path, {"any": "key"})
    cache.save("pymc", 150, first.sides["pymc"])
    assert cache.load("pymc", 150) is not None
    assert cache.load("pymc", 300) is None  # not stored at these draws
    draws_file = next(cache.entry.glob("pymc-150-*.nc"))
    whole = draws_file.read_bytes()
    draws_file.write_bytes(whole[:-100])  # truncated
    assert cache.load("pymc", 150) is None
    draws_file.write_bytes(whole)
    (cache.entry / "pymc-150.json").write_text("{not json")
    assert cache.load("pymc", 150) is None
    cache.save("pymc", 150, first.sides["pymc"])  # rewritten
    assert cache.load("pymc", 150) is not None
    assert reference_cache.ReferenceCache(tmp_path, {"other": "key"}).load("pymc", 150) is None
    (cache.entry / "key.json").write_text("{}")  # a stale key in the entry's place
    assert cache.load("pymc", 150) is None


def test_a_cache_that_cannot_be_written_costs_speed_not_the_run(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    result, _ = compare(blocked)
    assert result.verdict and not result.sides["pymc"].from_cache


def test_growing_a_cached_reference_adds_the_later_look_to_the_entry(tmp_path):
    growing = {"draws": 100, "max_draws": 200, "tolerance": 0.01}
    compare(tmp_path, **growing)
    memos = {"log_density", "summaries"}  # the memos beside the entries
    entry = next(p for p in tmp_path.iterdir() if p.is_dir() and p.name not in memos)
    assert {p.name for p in entry.glob("pymc-*.json")} == {"pymc-100.json", "pymc-200.json"}
    result, events = compare(tmp_path, **growing)
    assert result.sides["pymc"].from_cache and not any("pymc: done" in e for e in events)


def _save_many(directory, side_and_key):
    side, key = side_and_key
    cache = reference_cache.ReferenceCache(directory, key)
    for _ in range(5):
        cache.save("pymc", 150, side)


def test_runs_sharing_a_cache_do_not_corrupt_it(twice, tmp_path):
    _, (first, _), _ = twice
    side = first.sides["pymc"]
    side = Side(side.role, side.variant, side.sampler, side.tree, side.timings)
    key = {"any": "key"}
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        pool.starmap(_save_many, [(tmp_path, (side, key))] * 4)
    loaded = reference_cache.ReferenceCache(tmp_path, key).load("pymc", 150)
    assert loaded is not None and loaded.from_cache
    assert np.array_equal(loaded.tree["posterior"]["x"], side.tree["posterior"]["x"])
    assert not list(tmp_path.glob("*/.*"))  # no temporary file left behind


def test_the_key_follows_the_models_files_and_the_files_they_import(tmp_path, monkeypatch):
    (tmp_path / "helper.py").write_text("SCALE = 1.0\n")
    (tmp_path / "model.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            import helper

            def build_model(data):
                return helper.SCALE * np.asarray(data["y"])
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from mcmc_pairs.comparisons.loading import load_callable

    build = load_callable(f"{tmp_path / 'model.py'}:build_model")
    first = reference_cache.model_sources(build)
    assert sorted(p.rsplit("/", 1)[-1] for p in first) == ["helper.py", "model.py"]  # no numpy
    (tmp_path / "helper.py").write_text("SCALE = 2.0\n")
    assert reference_cache.model_sources(build) != first
    # a package of the user's, whose __init__ imports a sibling relatively
    package = tmp_path / "shapes"
    package.mkdir()
    (package / "__init__.py").write_text("from .priors import SCALE\n")
    (package / "priors.py").write_text("SCALE = 3.0\n")
    (tmp_path / "model.py").write_text(
        (tmp_path / "model.py").read_text().replace("import helper", "import helper, shapes")
    )
    with_package = reference_cache.model_sources(build)
    assert {p.rsplit("/", 2)[-2] + "/" + p.rsplit("/", 1)[-1] for p in with_package} >= {
        "shapes/__init__.py",
        "shapes/priors.py",
    }
    (package / "priors.py").write_text("SCALE = 4.0\n")
    assert reference_cache.model_sources(build) != with_package
    with pytest.raises(ValueError, match="no source file"):
        reference_cache.model_sources(eval("lambda data: data"))  # noqa: S307


def test_two_models_of_one_file_are_two_entries(tmp_path, monkeypatch):
    # found in issue 44's work: the key held the file's digest, not the function, so a second
    # model of the same file, data and settings was handed the first model's reference
    (tmp_path / "two_models.py").write_text(
        "def wide(data):\n    return 2.0\n\n\ndef narrow(data):\n    return 1.0\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from mcmc_pairs.comparisons.settings import SamplerRun

    pair = get_pair("mh_normal")
    settings = SamplerRun(draws=10, tune=10, chains=2, seed=1)
    keys = [
        reference_cache.reference_key(
            load_callable(f"{tmp_path / 'two_models.py'}:{name}"), {"y": 1.0}, settings, pair
        )
        for name in ("wide", "narrow")
    ]
    assert keys[0]["model"] == keys[1]["model"]  # one file
    assert keys[0]["function"].endswith(":wide") and keys[1]["function"].endswith(":narrow")
    entries = [reference_cache.ReferenceCache(tmp_path, key).entry for key in keys]
    assert entries[0] != entries[1]
    assert "function" in reference_cache.LOG_DENSITY_KEY


def test_the_data_digest_sees_values_dtypes_and_shapes():
    digest = reference_cache.data_digest
    base = {"y": np.arange(4.0), "n": 4}
    assert digest(base) == digest({"n": 4, "y": np.arange(4.0)})
    assert digest(base) != digest({"y": np.arange(4), "n": 4})  # int, not float
    assert digest(base) != digest({"y": np.arange(4.0).reshape(2, 2), "n": 4})
    assert digest(base) != digest({"y": np.arange(4.0), "n": 5})


def test_the_cli_caches_by_default_and_not_with_no_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MCMC_PAIRS_CACHE", str(tmp_path / "default"))
    flags = ["compare", "mh_normal", "--draws", "100", "--tune", "100", "--chains", "2"]
    flags += ["--max-draws", "100", "--out", str(tmp_path / "out")]
    parser = build_parser()
    assert cli._cache_dir(parser.parse_args([*flags, "--no-cache"])) is None
    assert cli._cache_dir(parser.parse_args(flags)) == tmp_path / "default"
    assert cli._cache_dir(parser.parse_args([*flags, "--cache", "d"])) == Path("d")
    main(flags)
    assert any((tmp_path / "default").iterdir())
    main(flags)
    assert "from the reference cache" in capsys.readouterr().err
    assert main([*flags, "--no-cache", "--cache", str(tmp_path)]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


# ------------------------------------------------ files a model reads (issue 39)

READING_MODELS = {
    "open": """
import json
from pathlib import Path
import pymc as pm

def build_model(data):
    prior = json.loads((Path(__file__).parent / "prior.json").read_text())
    with pm.Model() as model:
        mu = pm.Normal("mu", prior["mean"], 1.0)
        pm.Normal("y", mu, 1.0, observed=data["y"])
    return model
""",
    "numpy": """
from pathlib import Path
import numpy as np
import pymc as pm

def build_model(data):
    mean = float(np.loadtxt(Path(__file__).parent / "prior.txt"))
    with pm.Model() as model:
        mu = pm.Normal("mu", mean, 1.0)
        pm.Normal("y", mu, 1.0, observed=data["y"])
    return model
""",
    "at_import": """
import json
from pathlib import Path
import pymc as pm

PRIOR = json.loads((Path(__file__).parent / "prior.json").read_text())  # read once, at import

def build_model(data):
    with pm.Model() as model:
        mu = pm.Normal("mu", PRIOR["mean"], 1.0)
        pm.Normal("y", mu, 1.0, observed=data["y"])
    return model
""",
    "helper": """
import pymc as pm
from prior_helper import prior_mean

def build_model(data):
    with pm.Model() as model:
        mu = pm.Normal("mu", prior_mean(), 1.0)
        pm.Normal("y", mu, 1.0, observed=data["y"])
    return model
""",
}
HELPER = """
import csv
from pathlib import Path

def prior_mean():
    with open(Path(__file__).parent / "prior.csv", newline="") as handle:
        return float(next(csv.DictReader(handle))["mean"])
"""


def write_prior(folder: Path, mean: float) -> None:
    (folder / "prior.json").write_text(json.dumps({"mean": mean}))
    (folder / "prior.txt").write_text(f"{mean}\n")
    (folder / "prior.csv").write_text(f"mean\n{mean}\n")


@pytest.mark.parametrize("way", sorted(READING_MODELS))
def test_a_file_the_model_reads_is_in_the_key(way, tmp_path, monkeypatch):
    """Each way a model can depend on a file: its contents are part of the key.

    Before, only the files the model imports were: after ``prior.json`` changed,
    the old reference was read back and judged the sampler against the old prior.
    """
    from mcmc_pairs.comparisons.witness import ModelWitness

    folder = tmp_path / way
    folder.mkdir()
    (folder / "model.py").write_text(textwrap.dedent(READING_MODELS[way]))
    (folder / "prior_helper.py").write_text(textwrap.dedent(HELPER))
    monkeypatch.syspath_prepend(str(folder))
    write_prior(folder, 0.0)
    spec, data = f"{folder}/model.py:build_model", {"y": np.array([0.5, 1.5])}
    pair = get_pair("mh_normal")
    settings = run.resolve_settings(pair, **SMALL)

    def key():
        witness = ModelWitness(spec, data)
        build = load_callable(spec, argument="model")
        return reference_cache.reference_key(build, data, settings, pair, witness.reads)

    first = key()
    read = {Path(f).name for f in first["reads"]}
    assert read & {"prior.json", "prior.txt", "prior.csv"}, first["reads"]
    assert key() == first  # unchanged files, the same key
    write_prior(folder, 3.0)
    assert key()["reads"] != first["reads"]
    assert not any(f.endswith(".py") or f.startswith("/sys/") for f in first["reads"])


def test_a_changed_prior_file_is_never_judged_by_the_stale_reference(tmp_path, monkeypatch):
    """End to end: the second compare, after prior.json changed, runs PyMC again."""
    from mcmc_pairs import compare

    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.py").write_text(textwrap.dedent(READING_MODELS["open"]))
    (folder / "sampler.py").write_text(
        textwrap.dedent(
            """
            import json
            from pathlib import Path
            import numpy as np

            def sample(data, *, draws, tune, chains, random_seed):
                # Exact for the prior the sampler was written for: N(0, 1), not the file's.
                y = np.asarray(data["y"], dtype=float)
                precision = 1.0 + y.size
                rng = np.random.default_rng(random_seed)
                z = rng.standard_normal((chains, draws))
                return {"mu": y.sum() / precision + z / np.sqrt(precision)}
            """
        )
    )
    data = {"y": np.array([0.5, 1.5, 1.0, 0.2])}
    settings = {"draws": 500, "tune": 300, "chains": 2, "seed": 3, "max_draws": 2000}
    write_prior(folder, 0.0)
    cache = tmp_path / "cache"
    args = (f"{folder}/model.py:build_model", f"{folder}/sampler.py:sample", data)
    first = compare(*args, cache=cache, progress=lambda e: None, **settings)
    assert first.verdict == "agree" and not first.sides["pymc"].from_cache
    write_prior(folder, 4.0)  # the model's prior moves: the sampler is now wrong
    second = compare(*args, cache=cache, progress=lambda e: None, **settings)
    assert not second.sides["pymc"].from_cache
    assert second.verdict == "disagree"
