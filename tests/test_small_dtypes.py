"""The coded low-precision dtypes of ml_dtypes (float8, float6, float4): every pair of
codes, every op, every Highway target this CPU runs, against NumPy's ufuncs on the same
ml_dtypes arrays (docs/semantics.md, "Low-precision dtypes"), plus the layouts,
promotion, out=, dtype=, pdpd broadcasting and the ufunc twins."""

from __future__ import annotations

import pickle
import warnings

import ml_dtypes
import numpy as np
import pytest

import eltwise
from ew_helpers import ALL_OPS, CODED_DTYPES, CODED_ROWS, dtype_id

TARGETS = eltwise.get_targets()
FLOAT_CODED = [d for d, r in zip(CODED_DTYPES, CODED_ROWS) if r["category"] == "float"]
BITS = {d: r["code_bits"] for d, r in zip(CODED_DTYPES, CODED_ROWS)}
# The functions a float takes (the bitwise ones take integers only).
FLOAT_FUNCS = [f for f in ALL_OPS if not f.startswith("bitwise_")] + ["squared_difference"]


def _codes(dt):
    return np.arange(2 ** BITS[dt], dtype=np.uint8).view(dt)


def _numpy(name, a, b):
    """NumPy's ufunc with ml_dtypes' loops, the reference; squared_difference as
    square(subtract) in the dtype (two roundings), as for float16."""
    if name == "squared_difference":
        return np.square(np.subtract(a, b))
    fn = {"divide": np.true_divide, "mod": np.remainder}.get(name) or getattr(np, name)
    return fn(a, b)


def _mismatches(name, got, want):
    """Indices where got and want differ: bits, NaN against NaN whatever its code,
    power within one code of the same sign (docs/semantics.md)."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if got.dtype == np.bool_:
        return np.flatnonzero(got != want)
    gf, wf = got.astype(np.float32), want.astype(np.float32)
    u = f"u{got.itemsize}"
    gc, wc = got.view(u).astype(np.int64), want.view(u).astype(np.int64)
    ok = (gc == wc) | (np.isnan(gf) & np.isnan(wf))
    if name == "power":
        ok |= ((np.abs(gc - wc) <= 1) & (np.signbit(gf) == np.signbit(wf))
               & ~np.isnan(gf) & ~np.isnan(wf))
    return np.flatnonzero(~ok.ravel())


def _report(name, dt, a, b, got, want, bad):
    i = bad[:4]
    pairs = [(int(a.view(np.uint8).ravel()[j]), int(b.view(np.uint8).ravel()[j]),
              int(got.view(np.uint8).ravel()[j]), int(want.view(np.uint8).ravel()[j])) for j in i]
    return f"{name} {dt}: {bad.size} codes differ, (x1, x2, eltwise, numpy) e.g. {pairs}"


_REFERENCE: dict = {}


def _pairs(dt):
    """Every pair of codes, x1 and x2 flat, and each function's NumPy result (cached)."""
    if dt not in _REFERENCE:
        c = _codes(dt)
        a, b = np.repeat(c, c.size), np.tile(c, c.size)
        with np.errstate(all="ignore"):
            _REFERENCE[dt] = (a, b, {f: _numpy(f, a, b) for f in FLOAT_FUNCS})
    return _REFERENCE[dt]


@pytest.fixture
def target(request):
    eltwise.set_target(request.param)
    yield request.param
    eltwise.set_target(None)


