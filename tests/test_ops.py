"""Every op x every dtype x every SIMD target, against NumPy (bit-exact).

Lengths 1, 7, 33 and 257 exercise the SIMD bodies and tails; every inner-loop kind
(contiguous/contiguous, scalar/contiguous, contiguous/scalar, strided) is used.
"""

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

import eltwise
from ew_helpers import (
    ALL_DTYPES, ALL_OPS, BF16, BITWISE_OPS, BOOL_RESULT_OPS, COMPARISON_OPS, FLOAT_DTYPES,
    HALF_DTYPES, INT_DIV_OPS, INTEGER_DTYPES, LOGICAL_OPS, NO_BOOL_OPS, assert_same,
    at_line_offset, dtype_id, edge_values, expected_error, is_float, is_int, operands,
    c99_pow_special, power_exponents, random_values, reference, result_dtype, ulp_for,
    value_pool,
)

LENGTHS = [1, 7, 33, 257]


def call(name, x1, x2, **kw):
    # Integer division by zero is reported (tested in test_divide.py); silence it here.
    with np.errstate(divide="ignore"):
        return getattr(eltwise, name)(x1, x2, **kw)


def check(name, x1, x2, **kw):
    rt = result_dtype(x1, x2, kw.get("dtype"))
    exp_err = expected_error(name, rt)
    if exp_err is not None:
        with pytest.raises(exp_err):
            call(name, x1, x2, **kw)
        return
    got = call(name, x1, x2, **kw)
    exp = reference(name, x1, x2, **kw)
    assert_same(got, exp, ulp=ulp_for(name, rt), inputs=(x1, x2))


def layouts(a, b):
    """(label, x1, x2) for every inner-loop kind."""
    n = len(a)
    a2 = np.empty(2 * n, a.dtype)
    a2[::2] = a
    b3 = np.empty(3 * n, b.dtype)
    b3[::3] = b
    yield "contig", a, b
    yield "scalar-left", a[:1], b
    yield "scalar-right", a, b[:1]
    yield "numpy-scalar-left", a[0], b
    yield "numpy-scalar-right", a, b[-1]
    yield "strided", a2[::2], b3[::3]
    b2 = np.empty(2 * n, b.dtype)
    b2[::2] = b
    yield "every-other", a2[::2], b2[::2]
    yield "strided-scalar", a2[::2], b[:1]
    yield "scalar-strided", a[:1], b3[::3]
    yield "reversed", a[::-1], b
    yield "zero-stride", np.broadcast_to(a[:1], (n,)), b[::-1]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ALL_OPS)
def test_op_dtype_target(name, dtype, target, rng):
    a, b = operands(name, dtype, kind="grid")
    check(name, a, b)
    if expected_error(name, dtype) is not None:
        return
    for n in LENGTHS:
        a, b = operands(name, dtype, n, rng)
        for label, x1, x2 in layouts(a, b):
            try:
                check(name, x1, x2)
            except Exception as e:
                raise AssertionError(f"{name} {dtype} n={n} layout={label} target={target}: "
                                     f"{type(e).__name__}: {e}") from e


def _at_offset(x, k):
    """A copy of 1-d x that starts k elements past a 64-byte boundary."""
    y = at_line_offset(x.size, x.dtype, k * x.itemsize)
    y[...] = x
    return y


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16,
                                   BF16, np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("name", ["add", "multiply", "divide", "power", "less", "maximum",
                                  "floor_divide"])
def test_long_runs_at_every_offset(name, dtype, target, rng):
    """Runs of 64 vectors and more align their first operand's loads by a head (or, past
    8 MiB, the result's stores: src/kernels/loops-inl.h), wherever the operands and the
    result lie relative to 64-byte lines: every offset of each, both scalar kinds, in
    place too, give the same elements as NumPy's."""
    if expected_error(name, dtype) is not None:
        return
    n = 64 * 64 + 77  # past 64 vectors of 1-byte lanes on AVX-512
    a, b = operands(name, dtype, n, rng)
    want = reference(name, a, b)
    for ka, kb, ko in [(0, 0, 0), (1, 0, 0), (0, 3, 0), (3, 3, 1), (2, 5, 7), (7, 1, 0)]:
        x1, x2 = _at_offset(a, ka), _at_offset(b, kb)
        out = _at_offset(np.zeros_like(want), ko)
        assert call(name, x1, x2, out=out) is out
        assert_same(out, want, ulp=ulp_for(name, want.dtype), inputs=(x1, x2))
        assert_same(call(name, x1[:1], x2), reference(name, a[:1], b),
                    ulp=ulp_for(name, want.dtype), inputs=(x1[:1], x2))
        assert_same(call(name, x1, x2[:1]), reference(name, a, b[:1]),
                    ulp=ulp_for(name, want.dtype), inputs=(x1, x2[:1]))
    if want.dtype == a.dtype and name != "power":
        x1 = _at_offset(a, 3)
        call(name, x1, _at_offset(b, 1), out=x1)  # in place
        assert_same(x1, want, ulp=ulp_for(name, want.dtype), inputs=(a, b))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ALL_OPS)
