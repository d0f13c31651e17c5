"""Every test starts with an empty reference cache of its own (``MCMC_PAIRS_CACHE``).

The command line caches PyMC's reference runs by default
(:mod:`mcmc_pairs.comparisons.reference_cache`); a test that runs it must not
read what another test, or an earlier run of the suite, left there.
"""

import pytest


@pytest.fixture(autouse=True)
def _own_reference_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MCMC_PAIRS_CACHE", str(tmp_path_factory.mktemp("reference_cache")))
