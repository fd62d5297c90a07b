"""The AVX3_SPR target (docs/semantics.md, "Runtime"): AVX3_DL's kernels but for float16,
float8_e4m3fn and float8_e5m2 add, subtract, multiply and comparisons, computed in
AVX512-FP16 arithmetic, and bfloat16 add, subtract, multiply and divide, rounded by AVX512-BF16's
conversion (src/kernels/avx3_spr.cc). Its results are AVX3_DL's bit for bit, and
NumPy's, in every loop kind, length, alignment and `out=` overlap, through the streamed
stores of large results too. Where both operands are NaN
the result may keep either one's NaN on any target ("Exactness"), so those elements are
compared as NaN only. The tests run where the CPU has AVX512-FP16; elsewhere the target
does not exist and they are skipped, saying so."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import eltwise
from ew_helpers import assert_same

pytestmark = pytest.mark.skipif("AVX3_SPR" not in eltwise.get_targets(),
                                reason="this CPU has no AVX512-FP16: no AVX3_SPR target")

COMPARISONS = ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal")
F16_OPS = ("add", "subtract", "multiply") + COMPARISONS
BF16_OPS = ("add", "subtract", "multiply", "divide")
F8_OPS = ("add", "subtract", "multiply") + COMPARISONS
BF16 = np.dtype(ml_dtypes.bfloat16)
F8 = [np.dtype(ml_dtypes.float8_e4m3fn), np.dtype(ml_dtypes.float8_e5m2)]
# Streamed stores: results of at least 8 MiB (core/execute.h, kStreamBytes).
STREAMED = 8 << 20


def _on(target, fn, *args, **kwargs):
    eltwise.set_target(target)
    try:
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args, **kwargs))
    finally:
        eltwise.set_target(None)


def _nan_both(a, b):
    return np.isnan(np.asarray(a, np.float32)) & np.isnan(np.asarray(b, np.float32))


def _assert_same(got, want, x1, x2, what, exact=False):
    """AVX3_SPR's result against AVX3_DL's: bits equal but where both operands are NaN
    (then both results NaN); with exact (a comparison's result, cast to `out`'s dtype or
    not), every byte equal. (Against NumPy, ew_helpers.assert_same: NaN as NaN, which
    NaN code a float8 result holds not being NumPy's, docs/semantics.md.)"""
    assert got.dtype == want.dtype and got.shape == want.shape, what
    if exact or got.dtype == np.bool_:  # comparisons: exact everywhere
        bad = np.flatnonzero(got.view(np.uint8) != want.view(np.uint8))
        assert not bad.size, f"{what}: {bad.size} differ, e.g. at {bad[:4]}"
        return
    u = f"u{got.itemsize}"
    gf, wf = got.astype(np.float32), want.astype(np.float32)
    both = np.broadcast_to(_nan_both(x1, x2), got.shape)
    ok = np.where(both, np.isnan(gf) & np.isnan(wf), got.view(u) == want.view(u))
    bad = np.flatnonzero(~ok)
    assert not bad.size, (f"{what}: {bad.size} differ, e.g. at {bad[:4]}: "
                          f"{got.view(u).ravel()[bad[:4]]} vs {want.view(u).ravel()[bad[:4]]}")


# Edge bits of each 16-bit float: zeros, the least and largest subnormal, the least
# normal, 1, -1, the largest finite, infinities, signalling and quiet NaNs with payloads,
# and a few ordinary values.
EDGES = {
    np.dtype(np.float16): [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00,
                           0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0xFD55, 0x7E00, 0xFE00,
                           0x3555, 0x1400],
    BF16: [0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x8080, 0x3F80, 0xBF80, 0x7F7F,
           0xFF7F, 0x7F80, 0xFF80, 0x7F81, 0xFFA5, 0x7FC0, 0xFFC1, 0x0101, 0x3EAB],
}


def _pairs16(dt):
    """Every value of the 16-bit float dt against 400 first operands (EDGES and random
    ones), both ways round."""
    rng = np.random.default_rng(5)
    edges = np.array(EDGES[dt], np.uint16)
    firsts = np.concatenate([edges, rng.integers(0, 1 << 16, 400 - edges.size, np.uint16)])
    every = np.arange(1 << 16, dtype=np.uint16)
    a = np.repeat(firsts, every.size).view(dt)
    b = np.tile(every, firsts.size).view(dt)
    return np.concatenate([a, b]), np.concatenate([b, a])


@pytest.mark.parametrize("dt, name", [(np.dtype(np.float16), n) for n in F16_OPS] +
                         [(BF16, n) for n in BF16_OPS], ids=str)
def test_16_bit_floats_match_avx3_dl_and_numpy(dt, name):
    a, b = _pairs16(dt)
    fn = getattr(eltwise, name)
    got = _on("AVX3_SPR", fn, a, b)
    _assert_same(got, _on("AVX3_DL", fn, a, b), a, b, f"{name} vs AVX3_DL")
    with np.errstate(all="ignore"):
        assert_same(got, getattr(np, name)(a, b), inputs=(a, b))


def _layouts(dt, rng):
    """(what, x1, x2, call) for each loop kind, lengths around a 64-byte block, an
    output that starts off a 64-byte boundary, `out=` on an operand and shifted against
    it, and a streamed result that starts off a 64-byte boundary."""
    def draw(n):
        bits = rng.integers(0, 1 << (8 * dt.itemsize), n, dtype=f"u{dt.itemsize}")
        return bits.view(dt)
    x, y = draw(5000), draw(5000)
    big_n = STREAMED // dt.itemsize + 777
    bx, by = draw(big_n), draw(big_n)
    cases = [("contiguous", x, y, lambda f: f(x, y)),
             ("x1 scalar", x[7:8], y, lambda f: f(x[7:8], y)),
             ("x2 scalar", x, y[9:10], lambda f: f(x, y[9:10])),
             ("x1 0-d", x[3], y, lambda f: f(x[3], y))]
    for n in (1, 31, 32, 33, 63, 64, 65, 127, 129, 1000):
        cases.append((f"n={n}", x[:n], y[:n], lambda f, n=n: f(x[:n], y[:n])))
    for off in (1, 3, 17):
        out = np.empty(4000 + off, dt)[off:]
        cases.append((f"out offset {off}", x[:4000], y[:4000],
                      lambda f, out=out: f(x[:4000], y[:4000], out=out).copy()))
    cases.append(("out=x1", x, y, lambda f: f(c := x.copy(), y, out=c)))
    cases.append(("out=x2 shifted", x[1:], y[:-1],
                  lambda f: f(x[1:], (c := y.copy())[:-1], out=c[1:])))
    for off in (0, 1, 5):
        out = np.empty(big_n + off, dt)[off:]
        cases.append((f"streamed, out offset {off}", bx, by,
                      lambda f, out=out: f(bx, by, out=out).copy()))
    cases.append(("streamed, fresh result", bx, by, lambda f: f(bx, by)))
    return cases


@pytest.mark.parametrize("dt, names", [(np.dtype(np.float16), F16_OPS), (BF16, BF16_OPS)] +
                         [(d, F8_OPS) for d in F8], ids=lambda v: getattr(v, "name", ""))
def test_every_layout_matches_avx3_dl(dt, names):
    rng = np.random.default_rng(11)
    for what, x1, x2, call in _layouts(dt, rng):
        for name in names:
            fn = getattr(eltwise, name)
            got = _on("AVX3_SPR", call, fn)
            want = _on("AVX3_DL", call, fn)
            _assert_same(got, want, x1, x2, f"{dt.name} {name}, {what}",
                         exact=name in COMPARISONS)
    # A comparison's bool result streams from STREAMED elements, whatever the operands'
    # width, its head aligned by the result's bytes.
    n = STREAMED + 777
    bits = rng.integers(0, 1 << (8 * dt.itemsize), (2, n), dtype=f"u{dt.itemsize}")
    bx, by = bits[0].view(dt), bits[1].view(dt)
    for name in set(names) & set(COMPARISONS):
        fn = getattr(eltwise, name)
        for off in (0, 1, 5):
            out = np.empty(n + off, np.bool_)[off:]
            got = _on("AVX3_SPR", lambda: fn(bx, by, out=out).copy())
            want = _on("AVX3_DL", lambda: fn(bx, by, out=out).copy())
            _assert_same(got, want, bx, by, f"{dt.name} {name}, streamed bool, offset {off}")


@pytest.mark.parametrize("dt", F8, ids=lambda d: d.name)
def test_float8_every_pair_matches_avx3_dl_and_numpy(dt):
    """Every pair of codes, both ways, each loop kind (an operand broadcast)."""
    c = np.arange(256, dtype=np.uint8).view(dt)
    a, b = np.repeat(c, 256), np.tile(c, 256)
    col, row = c.reshape(-1, 1), c.reshape(1, -1)
    for name in F8_OPS:
        fn = getattr(eltwise, name)
        with np.errstate(all="ignore"):
            want = getattr(np, name)(a, b)
        for what, x1, x2 in (("contiguous", a, b), ("x1 column", col, row),
                             ("x2 column", row, col)):
            got = _on("AVX3_SPR", fn, x1, x2)
            _assert_same(got, _on("AVX3_DL", fn, x1, x2), x1, x2, f"{name} {what}")
            expect = want.reshape(256, 256) if what != "contiguous" else want
            expect = expect.T if what == "x2 column" else expect
            assert_same(got, np.ascontiguousarray(expect).reshape(got.shape), inputs=(x1, x2))
