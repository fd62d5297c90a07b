"""float power (float32 through float64 tables, float64 through double-double tables) on
every target: C99's special cases exact, everything else within 1 ULP of float64's pow
rounded once."""

import numpy as np
import pytest

import eltwise
from ew_helpers import (BF16, FLOAT_DTYPES, HALF_DTYPES, assert_same, c99_pow_special, dtype_id,
                        finfo, reference)

# Bases and exponents that meet every branch: zeros, subnormals, the float32 limits,
# +-1 and its neighbours, infinities, NaN, odd and even integers, halves, huge exponents.
_SPECIAL_X = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 2.0, -2.0, 3.7, -3.7,
              1e-45, -1e-45, 1e-40, -1e-40, 1.1754944e-38, 3.4028235e38, -3.4028235e38,
              1.0000001, 0.99999994, -1.0000001, 8.0, -8.0]
_SPECIAL_Y = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, 2.5, -2.5, np.inf, -np.inf,
              np.nan, 1e30, -1e30, 1e-45, -1e-45, 16777215.0, 16777216.0, -16777215.0, 8388609.0,
              127.0, -127.0, 149.0, -149.0, 1.0 / 3.0]


def _f32_reference(x, y):
    """float64's pow rounded once to float32, C99's special cases exact."""
    with np.errstate(all="ignore"):  # signaling NaNs among random bits
        r = np.power(x.astype(np.float64), y.astype(np.float64))
        mask, value = c99_pow_special(x, y)
        r[mask] = value[mask]
        return r.astype(np.float32)


def _grid(xs, ys, dtype):
    with np.errstate(all="ignore"):
        x = np.array(xs, np.float64).astype(dtype)
        y = np.array(ys, np.float64).astype(dtype)
    return np.repeat(x, len(y)), np.tile(y, len(x))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_special_table(dtype, target):
    """Every pair of the table: C99's special cases bit for bit (signed zeros and
    infinities), the others within 1 ULP; through arrays and through NumPy scalars."""
    x, y = _grid(_SPECIAL_X, _SPECIAL_Y, dtype)
    got = eltwise.power(x, y)
    assert_same(got, reference("power", x, y), ulp=1, inputs=(x, y))
    mask, value = c99_pow_special(x, y)
    assert mask.sum() > 100  # the table does reach the special cases
    assert_same(got[mask], value[mask].astype(dtype), inputs=(x[mask], y[mask]))
    for i in np.flatnonzero(mask)[::7]:
        assert_same(eltwise.power(x[i], y[i]), value[i].astype(dtype)[()])


def test_float32_random_bits(target, rng):
    """Bases from random bit patterns (subnormals, NaN and inf included), exponents from
    random bits, from [-40, 40] and integers: within 1 ULP of float64 rounded once."""
    n = 60000
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    y_bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    which = rng.integers(0, 3, n)
    y = np.where(which == 0, y_bits, np.where(which == 1, rng.uniform(-40, 40, n),
                                              rng.integers(-300, 300, n))).astype(np.float32)
    got = eltwise.power(x, y)
    assert_same(got, _f32_reference(x, y), ulp=1, inputs=(x, y))
    finite = np.isfinite(got) & (got != 0)
    assert finite.sum() > n // 20  # not only overflow and underflow


def test_float32_subnormal_and_overflow_results(target, rng):
    """Results at the ends of float32: subnormal results (2^-149 .. 2^-126), the largest
    finite values and overflow, from bases over the whole range (subnormal ones too)."""
    n = 40000
    x = np.exp2(rng.uniform(-149, 128, n)).astype(np.float32)
    x = x[(x > 0) & np.isfinite(x) & (x != 1)]
    log2x = np.log2(x.astype(np.float64))
    target_log = np.where(rng.random(len(x)) < 0.5, rng.uniform(-151, -125, len(x)),
                          rng.uniform(126, 129, len(x)))
    y = (target_log / log2x).astype(np.float32)
    got = eltwise.power(x, y)
    exp = _f32_reference(x, y)
    assert_same(got, exp, ulp=1, inputs=(x, y))
    assert ((exp != 0) & (np.abs(exp) < np.finfo(np.float32).smallest_normal)).sum() > 1000
    assert np.isinf(exp).sum() > 100


