# The commands a person types. `make demo` and `make test` set up .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install inspector demo test lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

# the MCP Inspector CLI the `toolrail serve` tests drive (skipped by them only without npm)
INSPECTOR := tests/mcp/inspector
$(INSPECTOR)/node_modules/.installed: $(INSPECTOR)/package.json $(INSPECTOR)/package-lock.json
	if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix $(INSPECTOR) --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the MCP Inspector tests will be skipped"; fi

inspector: $(INSPECTOR)/node_modules/.installed

demo: install
	$(BIN)/python examples/demo.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

pytest: install inspector
	$(BIN)/pytest -q

test: lint typecheck pytest

bench: install
	$(BIN)/python -m pip install -q --disable-pip-version-check -e ".[dev,bench]"
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
