"""One import name: everything the distribution installs is under ``mcmc_pairs``.

The subpackages live in ``mcmc_pairs/`` as in the wheel (``mcmc_pairs/models/``
is ``mcmc_pairs.models``), so that editors and type checkers resolve every
import; the repository's top-level folders of the layout (README, "Layout":
``models/``, ``handrolled/``, ``comparisons/``, ``pairdata/``) link to them. A
user's own ``models`` package never hides the suite's. The wheel itself is
tested by ``scripts/wheel_smoke.sh`` (``.ci/run``).
"""

import ast
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

import mcmc_pairs

ROOT = Path(__file__).resolve().parents[1]
OLD = ("models", "handrolled", "comparisons", "pairdata")
SOURCES = ("mcmc_pairs", "tests", "scripts", "benchmarks", "notebooks", "zoo", "examples")


def test_public_api():
    from mcmc_pairs.comparisons import testing

    assert mcmc_pairs.compare is testing.compare
    assert mcmc_pairs.assert_agree is testing.assert_agree
    assert mcmc_pairs.__version__ == metadata.version("mcmc-pairs")
    assert {"compare", "assert_agree", "__version__"} <= set(dir(mcmc_pairs))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        mcmc_pairs.nope  # noqa: B018


def test_python_dash_m_is_the_command_and_tells_its_version():
    done = subprocess.run(
        [sys.executable, "-m", "mcmc_pairs", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"mcmc-pairs {mcmc_pairs.__version__}"
    listed = subprocess.run(
        [sys.executable, "-m", "mcmc_pairs", "list"], capture_output=True, text=True
    )
    assert listed.returncode == 0 and listed.stdout.startswith("bivariate_normal")


def test_the_package_holds_its_subpackages_and_the_layout_links_to_them():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["packages"]["find"]["include"] == ["mcmc_pairs*"]
    assert "package-dir" not in config  # the checkout is laid out as the wheel
    for old in OLD:
        folder = ROOT / old
        assert folder.is_symlink() and folder.readlink() == Path("mcmc_pairs") / old
        assert (ROOT / "mcmc_pairs" / old / "__init__.py").is_file()
    assert not (ROOT / "mcmc_pairs" / "__init__.py").read_text().count("__path__")


def _old_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in OLD]
    return found


def test_no_source_imports_the_old_top_level_names():
    paths = [p for folder in SOURCES for p in (ROOT / folder).rglob("*.py")]
    paths = [p for p in paths if p.name != "test_independence.py"]  # it parses such strings
    assert len(paths) > 100
    assert not [hit for path in paths for hit in _old_imports(path)]


def test_stored_import_strings_use_the_new_names():
    from mcmc_pairs.comparisons.registry import PAIRS

    specs = [pair.model for pair in PAIRS]
    specs += [s for pair in PAIRS for s in (*pair.handrolled.values(), *pair.wrong.values())]
    strings = [s for s in specs if isinstance(s, str)]
    assert len(strings) > 20
    assert all(s.startswith("mcmc_pairs.") for s in strings), strings


def test_a_checkout_on_pythonpath_imports_without_installing(tmp_path):
    # -S: no site-packages, hence no editable install's finder; only PYTHONPATH=checkout
    code = "import mcmc_pairs, mcmc_pairs.comparisons.loading as m; print(m.__file__)"
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ROOT / "mcmc_pairs" / "comparisons" / "loading.py")
