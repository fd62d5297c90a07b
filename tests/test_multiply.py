"""multiply: OpenVINO Multiply-1 and TensorRT PROD seeds, wrapping, float16/bfloat16
rounding."""

import numpy as np
import pytest

import eltwise
from ew_helpers import (
    ALL_DTYPES, BF16, HALF_DTYPES, INTEGER_DTYPES, assert_same, dtype_id, edge_values,
    reference,
)


def test_openvino_multiply_example1(target):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((256, 56)).astype(np.float32)
    b = rng.standard_normal((256, 56)).astype(np.float32)
    got = eltwise.multiply(a, b, broadcast="none")
    assert_same(got, a * b)
    with pytest.raises(ValueError):
        eltwise.multiply(a, b[:1], broadcast="none")


def test_openvino_multiply_example2(target):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 1, 6, 1)).astype(np.float32)
    b = rng.standard_normal((7, 1, 5)).astype(np.float32)
    got = eltwise.multiply(a, b)
    assert got.shape == (8, 7, 6, 5)
    assert_same(got, a * b)
    ai = rng.integers(-100, 100, (8, 1, 6, 1)).astype(np.int32)
    bi = rng.integers(-100, 100, (7, 1, 5)).astype(np.int32)
    assert_same(eltwise.multiply(ai, bi, broadcast="numpy"), ai * bi)


def test_tensorrt_prod_example(target):
    in1 = np.array([[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]], np.float32)
    in2 = np.array([[4.0, 5.0, 6.0]], np.float32)
    expected = np.array([[-12.0, -10.0, -6.0], [0.0, 5.0, 12.0]], np.float32)
    assert_same(eltwise.multiply(in1, in2), expected)
    assert_same(eltwise.elementwise(in1, in2, "PROD"), expected)
    assert_same(eltwise.elementwise(in1, in2, "prod"), expected)
    assert_same(eltwise.elementwise(in1, in2, eltwise.Op.PROD), expected)
    assert_same(eltwise.elementwise(in1, in2, "multiply"), expected)
    # float64 as in the TensorRT sample's np.array literals
    assert_same(eltwise.multiply(in1.astype(np.float64), in2.astype(np.float64)),
                expected.astype(np.float64))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_multiply_every_dtype(dtype, target):
    ev = edge_values(dtype)
    a = np.repeat(ev, len(ev))
    b = np.tile(ev, len(ev))
    assert_same(eltwise.multiply(a, b), reference("multiply", a, b), inputs=(a, b))


def test_multiply_bool_stays_bool():
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    got = eltwise.multiply(a, b)
    assert got.dtype == np.bool_
    assert got.tolist() == [True, False, False, False]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_multiply_wraps(dtype, target):
    rng = np.random.default_rng(dtype.num)
    ii = np.iinfo(dtype)
    a = rng.integers(ii.min, ii.max, 1000, endpoint=True, dtype=dtype)
    b = rng.integers(ii.min, ii.max, 1000, endpoint=True, dtype=dtype)
    assert_same(eltwise.multiply(a, b), a * b)
    assert_same(eltwise.multiply(a, b[0]), a * b[0])


def _partners(dtype, rng):
    return np.concatenate([
        np.array([1.0, -1.0, 0.5, 3.0, 1.0 + 2**-7, 1.0 - 2**-8, 1.5, 0.0, -0.0, np.inf,
                  np.nan, 2.0**-20, 2.0**20], np.float32),
        rng.standard_normal(3).astype(np.float32)]).astype(dtype)


@pytest.mark.parametrize("dtype", HALF_DTYPES, ids=dtype_id)
def test_multiply_half_exhaustive(dtype, target):
    """All 65536 float16/bfloat16 values times partners that force rounding ties."""
    allv = np.arange(2**16, dtype=np.uint32).astype(np.uint16).view(dtype)
    rng = np.random.default_rng(0)
    with np.errstate(over="ignore"):
        partners = _partners(dtype, rng)
    for p in partners:
        got = eltwise.multiply(allv, p)
        assert_same(got, reference("multiply", allv, p), inputs=(allv, p))
    perm = rng.permutation(allv)
    assert_same(eltwise.multiply(allv, perm), reference("multiply", allv, perm), inputs=(allv, perm))


def test_multiply_float32_bit_exact(target):
    rng = np.random.default_rng(4)
    a = (rng.standard_normal(10007) * np.exp2(rng.integers(-60, 60, 10007))).astype(np.float32)
    b = (rng.standard_normal(10007) * np.exp2(rng.integers(-60, 60, 10007))).astype(np.float32)
    assert_same(eltwise.multiply(a, b), a * b)
    with np.errstate(all="ignore"):
        a64, b64 = a.astype(np.float64) ** 3, b.astype(np.float64) ** 5
        exp = a64 * b64
    assert_same(eltwise.multiply(a64, b64), exp)