@pytest.mark.parametrize("target", TARGETS, indirect=True)
@pytest.mark.parametrize("dt", FLOAT_CODED, ids=dtype_id)
def test_every_pair_of_codes(target, dt):
    """All (2^bits)^2 pairs of codes, every function, contiguous."""
    a, b, want = _pairs(dt)
    errors = []
    for name in FLOAT_FUNCS:
        got = getattr(eltwise, name)(a, b)
        bad = _mismatches(name, got, want[name])
        if bad.size:
            errors.append(_report(name, dt, a, b, got, want[name], bad))
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("target", TARGETS, indirect=True)
@pytest.mark.parametrize("dt", FLOAT_CODED, ids=dtype_id)
def test_every_pair_in_every_layout(target, dt):
    """The same pairs with one operand broadcast (each loop kind's scalar), reversed
    (negative strides) and every other element (strided)."""
    c = _codes(dt)
    col, row = c.reshape(-1, 1), c.reshape(1, -1)
    a, b, want = _pairs(dt)
    errors = []
    for name in FLOAT_FUNCS:
        fn = getattr(eltwise, name)
        w = want[name].reshape(c.size, c.size)
        layouts = {
            "x1 broadcast": (fn(col, row), w),
            "x2 broadcast": (fn(row, col), w.T),
            "reversed": (fn(a[::-1], b[::-1]), want[name][::-1]),
            "strided": (fn(np.repeat(a, 2)[::2], np.repeat(b, 2)[1::2]), want[name]),
        }
        for layout, (got, expect) in layouts.items():
            bad = _mismatches(name, got, np.ascontiguousarray(expect))
            if bad.size:
                errors.append(layout + ": " + _report(name, dt, a, b, got, expect, bad))
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("dt", FLOAT_CODED, ids=dtype_id)
def test_every_target_and_thread_count_gives_the_same_codes(dt):
    """Random codes (NaN included) in arrays whose blocks of 64 start and end anywhere
    (AVX3_DL's DecodeBlock64/EncodeBlock64 beside the per-vector loop, kernels/
    coded-inl.h), in place too: on each target the same bytes at 1 and 2 threads, and
    NumPy's results (NaN as NaN). Which NaN code a NaN-with-NaN result holds may
    differ between targets, and in `power` with where the element lies
    (docs/semantics.md, "Low-precision dtypes"), so those pairs are left out of the
    byte comparison."""
    rng = np.random.default_rng(23)
    bits = CODED_ROWS[CODED_DTYPES.index(dt)]["code_bits"]
    n = 300_001  # above the 2-thread size of every op
    a = rng.integers(0, 1 << bits, n + 3, dtype=np.uint8).view(dt)
    b = rng.integers(0, 1 << bits, n + 3, dtype=np.uint8).view(dt)
    threads = eltwise.get_num_threads()
    try:
        for name in ("add", "multiply", "divide", "maximum", "less", "power"):
            fn = getattr(eltwise, name)
            for x1, x2 in ((a[:n], b[3:]), (a[1:n + 1], b[:1]), (a[:1], b[2:n + 2])):
                with np.errstate(all="ignore"):
                    want = _numpy(name, x1, x2)
                for t in TARGETS:
                    eltwise.set_target(t)
                    results = []
                    for k in (1, 2):
                        eltwise.set_num_threads(k)
                        results.append(fn(x1, x2))
                        if name != "less" and x1.size == n:
                            inplace = x1.copy()
                            fn(inplace, x2, out=inplace)
                            results.append(inplace)
                    keep = ~(np.isnan(x1.astype(np.float32)) & np.isnan(x2.astype(np.float32)))
                    for got in results:
                        assert np.array_equal(got.view(np.uint8)[keep],
                                              results[0].view(np.uint8)[keep]), (name, t)
                    bad = _mismatches(name, results[0], want)
                    assert not bad.size, t + ": " + _report(name, dt, x1, x2, results[0], want, bad)
    finally:
        eltwise.set_target(None)
        eltwise.set_num_threads(threads)


# What docs/semantics.md ("Low-precision dtypes") says each format does beyond its
# largest finite value: inf, NaN, or the largest value itself.
OVERFLOW = {"float8_e5m2": "inf", "float8_e4m3": "inf", "float8_e3m4": "inf",
            "float8_e4m3fn": "nan", "float8_e4m3fnuz": "nan", "float8_e5m2fnuz": "nan",
            "float8_e4m3b11fnuz": "nan", "float8_e8m0fnu": "nan",
            "float4_e2m1fn": "max", "float6_e2m3fn": "max", "float6_e3m2fn": "max"}


