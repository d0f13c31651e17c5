"""Here every test uses the session's shared reference cache (``MCMC_PAIRS_CACHE``).

A model's correct sampler, its planted bug and its README's commands are
compared with the same PyMC reference (same model, data, seed and settings):
the first test to need it samples it, every later one reads it back from the
cache (``tests/conftest.py``, :func:`shared_reference_cache`). A run read back
gives the same report and the same draws bit for bit
(tests/comparisons/test_reference_cache.py), so no verdict here depends on
which test ran first, or on which worker; only the time does.
"""

import pytest


@pytest.fixture(autouse=True)
def _own_reference_cache(shared_reference_cache, monkeypatch):
    monkeypatch.setenv("MCMC_PAIRS_CACHE", str(shared_reference_cache))
