"""Blame the right side: a failed reference is ``reference failed``, not the side's fault.

Function-level tests on checks tables (each rule of ``agreement.verdict`` in a
pair: the reference's failure blamed on it, the side's own failure still on
the side), the constant-quantity rule on arrays, the exit statuses, and one
end-to-end run: a Bernoulli switch ``z`` that moves ``x``'s prior 6 units, so
that PyMC's compound step (BinaryGibbsMetropolis for ``z``, NUTS for ``x``)
never flips ``z`` (the flip's log acceptance is about -1,800), against an
exact sampler of the posterior (``P(z = 1 | y) = 0.121``).
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from mcmc_pairs.comparisons import agreement, cli
from mcmc_pairs.comparisons.kinds import CheckKind, Gate, Verdict
from mcmc_pairs.comparisons.stats import constants

REF = "pymc"


def row(side, kind, passed=True, gross=False, equivalent=True, quantity="x"):
    return {
        "side": side,
        "kind": kind,
        "quantity": quantity,
        "passed": passed,
        "gross": gross,
        "equivalent": equivalent if kind in (CheckKind.AGREEMENT, CheckKind.EXACT) else None,
    }


def healthy(side):
    """Every kind of check of a side, all passed."""
    kinds = [CheckKind.AGREEMENT, CheckKind.EXACT, CheckKind.DIAGNOSTIC, CheckKind.SUPPORT]
    if side == REF:
        kinds.remove(CheckKind.AGREEMENT)
    return [row(side, kind) for kind in kinds]


def verdict_of(*changes):
    """The side's verdict when rows ``(side, kind, passed, gross)`` replace its healthy ones."""
    rows = healthy("user") + healthy(REF)
    for side, kind, passed, gross in changes:
        rows = [r for r in rows if (r["side"], r["kind"]) != (side, kind)]
        rows.append(row(side, kind, passed=passed, gross=gross, equivalent=passed))
    checks = pd.DataFrame(rows)
    return agreement.side_verdicts(checks, ["user", REF], reference=REF)["user"]


def test_healthy_sides_agree():
    assert verdict_of() == Verdict.AGREE


def test_a_failed_reference_gate_with_a_healthy_side_is_reference_failed():
    assert verdict_of((REF, CheckKind.DIAGNOSTIC, False, False)) == Verdict.REFERENCE_FAILED
    assert verdict_of((REF, CheckKind.EXACT, False, True)) == Verdict.REFERENCE_FAILED
    assert verdict_of((REF, CheckKind.SUPPORT, False, False)) == Verdict.REFERENCE_FAILED


def test_a_gross_difference_from_a_failed_reference_is_not_the_sides_fault():
    ref_gate = (REF, CheckKind.DIAGNOSTIC, False, False)
    gross = ("user", CheckKind.AGREEMENT, False, True)
    assert verdict_of(ref_gate, gross) == Verdict.REFERENCE_FAILED
    assert verdict_of(gross) == Verdict.DISAGREE  # the reference healthy: the side's fault
    # the side fails its own gate too: a gross difference from a failed reference is no evidence
    own_gate = ("user", CheckKind.DIAGNOSTIC, False, False)
    assert verdict_of(ref_gate, own_gate, gross) == Verdict.NOT_CONVERGED
    assert verdict_of(own_gate, gross) == Verdict.DISAGREE


def test_the_sides_own_failed_gate_is_still_not_converged():
    own_gate = ("user", CheckKind.DIAGNOSTIC, False, False)
    assert verdict_of(own_gate) == Verdict.NOT_CONVERGED
    assert verdict_of(own_gate, (REF, CheckKind.DIAGNOSTIC, False, False)) == Verdict.NOT_CONVERGED


def test_the_sides_own_failed_exact_check_is_disagree_whatever_the_reference():
    own_exact = ("user", CheckKind.EXACT, False, False)
    assert verdict_of(own_exact) == Verdict.DISAGREE
    assert verdict_of(own_exact, (REF, CheckKind.DIAGNOSTIC, False, False)) == Verdict.DISAGREE
    assert verdict_of(("user", CheckKind.SUPPORT, False, False)) == Verdict.DISAGREE