def test_layouts(name, dtype, rng):
    """Transposed, 2-d strided, negative strides, 0-d, empty, byte-swapped, unaligned,
    Fortran order, Python scalars and lists."""
    if expected_error(name, dtype) is not None:
        a, b = operands("add", dtype, 4, rng)
        with pytest.raises(TypeError):
            call(name, a, b)
        return
    a, b = operands(name, dtype, 60, rng)
    A, B = a.reshape(6, 10), b.reshape(6, 10)
    cases = [
        ("transposed", A.T, B.T),
        ("transposed-vs-contig", A.T, np.ascontiguousarray(B.T)),
        ("fortran", np.asfortranarray(A), B),
        ("2d-strided", A[::2, ::3], B[1::2, ::-3]),
        ("2d-negative", A[::-1, ::-1], B),
        ("col-broadcast", A, B[:, :1]),
        ("row-broadcast", A[:1, :], B),
        ("outer", a[:7, None], b[None, :9]),
        ("0d-0d", np.array(a[0]), np.array(b[0])),
        ("0d-array", np.array(a[0]), B),
        ("array-0d", A, np.array(b[0])),
        ("numpy-scalars", a[0], b[0]),
        ("empty", a[:0], b[:0]),
        ("empty-broadcast", A[:0], b[:10]),
        ("empty-3x0", np.ones((3, 0), dtype), np.ones((3, 0), dtype)),
        ("empty-1x0-vs-3x1", np.ones((1, 0), dtype), np.ones((3, 1), dtype)),
        ("3d", a.reshape(3, 4, 5), b.reshape(3, 4, 5)[:, ::-1, :]),
    ]
    if dtype.itemsize > 1 and dtype != BF16:
        sw = dtype.newbyteorder("S")
        cases.append(("byteswapped", a.astype(sw), b))
        cases.append(("byteswapped-both", a.astype(sw), b.astype(sw)))
    if dtype.itemsize > 1:
        buf = np.zeros(len(a) * dtype.itemsize + 1, np.uint8)
        ua = buf[1:].view(dtype)
        ua[...] = a
        assert not ua.flags.aligned
        cases.append(("unaligned", ua, b))
    for label, x1, x2 in cases:
        try:
            check(name, x1, x2)
        except Exception as e:
            raise AssertionError(f"{name} {dtype} layout={label}: {type(e).__name__}: {e}") from e


NARROW_DTYPES = [d for d in ALL_DTYPES if d.itemsize <= 2] + [np.dtype(np.float32),
                                                               np.dtype(np.int32)]


@pytest.mark.parametrize("dtype", NARROW_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ALL_OPS)
def test_transposed_operand_large(name, dtype, target, rng):
    """An operand read across the rows of a large result (a transposed matrix): 1-, 2-
    and 4-byte lanes run in groups of rows through a buffer transposed in 16-byte tiles
    (4-byte lanes only where a column's elements are adjacent, forwards or backwards).
    Groups, tiles and column blocks that do not divide the shape, negative strides, either
    operand, a broadcast column and out= against NumPy. Rows of at most one column block
    whose other operand and result lie row after row run a group as one call (rows of
    256; float power, heavy, takes groups for rows of any length: rows of 21)."""
    if expected_error(name, dtype) is not None:
        return
    a, b = operands(name, dtype, 601 * 70, rng)
    X, Y = a.reshape(601, 70), b.reshape(70, 601)
    cases = [
        ("a-transposed", X.T, Y),
        ("b-transposed", a.reshape(70, 601), b.reshape(601, 70).T),
        ("reversed", X.T[::-1, ::-1], Y[:, ::-1]),
        ("rows-reversed", X.T[::-1], Y),
        ("every-other-row", X.T[::2], Y[::2]),
        ("rows-cut", X.T[3:70], Y[:67]),
        ("column", X.T, Y[:, :1]),
        ("3d", X.T.reshape(7, 10, 601), Y.reshape(7, 10, 601)),
        ("rows-of-256", a[:70 * 256].reshape(256, 70).T, b[:70 * 256].reshape(70, 256)),
        ("rows-of-256-reversed", a[:70 * 256].reshape(256, 70).T[::-1],
         b[:70 * 256].reshape(70, 256)),
        ("rows-of-21", a[:21 * 601].reshape(21, 601).T, b[:21 * 601].reshape(601, 21)),
        ("rows-of-21-b", a[:21 * 601].reshape(601, 21), b[:21 * 601].reshape(21, 601).T[::-1]),
    ]
    for label, x1, x2 in cases:
        try:
            check(name, x1, x2)
        except Exception as e:
            raise AssertionError(f"{name} {dtype} {label} target={target}: "
                                 f"{type(e).__name__}: {e}") from e
    exp = reference(name, X.T, Y)
    out = np.empty_like(exp)
    assert call(name, X.T, Y, out=out) is out
    assert_same(out, exp, ulp=ulp_for(name, exp.dtype), inputs=(X.T, Y))


