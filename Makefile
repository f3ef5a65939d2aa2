# Two commands for a fresh machine: `make demo` and `make test`.
# Both create .venv if missing and install Seaway with its dependencies first, then record
# the Spark driver's class data sharing archive (seaway/spark/prepare.py: sessions start
# ~2 s sooner, and no JVM of the first runs records its own).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.seaway-installed
PYTEST_ARGS ?=

.PHONY: demo test lint soak bench clean prerequisites databases browser

demo: $(STAMP)
	$(PY) -m seaway demo

test: lint databases browser
	$(PY) -m pytest -n 2 --durations=25 $(PYTEST_ARGS)

# Style, the layering contracts of .importlinter, and types.
lint: $(STAMP)
	$(PY) -m ruff check seaway tests bench
	$(PY) -m ruff format --check seaway tests bench
	$(VENV)/bin/lint-imports
	$(PY) -m mypy

# The kill -9 and many-records scenarios SEAWAY_SOAK times longer (more kills, more records;
# tests/soak.py), one after the other.
SEAWAY_SOAK ?= 10
soak: $(STAMP) databases
	SEAWAY_SOAK=$(SEAWAY_SOAK) $(PY) -m pytest -m slow --timeout 7200 --durations=25 $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) -m bench.broker

# MariaDB and PostgreSQL servers for the JDBC tests (Debian's packages; each test run starts
# its own servers in temporary folders).
databases:
	@bash scripts/install-databases.sh

# Chromium for the web console tests (Debian's package, driven headless by Playwright).
browser:
	@bash scripts/install-chromium.sh

prerequisites:
	@command -v $(PYTHON) >/dev/null 2>&1 || { \
	  echo "error: $(PYTHON) not found: Seaway needs Python >= 3.11 (set PYTHON=...)"; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' || { \
	  echo "error: Seaway needs Python >= 3.11, $(PYTHON) is $$($(PYTHON) -V 2>&1)"; exit 1; }
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { \
	  echo "error: $(PYTHON) lacks venv/ensurepip (Debian: apt-get install python3-venv)"; exit 1; }
	@{ test -n "$$JAVA_HOME" && test -x "$$JAVA_HOME/bin/java"; } || command -v java >/dev/null 2>&1 || { \
	  echo "error: Spark needs Java 17+ and none was found (Debian: apt-get install openjdk-17-jre-headless, or set JAVA_HOME)"; exit 1; }
	@{ command -v cc || command -v gcc; } >/dev/null 2>&1 || { \
	  echo "error: Seaway builds one small C extension and no C compiler was found (Debian: apt-get install gcc)"; exit 1; }
	@$(PYTHON) -c 'import os, sysconfig, sys; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")) else 1)' || { \
	  echo "error: $(PYTHON) has no C headers (Python.h) to build Seaway's extension with (Debian: apt-get install python3-dev)"; exit 1; }

$(STAMP): pyproject.toml | prerequisites
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[spark,test]'
	$(PY) -m seaway.spark.prepare
	touch $(STAMP)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
