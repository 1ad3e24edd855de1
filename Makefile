# QuestWorlds Table: `make run` to play, `make test` to check everything.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
HOST ?= 127.0.0.1
# How uvicorn serves the app here and in the image (Dockerfile); bench/liveserver.py's
# UVICORN_OPTIONS, which the tests start, is the same list (docs/deploy.md says why each).
UVICORN_OPTIONS := --loop uvloop --http httptools --ws websockets-sansio --ws-max-size 65536 \
	--ws-per-message-deflate false --lifespan off --no-proxy-headers --no-access-log \
	--timeout-graceful-shutdown 2

.PHONY: run test lint format bench bench-smoke migrate demo clean

# Python keeps each module's compiled bytecode (__pycache__/, ignored by git) even where
# the environment says not to (PYTHONDONTWRITEBYTECODE=1, as on the CI machine): the suite
# starts some eighty Python processes (its workers, the servers, `manage.py`), and each
# compiled the project again. tests/site and tests/campaigns from a fresh clone: 110 s
# with it set, 97 s without (user CPU 136 s -> 120 s).
unexport PYTHONDONTWRITEBYTECODE

# The venv is rebuilt when pyproject.toml changes; stamps say what is installed.
$(VENV)/.runtime: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.dev: $(VENV)/.runtime
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

migrate: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py seed_demo

run: demo
	$(PY) manage.py clear_presence
	@echo "QuestWorlds Table on http://$(HOST):$(PORT)/  (Ctrl-C stops it)"
	$(VENV)/bin/uvicorn --host $(HOST) --port $(PORT) $(UVICORN_OPTIONS) questworlds_site.asgi:application

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy

format: $(VENV)/.dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Everything but the benchmark smoke run, in parallel (pytest-xdist, one worker a core).
test: lint
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest

# The live-table benchmark at its smallest, so the script cannot rot (CI runs it after
# the suite; it needs Redis). Figures are printed, never asserted.
bench-smoke: $(VENV)/.dev
	$(PY) -m pytest -m bench -n0 -p no:randomly

# The odds benchmark, the live table over its sockets, then the browsers' own path
# (htmx POSTs; 1 uvicorn process and 2 behind Debian's nginx), then the app's own work an
# action in instructions (Debian's valgrind). Needs Redis; ~20 min in all.
bench: $(VENV)/.dev
	$(PY) -m bench.odds
	$(PY) -m bench.table
	$(PY) -m bench.http_path
	$(PY) -m bench.action_cost

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis staticfiles
