"""Reference caches for the tests (``MCMC_PAIRS_CACHE``).

The command line caches PyMC's reference runs by default
(:mod:`mcmc_pairs.comparisons.reference_cache`). By default every test starts
with an empty cache of its own: a test that counts PyMC's runs, or reads the
events that say "done" or "from the reference cache", must not read what
another test left there.

The end-to-end folders (:data:`SHARED_CACHE`: ``tests/examples``, ``tests/zoo``) use one cache
for the whole session instead (:func:`shared_reference_cache`), shared by every
pytest-xdist worker: a model's correct sampler, its planted bug, its README's
commands and its SBC face the same PyMC reference, sampled once by whichever
test comes first. The cache's contract is that a run read back gives the same
draws and the same report bit for bit (tests/comparisons/test_reference_cache.py)
and that runs sharing a directory never corrupt it, so no verdict depends on the
order of the tests or on the number of workers; only the time does.
"""

import contextlib
import os

import pytest

HEAVY_FIRST = (
    "tests/comparisons/test_pairs.py",  # first: LDA at its defaults, the slow tests' longest
    "tests/zoo/test_zoo_end_to_end.py",
    "tests/notebooks/test_notebooks.py",
    "tests/comparisons/test_sbc.py",
    "tests/examples/test_conjugate_step.py",
    "tests/comparisons/test_pathological_reports.py",
    "tests/comparisons/test_interrupts.py",
    "tests/examples/test_numpyro_port.py",
    "tests/comparisons/test_pytest_plugin.py",
    "tests/comparisons/test_cli.py",
    "tests/comparisons/test_byom.py",
    "tests/comparisons/test_agreement.py",
    "tests/examples/test_eight_schools.py",
    "tests/handrolled/test_lda.py",
    "tests/examples/test_probit.py",
    "tests/examples/test_stored_draws.py",
    "tests/comparisons/test_properties.py",
    "tests/comparisons/test_pymc_runner.py",
    "tests/comparisons/test_stored.py",
    "tests/comparisons/test_compile_once.py",
    "tests/benchmarks/test_power_smoke.py",
)
"""Test files that take the longest on 2 cores (``--durations``), run first.

``make test`` gives each pytest-xdist worker a whole file at a time
(``--dist loadfile``), in the order of collection: the longest files first
leave the short ones to fill the gaps at the end, instead of one long file
starting last while the other worker idles (longest processing time first)."""


def pytest_collection_modifyitems(config, items):
    """Order the files :data:`HEAVY_FIRST` first; the tests within a file keep their order."""
    rank = {path: k for k, path in enumerate(HEAVY_FIRST)}
    root = config.rootpath

    def key(item):
        path = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        return rank.get(path, len(rank))

    items[:] = sorted(items, key=key)  # stable: the same order on every worker


def _test_path(request) -> str:
    """The requesting test file's path from the repository root, as ``tests/...``."""
    return request.path.relative_to(request.config.rootpath).as_posix()


FIGURES_DRAWN = (
    "tests/benchmarks/",
    "tests/notebooks/",
    "tests/comparisons/test_honesty.py",
    "tests/comparisons/test_html.py",
    "tests/comparisons/test_import_graph.py",
    "tests/comparisons/test_interrupts.py",
    "tests/comparisons/test_pathological_reports.py",
    "tests/comparisons/test_report.py",
    "tests/comparisons/test_reuse.py",
    "tests/comparisons/test_validation_report.py",
)
"""The tests whose pages are drawn with their figures; every other test writes its pages
with ``MCMC_PAIRS_FIGURES=off`` (:func:`mcmc_pairs.comparisons.html.figures_off`).

Drawing is a fifth of the suite's time, and a test that checks a verdict, a JSON or a page's
words does not look at the pictures. These look at them, count them, time the moment a
page is written, or feed odd draws (NaN, 1e300, one draw per chain) to the plotting code."""


@pytest.fixture(scope="module", autouse=True)
def _figures(request):
    """Set ``MCMC_PAIRS_FIGURES=off`` outside :data:`FIGURES_DRAWN`, module fixtures included.

    Module-scoped and autouse, so it is in place before the module's other fixtures run."""
    with _set_outside(request, "MCMC_PAIRS_FIGURES", "off", FIGURES_DRAWN):
        yield


