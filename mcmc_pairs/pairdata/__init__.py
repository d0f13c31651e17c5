"""The pairs' data: defaults, shipped files, loaders and validation. No modelling code.

One module per pair (``pairdata/<name>.py``) with ``default_data()`` and
``validate_data(data)``, the only code that a pair's three witnesses share:
its PyMC model (``models/``), its exact reference (``comparisons/pairs/``) and
its hand-written sampler (``handrolled/``). A formula, a covariance, a
conditional, a density or a graph structure never lives here: code shared by
two witnesses makes the same mistake on both sides, and no comparison can see
it (``tests/test_independence.py`` checks the imports). The files shipped with
the project, with their sources and licences, are in ``pairdata/files/``.

``pairdata/posteriordb/`` is not a pair: it ships posteriors of posteriordb (their
data and reference draws, sources and licences in its ``files/README.md``), whose
PyMC models are in ``models/posteriordb/``, to run PyMC's NUTS against the
reference draws.
"""
