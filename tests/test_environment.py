"""pyproject.toml and environment.yml must list the same dependencies."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOT_PACKAGES = {"python", "pip"}


def _split(requirement: str) -> tuple[str, str]:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", requirement)
    return match.group(1).lower().replace("_", "-"), match.group(2).replace(" ", "")


def pyproject_requirements() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]  # the extras make test installs
    listed = project["dependencies"] + extras["dev"] + extras["numpyro"] + extras["shipped"]
    return dict(_split(r) for r in listed)


def environment_requirements() -> dict[str, str]:
    lines = (ROOT / "environment.yml").read_text().splitlines()
    start = lines.index("dependencies:")
    entries = [ln.strip()[2:] for ln in lines[start + 1 :] if ln.strip().startswith("- ")]
    return {k: v for k, v in map(_split, entries) if k not in NOT_PACKAGES}


def test_same_packages_and_minimum_versions():
    assert pyproject_requirements() == environment_requirements()


def test_parser_sees_the_core_stack():
    assert {"pymc", "arviz-stats", "numpy", "pytest"} <= set(environment_requirements())


def test_python_floor_is_the_same():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["requires-python"] == ">=3.12"
    assert "  - python>=3.12" in (ROOT / "environment.yml").read_text().splitlines()
