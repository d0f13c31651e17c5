"""The house of ``comparisons``: imports one way (no cycle, leaves stay leaves), short functions.

Every import counts, at module level or inside a function (a lazy import is
still a dependency), so the graph is read from the source with ``ast``.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "comparisons"
LEAVES = (
    "mcmc_pairs.comparisons.html",
    "mcmc_pairs.comparisons.interrupts",
    "mcmc_pairs.comparisons.errors",
)
"""Modules that import nothing from ``comparisons`` (``files`` imports only ``interrupts``)."""
NO_REGISTRY = ("mcmc_pairs.comparisons.run", "mcmc_pairs.comparisons.pymc_runner")
"""Modules below the registry: running a pair never looks pairs up by name."""


def module_name(path: Path) -> str:
    parts = ("mcmc_pairs", *path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``comparisons`` that ``path`` imports, anywhere in its body."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x, from .y import z
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            # `from pkg import mod` imports the module pkg.mod when there is one
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]  # a name inside a module: the module
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(f) for f in files}
    graph = {module_name(f): imported_modules(f, modules) for f in files}
    # a package's __init__ runs before its submodules: `import mcmc_pairs.comparisons.x` too
    package = "mcmc_pairs.comparisons"
    return {m: {t for t in targets if t != package} for m, targets in graph.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Return one cycle as a path ``[a, b, ..., a]``, or ``None`` (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_graph_is_read_from_every_module():
    graph = import_graph()
    assert {
        "mcmc_pairs.comparisons.cli",
        "mcmc_pairs.comparisons.run",
        "mcmc_pairs.comparisons.pairs.lda",
    } <= set(graph)
    assert (
        "mcmc_pairs.comparisons.run" in graph["mcmc_pairs.comparisons.cli"]
    )  # a lazy import, inside a function
    assert (
        "mcmc_pairs.comparisons.agreement" in graph["mcmc_pairs.comparisons.run"]
    )  # `from comparisons import x`


def test_there_is_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_find_cycle_reports_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_leaves_import_nothing_from_the_package():
    graph = import_graph()
    for leaf in LEAVES:
        assert graph[leaf] == set(), f"{leaf} imports {sorted(graph[leaf])}"
    assert graph["mcmc_pairs.comparisons.files"] == {"mcmc_pairs.comparisons.interrupts"}


def test_running_a_pair_does_not_look_up_the_registry():
    graph = import_graph()
    for name in NO_REGISTRY:
        assert "mcmc_pairs.comparisons.registry" not in graph[name], name


LONGEST = 80
"""No function of the harness is longer than this many lines, docstring included (issue 28)."""


def long_functions(source: str, limit: int = LONGEST) -> list[str]:
    """Return ``name (lines)`` for every function of ``source`` longer than ``limit`` lines."""
    return [
        f"{node.name} ({node.end_lineno - node.lineno + 1})"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_every_function_of_the_harness_reads_in_one_screen():
    found = {
        str(path.relative_to(PACKAGE)): hits
        for path in sorted(PACKAGE.rglob("*.py"))
        if (hits := long_functions(path.read_text(encoding="utf-8")))
    }
    assert not found, f"functions longer than {LONGEST} lines: {found}"
    assert long_functions("def f():\n" + "    x = 1\n" * LONGEST) == ["f (81)"]  # it can fail


HEAVY = (
    "arviz_base",
    "arviz_plots",
    "arviz_stats",
    "matplotlib",
    "numba",
    "pandas",
    "pymc",
    "pytensor",
    "scipy",
    "xarray",
)
"""Libraries that cost most of a second or more to import (issue 30: imports on demand)."""
PLOTTING_AND_SUMMARIES = ("arviz_plots", "arviz_stats", "matplotlib", "numba", "scipy")
"""Loaded by a run only once it has sampled (the summaries) or draws its page (the figures)."""


def loaded_after(code: str) -> set[str]:
    """Run ``code`` in a fresh interpreter; return the :data:`HEAVY` libraries it loaded."""
    script = (
        "import contextlib, io, json, sys\n"
        f"{code}\n"
        f"heavy = {HEAVY!r}\n"
        "print(json.dumps(sorted({m.partition('.')[0] for m in sys.modules} & set(heavy))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("argv", [["list"], ["--help"], ["compare", "--help"]])
def test_listing_and_help_import_no_heavy_library(argv):
    code = (
        "from mcmc_pairs.comparisons.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n    assert main({argv!r}) == 0"
    )
    assert loaded_after(code) == set()


def test_the_python_api_imports_on_first_use():
    assert loaded_after("from mcmc_pairs.comparisons.testing import assert_agree, compare") == set()


def test_a_run_loads_summaries_and_plotting_only_when_it_uses_them():
    loaded = loaded_after("import mcmc_pairs.comparisons.run, mcmc_pairs.comparisons.report")
    assert loaded & set(PLOTTING_AND_SUMMARIES) == set()
    assert "xarray" in loaded  # the check sees what is loaded: a run works on xarray


def test_the_pytest_plugin_imports_no_heavy_library():
    # every pytest session of an environment with mcmc-pairs loads it (the pytest11 entry point)
    assert loaded_after("import mcmc_pairs.comparisons.pytest_plugin") == set()


STATS = "mcmc_pairs.comparisons.stats"
KERNELS = ("quantities", "summaries", "inference")
CHECK_KINDS = ("checks", "zchecks", "constants", "gates", "divergences", "support", "multivariate")
PROCESSES = ("subprocess", "multiprocessing", "concurrent", "mcmc_pairs.comparisons.execution")


def stats_modules() -> dict[str, Path]:
    return {path.stem: path for path in sorted((PACKAGE / "stats").glob("*.py"))}


def test_the_statistics_import_in_layers_kernels_then_check_kinds_then_verdicts():
    graph = import_graph()
    assert set(stats_modules()) == {"__init__", *KERNELS, *CHECK_KINDS, "verdicts"}
    for name in KERNELS:
        below = {f"{STATS}.{k}" for k in (*CHECK_KINDS, "verdicts")}
        assert not graph[f"{STATS}.{name}"] & below, name
    for name in CHECK_KINDS:
        assert f"{STATS}.verdicts" not in graph[f"{STATS}.{name}"], name
    assert not {t for t in graph[f"{STATS}.verdicts"] if t.startswith(STATS)} - {f"{STATS}.checks"}


def test_no_statistics_module_starts_a_process_or_is_one():
    for name, path in stats_modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {m for m in imported if m and m.startswith(PROCESSES)}, name
        assert "__main__" not in path.read_text(encoding="utf-8"), name
    child = PACKAGE / "split_summaries.py"
    assert 'ChildInterpreter("mcmc_pairs.comparisons.split_summaries"' in child.read_text()
    assert 'if __name__ == "__main__"' in child.read_text()
