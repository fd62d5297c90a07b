"""out= (docs/semantics.md: "`out=`"): identity, strides, casting, aliasing/overlap, and out left
untouched on errors."""

import re

import numpy as np
import pytest

import eltwise
from ew_helpers import (
    ALL_OPS, BF16, BOOL_RESULT_OPS, INT_DIV_OPS, assert_same, expected_error, is_int, operands,
    reference,
)


def _has_common_dtype(a, b):
    try:
        np.result_type(a, b)
    except TypeError:
        return False
    return True


_HAS_COMMON_BF16_F16 = _has_common_dtype(BF16, np.float16)


@pytest.mark.parametrize("name", ALL_OPS)
def test_out_is_returned(name, target):
    a, b = operands(name, np.int32, 40, kind="tame")
    exp = reference(name, a, b)
    out = np.empty_like(exp)
    got = getattr(eltwise, name)(a, b, out=out)
    assert got is out
    assert_same(out, exp)
    out2 = np.empty_like(exp)
    got = getattr(eltwise, name)(a, b, out2)  # positional out
    assert got is out2
    assert_same(out2, exp)
    out3 = np.empty_like(exp)
    got = getattr(eltwise, name)(a, b, out=(out3,))  # 1-tuple
    assert got is out3
    assert_same(out3, exp)


@pytest.mark.parametrize("name", ["add", "divide", "mod", "power", "maximum", "less", "logical_xor",
                                  "bitwise_or", "squared_difference"])
def test_out_any_strides(name, target):
    a, b = operands(name, np.int32, 60, kind="tame")
    A, B = a.reshape(6, 10), b.reshape(6, 10)
    exp = reference(name, A, B)
    for make in (
        lambda: np.empty((12, 20), exp.dtype)[::2, ::2],
        lambda: np.empty((6, 10), exp.dtype)[::-1, ::-1],
        lambda: np.empty((10, 6), exp.dtype).T,
        lambda: np.empty((6, 10), exp.dtype, order="F"),
        lambda: np.empty((6, 10), exp.dtype.newbyteorder("S")),
        lambda: np.zeros(60 * exp.dtype.itemsize + 1, np.uint8)[1:].view(exp.dtype).reshape(6, 10),
    ):
        out = make()
        got = getattr(eltwise, name)(A, B, out=out)
        assert got is out
        assert_same(np.ascontiguousarray(out).astype(exp.dtype), exp, contiguous=False)


@pytest.mark.parametrize("out_dtype", ["int64", "int8", "float64", "float32", "int16"])
def test_out_same_kind_cast_int_result(out_dtype):
    a = np.array([100, -100, 7, 127, -128], np.int32)
    b = np.array([100, 100, 2, 1, -1], np.int32)
    out = np.zeros(5, out_dtype)
    with np.errstate(all="ignore"):
        exp = (a * b).astype(out_dtype)
    assert eltwise.multiply(a, b, out=out) is out
    assert_same(out, exp)


