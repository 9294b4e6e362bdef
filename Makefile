# The two commands of the README: `make test` and `make run`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test test-slow test-ray test-integrations test-openspiel run lint bench docs clean

# torch first, pinned: this version resolves to the CPU build here (a bare torch requirement
# would pull a multi-GB CUDA build); then the project with its dev, train and docs extras (the
# suite builds the documentation site strictly: tests/docs/test_site.py).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[dev,train,docs]"
	touch $(STAMP)

# The compiled engines first, in one process: the test workers then load them from numba's
# disk cache instead of each compiling them (a few minutes on 2 cores, once per source change).
test: $(STAMP)
	$(PY) -m loco_envs.compiled
	$(PY) -m pytest -q -n auto

test-slow: $(STAMP)
	$(PY) -m loco_envs.compiled
	$(PY) -m pytest -q -n auto -m slow

# The Ray tests (ray extra, installed here): tournaments on a local Ray and a short RLlib run.
# Each test starts its own Ray with 2 CPUs and shuts it down; -n 0 keeps to one Ray at a time.
RAY_STAMP := $(VENV)/.installed-ray
$(RAY_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[ray]"
	touch $(RAY_STAMP)

test-ray: $(RAY_STAMP)
	$(PY) -m pytest -q -n 0 -m slow tests/ray

# The recipes of docs/integrations.md (Tianshou, TorchRL, RLlib, SB3) with their libraries
# (integrations extra); `make test-slow` skips a recipe whose library is not installed.
INTEGRATIONS_STAMP := $(VENV)/.installed-integrations
$(INTEGRATIONS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[integrations]"
	touch $(INTEGRATIONS_STAMP)

test-integrations: $(INTEGRATIONS_STAMP)
	$(PY) -m pytest -q -n 0 -m slow tests/integrations

# The games in OpenSpiel (openspiel extra, installed here): OpenSpiel's random simulation
# checks on every game, tensors and strings, one of its algorithms (tests/search/test_openspiel.py).
OPENSPIEL_STAMP := $(VENV)/.installed-openspiel
$(OPENSPIEL_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e ".[openspiel]"
	touch $(OPENSPIEL_STAMP)

test-openspiel: $(OPENSPIEL_STAMP)
	$(PY) -m pytest -q -n auto -m slow tests/search/test_openspiel.py

# The main job: the LOCO quick config (a clone of loco/heuristic-strong, about 15 s, made first
# into runs/make_run/imitation/ or reused, then self-play PPO from it: about a minute on 2 cores),
# then a tournament of the trained agent against the heuristic and random bots: ratings table +
# plot (train.evaluate is the tournament runner with a cap on a game's length: LOCO can stall).
RUN_CKPT := runs/make_run/loco_quick_final
run: $(STAMP)
	$(PY) -m train configs/loco_quick.yaml --runs-dir runs/make_run --final-checkpoint $(RUN_CKPT)
	$(PY) -m train.evaluate loco_v0 --players 2 --games 300 --seed 0 --workers 2 \
		--agents ppo:$(RUN_CKPT).npz loco/heuristic random --out runs/make_run/tournament
	@echo "learning curve: $$(ls -t runs/make_run/loco_v0__loco_quick__*/eval/curve.png | head -1)"

lint: $(STAMP)
	$(PY) -m ruff check loco_envs agents train benchmarks tests setup.py

bench: $(STAMP)
	$(PY) -m benchmarks.throughput

# The documentation site (mkdocs.yml, docs/) into site/; any warning fails it. Browse it live
# with `.venv/bin/python -m mkdocs serve`.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

clean:
	rm -rf $(VENV) build site *.egg-info
