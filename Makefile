# The two commands of the README: `make report` and `make test`.
# `make test` leaves out the tests marked slow (minutes each on 2 cores);
# `make test-slow` runs them, and CI (.ci/run) runs both.
# Both create .venv with a Python >= 3.12 when it is missing (PYTHON=... overrides), and install
# the project into it with uv (from PyPI, by pip): the same packages as pip installs, in about 40 s
# instead of 100 s on 2 cores. --compile-bytecode as pip does: where PYTHONDONTWRITEBYTECODE is
# set, nothing else would write the .pyc files and every process would compile its imports.
SHELL := /bin/sh
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: report test test-slow lint bench bench-report clean venv power certify notebooks check-report check-notebooks

report: $(STAMP)
	$(BIN)/python scripts/shipped.py page reports
	$(BIN)/mcmc-pairs report --out reports

# Tests run on one pytest-xdist worker per core, a test file per worker (its module fixtures
# are computed once); every number they check is the same on any number of workers.
test: $(STAMP) lint
	$(BIN)/python -m pytest -q -m "not slow" -n auto --dist loadfile --durations=15

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow -n auto --dist loadfile

# Measured false alarms (sequential compare), sensitivity to planted shifts and power on the
# catalogue of wrong samplers, with Geweke and SBC, and the calibration zoo (hours on 2 cores;
# not in `make test`). Tasks run on a local Dask cluster, one process per core; no task starts
# after 55 minutes: run it again to go on from benchmarks/power_journal.jsonl. POWER_ARGS adds
# flags: "--scheduler tcp://HOST:8786" (a running Dask cluster), "--sections zoo" (the zoo
# alone), "--fresh" (start over, after changing the code the records depend on).
POWER_ARGS ?=
power: $(STAMP)
	$(BIN)/python scripts/power.py --max-minutes 55 --out benchmarks $(POWER_ARGS)

# PyMC's step methods against nutpie's NUTS on every zoo model, posteriordb posterior and
# pair (scripts/certify.py): benchmarks/certify.md; resumable, CERTIFY_ARGS=--scheduler ADDRESS.
certify: $(STAMP)
	$(BIN)/python scripts/certify.py --out benchmarks $(CERTIFY_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Execute every teaching notebook at the settings of its parameters cell and
# publish it, both committed: notebooks/<name>.ipynb with its outputs, and
# notebooks/html/<name>.html, self-contained, formulas as MathML (no script, no
# network). tests/notebooks/test_published.py fails when either is stale against
# the .py source. NAMES=... publishes some only (about 20 min for all on 2 cores).
notebooks: $(STAMP)
	$(BIN)/python scripts/publish_notebooks.py $(NAMES)

# Open the published notebook pages in headless Chromium with the network cut off
# (the checks of check-report: no request, no console error, no sideways scroll).
check-notebooks: $(STAMP)
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium; }
	$(BIN)/python -m pip install --quiet -e ".[browser]"
	$(BIN)/python scripts/check_report.py notebooks/html

# Open the report in headless Chromium (installed from Debian's archive when
# missing): no console error, no broken image, no sideways scroll on a phone;
# screenshots of the suite page and one pair page go to reports/screenshots/.
check-report: $(STAMP)
	@command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium; }
	$(BIN)/python -m pip install --quiet -e ".[browser]"
	@test -f reports/index.html || $(MAKE) report
	$(BIN)/python scripts/check_report.py reports

# The last line is issue 30's "time to verdict", this tree against the code before it
# (benchmarks/README.md; 25–30 min on 2 cores). TTV_ARGS adds flags, e.g.
# "--runs 1 --cases list eight_schools" or "--baseline REV".
TTV_ARGS ?=
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python -m benchmarks.run
	$(BIN)/python -m benchmarks.posteriordb
	$(BIN)/python -m benchmarks.compile_overhead
	$(BIN)/python -m benchmarks.time_to_verdict $(TTV_ARGS)

# `mcmc-pairs report` of this tree against the code before issue 17, runs in turn,
# wall and CPU time and their ratio (BASELINE=<rev> to compare with another; ~10 min).
bench-report: $(STAMP)
	$(BIN)/python benchmarks/report_time.py $(if $(BASELINE),--baseline $(BASELINE))

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || { py=$$(scripts/find-python) && echo "creating $(VENV) with $$py" && "$$py" -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/python -m uv pip install --quiet --compile-bytecode --python $(BIN)/python -e ".[dev,numpyro,shipped]"
	@touch $@

clean:
	rm -rf $(VENV) reports .pytest_cache
