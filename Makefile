# The two commands of the README: `make test` and `make run`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test test-slow run lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q -n auto

test-slow: $(STAMP)
	$(PY) -m pytest -q -n auto -m slow

run: $(STAMP)
	$(PY) -m loco_envs.demo --players 4 --rounds 3 --seed 7

lint: $(STAMP)
	$(PY) -m ruff check loco_envs agents train benchmarks tests

bench: $(STAMP)
	$(PY) -m benchmarks.throughput

clean:
	rm -rf $(VENV) build *.egg-info
