"""Divergences from NumPy that NumPy's own ufunc tests and a fuzzing run found, now gone
(docs/semantics.md: "Comparisons with Python ints", "Reductions of the twins",
"Delegation"). Each is checked through both doors: the fast functions and the twins."""

from __future__ import annotations

import pickle

import ml_dtypes
import numpy as np
import numpy.ma as ma
import pytest

import eltwise
from ew_helpers import COMPARISON_OPS, INTEGER_DTYPES

DOORS = [pytest.param(eltwise, id="fast"), pytest.param(eltwise.ufunc, id="twin")]


def python_ints_around(dt):
    info = np.iinfo(dt)
    return sorted({info.min - 1, info.min, info.max, info.max + 1, -1, 0, 1,
                   -(2**63) - 1, -(2**63), 2**63 - 1, 2**63, 2**64 - 1, 2**64,
                   -(2**100), 2**100})


# -- 1. Comparisons with Python ints outside the array's range -------------------------

@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("op", COMPARISON_OPS)
@pytest.mark.parametrize("dt", INTEGER_DTYPES, ids=str)
def test_compare_with_any_python_int(door, op, dt, target):
    info = np.iinfo(dt)
    x = np.array([info.min, info.min + 1, -1 if info.min else 0, 0, 1, info.max - 1, info.max],
                 dtype=dt)
    for v in python_ints_around(dt):
        for args in ((x, v), (v, x), (x[::-2], v), (x[3], v), (v, dt.type(info.max))):
            want = getattr(np, op)(*args)
            got = getattr(door, op)(*args)
            assert type(got) is type(want), (op, dt, v)
            np.testing.assert_array_equal(got, want, err_msg=f"{op}{args}")
            assert np.asarray(got).dtype == bool


@pytest.mark.parametrize("door", DOORS)
def test_issue_examples(door):
    assert door.less(np.array([255], np.uint8), -1).tolist() == [False]
    assert door.equal(np.array([3], np.int8), 1000).tolist() == [False]
    assert door.less(np.array([3], np.int64), 2**63).tolist() == [True]
    assert door.greater_equal(np.uint8(255), -1) == np.True_
    assert door.less(3, -(2**100)) == np.False_
    assert door.equal(2**200, 2**200) == np.True_


@pytest.mark.parametrize("door", DOORS)
def test_out_of_range_compare_into_out_and_empty(door):
    x = np.arange(-3, 3, dtype=np.int8).reshape(2, 3)
    out = np.zeros((2, 3), bool)
    assert door.not_equal(x, 300, out=out) is out and out.all()
    empty = door.less(np.zeros((0, 4), np.uint16), -5)
    assert empty.shape == (0, 4) and empty.dtype == bool


def test_twin_compares_integer_with_object_elements():
    # The (integer, object) loop compares each pair as Python does, as NumPy's object loop.
    x = np.array([1, 200, 3], np.uint8)
    objs = np.array([1, -5, 2**70], dtype=object)
    np.testing.assert_array_equal(eltwise.ufunc.less(x, objs), np.less(x, objs))
    np.testing.assert_array_equal(eltwise.ufunc.equal(objs, x), np.equal(objs, x))
    for dt in ("int8", "int16", "int32", "int64", "uint64"):
        info = np.iinfo(dt)
        y = np.array([info.min, -1 if info.min else 0, info.max], dt)
        objs = np.array([info.min, 0, 2**70], dtype=object)
        for op in COMPARISON_OPS:
            np.testing.assert_array_equal(getattr(eltwise.ufunc, op)(y, objs),
                                          getattr(np, op)(y, objs))
            np.testing.assert_array_equal(getattr(eltwise.ufunc, op)(objs[::-1], y),
                                          getattr(np, op)(objs[::-1], y))


def test_bool_with_int_beyond_int64_is_numpys_overflow_error():
    # NumPy compares exactly for integer dtypes only; bool with 2**63 stays an error there.
    for door in (np, eltwise, eltwise.ufunc):
        with pytest.raises(OverflowError):
            door.less(np.array([True]), 2**63)


# -- 2. The twins' names --------------------------------------------------------------

