# Parlor: the two commands a new user needs are `make run` and `make test`.
# Everything installs into .venv from PyPI; no Docker needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# What running needs (requirements.txt: `make run`), then the development and CI tools over it
# (requirements-dev.txt: `make test`, `make lint`, `make install`).
RUN_STAMP := $(VENV)/.installed-run
STAMP  := $(VENV)/.installed
# Python code generated from protos/ (libs/protos' build hook): made again when a proto changes.
GENERATED := $(VENV)/.generated
# The npm package @parlor/client (TypeScript types generated from protos/, and the client of the
# bridge), built to clients/typescript/dist; the web client is built on it.
CLIENT_BUILT := clients/typescript/dist/index.js
CLIENT_SOURCES := clients/typescript/package-lock.json clients/typescript/buf.gen.yaml clients/typescript/tsconfig.json $(wildcard clients/typescript/src/*.ts clients/typescript/scripts/*.mjs protos/parlor/*/v1/*.proto protos/google/rpc/*.proto)
# The web client, bundled into the web gateway's package data (served by make run and parlor-web).
WEB_BUILT := libs/webgateway/src/parlor/webgateway/static/index.html
WEB_SOURCES := web/package-lock.json $(CLIENT_BUILT) $(wildcard web/src/*.ts web/src/*.html web/src/*.css web/scripts/*.mjs docs/rules/*.md)

.DEFAULT_GOAL := help
.PHONY: help install protos lint test test-unit run bench bench-pace clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

# pip says what it collects and installs as it goes (no --quiet: the first start is minutes of
# it, which a silent terminal made look hung).
PIP := $(BIN)/pip install --progress-bar off --no-color

# The packages' build tools go into the venv first, and every package is built with them there
# (--no-build-isolation): one build environment, not a fresh one per package (24 of them).
BUILD_TOOLS := "hatchling>=1.24" editables "grpcio-tools>=1.66" "mypy-protobuf>=3.6"

$(RUN_STAMP): requirements.txt $(wildcard libs/*/pyproject.toml services/*/pyproject.toml)
	@echo "make: installing what running Parlor needs into $(VENV) (the first time only: a few minutes, listed below)"
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip
	@echo "make: [1/2] the build tools (hatchling and editables; grpcio-tools for the code generated from protos/)"
	$(PIP) $(BUILD_TOOLS)
	@echo "make: [2/2] Parlor's libraries and services, and what they use"
	$(PIP) --no-build-isolation -r requirements.txt
	touch $(RUN_STAMP) $(GENERATED)
	@echo "make: Parlor's packages are installed"

$(STAMP): $(RUN_STAMP) requirements-dev.txt
	@echo "make: installing the development and CI tools (ruff, mypy, pytest, buf, ...) into $(VENV)"
	$(PIP) -r requirements-dev.txt
	touch $(STAMP)

$(GENERATED): $(RUN_STAMP) $(wildcard protos/parlor/*/v1/*.proto protos/google/rpc/*.proto)
	$(BIN)/pip install --quiet --no-deps --force-reinstall -e libs/protos
	touch $(GENERATED)

install: $(STAMP) $(GENERATED) $(WEB_BUILT)  ## create .venv with every library, service and tool (editable), and build the npm package and the web client

# npm ci from the lockfile, message types generated from protos/ (buf and protoc-gen-es from npm),
# compiled by tsc to JS and .d.ts.
$(CLIENT_BUILT): $(CLIENT_SOURCES)
	@command -v npm >/dev/null 2>&1 || { echo "make: the npm package clients/typescript needs Node.js 18+ and npm, which are not installed: skipped"; exit 0; }
	@echo "make: building the npm package clients/typescript (npm ci from its lockfile)"
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error && npm run build

# npm ci from the lockfile (@parlor/client linked from clients/typescript), type-checked, bundled by esbuild.
$(WEB_BUILT): $(WEB_SOURCES)
	@command -v npm >/dev/null 2>&1 || { echo "make: the web client needs Node.js 18+ and npm, which are not installed: the services run without it, the page at :8080 says it is not built"; exit 0; }
	@echo "make: building the web client (npm ci from its lockfile)"
	cd web && npm ci --no-audit --no-fund --loglevel=error && npm run build

protos: $(STAMP)  ## regenerate Python code from protos/ (also done by install) and docs/api.md
	$(BIN)/pip install --quiet --no-deps --force-reinstall -e libs/protos
	touch $(GENERATED)
	$(BIN)/python -m parlor.protos.apidoc protos docs/api.md

lint: $(STAMP) $(GENERATED)  ## ruff, mypy (the example game too), the import layering, buf lint, buf breaking (against main, or the previous commit on main)
	$(BIN)/ruff check libs services tests bench examples
	$(BIN)/ruff format --check libs services tests bench examples
	$(BIN)/mypy
	@gen=$$(mktemp -d) && $(BIN)/python examples/tictactoe/hatch_build.py $$gen && \
	MYPYPATH=$$gen:examples/tictactoe/src $(BIN)/mypy examples/tictactoe/src/parlor/examples/tictactoe; \
	rc=$$?; rm -rf $$gen; exit $$rc
	$(BIN)/lint-imports
	cd protos && ../$(BIN)/buf lint
	@base=$$(git rev-parse --abbrev-ref HEAD 2>/dev/null); \
	if [ "$$base" != "main" ] && git rev-parse --verify --quiet main >/dev/null; then ref=main; \
	elif git rev-parse --verify --quiet HEAD~1 >/dev/null; then ref=HEAD~1; else ref=; fi; \
	if [ -n "$$ref" ] && git cat-file -e "$$ref:protos/buf.yaml" 2>/dev/null; then \
		echo "buf breaking against $$ref"; \
		cd protos && ../$(BIN)/buf breaking --against "../.git#ref=$$ref,subdir=protos"; \
	else echo "buf breaking: no earlier protos/ to compare with"; fi

# The tests run on TEST_WORKERS pytest-xdist workers, each with databases, streams and embedded
# servers of its own (tests/conftest.py), a test file's tests on one worker (its module fixtures
# start once); then those marked `serial` (they measure time or load) alone. Both phases always
# run; either failing fails. `pytest` alone runs everything in one process.
TEST_WORKERS ?= 3
test: $(GENERATED) $(WEB_BUILT) lint  ## lint, then every test (unit, integration on real PostgreSQL and NATS, end to end)
	@rc=0; \
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile -m "not serial" || rc=$$?; \
	$(BIN)/pytest -m serial || rc=$$?; \
	exit $$rc

test-unit: $(STAMP) $(GENERATED)  ## only the fast tests that need no servers
	$(BIN)/pytest tests/unit

run:  ## install only what running needs (the first time), then start the platform and the web client on http://localhost:8080 (PORT=50052 for another gRPC port; embedded PostgreSQL and NATS unless PARLOR_DATABASE_URL/PARLOR_NATS_URL are set)
	@# the Python packages and the web client (npm) are made side by side: neither needs the other
	@$(MAKE) --no-print-directory -j2 $(GENERATED) $(WEB_BUILT)
	$(BIN)/parlor-platform $(if $(PORT),--port $(PORT))

bench: $(STAMP) $(GENERATED)  ## run every benchmark; one report with every figure in bench/reports/report.md
	$(BIN)/python bench/run_all.py

bench-pace: $(STAMP) $(GENERATED)  ## server CPU per game command at human pace, by kind of work, beside an echo's (AGAINST=<commit> runs that commit's server beside this one)
	$(BIN)/python bench/pace_bench.py $(if $(AGAINST),--against=$(AGAINST))

clean:  ## remove the venv, caches and embedded data
	rm -rf $(VENV) .parlor .mypy_cache .ruff_cache .pytest_cache .hypothesis \
		web/node_modules libs/webgateway/src/parlor/webgateway/static \
		clients/typescript/node_modules clients/typescript/dist clients/typescript/src/gen