@pytest.mark.parametrize("dt", FLOAT_CODED, ids=dtype_id)
def test_overflow_ties_and_zero_rules(dt):
    """The rules docs/semantics.md states, checked as stated (not only against
    ml_dtypes): max + max overflows as the format says; a tie rounds to the even code;
    fnuz formats have no -0; float8_e8m0fnu has no zero (0 - 0 is NaN)."""
    info = ml_dtypes.finfo(dt)
    big = np.array([info.max], dt)
    got = eltwise.add(big, big).astype(np.float32)[0]
    kind = OVERFLOW[dt.name]
    assert (np.isinf(got) if kind == "inf" else np.isnan(got) if kind == "nan"
            else got == np.float32(info.max)), (dt, got)
    neg = eltwise.add(-big if dt.name != "float8_e8m0fnu" else big, -big if dt.name !=
                      "float8_e8m0fnu" else big).astype(np.float32)[0]
    assert np.isnan(neg) or np.isinf(neg) or abs(neg) == np.float32(info.max)
    if dt.name == "float8_e8m0fnu":
        x = np.array([1.0], dt)
        assert np.isnan(eltwise.subtract(x, x).astype(np.float32)[0])
        # 2^-126 + 2^-125 = 1.5 * 2^-125, a tie: the implicit leading 1 is the lowest
        # kept bit, so it rounds up to 2^-124 (as ml_dtypes does)
        t = eltwise.add(np.array([2.0 ** -126], dt), np.array([2.0 ** -125], dt))
        assert t.astype(np.float32)[0] == np.float32(2.0 ** -124)
        return
    one = np.array([1.0], dt)
    tiny = np.array([info.smallest_subnormal], dt)
    # 1 + tiny is a tie below 1's next code whenever tiny is half of 1's ulp or less;
    # ties to even give 1 back (1's code is even)
    if np.float32(info.smallest_subnormal) <= np.float32(info.eps) / 2:
        assert eltwise.add(one, tiny).astype(np.float32)[0] == 1.0
    z = eltwise.subtract(np.array([0.0], dt), np.array([0.0], dt))
    m = eltwise.multiply(np.array([-1.0], dt), np.array([0.0], dt))
    if "fnuz" in dt.name:
        assert z.view(np.uint8)[0] == 0 and m.view(np.uint8)[0] == 0  # no -0
    else:
        assert np.signbit(m.astype(np.float32)[0])


@pytest.mark.parametrize("dt", FLOAT_CODED, ids=dtype_id)
def test_promotion(dt):
    """As NumPy with the installed ml_dtypes: with float32 -> float32, with a Python int
    the dtype itself, with a Python float float32 under ml_dtypes 0.6 and the dtype
    itself under 0.7 (docs/semantics.md, "Low-precision dtypes"), with another dtype
    numpy.result_type's answer or, where it has none, a TypeError."""
    x = _codes(dt)[:16]
    f32 = np.linspace(-3, 3, 16, dtype=np.float32)
    assert eltwise.add(x, f32).dtype == np.float32
    np.testing.assert_array_equal(eltwise.add(x, f32), np.add(x, f32))
    assert eltwise.multiply(x, 2).dtype == dt
    with np.errstate(all="ignore"):
        for s in (2, 1.5, -0.25, True):
            got, want = eltwise.add(x, s), np.add(x, s)
            assert got.dtype == want.dtype, s
            assert not _mismatches("add", got, want).size, s
    # With another dtype: numpy.result_type's dtype, or a TypeError where it has none
    # (float16, bfloat16 and most pairs of coded floats; NumPy's ufuncs find a float32
    # loop for some of those, eltwise keeps result_type's answer as for bfloat16).
    for other in [np.float16, np.dtype(ml_dtypes.bfloat16), np.int8, np.uint8, np.int16,
                  np.float64] + FLOAT_CODED:
        y = np.ones(16, other)
        try:
            rt = np.result_type(x, y)
        except TypeError:
            with pytest.raises(TypeError):
                eltwise.add(x, y)
            continue
        with np.errstate(all="ignore"):
            got, want = eltwise.add(x, y), np.add(x, y, dtype=rt)
        assert got.dtype == rt and not _mismatches("add", got, want).size


