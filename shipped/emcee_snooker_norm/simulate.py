"""Write ``data.json``: the data of emcee's own tutorial "Fitting a model to data".

``docs/tutorials/line.ipynb`` (emcee 3.1.6) draws a straight line with
underestimated error bars: ``np.random.seed(123)``, 50 points, slope
``-0.9594``, intercept ``4.294``, fractional extra scatter ``0.534``. The
same draws come from ``np.random.RandomState(123)`` here (the same Mersenne
Twister stream as the seeded global generator), so nothing touches the global
state. Run ``.venv/bin/python shipped/emcee_snooker_norm/simulate.py`` from the
repository's root to write the file again (the same bytes).
"""

import json
from pathlib import Path

import numpy as np

M_TRUE, B_TRUE, F_TRUE = -0.9594, 4.294, 0.534
N = 50


def main() -> None:
    """Draw the tutorial's data and write it next to this file."""
    rs = np.random.RandomState(123)
    x = np.sort(10 * rs.rand(N))
    yerr = 0.1 + 0.5 * rs.rand(N)
    y = M_TRUE * x + B_TRUE
    y += np.abs(F_TRUE * y) * rs.randn(N)
    y += yerr * rs.randn(N)
    out = {"x": x.tolist(), "y": y.tolist(), "yerr": yerr.tolist()}
    Path(__file__).with_name("data.json").write_text(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
