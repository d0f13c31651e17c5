"""``scripts/zoo_calibration.py``: the page from known inputs, and two real seeds end to end."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "zoo_calibration", ROOT / "scripts/zoo_calibration.py"
)
zoo_calibration = importlib.util.module_from_spec(spec)
sys.modules.setdefault("zoo_calibration", zoo_calibration)
spec.loader.exec_module(zoo_calibration)


def test_the_page_counts_tails_and_energy_rejections():
    zs = pd.DataFrame({"quantity": "p", "statistic": "z(mean)", "z": [0.0, 3.5, -4.5, 1.0, np.inf]})
    ps = np.array([0.0005, 0.004, 0.2, 0.9])
    page = zoo_calibration.render("boundary", zs, ps, 60.0, "cmd")
    assert "| p | z(mean) | 4 | " in page  # the infinite z is left out of the row
    assert "| 2 (" in page and "| 1 (" in page  # |z| > 3 twice, > 4 once
    assert "| 0.01 | 2 of 4 | 0.0 |" in page and "| 0.001 | 1 of 4 | 0.0 |" in page


def test_two_seeds_of_boundary(tmp_path):
    out = tmp_path / "page.md"
    argv = ["--model", "boundary", "--seeds", "2", "--workers", "1", "--out", str(out)]
    assert zoo_calibration.main(argv) == 0
    page = out.read_text()
    assert "2 seeds of `compare` at one look" in page
    assert "| log_likelihood | z(q95) | 2 |" in page
