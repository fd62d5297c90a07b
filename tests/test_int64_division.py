"""64-bit integer division through float64 (kernels/division.cc, DivideBelowBound).

A vector whose lanes all lie below 2^53 in magnitude (on targets without AVX-512's
int64/float64 conversions: 2^50 signed, 2^51 unsigned) is divided in float64, exactly; a
vector with any lane beyond takes the per-lane path, except for uint64, where vectors whose
quotients all lie below 2^50 take a float64 estimate corrected by one step
(DivideSmallQuotient). These tests put values on both sides
of the boundary, in the same vector and in different vectors of one call, on every target,
for both roundings and both results, and compare with NumPy bit for bit."""

import numpy as np
import pytest

import eltwise
from ew_helpers import trunc_divide

B = 2**53
I64 = np.iinfo(np.int64)
U64 = np.iinfo(np.uint64)

OPS = {
    "floor": lambda a, b, **kw: eltwise.divide(a, b, **kw),
    "floor_divide": lambda a, b, **kw: eltwise.floor_divide(a, b, **kw),
    "trunc": lambda a, b, **kw: eltwise.divide(a, b, pythondiv=False, **kw),
    "mod": lambda a, b, **kw: eltwise.mod(a, b, **kw),
    "fmod": lambda a, b, **kw: eltwise.fmod(a, b, **kw),
}


def expected(op, a, b):
    with np.errstate(all="ignore"):
        if op in ("floor", "floor_divide"):
            return np.floor_divide(a, b)
        if op == "trunc":
            return trunc_divide(a, b)
        if op == "mod":
            return np.remainder(a, b)
        return np.fmod(a, b)


def boundary_values(dtype):
    if dtype == np.int64:
        vals = [0, 1, -1, 2, -2, 3, 7, -8, B - 1, B, B + 1, -B + 1, -B, -B - 1, B // 3, -B // 3,
                I64.max, I64.min, I64.max - 1, I64.min + 1, 10**12, -(10**12),
                2**50 - 1, 2**50, -(2**50), -(2**50) - 1, 2**51 - 1, 2**51, -(2**51)]
    else:
        vals = [0, 1, 2, 3, 7, 8, B - 1, B, B + 1, B // 3, U64.max, U64.max - 1, 2**63,
                2**63 - 1, 10**12, 2**50, 2**51 - 1, 2**51, 2**51 + 1]
    return np.array(vals, dtype=dtype)


def check(op, a, b):
    with np.errstate(divide="ignore"):
        got = OPS[op](a, b)
    exp = expected(op, a, b)
    assert got.dtype == exp.dtype
    bad = got != exp
    assert not bad.any(), (op, a[bad][:5], b[bad][:5], got[bad][:5], exp[bad][:5])


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_every_pair_of_boundary_values(op, dtype, target):
    """Every pair of values around +-2^53, MIN, MAX, -1 and 0 (an outer grid: vectors mix
    lanes below and beyond the bound)."""
    v = boundary_values(dtype)
    a, b = np.meshgrid(v, v, indexing="ij")
    check(op, a.ravel(), b.ravel())
    check(op, a.T.ravel(), b.T.ravel())


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_small_values_small_divisors(op, dtype, target, rng):
    """The common case, all lanes below 2^53: divisors 1..8 and 9..50, values up to 1e12
    and up to 2^53 - 1, and one array where a few vectors hold a lane beyond the bound (the
    per-lane fallback inside one call)."""
    lo = 0 if dtype == np.uint64 else -(B - 1)
    n = 4099
    for hi_div in (8, 50):
        for hi in (10**12, B - 1):
            a = rng.integers(max(lo, -hi), hi, n, dtype=dtype, endpoint=True)
            b = rng.integers(1, hi_div, n, dtype=dtype, endpoint=True)
            if dtype == np.int64:
                b = np.where(rng.random(n) < 0.5, -b, b).astype(dtype)
            check(op, a, b)
            a2 = a.copy()
            a2[[5, 100, 2000, 4098]] = [B, I64.max if dtype == np.int64 else U64.max, B + 1, B]
            check(op, a2, b)
            b2 = b.copy()
            b2[[7, 3000]] = B + 3
            b2[[11]] = 0
            check(op, a, b2)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_full_range(op, dtype, target, rng):
    """Full-range 64-bit values (almost every vector beyond the bound) and divisors of every
    magnitude, with zeros."""
    info = np.iinfo(dtype)
    n = 2051
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b >>= rng.integers(0, 63, n).astype(dtype)
    b[::97] = 0
    check(op, a, b)
    check(op, a, np.array(3, dtype))  # scalar divisor
    check(op, a[::-3], b[::3])  # strided


