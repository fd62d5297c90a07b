"""The scalar divisor's own tests: src/kernels/int_divisor-inl.h, on every target.

An integer array divided by one integer (a Python int, a NumPy scalar, a 0-d or
1-element array, or a column broadcast along rows of 512 elements or more, each row one
kernel call) runs the scalar-second loop kind: IntDivideByScalar (kernels/division.cc)
prepares the divisor once per call in one of int_divisor-inl.h's forms and divides
every lane by a multiply-high and shifts. The forms, and which calls reach them:

  UDivisor<uint8_t>      8-bit lanes (every op, either sign)
  UDivisor<U>            16- to 64-bit lanes, |d|: a power of two, an N-bit magic, or an
                         (N+1)-bit magic with the add step; every op on unsigned lanes,
                         and on signed lanes divide(pythondiv=False), fmod, or d < 0
  UDivisorHalfRange<U>   signed 16- to 64-bit floor_divide and mod by d > 0: a power of
                         two, or a magic

`form` below mirrors that choice and UDivisor's case test, so each wide dtype's divisors
are checked to reach every form. Results are compared bit for bit with NumPy's
floor_divide, remainder and fmod, and with truncating division computed exactly in
integers (int32 for 8- and 16-bit lanes, int64 for 32-bit, Python ints for 64-bit) for
divide(pythondiv=False). A zero divisor gives 0 (docs/semantics.md, "Division by zero").

Beside tests/test_divide.py's test_scalar_divisor (chosen divisors, one 1-D call each):
every 8-bit divisor with every numerator, every 16-bit divisor, and for 32- and 64-bit
lanes divisors of every form with numerators at the edges and beside multiples of the
divisor (where a magic one too small or too large first errs), in full vectors and tails.
"""

import functools
import random

import numpy as np
import pytest

import eltwise

OPS = {
    "floor_divide": lambda a, d: eltwise.floor_divide(a, d),
    "mod": lambda a, d: eltwise.mod(a, d),
    "divide_trunc": lambda a, d: eltwise.divide(a, d, pythondiv=False),
    "fmod": lambda a, d: eltwise.fmod(a, d),
}
FLOOR_OPS = ("floor_divide", "mod")

# Numerators per row: at least 512 keeps a column divisor one kernel call per row
# (core/execute.cc), and 517 leaves a tail of 5 lanes or 1 after whole vectors of every
# width (517 = 8 * 64 + 5).
ROW = 517


def bits(dtype):
    return 8 * np.dtype(dtype).itemsize


def signed(dtype):
    return np.dtype(dtype).kind == "i"


def udivisor_case(d, n_bits):
    """UDivisor<U>'s case for 0 < d < 2^N, as its constructor picks it."""
    if d & (d - 1) == 0:
        return "power of two"
    log2 = d.bit_length() - 1
    rem = (1 << (n_bits + log2)) % d
    return "(N+1)-bit magic" if d - rem >= 1 << log2 else "N-bit magic"


def form(op, d, dtype):
    """The divisor form IntDivideByScalar::PrepareScalarSecond prepares for op by d != 0."""
    if bits(dtype) == 8:
        return "UDivisor<uint8_t>"
    if op in FLOOR_OPS and signed(dtype) and d > 0:
        return "UDivisorHalfRange: " + ("power of two" if d & (d - 1) == 0 else "magic")
    return "UDivisor: " + udivisor_case(abs(d), bits(dtype))


def trunc_exact(a, d):
    """a / d rounded toward zero, exactly; MIN / -1 wraps to MIN, x / 0 is 0."""
    dtype = a.dtype
    work = np.int32 if bits(dtype) <= 16 else np.int64 if bits(dtype) == 32 else object
    A, D = a.astype(work), d.astype(work)  # D: a scalar or a column, not broadcast
    zero = D == 0
    q = np.abs(A) // np.abs(np.where(zero, 1, D))
    q = np.where((A < 0) != (D < 0), -q, q)
    q = np.where(zero, 0, q)
    if work is object:  # Python ints: wrap to the lane's width by hand
        n_bits = bits(dtype)
        offset = 1 << (n_bits - 1) if signed(dtype) else 0
        q = (q + offset) % (1 << n_bits) - offset
        return np.array(q.tolist(), dtype=dtype).reshape(q.shape)
    return q.astype(dtype)  # wraps: the one 2^(N-1), of MIN / -1, becomes MIN


def expected(op, a, d):
    with np.errstate(all="ignore"):
        if op == "floor_divide":
            return np.floor_divide(a, d)
        if op == "mod":
            return np.remainder(a, d)
        if op == "fmod":
            return np.fmod(a, d)
        return trunc_exact(a, np.asarray(d, a.dtype))


