"""Stored draws as a side: netCDF, zarr and CmdStan CSV, as reference or under test.

The stored draws are exact draws of ``bivariate_normal``'s target (independent
normals with the pair's correlation), so a stored reference runs no PyMC: a
correct sampler agrees with them, a wrong one is caught, and a stored side too
short to decide says that its own Monte Carlo error limits the resolution.
"""

import json

import numpy as np
import pytest
import xarray as xr
from arviz_base import from_dict

from mcmc_pairs.comparisons import cli, stored
from tests.test_contracts import errors

WRONG = "mcmc_pairs.handrolled.wrong_samplers:bivariate_gibbs_without_shrinkage"
FAST = ["--draws", "1000", "--tune", "200", "--max-draws", "4000"]


def exact_draws(chains=4, draws=2000, seed=5) -> np.ndarray:
    """Independent draws of the pair's target N((5, -1), [[1, 1], [1, 4]]): (chain, draw, 2)."""
    cov = np.array([[1.0, 0.5 * 2.0], [0.5 * 2.0, 4.0]])
    rng = np.random.default_rng(seed)
    return rng.multivariate_normal([5.0, -1.0], cov, size=(chains, draws))


def write_netcdf(path, x):
    from_dict({"posterior": {"x": x}}).to_netcdf(path)
    return path


def write_cmdstan(folder, x, *, warmup=0):
    """One CmdStan-style CSV per chain: comments, a header, lp__ and accept_stat__, x.1, x.2."""
    folder.mkdir(exist_ok=True)
    for c, chain in enumerate(x):
        rows = np.vstack([np.zeros((warmup, 2)), chain]) if warmup else chain
        lines = ["# model = bivariate", f"# save_warmup = {int(bool(warmup))}"]
        lines += [f"# num_warmup = {warmup}", "lp__,accept_stat__,x.1,x.2"]
        lines += [f"-1.5,0.9,{float(a)!r},{float(b)!r}" for a, b in rows]
        lines += ["# Elapsed Time: 0.1 seconds (Sampling)"]
        (folder / f"fit-{c + 1}.csv").write_text("\n".join(lines) + "\n")
    return str(folder / "fit-*.csv")


def compare(tmp_path, *argv):
    code = cli.main(["compare", "bivariate_normal", *argv, *FAST, "--out", str(tmp_path)])
    document = json.loads((tmp_path / "bivariate_normal.json").read_text())
    return code, document


def test_a_correct_sampler_agrees_with_stored_exact_draws_and_a_wrong_one_does_not(tmp_path):
    reference = write_netcdf(tmp_path / "exact.nc", exact_draws())
    code, document = compare(tmp_path, "--reference", str(reference))
    assert code == 0 and document["verdict"] == "agree"
    side = document["sides"]["pymc"]
    assert side["sampler"] == f"stored draws: {reference} (netCDF)"
    assert side["ess_bulk_per_second"] is None and "cannot_grow" not in document
    assert errors("compare", document) == []
    code, document = compare(tmp_path, "--reference", str(reference), "--sampler", WRONG)
    assert code == 1 and document["verdict"] == "disagree"


def test_cmdstan_csv_chains_are_read_as_the_models_variables(tmp_path):
    x = exact_draws(chains=3, draws=50)
    tree = stored.read_cmdstan_csv(write_cmdstan(tmp_path / "fit", x, warmup=7), argument="--x")
    assert np.array_equal(tree["posterior"]["x"].values, x)  # warm-up rows left out, repr exact
    assert set(tree["sample_stats"].data_vars) == {"lp", "acceptance_rate"}
    code, document = compare(
        tmp_path, "--reference", write_cmdstan(tmp_path / "all", exact_draws())
    )
    assert code == 0 and document["sides"]["pymc"]["sampler"].endswith("(CmdStan CSV)")


def test_stored_draws_under_test_are_a_side_like_any_other(tmp_path):
    x = exact_draws(seed=8)
    zarr = tmp_path / "mine.zarr"
    from_dict({"posterior": {"y": x}}).to_zarr(zarr)
    code, document = compare(tmp_path, "--sampler", str(zarr), "--rename", "y=x")
    assert code == 0 and document["sides"]["user"]["sampler"].endswith("(zarr)")


