"""Shared helpers for the eltwise test suite: dtype lists, value generators,
NumPy reference implementations and bit-exact comparison."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np

from eltwise._names import DTYPE_TABLE, FUNCTION_TABLE, names_where

BF16 = np.dtype(ml_dtypes.bfloat16)


def _dtype(row) -> np.dtype:
    return np.dtype(getattr(ml_dtypes, row["name"]) if row["source"] == "ml_dtypes" else row["name"])


# The dtype lists, from the dtype table (src/core/dtype.h); test_op_table.py
# checks the table against NumPy and ml_dtypes. The lists below are the native
# dtypes (each element its own value); the coded ones (ml_dtypes' float8,
# float6, float4: a code per byte) are CODED_DTYPES, tested on their own
# (test_small_dtypes.py).
_NATIVE_ROWS = [r for r in DTYPE_TABLE if not r["code_bits"]]
CODED_ROWS = [r for r in DTYPE_TABLE if r["code_bits"]]
CODED_DTYPES = [_dtype(r) for r in CODED_ROWS]
_BY_CATEGORY = {c: [_dtype(r) for r in _NATIVE_ROWS if r["category"] == c]
                for c in ("bool", "signed", "unsigned", "float")}
INT_DTYPES = _BY_CATEGORY["signed"]
UINT_DTYPES = _BY_CATEGORY["unsigned"]
INTEGER_DTYPES = INT_DTYPES + UINT_DTYPES
FLOAT_DTYPES = _BY_CATEGORY["float"]
HALF_DTYPES = [d for d in FLOAT_DTYPES if d.itemsize < 4]
ALL_DTYPES = [_dtype(r) for r in _NATIVE_ROWS]

# The op lists, from the function table (src/core/ops.h, src/python/functions.h);
# test_op_lists_match_numpy checks the table against NumPy's own behaviour.
ARITH_OPS = [r["name"] for r in FUNCTION_TABLE if r["kind"] in
             ("arithmetic", "division", "power", "extremum")]
LOGICAL_OPS = names_where(kind="logical")
BITWISE_OPS = names_where(kind="bitwise")
COMPARISON_OPS = names_where(kind="comparison")
ALL_OPS = ARITH_OPS + LOGICAL_OPS + BITWISE_OPS + COMPARISON_OPS
BOOL_RESULT_OPS = names_where(bool_result=True)
# Ops that are a TypeError on two bools.
NO_BOOL_OPS = names_where(accepts="numeric")
# Ops that report integer division by zero.
INT_DIV_OPS = names_where(divides_integers=True)
# Ops whose x2 is a divisor.
DIVISION_OPS = names_where(kind="division")

NUMPY_UFUNC = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "floor_divide": np.floor_divide, "mod": np.remainder, "remainder": np.remainder,
    "fmod": np.fmod, "power": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "equal": np.equal,
    "not_equal": np.not_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "less": np.less, "less_equal": np.less_equal,
}

def pdpd_view_shape(s1, s2, axis):
    """The shape x2 (shape s2) is viewed as under pdpd broadcasting onto x1 (shape s1)
    at `axis`, written from docs/semantics.md ("Broadcasting"), or a text saying which
    rule rejects the pair. The tests' one pdpd oracle."""
    r1, r2 = len(s1), len(s2)
    if r2 > r1:
        return f"rank(x2)={r2} > rank(x1)={r1}"
    if axis == -1:
        axis = r1 - r2  # computed before the trailing ones are dropped
    elif axis < 0:
        return f"negative axis {axis}"
    t = list(s2)
    while t and t[-1] == 1:
        t.pop()
    if axis + len(t) > r1:
        return f"axis {axis} + rank {len(t)} > {r1}"
    for i, d in enumerate(t):
        if d != s1[axis + i] and d != 1:
            return f"x2 dim {i} ({d}) != x1 dim {axis + i} ({s1[axis + i]})"
    return tuple([1] * axis + t + [1] * (r1 - axis - len(t)))


