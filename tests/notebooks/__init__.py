"""Tests of the teaching notebooks; :data:`PUBLISH` is ``scripts/publish_notebooks.py``."""

import importlib.util
from pathlib import Path


def _publisher():
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "publish_notebooks", root / "scripts" / "publish_notebooks.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PUBLISH = _publisher()
"""The publishing script: what a published notebook is compared with, and how a small run is set."""
