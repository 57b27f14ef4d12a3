# Parlor: the two commands a new user needs are `make run` and `make test`.
# Everything installs into .venv from PyPI; no Docker needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help install protos lint typecheck test test-unit run bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(STAMP): requirements-dev.txt $(wildcard libs/*/pyproject.toml services/*/pyproject.toml)
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade --quiet pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)  ## create .venv with every library, service and tool (editable)

protos: $(STAMP)  ## regenerate Python code from protos/ (also done by install)
	$(BIN)/pip install --quiet --no-deps --force-reinstall -e libs/protos

lint: $(STAMP)  ## ruff, mypy, the import layering, buf lint (and buf breaking against main)
	$(BIN)/ruff check libs services tests bench
	$(BIN)/ruff format --check libs services tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports
	cd protos && ../$(BIN)/buf lint
	@if git rev-parse --verify --quiet origin/main >/dev/null; then \
		cd protos && ../$(BIN)/buf breaking --against '../.git#branch=origin/main,subdir=protos'; \
	else echo "buf breaking: no origin/main to compare with"; fi

test: $(STAMP) lint  ## lint, then every test (unit, integration on real PostgreSQL and NATS, end to end)
	$(BIN)/pytest

test-unit: $(STAMP)  ## only the fast tests that need no servers
	$(BIN)/pytest tests/unit

run: $(STAMP)  ## start the platform (embedded PostgreSQL and NATS unless PARLOR_DATABASE_URL/PARLOR_NATS_URL are set)
	$(BIN)/parlor-platform

bench: $(STAMP)  ## run every benchmark and print the figures
	@for b in bench/*_bench.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:  ## remove the venv, caches and embedded data
	rm -rf $(VENV) .parlor .mypy_cache .ruff_cache .pytest_cache .hypothesis