# Names under which numpy/eltwise may report division by zero for each function.
DIV_WARN_NAME = {
    "divide": "divide", "floor_divide": "floor_divide", "mod": "(mod|remainder)",
    "remainder": "(mod|remainder)", "fmod": "fmod",
}


def at_line_offset(n: int, dtype, offset: int) -> np.ndarray:
    """An uninitialized 1-d array of n elements whose data lies `offset` bytes past a
    64-byte boundary (NumPy's own allocations lie at any 16-byte offset)."""
    item = np.dtype(dtype).itemsize
    buf = np.empty(n * item + 64 + offset, np.uint8)
    start = (-buf.ctypes.data) % 64 + offset
    return buf[start:start + n * item].view(dtype)


def dtype_id(dt) -> str:
    return np.dtype(dt).name


# The coded dtypes' categories ("float", "signed", "unsigned").
_CODED_CATEGORY = {_dtype(r): r["category"] for r in CODED_ROWS}


def is_float(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or dt == BF16 or _CODED_CATEGORY.get(dt) == "float"


def int_info(dt):
    """numpy.iinfo, or ml_dtypes.iinfo for its integers (int4, uint4, int2, uint2)."""
    return ml_dtypes.iinfo(dt) if dt in _CODED_CATEGORY else np.iinfo(dt)


def is_int(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind in "iu" or _CODED_CATEGORY.get(dt) in ("signed", "unsigned")


def finfo(dt):
    dt = np.dtype(dt)
    return ml_dtypes.finfo(dt) if dt == BF16 else np.finfo(dt)


def uint_of(dt):
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dt).itemsize]


def expected_error(name: str, rt) -> type | None:
    """The exception eltwise must raise for op `name` computing in dtype `rt`."""
    rt = np.dtype(rt)
    if rt == np.bool_ and name in NO_BOOL_OPS:
        return TypeError
    if name in BITWISE_OPS and is_float(rt):
        return TypeError
    return None


# ---------------------------------------------------------------------------
# values


def edge_values(dt) -> np.ndarray:
    """Edge values of dtype `dt` (MIN, MAX, 0, -0.0, +-inf, NaN, 1, -1, ...)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return np.array([False, True])
    if is_int(dt):
        ii = np.iinfo(dt)
        mn, mx = int(ii.min), int(ii.max)
        vals = [0, 1, 2, 3, 5, 7, 10, 13, 100, 1000, 12345, mx, mx - 1, mx // 2, mx // 3,
                mx // 2 + 1, -1, -2, -3, -7, -10, -100, -1000, -12345, mn, mn + 1, mn // 2,
                mn // 3, mn // 2 - 1]
        vals = sorted({v for v in vals if mn <= v <= mx})
        return np.array(vals, dtype=dt)
    fi = finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1.5, -1.5, 2.5, -2.5,
            0.1, -0.1, 7.0, -7.0, 10.0, -10.0, 1000.0, -1000.0, 0.3, -0.75,
            float(fi.max), -float(fi.max), float(fi.smallest_normal),
            -float(fi.smallest_normal), float(fi.smallest_subnormal),
            -float(fi.smallest_subnormal), float(fi.eps), 1.0 + float(fi.eps),
            np.inf, -np.inf, np.nan]
    if dt == np.float64:
        vals += [2.0**53, -(2.0**53), 1e300, -1e300, 1e-300, 1e16 + 2.0]
    if dt == np.float32 or dt == BF16:
        vals += [2.0**24, -(2.0**24), 1e30, -1e30, 1e-30]
    with np.errstate(all="ignore"):
        return np.array(vals, dtype=np.float64).astype(dt)


def random_values(dt, n: int, rng: np.random.Generator) -> np.ndarray:
    """Random values of dtype `dt`: full range, small and medium magnitudes."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if is_int(dt):
        ii = np.iinfo(dt)
        full = rng.integers(ii.min, ii.max, size=n, endpoint=True, dtype=dt)
        lo = max(int(ii.min), -20)
        small = rng.integers(lo, 21, size=n).astype(dt)
        lo = max(int(ii.min), -3000)
        hi = min(int(ii.max), 3000)
        medium = rng.integers(lo, hi + 1, size=n).astype(dt)
        which = rng.integers(0, 3, n)
        return np.where(which == 0, full, np.where(which == 1, small, medium)).astype(dt)
    fi = finfo(dt)
    maxexp = int(np.floor(np.log2(float(fi.max)) - 1e-6))
    minexp = int(np.log2(float(fi.smallest_subnormal)))
    normal = rng.standard_normal(n) * 10.0
    wide = rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(minexp, maxexp + 0.99, n))
    ints = rng.integers(-50, 51, n).astype(np.float64)
    halves = ints + 0.5
    which = rng.integers(0, 4, n)
    vals = np.select([which == 0, which == 1, which == 2], [normal, wide, ints], halves)
    with np.errstate(all="ignore"):
        return vals.astype(dt)


