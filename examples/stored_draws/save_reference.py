"""Save a PyMC run of the eight-schools model as netCDF: stored draws to compare against.

``python examples/stored_draws/save_reference.py [OUT.nc]`` (default
``reports/eight_schools_reference.nc``) runs ``pm.sample`` on
``examples/eight_schools/model.py`` with its data (4 chains x 10,000 draws after
1,000 tuning, seed 2026) and writes the DataTree ``pm.sample`` returns with
``to_netcdf``, as a user would keep last month's run.
"""

import json
import sys
from pathlib import Path

import pymc as pm

HERE = Path(__file__).resolve().parent
SCHOOLS = HERE.parent / "eight_schools"


def main(out: Path) -> None:
    """Sample the model and write its draws to ``out``."""
    sys.path.insert(0, str(SCHOOLS))
    from model import build_model

    data = json.loads((SCHOOLS / "data.json").read_text())
    with build_model(data):
        tree = pm.sample(draws=10000, tune=1000, chains=4, random_seed=2026, progressbar=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    tree.to_netcdf(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "reports/eight_schools_reference.nc"))
