"""Broadcast modes (docs/semantics.md: "Broadcasting"): numpy (default), none/explicit, pdpd with axis."""

import re

import numpy as np
import pytest

import eltwise
from ew_helpers import (
    ALL_OPS, BF16, assert_same, dtype_id, numpy_broadcast_error, pdpd_view_shape, random_values,
    reference, shape_regex,
)

NUMPY_OK = [
    ((8, 1, 6, 1), (7, 1, 5)),
    ((2, 3), (3,)),
    ((2, 3), (1, 3)),
    ((2, 3), (2, 1)),
    ((5,), ()),
    ((), (4, 2)),
    ((), ()),
    ((1,), (7,)),
    ((0,), (1,)),
    ((0, 3), (3,)),
    ((1, 0), (5, 1)),
    ((2, 1, 3, 1, 4), (5, 1, 1, 4)),
    ((1, 1, 1, 1, 1, 1, 1, 1, 1, 2), (3, 1, 1, 1, 1, 1, 1, 1, 1)),
    ((4, 1), (1, 300)),
]

NUMPY_BAD = [
    ((2, 3), (2,)),
    ((8, 1, 6, 1), (7, 2, 5)),
    ((3,), (4,)),
    ((0,), (2,)),
    ((2, 3, 4), (3, 5)),
    ((1, 2, 3), (4, 3, 3)),
]

MODES = ["numpy", "NUMPY", "Numpy", eltwise.Broadcast.NUMPY]


@pytest.mark.parametrize("s1,s2", NUMPY_OK)
def test_numpy_broadcast(s1, s2, target):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(s1).astype(np.float32)
    b = rng.standard_normal(s2).astype(np.float32)
    exp_shape = np.broadcast_shapes(s1, s2)
    for mode in MODES:
        for name in ("add", "divide", "maximum", "less"):
            got = getattr(eltwise, name)(a, b, broadcast=mode)
            assert np.shape(got) == exp_shape
            assert_same(got, reference(name, a, b))
    assert_same(eltwise.add(a, b), reference("add", a, b))


@pytest.mark.parametrize("s1,s2", NUMPY_BAD)
def test_numpy_broadcast_error_text(s1, s2):
    """The error text is NumPy's, exactly."""
    a, b = np.ones(s1), np.ones(s2)
    msg = numpy_broadcast_error(s1, s2)
    for mode in ("numpy", eltwise.Broadcast.NUMPY, None):
        kw = {} if mode is None else {"broadcast": mode}
        with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
            eltwise.add(a, b, **kw)
        with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
            eltwise.divide(a, b, **kw)


def test_numpy_error_example_from_spec():
    with pytest.raises(ValueError, match=re.escape("operands could not be broadcast together with shapes (2,3) (2,) ")):
        eltwise.add(np.ones((2, 3)), np.ones(2))


@pytest.mark.parametrize("mode", ["none", "NONE", "None", "explicit", "EXPLICIT",
                                  eltwise.Broadcast.NONE])
def test_none_mode(mode, target):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    assert_same(eltwise.add(a, b, broadcast=mode), a + b)
    assert_same(eltwise.subtract(a.T, b.T, broadcast=mode), np.ascontiguousarray(a.T - b.T))
    z = np.float32(2)
    assert_same(eltwise.multiply(np.float32(3), z, broadcast=mode), np.float32(6))
    assert_same(eltwise.add(a[:0], b[:0], broadcast=mode), a[:0] + b[:0])
    for s1, s2 in [((4, 5), (5,)), ((4, 5), (1, 5)), ((4, 5), (4, 1)), ((4, 5), ()),
                   ((1,), (4,)), ((2, 3), (3, 2))]:
        x, y = np.ones(s1, np.float32), np.ones(s2, np.float32)
        for p, q in ((x, y), (y, x)):
            with pytest.raises(ValueError) as ei:
                eltwise.add(p, q, broadcast=mode)
            text = str(ei.value)
            assert re.search(shape_regex(p.shape), text), text
            assert re.search(shape_regex(q.shape), text), text


