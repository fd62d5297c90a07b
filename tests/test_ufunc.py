"""Issue 10, items 1-3: the ufunc twins, delegation from the fast door, pickling.

- ``eltwise.ufunc.<name>`` (and ``divide_trunc``) are real ``numpy.ufunc`` objects that
  give the same dtype, shape and bits as the fast door ``eltwise.<name>`` (and so as
  NumPy, through ``ew_helpers.reference``) on every dtype, SIMD target and layout.
- NumPy's machinery works on them: reduce, accumulate, reduceat, outer, at, where=,
  casting=, order=, subok=, dtype=, signature=, out= tuples; attributes and repr.
- Their semantics are eltwise's: integer divide floors / truncates, integer division by
  zero gives 0 and is reported through ``numpy.errstate``, float results report nothing.
- The fast door delegates operands that are not plain ndarrays/scalars/lists (masked
  arrays, np.matrix, subclasses, duck arrays, pandas, xarray) to the twin, after turning
  ``broadcast='pdpd'`` / ``'none'`` into numpy broadcasting.
- Every public object pickles by name to the very same object, and the functions work as
  the callable of a process pool (spawn and fork).

Differences from NumPy's own ufuncs that are by design are written down where tested.
"""

import concurrent.futures
import functools
import multiprocessing
import pickle
import re
import warnings

import numpy as np
import pytest

import eltwise
from eltwise import _delegation, _eltwise
from ew_helpers import (
    ALL_DTYPES, ALL_OPS, BF16, BITWISE_OPS, BOOL_RESULT_OPS, FLOAT_DTYPES, INT_DIV_OPS,
    INTEGER_DTYPES, LOGICAL_OPS, NO_BOOL_OPS, NUMPY_UFUNC, assert_same, dtype_id,
    edge_values, expected_error, is_int, operands, reference, trunc_divide, ulp_for,
)

U = eltwise.ufunc
TWIN_NAMES = ALL_OPS + ["divide_trunc"]
MIXED_SIGN = {"lL->d", "Ll->d", "lL->?", "Ll->?"}  # int64 with uint64, eltwise's exact loops


def base_name(name):
    """The fast-door function a twin belongs to."""
    return "divide" if name == "divide_trunc" else name


def fast_door(name):
    if name == "divide_trunc":
        return functools.partial(eltwise.divide, pythondiv=False)
    return getattr(eltwise, name)


def expected(name, x1, x2, **kw):
    if name == "divide_trunc":
        return reference("divide", x1, x2, pythondiv=False, **kw)
    return reference(name, x1, x2, **kw)


def both(name, x1, x2, **kw):
    """(twin result, fast-door result), integer division by zero silenced."""
    with np.errstate(divide="ignore"):
        return getattr(U, name)(x1, x2, **kw), fast_door(name)(x1, x2, **kw)


def raw_bits(x):
    """The bytes of a result in C order (NaN payloads included)."""
    return np.ascontiguousarray(x).tobytes()


def assert_twin_matches(name, x1, x2, label, **kw):
    twin, fast = both(name, x1, x2, **kw)
    try:
        assert type(twin) is type(fast), (type(twin), type(fast))
        # dtype, shape and bits; NaN positions compared by assert_same, NaN payloads
        # too by raw_bits: the twin runs the very kernels of the fast door
        assert_same(twin, fast, contiguous=False, inputs=(x1, x2))
        assert raw_bits(twin) == raw_bits(fast), "bit patterns (NaN payloads) differ"
        if isinstance(twin, np.ndarray):
            # the twin lays its result out as NumPy's own ufuncs do (order='K'; all
            # operands Fortran-ordered give a Fortran-ordered result). The fast door's
            # layout is tested in test_fuzz.py, not here.
            with np.errstate(all="ignore"):
                layout = np.equal(x1, x2)
            assert twin.flags.c_contiguous == layout.flags.c_contiguous
            assert twin.flags.f_contiguous == layout.flags.f_contiguous
        rt = np.result_type(*(np.asarray(x) if isinstance(x, list) else x for x in (x1, x2)))
        assert_same(twin, expected(name, x1, x2, **kw), ulp=ulp_for(base_name(name), rt),
                    contiguous=False, inputs=(x1, x2))
    except AssertionError as e:
        raise AssertionError(f"twin {name} layout={label} {kw}: {e}") from e


def twin_layouts(a, b):
    """(label, x1, x2): contiguous, strided, negative strides, scalar broadcast, 0-d, 2-d."""
    n = len(a)
    a2 = np.empty(2 * n, a.dtype)
    a2[::2] = a
    b3 = np.empty(3 * n, b.dtype)
    b3[::3] = b
    k = n // 2
    yield "contig", a, b
    yield "strided", a2[::2], b3[::3]
    yield "negative-stride", a[::-1], b3[3 * (n - 1)::-3]
    yield "size1-broadcast", a[k:k + 1], b
    yield "numpy-scalar-right", a, b[k]
    yield "numpy-scalar-left", a[k], b
    if a.dtype.kind in "iuf" and a.dtype != np.float16:
        yield "python-scalar-right", a, b[k].item()
    yield "zero-stride", np.broadcast_to(a[k:k + 1], (n,)), b
    yield "0d-0d", np.array(a[k]), np.array(b[-1])
    yield "0d-array", np.array(a[0]), b[::-2]
    rows = next(r for r in (7, 5, 3, 2, 1) if n % r == 0)
    A, B = a.reshape(rows, -1), b.reshape(rows, -1)
    yield "2d-transposed", A.T, B.T
    yield "2d-negative", A[::-1, ::-1], B
    yield "outer-broadcast", a[:9, None], b[None, :11]


# ---------------------------------------------------------------------------
# 1. every twin gives the fast door's dtype, shape and bits


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", TWIN_NAMES)
def test_twin_matches_fast_door(name, dtype, target):
    err = expected_error(base_name(name), dtype)
    a, b = operands(base_name(name), dtype, kind="grid")
    if err is not None:
        with pytest.raises(err):
            fast_door(name)(a, b)
        with pytest.raises(err):
            getattr(U, name)(a, b)
        return
    for label, x1, x2 in twin_layouts(a, b):
        assert_twin_matches(name, x1, x2, label)


@pytest.mark.parametrize("name", TWIN_NAMES)
def test_twin_mixed_dtypes(name):
    """Every pair of the 13 dtypes. Where the fast door computes, the twin gives its dtype
    and bits. Where the fast door refuses because numpy.result_type has no answer
    (bfloat16 with float16 or a 16/32/64-bit integer: ml_dtypes defines no promotion), the
    twin is a numpy.ufunc and resolves its loop as NumPy's own ufuncs do (np.add on those
    operands computes in float32/float64): it must then give what the fast door gives
    when told that dtype."""
    twin, fast = getattr(U, name), fast_door(name)
    base = base_name(name)
    for d1 in ALL_DTYPES:
        for d2 in ALL_DTYPES:
            a = edge_values(d1)
            b = edge_values(d2)[::-1]
            n = min(len(a), len(b))
            a, b = a[:n], b[:n]
            if base == "power" and is_int(d2):
                b = b[b >= 0] if d2.kind == "i" else b
                a = a[:len(b)]
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                try:
                    want = fast(a, b)
                except TypeError as e:
                    want = e
                try:
                    got = twin(a, b)
                except TypeError as e:
                    got = e
                if isinstance(want, Exception):
                    if isinstance(got, Exception):
                        continue
                    assert d1 == BF16 or d2 == BF16, (name, d1, d2, want)
                    if base not in BOOL_RESULT_OPS:
                        assert got.dtype == np.add(a, b).dtype, (name, d1, d2, got.dtype)
                    rt = np.add(a, b).dtype
                    assert_same(got, fast(a, b, dtype=rt), contiguous=False, inputs=(a, b))
                    continue
                assert not isinstance(got, Exception), (name, d1, d2, got)
                try:
                    assert_same(got, want, contiguous=False, inputs=(a, b))
                except AssertionError as e:
                    raise AssertionError(f"{name} {d1} with {d2}: {e}") from e


DTYPE_OPERANDS = (np.array([7, -7, 5, 100, -128], np.int8), np.array([2, 2, -3, 7, -1], np.int8))


def call_or_error(f, *args, **kw):
    try:
        with np.errstate(all="ignore"):
            return f(*args, **kw)
    except (TypeError, ValueError) as e:
        return e