@contextlib.contextmanager
def _set_outside(request, name: str, value: str, paths: tuple[str, ...]):
    """Set ``$name`` to ``value`` for the requesting test file, unset it in ``paths``."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        if _test_path(request).startswith(paths):
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
        yield


LOCAL_CLUSTER = (
    "tests/benchmarks/",
    "tests/comparisons/test_interrupts.py",
    "tests/comparisons/test_parallel.py",
    "tests/comparisons/test_preflight.py",
)
"""The tests whose ``validate`` commands start Dask's local cluster when they give no
``--scheduler``; every other test runs them with ``MCMC_PAIRS_SCHEDULER=synchronous``
(``mcmc_pairs.comparisons.cli.SCHEDULER_ENV``).

The two pytest-xdist workers already keep both cores busy: a cluster beside them only adds two
interpreters that import PyMC and compile the model again (a README's SBC command: 31 CPU-s on a
cluster, 17 in the process, the same verdict and the same ranks, bit for bit). These test the
cluster itself: its workers' results, its shutdown on a signal, its address checks, and the
benchmarks' timings as a user meets them."""


@pytest.fixture(scope="module", autouse=True)
def _scheduler(request):
    """Set ``MCMC_PAIRS_SCHEDULER=synchronous`` outside :data:`LOCAL_CLUSTER`, module-scoped."""
    with _set_outside(request, "MCMC_PAIRS_SCHEDULER", "synchronous", LOCAL_CLUSTER):
        yield


SHARED_CACHE = ("tests/examples/", "tests/zoo/")
"""The folders whose tests use :func:`shared_reference_cache` instead of a cache of their own."""


@pytest.fixture
def python_linker():
    """Compile this test's PyTensor functions for PyTensor's Python linker (``FAST_COMPILE``).

    For tests that evaluate a log density or a shape a few times to check a formula: numba
    (PyTensor's default linker) spends seconds compiling each new graph on an empty cache
    (posteriordb's models: 38 CPU-s in all), the Python linker none, and the graph and its
    values are the same. Never for a test that samples, or that checks bits the harness writes:
    the harness compiles with numba (:func:`mcmc_pairs.comparisons.witness.exact_arithmetic`).
    """
    import pytensor

    with pytensor.config.change_flags(mode="FAST_COMPILE"):
        yield


@pytest.fixture(autouse=True)
def _reference_cache(request, tmp_path_factory, monkeypatch):
    """Set ``MCMC_PAIRS_CACHE``: the shared cache in :data:`SHARED_CACHE`, else a new one."""
    path = _test_path(request)
    if path.startswith(SHARED_CACHE):
        directory = request.getfixturevalue("shared_reference_cache")
    else:
        directory = tmp_path_factory.mktemp("reference_cache")
    monkeypatch.setenv("MCMC_PAIRS_CACHE", str(directory))


@pytest.fixture(scope="session")
def shared_reference_cache(tmp_path_factory):
    """Return the session's one reference cache directory, shared by every xdist worker.

    Each worker's base directory is ``<session>/popen-gwN``; the shared cache is
    their common parent's ``shared_reference_cache``.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    path = base / "shared_reference_cache"
    path.mkdir(exist_ok=True)
    return path


def pytest_configure(config):
    """Compile every model of the session without fast-math, as the harness does.

    The harness compiles inside :func:`mcmc_pairs.comparisons.witness.exact_arithmetic`;
    the session runs inside it too, so a test that calls ``pm.sample`` itself does not
    compile the same operations a second time, with fast-math, into other entries of
    PyTensor's numba cache (NUTS on the tiny LDA bars, on the cache the harness's compiles
    had filled: 55 CPU-s, 32 without fast-math).
    """
    from mcmc_pairs.comparisons.witness import exact_arithmetic

    session = contextlib.ExitStack()
    session.enter_context(exact_arithmetic())
    config.add_cleanup(session.close)