PY_SCALARS = [0, 1, -1, 3, 100, 2.5, -0.0, True, False, float("inf"), float("nan")]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ALL_OPS)
def test_python_scalars(name, dtype, rng):
    """Python scalars on either side are weak (NEP 50): the array's dtype wins."""
    a, _ = operands(name, dtype, 33, rng)
    a_nonneg = (a.astype(np.int64) % 50).astype(dtype) if is_int(dtype) else a
    for s in PY_SCALARS:
        if isinstance(s, float) and not is_float(dtype):
            continue  # int array with a Python float: see test_mixed_python_float
        if isinstance(s, float) and dtype == BF16:
            continue  # see test_bfloat16_with_python_scalar
        if isinstance(s, int) and not isinstance(s, bool):
            if dtype == np.bool_:
                continue  # bool array with a Python int -> int64: see below
            if is_int(dtype) and not np.iinfo(dtype).min <= s <= np.iinfo(dtype).max:
                continue
        if name == "power" and is_int(dtype) and s < 0:
            continue
        for x1, x2 in ((a, s), (s, a_nonneg if name == "power" else a)):
            rt = result_dtype(x1, x2)
            assert rt == dtype
            try:
                check(name, x1, x2)
            except AssertionError as e:
                raise AssertionError(f"{name}({x1!r:.60}, {x2!r:.60}): {e}") from None


@pytest.mark.parametrize("name", ALL_OPS)
def test_bool_with_python_int_and_lists(name):
    x = np.array([True, False, True])
    for x1, x2 in [(x, 2), (3, x), ([1, 2, 3], [4, 5, 6]), ([1.5, 2.0], [2, 4]), (x, [True, True, False]),
                   ([[1], [2]], [3, 4, 5])]:
        if name == "power" and not isinstance(x2, int) and np.any(np.asarray(x2) < 0):
            continue
        check(name, x1, x2)


@pytest.mark.parametrize("name", ALL_OPS)
def test_two_python_scalars(name):
    """Both operands scalars: a NumPy scalar comes back, dtype as numpy.result_type."""
    for x1, x2 in [(7, 2), (7.5, 2), (-7, 2.0), (True, 3), (3, True), (True, False),
                   (np.float32(3), 2), (np.int8(-5), 3), (np.uint8(250), 10)]:
        rt = result_dtype(x1, x2)
        if expected_error(name, rt):
            with pytest.raises(TypeError):
                call(name, x1, x2)
            continue
        got = call(name, x1, x2)
        assert isinstance(got, np.generic), (name, x1, x2, type(got))
        assert_same(got, reference(name, x1, x2))


