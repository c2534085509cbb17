# The same targets run locally and in CI. Every target installs what it needs first.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
# Line coverage of sstools/ by the whole suite may only go up: raise it when it does.
COVERAGE_FLOOR := 92

.DEFAULT_GOAL := help
.PHONY: help browser inspector setup hooks lint format typecheck test test-unit test-moved-clock router-vectors bench bench-scale demo demo-pg serve sandbox-up sandbox-down clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  make %-15s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip==25.3
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP) ## install Python packages into .venv/

# Debian's Chromium for the browser tests (Playwright drives it; it never downloads a browser).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null

browser: $(CHROMIUM) ## install Debian's Chromium for the browser tests

# The MCP Inspector's CLI (npm, pinned by tests/inspector/package-lock.json): an MCP client
# independent of ours for tests/integration/test_mcp.py. Node from Debian where it is missing.
INSPECTOR := tests/inspector/node_modules/.bin/mcp-inspector
$(INSPECTOR): tests/inspector/package-lock.json
	command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }
	cd tests/inspector && npm ci --no-audit --no-fund --ignore-scripts --silent
	touch $(INSPECTOR)

inspector: $(INSPECTOR) ## install the MCP Inspector's CLI for the MCP tests

lint: setup ## ruff: lint and format check
	$(BIN)/ruff check sstools tests bench
	$(BIN)/ruff format --check sstools tests bench

format: setup ## ruff: fix what it can and format
	$(BIN)/ruff check --fix sstools tests bench
	$(BIN)/ruff format sstools tests bench

typecheck: setup ## mypy strict over the package, tests and bench
	$(BIN)/mypy

# Test processes (pytest-xdist): one per core, at most four; each runs its own Superset fleet
# and Chromium (docs/testing.md). TEST_WORKERS=0 runs everything in this one process.
TEST_WORKERS ?= $(shell n=$$(nproc); echo $$(( n < 4 ? n : 4 )))

# Lint, types, then every test: unit, agent, integration and browser (the fixtures bring up the
# Superset sandbox; the browser tests drive Debian's Chromium). Superset's venvs (6.1.0, and 5.0.0
# for the mixed-release fleet's test) install in the background while lint and typecheck run.
# Ends with the ten slowest tests and the wall time.
test: ## lint, types, every test (sandbox and Chromium included), coverage floor
	@started=$$(date +%s); log=$$(mktemp); \
	$(MAKE) --no-print-directory setup \
	&& { $(BIN)/sstools sandbox install --version 5.0.0 >"$$log" 2>&1 & installing=$$!; } \
	&& $(MAKE) --no-print-directory lint typecheck browser inspector \
	&& { wait $$installing || { cat "$$log"; false; }; } \
	&& $(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal --durations=10 \
		--cov=sstools --cov-report=term:skip-covered --cov-fail-under=$(COVERAGE_FLOOR) $(PYTEST_ARGS); \
	status=$$?; elapsed=$$(( $$(date +%s) - started )); rm -f "$$log"; \
	printf 'make test: %s in %d min %02d s (exit %d)\n' "$$( [ $$status = 0 ] && echo passed || echo FAILED)" \
		$$(( elapsed / 60 )) $$(( elapsed % 60 )) $$status; \
	exit $$status

test-unit: setup ## the tests that need no sandbox
	$(BIN)/pytest -n $(TEST_WORKERS) -m 'not integration' $(PYTEST_ARGS)

# No test may depend on today's date: the tests that need no sandbox, with the wall clock at
# New Year (a minute past midnight UTC) and at midsummer (Debian's libfaketime; tests/faketime/run).
test-moved-clock: setup ## the sandbox-free tests at 2027-01-01 00:00:30 and 2027-07-15 12:00 UTC
	tests/faketime/run '2027-01-01 00:00:30' -m 'not integration' $(PYTEST_ARGS)
	tests/faketime/run '2027-07-15 12:00:00' -m 'not integration' $(PYTEST_ARGS)

# The tools' passage vectors, shipped so that no process embeds them at start; `make test` says
# when tools.yaml or the catalogue changed and they must be stored again.
router-vectors: setup ## store the router's tool vectors again (after editing tools.yaml or a title)
	$(BIN)/python -c "from sstools.agent.routing import passage_vectors; passage_vectors.store()"

# Speed and size goals, as ratios against a baseline measured in the same run (not timed tests):
# one table, also kept in docs/performance.md with the machine it ran on.
bench: setup browser ## every goal as a ratio against its baseline, one table
	$(BIN)/python -m bench --write docs/performance.md

# Several workers under load, on this machine's PostgreSQL (127.0.0.1:5432, a fresh database per
# run): 1, 2 and 4 `sstools serve` processes, 1,000 concurrent conversations (bench/scale.py).
bench-scale: setup ## PostgreSQL, 1/2/4 workers, 1,000 concurrent conversations: one table
	$(BIN)/python -m bench.scale

sandbox-up: setup ## start the three Superset instances
	$(BIN)/sstools sandbox up

sandbox-down: setup ## stop them
	$(BIN)/sstools sandbox down

# Sandbox, demo users, then the app on http://127.0.0.1:8000 (Ctrl-C stops the app; `make sandbox-down` the sandbox).
demo: setup ## sandbox, demo users, then the app on :8000
	$(BIN)/sstools sandbox up
	$(BIN)/sstools users add analyst --role analyst --password analyst-demo --upsert
	$(BIN)/sstools users add engineer --role engineer --password engineer-demo --upsert
	$(BIN)/sstools users add admin --role admin --password admin-demo --upsert
	@echo "sstools: http://127.0.0.1:8000  (API docs: /docs)"
	@echo "demo users: analyst / analyst-demo, engineer / engineer-demo, admin / admin-demo"
	$(BIN)/sstools serve --host 127.0.0.1 --port 8000 $(SERVE_ARGS)

# As demo, on the PostgreSQL at 127.0.0.1:5432 (database sstools, created if missing) with
# WORKERS workers behind :8000.
WORKERS ?= 2
demo-pg: export SSTOOLS_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/sstools
demo-pg: setup ## as demo, on PostgreSQL with WORKERS workers (default 2)
	@pg_isready -q -h 127.0.0.1 -p 5432 || { echo "demo-pg: no PostgreSQL on 127.0.0.1:5432"; exit 1; }
	@psql -h 127.0.0.1 -U postgres -d postgres -tAc "select 1 from pg_database where datname = 'sstools'" \
	  | grep -q 1 || createdb -h 127.0.0.1 -U postgres sstools
	$(MAKE) demo SERVE_ARGS="--workers $(WORKERS)"

hooks: setup ## run `make lint typecheck` before every git commit (pre-commit)
	$(BIN)/pre-commit install

clean: ## remove .venv and caches
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