def value_pool(dt, rng, n_random: int = 64) -> np.ndarray:
    return np.concatenate([edge_values(dt), random_values(dt, n_random, rng)])


def power_exponents(dt) -> np.ndarray:
    """Non-negative integer exponents of dtype dt, incl. large ones (wrapping)."""
    dt = np.dtype(dt)
    mx = int(np.iinfo(dt).max)
    vals = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 1000,
            mx, mx - 1]
    return np.array(sorted({v for v in vals if 0 <= v <= mx}), dtype=dt)


def operands(name: str, dt, shape=None, rng=0, *, kind: str = "edge", shape2=None):
    """Two operands (x1, x2) for op `name` in dtype dt: the tests' one operand generator.

    shape: x1's shape (an int: 1-d); shape2: x2's (default: shape); rng: a NumPy
    Generator, or a seed for one. Both are arrays, 0-d ones included.

    kind="edge": picks from edge values (MIN, MAX, 0, -0.0, +-inf, NaN, ...) and random
      values of the whole range (value_pool): division by zero, overflow and NaN
      included. Integer power's exponents come from power_exponents (non-negative,
      large ones wrapping); float power's from the pool, halves in [-4, 4] and
      uniform values in [-4, 4].
    kind="grid": every pair of edge values once, 1-d (integer power: every edge base
      with every power_exponents exponent); shape and rng are not used.
    kind="tame": values for tests about something else than values (out=, threads,
      dask), where nothing raises or reports: integers in [-1000, 1000] within the
      dtype's range (unsigned: [0, 1000]), floats standard normal * 10 (x2: * 3),
      random bools. A division's x2 is never 0 (either sign otherwise), integer
      power's exponent is in [0, 8] (results may wrap, as NumPy's do), float power's
      base is >= 0.
    """
    dt = np.dtype(dt)
    if kind == "grid":
        xa = edge_values(dt)
        xb = power_exponents(dt) if (name == "power" and is_int(dt)) else edge_values(dt)
        return np.repeat(xa, len(xb)), np.tile(xb, len(xa))
    rng = np.random.default_rng(rng)
    shape2 = shape if shape2 is None else shape2
    if kind == "tame":
        return _tame_operands(name, dt, shape, shape2, rng)
    if kind != "edge":
        raise ValueError(f"operands: unknown kind {kind!r}")
    pool = value_pool(dt, rng)
    a = rng.choice(pool, shape)
    if name == "power" and is_int(dt):
        b = rng.choice(power_exponents(dt), shape2)
    elif name == "power" and is_float(dt):
        exps = np.concatenate([pool, (rng.integers(-8, 9, 32) / 2.0).astype(dt),
                               rng.uniform(-4, 4, 32).astype(dt)])
        b = rng.choice(exps, shape2)
    else:
        b = rng.choice(pool, shape2)
    return a.astype(dt), b.astype(dt)


