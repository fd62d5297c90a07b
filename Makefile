# The README's two commands: `make demo` and `make test`.
# Each installs what a fresh Debian 12 machine lacks (Highway, SLEEF), then eltwise.
PYTHON ?= python3
# Debian's own python3 refuses system-wide pip installs without this.
export PIP_BREAK_SYSTEM_PACKAGES := 1
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
DEBS := libhwy-dev libsleef-dev pkg-config

.PHONY: deps install demo test bench
deps:
	@dpkg -s $(DEBS) >/dev/null 2>&1 || { $(SUDO) apt-get update && $(SUDO) apt-get install -y $(DEBS); }

install: deps
	$(PYTHON) -m pip install ".[test]"

demo: install
	$(PYTHON) -m eltwise

test: install
	$(PYTHON) -m pytest

bench: install
	$(PYTHON) -m benchmarks