@pytest.mark.parametrize("name", TWIN_NAMES)
def test_twin_dtype_keyword(name):
    """dtype= forces the loop as it forces the fast door's computation. For the twins of
    bool-result functions NumPy's dtype= names the *output* dtype (np.less(a, b,
    dtype=np.float32) is a TypeError, and so is the twin's); signature=(dt, dt, None) is
    the ufunc spelling of the fast door's dtype=dt there."""
    a, b = DTYPE_OPERANDS
    base = base_name(name)
    if base == "power":
        b = np.abs(b)
    for dt in [np.int16, np.int64, np.uint8, np.float16, np.float32, np.float64, np.bool_]:
        want = call_or_error(fast_door(name), a, b, dtype=dt)
        if base in BOOL_RESULT_OPS:
            if dt is not np.bool_:
                with pytest.raises(TypeError):
                    getattr(U, name)(a, b, dtype=dt)
            got = call_or_error(getattr(U, name), a, b, signature=(dt, dt, None))
        else:
            got = call_or_error(getattr(U, name), a, b, dtype=dt)
        if isinstance(want, Exception):
            if base in LOGICAL_OPS and dt is np.bool_ and not isinstance(got, Exception):
                # the fast door refuses to cast int8 to bool under same_kind; NumPy's
                # logical ufuncs (and so the twins) take bool loops for any input
                assert_same(got, getattr(np, base)(a, b, dtype=dt))
                continue
            assert isinstance(got, TypeError), (dt, got, want)
            continue
        assert not isinstance(got, Exception), (dt, got)
        assert_same(got, want, contiguous=False)


def test_twin_dtype_bfloat16():
    """dtype=ml_dtypes.bfloat16 with operands that are not bfloat16: np.add(int8, int8,
    dtype=bfloat16) and the fast door compute in bfloat16; so must every twin (its
    bfloat16 loop is registered: signature=(bf16, bf16, bf16) finds it)."""
    a, b = DTYPE_OPERANDS
    assert_same(np.add(a, b, dtype=BF16), eltwise.add(a, b, dtype=BF16))  # numpy does
    failures = []
    for name in TWIN_NAMES:
        base = base_name(name)
        if expected_error(base, BF16) is not None:
            continue
        y = np.abs(b) if base == "power" else b
        want = call_or_error(fast_door(name), a, y, dtype=BF16)
        assert not isinstance(want, Exception)
        sig = (BF16, BF16, None) if base in BOOL_RESULT_OPS else (BF16, BF16, BF16)
        assert_same(call_or_error(getattr(U, name), a, y, signature=sig), want)
        if base in BOOL_RESULT_OPS:
            continue  # dtype= is the output dtype there (see test_twin_dtype_keyword)
        for x1, x2 in [(a, y), (a.astype(np.float32), y.astype(np.float32))]:
            got = call_or_error(getattr(U, name), x1, x2, dtype=BF16)
            if isinstance(got, Exception):
                failures.append(f"eltwise.ufunc.{name}({x1.dtype}, {x2.dtype}, "
                                f"dtype=bfloat16): {got!r}")
            else:
                assert_same(got, fast_door(name)(x1, x2, dtype=BF16))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("name", NO_BOOL_OPS)
def test_twin_refuses_bools_as_fast_door(name):
    a, b = np.array([True, False]), np.array([True, True])
    with pytest.raises(TypeError) as fast_err:
        getattr(eltwise, name)(a, b)
    with pytest.raises(type(fast_err.value)):
        getattr(U, name)(a, b)
    with pytest.raises(TypeError):
        getattr(U, name)(True, False)
    if name == "divide":
        with pytest.raises(TypeError):
            U.divide_trunc(a, b)


@pytest.mark.parametrize("name", BITWISE_OPS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_twin_refuses_floats_for_bitwise(name, dtype):
    a = np.ones(3, dtype)
    with pytest.raises(TypeError):
        getattr(eltwise, name)(a, a)
    with pytest.raises(TypeError):  # NumPy's wording: no loop for the input types
        getattr(U, name)(a, a)
    # numpy's own bitwise ufuncs refuse floats with the same exception type
    with pytest.raises(TypeError):
        getattr(np, name)(np.ones(3), np.ones(3))


@pytest.mark.parametrize("dtype", [np.dtype(np.int8), np.dtype(np.int64)], ids=dtype_id)
def test_twin_negative_integer_power_raises_as_fast_door(dtype):
    """docs/semantics.md: "Exactness": a negative exponent with a signed integer base is
    ValueError("Integers to negative integer powers are not allowed."), as numpy.power
    says. The fast door raises it; the twin must too (and so must delegation, which runs
    the twin)."""
    base = np.array([2, 3, -1], dtype)
    exps = np.array([1, -1, 2], dtype)
    with pytest.raises(ValueError) as fast_err:
        eltwise.power(base, exps)
    message = re.escape(str(fast_err.value))
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        np.power(base, exps)  # numpy itself
    for label, call in [
            (f"eltwise.ufunc.power({dtype}[2, 3, -1], {dtype}[1, -1, 2])",
             lambda: U.power(base, exps)),
            (f"eltwise.ufunc.power({dtype}(2), -1)", lambda: U.power(np.array(2, dtype), -1)),
            (f"eltwise.power(masked {dtype}, {dtype}[1, -1, 2]) (delegation)",
             lambda: eltwise.power(np.ma.masked_array(base), exps))]:
        got = call_or_error(call)
        assert isinstance(got, type(fast_err.value)), (
            f"{label} returned {got!r} instead of raising {fast_err.value!r}")
        assert re.search(message, str(got))


# ---------------------------------------------------------------------------
# 2. NumPy's machinery on the twins

# Integer twins whose semantics are NumPy's (no division by zero in the data used).
EXACT_INT = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "maximum": np.maximum, "minimum": np.minimum, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "floor_divide": np.floor_divide, "divide": np.floor_divide, "mod": np.remainder,
    "remainder": np.remainder, "fmod": np.fmod,
}
REORDERABLE = {"add", "multiply", "maximum", "minimum", "bitwise_and", "bitwise_or",
               "bitwise_xor"}


def int_data(dtype, rng, shape=(5, 6, 7)):
    x = rng.integers(1, 50, size=shape).astype(dtype)
    if dtype.kind == "i":
        x[::2] = -x[::2]
    return x


def compare_methods(u, nu, meth, *args, **kw):
    """u.meth(*args) against nu.meth(*args): same exception type, or same dtype/shape/values."""
    try:
        want = getattr(nu, meth)(*args, **kw)
    except Exception as e:  # noqa: BLE001 - compared below
        with pytest.raises(type(e)):
            getattr(u, meth)(*args, **kw)
        return None
    got = getattr(u, meth)(*args, **kw)
    assert type(got) is type(want), (meth, kw, type(got), type(want))
    assert_same(got, want, contiguous=False)
    return got


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", sorted(EXACT_INT))
def test_reduce_accumulate_reduceat_integers(name, dtype, target, rng):
    u, nu = getattr(U, name), EXACT_INT[name]
    x = int_data(dtype, rng)
    views = {"C": x, "reversed": x[::-1, :, ::-1], "strided": x[:, ::2, 1::3],
             "transposed": x.transpose(2, 0, 1)}
    for label, v in views.items():
        cases = [("reduce", {"axis": None}), ("reduce", {"axis": 0}), ("reduce", {"axis": -1}),
                 ("reduce", {"axis": 1, "keepdims": True}), ("reduce", {"axis": 1, "initial": 3}),
                 ("reduce", {"axis": 2, "dtype": np.int64}),
                 ("accumulate", {}), ("accumulate", {"axis": 2}),
                 ("accumulate", {"axis": 1, "dtype": np.int64}),
                 ("reduceat", {"indices": [0, 2, 1, v.shape[1] - 1], "axis": 1})]
        if name in REORDERABLE:
            cases += [("reduce", {"axis": (0, 2)}), ("reduce", {"axis": (0, 1), "keepdims": True}),
                      ("reduce", {"axis": 2, "where": np.arange(v.shape[2]) % 2 == 0,
                                  "initial": 1}),
                      ("reduce", {"axis": (1, 2), "where": v > 10, "initial": 1})]
        else:
            # not reorderable: a tuple of axes is a ValueError, as in NumPy
            cases.append(("reduce", {"axis": (0, 2)}))
        for meth, kw in cases:
            try:
                compare_methods(u, nu, meth, v, **kw)
            except AssertionError as e:
                raise AssertionError(f"{name}.{meth} {label} {kw}: {e}") from e


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "subtract"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_reduce_floats(name, dtype, target, rng):
    """The twin's float reductions give NumPy's bits (docs/semantics.md, "Reductions of the
    twins"): add sums pairwise in NumPy's order, float16 accumulates in float32 within an
    inner loop; along either axis, reversed, with where= and initial. bfloat16 follows
    float16's rule, so a whole-axis reduction is float32's rounded once (ml_dtypes' own
    loop accumulates in bfloat16); elsewhere it is checked within a bound."""
    u, nu = getattr(U, name), getattr(np, name)
    x = (rng.standard_normal(4000) * (0.5 if name == "multiply" else 10.0)).astype(dtype)
    if name == "multiply":
        x = (1.0 + x.astype(np.float64) / 100).astype(dtype)
    x2 = x[:600].reshape(100, 6)
    mask = np.arange(600).reshape(100, 6) % 3 != 0
    calls = [((x,), {}), ((x[::-1],), {}), ((x[::3],), {}), ((x2,), {"axis": 0}),
             ((x2,), {"axis": 1}), ((x2,), {"axis": 1, "where": mask, "initial": 1})]
    for i, (args, kw) in enumerate(calls):
        got = u.reduce(*args, **kw)
        assert got.dtype == dtype
        if dtype != BF16 or name in ("maximum", "minimum"):
            want = nu.reduce(*args, **kw)
            assert raw_bits(got) == raw_bits(want), (i, kw, got, want)
        elif i < 3:
            want = nu.reduce(args[0].astype(np.float32)).astype(BF16)
            assert raw_bits(got) == raw_bits(want), (i, got, want)
        else:
            x64 = args[0].astype(np.float64)
            exact = nu.reduce(x64, **kw)
            # Each of at most 100 roundings errs by half an ulp of a partial result.
            scale = (np.abs(exact) if name == "multiply"
                     else np.add.reduce(np.abs(x64), **kw) + 1)
            assert np.all(np.abs(got.astype(np.float64) - exact) <= 100 * 2.0**-8 * scale)


