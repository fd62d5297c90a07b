"""divide, floor_divide, mod/remainder, fmod: seeds (OpenVINO Divide-1, ONNX Div-14 and
Mod), pythondiv, integer division by zero, MIN / -1, float floor semantics."""

import re
import warnings

import numpy as np
import pytest

import eltwise
from ew_helpers import (
    BF16, DIV_WARN_NAME, FLOAT_DTYPES, INT_DIV_OPS, INT_DTYPES, INTEGER_DTYPES, UINT_DTYPES,
    assert_same, dtype_id, edge_values, random_values, reference, trunc_divide,
)


# ---------------------------------------------------------------------------
# seeds


def test_openvino_divide_example1_none_pythondiv(target):
    """OpenVINO Divide-1 example 1: (256,56)/(256,56), auto_broadcast none, m_pythondiv."""
    rng = np.random.default_rng(1)
    a = rng.integers(-1000, 1000, (256, 56)).astype(np.int32)
    b = rng.integers(-30, 30, (256, 56)).astype(np.int32)
    b[b == 0] = 7
    got = eltwise.divide(a, b, broadcast="none", pythondiv=True)
    assert got.shape == (256, 56) and got.dtype == np.int32
    assert_same(got, np.floor_divide(a, b))
    # floor, not truncation: there are negative non-exact quotients
    assert (got != trunc_divide(a, b)).any()
    got = eltwise.divide(a, b, broadcast="none")  # pythondiv=True is the default
    assert_same(got, np.floor_divide(a, b))


def test_openvino_divide_example2_broadcast(target):
    """OpenVINO Divide-1 example 2: (8,1,6,1)/(7,1,5) -> (8,7,6,5), m_pythondiv=false."""
    rng = np.random.default_rng(2)
    a = rng.integers(-100, 100, (8, 1, 6, 1)).astype(np.int32)
    b = rng.integers(1, 9, (7, 1, 5)).astype(np.int32) * rng.choice([-1, 1], (7, 1, 5)).astype(np.int32)
    got = eltwise.divide(a, b, broadcast="numpy", pythondiv=False)
    assert got.shape == (8, 7, 6, 5) and got.dtype == np.int32
    assert_same(got, trunc_divide(a, b))
    af, bf = a.astype(np.float32), b.astype(np.float32)
    got = eltwise.divide(af, bf, pythondiv=False)
    assert_same(got, np.divide(af, bf))


def test_onnx_div_example(target):
    got = eltwise.divide(np.array([3, 4], np.float32), np.array([1, 2], np.float32))
    assert_same(got, np.array([3, 2], np.float32))


def test_onnx_cc_div(target):
    x = np.array([[10, 20, 30], [40, 50, 60]], np.float32)
    y = np.array([[2, 4, 5], [8, 10, 12]], np.float32)
    assert_same(eltwise.divide(x, y), np.array([[5, 5, 6], [5, 5, 5]], np.float32))
    x = np.array([[1, 2], [3, 4]], np.float32)
    assert_same(eltwise.divide(x, np.array(2, np.float32)),
                np.array([[0.5, 1], [1.5, 2]], np.float32))


def test_onnx_div_bcast(target):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    y = (rng.random(5) + 1.0).astype(np.float32)
    assert_same(eltwise.divide(x, y), x / y)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    y = (rng.random((3, 4, 5)) + 1.0).astype(np.float32)
    assert_same(eltwise.divide(x, y), x / y)


