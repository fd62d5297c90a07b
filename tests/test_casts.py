"""Operand conversions (dtype=, mixed dtypes, fused steps) against NumPy's casts.

An operand in another dtype than its call computes in is converted as NumPy's
cast converts it (docs/semantics.md, "Operands and dtypes"): the widening
pairs by kernels/cast.cc's vector loops on every Highway target, the rest
element by element. Every pair NumPy's same_kind rule allows, with the edge
values of the source dtype and lengths around the vector widths (a loop's tail
is converted by the scalar code, its body by the lanes).
"""

import numpy as np
import pytest

import eltwise
from ew_helpers import ALL_DTYPES, assert_same, dtype_id, value_pool



def _numpy_casts(a, b):
    """Whether NumPy's multiply with dtype=b takes an a operand (bfloat16 takes
    integers of at most 8 bits: ml_dtypes registers no other casts for it)."""
    try:
        np.multiply(np.ones(1, a), np.ones(1, b), dtype=b)
    except TypeError:
        return False
    return True


PAIRS = [(a, b) for a in ALL_DTYPES for b in ALL_DTYPES
         if a != b and np.can_cast(a, b, "same_kind") and _numpy_casts(a, b)]
LENGTHS = (0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1001)


def _values(dt, n, rng):
    pool = value_pool(dt, rng)
    return np.resize(rng.permutation(pool), n)


@pytest.mark.parametrize("src,dst", PAIRS, ids=[f"{dtype_id(a)}-{dtype_id(b)}" for a, b in PAIRS])
def test_dtype_keyword_converts_as_numpy(src, dst, target, rng):
    """multiply(x, 1, dtype=dst) gives NumPy's cast of x: the cast is all it does."""
    for n in LENGTHS:
        x = _values(src, n, rng)
        one = np.ones(n, dst)
        with np.errstate(all="ignore"):  # a narrowing cast's overflow warns in both
            exp = np.multiply(x, one, dtype=dst)
            got = eltwise.multiply(x, one, dtype=dst)
        assert_same(got, exp, inputs=(x, one))


@pytest.mark.parametrize("src,dst", PAIRS, ids=[f"{dtype_id(a)}-{dtype_id(b)}" for a, b in PAIRS])
def test_fused_step_converts_as_unfused(src, dst, target, rng):
    """A fused step converting its operand tile by tile gives the unfused call's bits."""
    fused = eltwise.fuse(lambda a, b: eltwise.multiply(a, b, dtype=dst))
    for n in (33, 1001, 5000):
        x = _values(src, n, rng)
        one = np.ones(n, dst)
        with np.errstate(all="ignore"):
            got, exp = fused(x, one), eltwise.multiply(x, one, dtype=dst)
        assert_same(got, exp, inputs=(x, one))

