"""Draw sources: one protocol for every kind of side, continued or rerun look after look."""

import numpy as np

from mcmc_pairs.comparisons.kinds import Role
from mcmc_pairs.comparisons.registry import get_pair
from mcmc_pairs.comparisons.settings import Settings
from mcmc_pairs.comparisons.sides import DrawSource, HandwrittenSource, PymcSource, Side

PAIR = get_pair("mh_normal")
SETTINGS = Settings.resolve(PAIR.settings, draws=50, tune=20, chains=2, seed=5)
SHAPES = {"x": ()}


def _quiet(event):
    pass


def test_a_sampler_that_takes_state_is_continued_not_rerun():
    source = HandwrittenSource(
        PAIR.name, Role.HANDROLLED, "random_walk", PAIR.handrolled["random_walk"],
        PAIR.load_data(), SETTINGS, SHAPES,
    )  # fmt: skip
    assert isinstance(source, DrawSource)
    assert (source.label, source.role, source.continues) == (
        "handrolled:random_walk",
        Role.HANDROLLED,
        True,
    )
    first = source.grow(50, _quiet)
    grown = source.grow(100, _quiet)
    assert isinstance(first, Side) and grown.tree["posterior"]["x"].shape == (2, 100)
    # continued: the first 50 draws of each chain are the first look's, bit for bit
    np.testing.assert_array_equal(
        grown.tree["posterior"]["x"].values[:, :50], first.tree["posterior"]["x"].values
    )


def test_a_sampler_without_state_and_pymc_are_rerun():
    def sample(data, *, draws, tune, chains, random_seed):
        rng = np.random.default_rng(random_seed)
        return {"x": rng.normal(10, 5, size=(chains, draws))}

    source = HandwrittenSource(PAIR.name, Role.USER, "user", sample, {}, SETTINGS, SHAPES)
    assert (source.label, source.continues) == ("user", False)
    assert source.grow(30, _quiet).tree["posterior"]["x"].shape == (2, 30)
    pymc = PymcSource(Role.PYMC, "pymc", None, SETTINGS, PAIR, None, {})
    assert (pymc.label, pymc.role, pymc.continues) == ("pymc", Role.PYMC, False)
    assert isinstance(pymc, DrawSource) and not isinstance(object(), DrawSource)


def test_a_run_event_names_its_stage_by_an_enum_that_reads_as_its_word():
    from mcmc_pairs.comparisons.sides import RunEvent, Stage

    assert [str(stage) for stage in Stage] == ["start", "done", "cached", "look"]
    start = RunEvent("lda", "handrolled:gibbs", Stage.START, 4, 2000)
    assert str(start) == "[lda] handrolled:gibbs: 4 chains x 2000 draws"
    done = RunEvent("lda", "handrolled:gibbs", Stage.DONE, 4, 2000, 3.214)
    assert str(done) == "[lda] handrolled:gibbs: done in 3.21 s"
    look = RunEvent("lda", "", Stage.LOOK, 4, 2000, 1.0, {"handrolled:gibbs": "inconclusive"})
    assert str(look) == "[lda] undecided at 2000 draws (handrolled:gibbs: inconclusive): extending"


def test_every_source_says_whether_the_reproducibility_check_calls_it_again():
    source = HandwrittenSource(
        PAIR.name, Role.USER, "user", PAIR.handrolled["random_walk"], PAIR.load_data(),
        SETTINGS, SHAPES,
    )  # fmt: skip
    drawn = source.rerun(20, 10)
    assert drawn["x"].shape == (2, 20)
    np.testing.assert_array_equal(source.rerun(20, 10)["x"], drawn["x"])  # the run's seed
    side = source.grow(30, _quiet)
    assert side.role is Role.USER and side.label == "user"