@pytest.mark.parametrize("out_dtype", ["float32", "float16", BF16])
def test_out_same_kind_cast_float_result(out_dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(100).astype(np.float32) * 100
    b = rng.standard_normal(100).astype(np.float32)
    if np.dtype(out_dtype) == np.float32:
        a, b = a.astype(np.float64), b.astype(np.float64)
    out = np.zeros(100, out_dtype)
    assert eltwise.divide(a, b, out=out) is out
    with np.errstate(all="ignore"):
        exp = (a / b).astype(out_dtype)
    assert_same(out, exp)


def test_out_float64_result_into_float16():
    """float64 results are rounded once into a float16 out, as NumPy's cast does."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal(1000) * 10
    b = rng.standard_normal(1000)
    out = np.zeros(1000, np.float16)
    eltwise.multiply(a, b, out=out)
    with np.errstate(all="ignore"):
        assert_same(out, (a * b).astype(np.float16))


def test_out_bool_result_into_numeric():
    a = np.array([1, 2, 3])
    b = np.array([3, 2, 1])
    out = np.full(3, 9.0)
    assert eltwise.less(a, b, out=out) is out
    assert out.tolist() == [1.0, 0.0, 0.0]
    out = np.full(3, 9, np.int8)
    eltwise.equal(a, b, out=out)
    assert out.tolist() == [0, 1, 0]


@pytest.mark.parametrize("res,out_dtype", [
    ((np.ones(4), np.ones(4)), "int32"),      # float64 -> int32
    ((np.ones(4, np.float32), np.ones(4, np.float32)), "int64"),
    ((np.ones(4, np.int32), np.ones(4, np.int32)), "bool"),  # int -> bool
])
def test_out_not_castable(res, out_dtype):
    a, b = res
    exp = np.add(a, b)
    assert not np.can_cast(exp.dtype, out_dtype, "same_kind")
    out = np.full(4, 3, out_dtype)
    before = out.copy()
    with pytest.raises(TypeError):
        eltwise.add(a, b, out=out)
    assert_same(out, before)


def test_out_not_castable_numpy_wording():
    out = np.zeros(3, np.int32)
    msg = "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int32') with casting rule 'same_kind'"
    with pytest.raises(TypeError, match=re.escape(msg)):
        eltwise.add(np.ones(3), np.ones(3), out=out)
    assert (out == 0).all()


@pytest.mark.parametrize("out_shape", [(2, 3), (1, 3), (3, 1), (4,), (), (1,), (3, 3)])
def test_out_wrong_shape(out_shape):
    """out must have exactly the broadcast shape (3,): not even a broadcastable bigger one."""
    a, b = np.ones(3), np.ones(3)
    out = np.full(out_shape, 5.0)
    with pytest.raises(ValueError):
        eltwise.add(a, b, out=out)
    assert (out == 5.0).all()


def test_out_wrong_shape_for_scalars():
    out = np.full((1,), 5.0)
    with pytest.raises(ValueError):
        eltwise.add(1.0, 2.0, out=out)
    assert out[0] == 5.0


def test_out_zero_d_for_scalars():
    out = np.zeros((), np.float64)
    got = eltwise.add(1.0, 2.0, out=out)
    assert got is out and out[()] == 3.0
    out = np.zeros((), np.int64)
    got = eltwise.floor_divide(np.int64(-7), 2, out=out)
    assert got is out and out[()] == -4


def test_out_read_only():
    out = np.zeros(3)
    out.flags.writeable = False
    with pytest.raises((ValueError, TypeError)):
        eltwise.add(np.ones(3), np.ones(3), out=out)
    assert (out == 0).all()


@pytest.mark.parametrize("bad", [[0.0, 0.0, 0.0], (np.zeros(3), np.zeros(3)), 3.0, "out"])
def test_out_bad_type(bad):
    with pytest.raises((TypeError, ValueError)):
        eltwise.add(np.ones(3), np.ones(3), out=bad)


def test_out_none_tuple():
    got = eltwise.add(np.ones(3), np.ones(3), out=None)
    assert_same(got, np.full(3, 2.0))


# --- aliasing and overlap ----------------------------------------------------


def _np_on_copies(name, x1, x2, **kw):
    return reference(name, np.array(x1, copy=True), np.array(x2, copy=True), **kw)


@pytest.mark.parametrize("n", [1, 7, 33, 257, 100_003])
@pytest.mark.parametrize("name", ["add", "subtract", "divide", "floor_divide", "mod", "power",
                                  "maximum", "squared_difference"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "float16", "int64", "uint8"])
def test_out_aliases_input(name, dtype, n, target):
    rng = np.random.default_rng(n)
    a0 = (rng.integers(1, 9, n)).astype(dtype)
    b0 = (rng.integers(1, 5, n)).astype(dtype)
    # out is x1
    a = a0.copy()
    exp = _np_on_copies(name, a, b0)
    assert getattr(eltwise, name)(a, b0, out=a) is a
    assert_same(a, exp)
    # out is x2
    b = b0.copy()
    exp = _np_on_copies(name, a0, b)
    getattr(eltwise, name)(a0, b, out=b)
    assert_same(b, exp)
    # out is both
    a = a0.copy()
    exp = _np_on_copies(name, a, a)
    getattr(eltwise, name)(a, a, out=a)
    assert_same(a, exp)
    # out is the array beside a scalar (guards the tail: recomputing the last
    # whole vector in place would apply the op twice where it overlaps)
    for first in (True, False):
        a = a0.copy()
        s = b0[0] if first else b0[-1]
        args = (s, a) if first else (a, s)
        exp = _np_on_copies(name, *args)
        getattr(eltwise, name)(*args, out=a)
        assert_same(a, exp)


@pytest.mark.parametrize("n", [2, 8, 34, 258, 100_002])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float16", "int64", BF16])
def test_out_overlaps_input(dtype, n, target):
    """Shifted / reversed overlaps: the result is as if inputs were read first."""
    rng = np.random.default_rng(n)
    base = rng.integers(1, 100, n).astype(dtype)
    cases = [
        lambda a: (a[1:], a[:-1], a[1:]),
        lambda a: (a[:-1], a[1:], a[1:]),
        lambda a: (a[1:], a[:-1], a[:-1]),
        lambda a: (a, a[::-1], a),
        lambda a: (a[::-1], a, a),
        lambda a: (a, a, a[::-1]),
        lambda a: (a[::2], a[1::2], a[: n // 2]),
        lambda a: (a[: n // 2], a[n // 2: 2 * (n // 2)], a[n // 4: n // 4 + n // 2]),
        lambda a: (a[1:], a[0], a[:-1]),
        lambda a: (a[-1], a[:-1], a[1:]),
    ]
    for i, case in enumerate(cases):
        for name in ("add", "divide", "maximum", "subtract"):
            a = base.copy()
            x1, x2, out = case(a)
            exp = _np_on_copies(name, x1, x2)
            got = getattr(eltwise, name)(x1, x2, out=out)
            assert got is out
            try:
                assert_same(np.array(out), exp, contiguous=False)
            except AssertionError as e:
                raise AssertionError(f"case {i} {name}: {e}") from None


def test_out_overlap_2d_broadcast():
    """A broadcast row of the output itself: numpy semantics (inputs read first)."""
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    exp = a + a[0]
    eltwise.add(a, a[0], out=a)
    assert_same(a, exp)
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    exp = a - a[:, 1:2]
    eltwise.subtract(a, a[:, 1:2], out=a)
    assert_same(a, exp)
    a = np.arange(16, dtype=np.int64).reshape(4, 4)
    exp = a + a.T
    eltwise.add(a, a.T, out=a)
    assert_same(a, exp)


def test_out_aliases_int_division_by_zero():
    a = np.array([5, 6, 7, 8, 9], np.int32)
    b = np.array([1, 0, 2, 0, 3], np.int32)
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        eltwise.divide(a, b, out=a)
    assert a.tolist() == [5, 0, 3, 0, 3]


# --- out untouched on errors -------------------------------------------------


def test_negative_power_leaves_out_untouched(target):
    for n in (1, 33, 100_000):
        a = np.full(n, 2, np.int32)
        b = np.ones(n, np.int32)
        b[-1] = -1
        out = np.full(n, 77, np.int32)
        with pytest.raises(ValueError, match=re.escape("Integers to negative integer powers are not allowed.")):
            eltwise.power(a, b, out=out)
        assert (out == 77).all()
        # out aliasing the base: base must be untouched too
        with pytest.raises(ValueError):
            eltwise.power(a, b, out=a)
        assert (a == 2).all()
        # negative exponent in a broadcast / strided operand
        b2 = np.ones((n, 2), np.int32)
        b2[-1, 0] = -3
        with pytest.raises(ValueError):
            eltwise.power(a, b2[:, 0], out=out)
        assert (out == 77).all()


@pytest.mark.parametrize("name", ["floor_divide", "mod", "divide"])
def test_zero_divisor_under_raise_leaves_out_untouched(name, target):
    """An integer zero divisor under errstate(divide='raise') raises and leaves out as it
    was, for divisors scanned before the call (small ones) and after asking errstate (more
    than 4096 elements), contiguous or strided; under 'warn' out gets NumPy's result."""
    for n in (1, 33, 4096, 4097, 100_000):
        for step in (1, 2):
            a = np.arange(-n, n, dtype=np.int64)[::2][:n]
            b = np.arange(1, step * n + 1, dtype=np.int64)[::step]
            b[n // 2] = 0
            out = np.full(n, 77, np.int64)
            with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
                getattr(eltwise, name)(a, b, out=out)
            assert (out == 77).all()
            with np.errstate(divide="ignore"):
                got = getattr(eltwise, name)(a, b, out=out)
                assert got is out
                assert_same(out, reference(name, a, b))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_negative_power_every_signed_dtype(dtype):
    a = np.arange(-3, 4).astype(dtype)
    b = np.array([2, 1, 0, 1, 2, 3, -1]).astype(dtype)
    with pytest.raises(ValueError, match=re.escape("Integers to negative integer powers are not allowed.")):
        eltwise.power(a, b)
    with pytest.raises(ValueError):
        eltwise.power(np.dtype(dtype).type(2), np.dtype(dtype).type(-2))
    with pytest.raises(ValueError):
        eltwise.power(np.uint8(2), np.int8(-1))  # -> int16
    with pytest.raises(ValueError):
        eltwise.power(a, -1)
    # 0 ** negative and 1 ** negative are errors too (as NumPy)
    with pytest.raises(ValueError):
        eltwise.power(np.array([1], dtype), np.array([-1], dtype))
    # float power of negative exponents is fine
    assert eltwise.power(2.0, -1) == 0.5


ERROR_CALLS = [
    ("bad broadcast", lambda out: eltwise.add(np.ones((2, 3)), np.ones(2), out=out), ValueError),
    ("bad mode", lambda out: eltwise.add(np.ones(3), np.ones(3), out=out, broadcast="bogus"), ValueError),
    ("none mode", lambda out: eltwise.add(np.ones(3), np.ones(1), out=out, broadcast="none"), ValueError),
    ("axis", lambda out: eltwise.add(np.ones(3), np.ones(3), out=out, axis=0), ValueError),
    ("complex", lambda out: eltwise.add(np.ones(3), np.ones(3, complex), out=out), TypeError),
    ("object", lambda out: eltwise.add(np.ones(3), np.ones(3, object), out=out), TypeError),
    ("bool subtract", lambda out: eltwise.subtract(np.ones(3, bool), np.ones(3, bool), out=out), TypeError),
    ("bitwise float", lambda out: eltwise.bitwise_and(np.ones(3), np.ones(3), out=out), TypeError),
    ("pythondiv", lambda out: eltwise.add(np.ones(3), np.ones(3), out=out, pythondiv=True), TypeError),
    ("keyword", lambda out: eltwise.add(np.ones(3), np.ones(3), out=out, where=True), TypeError),
    ("bad op", lambda out: eltwise.elementwise(np.ones(3), np.ones(3), "nope", out=out), ValueError),
    ("op pythondiv", lambda out: eltwise.elementwise(np.ones(3), np.ones(3), "SUM", out=out, pythondiv=False), TypeError),
    # No common dtype (ml_dtypes 0.6; 0.7 gives one for every pair, float32 here).
    *([("bf16 f16", lambda out: eltwise.add(np.ones(3, BF16), np.ones(3, np.float16), out=out),
        TypeError)] if not _HAS_COMMON_BF16_F16 else []),
    ("dtype", lambda out: eltwise.add(np.ones(3), np.ones(3), out=out, dtype=np.complex64), TypeError),
    ("negative power", lambda out: eltwise.power(np.ones(3, np.int64), np.array([1, 1, -1]), out=out), ValueError),
]


@pytest.mark.parametrize("label,fn,exc", ERROR_CALLS, ids=[c[0] for c in ERROR_CALLS])
def test_errors_leave_out_untouched(label, fn, exc):
    out = np.full(3, 13.0) if label != "bad broadcast" else np.full((2, 3), 13.0)
    if label == "negative power":
        out = np.full(3, 13, np.int64)
    before = out.copy()
    with pytest.raises(exc):
        fn(out)
    assert_same(out, before)


def test_fp_error_raise_does_not_return():
    a = np.array([1, 2, 3], np.int32)
    b = np.array([1, 0, 3], np.int32)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            eltwise.floor_divide(a, b)


@pytest.mark.parametrize("shape", [(5, 7), (300, 1001), (1500, 1000)])
@pytest.mark.parametrize("case", ["rows-fwd", "rows-back", "cols-fwd", "cols-back", "transpose"])
def test_out_overlaps_2d(shape, case):
    """2-d shifted overlaps, small and large enough to be split across threads."""
    a = np.random.default_rng(0).standard_normal(shape)
    n = min(shape)
    views = {
        "rows-fwd": lambda b: (b[1:], b[:-1], b[:-1]),
        "rows-back": lambda b: (b[:-1], b[1:], b[1:]),
        "cols-fwd": lambda b: (b[:, 1:], b[:, :-1], b[:, :-1]),
        "cols-back": lambda b: (b[:, :-1], b[:, 1:], b[:, 1:]),
        "transpose": lambda b: (b[:n, :n], b[:n, :n].T, b[:n, :n]),
    }
    b = a.copy()
    x1, x2, out = views[case](b)
    exp = np.array(x1) - np.array(x2)
    assert eltwise.subtract(x1, x2, out=out) is out
    assert_same(np.array(out), exp)
