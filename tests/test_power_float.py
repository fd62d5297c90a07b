"""Float power's fast paths (kernels/power.cc): float32 through float64 log and exp where
every lane of a vector has a finite positive base and a finite exponent, SLEEF's pow for
vectors with a special lane. Within 1 ULP of long double's pow rounded once, on every
target; C99's special cases exact wherever they sit in a vector."""

import numpy as np
import pytest

import eltwise
from ew_helpers import assert_same, c99_pow_special


def reference(x, y):
    with np.errstate(all="ignore"):
        return np.power(x.astype(np.longdouble), y.astype(np.longdouble)).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_positive_bases_whole_range(dtype, target, rng):
    """Positive bases from the smallest subnormal to the largest float, exponents whose
    results span the whole range: overflow to inf, underflow to subnormals and 0."""
    fi = np.finfo(dtype)
    n = 60000
    lo = np.log10(float(fi.smallest_subnormal))
    x = (10.0 ** rng.uniform(lo, np.log10(float(fi.max)), n)).astype(dtype)
    x[x == 0] = fi.smallest_subnormal
    y = rng.uniform(-60, 60, n).astype(dtype)
    y[::7] = rng.uniform(-2, 2, len(y[::7]))
    got = eltwise.power(x, y)
    assert_same(got, reference(x, y), ulp=1, inputs=(x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bases_near_one_huge_exponents(dtype, target, rng):
    """x close to 1 with exponents up to 2^40: b * log(a) is where the error grows."""
    n = 30000
    eps = np.finfo(dtype).eps
    x = (1 + rng.integers(-64, 64, n) * eps).astype(dtype)
    y = (2.0 ** rng.uniform(0, 40, n) * rng.choice([-1, 1], n)).astype(dtype)
    assert_same(eltwise.power(x, y), reference(x, y), ulp=1, inputs=(x, y))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_lanes_inside_ordinary_vectors(dtype, target, rng):
    """One special lane (0, -0.0, negative, inf, NaN base or exponent) per 16 ordinary
    ones sends its vector to SLEEF's pow; every lane still matches C99 and the reference."""
    specials = np.array([0.0, -0.0, -2.0, -0.5, np.inf, -np.inf, np.nan, 1.0, -1.0], dtype)
    n = 16 * 64
    x = rng.uniform(0.25, 4, n).astype(dtype)
    y = rng.uniform(-5, 5, n).astype(dtype)
    idx = np.arange(3, n, 16)
    x[idx] = rng.choice(specials, len(idx))
    y[idx + 5] = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.0, -3.0, 0.5],
                                     dtype), len(idx))[: len(idx + 5)]
    y[np.arange(1, n, 16)] = np.round(y[np.arange(1, n, 16)])  # integer exponents too
    got = eltwise.power(x, y)
    exp = reference(x, y)
    mask, value = c99_pow_special(x, y)
    exp[mask] = value[mask].astype(dtype)
    assert_same(got, exp, ulp=1, inputs=(x, y))


def test_float32_one_to_any_power_and_any_to_zero_exact(target):
    """pow(1, y) == 1 and pow(x, 0) == 1 exactly on the double path too."""
    y = np.linspace(-100, 100, 4001, dtype=np.float32)
    assert np.array_equal(eltwise.power(np.ones_like(y), y), np.ones_like(y))
    x = np.linspace(0.001, 1000, 4001, dtype=np.float32)
    assert np.array_equal(eltwise.power(x, np.zeros_like(x)), np.ones_like(x))
    assert np.array_equal(eltwise.power(x, np.full_like(x, -0.0)), np.ones_like(x))