def test_none_mode_python_scalars():
    """Two Python scalars have identical (empty) shapes."""
    assert eltwise.add(1, 2, broadcast="none") == 3
    with pytest.raises(ValueError):
        eltwise.add(np.ones(3), 1.0, broadcast="none")


# --- pdpd ---------------------------------------------------------------------

PDPD_OK = [  # OpenVINO's examples, all giving (2,3,4,5)
    ((3, 4), 1),
    ((3, 1), 1),
    ((4, 5), -1),
    ((4, 5), 2),
    ((1, 3), 0),
    ((), -1),
    ((5,), -1),
    ((5,), 3),
]


@pytest.mark.parametrize("x2_shape,axis", PDPD_OK)
@pytest.mark.parametrize("mode", ["pdpd", "PDPD", "PdPd", eltwise.Broadcast.PDPD])
def test_pdpd_openvino_examples(x2_shape, axis, mode, target):
    rng = np.random.default_rng(2)
    x1 = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    x2 = (rng.standard_normal(x2_shape) + 3).astype(np.float32)
    view = pdpd_view_shape(x1.shape, x2_shape, axis)
    assert isinstance(view, tuple), view
    x2r = x2.reshape(view)
    for name in ("add", "subtract", "divide", "power", "maximum", "greater"):
        got = getattr(eltwise, name)(x1, x2, broadcast=mode, axis=axis)
        assert np.shape(got) == (2, 3, 4, 5)
        assert_same(got, reference(name, x1, x2r), ulp=1 if name == "power" else 0)


def test_pdpd_default_axis_is_minus_one():
    x1 = np.arange(120, dtype=np.int32).reshape(2, 3, 4, 5)
    x2 = np.arange(20, dtype=np.int32).reshape(4, 5)
    assert_same(eltwise.add(x1, x2, broadcast="pdpd"), x1 + x2)
    x2 = np.arange(3, dtype=np.int32).reshape(3, 1)
    # axis=1 gives (1,3,1,1)
    assert_same(eltwise.add(x1, x2, broadcast="pdpd", axis=1), x1 + x2.reshape(1, 3, 1, 1))


def test_pdpd_result_has_x1_shape_even_for_equal_ranks():
    x1 = np.ones((2, 3, 4), np.float64)
    x2 = np.full((2, 1, 4), 2.0)
    assert_same(eltwise.multiply(x1, x2, broadcast="pdpd"), x1 * x2)
    x2 = np.full((1, 1, 1), 2.0)
    assert_same(eltwise.multiply(x1, x2, broadcast="pdpd"), x1 * x2)


def test_pdpd_scalar_operands():
    assert_same(eltwise.add(np.ones((2, 3)), 5.0, broadcast="pdpd"), np.full((2, 3), 6.0))
    assert_same(eltwise.add(np.ones((2, 3)), np.array(5.0), broadcast="pdpd"), np.full((2, 3), 6.0))
    got = eltwise.add(np.array(1.0), np.array(5.0), broadcast="pdpd")
    assert got == 6.0


def test_pdpd_trailing_ones_dropped_then_placed():
    x1 = np.zeros((2, 3, 4, 5), np.int64)
    x2 = np.arange(3, dtype=np.int64).reshape(3, 1, 1)
    got = eltwise.add(x1, x2, broadcast="pdpd", axis=1)
    assert_same(got, x1 + np.arange(3).reshape(1, 3, 1, 1))
    # (1, 1) onto a rank-2 x1 with the default axis: dropped to (), fits anywhere
    got = eltwise.add(np.zeros((2, 3)), np.full((1, 1), 7.0), broadcast="pdpd")
    assert_same(got, np.full((2, 3), 7.0))


