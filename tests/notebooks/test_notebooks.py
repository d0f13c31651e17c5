"""The paired teaching notebooks: text and .ipynb in sync, and each one executes.

Every ``notebooks/<name>.py`` (jupytext percent format, the source of truth) has
a paired ``notebooks/<name>.ipynb`` with the same cells, and a first code cell
tagged ``parameters`` that sets ``draws`` and ``chains``. The execution test
runs each notebook with nbclient after inserting a cell of tiny settings right
after the parameters cell (papermill's convention), so a notebook that breaks
fails the suite; the notebooks share one kernel, each starting from an empty
namespace (:func:`kernel`). Convergence verdicts at these settings are
irrelevant: the notebook must only run without error.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.util import run_sync

from tests.notebooks import PUBLISH

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(p for p in NOTEBOOK_DIR.glob("*.py") if not p.name.startswith("_"))
"""The notebooks; ``_exercises.py`` is their helper module, not a notebook."""
EXPECTED = {
    "bivariate_normal",
    "regression",
    "mh_targets",
    "bayes_net",
    "markov_chains_and_monte_carlo",
    "lda",
    "reading_a_verdict",
    "checking_a_sampler",
}


def _ids(paths):
    return [p.stem for p in paths]


def _parameters_cell(nb):
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell must be tagged 'parameters'"
    return tagged[0]


def _assigned_names(source: str) -> set[str]:
    tree = ast.parse(source)
    return {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets}


def test_every_example_has_a_notebook():
    assert EXPECTED <= {p.stem for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_paired_ipynb_is_in_sync(path):
    ipynb = path.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} is missing: run `jupytext --sync {path}`"
    text = jupytext.read(path)
    paired = nbformat.read(ipynb, as_version=4)
    assert PUBLISH.cells_of(text) == PUBLISH.cells_of(paired), (
        f"{ipynb.name} differs from {path.name}: run `jupytext --sync {path}`"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_parameters_cell_sets_draws_and_chains(path):
    nb = jupytext.read(path)
    cell = _parameters_cell(nb)
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert cell is first_code, "the parameters cell must be the first code cell"
    assert {"draws", "chains"} <= _assigned_names(cell.source)


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """One IPython kernel for every notebook of this module, started in ``notebooks/``.

    A kernel imports PyMC, ArviZ and matplotlib and compiles its first model afresh; one
    kernel pays that once for the seven (every cache empty, 2 cores: 181 CPU-s in seven
    kernels, 127 in one). Each notebook starts with ``%reset -f`` (:data:`FRESH_NAMESPACE`),
    so no name one notebook defines is seen by the next; what stays is what a kernel keeps
    below the namespace: the imported modules, compiled models and the reference cache (one
    for the kernel, so a later notebook may read a run an earlier one cached: the same draws,
    bit for bit). A notebook that fails or times out leaves a fresh kernel to the next
    (:meth:`_Kernel.replace`). Every notebook also runs alone in a fresh kernel when it is
    published (``make notebooks``), and tests/notebooks/test_published.py fails when a
    published notebook is stale.
    """
    env = {
        **os.environ,
        PUBLISH.SELFTEST: "1",  # each exercise's checker refuses its `wrong`
        "MCMC_PAIRS_CACHE": str(tmp_path_factory.mktemp("notebook_reference_cache")),
    }
    shared = _Kernel(env, NOTEBOOK_DIR)
    yield shared
    shared.shutdown()


class _Kernel:
    """The notebooks' one kernel (:func:`kernel`): ``manager``, and ``replace`` for a fresh one."""

    def __init__(self, env: dict, cwd: Path):
        self.env, self.cwd = env, cwd
        self.manager = self._started()

    def _started(self):
        from jupyter_client.manager import AsyncKernelManager

        manager = AsyncKernelManager(kernel_name="python3")
        run_sync(manager.start_kernel)(
            env=self.env, cwd=str(self.cwd), extra_arguments=["--HistoryManager.hist_file=:memory:"]
        )
        return manager

    def replace(self) -> None:
        """Shut the kernel down (busy or not) and start another, as the fixture did."""
        self.shutdown()
        self.manager = self._started()

    def shutdown(self) -> None:
        run_sync(self.manager.shutdown_kernel)(now=True)


FRESH_NAMESPACE = "%reset -f"
"""The first cell each notebook runs in the shared :func:`kernel`: the namespace emptied."""


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_executes_with_small_settings(path, kernel):
    nb = jupytext.read(path)
    PUBLISH.inject_small_settings(nb)
    nb.cells.insert(0, nbformat.v4.new_code_cell(FRESH_NAMESPACE))
    client = NotebookClient(nb, timeout=600, km=kernel.manager)
    try:
        client.execute()  # raises CellExecutionError, naming the cell, if any cell fails
    except BaseException:  # a failed or timed-out notebook: the next ones get a fresh kernel
        kernel.replace()
        raise
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "expected figures"