@pytest.mark.parametrize("dt", FLOAT_CODED, ids=dtype_id)
def test_out_dtype_and_broadcast_modes(dt):
    """out= (fresh, and overlapping x1), dtype=, and each broadcast mode."""
    rng = np.random.default_rng(BITS[dt])
    codes = _codes(dt)
    x = rng.choice(codes, size=(4, 6, 5))
    y = rng.choice(codes, size=(6, 1))
    with np.errstate(all="ignore"):
        want = np.add(x, y[None])
    got = eltwise.add(x, y)
    assert not _mismatches("add", got, want).size
    out = np.empty_like(x)
    assert eltwise.add(x, y, out=out) is out
    assert not _mismatches("add", out, want).size
    inplace = x.copy()
    eltwise.add(inplace, y, out=inplace)
    assert not _mismatches("add", inplace, want).size
    # pdpd: x2 (6,) aligned at axis 1 of x1 (4, 6, 5)
    v = rng.choice(codes, size=6)
    got = eltwise.multiply(x, v, broadcast="pdpd", axis=1)
    with np.errstate(all="ignore"):
        want = np.multiply(x, v.reshape(1, 6, 1))
    assert not _mismatches("add", got, want).size
    with pytest.raises(ValueError):
        eltwise.add(x, y, broadcast="none")
    # dtype=: int8 operands computed in dt, as np.add(..., dtype=dt)
    i8 = np.arange(-4, 4, dtype=np.int8)
    with np.errstate(all="ignore"):
        want = np.add(i8, i8, dtype=dt)
    got = eltwise.add(i8, i8, dtype=dt)
    assert got.dtype == dt and not _mismatches("add", got, want).size


@pytest.mark.parametrize("dt", FLOAT_CODED, ids=dtype_id)
def test_twins(dt):
    """The ufunc twins have loops for the dtype: calls, dtype= and reduce as NumPy's."""
    a, b, want = _pairs(dt)
    for name in ("add", "multiply", "maximum", "less"):
        got = getattr(eltwise.ufunc, name)(a, b)
        assert not _mismatches(name, got, want[name]).size
    x = _codes(dt)[:40]
    x = x[np.isfinite(x.astype(np.float32))]
    with np.errstate(all="ignore"):
        for name in ("add", "multiply", "maximum"):
            got = getattr(eltwise.ufunc, name).reduce(x)
            ref = getattr(np, name).reduce(x)
            assert got.dtype == ref.dtype
            assert not _mismatches(name, np.asarray(got)[None], np.asarray(ref)[None]).size
        i8 = np.arange(-4, 4, dtype=np.int8)
        assert not _mismatches("add", eltwise.ufunc.add(i8, i8, dtype=dt),
                               np.add(i8, i8, dtype=dt)).size


@pytest.mark.parametrize("dt", FLOAT_CODED + [np.dtype(ml_dtypes.bfloat16)], ids=dtype_id)
def test_twin_add_reduce_starts_where_numpy_does(dt):
    """eltwise.ufunc.add.reduce starts from the identity, or from the first element on
    the dtypes where NumPy's own add.reduce does (ml_dtypes 0.7: bfloat16, float8_e5m2,
    float8_e8m0fnu, ...; docs/semantics.md, "Low-precision dtypes"): one element (-0.0
    tells the two apart, and float8_e8m0fnu's 2, its identity 0 being NaN), none, a few,
    with initial=, along an axis; and a call with bool still resolves to the dtype."""
    with np.errstate(all="ignore"):
        for values in ([-0.0], [2.0], [], [1.0, 2.0, 4.0], [0.5, -0.0, 0.25]):
            x = np.array(values).astype(dt)
            got, want = eltwise.ufunc.add.reduce(x), np.add.reduce(x)
            assert not _mismatches("add", np.asarray(got)[None], np.asarray(want)[None]).size, \
                values
            got, want = eltwise.ufunc.add.reduce(x, initial=1.0), np.add.reduce(x, initial=1.0)
            assert not _mismatches("add", np.asarray(got)[None], np.asarray(want)[None]).size
        x = np.array([[-0.0, 2.0], [-0.0, 4.0]]).astype(dt)
        for axis in (0, 1):
            assert not _mismatches("add", eltwise.ufunc.add.reduce(x, axis=axis),
                                   np.add.reduce(x, axis=axis)).size
        b = np.array([True, False, True])
        y = np.array([1.0, 2.0, 0.5]).astype(dt)
        want = np.add(b, y)
        got = eltwise.ufunc.add(b, y)
        assert got.dtype == want.dtype and not _mismatches("add", got, want).size


