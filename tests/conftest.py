"""Fixtures for the eltwise tests: SIMD targets, dtypes and helpers."""

import os
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import eltwise  # noqa: E402

# When a hypothesis test fails, hypothesis' pytest plugin imports its patch writer,
# which imports libcst, which emits a DeprecationWarning (mypy_extensions.TypedDict);
# under filterwarnings=error that aborts the whole session with INTERNALERROR. Import
# it here once, with that warning ignored, so a failing property test just fails.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:
        import hypothesis.extra._patching  # noqa: F401
    except Exception:  # noqa: BLE001 - optional (needs libcst); private module
        pass

from ew_helpers import ALL_DTYPES, dtype_id  # noqa: E402

TARGETS = list(eltwise.get_targets())


def compiled_targets():
    """The Highway targets compiled into eltwise, best first: show_config's line."""
    for line in eltwise._eltwise.config_text().splitlines():
        key, sep, names = line.partition(":")
        if sep and key.strip() == "compiled targets":
            return [n.strip() for n in names.split(",") if n.strip()]
    raise RuntimeError("eltwise's config_text() has no 'compiled targets' line")


def pytest_report_header(config):
    """Which eltwise is tested, and which compiled targets this run cannot cover."""
    not_run = [t for t in compiled_targets() if t not in TARGETS]
    return [
        f"eltwise {eltwise.__version__} from {os.path.dirname(eltwise.__file__)}",
        f"eltwise targets run: {', '.join(TARGETS)}; "
        f"compiled but not run on this CPU: {', '.join(not_run) or 'none'}",
    ]


@pytest.fixture(params=TARGETS)
def target(request):
    """Runs the test once per SIMD target this CPU supports, then restores the best."""
    eltwise.set_target(request.param)
    try:
        yield request.param
    finally:
        eltwise.set_target(None)


@pytest.fixture(params=ALL_DTYPES, ids=dtype_id)
def dtype(request):
    return request.param


@pytest.fixture
def rng(request):
    """A generator seeded from the test's id, so every test is reproducible."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(request.node.nodeid)) % (2**32)
    return np.random.default_rng(seed)


@pytest.fixture(autouse=True)
def _restore_runtime():
    """Every test starts and ends with the best target and the default thread count."""
    threads = eltwise.get_num_threads()
    yield
    eltwise.set_target(None)
    eltwise.set_num_threads(threads)


def pytest_terminal_summary(terminalreporter):
    """Reports that are not tests, after the count: the fuzz run (tests/test_fuzz.py)."""
    fuzz = sys.modules.get("test_fuzz")
    if fuzz is not None and fuzz.STATS["calls"]:
        terminalreporter.write_line(fuzz.report_line())