@pytest.mark.parametrize("name", ALL_OPS)
def test_mixed_dtypes(name, rng):
    """Every pair of dtypes promotes as numpy.result_type (bfloat16 as ml_dtypes)."""
    n = 33
    for d1, d2 in itertools.product(ALL_DTYPES, repeat=2):
        a, _ = operands(name, d1, n, rng)
        b, _ = operands(name, d2, n, rng)
        try:
            rt = np.result_type(d1, d2)
        except TypeError:
            # no common dtype (bfloat16 with float16 or >8-bit integers, as ml_dtypes)
            with pytest.raises(TypeError):
                call(name, a, b)
            continue
        if name == "power" and is_int(rt):
            b = np.abs(b.astype(np.float64) % 17).astype(d2)
        if expected_error(name, rt):
            with pytest.raises(expected_error(name, rt)):
                call(name, a, b)
            continue
        try:
            check(name, a, b)
        except AssertionError as e:
            raise AssertionError(f"{name} {d1} with {d2} -> {rt}: {e}") from None


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ALL_OPS)
def test_mixed_python_float(name, dtype, rng):
    """An integer array with a Python float computes in float64 (NumPy 2)."""
    a, _ = operands("add", dtype, 20, rng)
    if name == "power":
        a = np.abs(a.astype(np.float64) % 9).astype(dtype)
    for x1, x2 in ((a, 2.5), (-1.5, a)):
        assert result_dtype(x1, x2) == np.float64
        check(name, x1, x2)


@pytest.mark.parametrize("name", ALL_OPS)
def test_int64_uint64_mixed(name):
    """int64 with uint64: numpy.result_type is float64; comparisons are exact in NumPy 2."""
    a = np.array([2**63 - 1, -1, 0, -(2**63), 5, 2**53 + 1], np.int64)
    b = np.array([2**63 - 1, 2**64 - 1, 0, 2**63, 5, 2**53], np.uint64)
    if name == "power":
        b = np.array([1, 2, 0, 3, 4, 1], np.uint64)
    check(name, a, b)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", BOOL_RESULT_OPS)
def test_bool_result_for_every_dtype(name, dtype, rng):
    a, b = operands(name, dtype, 40, rng)
    got = getattr(eltwise, name)(a, b)
    assert got.dtype == np.bool_
    assert_same(got, reference(name, a, b))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_nan_comparisons(dtype):
    nan = np.array([np.nan] * 3, dtype)
    x = np.array([np.nan, 1.0, np.inf], dtype)
    for name in COMPARISON_OPS:
        got = getattr(eltwise, name)(nan, x)
        want = name == "not_equal"
        assert got.tolist() == [want] * 3, name
        got = getattr(eltwise, name)(x, nan)
        assert got.tolist() == [want] * 3, name


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_logical_truthiness_of_floats(dtype, target):
    """NaN is truthy, -0.0 is falsy."""
    x = np.array([np.nan, -0.0, 0.0, np.inf, 1e-7, np.nan, -0.0], dtype)
    y = np.array([1.0, 1.0, 1.0, 0.0, -0.0, np.nan, -0.0], dtype)
    assert eltwise.logical_and(x, y).tolist() == [True, False, False, False, False, True, False]
    assert eltwise.logical_or(x, y).tolist() == [True, True, True, True, True, True, False]
    assert eltwise.logical_xor(x, y).tolist() == [False, True, True, True, True, False, False]


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_logical_python_scalar_truth(name, dtype):
    """A Python scalar's own truth, not its value cast to the array's dtype (1e-300 is 0 in
    float16, 300 is 44 in int8, -1 does not fit uint8), as NumPy's logical loops take it;
    a Python int beyond int64 is NumPy's OverflowError."""
    x = np.array([0, 1], dtype)
    for v in (1e-300, 1e-50, -1e-45, 0.0, -0.0, float("nan"), 300, -1, 256, 0, True, False,
              2**63 - 1, -(2**63)):
        for args in ((x, v), (v, x)):
            want = getattr(np, name)(x.astype(bool), bool(v))
            got = getattr(eltwise, name)(*args)
            assert got.dtype == np.bool_ and got.tolist() == want.tolist(), (v, args[0] is x)
    for v in (2**63, -(2**63) - 1, 2**70):
        with pytest.raises(OverflowError):
            getattr(eltwise, name)(x, v)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_max_min_nan_propagates(name, dtype, target):
    x = np.array([np.nan, 1.0, np.nan, -np.inf, np.nan] * 9, dtype)
    y = np.array([1.0, np.nan, np.nan, np.nan, -np.inf] * 9, dtype)
    got = getattr(eltwise, name)(x, y)
    assert np.isnan(got.astype(np.float32)).all()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_max_min_signed_zero_ties(name, dtype, target):
    """-0.0 vs 0.0 ties are bit-exact with NumPy (docs/semantics.md: "Exactness"): x2 wins for float32,
    float64 and bfloat16 (ml_dtypes), x1 for float16; every loop kind, every target."""
    tie_winner = 0 if dtype == np.float16 else 1
    for n in (1, 7, 33, 257):
        x = np.zeros(n, dtype)
        x[::2] = -0.0
        y = np.zeros(n, dtype)
        y[1::2] = -0.0
        for x1, x2 in [(x, y), (y, x), (x, dtype.type(0.0)), (x, dtype.type(-0.0)),
                       (dtype.type(0.0), x), (dtype.type(-0.0), x), (x[::2], y[::2]), (y[::2], x[::2])]:
            got = getattr(eltwise, name)(x1, x2)
            exp = reference(name, x1, x2)
            winner = np.broadcast_to(np.asarray((x1, x2)[tie_winner], dtype), np.shape(exp))
            assert np.signbit(got).tolist() == np.signbit(winner).tolist()
            assert_same(got, exp, inputs=(x1, x2))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=dtype_id)
