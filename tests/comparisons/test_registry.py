"""The registries: pairs, zoo models and examples, one lookup and one folder record."""

from pathlib import Path

import pytest

import zoo
from mcmc_pairs.comparisons.registry import PAIRS, ModelFolder, Registry, get_pair
from tests.examples.end_to_end import EXAMPLES


def test_a_registry_keeps_its_order_and_finds_a_record_by_name():
    assert PAIRS.names[0] == "bivariate_normal" and PAIRS.names[-1] == "lda"  # LDA last: longest
    assert get_pair("lda") is PAIRS.get("lda") is PAIRS[-1]
    assert list(PAIRS) == [PAIRS.get(name) for name in PAIRS.names]
    with pytest.raises(ValueError, match=r"unknown pair 'nope'; known pairs: bivariate_normal, "):
        get_pair("nope")
    with pytest.raises(ValueError, match=r"unknown zoo model 'nope'; known zoo models: "):
        zoo.get("nope")
    with pytest.raises(ValueError, match=r"unknown example 'lda'; known examples: eight_schools"):
        EXAMPLES.get("lda")


def test_a_registry_refuses_two_records_of_one_name():
    record = ModelFolder("a", Path("x"), "data.json", shape="", bug="")
    with pytest.raises(ValueError, match="the examples' names are not unique"):
        Registry("example", record, record)


@pytest.mark.parametrize("registry", [zoo.MODELS, EXAMPLES], ids=["zoo", "examples"])
def test_zoo_models_and_examples_are_folders_of_one_shape(registry):
    assert isinstance(registry, Registry) and len(registry) > 0
    for record in registry:
        assert isinstance(record, ModelFolder)
        assert record.model == f"{record.folder}/model.py:build_model"
        assert record.data.is_file() and (record.folder / "model.py").is_file()
        assert record.sampler(planted_bug=True) == f"{record.folder}/sampler.py:sample_planted_bug"


def test_two_zoo_models_may_share_a_folder_with_their_own_correct_sampler():
    fast, slow = zoo.get("slow_mixing"), zoo.get("slow_ar1")
    assert fast.folder == slow.folder == zoo.HERE / "slow_mixing"
    assert slow.sampler() == f"{zoo.HERE}/slow_mixing/sampler.py:sample_ar1"