def test_float32_huge_exponents_near_one(target, rng):
    """Bases a few ULP from 1 with exponents up to 2^31: the error of log2 is multiplied
    by |y|, so this is where a coarse log2 would show."""
    n = 20000
    steps = rng.integers(-64, 65, n).astype(np.int32)
    x = (np.float32(1).view(np.int32) + steps).view(np.float32)
    y = (rng.choice([-1, 1], n) * np.exp2(rng.uniform(10, 31, n))).astype(np.float32)
    got = eltwise.power(x, y)
    exp = _f32_reference(x, y)
    assert_same(got, exp, ulp=1, inputs=(x, y))
    assert (np.isfinite(exp) & (exp != 0) & (exp != 1)).sum() > n // 4


def test_float32_negative_bases(target, rng):
    """Negative bases: integer exponents give the signed result (odd: negative, even:
    positive, up to 2^24 and beyond), non-integer exponents NaN."""
    n = 20000
    x = -np.exp2(rng.uniform(-20, 20, n)).astype(np.float32)
    y_int = rng.integers(-40, 41, n).astype(np.float32)
    y_big = rng.choice(np.array([8388607, 8388609, 16777215, 16777216, 16777218, 2**30],
                                np.float32), n)
    x_big = -(1 + rng.integers(-3, 4, n) * np.float32(2**-23)).astype(np.float32)
    y_frac = (rng.integers(-40, 40, n) + rng.choice([0.5, 0.25, 1e-3], n)).astype(np.float32)
    for xs, ys in ((x, y_int), (x_big, y_big), (x, y_frac)):
        got = eltwise.power(xs, ys)
        exp = _f32_reference(xs, ys)
        assert_same(got, exp, ulp=1, inputs=(xs, ys))
    assert np.isnan(eltwise.power(x, y_frac)).all()
    odd = np.fmod(y_int, 2) != 0
    r = eltwise.power(x, y_int)
    assert (np.signbit(r) == odd).all()


@pytest.mark.parametrize("dtype", [np.dtype(np.float64)], ids=dtype_id)
def test_float64_random(dtype, target, rng):
    """float64 over the whole range, negative bases with integer exponents: 1 ULP."""
    n = 30000
    x = rng.choice([-1.0, 1.0], n) * np.exp2(rng.uniform(-1074, 1023, n))
    y = rng.uniform(-3, 3, n) * np.exp2(rng.integers(-5, 12, n))
    neg = x < 0
    y[neg] = np.round(y[neg])
    assert_same(eltwise.power(x, y), reference("power", x, y), ulp=1, inputs=(x, y))


