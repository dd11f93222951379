# Two commands a newcomer runs: `make demo` and `make test`. Each sets up what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint bench system-deps clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "patchwitness needs Python 3.11+")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

system-deps:
	@./scripts/system-deps.sh

demo: $(STAMP) system-deps
	$(BIN)/patchwitness demo

# The suite spreads over the machine's cores (at most four workers), one test file per worker at
# a time, so a file's shared fixtures (a built demo, a warm tree) are made once.
PARALLEL := -n auto --maxprocesses=4 --dist loadfile

test: $(STAMP) system-deps
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/python -m pytest $(PARALLEL) $(PYTEST_ARGS)

# Skips the slow end-to-end tests (they still run in `make test` and in CI).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m 'not slow' $(PARALLEL) $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

bench: $(STAMP) system-deps
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