def sides(**columns) -> dict[str, xr.DataArray]:
    """Sides of a continuous ``x`` and the given ``z`` (a constant, or None: Bernoulli(0.3))."""
    rng = np.random.default_rng(5)
    out = {}
    for label, z in columns.items():
        x = rng.standard_normal((4, 500))
        z = (rng.random((4, 500)) < 0.3).astype(float) if z is None else np.full((4, 500), z)
        out[label] = xr.DataArray(
            np.stack([x, z], axis=-1),
            dims=("chain", "draw", "quantity"),
            coords={"quantity": ["x", "z"]},
        )
    return out


def judged(**columns):
    _, checks, _ = agreement.compare_draws(sides(**columns), [("user", REF)])
    verdict = agreement.side_verdicts(checks, ["user", REF], reference=REF)["user"]
    return verdict, checks[checks["quantity"] == "z"]


def test_a_quantity_constant_on_both_sides_is_compared_exactly_not_gated_by_nan_rhat():
    verdict, z = judged(user=0.0, pymc=0.0)
    gates = z[z["kind"] == CheckKind.DIAGNOSTIC]
    assert gates["value"][gates["statistic"] == "r_hat"].isna().all()  # R-hat undefined
    assert gates["passed"].all() and (gates["note"] == constants.NOT_APPLICABLE).all()
    compared = z[z["kind"] == CheckKind.AGREEMENT]
    assert compared["passed"].all() and (compared["value"] == 0).all()
    assert (compared["note"] == constants.CONSTANT_EQUAL).all()
    assert verdict == Verdict.AGREE
    # constant on both sides at different values: the exact comparison fails
    verdict, z = judged(user=0.0, pymc=1.0)
    mean = z[z["statistic"] == "z(mean)"].iloc[0]
    assert not mean["passed"] and mean["gross"] and mean["note"] == constants.CONSTANT_UNEQUAL
    assert verdict == Verdict.DISAGREE


def test_a_quantity_constant_on_the_reference_only_is_reference_failed():
    verdict, z = judged(user=None, pymc=0.0)
    rhat = z[(z["kind"] == CheckKind.DIAGNOSTIC) & (z["statistic"] == "r_hat")]
    assert rhat.set_index("side")["passed"].to_dict() == {"user": True, REF: False}
    assert rhat.set_index("side").at[REF, "note"] == constants.STUCK
    assert verdict == Verdict.REFERENCE_FAILED
    # the side stuck instead: its own gate fails, and its gross difference is its fault
    verdict, _ = judged(user=0.0, pymc=None)
    assert verdict == Verdict.DISAGREE


def test_exit_statuses_of_compare_and_report():
    assert [cli.exit_status(v) for v in Verdict] == [0, 4, 1, 1, 1]
    assert cli.report_exit_status(["agree", "reference failed"]) == cli.EXIT_REFERENCE_FAILED
    assert cli.report_exit_status(["reference failed", "inconclusive"]) == cli.EXIT_DISAGREE
    assert cli.report_exit_status(["agree", "error"]) == cli.EXIT_DISAGREE
    assert cli.report_exit_status(["agree", "agree"]) == cli.EXIT_AGREE


MODEL = '''
"""A Bernoulli switch z moves x's prior by gap; one observation y of x."""
import numpy as np
import pymc as pm


def build_model(data):
    with pm.Model() as model:
        z = pm.Bernoulli("z", p=data["p"])
        x = pm.Normal("x", mu=data["gap"] * z, sigma=data["s"])
        pm.Normal("y", mu=x, sigma=1.0, observed=data["y"])
    return model


def exact(data):
    q = 0.12128113117057247  # P(z = 1 | y): the sampler's posterior_z at the test's data
    return {"z": {"mean": q, "sd": float(np.sqrt(q * (1 - q)))}}
'''