def test_onnx_div_int32_trunc(target):
    x = np.array([-3, 3, -3, 3], np.int32)
    y = np.array([2, 2, -2, -2], np.int32)
    got = eltwise.divide(x, y, pythondiv=False)
    assert_same(got, np.array([-1, 1, 1, -1], np.int32))
    got = eltwise.divide(x, y)
    assert_same(got, np.array([-2, 1, 1, -2], np.int32))


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.dtype(np.float32), np.dtype(np.float64)], ids=dtype_id)
def test_onnx_mod_mixed_sign(dtype, target):
    x = np.array([-4, 7, 5, 4, -7, 8], dtype)
    y = np.array([2, -3, 8, -2, 3, 5], dtype)
    for got in (eltwise.mod(x, y), eltwise.remainder(x, y)):
        assert got.tolist() == [0, -2, 5, 0, 2, 3]
        assert_same(got, np.remainder(x, y))  # (floats: 4 % -2 is -0.0)
    got = eltwise.fmod(x, y)
    assert got.tolist() == [0, 1, 5, 0, -1, 3]
    assert_same(got, np.fmod(x, y))


def test_onnx_mod_float_signed_zero():
    x = np.array([-4.0, 4.0, -0.0], np.float64)
    y = np.array([2.0, -2.0, 3.0])
    assert_same(eltwise.mod(x, y), np.remainder(x, y))
    assert_same(eltwise.fmod(x, y), np.fmod(x, y))


# ---------------------------------------------------------------------------
# pythondiv


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_pythondiv_floor_vs_trunc(dtype, target):
    rng = np.random.default_rng(dtype.num)
    ii = np.iinfo(dtype)
    for n in (1, 5, 16, 31, 64, 129):
        a = rng.integers(ii.min, ii.max, n, endpoint=True, dtype=dtype)
        b = rng.integers(ii.min, ii.max, n, endpoint=True, dtype=dtype)
        small = rng.integers(max(ii.min, -9), 10, n).astype(dtype)
        b = np.where(rng.random(n) < 0.5, b, small)
        b[b == 0] = 3
        assert_same(eltwise.divide(a, b, pythondiv=True), np.floor_divide(a, b), inputs=(a, b))
        assert_same(eltwise.divide(a, b, pythondiv=False), trunc_divide(a, b), inputs=(a, b))
        assert_same(eltwise.floor_divide(a, b), np.floor_divide(a, b), inputs=(a, b))
        # also scalar divisor / scalar dividend loops
        s = b[0]
        assert_same(eltwise.divide(a, s, pythondiv=False), trunc_divide(a, np.full(n, s)))
        assert_same(eltwise.divide(s, a | 1, pythondiv=True),
                    np.floor_divide(np.full(n, s), a | 1))


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in ("int8", "uint8")], ids=dtype_id)
def test_8bit_exhaustive(dtype, target):
    """All 65536 pairs of 8-bit integers through divide (both modes), floor_divide, mod, fmod."""
    v = np.arange(256, dtype=np.uint8).view(dtype)
    a = np.repeat(v, 256)
    b = np.tile(v, 256)
    with np.errstate(divide="ignore"):
        for name in ("floor_divide", "mod", "fmod"):
            assert_same(getattr(eltwise, name)(a, b), reference(name, a, b), inputs=(a, b))
        assert_same(eltwise.divide(a, b, pythondiv=True), reference("divide", a, b), inputs=(a, b))
        assert_same(eltwise.divide(a, b, pythondiv=False),
                    reference("divide", a, b, pythondiv=False), inputs=(a, b))


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in ("int16", "uint16", "int32", "uint32", "int64", "uint64")], ids=dtype_id)
def test_wide_integer_division_random(dtype, target):
    """Exactness of 16/32/64-bit division (float tricks must not lose bits)."""
    rng = np.random.default_rng(dtype.num + 100)
    ii = np.iinfo(dtype)
    n = 20000
    a = rng.integers(ii.min, ii.max, n, endpoint=True, dtype=dtype)
    shift = rng.integers(0, 8 * dtype.itemsize, n).astype(dtype)
    b = rng.integers(ii.min, ii.max, n, endpoint=True, dtype=dtype) >> shift
    # near-multiples: a = q*b + {-1,0,1}
    with np.errstate(all="ignore"):
        a2 = (b * rng.integers(-1000, 1000, n).astype(dtype) + rng.integers(-1, 2, n).astype(dtype)).astype(dtype)
    a = np.where(rng.random(n) < 0.5, a, a2)
    a[:4] = [ii.max, ii.min, ii.max - 1, ii.min + 1]
    b[:4] = [ii.max, ii.max, 1, ii.max]
    with np.errstate(divide="ignore"):
        for name in ("floor_divide", "mod", "fmod"):
            assert_same(getattr(eltwise, name)(a, b), reference(name, a, b), inputs=(a, b))
        assert_same(eltwise.divide(a, b, pythondiv=False),
                    reference("divide", a, b, pythondiv=False), inputs=(a, b))
        assert_same(eltwise.divide(a, b), reference("divide", a, b), inputs=(a, b))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_pythondiv_ignored_for_floats(dtype, target):
    x = np.array([-3, 3, -3, 3, 1, -7.5], dtype)
    y = np.array([2, 2, -2, -2, 3, 2], dtype)
    for pd in (True, False):
        assert_same(eltwise.divide(x, y, pythondiv=pd), reference("divide", x, y))


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_integer_divide_stays_integer(dtype):
    x = np.array([7, 8, 9], dtype)
    y = np.array([2, 3, 4], dtype)
    got = eltwise.divide(x, y)
    assert got.dtype == dtype
    assert got.tolist() == [3, 2, 2]
    assert eltwise.divide(dtype.type(7), dtype.type(2)) == 3
    assert isinstance(eltwise.divide(dtype.type(7), dtype.type(2)), dtype.type)


