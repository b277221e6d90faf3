PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev

.PHONY: test test-slow demo train bench torch venv clean sandbox-tools

# (Re)install only when pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# The sealed sandbox needs bubblewrap (Debian's package `bubblewrap`). As root with apt-get (CI,
# a grading server) it is installed here; otherwise `grade` says what to install and refuses.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (the grader's sandbox)"; \
	    apt-get install -y -q bubblewrap >/dev/null 2>&1 || \
	      { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }; \
	  else echo "note: bubblewrap (bwrap) is not installed: grading refuses untrusted work until it is (see README, Isolation)"; fi; }

# The suite: every test but the end-to-end ones marked slow, which install packages into fresh
# environments (minutes each: a fresh clone's student install with `make lab`, in the repository
# and in the bundle; Gradescope's setup.sh), and repeats of costly gradings (mutants and blind
# mistakes that train a network again; one mutant of every task stays), which test-slow runs.
# CI runs both. The tests take from a second to over a minute: a worker that runs out of tests
# takes pending ones from the other (worksteal), instead of waiting while it ends a long one.
test: $(STAMP) sandbox-tools
	$(VPY) -m pytest -q -n auto --dist worksteal -m "not slow"

test-slow: $(STAMP) sandbox-tools
	$(VPY) -m pytest -q -n auto --dist worksteal -m slow

demo: $(STAMP) sandbox-tools
	$(VPY) -m autograder.demo

# A short MNIST training with dp alone: the data source and the test accuracy.
train: $(STAMP)
	$(VPY) -m dp.demo

bench: $(STAMP)
	$(VPY) benchmarks/mnist_mlp.py
	$(VPY) benchmarks/graph_overhead.py

# Optional: PyTorch (CPU build, pinned in pyproject.toml) for comparison benchmarks and torch-marked tests.
torch: $(STAMP)
	$(VPY) -m pip install -q -e '.[dev,torch]'

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

# JupyterLab on the course, for a student or an instructor: the exercises, and the jupytext
# sources in solutions/ opening as notebooks on a double click (right click > Open With >
# Editor shows them as text). LAB_ARGS passes options on, e.g. make lab LAB_ARGS=--no-browser
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.d/dp-courseware.json

$(LAB_OVERRIDES): Makefile
	mkdir -p $(dir $@)
	printf '%s\n' '{"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"python": "Jupytext Notebook"}}}' > $@

# A student's tools only (the `student` extra, as in the bundle): `make lab` is the one command
# that installs and opens the course, in this repository and in the student bundle.
STUDENT_STAMP := $(VENV)/.installed-student

$(STUDENT_STAMP): pyproject.toml
	test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q -e '.[student]'
	touch $(STUDENT_STAMP)

lab: $(STUDENT_STAMP) $(LAB_OVERRIDES)
	$(VPY) -m jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

.PHONY: lab