def _ulp_error_f64(got, x, y):
    """|got - pow(x, y)| in ULP of the result, against long double's pow (64-bit
    significand: its own error is about 2^-11 ULP of a double)."""
    with np.errstate(all="ignore"):
        ref = np.power(x.astype(np.longdouble), y.astype(np.longdouble))
    ref64 = ref.astype(np.float64)
    _, e = np.frexp(ref64)
    ulp = np.ldexp(np.longdouble(1), np.maximum(e.astype(np.int64) - 53, -1074))
    return np.abs(got.astype(np.longdouble) - ref) / ulp


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 63, reason="needs x87 long double")
def test_float64_error_bound(target, rng):
    """float64 power within 0.52 ULP of the exact result (docs/semantics.md, "Exactness"),
    where the error of log|x| and of exp count most: x near 1 with |y log x| up to 708
    (both sides of 1, the log's c = 1 subinterval and its neighbours), results near
    overflow and in the subnormal range, bases near powers of two, random pairs."""
    n = 40000
    parts = []
    x = 1 + rng.uniform(-0.06, 0.06, n)
    parts.append((x, rng.uniform(-708, 708, n) / np.log(x)))
    x = 1 + rng.uniform(-1e-3, 1e-3, n)
    parts.append((x, rng.uniform(-708, 708, n) / np.log(x)))
    x = np.exp(rng.uniform(-5, 5, n))
    parts.append((x, (rng.choice([-740.0, -720.0, 705.0], n) + rng.uniform(-3, 3, n)) / np.log(x)))
    parts.append((np.ldexp(1 + rng.uniform(-0.05, 0.05, n), rng.integers(-1000, 1000, n)),
                  rng.uniform(-0.9, 0.9, n)))
    parts.append((np.exp(rng.uniform(-20, 20, n)), rng.uniform(-20, 20, n)))
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    with np.errstate(all="ignore"):
        got = eltwise.power(x, y)
    err = _ulp_error_f64(got, x, y)
    finite = np.isfinite(got) & (got != 0)
    assert finite.sum() > 0.9 * len(x)
    worst = int(np.argmax(np.where(finite, err, 0)))
    assert err[finite].max() <= 0.52, (x[worst].hex(), y[worst].hex(), float(err[worst]))


def test_float64_results_near_overflow(target, rng):
    """Results within 2^-17 of DBL_MAX (SLEEF's pow, used before, gave them as inf) and true
    overflows, negative bases and the x**1 case included: within 1 ULP of NumPy (inf where
    it is)."""
    n = 20000
    t = rng.uniform(1023.99, 1024.01, n)  # log2 of the result
    t[:200] = 1024 - np.exp2(rng.uniform(-52, -17, 200))  # just below DBL_MAX
    y = rng.uniform(0.5, 60, n) * rng.choice([-1.0, 1.0], n)
    neg = rng.random(n) < 0.3
    y[neg] = np.round(y[neg])
    y[y == 0] = 1.0
    with np.errstate(all="ignore"):  # bases that are themselves beyond the range: inf
        x = np.exp2(t / y)
        x[neg] = -x[neg]
        x[-50:], y[-50:] = np.finfo(np.float64).max * (1 - rng.uniform(0, 1e-5, 50)), 1.0
        want = np.power(x, y)
    assert 0 < np.isinf(want).sum() < n - 250  # both sides of the limit are met
    assert_same(eltwise.power(x, y), want, ulp=1, inputs=(x, y))


@pytest.mark.parametrize("dtype", HALF_DTYPES, ids=dtype_id)
def test_half_random(dtype, target, rng):
    """float16 and bfloat16 through float32: random bit patterns against random
    exponents, within 1 ULP of the reference (NumPy / ml_dtypes)."""
    n = 20000
    x = rng.integers(0, 2**16, n, dtype=np.uint32).astype(np.uint16).view(dtype)
    with np.errstate(all="ignore"):
        y = rng.uniform(-12, 12, n).astype(dtype)
    y[::3] = np.round(y[::3].astype(np.float32)).astype(dtype)
    got = eltwise.power(x, y)
    assert got.dtype == dtype
    assert_same(got, reference("power", x, y), ulp=1, inputs=(x, y))


# Scalar exponents with loops of their own (0, 0.5, 1, 2, -1: one correctly rounded
# operation; other integers up to 16: multiplication), and neighbours that take the
# general path.
_MULTIPLIED_EXPONENTS = [0, -0.0, 0.5, 1, 2, -1, 3, -2, 4, 5, -3, 7, 15, 16, -16]
_GENERAL_EXPONENTS = [17, -17, 2.5, -0.5, 1.0 / 3.0]
_CORRECTLY_ROUNDED = {1: lambda v: v, 2: lambda v: v * v, -1: lambda v: 1.0 / v, 0.5: np.sqrt}