PDPD_BAD = [
    # (x1 shape, x2 shape, axis)
    ((8, 1, 6, 1), (7, 1, 5), 1),        # docs/semantics.md's example: x1 is never broadcast
    ((2, 3, 4, 5), (3, 1), -1),          # docs/semantics.md's example: axis computed before dropping
    ((2, 3, 4, 5), (3,), -1),
    ((2, 3, 4, 5), (6,), 0),
    ((2, 3, 4, 5), (4, 5), 3),           # does not fit: axis + rank > rank(x1)
    ((2, 3, 4, 5), (4, 5), 5),
    ((2, 3, 4, 5), (3, 4), -2),          # negative axis other than -1
    ((2, 3), (1, 2, 3), -1),             # rank(x2) > rank(x1)
    ((5,), (1, 1), -1),                  # rank(x2) > rank(x1) (step 1 comes first)
    ((2, 1), (2, 3), -1),                # x1 is never broadcast
    ((), (3,), -1),
]


@pytest.mark.parametrize("s1,s2,axis", PDPD_BAD)
def test_pdpd_errors(s1, s2, axis):
    x1, x2 = np.ones(s1, np.float32), np.ones(s2, np.float32)
    out = np.full(s1, 42.0, np.float32)
    with pytest.raises(ValueError) as ei:
        eltwise.add(x1, x2, out=out, broadcast="pdpd", axis=axis)
    text = str(ei.value)
    assert re.search(shape_regex(s1), text), text
    assert re.search(shape_regex(s2), text), text
    assert "axis" in text.lower(), text
    assert (out == 42.0).all()
    with pytest.raises(ValueError):
        eltwise.elementwise(x1, x2, "SUM", broadcast="pdpd", axis=axis)


@pytest.mark.parametrize("mode", ["numpy", "none", "explicit", eltwise.Broadcast.NUMPY,
                                  eltwise.Broadcast.NONE])
def test_axis_without_pdpd_is_error(mode):
    a = np.ones((2, 3))
    with pytest.raises(ValueError):
        eltwise.add(a, a, broadcast=mode, axis=0)
    with pytest.raises(ValueError):
        eltwise.add(a, a, broadcast=mode, axis=1)
    # axis=-1 (the default) is fine
    assert_same(eltwise.add(a, a, broadcast=mode, axis=-1), a + a)


def test_axis_default_only_without_pdpd():
    a = np.ones((2, 3))
    with pytest.raises(ValueError):
        eltwise.divide(a, a, axis=0)


@pytest.mark.parametrize("bad", ["bidirectional", "", "numpy ", "pdp", "np"])
def test_unknown_broadcast_mode(bad):
    a = np.ones(3)
    with pytest.raises(ValueError):
        eltwise.add(a, a, broadcast=bad)


def test_broadcast_enum_members():
    assert {m.name for m in eltwise.Broadcast} >= {"NONE", "NUMPY", "PDPD"}


@pytest.mark.parametrize("name", ALL_OPS)
def test_every_op_accepts_every_mode(name):
    x1 = np.arange(1, 25, dtype=np.int32).reshape(2, 3, 4)
    x2 = np.arange(1, 4, dtype=np.int32).reshape(3, 1)
    got = getattr(eltwise, name)(x1, x2, broadcast="pdpd", axis=1)
    assert_same(got, reference(name, x1, x2.reshape(1, 3, 1)))
    got = getattr(eltwise, name)(x1, x1, broadcast="none")
    assert_same(got, reference(name, x1, x1))
    got = getattr(eltwise, name)(x1, x2.reshape(3, 1), broadcast="numpy")
    assert_same(got, reference(name, x1, x2.reshape(3, 1)))


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.float16),
                                   np.dtype(np.int64)], ids=dtype_id)
@pytest.mark.parametrize("shape", [(5000, 3), (4097, 1), (3001, 7), (900, 511), (20, 3),
                                   (13, 1000), (9, 2048), (7, 2049)])