SAMPLER = """
import numpy as np


def posterior_z(y, gap, s, p):
    log_odds = np.log(p / (1 - p)) + np.sum(y**2 - (y - gap) ** 2) / (2 * (s**2 + 1.0))
    return 1.0 / (1.0 + np.exp(-log_odds))


def sample(data, *, draws, tune, chains, random_seed):
    y, gap, s, p = (np.asarray(data[k], dtype=float) for k in ("y", "gap", "s", "p"))
    q = posterior_z(y, gap, s, p)
    rng = np.random.default_rng(random_seed)
    z = (rng.random((chains, draws)) < q).astype(np.int64)
    precision = 1.0 / s**2 + y.size
    x = (gap * z / s**2 + y.sum()) / precision + rng.standard_normal(z.shape) / np.sqrt(precision)
    return {"z": z, "x": x}
"""


@pytest.fixture
def stuck(tmp_path):
    root = tmp_path / "stuck"
    root.mkdir()
    (root / "switch.py").write_text(textwrap.dedent(MODEL))
    (root / "exact_sampler.py").write_text(textwrap.dedent(SAMPLER))
    (root / "switch.json").write_text(json.dumps({"y": [2.9], "gap": 6.0, "s": 0.1, "p": 0.2}))
    return root


def run(stuck, sampler, out):
    argv = [
        "compare", "--model", f"{stuck}/switch.py:build_model", "--data", f"{stuck}/switch.json",
        "--sampler", f"{stuck}/exact_sampler.py:{sampler}", "--name", "switch",
        "--draws", "200", "--tune", "100", "--max-draws", "200", "--chains", "2", "--seed", "3",
        "--no-cache", "--out", str(out),
    ]  # fmt: skip
    code = cli.main(argv)
    return code, json.loads((out / "switch.json").read_text()), (out / "switch.html").read_text()


def test_stuck_pymc_is_blamed_not_the_exact_sampler_end_to_end(stuck, tmp_path, capsys):
    import jsonschema

    from tests.test_contracts import validator

    code, doc, page = run(stuck, "sample", tmp_path / "out")
    out = capsys.readouterr().out
    assert (code, doc["verdict"]) == (cli.EXIT_REFERENCE_FAILED, "reference failed")
    jsonschema.validate(doc, validator("compare").schema)
    stuck_gate = [
        c
        for c in doc["checks"]
        if c["side"] == "pymc" and c["quantity"] == "z" and c["statistic"] == "r_hat"
    ]
    assert stuck_gate[0]["passed"] is False and stuck_gate[0]["note"] == constants.STUCK
    exact = {
        side: all(c["passed"] for c in doc["checks"] if c["kind"] == "exact" and c["side"] == side)
        for side in ("user", "pymc")
    }
    assert exact == {"user": True, "pymc": False}  # PyMC's z never left 0
    assert "verdict: reference failed" in out and "change its step methods" in out
    assert "Reference failed: PyMC&#x27;s own run failed" in page


def test_the_index_page_shows_a_failed_reference_in_its_colour_with_advice(tmp_path):
    from mcmc_pairs.comparisons import html
    from mcmc_pairs.comparisons.report import REFERENCE_ADVICE_INDEX, write_index

    entry = {"name": "switch", "title": "t", "verdict": "reference failed", "seconds": 1.0}
    page = write_index([{**entry, "sides": []}], tmp_path).read_text()
    assert f'style="color:{html.BLUE};font-weight:600">reference failed<' in page
    assert html.escape(REFERENCE_ADVICE_INDEX) in page
    agreeing = write_index([{**entry, "verdict": "agree", "sides": []}], tmp_path).read_text()
    assert html.escape(REFERENCE_ADVICE_INDEX) not in agreeing