def _bases(dtype, rng, n=6000):
    """The special table, then magnitudes over the dtype's whole range (so that powers
    overflow, underflow and land on subnormals), both signs."""
    specials = np.array(_SPECIAL_X, np.float64)
    if dtype.itemsize == 2:
        bits = rng.integers(0, 2**16, n, dtype=np.uint32).astype(np.uint16)
        with np.errstate(all="ignore"):
            return np.concatenate([specials.astype(dtype), bits.view(dtype)])
    lo, hi = (-150, 128) if dtype == np.float32 else (-1075, 1024)
    with np.errstate(all="ignore"):
        mags = np.exp2(rng.uniform(lo, hi, n)) * rng.choice([-1.0, 1.0], n)
        mags[: n // 4] = rng.uniform(-3, 3, n // 4)  # where most powers stay finite
        return np.concatenate([specials, mags]).astype(dtype)


@pytest.mark.parametrize("exponent", _MULTIPLIED_EXPONENTS + _GENERAL_EXPONENTS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_scalar_exponent(dtype, exponent, target, rng):
    """x ** scalar on every target: within 1 ULP of the reference, C99's special cases
    exact; 0, 0.5, 1, 2 and -1 correctly rounded; a typed scalar and a 0-d array give
    the same bits as the Python scalar; an exponent array (the general path) is within
    1 ULP; a reversed strided base gives the same bits."""
    x = _bases(dtype, rng)
    typed = dtype.type(exponent)
    # A Python float with bfloat16 promotes to float32 (ml_dtypes' loops, and eltwise)
    scalar = typed if dtype == BF16 else exponent
    got = eltwise.power(x, scalar)
    assert_same(got, reference("power", x, scalar), ulp=1, inputs=(x, exponent))
    with np.errstate(all="ignore"):  # signaling NaNs among the random bits
        mask, value = c99_pow_special(x, exponent)
        special = value[mask].astype(dtype)
    assert_same(got[mask], special, inputs=(x[mask], exponent))
    if exponent == 0:
        assert_same(got, np.ones_like(x))
    elif exponent in _CORRECTLY_ROUNDED:
        with np.errstate(all="ignore"):
            exact = _CORRECTLY_ROUNDED[exponent](x.astype(np.float64)).astype(dtype)
        exact[mask] = special  # sqrt's -0 and NaN at -inf are not pow's
        assert_same(got, exact, inputs=(x, exponent))
    multiplied = dtype != np.float64 or target.startswith("AVX")  # float64 needs FMA
    if exponent in (3, -2, 4, 5, -3, 7, 15, 16, -16) and multiplied:
        # Multiplied powers are correctly rounded but for the rare lane within a few
        # units of 2^-2p of a midpoint: a plain x * x * x, say, is off in ~1/4 of them.
        # (The long double reference rounds twice: ~0.05% of its lanes are off.)
        wide = np.longdouble if dtype == np.float64 else np.float64
        with np.errstate(all="ignore"):
            rounded = np.power(x.astype(wide), wide(exponent)).astype(dtype)
            normal = np.isfinite(rounded) & (np.abs(rounded) >= finfo(dtype).smallest_normal)
        assert normal.sum() > 200
        assert (got[normal] == rounded[normal]).mean() > 0.995
    assert_same(eltwise.power(x, typed), got)
    assert_same(eltwise.power(x, np.array(exponent, dtype)), got)
    with np.errstate(all="ignore"):
        assert_same(got, eltwise.power(x, np.full_like(x, typed)), ulp=1, inputs=(x, exponent))
    assert_same(eltwise.power(x[::-2], scalar), np.ascontiguousarray(got[::-2]))


def test_float64_cube_near_double_word_limits(target, rng):
    """float64 x**3 and x**-5 with results around 2^+-960 (where the double-word path
    hands over to the general one) and near overflow and underflow: within 1 ULP."""
    n = 8000
    t = np.concatenate([rng.uniform(955, 965, n), rng.uniform(-965, -955, n),
                        rng.uniform(1020, 1025, n), rng.uniform(-1080, -1018, n)])
    for e in (3, -5, 16):
        x = np.exp2(t / e) * rng.choice([-1.0, 1.0], t.size)
        got = eltwise.power(x, e)
        with np.errstate(all="ignore"):
            assert_same(got, np.power(x, float(e)), ulp=1, inputs=(x, e))


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float64)], ids=dtype_id)
def test_lane_bits_independent_of_layout(dtype, target, rng):
    """A lane's bits do not depend on its neighbours, on where it lies in the array, nor
    on the loop that reaches it (docs/semantics.md, "Exactness"), strided operands
    included (copied a block at a time where their lanes would load one by one, or
    transposed a group of rows at a time where they are read across rows). AVX-512
    runs float power
    four (float32) or two (float64) vectors a step with one test of all for the lanes its
    common path cannot compute (zero, negative, infinite or NaN bases, NaN exponents,
    results past the range), and sends them all the long way when one lane needs it; streamed results (8 MiB and
    more) start with a head before the aligned stores. Each call here is compared with
    the same elements computed one at a time, or in short calls."""
    n = 517
    x = (10.0 ** rng.uniform(-3, 3, n)).astype(dtype)
    y = rng.uniform(-8, 8, n).astype(dtype)
    one_by_one = np.array([eltwise.power(x[i:i + 1], y[i:i + 1])[0] for i in range(n)])
    assert_same(eltwise.power(x, y), one_by_one)
    # Rare lanes sprinkled in: each position of a two-vector step in turn.
    specials = np.array([0.0, -2.0, np.inf, np.nan, -0.0, 1e-310 if dtype == np.float64 else 1e-40],
                        dtype)
    xs = x.copy()
    ys = y.copy()
    for k, pos in enumerate(range(3, n, 37)):
        xs[pos] = specials[k % len(specials)]
    ys[200] = np.nan
    ys[300] = np.float32(3e38) if dtype == np.float32 else 1e300  # |y log2 x| past the range
    single = np.array([eltwise.power(xs[i:i + 1], ys[i:i + 1])[0] for i in range(n)])
    assert_same(eltwise.power(xs, ys), single)
    assert_same(eltwise.power(xs, ys), reference("power", xs, ys), ulp=1, inputs=(xs, ys))
    # Every start and length around a step of two vectors (a head, a tail, both).
    for start in (0, 1, 5, 16, 31):
        for length in (0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200):
            sl = slice(start, start + length)
            assert_same(eltwise.power(xs[sl], ys[sl]), single[sl])
    # A scalar base and a scalar exponent (outside the exponents multiplied out).
    xb = dtype.type(1.7)
    assert_same(eltwise.power(xb, ys), np.array([eltwise.power(xb, v) for v in ys], dtype))
    assert_same(eltwise.power(xs, dtype.type(0.3)),
                np.array([eltwise.power(v, dtype.type(0.3)) for v in xs], dtype))
    # Strided operands (whole vectors, every other element, one lane at a time through
    # copied blocks), reversed, a column of a C array, beside a scalar base.
    for sl in (np.s_[::2], np.s_[::3], np.s_[::-1], np.s_[::-5], np.s_[1::7]):
        assert_same(eltwise.power(xs[sl], ys[sl]), single[sl])
        assert_same(eltwise.power(xs[sl], ys[::-1][sl]),
                    eltwise.power(np.ascontiguousarray(xs[sl]), np.ascontiguousarray(ys[::-1][sl])))
        assert_same(eltwise.power(xb, ys[sl]), eltwise.power(xb, np.ascontiguousarray(ys[sl])))
    # Read across rows (a transposed matrix, its rows or columns reversed): 8-byte lanes
    # too go by groups of rows transposed into a buffer, the last group short.
    m = np.resize(xs, (1500, 47))
    e = np.resize(ys, (47, 1500)).T.copy()
    short = np.resize(xs, (21, 300)).T  # rows of 21 elements
    for mt in (m.T, m.T[::-1], m.T[:, ::-1], m.T[::-3], short, short[::-1]):
        et = np.resize(ys[::-1], mt.shape)
        assert_same(eltwise.power(mt, et), eltwise.power(np.ascontiguousarray(mt), et))
        assert_same(eltwise.power(et, mt), eltwise.power(et, np.ascontiguousarray(mt)))
        assert_same(eltwise.power(mt, et[:, ::-1]),
                    eltwise.power(np.ascontiguousarray(mt), et[:, ::-1]))
        assert_same(eltwise.power(mt, dtype.type(0.3)),
                    eltwise.power(np.ascontiguousarray(mt), dtype.type(0.3)))
    assert_same(eltwise.power(e, m), eltwise.power(e, np.ascontiguousarray(m)))
    # In place: out is the base, then the exponent.
    a = xs.copy()
    eltwise.power(a, ys, out=a)
    assert_same(a, single)
    b = ys.copy()
    eltwise.power(xs, b, out=b)
    assert_same(b, single)