@pytest.mark.parametrize("name", LOGICAL_OPS)
def test_logical_reductions_of_non_bool(name):
    """As NumPy's logical ufuncs: any dtype reduces as its truth values, in bool
    (docs/semantics.md, "Reductions of the twins")."""
    for dtype in [np.dtype(np.int32), np.dtype(np.float64), np.dtype(np.uint8)]:
        x = np.array([[3, 0, 2], [1, 5, 0]], dtype)
        check_logical_reductions(name, x)
        check_logical_reductions(name, x.astype(bool))


def check_logical_reductions(name, x):
    for meth, args, kw in [("reduce", (x,), {}), ("reduce", (x,), {"axis": None}),
                           ("reduce", (x,), {"axis": 1, "keepdims": True}),
                           ("accumulate", (x,), {"axis": 1}),
                           ("reduceat", (x.ravel(), [0, 2, 4]), {})]:
        want = getattr(getattr(np, name), meth)(*args, **kw)
        got = call_or_error(getattr(getattr(U, name), meth), *args, **kw)
        assert not isinstance(got, Exception), (
            f"eltwise.ufunc.{name}.{meth}({x.dtype} array, {kw}): {got!r}; NumPy gives {want!r}")
        assert_same(got, want, contiguous=False)
    # bool input works today: the same results
    assert_same(getattr(U, name).reduce(x.astype(bool), axis=0),
                getattr(np, name).reduce(x.astype(bool), axis=0))


def test_float_reduce_nan_and_signed_zero():
    for dt in FLOAT_DTYPES:
        x = np.array([1.0, np.nan, 3.0]).astype(dt)
        assert np.isnan(np.float64(U.add.reduce(x)))
        assert np.isnan(np.float64(U.maximum.reduce(x)))
        assert np.isnan(np.float64(U.minimum.accumulate(x)[-1]))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_accumulate_and_outer_match_fast_door(dtype, target, rng):
    """accumulate runs the kernel one element at a time (each step reads the previous
    output); outer is the fast door on broadcast operands."""
    for name in ["add", "multiply", "maximum", "minimum", "logical_or", "bitwise_xor",
                 "floor_divide", "divide_trunc"]:
        base = base_name(name)
        if expected_error(base, dtype) is not None:
            continue
        vals = edge_values(dtype)
        if base in ("floor_divide", "divide") and is_int(dtype):
            vals = vals[vals != 0]
        x = rng.choice(vals, 40)
        u = getattr(U, name)
        if name in LOGICAL_OPS and dtype != np.bool_:
            x = x.astype(bool)
        with np.errstate(all="ignore"):
            got = u.accumulate(x)
            # add and multiply accumulate bools and integers narrower than int64 in int64
            # (NumPy's rule, keyed by the ufunc's name; np.add.accumulate does the same)
            assert got.dtype == (np.add.accumulate(x[:2]).dtype if name in ("add", "multiply")
                                 else (np.dtype(bool) if name in LOGICAL_OPS else x.dtype))
            xs = x.astype(got.dtype)
            want = [xs[0]]
            for v in xs[1:]:
                want.append(fast_door(name)(np.array([want[-1]]), np.array([v]))[0])
        assert_same(got, np.array(want, dtype=got.dtype), contiguous=False)
        a, b = x[:6], x[6:11]
        with np.errstate(all="ignore"):
            got = u.outer(a, b)
            want = fast_door(name)(a[:, None], b[None, :])
        assert got.shape == (6, 5)
        assert raw_bits(got) == raw_bits(want) and got.dtype == want.dtype
        got = u.outer(a.reshape(2, 3), b[:4].reshape(2, 2))
        assert got.shape == (2, 3, 2, 2)


def test_outer_against_numpy():
    a = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    b = np.array([1, -2, 3], np.int32)
    for name, nu in EXACT_INT.items():
        compare_methods(getattr(U, name), nu, "outer", a, b)
    compare_methods(U.equal, np.equal, "outer", a, b)
    compare_methods(U.logical_and, np.logical_and, "outer", a, b)


def test_at_repeated_indices():
    idx = np.array([0, 0, 1, 4, 4, 4, 2])
    for name, nu in EXACT_INT.items():
        for dt in [np.int8, np.int64, np.uint16]:
            x0 = np.arange(20, 25, dtype=dt)
            x, y = x0.copy(), x0.copy()
            getattr(U, name).at(x, idx, 3)
            nu.at(y, idx, 3)
            assert_same(x, y)
            # an array of second operands, one per index
            b = np.arange(1, 8, dtype=dt)
            x, y = x0.copy(), x0.copy()
            getattr(U, name).at(x, idx, b)
            nu.at(y, idx, b)
            assert_same(x, y)
    # divide_trunc.at truncates, repeatedly
    x = np.array([-100, 7, -7], np.int32)
    U.divide_trunc.at(x, [0, 0, 2], 3)
    assert_same(x, np.array([-11, 7, -2], np.int32))
    # floats and bfloat16
    for dt in FLOAT_DTYPES:
        x = np.zeros(3, dt)
        U.add.at(x, [0, 0, 1, 0], np.ones(4, dt))
        assert_same(x, np.array([3, 1, 0], dt))
        x = np.arange(4).astype(dt)
        U.divide.at(x, [1, 1, 3], np.array(2, dt))
        assert_same(x, np.array([0, 0.25, 2, 1.5], dt))
    # 2-d with a tuple of index arrays
    x = np.zeros((3, 3), np.int64)
    y = x.copy()
    U.add.at(x, (np.array([0, 0, 2]), np.array([1, 1, 0])), 5)
    np.add.at(y, (np.array([0, 0, 2]), np.array([1, 1, 0])), 5)
    assert_same(x, y)


def test_at_division_by_zero_reported():
    x = np.arange(5, dtype=np.int64)
    with np.errstate(divide="ignore"):
        U.divide.at(x, [1, 3, 3], np.array([0, 2, 0]))
    assert_same(x, np.array([0, 0, 2, 0, 4], np.int64))
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
        U.divide.at(np.arange(3), [0], 0)


def test_where_with_out():
    a = np.arange(8, dtype=np.int32) - 4
    b = np.array([3, 0, -2, 5, 0, 1, 2, 3], np.int32)
    where = b != 0
    out = np.full(8, 99, np.int32)
    # a zero divisor where where= is False is never computed: nothing to report
    with np.errstate(divide="raise"):
        r = U.divide(a, b, out=out, where=where)
    assert r is out
    exp = np.full(8, 99, np.int32)
    exp[where] = np.floor_divide(a[where], b[where])
    assert_same(out, exp)
    out2 = np.full(8, 99, np.int32)
    U.divide_trunc(a, b, out=(out2,), where=where)
    exp[where] = trunc_divide(a[where], b[where])
    assert_same(out2, exp)
    # where= broadcast, with a strided out
    x = np.arange(12.0).reshape(3, 4)
    o1 = np.full((3, 8), -1.0)[:, ::2]
    o2 = o1.copy()
    U.multiply(x, 2.0, out=o1, where=np.array([True, False, True, False]))
    np.multiply(x, 2.0, out=o2, where=np.array([True, False, True, False]))
    assert_same(o1, o2, contiguous=False)
    # where= with a broadcast 0-d-like mask and a Fortran out
    o = np.asfortranarray(np.full((3, 4), 7.0))
    r = U.add(x, 1.0, out=o, where=x > 5)
    assert r is o
    assert_same(o, np.where(x > 5, x + 1.0, 7.0), contiguous=False)


