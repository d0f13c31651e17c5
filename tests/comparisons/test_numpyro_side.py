"""A NumPyro model as a side: the port named, run reproducibly, and bad ports refused.

The worked example (``examples/numpyro_port``: agree for the port, disagree for a
planted bug) runs in ``tests/examples/test_examples.py``.
"""

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from mcmc_pairs.comparisons import cli
from mcmc_pairs.comparisons.numpyro_side import NumpyroSampler

ROOT = Path(__file__).resolve().parents[2]
PORT = f"{ROOT}/examples/numpyro_port/model.py"
SCHOOLS = ROOT / "examples" / "eight_schools"
DATA = {
    "y": [28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0],
    "sigma": [15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0],
    "mu_sd": 20.0,
    "tau2_alpha": 5.0,
    "tau2_beta": 100.0,
}
BAD = """
import numpyro
import numpyro.distributions as dist


def wrong_names(data):
    numpyro.sample("m", dist.Normal(0.0, 1.0))


def raises(data):
    raise RuntimeError("boom")
"""


def _pair(*variables):
    """A stand-in pair with these free variables: all that ``NumpyroSampler.parse`` reads."""
    return SimpleNamespace(variables=variables)


def test_the_port_is_a_sampler_with_the_same_draws_for_a_seed():
    assert NumpyroSampler.parse("examples/x.py:sample", _pair("mu")) is None
    port = NumpyroSampler.parse(f"numpyro:{PORT}:model", _pair("mu", "tau2", "theta"))
    assert str(port) == f"numpyro:{PORT}:model"
    first = port(DATA, draws=20, tune=10, chains=2, random_seed=3)
    again = port(DATA, draws=20, tune=10, chains=2, random_seed=3)
    other = port(DATA, draws=20, tune=10, chains=2, random_seed=4)
    assert list(first) == ["mu", "tau2", "theta"] and first["theta"].shape == (2, 20, 8)
    assert first["mu"].dtype == np.float64 and np.all(first["tau2"] > 0)
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert not np.array_equal(first["mu"], other["mu"])


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("wrong_names", "has no sample site(s) ['mu', 'tau2', 'theta']"),
        ("raises", "raised RuntimeError: boom"),
        ("missing", "has no callable named 'missing'"),
    ],
)
def test_a_bad_port_exits_2_with_one_line_and_nothing_written(tmp_path, capsys, name, message):
    (tmp_path / "bad.py").write_text(BAD)
    out = tmp_path / "out"
    argv = ["compare", "--model", f"{SCHOOLS}/model.py:build_model"]
    argv += ["--data", str(SCHOOLS / "data.json"), "--draws", "50", "--tune", "50"]
    argv += ["--sampler", f"numpyro:{tmp_path}/bad.py:{name}", "--out", str(out)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("mcmc-pairs: error:")]
    assert len(lines) == 1 and "numpyro:" in lines[0] and f"bad.py:{name}" in lines[0]
    assert message in lines[0] and "Traceback" not in err
    assert not out.exists()


def test_without_numpyro_the_port_is_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpyro", None)  # as if it were not installed
    with pytest.raises(ValueError, match=r"NumPyro is not installed \(pip install"):
        NumpyroSampler.parse(f"numpyro:{PORT}:model", _pair("mu"))
