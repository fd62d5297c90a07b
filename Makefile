# The README's two commands: `make demo` and `make test`.
# Each installs what a fresh Debian 12 machine lacks (Highway), makes the
# project's virtual environment .venv, builds eltwise into it, then runs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# ccache: CMakeLists.txt compiles through it when it is installed, into ccache's own
# cache outside the tree (~/.cache/ccache, bounded by ccache's max_size, 5 GB unless
# configured), so a fresh clone of unchanged sources compiles from the cache.
DEBS := libhwy-dev pkg-config ccache
# pyproject.toml's [build-system] requires, installed into .venv so that builds
# run without isolation and reuse build/: a second build recompiles only what changed.
BUILD_DEPS := "scikit-build-core>=0.11" "pybind11>=3" "numpy>=2"

.PHONY: deps venv install install-runtime demo test bench sanitize fuzz test-min docs docs-open wheel
deps:
	@dpkg -s $(DEBS) >/dev/null 2>&1 || { $(SUDO) apt-get update && $(SUDO) apt-get install -y $(DEBS); }

$(PY):
	$(PYTHON) -m venv $(VENV)

venv: $(PY)

# eltwise with its run-time dependencies only (numpy, ml_dtypes): all the demo imports.
install-runtime: deps venv
	$(PY) -m pip install -q $(BUILD_DEPS)
	$(PY) -m pip install --no-build-isolation .

# eltwise with the test extras (pytest, hypothesis, Sphinx, dask, Jupyter, mypy, ...).
install: deps venv
	$(PY) -m pip install -q $(BUILD_DEPS)
	$(PY) -m pip install --no-build-isolation ".[test]"

demo: install-runtime
	$(PY) -m eltwise

test: install
	$(PY) -m pytest

# The documentation site (docs/), with warnings as errors, as tests/test_docs_build.py
# builds it; the test extras include the docs extras.
DOCS_HTML := build/docs/html
docs: install
	$(PY) -m sphinx -W --keep-going -b html docs $(DOCS_HTML)

# Opens the site in a browser, building it first if it is not there.
docs-open:
	@[ -f $(DOCS_HTML)/index.html ] || $(MAKE) docs
	@$(PY) -c 'import pathlib, sys, webbrowser; url = pathlib.Path(sys.argv[1]).resolve().as_uri(); \
	webbrowser.open(url) or print("no browser found: open", url)' $(DOCS_HTML)/index.html

bench: install
	$(PY) -m pip install -q --no-build-isolation ".[test,bench]"
	$(PY) -m benchmarks

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize: install
	PYTHON=$(PY) tools/sanitize

# The fuzz test, long: ELTWISE_FUZZ_EXAMPLES calls per property.
fuzz: install
	ELTWISE_FUZZ_EXAMPLES=$${ELTWISE_FUZZ_EXAMPLES:-20000} $(PY) -m pytest tests/test_fuzz.py -p no:cacheprovider

# The suite with the lowest numpy and ml_dtypes that pyproject.toml declares.
test-min: install
	PYTHON=$(PY) tools/test-min-versions

# A self-contained manylinux wheel in dist/ (Highway bundled by auditwheel).
wheel: deps venv
	PYTHON=$(PY) tools/build-wheel
