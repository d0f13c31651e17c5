# The two commands of the README: `make report` and `make test`.
# Both create .venv with a Python >= 3.12 when it is missing (PYTHON=... overrides).
SHELL := /bin/sh
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: report test lint bench clean venv

report: $(STAMP)
	$(BIN)/mcmc-pairs report --out reports

test: $(STAMP) lint
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

venv: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || { py=$$(scripts/find-python) && echo "creating $(VENV) with $$py" && "$$py" -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@

clean:
	rm -rf $(VENV) reports .pytest_cache
