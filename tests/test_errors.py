"""Errors (docs/semantics.md: "Operands and dtypes", "Errors"): unsupported dtypes, keywords, bool arithmetic, bitwise on
floats, promotion failures, elementwise op names."""

import datetime
import re

import numpy as np
import pytest

import eltwise
from ew_helpers import (
    ALL_DTYPES, ALL_OPS, BF16, BITWISE_OPS, FLOAT_DTYPES, INTEGER_DTYPES, NO_BOOL_OPS,
    assert_same, dtype_id, reference,
)

UNSUPPORTED = [
    np.dtype(np.complex64), np.dtype(np.complex128), np.dtype(object), np.dtype("<U3"),
    np.dtype("S3"), np.dtype("datetime64[ns]"), np.dtype("timedelta64[s]"),
    np.dtype([("a", "i4"), ("b", "f4")]), np.dtype(np.longdouble), np.dtype("V4"),
]
if np.dtype(np.longdouble) == np.dtype(np.float64):  # pragma: no cover - platform
    UNSUPPORTED.remove(np.dtype(np.longdouble))


def _unsupported_array(dt, n=3):
    if dt.kind == "O":
        return np.array([1, 2, 3], dtype=object)
    if dt.kind == "U":
        return np.array(["a", "b", "c"], dtype=dt)
    if dt.kind == "S":
        return np.array([b"a", b"b", b"c"], dtype=dt)
    return np.zeros(n, dt)


@pytest.mark.parametrize("dt", UNSUPPORTED, ids=str)
@pytest.mark.parametrize("name", ALL_OPS)
def test_unsupported_dtype_names_function_and_dtype(name, dt):
    x = _unsupported_array(dt)
    ok = np.ones(3, np.float64) if dt.kind in "c" else np.ones(3, np.int32)
    for x1, x2 in ((x, ok), (ok, x), (x, x)):
        with pytest.raises(TypeError) as ei:
            getattr(eltwise, name)(x1, x2)
        text = str(ei.value)
        assert name in text, text
        assert dt.name in text or str(dt) in text, text


@pytest.mark.parametrize("dt", UNSUPPORTED[:4], ids=str)
def test_unsupported_dtype_through_elementwise(dt):
    x = _unsupported_array(dt)
    with pytest.raises(TypeError):
        eltwise.elementwise(x, x, "SUM")


def test_unsupported_python_objects():
    with pytest.raises(TypeError):
        eltwise.add(np.ones(3), 1 + 2j)
    with pytest.raises(TypeError):
        eltwise.add(1j, 2j)
    with pytest.raises(TypeError):
        eltwise.add(np.ones(3), datetime.datetime(2020, 1, 1))
    with pytest.raises(TypeError):
        eltwise.add(np.ones(3), "abc")
    with pytest.raises(TypeError):
        eltwise.add(None, np.ones(3))
    with pytest.raises(TypeError):
        eltwise.add([1, "a"], [1, 2])


@pytest.mark.parametrize("dt", [np.complex64, np.longdouble, object, "U3"], ids=str)
def test_unsupported_dtype_keyword(dt):
    if np.dtype(dt) == np.float64:
        pytest.skip("longdouble is float64 here")
    with pytest.raises(TypeError):
        eltwise.add(np.ones(3), np.ones(3), dtype=dt)


@pytest.mark.parametrize("name", NO_BOOL_OPS)
def test_bool_arithmetic_is_type_error(name):
    a = np.array([True, False, True])
    b = np.array([True, True, False])
    with pytest.raises(TypeError):
        getattr(eltwise, name)(a, b)
    with pytest.raises(TypeError):
        getattr(eltwise, name)(True, False)
    with pytest.raises(TypeError):
        getattr(eltwise, name)(a, True)
    # with an integer partner it is fine
    with np.errstate(divide="ignore"):
        got = getattr(eltwise, name)(a, np.array([1, 2, 3], np.int8))
    assert got.dtype == np.int8


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum"] + BITWISE_OPS)
def test_bool_ops_stay_bool(name):
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    got = getattr(eltwise, name)(a, b)
    assert got.dtype == np.bool_
    assert_same(got, reference(name, a, b))


