"""float64 (and float32) fmod, mod and floor_divide on every target: bit-exact with NumPy
(libm's fmod, exact, and npy_divmod around it), through the vector path (float64: a fused
multiply-add on AVX2/AVX3; float32: through float64) and its per-lane fallback, in the same
call. The operands that matter: quotients that round up to the next integer, quotients at
the 2^52 bound of the vector path, |a| just below |b|, subnormals, signed zeros, inf, NaN,
zero divisors."""

import numpy as np
import pytest

import eltwise
from ew_helpers import assert_same, dtype_id

OPS = ["fmod", "mod", "floor_divide"]
NUMPY = {"fmod": np.fmod, "mod": np.remainder, "floor_divide": np.floor_divide}
DTYPES = [np.dtype(np.float64), np.dtype(np.float32)]


def _check(name, a, b):
    with np.errstate(all="ignore"):
        want = NUMPY[name](a, b)
    got = getattr(eltwise, name)(a, b)
    assert_same(got, want, inputs=(a, b))


def _near_integer_quotients(rng, dtype, n):
    """a = k*b nudged by a few ULPs either way: the rounded quotient crosses k."""
    b = (rng.uniform(0.5, 2, n) * np.exp2(rng.integers(-60, 60, n))).astype(dtype)
    k = np.floor(np.exp2(rng.uniform(0, 50 if dtype == np.float64 else 22, n)))
    a = (k * b).astype(dtype)
    steps = rng.integers(-3, 4, n)
    a = np.where(steps > 0, np.nextafter(a, np.inf), np.where(steps < 0, np.nextafter(a, -np.inf), a))
    signs = rng.choice([-1, 1], (2, n))
    return (a * signs[0]).astype(dtype), (b * signs[1]).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", OPS)
def test_near_integer_quotients(name, dtype, target, rng):
    a, b = _near_integer_quotients(rng, dtype, 40000)
    _check(name, a, b)


@pytest.mark.parametrize("name", OPS)
def test_float64_quotients_at_the_vector_bound(name, target, rng):
    """|a/b| around 2^52 and 2^53: below the bound the vector path, above it the per-lane
    one; vectors mixing both take the per-lane path for the whole vector."""
    n = 20000
    b = rng.uniform(0.5, 2, n) * np.exp2(rng.integers(-30, 30, n))
    q = np.exp2(rng.uniform(51.5, 53.5, n))
    a = q * b * rng.choice([-1, 1], n)
    _check(name, a, b)
    _check(name, a[::-1].copy(), b)  # other pairings, mixed vectors


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", OPS)
def test_random_exponents_and_specials(name, dtype, target, rng):
    """Exponents over the whole range (subnormals included), |a| just below |b|, and the
    special values sprinkled into otherwise ordinary vectors."""
    info = np.finfo(dtype)
    n = 40000
    emin, emax = int(np.log2(info.smallest_subnormal)), int(np.log2(info.max))
    a = rng.choice([-1, 1], n) * np.exp2(rng.uniform(emin, emax, n))
    b = rng.choice([-1, 1], n) * np.exp2(rng.uniform(emin, emax, n))
    with np.errstate(all="ignore"):
        a, b = a.astype(dtype), b.astype(dtype)
    below = rng.random(n) < 0.1  # |a| a few ULPs below |b|
    a[below] = np.nextafter(b[below], 0) * rng.choice([-1, 1], below.sum())
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max,
                         info.smallest_subnormal, -info.smallest_subnormal, 1.0, -1.0], dtype)
    pos = rng.integers(0, n, 600)
    a[pos[:300]] = rng.choice(specials, 300)
    b[pos[300:]] = rng.choice(specials, 300)
    _check(name, a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", OPS)
def test_ordinary_values(name, dtype, target, rng):
    """The benchmark's kind of operands (normal values of moderate ratio), where the vector
    path takes every vector; zero remainders with either sign of zero."""
    n = 30000
    a = (rng.standard_normal(n) * 100).astype(dtype)
    b = (rng.standard_normal(n) * 10).astype(dtype)
    a[::7] = b[::7] * rng.integers(-20, 20, len(a[::7]))  # exact multiples: zero remainders
    _check(name, a, b)