@pytest.mark.parametrize("dtype", [d for d in HALF_DTYPES if d.itemsize == 2], ids=dtype_id)
def test_half_power_bits_independent_of_step(dtype, target, rng):
    """float16 and bfloat16 power computes in float32 lanes (docs/semantics.md), on
    AVX-512 four vectors a step with one test of all for the lanes its common path leaves
    (zero, negative, infinite or NaN bases, NaN exponents): each lane's bits are those of
    the same element computed alone, whatever its neighbours, position or call length."""
    n = 300
    x = (10.0 ** rng.uniform(-2, 2, n)).astype(np.float32).astype(dtype)
    y = rng.uniform(-4, 4, n).astype(np.float32).astype(dtype)
    assert_same(eltwise.power(x, y),
                np.array([eltwise.power(x[i:i + 1], y[i:i + 1])[0] for i in range(n)], dtype))
    specials = np.array([0.0, -2.0, np.inf, np.nan, -0.0, -3.0], np.float32).astype(dtype)
    for k, pos in enumerate(range(3, n, 23)):
        x[pos] = specials[k % len(specials)]
    y[150] = np.nan
    single = np.array([eltwise.power(x[i:i + 1], y[i:i + 1])[0] for i in range(n)], dtype)
    assert_same(eltwise.power(x, y), single)
    for start in (0, 1, 17):
        for length in (15, 16, 63, 64, 65, 200):
            sl = slice(start, start + length)
            assert_same(eltwise.power(x[sl], y[sl]), single[sl])
    e = dtype.type(0.3)  # a scalar exponent outside the ones multiplied out; a scalar base
    assert_same(eltwise.power(x, e), np.array([eltwise.power(v, e) for v in x], dtype))
    b = dtype.type(1.7)
    assert_same(eltwise.power(b, y), np.array([eltwise.power(b, v) for v in y], dtype))


@pytest.mark.parametrize("offset", [0, 1, 3])
def test_streamed_power_matches_short_calls(offset, target, rng):
    """float32 results of 8 MiB and more go out through non-temporal stores after an
    unaligned head (where an operand shares the result's offset in a cache line:
    src/core/execute.cc, Streams), or through plain stores: the same bits as the same
    elements in short calls, either way."""
    n = (1 << 21) + 77
    x = (10.0 ** rng.uniform(-2, 2, n + offset)).astype(np.float32)[offset:]
    y = rng.uniform(-6, 6, n + offset).astype(np.float32)[offset:]
    x[::1001] = -x[::1001]  # negative bases: the long way now and then
    big = eltwise.power(x, y)
    short = np.concatenate([eltwise.power(x[i:i + 4096], y[i:i + 4096]) for i in range(0, n, 4096)])
    assert_same(big, short)
    buf = np.empty(n + 16, np.float32)
    k = (x.ctypes.data - buf.ctypes.data) % 64 // 4
    out = buf[k:k + n]  # at x's offset in a cache line: streamed
    assert out.ctypes.data % 64 == x.ctypes.data % 64
    eltwise.power(x, y, out=out)
    assert_same(out, short)