@pytest.mark.parametrize("dt", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", BITWISE_OPS)
def test_bitwise_on_floats_is_type_error(name, dt):
    x = np.ones(5, dt)
    i = np.ones(5, np.int32)
    for x1, x2 in ((x, x), (x, i), (i, x), (x, 1), (1.5, i), (i, 2.0)):
        with pytest.raises(TypeError):
            getattr(eltwise, name)(x1, x2)


@pytest.mark.parametrize("name", BITWISE_OPS)
def test_bitwise_int64_uint64_is_type_error(name):
    """int64 with uint64 promotes to float64: no bitwise op (as NumPy)."""
    with pytest.raises(TypeError):
        getattr(eltwise, name)(np.ones(3, np.int64), np.ones(3, np.uint64))


@pytest.mark.parametrize("other", [np.float16, np.int16, np.int32, np.int64, np.uint16,
                                   np.uint32, np.uint64])
def test_bfloat16_without_common_dtype(other):
    """bfloat16 promotes as the installed ml_dtypes makes NumPy promote it: under 0.6 no
    common dtype with float16 or wide ints (a TypeError), under 0.7 result_type's
    float32 or float64 (docs/semantics.md, "Low-precision dtypes")."""
    a = np.array([1.5, -2.0, 3.0], BF16)
    b = np.array([1, 0, 2]).astype(other)
    try:
        rt = np.result_type(a, b)
    except TypeError:
        with pytest.raises(TypeError):
            eltwise.add(a, b)
        with pytest.raises(TypeError):
            eltwise.less(b, a)
        return
    got = eltwise.add(a, b)
    assert got.dtype == rt
    assert_same(got, np.add(a.astype(rt), b.astype(rt)))
    assert eltwise.less(b, a).tolist() == np.less(b.astype(rt), a.astype(rt)).tolist()


@pytest.mark.parametrize("other", [np.bool_, np.int8, np.uint8, np.float32, np.float64])
def test_bfloat16_with_common_dtype(other):
    a = np.array([1.5, -2.0, 3.0], BF16)
    b = np.array([1, 0, 1]).astype(other)
    got = eltwise.add(a, b)
    assert got.dtype == np.result_type(BF16, other)
    assert_same(got, reference("add", a, b))


@pytest.mark.parametrize("dt", INTEGER_DTYPES, ids=dtype_id)
def test_python_int_out_of_range(dt):
    """As NumPy 2: a Python int that does not fit the array's dtype is an OverflowError."""
    ii = np.iinfo(dt)
    a = np.ones(3, dt)
    with pytest.raises(OverflowError):
        eltwise.add(a, int(ii.max) + 1)
    with pytest.raises(OverflowError):
        eltwise.multiply(int(ii.min) - 1, a)


# --- keywords ----------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_OPS)
def test_signature(name):
    f = getattr(eltwise, name)
    a = np.array([1, 2, 3], np.int32)
    b = np.array([1, 1, 2], np.int32)
    with pytest.raises(TypeError):
        f(a)
    with pytest.raises(TypeError):
        f()
    with pytest.raises(TypeError):
        f(x1=a, x2=b)
    with pytest.raises(TypeError):
        f(a, x2=b)
    with pytest.raises(TypeError):
        f(a, b, None, "numpy")  # broadcast is keyword-only
    with pytest.raises(TypeError):
        f(a, b, bogus=1)
    with pytest.raises(TypeError):
        f(a, b, casting="unsafe")
    if name != "divide":
        with pytest.raises(TypeError):
            f(a, b, pythondiv=True)
        with pytest.raises(TypeError):
            f(a, b, pythondiv=False)
    else:
        f(a, b, pythondiv=False)
    # all keywords together
    got = f(a, b, out=None, broadcast="numpy", axis=-1, dtype=None)
    assert_same(got, reference(name, a, b))


def test_elementwise_signature():
    a = np.array([1, 2, 3], np.int32)
    with pytest.raises(TypeError):
        eltwise.elementwise(a, a)
    with pytest.raises(TypeError):
        eltwise.elementwise(a, a, op="SUM")
    with pytest.raises(TypeError):
        eltwise.elementwise(a, a, "SUM", bogus=1)
    for op in ("SUM", "PROD", "MAX", "MIN", "SUB", "POW", "AND", "OR", "XOR", "EQUAL",
               "GREATER", "LESS", "add", "mod", "fmod", "power", "squared_difference",
               eltwise.Op.SUM, eltwise.Op.EQUAL):
        with pytest.raises(TypeError):
            eltwise.elementwise(a, a, op, pythondiv=True)
    for op in ("DIV", "div", "divide", "DIVIDE", eltwise.Op.DIV):
        got = eltwise.elementwise(np.array([-3]), np.array([2]), op, pythondiv=False)
        assert got.tolist() == [-1]
        got = eltwise.elementwise(np.array([-3]), np.array([2]), op, pythondiv=True)
        assert got.tolist() == [-2]


@pytest.mark.parametrize("bad", ["nope", "", "SUMM", "ADD_", "POWER2", "true_divide_"])
def test_elementwise_unknown_op(bad):
    with pytest.raises(ValueError):
        eltwise.elementwise(np.ones(3), np.ones(3), bad)


@pytest.mark.parametrize("bad", [None, 3.5, [1]])
def test_elementwise_op_wrong_type(bad):
    with pytest.raises((TypeError, ValueError)):
        eltwise.elementwise(np.ones(3), np.ones(3), bad)


@pytest.mark.parametrize("bad", [1.5, "0", None])
def test_axis_wrong_type(bad):
    with pytest.raises((TypeError, ValueError)):
        eltwise.add(np.ones((2, 3)), np.ones(3), broadcast="pdpd", axis=bad)


@pytest.mark.parametrize("bad", [3, 1.0, ["numpy"]])
def test_broadcast_wrong_type(bad):
    with pytest.raises((TypeError, ValueError)):
        eltwise.add(np.ones(3), np.ones(3), broadcast=bad)


def test_ragged_list():
    with pytest.raises((ValueError, TypeError)):
        eltwise.add([[1, 2], [3]], [1, 2])
