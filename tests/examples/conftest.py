"""Here the tests of a module share one reference cache (``MCMC_PAIRS_CACHE``).

A model's correct sampler and its planted bug are compared with the same PyMC
reference (same model, data, seed and settings): the second compare reads it
from the cache instead of sampling it again. The cache's contract is that a
run read back gives the same report and the same draws bit for bit
(tests/comparisons/test_reference_cache.py), so no verdict here depends on
which test ran first; only the time does.
"""

import pytest


@pytest.fixture(scope="module")
def _module_reference_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("module_reference_cache")


@pytest.fixture(autouse=True)
def _own_reference_cache(_module_reference_cache, monkeypatch):
    monkeypatch.setenv("MCMC_PAIRS_CACHE", str(_module_reference_cache))