def test_half_max_min_return_operand_bits(name, dtype, target):
    """float16 and bfloat16 maximum/minimum return one operand's bits unchanged, as NumPy's
    float16 loops and ml_dtypes' bfloat16 loops do (docs/semantics.md, "Exactness"): a
    signalling NaN stays signalling, a NaN keeps its payload and sign. Every 16-bit code
    against NaNs of both kinds and signs, zeros, infinities, the extremes and subnormals,
    in both orders, on every loop kind (contiguous, each operand a scalar, strided)."""
    inf = 0x7C00 if dtype == np.float16 else 0x7F80
    specials = np.array([inf | 1, inf | 0x155, 0x8000 | inf | 1, inf | (inf >> 1 & ~inf),
                         0xFFFF, 0x0000, 0x8000, inf, 0x8000 | inf, 0x0001, 0x8001,
                         inf - 1, 0x8000 | (inf - 1), 0x3C00, 0xBC00], np.uint16)
    every = np.arange(1 << 16, dtype=np.uint16)
    a = np.repeat(specials, every.size).view(dtype)
    b = np.tile(every, specials.size).view(dtype)
    f, np_f = getattr(eltwise, name), getattr(np, name)

    def ref(x1, x2):  # ml_dtypes' loop raises the invalid flag on a signalling NaN
        with np.errstate(invalid="ignore"):
            return np_f(x1, x2)

    for x1, x2 in [(a, b), (b, a), (a[::3], b[::3])]:
        assert np.array_equal(f(x1, x2).view(np.uint16), ref(x1, x2).view(np.uint16))
    for s in specials.view(dtype):
        assert np.array_equal(f(s, every.view(dtype)).view(np.uint16),
                              ref(s, every.view(dtype)).view(np.uint16))
        assert np.array_equal(f(every.view(dtype), s).view(np.uint16),
                              ref(every.view(dtype), s).view(np.uint16))


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_integer_wraparound(dtype, target):
    ii = np.iinfo(dtype)
    mx = np.full(33, ii.max, dtype)
    mn = np.full(33, ii.min, dtype)
    one = np.ones(33, dtype)
    assert (eltwise.add(mx, one) == mn).all()
    assert (eltwise.subtract(mn, one) == mx).all()
    assert_same(eltwise.multiply(mx, mx), reference("multiply", mx, mx))
    assert_same(eltwise.squared_difference(mx, mn), reference("squared_difference", mx, mn))
    two = np.full(33, 2, dtype)
    e = np.full(33, 8 * dtype.itemsize, dtype)
    assert (eltwise.power(two, e) == 0).all()


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_integer_power_exact(dtype, target, rng):
    """Exhaustive small bases x exponents, plus 0**0 == 1."""
    bases = value_pool(dtype, rng)
    exps = power_exponents(dtype)
    a = np.repeat(bases, len(exps))
    b = np.tile(exps, len(bases))
    assert_same(eltwise.power(a, b), reference("power", a, b), inputs=(a, b))
    z = np.zeros(9, dtype)
    assert (eltwise.power(z, z) == 1).all()
    assert eltwise.power(dtype.type(0), dtype.type(0)) == 1


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_integer_power_by_scalar_exponent(dtype, target, rng):
    """A scalar exponent runs binary powering on its bits for the whole call: every
    exponent of the pool (0, small, powers of two and their neighbours, MAX) against
    every base of the pool, contiguous, strided and reversed, 0 ** 0 == 1."""
    bases = np.resize(value_pool(dtype, rng), 257)
    for e in power_exponents(dtype):
        s = dtype.type(e)
        assert_same(eltwise.power(bases, s), reference("power", bases, s), inputs=(bases, s))
        assert_same(eltwise.power(bases[::3], s), reference("power", bases[::3], s))
        assert_same(eltwise.power(bases[::-1], s), reference("power", bases[::-1], s))
    assert (eltwise.power(np.zeros(9, dtype), dtype.type(0)) == 1).all()