@pytest.mark.parametrize("op", list(OPS))
def test_uint64_small_quotients(op, target, rng):
    """Full-range uint64 operands whose quotients lie below 2^50 (the estimate path):
    exact multiples of b and their neighbours (the estimate lands on q or q - 1 and the
    correction step must decide), divisors at and beyond 2^63, quotients on both sides of
    2^50 in one vector, zero divisors among them; bit-exact with NumPy."""
    n = 4096
    b = rng.integers(2**51, U64.max, n, dtype=np.uint64, endpoint=True)
    k = rng.integers(0, 2**12, n, dtype=np.uint64)
    k = np.minimum(k, U64.max // b)
    exact = k * b
    for delta in (0, 1, 2):
        check(op, exact + np.uint64(delta), b)  # k * b + delta: q = k
        nonzero = exact > np.uint64(delta)
        check(op, exact[nonzero] - np.uint64(delta), b[nonzero])  # q = k - 1 (delta > 0)
    big = rng.integers(2**63, U64.max, n, dtype=np.uint64, endpoint=True)
    check(op, big, big[::-1].copy())  # q in {0, 1}
    check(op, big, big)  # q = 1, r = 0
    # Quotients around 2^50: b < 2^14, a = q b + r for q = 2^50 - 2 .. 2^50 + 1.
    bs = rng.integers(1, 2**14, n, dtype=np.uint64)
    q = np.uint64(2**50) + rng.integers(-2, 2, n, endpoint=True).astype(np.int64).astype(np.uint64)
    r = rng.integers(0, 2**14, n, dtype=np.uint64) % bs
    check(op, q * bs + r, bs)
    mixed_a = rng.integers(0, U64.max, n, dtype=np.uint64, endpoint=True)
    mixed_b = rng.integers(2**40, U64.max, n, dtype=np.uint64, endpoint=True)
    mixed_b[::5] = rng.integers(1, 2**13, len(mixed_b[::5]), dtype=np.uint64)  # beyond 2^50
    mixed_b[::11] = 0
    check(op, mixed_a, mixed_b)


def test_division_by_zero_is_reported_on_the_fast_path(target):
    """A zero divisor among small lanes gives 0 and raises NumPy's flag."""
    a = np.arange(-20, 20, dtype=np.int64)
    b = np.ones(40, np.int64)
    b[17] = 0
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        eltwise.floor_divide(a, b)
    with np.errstate(divide="ignore"):
        assert eltwise.mod(a, b)[17] == 0 and eltwise.floor_divide(a, b)[17] == 0


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_lanes_beyond_the_bound_in_every_loop(op, dtype, target, rng):
    """Vectors beyond the bound go one lane at a time in the contiguous, scalar-first and
    strided loops alike: a scalar dividend, every-other and
    reversed strides, a broadcast row, a result written over the dividend, a zero divisor
    in a vector that goes lane by lane (the flag is raised there too), and lengths that
    end in a partial vector."""
    info = np.iinfo(dtype)
    for n in (1, 7, 64, 1027):
        a = rng.integers(info.min, info.max, 2 * n, dtype=dtype, endpoint=True)
        b = rng.integers(info.min, info.max, 2 * n, dtype=dtype, endpoint=True)
        b[b == 0] = 5
        check(op, np.array(info.max - 3, dtype), b[:n])  # scalar dividend
        check(op, a[::2], b[::2])
        check(op, a[::-2], b[1::2])
        check(op, a[:n].reshape(1, n), b[:n])
        if n >= 4:
            check(op, a[: (n // 4) * 4].reshape(-1, 4), b[:4])  # a row against each of them
        exp = expected(op, a, b)
        got = a.copy()
        with np.errstate(divide="ignore"):
            assert OPS[op](got, b, out=got) is got
        assert (got == exp).all()
    a = np.full(16, info.max, dtype)
    b = np.full(16, info.max // 3, dtype)
    b[9] = 0
    for view_a, view_b in ((a, b), (np.repeat(a, 2)[::2], np.repeat(b, 2)[::2])):
        with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
            OPS[op](view_a, view_b)
        check(op, view_a, view_b)