def test_twins_have_qualname_and_numpy_names():
    for name in eltwise.ufunc.__all__:
        twin = getattr(eltwise.ufunc, name)
        assert twin.__qualname__ == twin.__name__
    assert eltwise.ufunc.remainder.__name__ == "remainder"
    assert eltwise.ufunc.mod is eltwise.ufunc.remainder
    assert pickle.loads(pickle.dumps(eltwise.ufunc.remainder)) is eltwise.ufunc.remainder


def test_masked_binary_operation_wraps_a_twin():
    op = ma.core._MaskedBinaryOperation(eltwise.ufunc.add)
    a = ma.array([1.0, 2.0, 3.0], mask=[False, True, False])
    r = op(a, a)
    assert r.mask.tolist() == [False, True, False] and r[0] == 2.0 and r[2] == 6.0


# -- 3. Half-precision reductions accumulate in float32 ---------------------------------

@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide"])
@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 5, 8, 9, 127, 128, 129, 300, 4096, 10001])
def test_float_reduce_is_numpys_bits(op, dt, n, target):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 3).astype(dt)
    if op in ("multiply", "divide"):
        x = (1 + rng.standard_normal(n) / 50).astype(dt)
    twin, ref = getattr(eltwise.ufunc, op), getattr(np, op)
    for y in (x, x[::-1], x[::3]):
        if n == 0 and op in ("subtract", "divide"):
            continue  # no identity: both raise
        want, got = ref.reduce(y), twin.reduce(y)
        assert got.dtype == want.dtype
        assert got.tobytes() == want.tobytes(), (op, dt, n, got, want)
    if n >= 2:
        m = x[: n - n % 2].reshape(2, -1)
        assert twin.reduce(m, axis=1).tobytes() == ref.reduce(m, axis=1).tobytes()


def test_issue_float16_sums():
    assert eltwise.ufunc.add.reduce(np.ones(4096, np.float16)) == 4096.0
    assert eltwise.ufunc.add.reduce(np.full(3000, 0.1, np.float16)) == np.add.reduce(
        np.full(3000, 0.1, np.float16))
    x = np.full(100, 1.01, np.float16)
    assert eltwise.ufunc.multiply.reduce(x).tobytes() == np.multiply.reduce(x).tobytes()
    assert np.sum(np.zeros(5, np.float16) - 0.0, dtype=np.float16) == 0


def test_negative_zero_sums_stay_negative():
    z = np.full(5, -0.0, np.float32)
    assert np.signbit(eltwise.ufunc.add.reduce(z)) == np.signbit(np.add.reduce(z))


@pytest.mark.parametrize("op", ["add", "multiply"])
def test_bfloat16_reduce_accumulates_in_float32(op, target):
    # docs/semantics.md: float32 accumulation, rounded once (ml_dtypes' own loop
    # accumulates in bfloat16: 256 + 1 == 256 there).
    bf16 = ml_dtypes.bfloat16
    x = np.ones(4096, bf16) if op == "add" else np.full(100, 1.01, bf16)
    want = (np.add if op == "add" else np.multiply).reduce(x.astype(np.float32))
    if op == "add":
        assert eltwise.ufunc.add.reduce(x) == 4096
    else:
        acc = np.float32(1)
        for v in x.astype(np.float32):
            acc = np.float32(acc * v)
        want = acc
    assert eltwise.ufunc.__dict__[op].reduce(x) == want.astype(bf16)


def test_float_reduce_sets_no_fp_flags():
    with np.errstate(all="raise"):
        assert np.isinf(eltwise.ufunc.add.reduce(np.full(10, 6e4, np.float16)))
        assert np.isnan(eltwise.ufunc.add.reduce(np.array([np.inf, -np.inf], np.float32)))


# -- 6. Logical reductions of non-bool input --------------------------------------------

@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dt", ["int8", "uint16", "int64", "float32", "float64"])
def test_logical_reduce_accumulate_reduceat(name, dt):
    x = np.array([5, 0, 3, 0, 0, 7, 2], dtype=dt)
    twin, ref = getattr(eltwise.ufunc, name), getattr(np, name)
    for method, args in (("reduce", ()), ("accumulate", ()), ("reduceat", ([0, 2, 5],))):
        got = getattr(twin, method)(x, *args)
        want = getattr(ref, method)(x, *args)
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == bool
    m = x[:6].reshape(2, 3)
    np.testing.assert_array_equal(twin.reduce(m, axis=0), ref.reduce(m, axis=0))
    # Element-wise calls keep their own loops, same answers.
    np.testing.assert_array_equal(twin(x, x[::-1]), ref(x, x[::-1]))