def test_pythondiv_bool_promoted_ints():
    # Python ints: int64 as numpy.result_type says; integer result
    assert eltwise.divide(-7, 2) == -4
    assert eltwise.divide(-7, 2, pythondiv=False) == -3
    assert isinstance(eltwise.divide(-7, 2), np.int64)


# ---------------------------------------------------------------------------
# integer division by zero


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", INT_DIV_OPS)
def test_int_div_by_zero_warns(name, dtype, target):
    x = np.arange(1, 41).astype(dtype)
    y = np.ones(40, dtype)
    y[[0, 5, 17, 39]] = 0
    match = "divide by zero encountered in " + DIV_WARN_NAME[name]
    with pytest.warns(RuntimeWarning, match=match) as rec:
        got = getattr(eltwise, name)(x, y)
    assert len([w for w in rec if issubclass(w.category, RuntimeWarning)]) == 1
    assert (got[[0, 5, 17, 39]] == 0).all()
    with np.errstate(all="ignore"):
        assert_same(got, reference(name, x, y))
    # scalar operands as well
    with pytest.warns(RuntimeWarning, match=match):
        r = getattr(eltwise, name)(dtype.type(5), dtype.type(0))
    assert r == 0 and isinstance(r, dtype.type)


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", INT_DIV_OPS)
def test_int_div_by_zero_ignore(name, dtype):
    x = np.arange(1, 41).astype(dtype)
    y = np.zeros(40, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="ignore"):
            got = getattr(eltwise, name)(x, y)
    assert (got == 0).all() and got.dtype == dtype


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", INT_DIV_OPS)
def test_int_div_by_zero_raise(name, dtype):
    x = np.arange(1, 41).astype(dtype)
    y = np.ones(40, dtype)
    y[-1] = 0
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="divide by zero"):
            getattr(eltwise, name)(x, y)
        with pytest.raises(FloatingPointError, match="divide by zero"):
            getattr(eltwise, name)(x, y, out=np.empty(40, dtype))
        # no zero divisor: no error
        y[-1] = 2
        assert_same(getattr(eltwise, name)(x, y), reference(name, x, y))


def test_div_by_zero_through_elementwise():
    x = np.array([1, 2, 3], np.int32)
    y = np.array([1, 0, 3], np.int32)
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in divide"):
        got = eltwise.elementwise(x, y, "DIV")
    assert got.tolist() == [1, 0, 1]
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in floor_divide"):
        got = eltwise.elementwise(x, y, eltwise.Op.FLOOR_DIV)
    assert got.tolist() == [1, 0, 1]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", INT_DIV_OPS)
