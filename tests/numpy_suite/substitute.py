"""A pytest plugin: NumPy's own ufunc tests run against eltwise's twins.

Loaded with ``-p substitute`` (its folder on ``sys.path``) by
``tests/test_numpy_suite.py``. At configure time, before any test module is
imported, it replaces ``numpy.<name>`` and ``numpy._core.umath.<name>`` by
``eltwise.ufunc.<name>`` for every eltwise function NumPy also has, except
``divide`` (eltwise's integer ``divide`` floors, NumPy's is true division, so
NumPy's tests of ``divide`` test another function), and drops from
``numpy.typecodes`` the dtypes eltwise does not take (longdouble, complex,
strings, object, datetimes), so NumPy's dtype-parametrized tests run on the
dtypes the twins have loops for.

Every test NumPy ships that fails here by eltwise's design is listed in
``expected_failures.py`` with its reason; those get a strict xfail mark, so
an expected failure that starts passing fails the run too.
"""

from __future__ import annotations

import numpy as np
import numpy._core.umath as ncu
import pytest

import eltwise
from eltwise._names import FUNCTION_NAMES

import expected_failures

SUBSTITUTED = tuple(n for n in FUNCTION_NAMES if n != "divide" and hasattr(np, n))
_UNSUPPORTED_CODES = set("gFDGSUVOMm")


def pytest_configure(config):
    for name in SUBSTITUTED:
        twin = getattr(eltwise.ufunc, name)
        setattr(np, name, twin)
        setattr(ncu, name, twin)
    for key, codes in list(np.typecodes.items()):
        np.typecodes[key] = "".join(c for c in codes if c not in _UNSUPPORTED_CODES)


def pytest_report_header(config):
    return [f"numpy {np.__version__}: numpy.{{{', '.join(SUBSTITUTED)}}} are eltwise.ufunc's twins"]


def pytest_collection_modifyitems(config, items):
    for item in items:
        reason = expected_failures.reason_for(item.nodeid, np.__version__)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