# -- 4, 5. pdpd delegation with duck arrays ---------------------------------------------

@pytest.mark.filterwarnings("ignore:the matrix subclass is not:PendingDeprecationWarning")
def test_pdpd_with_matrix_x2_broadcasts_at_axis():
    x1 = np.arange(9.0).reshape(1, 3, 3) * 10
    got = eltwise.add(x1, np.matrix([[1.0, 2.0, 3.0]]), broadcast="pdpd", axis=0)
    want = eltwise.add(x1, np.array([[1.0, 2.0, 3.0]]), broadcast="pdpd", axis=0)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, want)
    assert got[0, 0, 1] == 11 and got[0, 1, 0] == 32  # x2 runs along axis 1


class Duck:
    """A minimal duck array: __array_ufunc__ unwraps, computes, wraps."""

    def __init__(self, a):
        self.a = np.asarray(a)

    shape = property(lambda self: self.a.shape)
    dtype = property(lambda self: self.a.dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        inputs = [i.a if isinstance(i, Duck) else i for i in inputs]
        return Duck(getattr(ufunc, method)(*inputs, **kwargs))


class DuckWithReshape(Duck):
    def reshape(self, shape):
        return DuckWithReshape(self.a.reshape(shape))


class LyingDuck(Duck):
    def reshape(self, shape):
        return LyingDuck(self.a.reshape(-1))


def test_pdpd_duck_without_reshape_is_a_clear_type_error():
    x1 = np.zeros((2, 3, 4))
    with pytest.raises(TypeError, match=r"eltwise\.add: broadcast='pdpd'.*no reshape method"):
        eltwise.add(x1, Duck(np.ones(3)), broadcast="pdpd", axis=1)
    # numpy broadcasting needs no reshape: the duck's __array_ufunc__ runs.
    r = eltwise.add(x1, Duck(np.ones(4)))
    assert isinstance(r, Duck) and r.a.shape == (2, 3, 4)


def test_pdpd_duck_that_needs_no_reshape_is_not_reshaped():
    x1 = np.zeros((2, 3, 4))
    for x2 in (Duck(np.float64(2.0)), Duck(np.ones(4)), Duck(np.ones((1, 4)))):
        r = eltwise.add(x1, x2, broadcast="pdpd")
        assert isinstance(r, Duck)
        np.testing.assert_array_equal(r.a, x1 + x2.a)


def test_pdpd_duck_reshape_checked():
    x1 = np.zeros((2, 3, 4))
    r = eltwise.add(x1, DuckWithReshape(np.arange(3.0)), broadcast="pdpd", axis=1)
    assert isinstance(r, Duck)
    np.testing.assert_array_equal(r.a, x1 + np.arange(3.0).reshape(3, 1))
    with pytest.raises(TypeError, match=r"returned shape \(3,\)"):
        eltwise.add(x1, LyingDuck(np.arange(3.0)), broadcast="pdpd", axis=1)


# -- 7. A shape list that changes while it is read ---------------------------------------

def test_shape_list_cleared_by_index_does_not_crash():
    shape = []

    class Evil:
        def __index__(self):
            shape.clear()
            return 3

    shape.extend([Evil(), Evil(), Evil()])
    r = eltwise._eltwise._numpy_shape_for_x2("add", "pdpd", (3, 3, 3), shape, -1)
    assert tuple(r) in ((3, 3, 3),)  # read from a snapshot of the list
    with pytest.raises(TypeError, match="shape must be a sequence"):
        eltwise._eltwise._numpy_shape_for_x2("add", "pdpd", (3,), 5, -1)


# -- 8. Casting errors name the rule asked for --------------------------------------------

@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_twin_casting_error_names_the_rule(casting):
    bf16 = ml_dtypes.bfloat16
    with pytest.raises(TypeError, match=f"casting rule '{casting}'"):
        eltwise.ufunc.add(np.array(["a"]), np.array(["b"]), signature=(bf16, bf16, bf16),
                          casting=casting)


def test_equal_docstring_says_exact():
    assert "2**53" not in eltwise.equal.__doc__
