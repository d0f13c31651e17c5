#!/usr/bin/env bash
# The pytest plugin as a user's project meets it (issue 38; for .ci/run).
#
# Runs the example project examples/pytest_project with pytest: its statistical tests
# (the `mcmc_pairs` fixture on examples/eight_schools: the Gibbs sampler agrees on two data
# sets, the planted bug is `disagree`) must pass, and the terminal summary must state the
# session's count of statistical tests and its family-wise false-alarm rate. `-p mcmc_pairs`
# names the plugin by its entry point: a no-op when pytest loads entry points itself, and
# the way to load it under PYTEST_DISABLE_PLUGIN_AUTOLOAD=1. The reference cache is a fresh
# temporary directory, so PyMC runs as on a user's first session. Its pages are written
# without figures (MCMC_PAIRS_FIGURES=off), as in the test suite outside the tests about
# pages: this checks that a report is written per statistical test, not what it draws, and
# drawing was a third of the project's time (41 -> 27 CPU-s, warm caches); the wheel smoke
# and the tests of pages draw them.
#
# Usage: scripts/example_pytest_project.sh [PYTHON]   (default .venv/bin/python; about 30 s
# on 2 idle cores)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-$root/.venv/bin/python}"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcmc-pairs-pytest-project.XXXXXX")"
trap 'rm -rf "$work"' EXIT

status=0
MCMC_PAIRS_FIGURES=off "$python" -m pytest "$root/examples/pytest_project" \
  -p mcmc_pairs -p no:cacheprovider \
  --mcmc-pairs-cache "$work/cache" --mcmc-pairs-reports "$work/reports" \
  --basetemp "$work/tmp" > "$work/out.txt" 2>&1 || status=$?
cat "$work/out.txt"
if [ "$status" -ne 0 ]; then
  echo "[pytest project] pytest exited $status" >&2
  exit 1
fi
summary="mcmc-pairs: 3 statistical tests, family-wise false-alarm rate 1 %: each run at level 0.333 %"
if ! grep -qF "$summary" "$work/out.txt"; then
  echo "[pytest project] the summary line is missing: $summary" >&2
  exit 1
fi
if [ "$(find "$work/reports" -name '*.html' | wc -l)" -ne 3 ]; then
  echo "[pytest project] expected a report per statistical test in $work/reports" >&2
  exit 1
fi
echo "[pytest project] ok: 3 statistical tests passed, summary line and reports present"
