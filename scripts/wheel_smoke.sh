#!/usr/bin/env bash
# The wheel a user gets, tested as a user's project uses it (issue 27; .ci/run calls this).
#
# Builds the wheel of this checkout, installs it (not editable) into a fresh virtual
# environment outside the checkout, and from a project directory that has its own
# `models`, `comparisons` and `handrolled` packages runs: `mcmc-pairs list`,
# `python -m mcmc_pairs --version`, `compare` of a built-in pair and of the project's
# own model (named by the project's package paths), and a pytest file using
# `assert_agree` on both. Every step must succeed; the wheel must install one
# top-level package, `mcmc_pairs`, with the data files the pairs read.
#
# Usage: scripts/wheel_smoke.sh [PYTHON]   (default .venv/bin/python; about 1 min with uv's
# cache filled by `make venv`, most of it the four commands importing PyMC and compiling)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-$root/.venv/bin/python}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcmc-pairs-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT
say() { echo "[wheel] $*"; }

say "building the wheel"
"$python" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$root" > "$work/pip.log" 2>&1 \
  || { cat "$work/pip.log"; exit 1; }
wheel=("$work"/dist/mcmc_pairs-*.whl)
# Python's zipfile, not unzip: a fresh machine of this kind has no unzip.
"$python" - "${wheel[0]}" <<'PY' || exit 1
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
tops = sorted({n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")})
if tops != ["mcmc_pairs"]:
    sys.exit(f"wheel: top-level names {tops}, expected ['mcmc_pairs']")
needed = ["mcmc_pairs/pairdata/files/women.csv", "mcmc_pairs/pairdata/files/davis.csv"]
missing = [n for n in needed if n not in names]
if missing:
    sys.exit(f"wheel: data files missing: {missing}")
PY

say "installing it into a fresh environment"
# With uv, as `make venv` installs .venv: the wheel's own metadata decides what comes with it,
# as with pip, and the packages come from uv's cache when `make venv` has filled it. No
# --compile-bytecode: byte-compiling all 8,100 files of the environment takes 33 CPU-s, and
# these few commands import about 2,400 of them. They are compiled by the first command that
# imports them and written beside them (PYTHONDONTWRITEBYTECODE is unset here, as it is on a
# user's machine), for the commands after it: the whole smoke took 51 and 58 CPU-s against 75
# and 74 with --compile-bytecode (two runs each, alternating).
"$python" -m venv "$work/venv"
{ "$work/venv/bin/python" -m pip install --quiet uv \
  && "$work/venv/bin/python" -m uv pip install --quiet \
    --python "$work/venv/bin/python" "${wheel[0]}" "pytest>=8"; } \
  > "$work/pip.log" 2>&1 || { cat "$work/pip.log"; exit 1; }
unset PYTHONDONTWRITEBYTECODE

say "a user's project with its own models, comparisons and handrolled packages"
project="$work/project"
mkdir -p "$project/models" "$project/comparisons" "$project/handrolled" "$project/tests"
touch "$project/models/__init__.py" "$project/comparisons/__init__.py" \
  "$project/handrolled/__init__.py"
cp "$root/examples/eight_schools/model.py" "$project/models/schools.py"
cp "$root/examples/eight_schools/sampler.py" "$project/handrolled/schools.py"
cp "$root/examples/eight_schools/data.json" "$project/schools.json"
cat > "$project/tests/test_samplers.py" <<'PY'
from pathlib import Path

from mcmc_pairs import assert_agree
from mcmc_pairs.pairdata.mh_normal import default_data

HERE = Path(__file__).resolve().parents[1]


def test_a_built_in_pair():
    assert_agree(
        "mcmc_pairs.models.mh_normal:build_model",
        "mcmc_pairs.handrolled.mh_normal:sample",
        default_data(),
        progress=lambda event: None,
    )


def test_my_own_model():
    assert_agree(
        "models.schools:build_model",
        "handrolled.schools:sample",
        HERE / "schools.json",
        progress=lambda event: None,
    )
PY
bin="$work/venv/bin"
cd "$project"
[ "$("$bin/python" -c 'import mcmc_pairs, sys; print(mcmc_pairs.__file__.startswith(sys.prefix))')" = True ] \
  || { echo "mcmc_pairs is not imported from the fresh environment"; exit 1; }
listed="$("$bin/mcmc-pairs" list)"
grep -q "^regression" <<< "$listed" || { echo "mcmc-pairs list: $listed"; exit 1; }
version="$("$bin/python" -m mcmc_pairs --version)"
grep -q "^mcmc-pairs [0-9]" <<< "$version" || { echo "python -m mcmc_pairs --version: $version"; exit 1; }
say "compare mh_normal (built in)"
"$bin/mcmc-pairs" compare mh_normal --out "$work/reports" > "$work/builtin.txt" 2>&1 \
  || { cat "$work/builtin.txt"; exit 1; }
say "compare the project's own model"
"$bin/mcmc-pairs" compare --model models.schools:build_model --data schools.json \
  --sampler handrolled.schools:sample --out "$work/reports" > "$work/own.txt" 2>&1 \
  || { cat "$work/own.txt"; exit 1; }
say "the project's pytest file"
# Its pages without figures (MCMC_PAIRS_FIGURES=off): the two compares above drew theirs in
# this environment; here only the verdicts count (about 6 CPU-s less: 62 and 53 against
# 55 and 48 CPU-s for the whole smoke, alternating).
MCMC_PAIRS_FIGURES=off "$bin/python" -m pytest -q -p no:cacheprovider \
  --basetemp "$work/pytest" tests
say "passed"