def test_out_forms():
    a, b = np.arange(6.0), np.full(6, 2.0)
    for form in ["kw", "tuple", "positional"]:
        o = np.zeros(6)
        r = {"kw": lambda: U.divide(a, b, out=o), "tuple": lambda: U.divide(a, b, out=(o,)),
             "positional": lambda: U.divide(a, b, o)}[form]()
        assert r is o
        assert_same(o, a / b)
    # in place, overlapping
    x = np.arange(10, dtype=np.int64)
    U.add(x[1:], x[:-1], out=x[1:])
    y = np.arange(10, dtype=np.int64)
    np.add(y[1:], y[:-1], out=y[1:])
    assert_same(x, y)
    # 0-d out: an array, not a scalar
    o = np.zeros((), np.int16)
    r = U.multiply(np.int16(3), np.int16(4), out=o)
    assert r is o and o == 12


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_casting(casting):
    a16 = np.array([300, -2, 7], np.int16)
    b16 = np.array([2, 3, 4], np.int16)
    f = np.array([1.5, 2.5, -3.5])
    cases = [
        (a16, b16, np.zeros(3, np.int8)),   # same kind, narrower
        (a16, b16, np.zeros(3, np.int64)),  # safe
        (f, f, np.zeros(3, np.int64)),      # float into int: unsafe only
        (a16, f, np.zeros(3, np.float32)),  # same kind
        (a16, b16, np.zeros(3, np.int16)),  # no cast
    ]
    for x1, x2, o in cases:
        for name in ["add", "multiply", "maximum"]:
            o1, o2 = o.copy(), o.copy()
            try:
                with np.errstate(all="ignore"):
                    getattr(np, name)(x1, x2, out=o2, casting=casting)
            except TypeError as e:
                with pytest.raises(type(e)):
                    getattr(U, name)(x1, x2, out=o1, casting=casting)
                continue
            with np.errstate(all="ignore"):
                getattr(U, name)(x1, x2, out=o1, casting=casting)
            assert_same(o1, o2)
    with pytest.raises(TypeError):
        U.add(a16, b16, dtype=np.int8, casting="safe")


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_order(order):
    x = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    y = np.arange(12.0).reshape(3, 4)
    for x1, x2 in [(x, x), (x, y), (y, 1.0), (x, 2.0)]:
        got = U.subtract(x1, x2, order=order)
        want = np.subtract(x1, x2, order=order)
        assert got.flags.c_contiguous == want.flags.c_contiguous
        assert got.flags.f_contiguous == want.flags.f_contiguous
        assert_same(got, want, contiguous=False)


class Tagged(np.ndarray):
    """A custom ndarray subclass that carries an attribute through ufuncs."""

    def __new__(cls, data, tag="t"):
        obj = np.asarray(data).view(cls)
        obj.tag = tag
        return obj

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", None)