@pytest.mark.parametrize("dt", FLOAT_CODED, ids=dtype_id)
def test_pickle_round_trip(dt):
    x = _codes(dt)
    r = pickle.loads(pickle.dumps(eltwise.ufunc.add))(x, x)
    assert not _mismatches("add", r, eltwise.add(x, x)).size


# --- The coded integers: int4, uint4, int2, uint2 ----------------------------------

INT_CODED = [d for d, r in zip(CODED_DTYPES, CODED_ROWS) if r["category"] != "float"]
INT_FUNCS = [f for f in ALL_OPS] + ["squared_difference"]


def _wrap(v, dt):
    """Python integers v wrapped to dt's bits (two's complement for the signed ones):
    what stays in the dtype (docs/semantics.md, "Low-precision dtypes")."""
    bits = BITS[dt]
    v = np.asarray(v, dtype=object).astype(np.int64) & ((1 << bits) - 1)
    if dt.name.startswith("int"):
        v = np.where(v >= 1 << (bits - 1), v - (1 << bits), v)
    return v


def _int_reference(name, x, y, dt, pythondiv=True):
    """The exact result of `name` on the values x, y (Python ints), kept in dt:
    computed in Python integers, floor or truncating division, 0 for a zero divisor,
    then wrapped; comparisons and logical ops as bool."""
    def div(a, b, floor):
        if b == 0:
            return 0
        q = a // b
        return q if floor or q >= 0 or q * b == a else q + 1
    def rem(a, b, python):
        if b == 0:
            return 0
        return a - b * div(a, b, python)
    ops = {
        "add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
        "multiply": lambda a, b: a * b, "squared_difference": lambda a, b: (a - b) ** 2,
        "maximum": max, "minimum": min,
        "bitwise_and": lambda a, b: a & b, "bitwise_or": lambda a, b: a | b,
        "bitwise_xor": lambda a, b: a ^ b,
        "divide": lambda a, b: div(a, b, pythondiv), "floor_divide": lambda a, b: div(a, b, True),
        "mod": lambda a, b: rem(a, b, True), "remainder": lambda a, b: rem(a, b, True),
        "fmod": lambda a, b: rem(a, b, False),
        "power": lambda a, b: a ** b,
    }
    if name in ops:
        return _wrap([ops[name](int(a), int(b)) for a, b in zip(x, y)], dt)
    return getattr(np, name)(x.astype(np.int64), y.astype(np.int64))


