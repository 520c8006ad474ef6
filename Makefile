# Two entry points: `make run` and `make test`. Each builds .venv on first use (or when
# pyproject.toml changes), so a fresh machine with only Python 3.11 needs nothing else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench selfplay play pictures clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot

lint: $(STAMP)
	$(BIN)/ruff check bot tests bench devkit

typecheck: $(STAMP)
	$(BIN)/mypy bot tests bench devkit
	$(BIN)/mypy --strict bot/engine

unit: $(STAMP)
	$(BIN)/python -m pytest

test: lint typecheck unit

bench: $(STAMP)
	for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

selfplay: $(STAMP)
	$(BIN)/python -m bot selfplay --players random,random,random --games 500 --rule target=200 --rule mercy=200

play: $(STAMP)
	$(BIN)/python -m bot play

pictures: $(STAMP)
	$(BIN)/python -m tests.e2e.readme.pictures docs/images

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