def make_matrix(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.matrix(data)


def test_subok():
    m = make_matrix([[1.0, 2.0], [3.0, 4.0]])
    t = Tagged(np.arange(4.0), tag="kept")
    for x in (m, t):
        for subok in (True, False):
            got = U.multiply(x, x, subok=subok)
            want = np.multiply(x, x, subok=subok)
            assert type(got) is type(want)
            assert_same(np.asarray(got), np.asarray(want))
    assert type(U.add(m, 1, subok=True)) is np.matrix
    assert type(U.add(t, 1)) is Tagged and U.add(t, 1).tag == "kept"
    assert type(U.add(t, 1, subok=False)) is np.ndarray


def test_signature_keyword():
    a, b = np.array([7, -7]), np.array([2, 2])
    got = U.divide(a, b, signature=(None, None, np.float64))
    assert_same(got, eltwise.divide(a, b, dtype=np.float64))
    got = U.divide(a, b, signature="dd->d")
    assert_same(got, np.array([3.5, -3.5]))


# ---------------------------------------------------------------------------
# attributes, repr


NUMPY_SAME_NAME = {n: getattr(np, n) for n in ALL_OPS if hasattr(np, n)}


@pytest.mark.parametrize("name", TWIN_NAMES)
def test_twin_attributes(name):
    u = getattr(U, name)
    assert isinstance(u, np.ufunc)
    assert u.nin == 2 and u.nout == 1 and u.nargs == 3
    assert u.signature is None
    assert u.ntypes == len(u.types) > 0
    assert u.__module__ == "eltwise.ufunc"
    assert u.__doc__
    expected_name = "remainder" if name == "mod" else name  # numpy.mod is numpy.remainder
    assert u.__name__ == expected_name
    assert repr(u) == f"<ufunc '{expected_name}'>"
    base = base_name(name)
    nu = NUMPY_SAME_NAME.get(base)
    if nu is not None:
        # identity agrees with NumPy's (logical_* give 1/0 where NumPy gives True/False:
        # equal as values)
        assert u.identity == nu.identity and type(u.identity) in (type(nu.identity), int)
        # every loop is one NumPy has for the same name, except eltwise's additions:
        # exact int64-with-uint64 loops, and integer loops for divide (integers stay
        # integers: floor division, docs/semantics.md: "Operands and dtypes")
        extra = set(u.types) - set(nu.types) - MIXED_SIGN
        if base == "divide":
            extra -= set(np.floor_divide.types)
        assert not extra, extra
    # the type strings are NumPy's: every loop's dtypes exist
    for t in u.types:
        ins, out = t.split("->")
        assert all(np.dtype(c) for c in ins + out)
        if base in BOOL_RESULT_OPS:
            assert out == "?"


def test_identities_and_reorderability():
    assert U.add.identity == 0 and U.multiply.identity == 1
    assert U.bitwise_and.identity == -1 and U.bitwise_or.identity == 0
    assert U.maximum.identity is None and U.minimum.identity is None
    assert U.subtract.identity is None and U.divide.identity is None
    empty = np.zeros((0, 3), np.int32)
    for name in ["add", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor"]:
        compare_methods(getattr(U, name), getattr(np, name), "reduce", empty)
        compare_methods(getattr(U, name), getattr(np, name), "reduce", empty, axis=None)
    for name in ["maximum", "minimum", "subtract"]:
        with pytest.raises(ValueError):
            getattr(U, name).reduce(np.zeros(0))
    # maximum: no identity but reorderable (a tuple of axes works); subtract is not
    x = np.arange(24).reshape(2, 3, 4)
    assert_same(U.maximum.reduce(x, axis=(0, 2)), np.maximum.reduce(x, axis=(0, 2)))
    assert_same(U.maximum.reduce(np.zeros((0, 2)), axis=0, initial=-5.0), np.full(2, -5.0))
    with pytest.raises(ValueError):
        U.subtract.reduce(x, axis=(0, 2))


def test_types_include_every_dtype():
    """types lists the builtin loops (bfloat16's is registered for ml_dtypes' dtype and,
    as for NumPy's own ufuncs with ml_dtypes, is not in types); every twin runs on
    every dtype it accepts."""
    chars = {np.dtype(d).char for d in ALL_DTYPES if d != BF16}
    for name in TWIN_NAMES:
        u = getattr(U, name)
        firsts = {t[0] for t in u.types if t[:2] not in ("lL", "Ll")}
        base = base_name(name)
        want = {c for c in chars if expected_error(base, np.dtype(c)) is None}
        # int64 may be spelled 'l' or 'q'
        norm = {np.dtype(c).char for c in firsts}
        assert norm == {np.dtype(c).char for c in want}, (name, norm, want)
        if expected_error(base, BF16) is None:
            r = u(np.ones(2, BF16), np.ones(2, BF16))
            assert r.dtype == (np.bool_ if base in BOOL_RESULT_OPS else BF16)


@pytest.mark.parametrize("name", ALL_OPS)
def test_fast_door_attributes(name):
    f = getattr(eltwise, name)
    twin = U.mod if name == "remainder" else getattr(U, name)
    assert repr(f) == f"<eltwise function '{name}'>"
    assert f.__name__ == f.__qualname__ == name and f.__module__ == "eltwise"
    assert f.ufunc is twin
    for attr in ["nin", "nout", "nargs", "ntypes", "types", "identity", "signature"]:
        assert getattr(f, attr) == getattr(twin, attr), attr
    for meth in ["reduce", "accumulate", "reduceat", "outer", "at"]:
        bound = getattr(f, meth)
        assert bound.__self__ is twin and bound == getattr(twin, meth)
    # private names are not lent: numpy must not take the function for an array-like
    for private in ["__array_ufunc__", "_get_loop"]:
        with pytest.raises(AttributeError):
            getattr(f, private)
    with pytest.raises(AttributeError):
        f.no_such_attribute  # noqa: B018
    assert not isinstance(f, np.ufunc)


def test_fast_door_methods_work():
    x = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    assert_same(eltwise.add.reduce(x, axis=1), np.add.reduce(x, axis=1))
    assert_same(eltwise.multiply.accumulate(x, axis=0), np.multiply.accumulate(x, axis=0))
    assert_same(eltwise.subtract.outer(x[0], x[1]), np.subtract.outer(x[0], x[1]))
    assert_same(eltwise.maximum.reduceat(x.ravel(), [0, 5, 2]),
                np.maximum.reduceat(x.ravel(), [0, 5, 2]))
    assert_same(eltwise.divide.reduce(np.array([-100, 3, 2])), np.array(-17)[()])
    y = np.zeros(4, np.int64)
    eltwise.add.at(y, [1, 1, 3], 2)
    assert_same(y, np.array([0, 4, 0, 2], np.int64))


# ---------------------------------------------------------------------------
# eltwise's semantics in the twins


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_integer_divide_floors_and_truncates(dtype, target):
    v = edge_values(dtype)
    a, b = np.repeat(v, len(v)), np.tile(v, len(v))
    with np.errstate(divide="ignore", over="ignore"):
        assert_same(U.divide(a, b), np.floor_divide(a, b))
        assert_same(U.divide_trunc(a, b), trunc_divide(a, b))
        assert_same(U.divide(a, b), eltwise.divide(a, b))
        assert_same(U.divide_trunc(a, b), eltwise.divide(a, b, pythondiv=False))
        # integers stay integers
        assert U.divide(a, b).dtype == dtype and U.divide_trunc(a, b).dtype == dtype
        zero = b == 0
        if zero.any():
            assert not U.divide(a, b)[zero].any() and not U.divide_trunc(a, b)[zero].any()
    if dtype.kind == "i":
        mn = np.iinfo(dtype).min
        minus1 = np.array(-1, dtype)
        assert U.divide(np.array(mn, dtype), minus1) == mn
        assert U.divide_trunc(np.array(mn, dtype), minus1) == mn
        assert U.mod(np.array(mn, dtype), minus1) == 0
        assert_same(U.divide(np.array([7, -7], dtype), np.array([2, 2], dtype)),
                    np.array([3, -4], dtype))
        assert_same(U.divide_trunc(np.array([7, -7], dtype), np.array([2, 2], dtype)),
                    np.array([3, -3], dtype))


@pytest.mark.parametrize("name", INT_DIV_OPS + ["divide_trunc"])
@pytest.mark.parametrize("dtype", [np.dtype(np.int8), np.dtype(np.int64), np.dtype(np.uint32)],
                         ids=dtype_id)
def test_integer_division_by_zero_errstate(name, dtype):
    u = getattr(U, name)
    a = np.array([5, 6, 7, 8] * 20, dtype)
    b = np.array([1, 0, 2, 3] * 20, dtype)
    # NumPy names the ufunc: "divide", "floor_divide", "mod", "fmod"; divide_trunc's
    # twin says "divide_trunc" (the fast door with pythondiv=False says "divide")
    message = r"divide by zero encountered in " + {
        "mod": "(mod|remainder)", "remainder": "(mod|remainder)"}.get(name, name)
    with pytest.warns(RuntimeWarning, match=message):
        r = u(a, b)  # the default errstate is warn
    assert r.dtype == dtype and not r[1::4].any()
    with warnings.catch_warnings(), np.errstate(divide="ignore"):
        warnings.simplefilter("error")
        r2 = u(a, b)
    assert_same(r2, r)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError, match=message):
        u(a, b)
    # no zero divisor: nothing to report even under raise
    with np.errstate(all="raise"):
        u(a, b + 1)
    # scalar divisor zero, and a single element
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        u(a, 0)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        u(np.array(3, dtype), np.array(0, dtype))


@pytest.mark.parametrize("name", ["divide", "floor_divide", "mod", "fmod", "divide_trunc",
                                  "add", "multiply", "subtract", "power", "squared_difference"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_float_results_report_nothing(name, dtype):
    """As the fast door (docs/semantics.md: "Exactness"): float division by zero, overflow and invalid results
    are IEEE values and report nothing, even under errstate(all='raise'). NumPy's own
    ufuncs warn there ("divide by zero encountered in divide", "overflow encountered in
    add", ...): a deliberate difference."""
    big = float(edge_values(dtype)[np.isfinite(edge_values(dtype).astype(np.float64))].astype(
        np.float64).max())
    a = np.array([1.0, -1.0, 0.0, np.inf, big, big], dtype)
    b = np.array([0.0, 0.0, 0.0, np.inf, -big, big], dtype)
    u = getattr(U, name)
    with np.errstate(all="raise"):
        got = u(a, b)
        want = fast_door(name)(a, b)
    assert_same(got, want, ulp=0)


def test_mixed_int64_uint64():
    """int64 with uint64: comparisons exact (no float64 rounding), divide floors or
    truncates the quotient computed in float64, as the fast door does."""
    a = np.array([-1, 2**62, -2**63, 7, -7, 2**63 - 1, 2**53 + 1, -5], np.int64)
    b = np.array([2**64 - 1, 2**62, 3, 2, 2, 2**63 - 1, 2**53, 2], np.uint64)
    for name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
        for x1, x2 in [(a, b), (b, a), (a, b[3]), (a[1], b)]:
            got = getattr(U, name)(x1, x2)
            assert_same(got, getattr(np, name)(x1, x2), contiguous=False)
            assert_same(got, getattr(eltwise, name)(x1, x2), contiguous=False)
    # the float64 conversion would say 2**53 + 1 == 2**53; exact comparison does not
    assert not U.equal(a[6], b[6]) and U.greater(a[6], b[6])
    for x1, x2 in [(a, b), (b, a)]:
        got = U.divide(x1, x2)
        assert got.dtype == np.float64
        assert_same(got, np.floor_divide(x1, x2))
        assert_same(got, eltwise.divide(x1, x2))
        got = U.divide_trunc(x1, x2)
        assert_same(got, eltwise.divide(x1, x2, pythondiv=False))
        assert_same(got, np.trunc(np.true_divide(x1, x2)))
    assert_same(U.divide(np.array([-7], np.int64), np.array([2], np.uint64)), np.array([-4.0]))
    assert_same(U.divide_trunc(np.array([-7], np.int64), np.array([2], np.uint64)),
                np.array([-3.0]))


# ---------------------------------------------------------------------------
# 3. pickling


def public_objects():
    objs = [(n, getattr(eltwise, n)) for n in eltwise.__all__
            if n not in ("ufunc", "__version__")]
    objs += [(f"ufunc.{n}", getattr(U, n)) for n in U.__all__]
    objs += [(repr(m), m) for m in eltwise.Op]
    objs += [(repr(m), m) for m in eltwise.Broadcast]
    objs += [("Op", eltwise.Op), ("Broadcast", eltwise.Broadcast)]
    return objs


@pytest.mark.parametrize("protocol", range(2, pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip_identity(protocol):
    objs = public_objects()
    names = {n for n, _ in objs}
    assert {"divide", "elementwise", "ufunc.divide_trunc", "ufunc.remainder"} <= names
    assert len([n for n in names if n.startswith("ufunc.")]) == len(ALL_OPS) + 1
    for label, obj in objs:
        data = pickle.dumps(obj, protocol=protocol)
        assert pickle.loads(data) is obj, label
    # by name: the payload names the module and the function, nothing else
    assert b"eltwise" in pickle.dumps(eltwise.divide, protocol=protocol)
    assert len(pickle.dumps(eltwise.divide, protocol=protocol)) < 64
    assert pickle.loads(pickle.dumps([eltwise.divide, U.divide_trunc, eltwise.Op.DIV],
                                     protocol=protocol)) == [eltwise.divide, U.divide_trunc,
                                                             eltwise.Op.DIV]


def _pool_calls(context):
    a = np.array([7, -7, 9, 1], np.int32)
    b = np.array([2, 2, -4, 5], np.int32)
    mp = multiprocessing.get_context(context)
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=mp)
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns about fork() in a process with threads
            warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork")
            futures = [pool.submit(eltwise.divide, a, b), pool.submit(U.divide, a, b),
                       pool.submit(U.divide_trunc, a, b),
                       pool.submit(eltwise.divide, a, b, pythondiv=False),
                       pool.submit(eltwise.elementwise, a, b, eltwise.Op.DIV),
                       pool.submit(pickle.loads, pickle.dumps(eltwise.divide))]
            results = [f.result(timeout=120) for f in futures]
    finally:
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
                p.join(timeout=10)
    floor = np.array([3, -4, -3, 0], np.int32)
    trunc = np.array([3, -3, -2, 0], np.int32)
    assert_same(results[0], floor)
    assert_same(results[1], floor)
    assert_same(results[2], trunc)
    assert_same(results[3], trunc)
    assert_same(results[4], floor)
    assert results[5] is eltwise.divide  # unpickled in the child, pickled back by name


@pytest.mark.parametrize("context", ["spawn", "fork"])
def test_process_pool(context):
    if context not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {context} start method")
    _pool_calls(context)


# ---------------------------------------------------------------------------
# delegation: the fast door with foreign operands


def masked_pair(dtype, rng, shape=(4, 6), positive=False):
    """Two masked arrays; the masked elements hold garbage (huge or odd values)."""
    a = rng.integers(1, 20, shape)
    b = rng.integers(1, 9, shape)
    if not positive:
        a = a * rng.choice([-1, 1], shape)
        b = b * rng.choice([-1, 1], shape)
    m1 = rng.random(shape) < 0.3
    m2 = rng.random(shape) < 0.3
    x1 = np.ma.masked_array(a.astype(dtype), mask=m1)
    x2 = np.ma.masked_array(b.astype(dtype), mask=m2)
    if np.dtype(dtype).kind == "f":
        x1.data[m1] = 1e30 if dtype != np.float16 else 6e4
    return x1, x2


def check_masked(got, want):
    assert type(got) is np.ma.MaskedArray, type(got)
    assert type(want) is np.ma.MaskedArray
    assert_same(np.ma.getmaskarray(got), np.ma.getmaskarray(want), contiguous=False)
    assert_same(got.data, want.data, contiguous=False)


@pytest.mark.parametrize("dtype", [np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.float64),
                                   np.dtype(np.float32)], ids=dtype_id)
@pytest.mark.parametrize("name", sorted(NUMPY_UFUNC) + ["divide"])
def test_masked_arrays_as_numpy(name, dtype, rng):
    """Data and mask as numpy's own ufunc gives them on the same masked arrays (no zero
    divisor: see test_masked_division_by_zero); masked elements stay masked."""
    if expected_error(name, dtype) is not None:
        return
    x1, x2 = masked_pair(dtype, rng, positive=(dtype.kind == "u" or name == "power"))
    if name == "power" and dtype.kind in "iu":
        x2 = x2 % 4
    nu = NUMPY_UFUNC.get(name) or (np.floor_divide if dtype.kind in "iu" else np.divide)
    with np.errstate(all="ignore"):
        got = getattr(eltwise, name)(x1, x2)
        want = nu(x1, x2)
    check_masked(got, want)
    # the mask covers every masked operand element, and filled() shows no garbage
    m = np.ma.getmaskarray(x1) | np.ma.getmaskarray(x2)
    assert (np.ma.getmaskarray(got)[m]).all()
    assert_same(got.filled(), want.filled(), contiguous=False)
    assert (got.filled()[m] == np.array(got.fill_value).astype(got.dtype)).all()
    # a masked array with a plain ndarray and a scalar
    with np.errstate(all="ignore"):
        check_masked(getattr(eltwise, name)(x1, x2.data), nu(x1, x2.data))
        check_masked(getattr(eltwise, name)(x1.data, x2), nu(x1.data, x2))
        check_masked(getattr(eltwise, name)(x1, 3), nu(x1, 3))


def test_masked_arrays_issue_example():
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    got = eltwise.add(m, 2.0)
    check_masked(got, np.add(m, 2.0))
    assert got.tolist() == [3.0, None, 5.0]


def test_masked_squared_difference_and_divide_trunc(rng):
    x1, x2 = masked_pair(np.int32, rng)
    got = eltwise.squared_difference(x1, x2)
    assert type(got) is np.ma.MaskedArray
    assert_same(got.data, eltwise.squared_difference(x1.data, x2.data))
    assert_same(got.mask, x1.mask | x2.mask)
    got = eltwise.divide(x1, x2, pythondiv=False)
    assert type(got) is np.ma.MaskedArray
    assert_same(got.data, eltwise.divide(x1.data, x2.data, pythondiv=False))
    assert_same(got.data, trunc_divide(x1.data, x2.data))
    assert_same(got.mask, x1.mask | x2.mask)
    assert (got.data != eltwise.divide(x1.data, x2.data)).any()  # truncation, not floor


def test_masked_division_by_zero():
    """eltwise's semantics: an integer zero divisor gives 0 (reported through errstate),
    a float one gives inf; the element is not masked. numpy.ma masks such elements only
    for NumPy's own division ufuncs (its domain table, numpy.ma.core.ufunc_domain, is
    keyed by those objects): a difference by design, written down here. A zero under a
    mask stays masked either way."""
    x1 = np.ma.masked_array([7, 8, 9, 10], mask=[0, 0, 1, 0])
    x2 = np.ma.masked_array([2, 0, 0, 0], mask=[0, 0, 0, 1])
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in divide"):
        got = eltwise.divide(x1, x2)
    assert type(got) is np.ma.MaskedArray
    assert got.mask.tolist() == [False, False, True, True]
    assert got.data[:2].tolist() == [3, 0]
    with np.errstate(divide="ignore"):
        want = np.floor_divide(x1, x2)
    assert want.mask.tolist() == [False, True, True, True]  # numpy's domain mask
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        eltwise.divide(x1, x2)
    with np.errstate(all="raise"):
        got = eltwise.divide(x1.astype(float), x2.astype(float))
    assert got.data[1] == np.inf and not got.mask[1]


def delegation_dtype_failures(names, dtypes):
    a, b = DTYPE_OPERANDS
    failures = []
    for name in names:
        base = base_name(name)
        kw = {"pythondiv": False} if name == "divide_trunc" else {}
        y = np.abs(b) if base == "power" else b
        fast = getattr(eltwise, base)
        for dt in dtypes:
            want = call_or_error(fast, a, y, dtype=dt, **kw)
            got = call_or_error(fast, np.ma.masked_array(a, mask=[0, 1, 0, 0, 0]), y,
                                dtype=dt, **kw)
            if isinstance(want, Exception):
                assert isinstance(got, TypeError), (name, dt, got)
                continue
            if isinstance(got, Exception):
                failures.append(f"eltwise.{base}(masked int8, int8, dtype={dt}"
                                f"{', pythondiv=False' if kw else ''}) raised {got!r}; "
                                f"on plain arrays it gives {want.dtype}")
                continue
            assert type(got) is np.ma.MaskedArray
            assert_same(got.data, want, contiguous=False)
            assert got.mask.tolist() == [False, True, False, False, False]
    return failures


def test_delegation_dtype_keyword():
    """dtype= means the same through delegation as on the fast door: the computation
    dtype (docs/semantics.md: "Operands and dtypes"), for the functions with a numeric result."""
    names = [n for n in TWIN_NAMES if base_name(n) not in BOOL_RESULT_OPS]
    assert not delegation_dtype_failures(names, [np.dtype(np.int16), np.dtype(np.float32)])


def test_delegation_dtype_keyword_bool_results():
    """For bool-result functions NumPy's ufunc dtype= names the *output*, so passing
    dtype=float32 on to the twin is a TypeError; the fast door computes in float32 and
    returns bool. The delegate has to ask for the loop (signature=(dt, dt, None))."""
    names = [n for n in TWIN_NAMES if base_name(n) in BOOL_RESULT_OPS]
    failures = delegation_dtype_failures(names, [np.dtype(np.int16), np.dtype(np.float32)])
    assert not failures, "\n".join(failures)


def test_delegation_dtype_bfloat16():
    """dtype=bfloat16 through delegation, operands not bfloat16 (see test_twin_dtype_bfloat16)."""
    failures = delegation_dtype_failures(TWIN_NAMES, [BF16])
    assert not failures, "\n".join(failures)


def test_masked_pdpd_and_none(rng):
    x1 = np.ma.masked_array(np.arange(24.0).reshape(2, 3, 4),
                            mask=np.arange(24).reshape(2, 3, 4) % 5 == 0)
    x2 = np.ma.masked_array([10.0, 20.0, 30.0], mask=[False, True, False])
    got = eltwise.add(x1, x2, broadcast="pdpd", axis=1)
    assert type(got) is np.ma.MaskedArray and got.shape == (2, 3, 4)
    assert_same(got.data, eltwise.add(x1.data, x2.data, broadcast="pdpd", axis=1))
    assert_same(got.mask, x1.mask | x2.mask[None, :, None])
    # x2 plain, x1 masked; default axis (-1 -> trailing)
    y2 = np.arange(12.0).reshape(3, 4)
    got = eltwise.multiply(x1, y2, broadcast="pdpd")
    assert_same(got.data, eltwise.multiply(x1.data, y2, broadcast="pdpd"))
    assert_same(got.mask, x1.mask)
    # OpenVINO's pdpd examples through delegation, x2 masked
    a = np.ma.masked_array(rng.standard_normal((2, 3, 4, 5)), mask=rng.random((2, 3, 4, 5)) < .2)
    for shape2, axis in [((3, 4), 1), ((3, 1), 1), ((4, 5), -1), ((4, 5), 2), ((1, 3), 0),
                         ((), -1), ((5,), -1), ((5,), 3)]:
        b = np.ma.masked_array(rng.standard_normal(shape2), mask=rng.random(shape2) < .3)
        got = eltwise.subtract(a, b, broadcast="pdpd", axis=axis)
        assert got.shape == (2, 3, 4, 5) and type(got) is np.ma.MaskedArray
        assert_same(got.data, eltwise.subtract(a.data, b.data, broadcast="pdpd", axis=axis))
        bm = np.ma.getmaskarray(b)
        assert_same(got.mask, np.ma.getmaskarray(a) | np.broadcast_to(
            eltwise.logical_or(np.zeros(a.shape, bool), bm, broadcast="pdpd", axis=axis),
            a.shape))
    # pdpd errors: the fast door's ValueError and message
    for shape1, shape2, axis in [((8, 1, 6, 1), (7, 1, 5), 1), ((2, 3, 4, 5), (3, 1), -1),
                                 ((2, 3), (2, 3, 1, 4), -1), ((2, 3, 4), (3,), -2)]:
        m1 = np.ma.masked_array(np.zeros(shape1))
        with pytest.raises(ValueError) as fast_err:
            eltwise.add(np.zeros(shape1), np.zeros(shape2), broadcast="pdpd", axis=axis)
        with pytest.raises(ValueError, match=re.escape(str(fast_err.value))):
            eltwise.add(m1, np.zeros(shape2), broadcast="pdpd", axis=axis)
    # none: identical shapes only, the fast door's message
    with pytest.raises(ValueError) as fast_err:
        eltwise.add(x1.data, np.ones(4), broadcast="none")
    with pytest.raises(ValueError, match=re.escape(str(fast_err.value))):
        eltwise.add(x1, np.ones(4), broadcast="none")
    with pytest.raises(ValueError, match=re.escape(str(fast_err.value))):
        eltwise.add(x1, np.ma.masked_array(np.ones(4)), broadcast=eltwise.Broadcast.NONE)
    got = eltwise.add(x1, x1, broadcast="none")
    check_masked(got, np.add(x1, x1))
    # numpy mode with mismatched shapes: numpy's own message
    with pytest.raises(ValueError, match="could not be broadcast"):
        eltwise.add(x1, np.ones(3))
    # axis with a mode other than pdpd is refused before delegation
    with pytest.raises(ValueError) as fast_err:
        eltwise.add(x1.data, x1.data, axis=1)
    with pytest.raises(ValueError, match=re.escape(str(fast_err.value))):
        eltwise.add(x1, x1, axis=1)


def test_masked_out():
    x1 = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    o1 = np.ma.masked_array(np.zeros(3), mask=[0, 0, 0])
    o2 = np.ma.masked_array(np.zeros(3), mask=[0, 0, 0])
    r = eltwise.add(x1, 1.0, out=o1)
    np.add(x1, 1.0, out=o2)
    assert r is o1
    check_masked(o1, o2)
    # out masked, operands plain: delegation too (the out's type decides)
    o3 = np.ma.masked_array(np.zeros(3), mask=[1, 0, 0])
    o4 = o3.copy()
    r = eltwise.multiply(np.arange(3.0), 2.0, out=o3)
    np.multiply(np.arange(3.0), 2.0, out=o4)
    assert r is o3
    check_masked(o3, o4)
    # pdpd with a masked out
    o = np.ma.masked_array(np.zeros((2, 3)))
    r = eltwise.add(np.ones((2, 3)), np.ma.masked_array([1.0, 2.0], mask=[0, 1]), out=o,
                    broadcast="pdpd", axis=0)
    assert r is o and o.mask.tolist() == [[False] * 3, [True] * 3]
    assert o.data[0].tolist() == [2.0, 2.0, 2.0]


def test_matrix_and_subclass_survive():
    m = make_matrix([[1, 2], [3, 4]])
    got = eltwise.multiply(m, m)
    assert type(got) is np.matrix
    assert_same(np.asarray(got), np.asarray(np.multiply(m, m)))  # element-wise, not m @ m
    assert type(eltwise.divide(m, 2)) is np.matrix
    assert_same(np.asarray(eltwise.divide(m, 2)), np.array([[0, 1], [1, 2]]))
    got = eltwise.add(m, np.array([10, 20]), broadcast="pdpd", axis=1)
    assert type(got) is np.matrix and got.tolist() == [[11, 22], [13, 24]]
    t = Tagged(np.array([7, -7, 9], np.int64), tag="mine")
    for name in ["divide", "add", "less", "maximum"]:
        got = getattr(eltwise, name)(t, np.int64(2))
        assert type(got) is Tagged and got.tag == "mine", name
        assert_same(np.asarray(got), getattr(eltwise, name)(np.asarray(t), np.int64(2)))
    got = eltwise.divide(t, 2, pythondiv=False)
    assert_same(np.asarray(got), np.array([3, -3, 4], np.int64))
    got = eltwise.divide(np.array([1, 2, 3]), t)  # the subclass as x2
    assert type(got) is Tagged
    got = eltwise.add(np.arange(6).reshape(2, 3), Tagged(np.array([1, 2])), broadcast="pdpd",
                      axis=0)
    assert type(got) is Tagged and got.tolist() == [[1, 2, 3], [5, 6, 7]]
    got = eltwise.add(t, t, dtype=np.float32)
    assert type(got) is Tagged and got.dtype == np.float32


class Duck:
    """A duck array with its own __array_ufunc__ that records what it received."""

    def __init__(self, data, log=None):
        self.data = np.asarray(data)
        self.log = [] if log is None else log

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    def reshape(self, shape):
        self.log.append(("reshape", tuple(shape)))
        return Duck(self.data.reshape(shape), self.log)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self.log.append((ufunc, method, inputs, dict(kwargs)))
        plain = [x.data if isinstance(x, Duck) else x for x in inputs]
        return Duck(getattr(ufunc, method)(*plain, **kwargs), self.log)


def test_duck_array_receives_the_twin():
    d = Duck(np.array([7, -7, 9]))
    r = eltwise.divide(d, 2)
    assert isinstance(r, Duck)
    ufunc, method, inputs, kwargs = d.log[-1]
    assert ufunc is U.divide and method == "__call__"
    # where=True (NumPy's default) keeps pandas from swapping in its own operator
    assert inputs[0] is d and inputs[1] == 2 and kwargs == {"where": True}
    assert_same(r.data, np.array([3, -4, 4]))
    r = eltwise.divide(d, 2, pythondiv=False)
    assert d.log[-1][0] is U.divide_trunc
    assert_same(r.data, np.array([3, -3, 4]))
    r = eltwise.divide(10, d)  # the duck as x2
    assert d.log[-1][0] is U.divide and d.log[-1][2][0] == 10
    r = eltwise.add(d, 1, dtype=np.float32)
    assert d.log[-1][3] == {"where": True, "signature": (np.dtype(np.float32),) * 2 + (None,)}
    assert r.data.dtype == np.float32
    o = np.zeros(3, np.int64)
    eltwise.multiply(d, 3, out=o)
    assert d.log[-1][3]["out"] == (o,) and o.tolist() == [21, -21, 27]
    for name in ALL_OPS:
        n_before = len(d.log)
        getattr(eltwise, name)(d, np.array([1, 2, 3]))
        assert len(d.log) == n_before + 1 and d.log[-1][0] is getattr(eltwise, name).ufunc


def test_duck_array_pdpd_reshapes_x2():
    x1 = np.arange(24.0).reshape(2, 3, 4)
    d = Duck(np.array([1.0, 2.0, 3.0]))
    r = eltwise.multiply(x1, d, broadcast="pdpd", axis=1)
    # x2 reshaped (through its own reshape) so that numpy broadcasting puts it at axis 1
    assert d.log[0][0] == "reshape" and d.log[0][1] in [(3, 1), (1, 3, 1)]
    assert d.log[-1][0] is U.multiply and d.log[-1][2][1].shape == d.log[0][1]
    assert_same(r.data, eltwise.multiply(x1, d.data, broadcast="pdpd", axis=1))
    # trailing 1s of x2 dropped (pdpd step 3), then placed at axis
    d = Duck(np.ones((3, 1)))
    r = eltwise.add(np.zeros((2, 3, 4, 5)), d, broadcast="pdpd", axis=1)
    assert r.data.shape == (2, 3, 4, 5)
    # x1 the duck: x2 is a plain array reshaped by NumPy
    d = Duck(x1)
    r = eltwise.subtract(d, np.array([1.0, 2.0]), broadcast="pdpd", axis=0)
    assert_same(r.data, eltwise.subtract(x1, np.array([1.0, 2.0]), broadcast="pdpd", axis=0))
    with pytest.raises(ValueError, match="pdpd"):
        eltwise.add(Duck(np.zeros((2, 3))), np.zeros(3), broadcast="pdpd", axis=0)


def test_pandas_series_misaligned():
    pd = pytest.importorskip("pandas")
    s1 = pd.Series([1.0, 2.0, 3.0], index=list("abc"))
    s2 = pd.Series([1.0, 2.0, 3.0], index=list("cba"))
    got = eltwise.add(s1, s2)
    want = np.add(s1, s2)
    pd.testing.assert_series_equal(got, want)
    assert got.to_dict() == {"a": 4.0, "b": 4.0, "c": 4.0}
    s3 = pd.Series([10.0, 20.0, 30.0], index=list("bcd"), name="s3")
    for name in ["add", "multiply", "maximum", "squared_difference", "power"]:
        got = getattr(eltwise, name)(s1, s3)
        if name == "squared_difference":
            want = np.multiply(np.subtract(s1, s3), np.subtract(s1, s3))
        else:
            want = getattr(np, name)(s1, s3)
        pd.testing.assert_series_equal(got, want, check_names=False)
        assert list(got.index) == ["a", "b", "c", "d"]
    assert np.isnan(eltwise.add(s1, s3)["a"]) and np.isnan(eltwise.add(s1, s3)["d"])
    # comparisons of misaligned Series: pandas' own operator (which np.less without
    # keywords reaches) refuses them; eltwise passes where=True, so pandas aligns the
    # labels first, as for arithmetic: the same as np.less(s1, s3, where=True)
    with pytest.raises(ValueError):
        np.less(s1, s3)
    pd.testing.assert_series_equal(eltwise.less(s1, s3), np.less(s1, s3, where=True))
    assert eltwise.less(s1, s3).to_dict() == {"a": False, "b": True, "c": True, "d": False}
    pd.testing.assert_series_equal(eltwise.less(s1, 2 * s1[::-1].sort_index()),
                                   np.less(s1, 2 * s1[::-1].sort_index()))
    # a Series with a plain array and a scalar
    pd.testing.assert_series_equal(eltwise.subtract(s1, np.array([1.0, 1.0, 1.0])),
                                   np.subtract(s1, np.array([1.0, 1.0, 1.0])))
    pd.testing.assert_series_equal(eltwise.multiply(2.0, s1), np.multiply(2.0, s1))


def test_pandas_dataframe():
    pd = pytest.importorskip("pandas")
    df1 = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]}, index=["x", "y"])
    df2 = pd.DataFrame({"b": [10.0, 20.0], "c": [5.0, 6.0]}, index=["y", "z"])
    pd.testing.assert_frame_equal(eltwise.add(df1, df2), np.add(df1, df2))
    pd.testing.assert_frame_equal(eltwise.maximum(df1, 2.5), np.maximum(df1, 2.5))
    pd.testing.assert_frame_equal(eltwise.multiply(df1, df1), np.multiply(df1, df1))