@pytest.mark.parametrize("target", TARGETS, indirect=True)
@pytest.mark.parametrize("dt", INT_CODED, ids=dtype_id)
def test_every_pair_of_integer_codes(target, dt):
    """Every pair of values, every function, in the dtype (wrapping), contiguous and
    broadcast both ways; power with non-negative exponents (a negative one with a
    signed dtype is NumPy's ValueError); divide both ways."""
    c = _codes(dt)
    a, b = np.repeat(c, c.size), np.tile(c, c.size)
    x, y = a.astype(np.int64), b.astype(np.int64)
    errors = []
    for name in INT_FUNCS:
        sel = (y >= 0) if name == "power" else np.ones(y.size, bool)
        want = _int_reference(name, x[sel], y[sel], dt)
        fn = getattr(eltwise, name)
        with np.errstate(divide="ignore"):
            results = {"contiguous": fn(a[sel], b[sel])}
            if sel.all():
                results["x1 broadcast"] = fn(c.reshape(-1, 1), c.reshape(1, -1)).ravel()
                results["x2 broadcast"] = fn(c.reshape(1, -1), c.reshape(-1, 1)).T.ravel()
        for layout, got in results.items():
            if want.dtype != np.bool_:
                assert got.dtype == dt, (name, got.dtype)
                assert not (got.view(np.uint8) >> BITS[dt]).any(), "bits above the value set"
            bad = np.flatnonzero(got.astype(np.int64) != want)
            if bad.size:
                i = bad[:4]
                errors.append(f"{layout} {name} {dt}: {bad.size} differ, (x1, x2, eltwise, "
                              f"exact) e.g. {list(zip(x[sel][i], y[sel][i], got[i], want[i]))}")
    with np.errstate(divide="ignore"):
        got = eltwise.divide(a, b, pythondiv=False)
    want = _int_reference("divide", x, y, dt, pythondiv=False)
    if (got.astype(np.int64) != want).any():
        errors.append(f"divide(pythondiv=False) {dt}")
    if dt.name.startswith("int"):
        with pytest.raises(ValueError, match="negative integer powers"):
            eltwise.power(a, b)
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("dt", INT_CODED, ids=dtype_id)
def test_integer_codes_agree_with_ml_dtypes(dt):
    """Where ml_dtypes' own loops keep the dtype (add, subtract, multiply, floor_divide,
    remainder, comparisons) eltwise gives its bits; where they return another dtype
    (maximum, bitwise: int8; divide: float16) eltwise stays in the dtype with the same
    value wrapped (docs/semantics.md)."""
    c = _codes(dt)
    a, b = np.repeat(c, c.size), np.tile(c, c.size)
    # ml_dtypes' integer loops warn of a zero divisor whatever numpy.errstate says
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in ("add", "subtract", "multiply", "floor_divide", "remainder", "less", "equal"):
            got, want = getattr(eltwise, name)(a, b), getattr(np, name)(a, b)
            assert got.dtype == want.dtype
            assert got.view(np.uint8).tolist() == want.view(np.uint8).tolist(), name
        for name in ("maximum", "minimum", "bitwise_and", "bitwise_xor"):
            got, want = getattr(eltwise, name)(a, b), getattr(np, name)(a, b)
            assert got.dtype == dt and want.dtype != dt
            assert got.astype(np.int64).tolist() == _wrap(want.astype(np.int64), dt).tolist()


@pytest.mark.parametrize("dt", INT_CODED, ids=dtype_id)
def test_integer_promotion_and_errors(dt):
    """As NumPy with the installed ml_dtypes (docs/semantics.md, "Low-precision
    dtypes"): under 0.6 a Python int makes int8 (an int beyond int8 is NumPy's
    OverflowError, comparisons too), under 0.7 the dtype itself (an int wraps into it,
    comparisons go by value); a Python float float16, int8 int8; a zero divisor
    reports through numpy.errstate; out= and the twins (reduce included)."""
    c = _codes(dt)
    x = c[c.astype(np.int64) != 0]
    for s in (1, 1.5, True, 3, 7, 100, 255, 1000, -1000, -129, 2 ** 40, 2 ** 70, -2 ** 70):
        for name in ("add", "multiply", "subtract", "equal", "less", "greater_equal"):
            try:
                want = getattr(np, name)(x, s)
            except OverflowError:
                with pytest.raises(OverflowError):
                    getattr(eltwise, name)(x, s)
                continue
            got = getattr(eltwise, name)(x, s)
            assert got.dtype == want.dtype, (name, s)
            assert got.astype(np.int64).tolist() == want.astype(np.int64).tolist(), (name, s)
    if np.add(x, 1).dtype == np.int8:  # ml_dtypes 0.6
        with pytest.raises(OverflowError):
            eltwise.add(x, 1000)
        with pytest.raises(OverflowError):
            eltwise.equal(x, 1000)
    else:  # ml_dtypes 0.7 reads a Python int through int16 (signed) or uint8
        big = 1000 if dt.name.startswith("int") else 200
        assert eltwise.add(x, big).tolist() == _wrap(x.astype(np.int64) + big, dt).tolist()
        assert not eltwise.equal(x, big).any()
    assert eltwise.less(x, 100).tolist() == np.less(x, 100).tolist()
    i8 = np.arange(x.size, dtype=np.int8)
    assert eltwise.add(x, i8).dtype == np.result_type(x, i8)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            eltwise.floor_divide(x, np.zeros_like(x))
    with np.errstate(divide="ignore"):
        assert not eltwise.floor_divide(x, np.zeros_like(x)).astype(np.int64).any()
    out = np.empty_like(x)
    assert eltwise.multiply(x, x, out=out) is out
    assert out.tolist() == _wrap(x.astype(np.int64) ** 2, dt).tolist()
    assert eltwise.ufunc.add(x, x).tolist() == eltwise.add(x, x).tolist()
    assert int(eltwise.ufunc.add.reduce(x)) == int(np.add.reduce(x))
    assert int(eltwise.ufunc.bitwise_or.reduce(x)) == int(_wrap(np.bitwise_or.reduce(
        x.astype(np.int64)), dt))