def test_short_rows_against_a_repeated_row(dtype, shape, target, rng):
    """(N, n) with (n,), n up to 2048: the executor tiles the repeated row so that kernels see
    long runs; leftover rows go the ordinary way (and rows of 2049 go one call each). Either
    operand may be the row, and out may be the array operand itself."""
    a = random_values(dtype, int(np.prod(shape)), rng).reshape(shape)
    row = random_values(dtype, shape[1], rng)
    row[row == 0] = 1
    a[a == 0] = 1  # both sides divide
    for name in ("subtract", "divide", "maximum", "less"):
        if name == "subtract" and dtype.kind == "b":
            continue
        assert_same(getattr(eltwise, name)(a, row), reference(name, a, row), inputs=(a, row))
        assert_same(getattr(eltwise, name)(row, a), reference(name, row, a), inputs=(row, a))
    expected = reference("add", a, row)
    got = eltwise.add(a, row, out=a)
    assert got is a
    assert_same(a, expected)


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.float16),
                                   np.dtype(np.int64), np.dtype(np.uint16), BF16], ids=dtype_id)
@pytest.mark.parametrize("shape", [(5000, 2), (4097, 3), (3001, 7), (900, 511), (20, 3),
                                   (50_000, 2)])
def test_short_rows_against_a_column(dtype, shape, target, rng):
    """(N, short) with (N, 1): the executor repeats the column's values into blocks so that
    kernels see long runs, on every thread (the last shape splits across the pool). Either
    operand may be the column, the column may be a strided view, and out may be the array
    operand itself."""
    a = random_values(dtype, int(np.prod(shape)), rng).reshape(shape)
    column = random_values(dtype, 2 * shape[0], rng).reshape(shape[0], 2)[:, :1]  # strided
    column[column == 0] = 1
    a[a == 0] = 1  # both sides divide
    for name in ("subtract", "divide", "maximum", "less", "mod"):
        assert_same(getattr(eltwise, name)(a, column), reference(name, a, column),
                    inputs=(a, column))
        assert_same(getattr(eltwise, name)(column, a), reference(name, column, a),
                    inputs=(column, a))
    expected = reference("multiply", a, column)
    got = eltwise.multiply(a, column, out=a)
    assert got is a
    assert_same(a, expected)


def test_short_rows_against_a_column_report_division_by_zero(target):
    """A zero in the repeated column is still a division by zero (integers: result 0)."""
    a = np.arange(1, 4097 * 3 + 1, dtype=np.int32).reshape(4097, 3)
    column = np.ones((4097, 1), np.int32)
    column[4000] = 0
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        eltwise.floor_divide(a, column)
    with np.errstate(divide="ignore"):
        got = eltwise.floor_divide(a, column)
        assert_same(got, np.floor_divide(a, column))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.int64)],
                         ids=dtype_id)
def test_rows_over_several_outer_dims(dtype, threads, target, rng):
    """Rows whose index runs over several outer dims (the executor steps it from row to row
    and unravels it where a thread's share begins): broadcast, reversed and transposed
    operands, a long row cut into chunks across threads, against NumPy."""
    eltwise.set_num_threads(threads)
    a = random_values(dtype, 3 * 5 * 7 * 600, rng).reshape(3, 5, 7, 600)
    b = random_values(dtype, 5 * 600, rng).reshape(5, 1, 600)
    b[b == 0] = 1
    c = random_values(dtype, 7 * 600, rng).reshape(7, 1, 600)
    c[c == 0] = 1
    cases = [(a, b), (a[::-1, :, :, ::-2], b[:, :, ::-2]), (a.transpose(0, 2, 1, 3), c[::-1]),
             (a[:, 1:4, :, :513], b[1:4, :, :513])]
    long_a = random_values(dtype, 2 * 3 * 200_000, rng).reshape(2, 3, 200_000)
    long_b = random_values(dtype, 3 * 200_000, rng).reshape(3, 200_000)
    long_b[long_b == 0] = 1
    cases.append((long_a, long_b))
    for x, y in cases:
        for name in ("add", "maximum", "divide"):
            assert_same(getattr(eltwise, name)(x, y), reference(name, x, y), inputs=(x, y))