@pytest.mark.parametrize("name,kw", [("divide", {}), ("divide", {"pythondiv": False}),
                                     ("floor_divide", {}), ("mod", {}), ("remainder", {}),
                                     ("fmod", {}), ("power", {}), ("bitwise_and", {}),
                                     ("equal", {})])
def test_pandas_keeps_eltwise_semantics(name, kw):
    """Through pandas, an eltwise function computes what it computes on the Series'
    values: eltwise.divide on an int64 Series floors and stays int64 (docs/semantics.md: "Operands and dtypes", "Exactness"),
    integer division by zero gives 0, as the fast door on the same values."""
    pd = pytest.importorskip("pandas")
    s = pd.Series([7, -7, 5, 9], index=list("wxyz"), name="s")
    for divisor in [2, 0] if name not in ("power", "bitwise_and", "equal") else [2]:
        with np.errstate(divide="ignore"):
            got = getattr(eltwise, name)(s, divisor, **kw)
            want = pd.Series(getattr(eltwise, name)(s.to_numpy(), divisor, **kw),
                             index=s.index, name="s")
        pd.testing.assert_series_equal(got, want, obj=f"eltwise.{name}(Series, {divisor})")


def test_xarray_keeps_coords():
    xr = pytest.importorskip("xarray")
    da = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("x", "y"),
                      coords={"x": [10, 20], "y": list("abc")}, name="v",
                      attrs={"units": "m"})
    db = xr.DataArray(np.array([1.0, 2.0, 4.0]), dims=("y",), coords={"y": list("abc")},
                      name="v")
    for name in ["add", "divide", "maximum", "less"]:
        for x1, x2 in [(da, 1.0), (da, db), (db, da), (da, da)]:
            got = getattr(eltwise, name)(x1, x2)
            with np.errstate(divide="ignore", invalid="ignore"):  # numpy warns on 0/0
                want = getattr(np, name)(x1, x2)
            xr.testing.assert_identical(got, want)
    di = xr.DataArray(np.array([7, -7, 9]), dims=("t",), coords={"t": [1, 2, 3]}, name="i")
    got = eltwise.divide(di, 2)
    assert isinstance(got, xr.DataArray) and got.dtype == di.dtype
    assert got.name == "i" and list(got.coords["t"].values) == [1, 2, 3]
    assert_same(got.values, np.array([3, -4, 4]))
    assert_same(eltwise.divide(di, 2, pythondiv=False).values, np.array([3, -3, 4]))
    # misaligned coordinates: aligned by label as numpy.add aligns them
    dc = xr.DataArray(np.array([1, 2, 3]), dims=("t",), coords={"t": [2, 3, 4]}, name="i")
    xr.testing.assert_identical(eltwise.add(di, dc), np.add(di, dc))
    # pdpd with a DataArray x1 and a plain x2: x2 is reshaped to (2, 1), then xarray
    # broadcasts the plain array by position and keeps x1's dims and coords
    got = eltwise.add(da, np.array([1.0, 2.0]), broadcast="pdpd", axis=0)
    assert isinstance(got, xr.DataArray)
    assert_same(got.values, eltwise.add(da.values, np.array([1.0, 2.0]), broadcast="pdpd",
                                         axis=0))
    assert got.dims == ("x", "y") and list(got.coords["x"].values) == [10, 20]


