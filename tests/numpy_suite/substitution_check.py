"""Runs inside the NumPy-suite session: proves the twins stand in for NumPy's ufuncs there."""

import numpy as np
import numpy._core.umath as ncu

import eltwise
from substitute import SUBSTITUTED


def test_numpy_names_are_the_twins():
    assert np.add is eltwise.ufunc.add
    assert ncu.add is eltwise.ufunc.add
    assert np.remainder is np.mod is eltwise.ufunc.remainder
    for name in SUBSTITUTED:
        assert getattr(np, name) is getattr(eltwise.ufunc, name)
        assert getattr(ncu, name) is getattr(eltwise.ufunc, name)


def test_divide_is_numpys():
    # eltwise.divide floors integers; NumPy's tests of true division test another function.
    assert "divide" not in SUBSTITUTED
    assert np.divide is not eltwise.ufunc.divide