def _tame_operands(name, dt, shape, shape2, rng):
    if dt == np.bool_:
        a, b = rng.integers(0, 2, shape).astype(bool), rng.integers(0, 2, shape2).astype(bool)
    elif is_int(dt):
        ii = int_info(dt)
        lo, hi = max(int(ii.min), -1000), min(int(ii.max), 1000)
        a = rng.integers(lo, hi, shape, endpoint=True).astype(dt)
        if name == "power":
            b = rng.integers(0, min(8, hi), shape2, endpoint=True).astype(dt)
        else:
            b = rng.integers(lo, hi, shape2, endpoint=True).astype(dt)
    else:
        a = rng.standard_normal(shape) * 10
        if name == "power":
            a = np.abs(a)
        b = rng.standard_normal(shape2) * 3
        # (np.asarray: arithmetic on a 0-d array gives a scalar)
        a, b = np.asarray(a).astype(dt), np.asarray(b).astype(dt)
    if name in DIVISION_OPS:
        b[b == 0] = 1
    return a, b


# ---------------------------------------------------------------------------
# reference


def _operand(x):
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x


def _is_scalar_like(x) -> bool:
    return (isinstance(x, (bool, int, float, np.generic))
            or (isinstance(x, np.ndarray) and x.ndim == 0))


def result_dtype(x1, x2, dtype=None) -> np.dtype:
    """The dtype eltwise computes in (numpy.result_type, Python scalars weak)."""
    if dtype is not None:
        return np.dtype(dtype)
    a, b = _operand(x1), _operand(x2)
    return np.result_type(a, b)


def trunc_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C-style (truncating) integer division; x/0 == 0; MIN/-1 == MIN."""
    with np.errstate(all="ignore"):
        q = np.array(np.floor_divide(a, b), copy=True)
        r = np.remainder(a, b)
        fix = (r != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
        fix = np.broadcast_to(fix, q.shape)
        q[fix] += np.ones((), q.dtype)
    return q


def _is_python_scalar(x) -> bool:
    return isinstance(x, (bool, int, float))


def float_trunc_divide(a, b) -> np.ndarray:
    """Float division rounded toward zero: numpy's floor_divide recipe (npy_divmod)
    without its step toward -inf."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    with np.errstate(all="ignore"):
        div = (a - np.fmod(a, b)) / b
        t = np.floor(div)
        t = np.where(div - t > 0.5, t + 1, t)
        t = np.where(div == 0, np.copysign(0.0, a / b), t)
        return np.where(b == 0, a / b, t)


def reference(name: str, x1, x2, *, dtype=None, pythondiv: bool = True):
    """What eltwise.<name>(x1, x2, dtype=dtype, pythondiv=pythondiv) must return."""
    rt = result_dtype(x1, x2, dtype)
    a, b = _operand(x1), _operand(x2)
    scalar = _is_scalar_like(a) and _is_scalar_like(b)
    with np.errstate(all="ignore"):
        A = np.asarray(a).astype(rt)
        B = np.asarray(b).astype(rt)
        if dtype is None and name in NUMPY_UFUNC:
            # numpy itself on the original operands (weak scalars, exact mixed
            # int64/uint64 comparisons, ...)
            A, B = a, b
        if name == "divide":
            if is_int(rt):
                r = np.floor_divide(A, B) if pythondiv else trunc_divide(A, B)
            elif dtype is None and is_int(np.asarray(a).dtype) and is_int(np.asarray(b).dtype) \
                    and not (_is_python_scalar(a) or _is_python_scalar(b)):
                # integers whose common type is float64 (int64 with uint64) still
                # divide as integers, as numpy.floor_divide does
                r = np.floor_divide(A, B) if pythondiv else float_trunc_divide(A, B)
            else:
                r = np.divide(A, B)
        elif name == "squared_difference":
            d = np.subtract(A, B)
            r = np.multiply(d, d)
        else:
            r = NUMPY_UFUNC[name](A, B)
        if name == "power" and is_float(rt):
            r = _c99_pow_override(np.asarray(r), A, B, rt)
    r = np.asarray(r)
    want = np.dtype(bool) if name in BOOL_RESULT_OPS else rt
    assert r.dtype == want, (name, r.dtype, want)
    if scalar:
        return r[()]
    return r