def _c99_special(x, y):
    if np.isnan(x) or np.isnan(y) or y == 0 or x == 1:
        return True
    if x == 0 or np.isinf(x) or np.isinf(y):
        return True
    if x < 0 and y != np.floor(y):
        return True
    return False


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_power_c99_special_cases(dtype, target):
    """C99 Annex F pow special cases are exact: pow(x, +-0) == 1 even for NaN,
    pow(1, y) == 1 even for NaN, pow(-1, +-inf) == 1, zeros and infinities."""
    xs = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 2.0, -2.0, 3.7, -3.7]
    ys = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 2.5, -2.5, np.inf, -np.inf,
          np.nan]
    pairs = [(x, y) for x in xs for y in ys if _c99_special(x, y)]
    a = np.array([p[0] for p in pairs], dtype)
    b = np.array([p[1] for p in pairs], dtype)
    got = eltwise.power(a, b)
    assert_same(got, reference("power", a, b), inputs=(a, b))
    ones = got[(b.astype(np.float64) == 0) | (a.astype(np.float64) == 1)]
    assert (ones.astype(np.float64) == 1).all()
    mask, value = c99_pow_special(a, b)
    assert mask.all()
    assert_same(got, value.astype(dtype), inputs=(a, b))
    # element by element through the scalar path too
    for x, y in pairs:
        assert_same(eltwise.power(dtype.type(x), dtype.type(y)),
                    reference("power", dtype.type(x), dtype.type(y)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_power_accuracy(dtype, target, rng):
    """Random floats: within 1 ULP of numpy.power."""
    n = 4000
    a = np.abs(rng.standard_normal(n) * 4).astype(dtype)
    b = (rng.standard_normal(n) * 6).astype(dtype)
    assert_same(eltwise.power(a, b), reference("power", a, b), ulp=1, inputs=(a, b))
    a = (-rng.integers(1, 20, n)).astype(dtype)
    b = rng.integers(-12, 12, n).astype(dtype)
    assert_same(eltwise.power(a, b), reference("power", a, b), ulp=1, inputs=(a, b))


def _all_half_values(dtype):
    return np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(dtype)


@pytest.mark.parametrize("dtype", HALF_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "floor_divide",
                                  "mod", "fmod", "maximum", "minimum", "squared_difference",
                                  "power", "equal", "less", "greater_equal"])
def test_half_exhaustive(name, dtype, target):
    """Every float16/bfloat16 bit pattern against a few partners: rounding to nearest
    even, subnormals, infinities and NaNs through the conversions of every target."""
    allv = _all_half_values(dtype)
    for y in [1.0, -1.5, 3.0, 0.1, 1e-3, 65504.0, 0.0, np.inf, np.nan]:
        with np.errstate(all="ignore"):
            yv = dtype.type(y)
        for x1, x2 in ((allv, yv), (yv, allv)):
            got = getattr(eltwise, name)(x1, x2)
            exp = reference(name, x1, x2)
            assert_same(got, exp, ulp=ulp_for(name, dtype), inputs=(x1, x2))


@pytest.mark.parametrize("name", ["add", "multiply", "divide", "maximum", "less"])
def test_bfloat16_with_float32_is_float32(name, rng):
    a = rng.standard_normal(50).astype(BF16)
    b = rng.standard_normal(50).astype(np.float32)
    for x1, x2 in ((a, b), (b, a)):
        got = getattr(eltwise, name)(x1, x2)
        exp = reference(name, x1, x2)
        assert got.dtype == (np.bool_ if name == "less" else np.float32)
        assert_same(got, exp)


def test_bfloat16_with_python_scalar():
    """bfloat16 with a Python int stays bfloat16; with a Python float NumPy+ml_dtypes
    disagree with each other (result_type float64, ufunc float32), so accept any of
    bfloat16 / float32 / float64 but require the values to match that dtype."""
    a = np.array([1.0, 2.5, -3.0, 100.0], BF16)
    got = eltwise.add(a, 3)
    assert got.dtype == BF16
    assert_same(got, reference("add", a, 3))
    got = eltwise.multiply(a, 1.5)
    assert got.dtype in (BF16, np.dtype(np.float32), np.dtype(np.float64))
    assert_same(got, reference("multiply", a, 1.5, dtype=got.dtype))


@pytest.mark.parametrize("name", ALL_OPS)
def test_dtype_keyword(name, rng):
    """dtype= forces the computation and result dtype, as NumPy's dtype= does."""
    a = rng.integers(-50, 50, 40).astype(np.int32)
    b = rng.integers(1, 9, 40).astype(np.int32)
    for dt in (np.float32, np.float64, np.int8, np.int16, np.int64, np.float16, BF16):
        dt = np.dtype(dt)
        if expected_error(name, dt):
            with pytest.raises(TypeError):
                call(name, a, b, dtype=dt)
            continue
        got = call(name, a, b, dtype=dt)
        exp = reference(name, a, b, dtype=dt)
        assert got.dtype == (np.bool_ if name in BOOL_RESULT_OPS else dt)
        assert_same(got, exp, ulp=ulp_for(name, dt), inputs=(a, b))
    # dtype given as a string
    if expected_error(name, np.float64) is None:
        got = call(name, a, b, dtype="float64")
        assert_same(got, reference(name, a, b, dtype=np.float64), ulp=ulp_for(name, np.float64))


@pytest.mark.parametrize("name", ["add", "divide", "power", "less"])
def test_dtype_keyword_same_kind(name):
    """Inputs must cast to dtype= under same_kind, as in NumPy: float64 -> int32 fails."""
    a = np.ones(3)
    with pytest.raises(TypeError):
        getattr(eltwise, name)(a, a, dtype=np.int32)
    got = getattr(eltwise, name)(a, a, dtype=np.float32)
    assert got.dtype == (np.bool_ if name == "less" else np.float32)


@pytest.mark.parametrize("name", ["squared_difference"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INTEGER_DTYPES, ids=dtype_id)
def test_squared_difference(name, dtype, rng):
    a, b = operands(name, dtype, 100, rng)
    got = eltwise.squared_difference(a, b)
    with np.errstate(all="ignore"):
        exp = np.square(np.subtract(a, b))
    assert_same(got, exp, inputs=(a, b))


def test_array_likes_and_high_rank():
    """Anything numpy.asarray takes: memoryviews, array.array, nested lists; rank up to 64."""
    import array

    assert_same(eltwise.add(memoryview(np.arange(3.0)), 1.0), np.arange(3.0) + 1.0)
    assert_same(eltwise.add(array.array("d", [1, 2, 3]), 1.0), np.array([2.0, 3.0, 4.0]))
    assert_same(eltwise.multiply([[1, 2], [3, 4]], [10, 20]), np.array([[10, 40], [30, 80]]))
    a = np.arange(6.0).reshape((1,) * 40 + (2, 3))
    b = np.arange(3.0).reshape((1,) * 20 + (3,))
    assert_same(eltwise.add(a, b), a + b)
    c = np.ones((1,) * 63 + (2,), np.float32)
    assert_same(eltwise.subtract(c, np.float32(3)), c - np.float32(3))
    ro = np.arange(5.0)
    ro.flags.writeable = False
    assert_same(eltwise.divide(ro, ro[::-1] + 1), ro / (ro[::-1] + 1))


def test_float32_power_accuracy(target, rng):
    """float32 power against the float64 result rounded once: within 1 ULP over bases from
    1e-30 to 1e30 (both signs, integer exponents for the negative ones) and exponents whose
    results span float32's range, subnormals and overflow included."""
    n = 50000
    x = (10.0 ** rng.uniform(-30, 30, n)).astype(np.float32)
    y = rng.uniform(-40, 40, n).astype(np.float32)
    neg = rng.random(n) < 0.3
    x[neg] = -x[neg]
    y[neg] = np.round(y[neg])
    got = eltwise.power(x, y)
    with np.errstate(all="ignore"):
        exp = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    assert_same(got, exp, ulp=1, inputs=(x, y))


def test_float32_power_accuracy_where_log_is_small(target, rng):
    """float32 power within 1 ULP of the float64 result rounded once where the error of
    log2(x) counts most (docs/semantics.md, "Exactness"): x within a few percent of 1 (both
    sides, across the subintervals next to 1) with y so large that |y log2 x| is near 126
    or 149 (results near float32's overflow and underflow, subnormal ones included),
    subnormal x with small y, and integer y on bases up to 4."""
    n = 60000
    x = (1 + rng.uniform(-0.04, 0.04, n)).astype(np.float32)
    x[x == 1] = np.float32(1.01)
    target_t = rng.choice([-149.5, -140.0, -126.0, 20.0, 126.0, 127.9], n) * rng.uniform(0.97, 1.0, n)
    y = (target_t / np.log2(x.astype(np.float64))).astype(np.float32)
    sub = (rng.integers(1, 1 << 23, n // 4, dtype=np.int64).astype(np.uint32)).view(np.float32)
    x = np.concatenate([x, sub, rng.uniform(0.5, 4, n // 4).astype(np.float32)])
    y = np.concatenate([y, rng.uniform(-1.2, 1.2, n // 4).astype(np.float32),
                        np.round(rng.uniform(-60, 60, n // 4)).astype(np.float32)])
    got = eltwise.power(x, y)
    with np.errstate(all="ignore"):
        exp = np.power(x.astype(np.float64), y.astype(np.float64)).astype(np.float32)
    assert_same(got, exp, ulp=1, inputs=(x, y))


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16),
                                   BF16], ids=dtype_id)
def test_float_power_targets_agree(dtype, rng):
    """power is within 1 ULP of NumPy, not bit-exact with it, and within 1 ULP from target
    to target. AVX3 and AVX3_DL give the same bits; AVX-512's own form of the method (float32
    in float32 lanes, float64 on its smaller tables) differs from AVX2 in under 2% of the
    elements (docs/semantics.md, "Exactness")."""
    x = (10.0 ** rng.uniform(-4, 4, 20000)).astype(dtype)
    y = rng.uniform(-10, 10, 20000).astype(dtype)
    with np.errstate(all="ignore"):
        ref = np.power(x.astype(np.longdouble), y.astype(np.longdouble)).astype(dtype)
    results = {}
    try:
        for t in eltwise.get_targets():
            eltwise.set_target(t)
            results[t] = eltwise.power(x, y)
    finally:
        eltwise.set_target(None)
    first = next(iter(results.values()))
    for t, r in results.items():
        assert_same(r, ref, ulp=1, inputs=(x, y))
        assert_same(r, first, ulp=1, inputs=(x, y))
    fma = [t for t in results if t.startswith("AVX")]
    for t in fma:
        same = (results[t].view(np.uint8).reshape(-1, dtype.itemsize) ==
                results[fma[0]].view(np.uint8).reshape(-1, dtype.itemsize)).all(axis=1)
        if t.startswith("AVX2") == fma[0].startswith("AVX2"):
            assert same.all(), t
        else:
            assert same.mean() > 0.98, (t, same.mean())


@pytest.mark.parametrize("layout", ["C", "F", "strided", "0-d"])
def test_operand_conversion_every_same_kind_pair(layout, rng):
    """Operands are converted to the compute dtype as NumPy converts them (CastRun for
    contiguous ones, NumPy's cast otherwise), for every pair same_kind allows: edge values
    (MIN, MAX, -1, NaN, +-inf, -0.0, float64 beyond float32's range) in C and Fortran order,
    strided views and 0-d arrays. maximum(x, x) returns x itself in the forced dtype."""
    for src, dst in itertools.product(ALL_DTYPES, repeat=2):
        if src == dst or not np.can_cast(src, dst, "same_kind"):
            continue
        if expected_error("maximum", dst):
            continue
        vals = np.concatenate([edge_values(src), random_values(src, 31, rng)])
        if layout == "0-d":
            xs = [np.asarray(v) for v in vals[:8]]
        else:
            x = np.resize(vals, 4 * 24).reshape(4, 24)
            xs = [{"C": x, "F": np.asfortranarray(x), "strided": x[:, ::-3]}[layout]]
        for x in xs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exp = np.maximum(x, x, dtype=dst)
            # Warnings as x.astype(dst) gives them, once per operand ("overflow encountered
            # in cast"; NumPy's own ufuncs are not consistent about these).
            with warnings.catch_warnings(record=True) as caught_astype:
                warnings.simplefilter("always")
                x.astype(dst)
                x.astype(dst)
            with warnings.catch_warnings(record=True) as caught_ew:
                warnings.simplefilter("always")
                got = eltwise.maximum(x, x, dtype=dst)
            assert [str(w.message) for w in caught_ew] == \
                [str(w.message) for w in caught_astype], (src, dst)
            assert got.dtype == exp.dtype, (src, dst)
            try:
                assert_same(got, exp)
            except AssertionError as e:
                raise AssertionError(f"{src} -> {dst} ({layout}): {e}") from None
