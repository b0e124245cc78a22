# mnemo: every target the README names. `make run` and `make test` set everything up themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8080
HOST ?= 127.0.0.1

.PHONY: install run test unit integration e2e eval lint bench demo clean fuzz

$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/mnemo serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test: $(STAMP) lint
	$(BIN)/python -m pytest -q

unit: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

e2e: $(STAMP)
	$(BIN)/python -m pytest -q tests/e2e

eval: $(STAMP)
	$(BIN)/python -m pytest -q tests/eval

bench: $(STAMP)
	$(BIN)/python tests/bench/run_all.py

demo: $(STAMP)
	$(BIN)/mnemo demo

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache build *.egg-info shared/*.egg-info