def c99_pow_special(x, y):
    """(mask, value): where pow(x, y) is one of C99 Annex F's special cases, and its
    exact value. NumPy deviates in a few (scalar exponent 0.5 is sqrt, so
    pow(-inf, 0.5) is NaN; pow(1, signaling NaN) is NaN); docs/semantics.md: "Exactness" wants C99."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    x, y = np.broadcast_arrays(x, y)
    with np.errstate(all="ignore"):
        fin_y = np.isfinite(y)
        yint = fin_y & (y == np.floor(y))
        yodd = yint & (np.fmod(np.abs(y), 2.0) == 1.0)
        ax = np.abs(x)
        conds = [
            y == 0,
            x == 1,
            np.isnan(x) | np.isnan(y),
            (x == 0) & (y < 0) & yodd,
            (x == 0) & (y < 0),
            (x == 0) & (y > 0) & yodd,
            (x == 0) & (y > 0),
            (x == -1) & np.isinf(y),
            (y == -np.inf) & (ax < 1),
            (y == -np.inf) & (ax > 1),
            (y == np.inf) & (ax < 1),
            (y == np.inf) & (ax > 1),
            (x == -np.inf) & (y < 0) & yodd,
            (x == -np.inf) & (y < 0),
            (x == -np.inf) & (y > 0) & yodd,
            (x == -np.inf) & (y > 0),
            (x == np.inf) & (y < 0),
            (x == np.inf) & (y > 0),
            (x < 0) & np.isfinite(x) & fin_y & ~yint,
        ]
        vals = [
            1.0, 1.0, np.nan,
            np.copysign(np.inf, x), np.inf, x, 0.0,
            1.0,
            np.inf, 0.0, 0.0, np.inf,
            -0.0, 0.0, -np.inf, np.inf,
            0.0, np.inf,
            np.nan,
        ]
        mask = np.zeros(x.shape, bool)
        for c in conds:
            mask |= c
        value = np.select(conds, [np.broadcast_to(v, x.shape) for v in vals], np.nan)
    return mask, value


def _c99_pow_override(r, A, B, rt):
    mask, value = c99_pow_special(np.asarray(A).astype(np.float64), np.asarray(B).astype(np.float64))
    if not mask.any():
        return r
    r = np.array(np.broadcast_to(r, mask.shape), copy=True)
    r[mask] = value[mask].astype(rt)
    return r


# ---------------------------------------------------------------------------
# comparison


def _float_bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(uint_of(x.dtype))


def _isnan(x: np.ndarray) -> np.ndarray:
    if x.dtype == BF16:
        return np.isnan(x.astype(np.float32))
    return np.isnan(x)


def ulp_distance(got: np.ndarray, exp: np.ndarray) -> np.ndarray:
    """ULP distance between two float arrays of the same dtype (via bit patterns)."""
    bits = 8 * got.dtype.itemsize
    sign = np.uint64(1) << np.uint64(bits - 1)

    def ordered(x):
        u = _float_bits(x).astype(np.uint64)
        mag = (u & ~sign).astype(np.int64)
        return np.where((u & sign) != 0, -mag, mag)

    return np.abs(ordered(got) - ordered(exp))


def _describe(got, exp, bad, inputs):
    idx = np.argwhere(bad)[:8]
    lines = []
    for i in idx:
        t = tuple(int(v) for v in i)
        parts = [f"at {t}: got {got[t]!r} expected {exp[t]!r}"]
        if is_float(got.dtype):
            gbits = int(_float_bits(np.asarray(got[t]).reshape(1))[0])
            ebits = int(_float_bits(np.asarray(exp[t]).reshape(1))[0])
            parts.append(f"(bits {gbits:#x} vs {ebits:#x})")
        if inputs is not None:
            ins = []
            for x in inputs:
                xa = np.asarray(x)
                try:
                    xb = np.broadcast_to(xa, got.shape)
                    ins.append(repr(xb[t]))
                except ValueError:
                    ins.append("?")
            parts.append(f"inputs {', '.join(ins)}")
        lines.append(" ".join(parts))
    return f"{int(np.count_nonzero(bad))} mismatches of {bad.size}:\n  " + "\n  ".join(lines)


def _is_dense(x: np.ndarray) -> bool:
    """True when x's elements fill one block of memory, in some axis order."""
    if x.size == 0:
        return True
    dims = sorted((abs(s), n) for s, n in zip(x.strides, x.shape) if n > 1)
    step = x.itemsize
    for stride, n in dims:
        if stride != step:
            return False
        step *= n
    return True


