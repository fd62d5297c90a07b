"""NumPy's own ufunc tests (``test_umath.py``, ``test_ufunc.py`` of the installed numpy)
run with ``numpy.add``, ``numpy.less``, ... replaced by eltwise's twins.

The run is a pytest session of its own (a subprocess), with the plugin
``tests/numpy_suite/substitute.py`` active: it substitutes the twins before
NumPy's test modules are imported, drops the dtypes eltwise does not take from
``numpy.typecodes``, and marks each test listed in
``tests/numpy_suite/expected_failures.py`` strict-xfail with its reason.
``substitution_check.py`` runs in the same session and asserts
``numpy.add is eltwise.ufunc.add`` there. The session must have no failure and
no error: a test that fails and is not listed fails it, and so does a listed
test that passes.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "numpy_suite")
MODULES = ("numpy._core.tests.test_umath", "numpy._core.tests.test_ufunc")
FILES = ("test_umath", "test_ufunc", "substitution_check")


def run_numpy_suite(tmp_path):
    xml = tmp_path / "numpy-suite.xml"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [SUITE] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    # The warning filters numpy.test() passes; and pytest's own notice that NumPy's
    # tests parametrize with iterators, where this pytest has it.
    filters = ["ignore:the matrix subclass is not", "ignore:Importing from numpy.matlib is"]
    if hasattr(pytest, "PytestRemovedIn10Warning"):
        filters.append("ignore::pytest.PytestRemovedIn10Warning")
    cmd = [sys.executable, "-m", "pytest", "-p", "substitute", "-q", "-p", "no:cacheprovider",
           f"--junitxml={xml}", "-rfEX", "--tb=short", *(f"-W{w}" for w in filters),
           os.path.join(SUITE, "substitution_check.py"), "--pyargs", *MODULES]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    return proc, ET.parse(xml).getroot() if xml.exists() else None


def summarize(root):
    """Counts per test file: ran, passed, skipped, xfailed by reason, failed."""
    counts = collections.defaultdict(collections.Counter)
    for case in root.iter("testcase"):
        where = case.get("classname", "").split(".")
        name = next((w for w in where if w in FILES), "?")
        kind = "passed"
        for child in case:
            if child.tag == "skipped" and child.get("type") == "pytest.xfail":
                kind = "xfailed: " + (child.get("message") or "")
            elif child.tag == "skipped":
                kind = "skipped"
            elif child.tag in ("failure", "error"):
                kind = child.tag
        counts[name]["ran"] += 1
        counts[name][kind] += 1
    return counts


@pytest.mark.slow
def test_numpy_ufunc_suite_on_the_twins(tmp_path):
    proc, root = run_numpy_suite(tmp_path)
    tail = (proc.stdout[-6000:] + proc.stderr[-3000:])
    assert root is not None, tail
    counts = summarize(root)
    report = "\n".join(f"{f}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                       for f, c in sorted(counts.items()))
    print(f"numpy {np.__version__}\n{report}")
    assert proc.returncode == 0, tail
    for f in FILES:
        assert counts[f]["ran"] > 0, report
        assert counts[f]["failure"] == counts[f]["error"] == 0, tail
    assert counts["substitution_check"]["passed"] == 2, report
    # Hundreds of NumPy's tests pass on the twins in each file.
    assert counts["test_umath"]["passed"] > 3000 and counts["test_ufunc"]["passed"] > 500, report