def check(op, a, d, exp=None):
    """eltwise's op(a, d) on the current target is exp (computed when not given), bit
    for bit."""
    with np.errstate(divide="ignore"):
        got = OPS[op](a, d)
    if exp is None:
        exp = expected(op, a, np.asarray(d, a.dtype))
    assert isinstance(got, np.ndarray) and got.dtype == a.dtype and got.shape == exp.shape, (
        op, type(got), getattr(got, "dtype", None), getattr(got, "shape", None))
    bad = got != exp
    if bad.any():
        where = np.argwhere(bad)[:5]
        dd = np.broadcast_to(np.asarray(d, a.dtype), a.shape)
        rows = [(int(a[tuple(i)]), int(dd[tuple(i)]), int(got[tuple(i)]), int(exp[tuple(i)]))
                for i in where]
        pytest.fail(f"{op} on {a.dtype}, target {eltwise.get_target()}, {int(bad.sum())} wrong; "
                    f"(numerator, divisor, got, expected): {rows}")


def expected_by_op(data):
    """The four ops' expected results for one (a, d) pair, computed once for all targets."""
    a, d = data
    return {op: expected(op, a, d) for op in OPS}


# ---------------------------------------------------------------------------
# 8-bit lanes: every divisor (zero too) with every numerator.

@functools.lru_cache(maxsize=None)
def every_8bit_pair(dtype_name):
    dtype = np.dtype(dtype_name)
    rng = np.random.default_rng(bits(dtype) + signed(dtype))
    values = np.arange(256, dtype=np.uint8).view(dtype)
    d = values.reshape(256, 1)
    # Each row: the 256 numerators twice, in orders of its own, and 5 more (the tail).
    twice = rng.permuted(np.tile(values, (256, 2)), axis=1)
    a = np.concatenate([twice, twice[:, :ROW - 512]], axis=1)
    return (a, d), expected_by_op((a, d))


@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("op", list(OPS))
def test_8bit_every_divisor_every_numerator(op, dtype, target):
    """UDivisor<uint8_t>: all 65,536 pairs, each numerator in a full vector and in a tail
    across the rows, by every divisor (column) and the zero divisor."""
    (a, d), exp = every_8bit_pair(dtype)
    check(op, a, d, exp[op])


# ---------------------------------------------------------------------------
# 16-bit lanes: every divisor, numerators at the edges, beside multiples and at random.