def test_no_spurious_div_by_zero_in_tails(name, dtype, target):
    """Padding lanes never feed a division: no warning without a zero divisor, for
    every length around the vector widths, and a zero only in the last lane is seen."""
    rng = np.random.default_rng(7)
    for n in list(range(1, 70)) + [127, 128, 129, 255, 256, 257]:
        x = rng.integers(0, 100, n).astype(dtype)
        y = rng.integers(1, 100, n).astype(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = getattr(eltwise, name)(x, y)
            got_s = getattr(eltwise, name)(x, y[0])
            got_t = getattr(eltwise, name)(x[::-1], y[::-1])
        assert_same(got, reference(name, x, y))
        assert_same(got_s, reference(name, x, y[0]))
        assert_same(got_t, reference(name, x[::-1], y[::-1]))
        y[-1] = 0
        with pytest.warns(RuntimeWarning, match="divide by zero"):
            got = getattr(eltwise, name)(x, y)
        assert got[-1] == 0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", INT_DIV_OPS)
def test_float_division_by_zero_does_not_warn(name, dtype, target):
    """Documented choice: float division by zero / invalid is not reported."""
    x = np.array([1.0, -1.0, 0.0, np.inf, np.nan, -0.0, 5.0] * 5, dtype)
    y = np.array([0.0, 0.0, 0.0, 0.0, 0.0, -0.0, np.inf] * 5, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(eltwise, name)(x, y)
        got2 = getattr(eltwise, name)(x, dtype.type(0.0))
    assert_same(got, reference(name, x, y))
    assert_same(got2, reference(name, x, dtype.type(0.0)))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_min_div_minus_one(dtype, target):
    """MIN // -1 == MIN (wraps, no warning); MIN % -1 == 0; fmod(MIN, -1) == 0."""
    mn = np.iinfo(dtype).min
    for n in (1, 7, 33, 257):
        x = np.full(n, mn, dtype)
        y = np.full(n, -1, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for got in (eltwise.divide(x, y), eltwise.divide(x, y, pythondiv=False),
                        eltwise.floor_divide(x, y), eltwise.divide(x, dtype.type(-1)),
                        eltwise.floor_divide(x, dtype.type(-1))):
                assert got.dtype == dtype and (got == mn).all()
            for got in (eltwise.mod(x, y), eltwise.remainder(x, y), eltwise.fmod(x, y),
                        eltwise.mod(x, dtype.type(-1)), eltwise.fmod(x, dtype.type(-1))):
                assert got.dtype == dtype and (got == 0).all()
            assert eltwise.divide(dtype.type(mn), dtype.type(-1)) == mn
            assert eltwise.mod(dtype.type(mn), dtype.type(-1)) == 0


@pytest.mark.parametrize("dtype", [np.dtype(np.int32), np.dtype(np.uint32)], ids=dtype_id)
def test_32bit_quotients_at_the_narrowing_boundary(dtype, target):
    """32-bit division computes in float64 and narrows by moving results >= 2^31 down by
    2^32: quotients and dividends on either side of 2^31 and at the type's ends."""
    ii = np.iinfo(dtype)
    edges = [ii.min, ii.min + 1, -1, 0, 1, 2**31 - 2, 2**31 - 1, ii.max - 1, ii.max]
    if dtype.kind == "u":
        edges += [2**31, 2**31 + 1]
    a = np.array([e for e in edges if ii.min <= e <= ii.max], dtype)
    for n in (1, 7, 33):  # tails, one vector, several
        x = np.resize(a, n * len(a))
        for b in (1, 2, 3, -1, -2, ii.max):
            if not ii.min <= b <= ii.max:
                continue
            y = np.full(x.shape, b, dtype)
            for name in ("floor_divide", "mod", "fmod"):
                assert_same(getattr(eltwise, name)(x, y), reference(name, x, y), inputs=(x, y))
            assert_same(eltwise.divide(x, y, pythondiv=False),
                        reference("divide", x, y, pythondiv=False), inputs=(x, y))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_float_floor_divide_and_mod_bit_exact(dtype, target):
    """Float floor_divide / remainder bit-exact with NumPy (Python's // and %)."""
    ev = edge_values(dtype)
    a = np.repeat(ev, len(ev))
    b = np.tile(ev, len(ev))
    for name in ("floor_divide", "mod", "fmod", "divide"):
        assert_same(getattr(eltwise, name)(a, b), reference(name, a, b), inputs=(a, b))
    rng = np.random.default_rng(11)
    a = (rng.standard_normal(3000) * 100).astype(dtype)
    b = (rng.standard_normal(3000) * rng.choice([0.01, 1, 30], 3000)).astype(dtype)
    for name in ("floor_divide", "mod", "fmod"):
        assert_same(getattr(eltwise, name)(a, b), reference(name, a, b), inputs=(a, b))


def test_floor_divide_python_semantics():
    assert eltwise.floor_divide(1.0, 0.1) == 9.0
    assert eltwise.floor_divide(np.array([1.0]), np.array([0.1]))[0] == 9.0
    assert eltwise.mod(-1.0, 3.0) == 2.0
    assert eltwise.mod(1.0, -3.0) == -2.0
    assert eltwise.fmod(-1.0, 3.0) == -1.0
    assert eltwise.mod(-7, 3) == 2
    assert eltwise.fmod(-7, 3) == -1
    assert eltwise.floor_divide(-7, 2) == -4
    assert np.signbit(eltwise.mod(-0.0, 3.0)) == np.signbit(np.remainder(-0.0, 3.0))


def test_remainder_is_alias_of_mod():
    x = np.array([-4, 7, 5, 4, -7, 8])
    y = np.array([2, -3, 8, -2, 3, 5])
    assert_same(eltwise.remainder(x, y), eltwise.mod(x, y))


@pytest.mark.parametrize("dtype", UINT_DTYPES, ids=dtype_id)
def test_unsigned_division_large_values(dtype, target):
    """Unsigned values above the signed range divide as unsigned."""
    ii = np.iinfo(dtype)
    x = np.array([ii.max, ii.max - 1, ii.max // 2 + 1, ii.max, 1, 0] * 6, dtype)
    y = np.array([1, 2, 3, ii.max // 2 + 1, ii.max, ii.max] * 6, dtype)
    for pd in (True, False):
        assert_same(eltwise.divide(x, y, pythondiv=pd), np.floor_divide(x, y))
    assert_same(eltwise.mod(x, y), np.remainder(x, y))
    assert_same(eltwise.fmod(x, y), np.fmod(x, y))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_float_divide_bit_exact_random(dtype, target):
    rng = np.random.default_rng(5)
    with np.errstate(over="ignore"):
        a = (rng.standard_normal(5000) * np.exp2(rng.integers(-20, 20, 5000))).astype(dtype)
        b = (rng.standard_normal(5000) * np.exp2(rng.integers(-20, 20, 5000))).astype(dtype)
    assert_same(eltwise.divide(a, b), reference("divide", a, b), inputs=(a, b))
    assert_same(eltwise.divide(a, b[7]), reference("divide", a, b[7]))
    assert_same(eltwise.divide(a[3], b), reference("divide", a[3], b))


@pytest.mark.parametrize("name", INT_DIV_OPS)
def test_int_div_by_zero_scalar_and_broadcast_divisors(name, target):
    """A zero divisor reached through the scalar and broadcast loops is reported once."""
    f = getattr(eltwise, name)
    match = "divide by zero encountered in " + DIV_WARN_NAME[name]
    cases = [
        (np.arange(40, dtype=np.int64), np.int64(0)),
        (np.int16(5), np.zeros(33, np.int16)),
        (np.arange(40, dtype=np.uint8).reshape(8, 5), np.zeros((8, 1), np.uint8)),
        (np.arange(40, dtype=np.int32)[::-3], np.array(0, np.int32)),
    ]
    for x1, x2 in cases:
        with pytest.warns(RuntimeWarning, match=match) as rec:
            got = f(x1, x2)
        assert len(rec) == 1
        assert not np.asarray(got).any()


@pytest.mark.parametrize("dtype", [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16,
                                                          np.int32, np.uint32, np.int64,
                                                          np.uint64)], ids=dtype_id)
@pytest.mark.parametrize("name,pythondiv", [("divide", True), ("divide", False),
                                            ("floor_divide", True), ("mod", True), ("fmod", True)])
def test_scalar_divisor(dtype, name, pythondiv, target, rng):
    """A scalar divisor is prepared once per call as a multiply-high in the lanes' width
    (Granlund-Montgomery; 8-bit lanes in 16-bit halves with a 9-bit magic); a signed floor
    by a positive divisor is one unsigned division of a ^ s (s: a's sign mask, so a ^ s
    has its top bit clear and needs no add case), by a negative one NumPy's form. Every
    kind of divisor
    (powers of two, their neighbours, the 65-bit-magic cases, MIN,
    -1, MAX) against every kind of dividend (all of them for 8-bit), bit-exact with NumPy."""
    ii = np.iinfo(dtype)
    a = np.concatenate([edge_values(dtype), random_values(dtype, 300, rng),
                        np.array([ii.min, ii.max, ii.min + 1, ii.max - 1], dtype)])
    if dtype.itemsize == 1:
        a = np.arange(ii.min, ii.max + 1).astype(dtype)
    divisors = {ii.max, ii.min, ii.max - 1, 1, 2, 3, 5, 6, 7, 10, 641, 2**32 - 1, 2**32 + 1,
                2**62 + 1, 2**63 - 25}
    for k in range(1, 63):
        divisors.update({2**k - 1, 2**k, 2**k + 1})
    if ii.min < 0:
        divisors.update({-d for d in list(divisors) if -d >= ii.min} | {-1})
    else:
        divisors.update({2**63, 2**63 + 1, 2**64 - 1, 2**64 - 2})
    divisors.update(int(v) for v in random_values(dtype, 40, rng) if v != 0)
    if dtype.itemsize == 1:
        divisors.update(range(ii.min, ii.max + 1))
    divisors = {d for d in divisors if ii.min <= d <= ii.max and d != 0}
    kw = {"pythondiv": pythondiv} if name == "divide" else {}
    for d in sorted(divisors):
        b = dtype.type(d)
        got = getattr(eltwise, name)(a, b, **kw)
        exp = reference(name, a, b, **kw)
        assert_same(got, exp, inputs=(a, b))


@pytest.mark.parametrize("name", ["floor_divide", "mod", "fmod"])
def test_float32_divmod_near_integer_quotients(name, target, rng):
    """float32 floor_divide/mod/fmod run through an exact float64 remainder while |a/b| < 2^28:
    dividends a few ULP either side of exact multiples of the divisor, over many binades and
    quotients up to and past that bound, are bit-exact with NumPy's scalar npy_divmod."""
    n = 20000
    b = (rng.uniform(1, 2, n) * 2.0 ** rng.integers(-60, 60, n)).astype(np.float32)
    b *= rng.choice(np.array([-1, 1], np.float32), n)
    k = np.floor(2.0 ** rng.uniform(0, 30, n)) * rng.choice([-1, 1], n)
    a = (k * b.astype(np.float64)).astype(np.float32)
    steps = rng.integers(-3, 4, n)
    for s in range(1, 4):
        a = np.where(steps >= s, np.nextafter(a, np.float32(np.inf)), a)
        a = np.where(steps <= -s, np.nextafter(a, np.float32(-np.inf)), a)
    a = a.astype(np.float32)
    got = getattr(eltwise, name)(a, b)
    exp = reference(name, a, b)
    assert_same(got, exp, inputs=(a, b))