def assert_same(got, exp, *, ulp: int = 0, inputs=None, zero_sign_free=None,
                contiguous: bool = True):
    """Assert eltwise's `got` equals reference `exp`: type, dtype, shape and bits.

    Floats: NaN positions must match (payload/sign of NaN is not compared), all
    other elements must be bit-identical (or within `ulp` ULPs with equal sign).
    `zero_sign_free`: optional bool mask where a zero of either sign is accepted.
    """
    if isinstance(exp, np.generic):
        assert isinstance(got, np.generic) and not isinstance(got, np.ndarray), (
            f"expected a NumPy scalar, got {type(got)}")
    else:
        assert isinstance(got, np.ndarray), f"expected ndarray, got {type(got)}"
        if contiguous:
            # A new result is dense, in NumPy's order='K' axis order (C order unless
            # the operands share another); test_result_layout checks the order itself.
            assert _is_dense(got), f"result is not dense: strides {got.strides}"
    got_a = np.asarray(got)
    exp_a = np.asarray(exp)
    assert got_a.dtype == exp_a.dtype, f"dtype {got_a.dtype} != expected {exp_a.dtype}"
    assert got_a.shape == exp_a.shape, f"shape {got_a.shape} != expected {exp_a.shape}"
    if got_a.size == 0:
        return
    if not got_a.dtype.isnative:
        got_a = got_a.astype(got_a.dtype.newbyteorder("="))
    if is_float(got_a.dtype):
        gn, en = _isnan(got_a), _isnan(exp_a)
        bad = gn != en
        both = ~(gn | en)
        gb, eb = _float_bits(got_a), _float_bits(exp_a)
        if zero_sign_free is not None:
            sign = uint_of(got_a.dtype)(1 << (8 * got_a.dtype.itemsize - 1))
            z = np.broadcast_to(zero_sign_free, got_a.shape) & ((gb & ~sign) == 0) & ((eb & ~sign) == 0)
            both = both & ~z
        if ulp == 0:
            bad |= both & (gb != eb)
        else:
            signdiff = np.signbit(got_a.astype(np.float64)) != np.signbit(exp_a.astype(np.float64))
            bad |= both & (signdiff | (ulp_distance(got_a, exp_a) > ulp))
    else:
        bad = got_a != exp_a
    bad = np.asarray(bad)
    if bad.any():
        raise AssertionError(_describe(got_a.reshape(bad.shape), exp_a.reshape(bad.shape), bad, inputs))


def ulp_for(name: str, dt) -> int:
    """Allowed ULP error: power on floats is within 1 ULP; everything else exact."""
    return 1 if (name == "power" and is_float(dt)) else 0


def shape_regex(shape) -> str:
    """Regex for a shape as (8,1,6,1), (8, 1, 6, 1), [8, 1, 6, 1], (5,) or ()."""
    shape = tuple(shape)
    if not shape:
        return r"(\(\)|\[\])"
    body = r",\s*".join(str(d) for d in shape)
    return r"[\(\[]\s*" + body + r",?\s*[\)\]]"


def numpy_broadcast_error(s1, s2) -> str:
    try:
        np.add(np.empty(s1), np.empty(s2))
    except ValueError as e:
        return str(e)
    raise AssertionError(f"{s1} and {s2} broadcast")


def escape(s: str) -> str:
    return re.escape(s)