NARROW = [d for d in CODED_DTYPES if BITS[d] <= 4]


@pytest.mark.parametrize("dt", NARROW, ids=dtype_id)
def test_narrow_codes_in_every_layout_and_length(dt):
    """The dtypes of at most 4 bits run by a table of each op's 256 pairs of low
    nibbles on AVX3_DL (kernels/pair_table-inl.h). Random bytes, the bits above a
    code set too (ignored, docs/semantics.md "Low-precision dtypes"), at lengths
    around the 64-element block, both operands arrays or one broadcast, in place too:
    every target gives the bytes of the masked codes on the SCALAR target, and a zero
    divisor reports through numpy.errstate wherever it lies, only in the elements."""
    rng = np.random.default_rng(4)
    mask = (1 << BITS[dt]) - 1
    funcs = FLOAT_FUNCS if dt in FLOAT_CODED else [f for f in INT_FUNCS if f != "power"]
    division = ("divide", "floor_divide", "mod", "remainder", "fmod")
    try:
        for n in (1, 63, 64, 65, 200):
            raw_a = rng.integers(0, 256, n, dtype=np.uint8)
            raw_b = rng.integers(0, 256, n, dtype=np.uint8)
            raw_b[(raw_b & mask) == 0] |= 1  # no zero divisor: flags below
            layouts = {"arrays": (raw_a, raw_b), "x1 scalar": (raw_a[:1], raw_b),
                       "x2 scalar": (raw_a, raw_b[:1])}
            for name in funcs:
                fn = getattr(eltwise, name)
                for layout, (x1, x2) in layouts.items():
                    eltwise.set_target("SCALAR")
                    with np.errstate(all="ignore"):
                        want = fn((x1 & mask).view(dt), (x2 & mask).view(dt))
                    for t in TARGETS:
                        eltwise.set_target(t)
                        with np.errstate(divide="raise"):
                            got = fn(x1.view(dt), x2.view(dt))
                            assert got.tobytes() == want.tobytes(), (name, n, layout, t)
                            if layout != "x1 scalar" and got.dtype == dt:
                                inplace = x1.copy().view(dt)
                                fn(inplace, x2.view(dt), out=inplace)
                                assert inplace.tobytes() == want.tobytes(), (name, n, t)
                if dt in FLOAT_CODED or name not in division:
                    continue
                for t in TARGETS:
                    eltwise.set_target(t)
                    for at in {0, n - 1}:  # the zero divisor first, or last (the tail)
                        zero = raw_b.copy()
                        zero[at] &= ~np.uint8(mask)
                        for x2 in (zero, zero[at:at + 1]):
                            with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
                                fn(raw_a.view(dt), x2.view(dt))
    finally:
        eltwise.set_target(None)


def test_narrow_codes_past_the_streaming_size():
    """A result past 8 MiB streams (non-temporal stores where `out` is aligned): the
    same bytes as the SCALAR target, aligned and not."""
    rng = np.random.default_rng(5)
    n = 9 << 20
    a = rng.integers(0, 16, n + 1, dtype=np.uint8).view(ml_dtypes.int4)
    b = rng.integers(1, 16, n + 1, dtype=np.uint8).view(ml_dtypes.int4)
    try:
        eltwise.set_target("SCALAR")
        want = eltwise.floor_divide(a[1:], b[1:])
        eltwise.set_target(None)
        assert eltwise.floor_divide(a[1:], b[1:]).tobytes() == want.tobytes()
        out = np.empty(n + 1, ml_dtypes.int4)
        eltwise.floor_divide(a[1:], b[1:], out=out[1:])
        assert out[1:].tobytes() == want.tobytes()
    finally:
        eltwise.set_target(None)
