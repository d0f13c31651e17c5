"""``make certify`` (scripts/certify.py) and the catalogue's tables (scripts/shipped.py), small.

The certification of one step on one model runs end to end in this process; a step
competent for no variable is ``not applicable`` without a run; the table names every
``disagree`` and calls one without a note unexplained. The catalogue's checks by hand
are computed from a made-up report.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


certify = _load("certify")
shipped = _load("shipped")


def test_a_step_competent_for_no_variable_is_not_applicable_without_a_run():
    models = certify.models()
    assert {"zoo", "posteriordb", "pairs"} == {m["group"] for m in models.values()}
    spec = models["bayes_net"] | {"script": str(ROOT / "scripts" / "certify.py")}
    [record] = certify.certify_task("HamiltonianMC", "bayes_net", spec, 1)
    assert record["verdict"] == "not applicable" and record["took"] == "0 of 3"


def test_a_step_on_a_pair_gets_a_verdict_and_its_speed():
    models = certify.models()
    spec = models["bayes_net"] | {"script": str(ROOT / "scripts" / "certify.py")}
    [record] = certify.certify_task("BinaryGibbsMetropolis", "bayes_net", spec, 1)
    assert record["verdict"] == "agree" and record["took"] == "3 of 3"
    assert record["ess_per_second"] > 0 and record["draws"] >= 1000


def test_the_table_explains_every_disagree_or_says_it_is_unexplained():
    records = [
        {"step": "Slice", "model": "m", "verdict": "disagree", "draws": 1000, "took": "1 of 1"},
        {"step": "CategoricalGibbsMetropolis(proportional)", "model": "m", "verdict": "disagree",
         "draws": 1000, "took": "1 of 2"},
        {"step": "NUTS", "model": "m", "verdict": "not applicable", "took": "0 of 1"},
    ]  # fmt: skip
    steps = ["Slice", "CategoricalGibbsMetropolis(proportional)", "NUTS", "HamiltonianMC"]
    text = certify.render(records, steps, ["m"])
    assert (
        "| `m` | **disagree**, 1,000 | **disagree**, 1,000 (1 of 2) | not applicable | not run |"
        in text
    )
    assert "`Slice` on `m`: **unexplained**" in text
    assert "live PyMC defect" in text


def _summary(means, r_hat=1.0, ess=1000.0):
    return {q: {"mean": m, "r_hat": r_hat, "ess_bulk": ess} for q, m in means.items()}


def test_the_checks_by_hand_read_the_model_variables_only():
    document = {
        "sides": {
            "user": {"summary": _summary({"a": 0.504, "log_f": 1.0, "a*log_f": 9.0,
                                          "log_prior": 5.0}, r_hat=1.02, ess=390.0)},
            "pymc": {"summary": _summary({"a": 0.5, "log_f": 1.0, "a*log_f": 0.0,
                                          "log_prior": 0.0})},
        }
    }  # fmt: skip
    hand = shipped.hand_checks(document)
    assert hand["mean"] == {"flags": False, "worst": "a", "gap": hand["mean"]["gap"],
                            "differ": 0, "of": 2}  # fmt: skip
    assert hand["rhat"]["flags"] and hand["ess"]["flags"]
    document["sides"]["user"]["summary"]["a"]["mean"] = 0.506  # 0.51 against 0.50
    assert shipped.hand_checks(document)["mean"]["flags"]
