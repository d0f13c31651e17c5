"""The contract pages and the JSON Schemas in ``docs/`` hold for real outputs.

``docs/contracts.md`` documents the JSON that ``compare`` and ``validate``
write; ``docs/schemas/*.schema.json`` state it as data (JSON Schema draft
2020-12). Here cheap real runs (a registered pair and a model of your own for
``compare``, SBC and Geweke's test for ``validate``, a stopped run) are
checked against the schemas, a document with a key missing or of the wrong
type must be rejected (so the schemas can fail), every key the schemas name
must be documented in the contracts page, and no tracked file may cite the
original design document, which users cannot read.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from mcmc_pairs.comparisons import cli, validation_report
from mcmc_pairs.comparisons.parallel import SYNCHRONOUS
from mcmc_pairs.comparisons.testing import compare
from mcmc_pairs.comparisons.validation import ERROR, ValidationResult

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CONTRACTS = DOCS / "contracts.md"
EIGHT_SCHOOLS = ROOT / "examples" / "eight_schools"


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((DOCS / "schemas" / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(name: str, document: dict) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator(name).iter_errors(document)
    ]


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("contracts")


@pytest.fixture(scope="module")
def compare_doc(out) -> dict:
    """``mcmc-pairs compare mh_normal`` at one small look: four sides, every kind of check."""
    status = cli.main(
        ["compare", "mh_normal", "--draws", "200", "--tune", "200", "--max-draws", "200",
         "--out", str(out)]
    )  # fmt: skip
    doc = json.loads((out / "mh_normal.json").read_text())
    assert status == cli.exit_status(doc["verdict"])
    return doc


@pytest.fixture(scope="module")
def byom_doc(out) -> dict:
    """``compare`` of a model of your own from Python (role ``user``), written as the CLI does."""
    result = compare(
        str(EIGHT_SCHOOLS / "model.py") + ":build_model",
        str(EIGHT_SCHOOLS / "sampler.py") + ":sample",
        EIGHT_SCHOOLS / "data.json",
        name="eight_schools",
        draws=200,
        tune=200,
        max_draws=200,
        seed=1,
        out=out,
        progress=lambda event: None,
    )
    doc = json.loads((out / "eight_schools.json").read_text())
    assert doc["verdict"] == result.verdict
    return doc


@pytest.fixture(scope="module")
def sbc_doc(out) -> dict:
    status = cli.main(
        ["validate", "bayes_net", "--method", "sbc", "--scheduler", SYNCHRONOUS,
         "--replications", "auto", "--max-replications", "20", "--seed", "5",
         "--out", str(out)]
    )  # fmt: skip
    assert status == cli.EXIT_AGREE
    doc = json.loads((out / "bayes_net_sbc.json").read_text())
    assert doc["settings"]["replications"] == 20 and doc["settings"]["auto"]["stages"]
    return doc


@pytest.fixture(scope="module")
def geweke_doc(out) -> dict:
    status = cli.main(
        ["validate", "regression", "--method", "geweke", "--scheduler", SYNCHRONOUS,
         "--replications", "4", "--steps", "50", "--out", str(out)]
    )  # fmt: skip
    assert status in (cli.EXIT_AGREE, cli.EXIT_DISAGREE)
    return json.loads((out / "regression_geweke.json").read_text())


def test_the_schemas_are_valid_draft_2020_12():
    validator("compare")
    validator("validate")


def test_compare_json_of_a_pair_matches_its_schema(compare_doc):
    assert errors("compare", compare_doc) == []
    roles = {side["role"] for side in compare_doc["sides"].values()}
    assert roles == {"handrolled", "pymc", "pymc_step"}
    kinds = {check["kind"] for check in compare_doc["checks"]}
    honesty = {"independence", "copy", "reproducibility"}
    assert kinds == {"agreement", "exact", "multivariate", "diagnostic", "support", *honesty}


def test_compare_json_of_your_own_model_matches_its_schema(byom_doc):
    assert errors("compare", byom_doc) == []
    assert {side["role"] for side in byom_doc["sides"].values()} == {"user", "pymc"}


def test_validate_json_of_sbc_and_geweke_matches_its_schema(sbc_doc, geweke_doc):
    assert errors("validate", sbc_doc) == []
    assert errors("validate", geweke_doc) == []


def test_validate_json_of_a_stopped_run_matches_its_schema():
    result = ValidationResult(
        pair="regression", method="sbc", sampler="s",
        settings={"replications": 3, "draws": 1000, "tune": 200, "chains": 1, "seed": 1,
                  "max_draws": 16000, "alpha": 0.01, "scheduler": SYNCHRONOUS},
        verdict=ERROR, checks=pd.DataFrame(), replications=[],
        timings={"total_s": 0.5}, error="1 of 3 replications failed; first: boom",
    )  # fmt: skip
    doc = validation_report.to_json(result)
    assert errors("validate", doc) == []
    del doc["error"]
    assert errors("validate", doc)


def broken(doc: dict, path: tuple, value) -> dict:
    """A copy of ``doc`` with the key at ``path`` set to ``value`` (deleted when None)."""
    doc = copy.deepcopy(doc)
    *parents, last = path
    target = doc
    for key in parents:
        target = target[key]
    if value is None:
        del target[last]
    else:
        target[last] = value
    return doc


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("verdict",), None),  # None: delete the key
        (("verdict",), "agrees"),
        (("checks", 0, "passed"), "yes"),
        (("checks", 0, "value"), "1.5"),
        (("settings", "chains"), 1),
        (("sides", "pymc", "timings"), None),
        (("looks", 0, "draws"), 200.5),
        (("unknown_key",), 1),
    ],
)
def test_a_broken_compare_document_is_rejected(compare_doc, path, value):
    doc = broken(compare_doc, path, value)
    assert errors("compare", doc), f"the schema accepted {path} = {value!r}"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("sensitivity",), None),
        (("checks", 0, "threshold"), True),
        (("replications", 0, "ranks"), "73"),
        (("draws_used", "1000"), 20.5),
        (("settings", "draws"), None),
        (("method",), "rank"),
    ],
)
def test_a_broken_validate_document_is_rejected(sbc_doc, path, value):
    doc = broken(sbc_doc, path, value)
    assert errors("validate", doc), f"the schema accepted {path} = {value!r}"


def schema_keys(node) -> set[str]:
    """Every property name a schema declares, at any depth."""
    keys: set[str] = set()
    if isinstance(node, dict):
        keys |= set(node.get("properties", {}))
        keys |= set(node.get("required", []))
        for value in node.values():
            keys |= schema_keys(value)
    elif isinstance(node, list):
        for value in node:
            keys |= schema_keys(value)
    return keys


@pytest.mark.parametrize("name", ["compare", "validate"])
def test_every_key_of_a_schema_is_documented(name):
    schema = json.loads((DOCS / "schemas" / f"{name}.schema.json").read_text())
    text = CONTRACTS.read_text()
    missing = sorted(k for k in schema_keys(schema) if f"`{k}`" not in text)
    assert missing == [], f"{CONTRACTS.name} does not document {missing}"


def test_relative_links_of_the_docs_resolve():
    pages = [ROOT / "README.md", *DOCS.glob("*.md")]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.split("\0") if name]


def test_no_tracked_file_cites_the_missing_design_document():
    missing = "DESIGN" + ".md"  # not spelled out, so this file does not cite it either
    citing = []
    for path in tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):  # binary files, or removed from the work tree
            continue
        if missing in text:
            citing.append(str(path.relative_to(ROOT)))
    assert citing == [], f"cite docs/contracts.md instead of the design document: {citing}"