def numerators_16bit(d, dtype, rng):
    """Rows of ROW numerators of dtype, one row per divisor in the column d (int64)."""
    ii = np.iinfo(dtype)
    lo, hi = int(ii.min), int(ii.max)
    rows = len(d)
    edges = np.array([v for v in (0, 1, -1, 2, -2, lo, lo + 1, lo + 2, hi, hi - 1, hi - 2)
                      if lo <= v <= hi], np.int64)
    m = np.maximum(np.abs(d), 1)  # 1 for the zero divisor's row
    # Multiples q * |d| in [lo, hi] and their neighbours.
    q = rng.integers(-(-lo // m), hi // m, (rows, 40), endpoint=True)
    mult = q * m
    beside = np.concatenate([mult - 1, mult, mult + 1, m - 1, m, m + 1, -m - 1, -m, -m + 1,
                             (hi // m) * m + np.array([-1, 0, 1]),
                             -((-lo // m) * m) + np.array([-1, 0, 1])], axis=1)
    beside = np.clip(beside, lo, hi)
    special = np.concatenate([np.broadcast_to(edges, (rows, len(edges))), beside], axis=1)
    fill = rng.integers(lo, hi, (rows, ROW - 2 * special.shape[1]), endpoint=True)
    return np.concatenate([special, fill, special[:, ::-1]], axis=1).astype(dtype)


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_16bit_every_divisor(dtype):
    """Every 16-bit divisor (zero too), through UDivisor's three cases and the half-range
    form's two, by rows of 4096 divisors, on every target: each block's expected results
    serve all targets (34 million pairs a dtype)."""
    ii = np.iinfo(dtype)
    rng = np.random.default_rng(16 + signed(dtype))
    every = np.arange(int(ii.min), int(ii.max) + 1, dtype=np.int64)
    for start in range(0, len(every), 4096):
        d64 = every[start:start + 4096].reshape(-1, 1)
        a = numerators_16bit(d64, dtype, rng)
        d = d64.astype(dtype)
        exp = expected_by_op((a, d))
        for target in eltwise.get_targets():
            eltwise.set_target(target)
            try:
                for op in OPS:
                    check(op, a, d, exp[op])
            finally:
                eltwise.set_target(None)


# ---------------------------------------------------------------------------
# 32- and 64-bit lanes: divisors of every form, numerators at the edges and beside
# multiples.

def wide_divisors(dtype, rnd):
    n_bits = bits(dtype)
    ii = np.iinfo(dtype)
    lo, hi = int(ii.min), int(ii.max)
    top = hi.bit_length()  # magnitudes up to 2^top - 1 (signed: |MIN| besides)
    ds = set(range(1, 65)) | {641, 6700417, 274177, 10**9 + 7, 2**32 - 1, 2**32 + 1,
                              2**62 + 1, 2**63 - 25, hi, hi - 1, hi // 3, hi // 7}
    for k in range(1, n_bits):
        ds |= {2**k - 1, 2**k, 2**k + 1}
    # For every bit length, a random divisor of each UDivisor case where one exists.
    for length in range(2, top + 1):
        want = {"N-bit magic", "(N+1)-bit magic"}
        for _ in range(200):
            d = rnd.getrandbits(length) | (1 << (length - 1))
            case = udivisor_case(d, n_bits)
            if case in want:
                ds.add(d)
                want.discard(case)
            if not want:
                break
    if signed(dtype):
        ds |= {-d for d in ds} | {lo, lo + 1, -1}
    return sorted(d for d in ds if lo <= d <= hi) + [0]


def wide_numerators(d, dtype, rnd):
    """ROW numerators for divisor d: edges, multiples of |d| and their neighbours, and
    values of every magnitude; the special ones again, reversed, in the tail."""
    n_bits = bits(dtype)
    ii = np.iinfo(dtype)
    lo, hi = int(ii.min), int(ii.max)
    m = abs(d) or 1
    special = [0, 1, -1, 2, -2, lo, lo + 1, lo + 2, hi, hi - 1, hi - 2,
               m - 1, m, m + 1, -m - 1, -m, -m + 1, 2 * m - 1, 2 * m, 2 * m + 1]
    q_lo, q_hi = -(-lo // m), hi // m  # multiples q * m in [lo, hi]
    for q in [q_lo, q_hi] + [rnd.randint(q_lo, q_hi) for _ in range(40)]:
        special += [q * m - 1, q * m, q * m + 1]
    special = [v for v in special if lo <= v <= hi]
    fill = []
    while len(fill) < ROW - 2 * len(special):
        v = rnd.getrandbits(rnd.randint(1, hi.bit_length()))
        fill.append(~v if signed(dtype) and rnd.random() < 0.5 else v)
    row = special + fill + special[::-1]
    assert len(row) == ROW
    return row


@functools.lru_cache(maxsize=None)
def wide_case(dtype_name):
    dtype = np.dtype(dtype_name)
    rnd = random.Random(bits(dtype) * 2 + signed(dtype))
    ds = wide_divisors(dtype, rnd)
    reached = {form(op, d, dtype) for op in OPS for d in ds if d}
    forms = {"UDivisor: power of two", "UDivisor: N-bit magic", "UDivisor: (N+1)-bit magic"}
    if signed(dtype):
        forms |= {"UDivisorHalfRange: power of two", "UDivisorHalfRange: magic"}
    assert reached == forms, reached
    a = np.array([wide_numerators(d, dtype, rnd) for d in ds], dtype=dtype)
    d = np.array(ds, dtype=dtype).reshape(-1, 1)
    return (a, d), expected_by_op((a, d))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
@pytest.mark.parametrize("op", list(OPS))
def test_wide_divisor_forms(op, dtype, target):
    """Divisors of every form (1 to 64, 2^k and 2^k +- 1, 641, MAX, MIN, -1, one N-bit and
    one (N+1)-bit magic case of each bit length, their negations, 0) by a column."""
    (a, d), exp = wide_case(dtype)
    check(op, a, d, exp[op])


# ---------------------------------------------------------------------------
# Call shapes that reach the scalar form, and division by zero through them.

INTEGER = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def shape_divisors(dtype):
    ii = np.iinfo(dtype)
    lo, hi = int(ii.min), int(ii.max)
    ds = [1, 2, 3, 7, 10, 641, 2**(bits(dtype) - 2) + 1, hi // 2 + 1, hi]
    if signed(dtype):
        ds += [-1, -2, -7, -641, lo, lo + 1]
    return [d for d in ds if lo <= d <= hi]


@pytest.mark.parametrize("dtype", INTEGER)
def test_scalar_call_shapes(dtype, target):
    """A Python int, a NumPy scalar, a 0-d and a 1-element array as the divisor of 1-D
    numerators (1031: whole vectors and a tail) give the same bits as NumPy."""
    rng = np.random.default_rng(bits(dtype) * 3 + signed(dtype))
    ii = np.iinfo(dtype)
    edges = [0, 1, -1, int(ii.min), int(ii.min) + 1, int(ii.max), int(ii.max) - 1]
    edges = np.array([v for v in edges if ii.min <= v <= ii.max], dtype)
    a = np.concatenate([edges, rng.integers(ii.min, ii.max, 1031 - 2 * len(edges),
                                            dtype=dtype, endpoint=True), edges[::-1]])
    for d in shape_divisors(dtype):
        for op in OPS:
            exp = expected(op, a, np.array(d, dtype))
            for shaped in (d, np.dtype(dtype).type(d), np.array(d, dtype), np.array([d], dtype)):
                check(op, a, shaped, exp)


@pytest.mark.parametrize("dtype", INTEGER)
def test_scalar_zero_divisor(dtype, target):
    """A zero scalar divisor gives 0 in every lane, and is reported as NumPy reports it."""
    a = np.arange(1031).astype(dtype)
    for op in OPS:
        for zero in (0, np.array(0, dtype), np.array([0], dtype)):
            with np.errstate(divide="ignore"):
                got = OPS[op](a, zero)
            assert got.dtype == a.dtype and not got.any(), (op, got)
            with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
                OPS[op](a, zero)