# ---------------------------------------------------------------------------
# the fast path stays for plain operands


def test_fast_path_returns_plain_types_without_delegating():
    calls = []

    def spy(*args):
        calls.append(args[0])
        return _delegation.call(*args)

    _eltwise._set_delegate(spy)
    try:
        a = np.arange(6.0).reshape(2, 3)
        assert type(eltwise.add(a, a)) is np.ndarray
        assert type(eltwise.add(a, 1)) is np.ndarray
        assert type(eltwise.add([1, 2], [3, 4])) is np.ndarray
        assert type(eltwise.add((1, 2), 3.0)) is np.ndarray
        assert type(eltwise.divide(7, 2)) is np.int64
        assert type(eltwise.divide(7.0, 2)) is np.float64
        assert type(eltwise.add(np.float32(1), np.float32(2))) is np.float32
        assert type(eltwise.add(np.array(1.0), np.array(2.0))) is np.float64
        assert type(eltwise.less(np.int8(1), 2)) is np.bool_
        assert type(eltwise.add(True, False)) is np.bool_
        assert type(eltwise.add(np.ones(3, BF16), np.ones(3, BF16))) is np.ndarray
        assert type(eltwise.add(a, np.ones(3), broadcast="pdpd")) is np.ndarray
        o = np.zeros((2, 3))
        assert eltwise.add(a, a, out=o) is o
        assert calls == [], calls
        # a foreign operand does go through the delegate
        eltwise.add(np.ma.masked_array(a), 1.0)
        eltwise.add(a, Tagged(a))
        eltwise.add(a, a, out=np.ma.masked_array(o))
        assert calls == ["add", "add", "add"]
    finally:
        _eltwise._set_delegate(_delegation.call)
    assert eltwise.add(np.ma.masked_array([1.0]), 1.0).mask is not None
