"""The witnesses stay independent: no modelling code is shared between a pair's sides.

A pair's PyMC model (``models/``), its exact reference and the rest of its
declaration (``comparisons/pairs/``) and its hand-written sampler
(``handrolled/``) may share the data only (``pairdata/``). A helper imported by
two of them would make the same mistake on both sides, and no comparison could
see it. Every import counts, at module level or inside a function; naming a
sampler by its import string (``"mcmc_pairs.handrolled.lda:sample"``) is not an import.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "models": ("handrolled", "comparisons"),
    "handrolled": ("models", "comparisons"),
    "comparisons/pairs": ("handrolled", "models"),
    "pairdata": ("handrolled", "models", "comparisons"),
}
"""Folder to the top-level packages its modules must not import."""


def imported_modules(source: str) -> set[str]:
    """Every module an ``import`` or ``from ... import`` of ``source`` names, nested ones too."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def package_of(module: str) -> str:
    """The suite's package a module belongs to: ``mcmc_pairs.handrolled.lda`` -> ``handrolled``.

    The old top-level names (``handrolled`` + ``.lda``) count too: they are the same code.
    """
    return module.removeprefix("mcmc_pairs.").split(".")[0]


def violations(source: str, forbidden: tuple[str, ...]) -> list[str]:
    """The imports of ``source`` that reach into a ``forbidden`` package of the suite."""
    return sorted(name for name in imported_modules(source) if package_of(name) in forbidden)


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("folder", list(FORBIDDEN))
def test_witnesses_share_no_code(folder):
    found = {
        str(path.relative_to(ROOT)): bad
        for path in modules(folder)
        if (bad := violations(path.read_text(), FORBIDDEN[folder]))
    }
    assert modules(folder), f"no modules under {folder}/"
    assert not found, f"{folder}/ imports {FORBIDDEN[folder]}: {found}"


@pytest.mark.parametrize(
    "source",
    [
        "from mcmc_pairs.handrolled.bivariate_normal import covariance",
        "import mcmc_pairs.handrolled.lda as lda",
        "def f():\n    from mcmc_pairs.handrolled import bayes_net\n",
        "from mcmc_pairs import handrolled",
        "from handrolled import _common",
    ],
)
def test_the_check_sees_every_kind_of_import(source):
    assert violations(source, ("handrolled",))


def test_an_import_string_is_not_an_import():
    source = 'PAIR = dict(handrolled={"gibbs": "mcmc_pairs.handrolled.lda:sample"})'
    assert not violations(source, ("handrolled",))


def test_every_pair_has_a_data_module_its_sides_use():
    from mcmc_pairs.comparisons.registry import PAIRS

    for pair in PAIRS:
        assert (ROOT / "pairdata" / f"{pair.name}.py").exists(), pair.name
        for side in ("models", "handrolled", "comparisons/pairs"):
            source = (ROOT / side / f"{pair.name}.py").read_text()
            assert f"mcmc_pairs.pairdata.{pair.name}" in imported_modules(source), (side, pair.name)


def _pair_keyed_tables(source: str, names: set[str]) -> list[str]:
    """Dict literals of ``source`` keyed by pair names: a registry of pairs outside their homes."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if len(keys & names) >= 2:
                found.append(f"line {node.lineno}: {sorted(keys & names)}")
    return found


def test_a_pairs_knowledge_is_in_its_home():
    # Adding a built-in pair takes its data module, model, samplers, its home in
    # comparisons/pairs/ and one line in the registry: no table elsewhere keyed by pair.
    from mcmc_pairs.comparisons.registry import PAIRS

    names = {pair.name for pair in PAIRS}
    homes = {ROOT / "comparisons" / "pairs" / f"{name}.py" for name in names}
    folders = ("comparisons", "scripts", "benchmarks", "models", "handrolled", "pairdata")
    paths = [p for folder in folders for p in (ROOT / folder).rglob("*.py") if p not in homes]
    found = {
        str(p.relative_to(ROOT)): hits
        for p in paths
        if (hits := _pair_keyed_tables(p.read_text(encoding="utf-8"), names))
    }
    assert not found, f"tables keyed by pair name outside the pairs' homes: {found}"
    assert all(pair.planted is not None for pair in PAIRS)
    assert _pair_keyed_tables('PLANS = {"regression": 1, "lda": 2}', names)  # it can fail
