# The same targets run locally and in CI. Every target installs what it needs first.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=


.PHONY: browser setup lint format typecheck test test-unit bench demo serve sandbox-up sandbox-down clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip==25.3
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; it never downloads a browser).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null

browser: $(CHROMIUM)

lint: setup
	$(BIN)/ruff check sstools tests bench
	$(BIN)/ruff format --check sstools tests bench

format: setup
	$(BIN)/ruff check --fix sstools tests bench
	$(BIN)/ruff format sstools tests bench

typecheck: setup
	$(BIN)/mypy

# Lint, types, then every test: unit, agent, integration and browser (the fixtures bring up the
# Superset sandbox; the browser tests drive Debian's Chromium).
test: lint typecheck browser
	$(BIN)/pytest $(PYTEST_ARGS)

test-unit: setup
	$(BIN)/pytest -m 'not integration' $(PYTEST_ARGS)

# Speed and size goals, as ratios against a naive baseline (not timed tests).
bench: setup browser
	$(BIN)/python -m bench.summarize
	$(BIN)/python -m bench.cards

sandbox-up: setup
	$(BIN)/sstools sandbox up

sandbox-down: setup
	$(BIN)/sstools sandbox down

# Sandbox, demo users, then the app on http://127.0.0.1:8000 (Ctrl-C stops the app; `make sandbox-down` the sandbox).
demo: setup
	$(BIN)/sstools sandbox up
	$(BIN)/sstools users add analyst --role analyst --password analyst-demo --upsert
	$(BIN)/sstools users add engineer --role engineer --password engineer-demo --upsert
	$(BIN)/sstools users add admin --role admin --password admin-demo --upsert
	@echo "sstools: http://127.0.0.1:8000  (API docs: /docs)"
	@echo "demo users: analyst / analyst-demo, engineer / engineer-demo, admin / admin-demo"
	$(BIN)/sstools serve --host 127.0.0.1 --port 8000

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