def test_a_stored_reference_too_short_to_decide_says_it_cannot_grow(tmp_path, capsys):
    reference = write_netcdf(tmp_path / "short.nc", exact_draws(chains=4, draws=150))
    code, document = compare(tmp_path, "--reference", str(reference))
    assert code == 1 and document["verdict"] == "inconclusive"
    assert document["cannot_grow"] == ["pymc"]
    assert errors("compare", document) == []  # the schema knows the key
    assert all(look["grown"] == ["handrolled:gibbs"] for look in document["looks"][1:])
    assert "stored draws cannot grow: pymc" in capsys.readouterr().out
    page = (tmp_path / "bivariate_normal.html").read_text()
    assert "cannot grow: their own Monte Carlo error limits the resolution" in page


def _truncated(tmp_path):
    path = write_netcdf(tmp_path / "whole.nc", exact_draws(draws=50))
    cut = tmp_path / "cut.nc"
    cut.write_bytes(path.read_bytes()[:2000])
    return str(cut)


def _with(tmp_path, name, **variables):
    path = tmp_path / name
    from_dict({"posterior": variables}).to_netcdf(path)
    return str(path)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda t: str(t / "missing.nc"), "does not exist"),
        (lambda t: str(t / "draws.txt"), "unknown format of stored draws"),
        (_truncated, "does not read"),
        (lambda t: _with(t, "nan.nc", x=np.full((2, 5, 2), np.nan)), "holds NaN"),
        (lambda t: _with(t, "extra.nc", x=exact_draws(2, 5), z=np.ones((2, 5))), "lacks: ['z']"),
        (lambda t: _with(t, "none.nc", z=np.ones((2, 5))), "lack ['x']"),
        (lambda t: _with(t, "shape.nc", x=np.ones((2, 5, 3))), "the model's x is"),
        (lambda t: _with(t, "one.nc", x=np.ones((1, 5, 2))), "at least 2 of 2"),
    ],
)
def test_bad_stored_draws_exit_2_with_one_line_and_nothing_written(tmp_path, capsys, make, message):
    out = tmp_path / "out"
    argv = ["compare", "bivariate_normal", "--reference", make(tmp_path), "--out", str(out)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1 and err[0].startswith("mcmc-pairs: error: --reference") and message in err[0]
    )
    assert not out.exists()


def test_chains_of_different_lengths_and_draws_outside_the_support_are_bad_input(tmp_path):
    folder = tmp_path / "ragged"
    pattern = write_cmdstan(folder, exact_draws(chains=2, draws=20))
    lines = (folder / "fit-2.csv").read_text().splitlines()
    (folder / "fit-2.csv").write_text("\n".join(lines[:-3]) + "\n")
    with pytest.raises(ValueError, match="differ in length"):
        stored.read_cmdstan_csv(pattern, argument="--reference")
    from mcmc_pairs.comparisons.registry import get_pair
    from mcmc_pairs.comparisons.run import run_pair

    sigma2 = np.abs(exact_draws(chains=2, draws=30)[..., 0])
    sigma2[0, 3] = -1.0  # a variance below 0
    draws = {"beta0": sigma2, "beta1": sigma2, "sigma2": sigma2}
    path = tmp_path / "regression.nc"
    from_dict({"posterior": draws}).to_netcdf(path)
    with pytest.raises(ValueError, match=r"--sampler: 1 stored draw\(s\) lie outside"):
        run_pair(get_pair("regression"), sampler=str(path), progress=lambda e: None)


def test_what_is_stored_and_how_it_is_renamed():
    assert stored.is_stored("fit-*.csv") and stored.is_stored("posteriordb:eight_schools")
    assert stored.is_stored("draws.json.zip") and stored.is_stored("trace.zarr/")
    assert not stored.is_stored("examples/x/sampler.py:sample") and not stored.is_stored(len)
    assert stored.parse_rename(["theta=mu", "gq="]) == {"theta": "mu", "gq": None}
    with pytest.raises(ValueError, match="--rename must look like OLD=NEW"):
        stored.parse_rename(["theta"])
    tree = xr.DataTree.from_dict(
        {"posterior": xr.Dataset({"a": (("chain", "draw"), np.ones((2, 3)))})}
    )
    checked = stored.check_draws(tree, {"b": ()}, (), {"a": "b"}, argument="--reference")
    assert list(checked["posterior"].data_vars) == ["b"]


def test_validate_refuses_stored_draws_with_one_line(tmp_path, capsys):
    path = write_netcdf(tmp_path / "x.nc", exact_draws(draws=20))
    argv = ["validate", "regression", "--sampler", str(path), "--method", "sbc"]
    assert cli.main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "stored draws cannot be validated" in err[0]