FUNNEL = '''
"""Neal's funnel, centred: v ~ N(0, 3), x_i | v ~ N(0, exp(v / 2))."""
import pymc as pm


def build_model(data):
    with pm.Model() as model:
        v = pm.Normal("v", 0.0, 3.0)
        pm.Normal("x", 0.0, pm.math.exp(v / 2), shape=int(data["n"]))
    return model
'''

FUNNEL_SAMPLER = """
import numpy as np


def sample(data, *, draws, tune, chains, random_seed):
    '''Exact: independent draws of v, then of x given v (no Markov chain at all).'''
    n = int(data["n"])
    v, x = np.empty((chains, draws)), np.empty((chains, draws, n))
    for c, rng in enumerate(np.random.default_rng(random_seed).spawn(chains)):
        v[c] = 3.0 * rng.standard_normal(draws)
        x[c] = np.exp(v[c] / 2)[:, None] * rng.standard_normal((draws, n))
    return {"v": v, "x": x}
"""


def test_a_divergent_reference_fails_its_own_gate_and_never_convicts_an_exact_sampler(
    tmp_path, capsys
):
    """Issue 39: NUTS on the centred funnel diverges; its draws are biased where v < 0.

    Before, the run grew until the biased reference passed its R-hat and ESS
    gates, and then told the exact sampler ``disagree``. Now the divergences are
    the reference's own failed gate at the first look, and the run stops there.
    """
    import jsonschema

    from tests.test_contracts import validator

    (tmp_path / "funnel.py").write_text(textwrap.dedent(FUNNEL))
    (tmp_path / "exact.py").write_text(textwrap.dedent(FUNNEL_SAMPLER))
    (tmp_path / "funnel.json").write_text(json.dumps({"n": 4}))
    argv = [
        "compare", "--model", f"{tmp_path}/funnel.py:build_model",
        "--data", f"{tmp_path}/funnel.json", "--sampler", f"{tmp_path}/exact.py:sample",
        "--name", "funnel", "--draws", "300", "--tune", "300", "--max-draws", "4800",
        "--chains", "2", "--seed", "2", "--no-cache", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    code = cli.main(argv)
    out = capsys.readouterr().out
    doc = json.loads((tmp_path / "out" / "funnel.json").read_text())
    jsonschema.validate(doc, validator("compare").schema)
    assert (code, doc["verdict"]) == (cli.EXIT_REFERENCE_FAILED, "reference failed")
    assert len(doc["looks"]) == 1  # a longer run with the seed diverges again: no second look
    gate = [c for c in doc["checks"] if c["statistic"] == Gate.DIVERGENCES]
    assert [(c["side"], c["passed"]) for c in gate] == [("pymc", False)]
    assert gate[0]["value"] > 0
    assert "divergent transitions" in out and "target_accept" in out


def divergent_tree(diverging=None) -> xr.DataTree:
    posterior = xr.Dataset({"x": (("chain", "draw"), np.zeros((2, 5)))})
    groups = {"posterior": posterior}
    if diverging is not None:
        groups["sample_stats"] = xr.Dataset({"diverging": (("chain", "draw"), diverging)})
    return xr.DataTree.from_dict(groups)


def test_the_divergence_gate_counts_divergent_draws_and_is_absent_without_them():
    diverging = np.zeros((2, 5), dtype=bool)
    assert agreement.divergence_checks("pymc", divergent_tree(diverging))["passed"].tolist() == [
        True
    ]
    diverging[1, 3] = True
    failed = agreement.divergence_checks("pymc", divergent_tree(diverging))
    assert failed[["side", "value", "passed"]].values.tolist() == [["pymc", 1.0, False]]
    assert agreement.diverged(failed) and not agreement.diverged(None)
    assert agreement.divergence_checks("user", divergent_tree()).empty  # a Gibbs sampler
    checks = pd.DataFrame(healthy("user") + healthy(REF))
    checks = pd.concat([checks, failed.assign(gross=False, equivalent=None)], ignore_index=True)
    assert agreement.side_verdicts(checks, ["user", REF], reference=REF) == {
        "user": Verdict.REFERENCE_FAILED
    }
