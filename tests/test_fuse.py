"""eltwise.fuse (docs/semantics.md: "Fused chains"): a fused function gives the dtype,
shape and bits of the same eltwise calls unfused, on every SIMD target and thread count;
errors are the unfused calls', raised before anything is written; what is not an eltwise
call on a stand-in is a TypeError naming it; foreign operands run fn unfused.

Random chains come from a seeded program generator: each program is a list of steps
(an eltwise function, its operands, keywords, and whether it is written as a call, an
operator or ``eltwise.elementwise``), run by one interpreter both fused (operators on
stand-ins) and unfused (every step an eltwise call on the real arrays)."""

from __future__ import annotations

import operator
import re
import warnings

import ml_dtypes
import numpy as np
import pytest

import eltwise
from eltwise import _fuse_run
from ew_helpers import ALL_DTYPES, BF16, at_line_offset, is_float, is_int, uint_of

TARGETS = list(eltwise.get_targets())
OPERATORS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
             "divide": operator.truediv, "floor_divide": operator.floordiv,
             "mod": operator.mod, "power": operator.pow, "bitwise_and": operator.and_,
             "bitwise_or": operator.or_, "bitwise_xor": operator.xor, "less": operator.lt,
             "less_equal": operator.le, "greater": operator.gt,
             "greater_equal": operator.ge, "equal": operator.eq, "not_equal": operator.ne}
ARITH = ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "fmod", "maximum",
         "minimum", "squared_difference", "power"]
COMPARE = ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]


def bits(x):
    """x's bytes as unsigned integers (bool as uint8), for a bit-for-bit comparison."""
    a = np.ascontiguousarray(x)
    return a.view(uint_of(a.dtype))


def assert_bits(got, exp):
    assert type(got) is type(exp), (type(got), type(exp))
    if isinstance(exp, tuple):
        assert len(got) == len(exp)
        for g, e in zip(got, exp):
            assert_bits(g, e)
        return
    assert got.dtype == exp.dtype and got.shape == exp.shape, (got.dtype, got.shape,
                                                               exp.dtype, exp.shape)
    assert np.array_equal(bits(got), bits(exp)), f"\n{got!r}\n{exp!r}"


# ---------------------------------------------------------------------------- programs


def _values(dt, shape, rng):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if is_int(dt):
        lo = 0 if dt.kind == "u" else -50
        return rng.integers(lo, 50, shape).astype(dt)
    v = np.asarray(rng.standard_normal(shape) * 8)
    v[rng.random(shape) < 0.05] = 0.0
    return np.asarray(v).astype(dt)


def _leaf(kind, dt, shape, rng):
    """(value, step keywords) of a new operand of this kind for a chain of `shape`."""
    dt = np.dtype(dt)
    if kind == "full":
        return _values(dt, shape, rng), {}
    if kind == "numpy":  # leading dims dropped, others 1
        drop = int(rng.integers(0, len(shape) + 1))
        s = tuple(1 if rng.random() < 0.5 else d for d in shape[drop:])
        return _values(dt, s, rng), {}
    if kind == "pdpd":
        axis = int(rng.integers(0, len(shape)))
        r = int(rng.integers(1, len(shape) - axis + 1))
        s = tuple(1 if rng.random() < 0.3 else d for d in shape[axis:axis + r])
        s += (1,) * int(rng.integers(0, 2))
        kw = {"broadcast": "pdpd", "axis": axis}
        if axis == len(shape) - len(s) and rng.random() < 0.5:
            kw = {"broadcast": "pdpd"}  # axis=-1: rank(x1) - rank(x2)
        return _values(dt, s, rng), kw
    if kind == "none":
        return _values(dt, shape, rng), {"broadcast": "none"}
    if kind == "numpy_scalar":
        return _values(dt, (), rng)[()], {}
    if kind == "python":
        if dt == np.bool_:
            return bool(rng.integers(0, 2)), {}
        if is_int(dt):
            return int(rng.integers(-3 if dt.kind == "i" else 0, 8)), {}
        return float(rng.choice([0.5, -1.25, 3.0, 7.5])), {}
    raise AssertionError(kind)


def _ops_for(dt):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return ["add", "multiply", "maximum", "minimum"] + LOGICAL + BITWISE + COMPARE
    if is_int(dt):
        return ARITH + LOGICAL + BITWISE + COMPARE
    return ARITH + LOGICAL + COMPARE


def make_program(dt, shape, depth, rng):
    """(leaves, steps, outputs): leaves are the fused function's arguments; a step is
    (name, ref1, ref2, keywords, form) where a ref is ("leaf", i), ("step", i) or
    ("const", value); outputs are step indices (a tuple result when several)."""
    leaves, steps = [_values(dt, shape, rng)], []
    ops = _ops_for(dt)
    for s in range(depth):
        name = str(rng.choice(ops))
        if name == "power" and is_int(dt):
            kind = "python"  # a non-negative exponent: the values stay finite and legal
        else:
            kind = str(rng.choice(["full", "numpy", "pdpd", "none", "numpy_scalar", "python",
                                   "const"]))
        cur = ("step", s - 1) if s else ("leaf", 0)
        kw = {}
        if kind == "const":
            ref = ("const", _leaf("python", dt, shape, rng)[0])
        else:
            value, kw = _leaf(kind, dt, shape, rng)
            if name == "power" and is_int(dt):
                value = int(rng.integers(0, 4))
            leaves.append(value)
            ref = ("leaf", len(leaves) - 1)
        if s >= 2 and kind in ("full", "none") and rng.random() < 0.3:
            ref = ("step", int(rng.integers(0, s - 1)))  # an earlier result, full-shaped
        if name == "divide" and rng.random() < 0.5:
            kw["pythondiv"] = bool(rng.integers(0, 2))
        if name in ARITH and name not in ("power",) and rng.random() < 0.1:
            kw["dtype"] = np.dtype(rng.choice([np.float32, np.float64]))
        pair = (cur, ref)
        if not kw.get("broadcast") and rng.random() < 0.3:
            pair = (ref, cur)
        form = "call"
        if not kw and name in OPERATORS and rng.random() < 0.5:
            form = "operator"
        elif rng.random() < 0.2 and name in eltwise.Op._value2member_map_:
            form = "elementwise"
        steps.append((name, pair[0], pair[1], kw, form))
    outputs = [depth - 1]
    if depth > 2 and rng.random() < 0.3:
        outputs = [depth - 1, int(rng.integers(0, depth - 1))]
    return leaves, steps, outputs


def interpret(steps, outputs, args, fused):
    """The program on `args`; fused: operator steps as operators (on stand-ins)."""
    results = []

    def get(ref):
        kind, v = ref
        return args[v] if kind == "leaf" else results[v] if kind == "step" else v

    for name, r1, r2, kw, form in steps:
        a, b = get(r1), get(r2)
        if form == "operator" and fused and (_traced(a) or _traced(b)):
            results.append(OPERATORS[name](a, b))
        elif form == "elementwise":
            results.append(eltwise.elementwise(a, b, eltwise.Op(name), **kw))
        else:
            results.append(getattr(eltwise, name)(a, b, **kw))
    if len(outputs) == 1:
        return results[outputs[0]]
    return tuple(results[i] for i in outputs)


def _traced(x):
    return type(x).__name__ == "Traced"


def fused_program(steps, outputs):
    return eltwise.fuse(lambda *args: interpret(steps, outputs, args, True))


def unfused(steps, outputs, args):
    with np.errstate(all="ignore"):
        return interpret(steps, outputs, args, False)


@pytest.fixture(params=["native", "python"])
def small_blocks(monkeypatch, request):
    """Blocks of a few elements, so small arrays run in many blocks, partial ones too; on
    the C++ block executor where the graph allows it ("native": a signature's first call
    from Python, the next ones through the fused function's C++ door where it runs them),
    and on the Python block loop that runs every other graph ("python")."""
    monkeypatch.setattr(_fuse_run, "BLOCK_BYTES", 48)
    monkeypatch.setattr(_fuse_run, "POOL_BYTES", 96)
    if request.param == "python":
        monkeypatch.setattr(_fuse_run._Native, "run", lambda self, *args: False)
        monkeypatch.setattr(_fuse_run, "FAST", False)  # every call through the Python loop


SHAPES = [(7,), (3, 5), (2, 3, 4), (2, 3, 2, 5)]


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_random_chains_bit_for_bit(dt, small_blocks):
    """Random chains of depth 2-8 in every dtype, every broadcast mode, scalars of every
    kind, comparisons feeding logical and bitwise ops: fused == unfused, bit for bit, on
    every target and at 1 and 2 threads; errors are the unfused ones."""
    rng = np.random.default_rng(24 + ALL_DTYPES.index(dt))
    checked = 0
    for trial in range(14):
        shape = SHAPES[trial % len(SHAPES)]
        leaves, steps, outputs = make_program(dt, shape, int(rng.integers(2, 9)), rng)
        f = fused_program(steps, outputs)
        try:
            exp = unfused(steps, outputs, leaves)
        except Exception as e:  # noqa: BLE001 - the fused call must raise the same
            with pytest.raises(type(e), match=re.escape(str(e))), np.errstate(all="ignore"):
                f(*leaves)
            continue
        assert_fused_everywhere(f, leaves, lambda: exp)
        checked += 1
    assert checked >= 7  # most programs compute


def assert_fused_everywhere(f, leaves, expected):
    """f(*leaves) has the bits of expected() (the unfused result, computed under the target
    at hand) on every target, at 1 and 2 threads."""
    for target in TARGETS:
        eltwise.set_target(target)
        exp = expected()
        for threads in (1, 2):
            eltwise.set_num_threads(threads)
            with np.errstate(all="ignore"):
                got = f(*leaves)
            assert_bits(got, exp)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_random_chains_in_tiles(dt, monkeypatch):
    """The C++ executor runs a block tile by tile (src/core/fused.cc, RunTiles): blocks of
    several tiles and a partial last tile (BLOCK_BYTES not a multiple of a tile), results
    of several blocks per thread at 2 threads, the default block of one or two blocks, and
    broadcast operands that are a scalar within each block (pdpd per-channel): fused ==
    unfused, bit for bit, on every target and at 1 and 2 threads."""
    rng = np.random.default_rng(124 + ALL_DTYPES.index(dt))
    checked = 0
    for trial in range(6):
        shape = [(3, 2501), (50_003,), (2, 3, 1700)][trial % 3]
        if trial < 3:
            monkeypatch.setattr(_fuse_run, "BLOCK_BYTES", 20_000)
        else:
            monkeypatch.undo()
        leaves, steps, outputs = make_program(dt, shape, int(rng.integers(2, 9)), rng)
        f = fused_program(steps, outputs)
        try:
            unfused(steps, outputs, leaves)
        except Exception:  # noqa: BLE001 - test_random_chains_bit_for_bit checks errors
            continue
        # Per target: float64 power's bits depend on it (these arrays are large enough).
        assert_fused_everywhere(f, leaves, lambda: unfused(steps, outputs, leaves))
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("narrow,wide", [(np.int8, np.float32), (np.uint16, np.float32),
                                         (np.int32, np.float64), (np.float32, np.float64),
                                         (np.bool_, np.float32)],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("block_bytes", [20_000, None], ids=["rows", "default"])
def test_widening_chains_in_tiles(narrow, wide, block_bytes, monkeypatch):
    """Operands converted to their node's dtype tile by tile (RunTiles' casts): a full
    array, a row and a per-row value (a scalar within each block, pdpd axis=0) of the
    narrow dtype in nodes of the wide one, tiles and blocks ending anywhere: fused ==
    unfused, bit for bit, on every target and at 1 and 2 threads."""
    if block_bytes is not None:
        monkeypatch.setattr(_fuse_run, "BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((3, 2501)) * 40).astype(narrow)
    row = (rng.standard_normal(2501) * 40).astype(narrow)
    per_row = (rng.standard_normal(3) * 40).astype(narrow)
    y = (rng.standard_normal((3, 2501)) + 3).astype(wide)

    def chain(x, row, per_row, y):
        t = eltwise.add(eltwise.multiply(x, y), row)
        return eltwise.subtract(eltwise.divide(t, y), per_row, broadcast="pdpd", axis=0)

    runs = native_runs(monkeypatch)
    f = eltwise.fuse(chain)
    assert_fused_everywhere(f, (x, row, per_row, y), lambda: chain(x, row, per_row, y))
    assert runs and all(runs)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_per_channel_chains_in_tiles(dt, monkeypatch):
    """Blocks of several channels with per-channel parameters (pdpd axis=1): RunTiles walks
    the block row by row, each parameter a broadcast scalar within its row (src/core/
    fused.cc, IsOneValuePerRow), tiles ending anywhere in a row; rows too short for tiles
    (the block path), a parameter converted from int8, and power with a per-channel
    exponent: fused == unfused, bit for bit, on every target and at 1 and 2 threads."""
    rng = np.random.default_rng(31 + ALL_DTYPES.index(dt))
    dt = np.dtype(dt)
    floating = dt.kind in "fV" or dt == BF16

    def chain(x, g, b, c, e):
        t = eltwise.add(eltwise.multiply(x, g, broadcast="pdpd", axis=1), b,
                        broadcast="pdpd", axis=1)
        u = eltwise.maximum(t, c, broadcast="pdpd", axis=1)
        if floating:
            u = eltwise.power(u, e, broadcast="pdpd", axis=1)
        return u, eltwise.less(t, c, broadcast="pdpd", axis=1)

    runs = native_runs(monkeypatch)
    default = _fuse_run.BLOCK_BYTES
    for shape, block_bytes in (((2, 5, 300), 20_000), ((4, 7, 1029), 40_000),
                               ((2, 5, 30), 2_000), ((3, 6, 700), None)):
        monkeypatch.setattr(_fuse_run, "BLOCK_BYTES", block_bytes or default)
        ch = shape[1]
        x = _values(dt, shape, rng)
        g, b, c = (_values(dt, (ch,), rng) for _ in range(3))
        # int8 into float32/float64 converts per row (the half floats' conversions take
        # the Python block loop, docs/fuse.md)
        e = (rng.integers(-3, 4, ch).astype(np.int8 if dt.itemsize >= 4 else dt) if floating
             else _values(dt, (ch,), rng))
        leaves = (x, g, b, c, e)
        f = eltwise.fuse(chain)
        assert_fused_everywhere(f, leaves, lambda: chain(*leaves))
    assert runs and all(runs)


@pytest.mark.parametrize("dt", [np.float32, np.float16, BF16, np.int8, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_random_chains_with_out(dt, small_blocks):
    """out= of the result's dtype, of a wider one (cast as same_kind), and out that is an
    input of the chain: the unfused result, written to out, out returned."""
    rng = np.random.default_rng(7)
    checked = 0
    for trial in range(12):
        shape = SHAPES[1 + trial % 3]
        leaves, steps, outputs = make_program(dt, shape, int(rng.integers(2, 7)), rng)
        outputs = outputs[:1]
        f = fused_program(steps, outputs)
        try:
            exp = unfused(steps, outputs, leaves)
        except Exception:  # noqa: BLE001 - test_random_chains_bit_for_bit covers errors
            continue
        if exp.shape != shape:
            continue
        wide = np.float64 if is_float(exp.dtype) else exp.dtype
        for out in (np.empty_like(exp), np.empty(exp.shape, wide)):
            want = np.empty_like(out)
            np.copyto(want, exp, casting="same_kind")
            with np.errstate(all="ignore"):
                got = f(*leaves, out=out)
            assert got is out
            assert_bits(got, want)
        if np.can_cast(exp.dtype, leaves[0].dtype, "same_kind"):
            inputs = [x.copy() if isinstance(x, np.ndarray) else x for x in leaves]
            want = np.empty_like(inputs[0])
            np.copyto(want, exp, casting="same_kind")
            with np.errstate(all="ignore"):
                got = f(*inputs, out=inputs[0])  # out is the chain's first operand
            assert got is inputs[0]
            assert_bits(got, want)
        checked += 1
    assert checked >= 4


def test_out_overlapping_input_view():
    """out a shifted view of an operand's memory: read before written, as unfused."""
    base = np.arange(20, dtype=np.float32)
    x, out = base[:15].reshape(3, 5), base[5:].reshape(3, 5)
    f = eltwise.fuse(lambda a, b: (a + b) * a)
    exp = eltwise.multiply(eltwise.add(x, 1.5), x)
    assert_bits(f(x, 1.5, out=out), exp)


@pytest.mark.parametrize("threads", [1, 2])
def test_per_channel_normalization(threads):
    """pdpd axis=1 parameters computed per block; the (C,) nodes once, before them."""
    eltwise.set_num_threads(threads)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 16, 9, 9)).astype(np.float32)
    mean, inv, gamma, beta = (rng.standard_normal(16).astype(np.float32) for _ in range(4))

    def norm(x, mean, inv_std, gamma, beta):
        kw = {"broadcast": "pdpd", "axis": 1}
        scale = eltwise.multiply(inv_std, gamma)  # (16,): computed once
        y = eltwise.multiply(eltwise.subtract(x, mean, **kw), scale, **kw)
        return eltwise.add(y, beta, **kw)

    assert_bits(eltwise.fuse(norm)(x, mean, inv, gamma, beta), norm(x, mean, inv, gamma, beta))


def test_large_chain_many_blocks():
    """A chain over more than one block at the real block size, on each thread count."""
    assert 300_001 * 4 > 2 * _fuse_run.BLOCK_BYTES
    rng = np.random.default_rng(2)
    a, b, c, d, e = (rng.standard_normal(300_001).astype(np.float32) for _ in range(5))
    f = eltwise.fuse(lambda a, b, c, d, e: ((a - b) * c + d) / e)
    exp = eltwise.divide(eltwise.add(eltwise.multiply(eltwise.subtract(a, b), c), d), e)
    for threads in (1, 2):
        eltwise.set_num_threads(threads)
        assert_bits(f(a, b, c, d, e), exp)


@pytest.mark.parametrize("shape", [(300_001,), (3, 77_777), (2, 3, 65_537)])
def test_split_fused_run_writes_every_block(shape):
    """docs/semantics.md "Runtime": a fused chain's blocks, shared by two threads from
    both ends as a split call's batches are, all run, each over its own elements: into an
    out= refilled with -1 before each of forty calls (a block skipped leaves -1, a block
    run over another's elements writes wrong values: every element's value differs), on
    shapes that are no multiple of the block, so that the worker joins at different
    points. (A block run twice would write the same values: results cannot show it.)"""
    eltwise.set_num_threads(2)
    f = eltwise.fuse(lambda x, y: x * 2 + y)
    x = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    y = x[..., ::-1].copy()
    exp = x * 2 + y
    out = np.empty(shape, np.int32)
    for k in range(40):
        out.fill(-1)
        assert f(x, y, out=out) is out
        if (out != exp).any():
            bad = np.flatnonzero(out.ravel() != exp.ravel())
            pytest.fail(f"call {k}: {bad.size} elements differ, first at {bad[0]}: "
                        f"{out.ravel()[bad[0]]} for {exp.ravel()[bad[0]]}")


def spy_on(monkeypatch, owner, name):
    """A list of what owner.<name> returns on each call from here on."""
    returned = []
    real = getattr(owner, name)

    def spy(*args):
        r = real(*args)
        returned.append(r)
        return r

    monkeypatch.setattr(owner, name, spy)
    return returned


def native_runs(monkeypatch):
    """Whether each run of the C++ block executor from Python ran (True) or left the blocks
    to the Python loop (False), from here on."""
    return spy_on(monkeypatch, _fuse_run._Native, "run")


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, BF16, np.int8,
                                np.int32, np.uint64], ids=lambda d: np.dtype(d).name)
def test_common_chains_run_on_the_cpp_executor(dt, monkeypatch):
    """Chains of one dtype with Python scalars, per-channel parameters, a comparison and
    an int8 -> float32 widening run on the C++ executor (not the Python block loop)."""
    runs = native_runs(monkeypatch)
    monkeypatch.setattr(_fuse_run, "BLOCK_BYTES", 16384)  # several blocks
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((4, 8, 3000)) * 20).astype(dt)
    m = (rng.standard_normal(8) * 5).astype(dt)
    f = eltwise.fuse(lambda x, m, s: eltwise.maximum(
        eltwise.multiply(x - m[:, None] if False else eltwise.subtract(x, m, broadcast="pdpd",
                                                                       axis=1), s), x) + 1)
    with np.errstate(all="ignore"):
        exp = eltwise.add(eltwise.maximum(eltwise.multiply(
            eltwise.subtract(x, m, broadcast="pdpd", axis=1), 3), x), 1)
        for threads in (1, 2):
            eltwise.set_num_threads(threads)
            assert_bits(f(x, m, 3), exp)
    g = eltwise.fuse(lambda a, w: (eltwise.multiply(a, w) > 0) & (a != 0))
    a = (rng.standard_normal(100_000) * 50).astype(np.int8)
    w = rng.standard_normal(100_000).astype(np.float32)
    assert_bits(g(a, w), eltwise.bitwise_and(eltwise.greater(eltwise.multiply(a, w), 0),
                                             eltwise.not_equal(a, 0)))
    assert runs and all(runs)


@pytest.mark.parametrize("half", [np.float16, BF16], ids=lambda d: np.dtype(d).name)
def test_mixed_half_chains_run_on_the_cpp_executor(half, target, monkeypatch):
    """float16 and bfloat16 operands of float32 and float64 nodes (mixed precision) are
    widened in the executor, tile by tile (exact: src/core/cast.h), with the unfused bits,
    at 1 and 2 threads: a cached call and the blocks of a first call run in C++."""
    runs = native_runs(monkeypatch)
    rng = np.random.default_rng(7)
    for n in (10, 1001, 300_001):
        h = (rng.standard_normal(n) * 30).astype(half)
        h[: min(n, 4)] = np.array([np.inf, -0.0, np.nan, -np.inf])[: min(n, 4)]
        s = rng.standard_normal(n).astype(np.float32)
        w = rng.standard_normal(n)
        f = eltwise.fuse(lambda h, s, w: ((h * s + h) - w) * h)
        with np.errstate(all="ignore"):
            exp = eltwise.multiply(eltwise.subtract(eltwise.add(eltwise.multiply(h, s), h), w), h)
            for threads in (1, 2):
                eltwise.set_num_threads(threads)
                assert_bits(f(h, s, w), exp)
                assert_bits(f(h, s, w), exp)  # the cached call
    assert runs and all(runs)


def test_cpp_executor_refuses_bad_programs():
    """The C++ executor's private door checks its program before anything runs."""
    from eltwise import _eltwise
    a = np.ones(10, np.float32)
    out = np.zeros(10, np.float32)
    f32 = [d["name"] for d in _eltwise._dtype_table()].index("float32")
    assert f32 == 11  # the programs below are written with it
    good = ((0, 11, 11, 1, 0, 1, 0, True, 0),)  # out = a + a
    assert _eltwise._fuse_run(good, [], [a], [out], (10,), 4, 2) == [0]
    assert_bits(out, a + a)
    out[:] = 0
    bad = [
        ((((99, 11, 11, 1, 0, 1, 0, True, 0),), [], [a], [out], (10,), 4, 1), ValueError),
        ((((0, 11, 0, 1, 0, 1, 0, True, 0),), [], [a], [out], (10,), 4, 1), ValueError),
        ((((0, 11, 11, 1, 5, 1, 0, True, 0),), [], [a], [out], (10,), 4, 1), ValueError),
        ((((0, 11, 11, 2, 0, 1, 0, True, 0),), [], [a], [out], (10,), 4, 1), ValueError),
        ((((0, 11, 11, 0, 0, 1, 0, True, 0),), [], [a], [out], (10,), 4, 1), ValueError),
        ((((0, 11, 11, 0, 0, 1, 0, True, 0),), [np.float32(1)], [a], [out], (10,), 4, 1),
         TypeError),
        ((((0, 11, 11, 1, 0, 1, 0, True, 3),), [], [a], [out], (10,), 4, 1), ValueError),
        ((((0, 11, 11, 1, 0, 1, 0, False, 999),), [], [a], [out], (10,), 4, 1), ValueError),
        ((good, [], [a[::2]], [out], (10,), 4, 1), ValueError),
        ((good, [], [a], [out[::-1][:5]], (10,), 4, 1), ValueError),
        ((good, [], [a], [np.zeros(10, np.float64)], (10,), 4, 1), ValueError),
        ((good, [], [a], [np.zeros(10, np.float32)[::1].copy().view(">f4")], (10,), 4, 1),
         ValueError),
        ((good, [], [a], [np.zeros(10, np.float32)], (10,), 0, 1), ValueError),
        ((good, [], [a], [np.zeros(10, np.float32)], (10,), 4, 0), ValueError),
        ((good, [], [a], [np.zeros(10, np.float32)], (), 4, 1), ValueError),
        ((((0, 0, 0, 1, 0, 1, 0, True, 0),), [], [np.broadcast_to(np.ones(1, bool), (3, 2**61))],
          [np.lib.stride_tricks.as_strided(np.zeros(1, bool), (3, 2**61), (0, 0))],
          (3, 2**61), 4, 1), ValueError),  # more elements than the executor counts (bool add)
        ((good, [], [a.astype(np.float64)], [out], (10,), 4, 1), ValueError),
        ((good, [], [[1.0] * 10], [out], (10,), 4, 1), TypeError),
        ((((0, 11, 11, 1, 0, 1, 0),), [], [a], [out], (10,), 4, 1), ValueError),
    ]
    ro = np.zeros(10, np.float32)
    ro.flags.writeable = False
    bad.append(((good, [], [a], [ro], (10,), 4, 1), ValueError))
    for args, error in bad:
        with pytest.raises(error):
            _eltwise._fuse_run(*args)
    assert not out.any()
    f64 = [d["name"] for d in _eltwise._dtype_table()].index("float64")
    floor = _eltwise._fuse_resolve("floor_divide", np.ones(1, np.int64), 1, {})[0]
    # int64 / uint64 floor-divides in float64, as numpy.floor_divide
    assert _eltwise._fuse_resolve("divide", np.ones(1, np.int64), np.ones(1, np.uint64),
                                  {}) == (floor, f64, f64)
    assert _eltwise._fuse_resolve("less", np.ones(1, np.int64), np.ones(1, np.uint64),
                                  {}) is None  # compared exactly, not in a common dtype
    assert _eltwise._fuse_resolve("power", np.ones(1, np.int8), np.ones(1, np.int8),
                                  {}) is None  # raises on a negative exponent
    with pytest.raises(TypeError):
        _eltwise._fuse_resolve("add", np.ones(1, object), 1, {})
    r = _eltwise._fuse_result((3, 1 << 18), np.float32)  # from the result pool's sizes
    assert r.shape == (3, 1 << 18) and r.dtype == np.float32 and r.flags.c_contiguous
    for shape, dtype, error in [((3,), object, TypeError), ((-1,), np.float32, ValueError),
                                ((1,) * 65, np.int8, ValueError),
                                ((2**62, 2**62), np.int8, ValueError)]:
        with pytest.raises(error):
            _eltwise._fuse_result(shape, dtype)


def test_int8_to_float32_chain_and_scalar_result():
    x = np.arange(-5, 5, dtype=np.int8)
    f = eltwise.fuse(lambda x, s: eltwise.multiply(x, s, dtype=np.float32) - 0.5)
    assert_bits(f(x, 3), eltwise.subtract(eltwise.multiply(x, 3, dtype=np.float32), 0.5))
    # 0-d operands: a NumPy scalar, as unfused
    g = eltwise.fuse(lambda a, b: a * b + 1)
    assert_bits(g(np.float32(2), 3.0), eltwise.add(eltwise.multiply(np.float32(2), 3.0), 1))


def test_operators_are_eltwise_functions():
    """`/` is eltwise.divide (integers floor), `%` mod, `**` power, `&` bitwise_and."""
    a, b = np.array([-7, 7, 9]), np.array([2, 2, -4])
    f = eltwise.fuse(lambda a, b: (a / b, a % b, a ** 2, a & b, a < b, 3 - a, 2 ** (b * b)))
    exp = (eltwise.divide(a, b), eltwise.mod(a, b), eltwise.power(a, 2),
           eltwise.bitwise_and(a, b), eltwise.less(a, b), eltwise.subtract(3, a),
           eltwise.power(2, eltwise.multiply(b, b)))
    with np.errstate(all="ignore"):
        assert_bits(f(a, b), exp)
    assert list(f(a, b)[0]) == [-4, 3, -3]


def test_tuple_result_and_out_tuple():
    x, y = np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0])
    f = eltwise.fuse(lambda x, y: (x + y, x * y, x - 1))
    o = (np.empty((2, 3)), np.empty((2, 3), np.float32), np.empty((2, 3)))
    got = f(x, y, out=o)
    assert all(g is oo for g, oo in zip(got, o))
    assert_bits(got[0], x + y)
    assert_bits(got[1], (x * y).astype(np.float32))
    with pytest.raises(TypeError, match="tuple of 3"):
        f(x, y, out=o[0])
    with pytest.raises(ValueError, match="2 arrays"):
        f(x, y, out=o[:2])


def test_out_rules():
    x = np.ones((2, 3), np.float32)
    f = eltwise.fuse(lambda x: x * 2)
    with pytest.raises(ValueError, match=r"shape \(3, 2\)"):
        f(x, out=np.empty((3, 2), np.float32))
    with pytest.raises(TypeError, match="same_kind"):
        f(x, out=np.empty((2, 3), np.int32))
    ro = np.empty((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f(x, out=ro)


def test_traced_once_per_signature():
    calls = []

    @eltwise.fuse
    def f(x, s):
        calls.append(1)
        return x * s + 1

    a = np.ones(4, np.float32)
    for _ in range(3):
        f(a, 2.0)
    assert len(calls) == 1
    f(a + 1, 3.0)  # same shapes, dtypes and scalar kinds: cached
    assert len(calls) == 1
    f(np.ones(5, np.float32), 2.0)
    f(a, 2)
    f(a.astype(np.float64), 2.0)
    assert len(calls) == 4
    assert list(f(a, 3.0)) == [4.0] * 4


def door_calls(monkeypatch):
    """A list with an entry per call that reaches Python (``_fuse_run.run``) from here on:
    the others ran in the fused function's C++ door."""
    return spy_on(monkeypatch, _fuse_run, "run")


E = eltwise


def _two_results_out_of_order(x, y):
    product = E.multiply(x, y)  # computed first, returned second
    return E.subtract(x, y), product


# (fn, argument maker): arrays of several dtypes, numpy and pdpd broadcasting, Python
# scalars of each kind, constants captured by fn, tuple results in any order. Written with
# eltwise's functions, so that fn on arrays is the unfused reference.
DOOR_CASES = [
    (lambda a, b, c, d, e: E.maximum(E.add(E.multiply(E.subtract(a, b), c), d), e),
     lambda rng, dt: [rng_array(rng, dt, (5, 7)) for _ in range(5)]),
    (lambda x, m, s, t: E.add(E.multiply(E.subtract(x, m, broadcast="pdpd", axis=1), s), t),
     lambda rng, dt: [rng_array(rng, dt, (2, 3, 4)), rng_array(rng, dt, (3,)), 2.5, -3]),
    (lambda x, row, col, flag: (E.multiply(E.add(x, row), col),
                                E.bitwise_and(E.greater(x, row), flag)),
     lambda rng, dt: [rng_array(rng, dt, (4, 6)), rng_array(rng, dt, (1, 6)),
                      rng_array(rng, dt, (4, 1)), True]),
    (lambda x, y: (E.subtract(E.maximum(x, y), CONST_ROW), E.subtract(E.multiply(x, 3), 1.5)),
     lambda rng, dt: [rng_array(rng, dt, (3, 5)), rng_array(rng, dt, (5,))]),
    (_two_results_out_of_order,
     lambda rng, dt: [rng_array(rng, dt, (9,)), rng_array(rng, dt, (9,))]),
    (lambda a, b, c: E.multiply(E.divide(E.subtract(a, b), c), c),  # integer division
     lambda rng, dt: [rng_array(rng, dt, (8,)) for _ in range(3)]),  # (reports zero divisors)
]
CONST_ROW = np.arange(5, dtype=np.float32)


def rng_array(rng, dt, shape):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 10).astype(dt)
    return rng.integers(-50 if dt.kind == "i" else 0, 50, shape).astype(dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8],
                         ids=lambda d: np.dtype(d).name)
def test_door_runs_registered_signatures(dt, monkeypatch):
    """A signature's calls after the first (per target) run in the fused function's C++
    door, not in Python, with the unfused bits, on every target and thread count; new
    arrays of the same signature (other values, strides) are read as they are."""
    calls = door_calls(monkeypatch)
    rng = np.random.default_rng(11)
    for fn, make in DOOR_CASES:
        f = eltwise.fuse(fn)
        args = make(rng, dt)
        eltwise.set_target(TARGETS[0])
        with np.errstate(all="ignore"):
            exp = fn(*args)
            assert_bits(f(*args), exp)
            assert len(calls) == 1 and eltwise._eltwise._fuse_entries(f) == 1, fn
            for target in TARGETS:
                eltwise.set_target(target)
                for threads in (1, 2):
                    eltwise.set_num_threads(threads)
                    assert_bits(f(*args), exp)
            # Through Python: the first call, and under each other target its first call
            # (which registers that target's kernels; test_door_follows_set_target).
            assert len(calls) == len(TARGETS), fn
            calls.clear()
            # Other values, and strided views of the same shapes: still the door.
            other = [rng_array(rng, dt, a.shape) if isinstance(a, np.ndarray) else a
                     for a in make(rng, dt)]
            strided = [np.repeat(a, 2, axis=-1)[..., ::2] if isinstance(a, np.ndarray)
                       and a.ndim else a for a in other]
            assert_bits(f(*other), fn(*other))
            assert_bits(f(*strided), fn(*other))
            assert len(calls) == 0
        calls.clear()


@pytest.mark.parametrize("dt", [np.float32, np.int32], ids=lambda d: np.dtype(d).name)
def test_door_writes_out(dt, monkeypatch):
    """A registered signature's calls with out= run in the door too (a first call with
    out= registers it): the results are written into out (strided, reversed, Fortran
    order, every result of a tuple in its position) with the unfused bits on every target
    and thread count, and the call returns out (the same array; a new tuple of the out
    arrays for a tuple result); out=None is no out; keywords and defaults still bind."""
    calls = door_calls(monkeypatch)
    rng = np.random.default_rng(13)
    # (The last one divides integers: with out=, Python; test_door_reports_zero_divisors.)
    for fn, make in DOOR_CASES[:-1]:
        f = eltwise.fuse(fn)
        args = make(rng, dt)
        with np.errstate(all="ignore"):
            exp = fn(*args)
        exps = exp if isinstance(exp, tuple) else (exp,)

        def outs(layout):
            made = []
            for e in exps:
                if layout == "c":
                    o = np.empty_like(e)
                elif layout == "f":
                    o = np.empty(e.shape, e.dtype, order="F")
                elif layout == "reversed":
                    o = np.empty_like(e)[(slice(None, None, -1),) * e.ndim]
                else:  # every other element of a larger array
                    o = np.empty(e.shape[:-1] + (2 * e.shape[-1],), e.dtype)[..., ::2]
                o[...] = 77
                made.append(o)
            return tuple(made)

        first = outs("c")
        got = f(*args, out=first if isinstance(exp, tuple) else first[0])
        assert len(calls) == 1 and eltwise._eltwise._fuse_entries(f) == 1, fn
        for target in TARGETS:
            eltwise.set_target(target)
            f(*args)  # registers this target's kernels (test_door_follows_set_target)
            for threads in (1, 2):
                eltwise.set_num_threads(threads)
                for layout in ("c", "f", "reversed", "strided"):
                    o = outs(layout)
                    given = o if isinstance(exp, tuple) else o[0]
                    before = len(calls)
                    got = f(*args, out=given)
                    assert len(calls) == before, (fn, target, layout)
                    if isinstance(exp, tuple):
                        assert type(got) is tuple and all(g is q for g, q in zip(got, o))
                    else:
                        assert got is given
                    for g, e in zip(o, exps):
                        assert_bits(g, e)
            assert_bits(f(*args, out=None), exp)
        calls.clear()
    # Keywords, defaults and out= together, on a plain-parameter function.
    f = eltwise.fuse(lambda x, y, s=2.0: (x - y) * s)
    x, y = (rng_array(rng, dt, (4, 5)) for _ in range(2))
    exp = E.multiply(E.subtract(x, y), 2.0)
    o = np.empty_like(exp)
    f(x, y, out=o)
    calls.clear()
    for call in (lambda: f(x, y, out=o), lambda: f(x, y=y, out=o),
                 lambda: f(y=y, x=x, s=2.0, out=o), lambda: f(x, out=o, y=y)):
        o[...] = 0
        assert call() is o
        assert_bits(o, exp)
    assert len(calls) == 0


def _reports(call):
    """call()'s result or exception, and its warnings (category, message) in order."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got = call()
        except FloatingPointError as e:
            got = ("raised", str(e))
    return got, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("dt", [np.int32, np.uint8, np.int64], ids=lambda d: np.dtype(d).name)
def test_door_reports_zero_divisors(dt, monkeypatch):
    """Integer divisions run in the door, and a division by zero there is reported as the
    unfused calls report it, by numpy.errstate's mode (docs/fuse.md): a RuntimeWarning per
    dividing node that met one, in node order; FloatingPointError under "raise"; the
    errcall under "call"; nothing under "ignore"; the same bits. On every target and
    thread count, with the zero in a block of the second thread too. A call with out= goes
    to Python, which leaves out as it was when errstate raises."""
    calls = door_calls(monkeypatch)
    fn = lambda a, b, c: E.mod(E.divide(a, b), c)  # two dividing nodes: divide, then mod
    f = eltwise.fuse(fn)
    for n in (12, 1 << 18):
        a = (np.arange(n) % 100 + 1).astype(dt)
        b, c = np.full(n, 3, dt), np.full(n, 5, dt)
        b0, c0 = b.copy(), c.copy()
        b0[n - 5] = 0  # divide meets a zero (in the last block)
        c0[4] = 0  # so does mod
        cases = [(a, b, c), (a, b0, c), (a, b, c0), (a, b0, c0)]
        for target in TARGETS:
            eltwise.set_target(target)
            f(a, b, c)  # registers this target's kernels
            calls.clear()
            for threads in (1, 2):
                eltwise.set_num_threads(threads)
                for args in cases:
                    for mode in ("warn", "raise", "ignore"):
                        with np.errstate(divide=mode):
                            got, got_warnings = _reports(lambda: f(*args))
                            exp, exp_warnings = _reports(lambda: fn(*args))
                        assert got_warnings == exp_warnings, (mode, got_warnings)
                        if isinstance(exp, tuple):
                            assert got == exp
                        else:
                            assert_bits(got, exp)
                    seen = {}
                    for name, call in (("fused", f), ("unfused", fn)):
                        seen[name] = []
                        with np.errstate(divide="call",
                                         call=lambda kind, flag, s=seen[name]: s.append(kind)):
                            call(*args)
                    assert seen["fused"] == seen["unfused"]
            assert len(calls) == 0, target
    assert any(len(_reports(lambda: f(*args))[1]) == 2 for args in cases)
    o = np.full(a.shape, 7, dt)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        f(a, b0, c, out=o)
    assert (o == 7).all()
    with np.errstate(divide="ignore"):
        assert f(a, b0, c, out=o) is o
        assert_bits(o, fn(a, b0, c))
    assert len(calls) == 1  # (door_calls counts the calls that return)


def test_door_leaves_out_it_cannot_write_to_python(monkeypatch):
    """out= the door does not write itself reaches Python, which gives the unfused results
    and errors: an out that is an operand or overlaps one (a temporary first), of another
    dtype (a cast), a subclass, a tuple of one, unaligned, byte-swapped, read-only, of
    another shape, outs of a tuple result that overlap each other."""
    calls = door_calls(monkeypatch)
    f = eltwise.fuse(lambda x, s: (x + s) * s)
    x = np.arange(12, dtype=np.float32)
    exp = (x + 2) * 2
    f(x, 2.0, out=np.empty(12, np.float32))
    assert len(calls) == 1

    def reaches_python(*args, **kwargs):
        before = len(calls)
        got = f(*args, **kwargs)
        assert len(calls) == before + 1, kwargs
        return got

    y = x.copy()
    assert reaches_python(y, 2.0, out=y) is y and list(y) == list(exp)
    big = np.arange(24, dtype=np.float32)
    assert reaches_python(big[:12], 2.0, out=big[6:18]) is not None
    assert list(big[6:18]) == list((np.arange(12) + 2) * 2)
    o64 = np.empty(12, np.float64)
    assert reaches_python(x, 2.0, out=o64) is o64 and list(o64) == list(exp)

    class Sub(np.ndarray):
        pass

    sub = np.empty(12, np.float32).view(Sub)
    assert reaches_python(x, 2.0, out=sub) is sub and list(sub) == list(exp)
    one = np.empty(12, np.float32)
    assert reaches_python(x, 2.0, out=(one,)) is one and list(one) == list(exp)
    raw = np.zeros(12 * 4 + 1, np.uint8)
    unaligned = raw[1:].view(np.float32)
    assert reaches_python(x, 2.0, out=unaligned) is unaligned
    assert list(unaligned) == list(exp)
    swapped = np.empty(12, ">f4")
    assert reaches_python(x, 2.0, out=swapped) is swapped and list(swapped) == list(exp)
    frozen = np.empty(12, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f(x, 2.0, out=frozen)
    with pytest.raises(ValueError, match="shape"):
        f(x, 2.0, out=np.empty(13, np.float32))
    g = eltwise.fuse(_two_results_out_of_order)
    a, b = x + 1, x - 1
    g(a, b, out=(np.empty(12, np.float32), np.empty(12, np.float32)))
    calls.clear()
    both = np.empty(12, np.float32)
    g(a, b, out=(both, both))
    assert len(calls) == 1


def test_door_runs_numpy_scalar_constants(monkeypatch):
    """NumPy scalar constants in fn (np.float32(0.05), np.int8(3), np.uint16(7)) are read as
    0-d arrays, as such arguments are: the door runs the calls after the first, with the
    unfused bits on every target and thread count; a numpy.float64 constant (a Python
    float subclass, a scalar operand only the Python loop reads) leaves them to Python."""
    calls = door_calls(monkeypatch)
    rng = np.random.default_rng(12)
    x = rng.integers(-128, 128, (3, 1000)).astype(np.int8)
    y = (rng.standard_normal((3, 1000)) * 5).astype(np.float32)
    f32 = np.float32
    E = eltwise

    def dequant(x, y):
        return E.add(E.multiply(E.subtract(x, np.int8(3), dtype=f32), f32(0.05)),
                     E.multiply(y, np.uint16(7)))

    def wide(x, y):
        return E.multiply(y, np.float64(0.5))

    for fn, door in ((dequant, True), (wide, False)):
        f = eltwise.fuse(fn)
        for target in TARGETS:
            eltwise.set_target(target)
            exp = fn(x, y)
            for threads in (1, 2):
                eltwise.set_num_threads(threads)
                assert_bits(f(x, y), exp)
                assert_bits(f(x, y), exp)
        assert len(calls) == (len(TARGETS) if door else 4 * len(TARGETS)), fn
        assert eltwise._eltwise._fuse_entries(f) == int(door)
        calls.clear()

def test_door_follows_set_target():
    """A signature registered under one target runs the current target's kernels after
    set_target, as the unfused call does (float64 power's last bit differs between targets
    with and without FMA, float32's between AVX3 and AVX2)."""
    rng = np.random.default_rng(13)
    for dt in (np.float64, np.float32):
        x = rng.uniform(0.1, 10, 200_000).astype(dt)
        y = rng.uniform(-30, 30, 200_000).astype(dt)
        f = eltwise.fuse(lambda x, y: E.power(x, y))
        results = {}
        for target in TARGETS + TARGETS[::-1]:
            eltwise.set_target(target)
            exp = E.power(x, y)
            assert_bits(f(x, y), exp)
            results[target] = bits(exp)
        differ = [t for t in TARGETS if not np.array_equal(results[t], results[TARGETS[0]])]
        assert differ or len(TARGETS) == 1 or dt == np.float32  # the test can tell them apart


def test_door_large_chain_on_threads(monkeypatch):
    """A large chain through the door: the GIL released, blocks on every thread."""
    calls = door_calls(monkeypatch)
    rng = np.random.default_rng(5)
    a, b, c = (rng.standard_normal(700_001).astype(np.float32) for _ in range(3))
    f = eltwise.fuse(lambda a, b, c: (a - b) * c + 0.25)
    exp = eltwise.add(eltwise.multiply(eltwise.subtract(a, b), c), 0.25)
    for threads in (1, 2, 1, 2):
        eltwise.set_num_threads(threads)
        assert_bits(f(a, b, c), exp)
    assert len(calls) == 1

    def both(a, b):  # an output (beyond the streaming size) that a later node reads
        d = E.subtract(a, b)
        return d, E.multiply(d, b)

    a, b = (rng.standard_normal(1_200_001).astype(np.float32) for _ in range(2))
    g = eltwise.fuse(both)
    for threads in (1, 2, 1):
        eltwise.set_num_threads(threads)
        assert_bits(g(a, b), both(a, b))


def test_chains_from_memory(target):
    """Runs whose arrays pass 16 MiB in all take the memory tiles (a few cache lines per
    array, stored through the cache; src/core/fused.cc, kMemoryBytes): the unfused bits on
    every target, 1 and 2 threads, for five arrays, per-channel values in rows, a cast in every tile, a
    float16 chain, a strided operand (no tiles: the block path), and a result past 32 MiB
    from small operands (its tiles stored non-temporally, fenced per block:
    kMemoryStreamBytes)."""
    rng = np.random.default_rng(11)
    n = 900_001  # five float32 inputs and the result: 21.6 MB
    a, b, c, d = ((rng.standard_normal(n) * 4).astype(np.float32) for _ in range(4))
    e = rng.uniform(1, 2, n).astype(np.float32)
    x = rng.standard_normal((3, 16, 300, 301)).astype(np.float32)  # 17.3 MB, and its result
    p = [rng.standard_normal(16).astype(np.float32) for _ in range(2)]
    i8 = rng.integers(-128, 128, (2, 3_000_001)).astype(np.int8)
    h = [(rng.standard_normal(2_200_001) * 3).astype(np.float16) for _ in range(3)]  # 17.6 MB
    wide, q, r = (rng.standard_normal(k).astype(np.float32) for k in (2_400_002, 1_200_001, 1_200_001))
    small = rng.integers(-128, 128, (2, 4_200_001)).astype(np.int8)  # and a 33.6 MB result
    pdpd = {"broadcast": "pdpd", "axis": 1}
    cases = [
        (lambda a, b, c, d, e: E.divide(E.add(E.multiply(E.subtract(a, b), c), d), e),
         (a, b, c, d, e)),
        (lambda x, m, s: E.add(E.multiply(E.subtract(x, m, **pdpd), s, **pdpd), 0.5),
         (x, p[0], p[1])),
        (lambda u, v: E.add(E.multiply(E.subtract(u, 3, dtype=np.float32), np.float32(0.05)),
                            E.multiply(E.add(v, 2, dtype=np.float32), np.float32(0.1))),
         (i8[0], i8[1])),
        (lambda f, g, k: E.add(E.multiply(E.subtract(f, g), k), f), tuple(h)),
        (lambda s, b, c: E.add(E.multiply(E.subtract(s, b), c), s), (wide[::2], q, r)),
        (lambda u, v: E.add(E.multiply(E.subtract(u, 3, dtype=np.float64), 0.25),
                            E.multiply(v, 0.5, dtype=np.float64)), (small[0], small[1])),
    ]
    _assert_fused_like_unfused(cases, lambda exp: [np.empty_like(exp)])


def _assert_fused_like_unfused(cases, outs):
    """For each (fn, args) of cases: fn fused gives fn's bits at 1 and 2 threads, into a
    fresh result and into each out= array outs(expected) gives. Returns the fused
    functions."""
    fused = []
    for fn, args in cases:
        exp = fn(*args)
        f = eltwise.fuse(fn)
        for threads in (1, 2):
            eltwise.set_num_threads(threads)
            assert_bits(f(*args), exp)
            for out in outs(exp):
                assert_bits(f(*args, out=out), exp)
        fused.append(f)
    return fused


def test_register_chain_streams_where_execute_would(target):
    """The register path's result of 8 MiB or more is stored non-temporally where an array
    it reads lies at the result's offset in a cache line, through the cache where none
    does (below 24 MiB; src/core/fused.cc, chain_stream): both ways, with heads of every
    length before the aligned stores, the unfused bits on every target at 1 and 2
    threads, into fresh results and into out= arrays at every 16-byte offset, inputs of
    float32 and int8 (whose loads are a quarter as wide)."""
    rng = np.random.default_rng(12)
    n = 2_200_003  # an 8.8 MB float32 result
    cases = []
    for offsets in ((16, 16, 16), (0, 48, 32), (48, 0, 0)):
        a, b, c = (at_line_offset(n, np.float32, o) for o in offsets)
        for x in (a, b, c):
            x[...] = rng.standard_normal(n) * 4
        cases.append((lambda a, b, c: E.divide(E.add(E.multiply(E.subtract(a, b), c), a), 1.5),
                      (a, b, c)))
    u, v = (at_line_offset(n, np.int8, o) for o in (1, 33))
    u[...] = rng.integers(-128, 128, n)
    v[...] = rng.integers(-128, 128, n)
    cases.append((lambda u, v: E.add(E.multiply(E.subtract(u, 3, dtype=np.float32),
                                                np.float32(0.05)), E.multiply(v, np.float32(0.1),
                                                                             dtype=np.float32)),
                  (u, v)))
    outs = lambda exp: [at_line_offset(n, exp.dtype, o) for o in (0, 16, 32, 48)]  # noqa: E731
    for f in _assert_fused_like_unfused(cases, outs):
        assert eltwise._eltwise._fuse_chains(f) == eltwise._eltwise._fuse_entries(f) >= 1


CHAIN_OPS = ["add", "subtract", "multiply", "divide"]
# Whether the best target converts float16 in hardware (F16C: AVX2 and up).
F16C = TARGETS[0] in ("AVX2", "AVX3", "AVX3_DL", "AVX3_ZEN4", "AVX3_SPR")


def _chain_values(dt, shape, rng):
    """Random values of dt with the specials every link should meet: NaNs of different
    payloads and both signs (a NaN result keeps one operand's payload, which shows the
    operand order), +-0, +-inf, +-MAX, subnormals and +-1."""
    dt = np.dtype(dt)
    f = ml_dtypes.finfo(dt)
    u = uint_of(dt)
    top = np.uint64(1) << np.uint64(8 * dt.itemsize - 1)
    quiet = int(np.array(np.nan, dt).view(u))
    nans = np.array([quiet | 1, quiet | 2, quiet | 5 | int(top), quiet | 7], dtype=np.uint64)
    specials = np.concatenate([
        nans.astype(u).view(dt),
        np.array([0.0, -0.0, np.inf, -np.inf, f.max, -f.max, f.tiny, -f.tiny,
                  f.smallest_subnormal, -3 * f.smallest_subnormal, 1.0, -1.0], dt)])
    v = (rng.standard_normal(shape) * 4).astype(dt)
    flat = v.reshape(-1)
    pick = rng.random(flat.size) < 0.08
    flat[pick] = rng.choice(specials, int(pick.sum()))
    return v


def _plain_function(n, body):
    """A function of n plain positional parameters, returning body(their tuple): the fused
    function's C++ door runs functions of plain parameters, not *args."""
    names = ", ".join(f"a{k}" for k in range(n))
    scope = {"body": body}
    exec(f"def fn({names}):\n    return body(({names},))", scope)
    return scope["fn"]


def _make_chain(dt, shape, depth, rng):
    """(chain, unfused_chain, leaves): chain(x, *ys) applies `depth` random steps of
    CHAIN_OPS to x, each with an operand of a random kind on a random side: an array of
    dt or of a narrower dtype that converts to dt exactly, a scalar, a row, a per-channel
    value, or a subtree (a step of two arrays)."""
    ch = shape[1]
    # float16 and bfloat16 programs take no other dtype (src/core/fused.h,
    # ChainCastIsExact): no narrow operands, subtrees of their own dtype.
    half = np.dtype(dt).itemsize == 2
    narrow = [np.int8, np.uint8, np.int16, np.uint16]
    if dt == np.float64:
        narrow += [np.int32, np.float32]
    if dt == np.float32:
        narrow += [np.float16, BF16]
    leaves = [_chain_values(dt, shape, rng)]
    links = []
    for _ in range(depth):
        name = str(rng.choice(CHAIN_OPS))
        # (A Python float makes a bfloat16 step float32, as NumPy promotes: the later
        # steps' dtype differs, which the register path does not take.)
        kinds = ["full", "python", "numpy", "pdpd", "row", "channel", "narrow", "tree"]
        kind = str(rng.choice([k for k in kinds if not (half and k == "narrow" or
                                                        dt == BF16 and k == "python")]))
        y_first = kind != "pdpd" and rng.random() < 0.4  # pdpd broadcasts the second
        form = "operator" if kind != "pdpd" and rng.random() < 0.5 else "call"
        if kind == "full":
            y = _chain_values(dt, shape, rng)
        elif kind == "python":
            y = float(rng.choice([0.5, -3.0, 0.0, -0.0, np.inf, np.nan, 1e30, 7.25]))
        elif kind == "numpy":  # numpy.float64 is a float the Python loop reads: 0-d there
            y = np.array(rng.choice([2.0, -0.25, np.inf, 0.0]), dt)
            y = y[()] if dt == np.float32 else y
        elif kind == "pdpd":
            y = _chain_values(dt, (ch,), rng)
        elif kind == "row":
            y = _chain_values(dt, shape[-1:], rng)
        elif kind == "channel":  # one value per channel, NumPy broadcasting
            y = _chain_values(dt, (ch,) + (1,) * (len(shape) - 2), rng)
        elif kind == "narrow":  # the whole shape, one per channel, or 0-d
            n = np.dtype(narrow[int(rng.integers(0, len(narrow)))])
            s = [shape, (ch,) + (1,) * (len(shape) - 2), ()][int(rng.integers(0, 3))]
            if n.kind == "f" or n == BF16:
                y = _chain_values(n, s, rng)
            else:
                info = np.iinfo(n)
                y = np.asarray(rng.integers(info.min, int(info.max) + 1, s)).astype(n)
        else:  # a subtree: its own step of two arrays (one maybe narrow)
            y = (str(rng.choice(CHAIN_OPS)), _chain_values(dt, shape, rng),
                 rng.integers(-300, 300, shape).astype(np.int16)
                 if not half and rng.random() < 0.5 else _chain_values(dt, shape, rng))
        if kind == "tree":
            leaves += [y[1], y[2]]
        else:
            leaves.append(y)
        links.append((name, kind, y_first, form, y[0] if kind == "tree" else None))

    def run(x, ys, fused, either=None):
        acc = x
        ys = list(ys)
        for name, kind, y_first, form, tree_op in links:
            if kind == "tree":
                u, v = ys.pop(0), ys.pop(0)
                if either is not None and tree_op in ("add", "multiply"):
                    either |= np.isnan(u) & np.isnan(v)
                y = getattr(eltwise, tree_op)(u, v)
            else:
                y = ys.pop(0)
            a, b = (y, acc) if y_first else (acc, y)
            if either is not None and name in ("add", "multiply"):
                yb = np.reshape(y, (1, ch) + (1,) * (len(shape) - 2)) if kind == "pdpd" else y
                either |= np.broadcast_to(np.isnan(acc) & np.isnan(yb), either.shape)
            if form == "operator" and fused:  # on stand-ins, the eltwise function
                acc = OPERATORS[name](a, b)
            elif kind == "pdpd":
                acc = getattr(eltwise, name)(a, b, broadcast="pdpd", axis=1)
            else:
                acc = getattr(eltwise, name)(a, b)
        return acc

    chain = _plain_function(len(leaves), lambda args: run(args[0], args[1:], True))

    def unfused_chain(x, *ys):
        """The unfused result, and where it may differ in NaN payload: elements where
        both operands of an add or multiply were NaN (docs/semantics.md)."""
        either = np.zeros(shape, bool)
        with np.errstate(all="ignore"):
            return run(x, ys, False, either), either

    return chain, unfused_chain, tuple(leaves)


def assert_bits_but_nan_payloads(got, exp, either):
    """got has exp's dtype, shape and bits, except that where `either` is set both are
    NaN with any payloads."""
    assert got.dtype == exp.dtype and got.shape == exp.shape
    same = bits(got) == bits(exp)
    assert np.all(same | (either & np.isnan(got) & np.isnan(exp))), np.nonzero(~same)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, BF16],
                         ids=lambda d: np.dtype(d).name)
def test_register_chains_bit_for_bit(dt, monkeypatch):
    """Chains of float add, subtract, multiply and divide run on the register path (one
    kernel call per row, each value in a register from the first step to the last;
    src/core/fused.h, ChainOp; float16 and bfloat16 values held in float32 lanes, each
    step rounded to its dtype): operands full arrays, Python and NumPy scalars, rows,
    per-channel values (pdpd axis=1 and NumPy's (C, 1, ...)), arrays of narrower dtypes
    (converted exactly), subtrees of two arrays, on either side of each step;
    specials throughout (NaN payloads show the operand order; +-0, +-inf, MAX,
    subnormals); rows ending anywhere in a vector; several blocks; results past the cache
    (streamed) and arrays from memory. fused == unfused, bit for bit (but for the payload
    of a NaN from two NaNs at an add or multiply: docs/semantics.md), on every target at 1
    and 2 threads (the two large arrays: one target each), and the door registers each
    signature it takes as a chain."""
    rng = np.random.default_rng({"float32": 41, "float64": 42, "float16": 43}.get(np.dtype(dt).name, 44))
    default = _fuse_run.BLOCK_BYTES
    item = np.dtype(dt).itemsize
    cases = [((3, 5, 333), 20_000), ((2, 4, 1029), None), ((1, 3, 7), None),
             ((2, 6, 50), 2_000), ((3, 4, 64, 67), 40_000)] * 2
    # a result past 8 MiB (stored non-temporally), and one past 32 MiB from 16 MiB of
    # arrays (the memory tiles' hints)
    cases += [((2, 4, 1100_000 // item), None), ((1, 2, 36_000_000 // (2 * item)), None)]
    registered = 0
    for trial, (shape, block_bytes) in enumerate(cases):
        monkeypatch.setattr(_fuse_run, "BLOCK_BYTES", block_bytes or default)
        depth = 1 + trial % 8 if trial < 10 else 3
        chain, unfused_chain, leaves = _make_chain(dt, shape, depth, rng)
        f = eltwise.fuse(chain)
        for target in TARGETS if trial < 10 else [TARGETS[trial % len(TARGETS)]]:
            eltwise.set_target(target)
            exp, either = unfused_chain(*leaves)
            for threads in (1, 2):
                eltwise.set_num_threads(threads)
                with np.errstate(all="ignore"):
                    assert_bits_but_nan_payloads(f(*leaves), exp, either)
                    assert_bits_but_nan_payloads(f(*leaves), exp, either)  # the door's
        # (A divide with an integer operand is left to Python, no door entry.) The
        # entries follow the target: on the best one (float16 and bfloat16 programs
        # run on the register path from AVX2 up: src/kernels/chain.cc, FillChain).
        eltwise.set_target(TARGETS[0])
        with np.errstate(all="ignore"):
            f(*leaves)
        entries = eltwise._eltwise._fuse_entries(f)
        half = np.dtype(dt).itemsize == 2
        assert eltwise._eltwise._fuse_chains(f) == (0 if half and not F16C else entries)
        registered += entries
    assert registered >= 6  # of 12


def test_register_path_only_for_trees():
    """The register path takes programs that are one expression tree of float32, float64,
    float16 or bfloat16 add, subtract, multiply and divide with exactly converted operands
    and at most four values pending (src/core/fused.h, ChainOp); others run step by step
    (and still give the unfused bits): a result read twice, two outputs, another op, an
    operand whose conversion is not among the register path's (uint32 and float16 to
    float64), steps of two dtypes, a tree that needs five values pending."""
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal((4, 300)).astype(np.float32) for _ in range(2))
    x64 = x.astype(np.float64)
    i8 = rng.integers(-9, 9, (4, 300)).astype(np.int8)
    i32 = rng.integers(-9, 9, (4, 300)).astype(np.int32)
    u32 = rng.integers(0, 9, (4, 300)).astype(np.uint32)
    h = x.astype(np.float16)
    bh = x.astype(BF16)
    i16 = i8.astype(np.int16)
    E = eltwise

    def reused(x, y):
        t = x - y
        return t * t

    def balanced(height):
        """A complete binary tree of subtract and divide over 2**(height + 1) arrays: it
        needs height + 2 values pending however it is evaluated."""
        def tree(args, h):
            if h == 0:
                return args[0] - args[1]
            half = len(args) // 2
            return E.divide(tree(args[:half], h - 1), tree(args[half:], h - 1))
        return _plain_function(2 ** (height + 1), lambda args: tree(args, height))

    leaves8 = tuple(rng.standard_normal(300).astype(np.float32) for _ in range(8))

    cases = [
        (reused, (x, y), 0),
        (lambda x, y: ((x - y) + 1, x - y), (x, y), 0),
        (lambda x, y: E.add(E.subtract(x, y) * 2, y), (x, y), 1),
        (lambda x, i: (x - i) * 2, (x, i8), 1),
        (lambda x, i: (x + i) * 2, (x, i32), 1),  # float64 steps, both operands converted
        (lambda x, u: (x + u) * 2, (x64, u32), 0),
        (lambda a, b: (a - b) * a, (h, h), int(F16C)),
        (lambda a, b: (a - b) * a, (bh, bh), int(F16C)),
        # A bfloat16 step, then float32 ones (ml_dtypes 0.6: bfloat16 * 0.5 is float32),
        # or bfloat16 steps only (0.7).
        (lambda a, b: (a - b) * 0.5, (bh, bh), 0 if (bh * 0.5).dtype != bh.dtype else int(F16C)),
        (lambda a, i: (a - i) * 2, (h, i16), 1),  # float32 steps, both operands converted
        (lambda a, b: (a - b) * 2, (bh, x), 1),  # float32 steps, a bfloat16 operand
        (lambda a, i: (a - i) * 2, (h, i32), 0),  # float64 steps: from float16, not taken
        (lambda x, y: E.maximum(x - y, y) * 2, (x, y), 0),
        (lambda x, y: (x - y) * (y + 1), (x, y), 1),
        (lambda x, y: x - (y - (x - (y - x))), (x, y), 1),  # the deeper operand first
        (balanced(2), leaves8, 1),  # four values pending
        (balanced(3), leaves8 * 2, 0),  # five
        (lambda x, y: x - y, (x, y), 1),
    ]
    for fn, args, chains in cases:
        f = eltwise.fuse(fn)
        for _ in range(2):
            with np.errstate(all="ignore"):
                assert_bits(f(*args), fn(*args))
        assert eltwise._eltwise._fuse_entries(f) == 1
        assert eltwise._eltwise._fuse_chains(f) == chains, fn

def test_door_leaves_other_calls_to_python(monkeypatch):
    """Calls the door does not run reach Python and give the unfused results, errors and
    warnings: a new signature, an unknown keyword, an unaligned or byte-swapped
    array, a NumPy scalar of a subclass or a user dtype, an ndarray subclass, a float beyond
    float32, a Python int of another range."""
    calls = door_calls(monkeypatch)
    f = eltwise.fuse(lambda x, s: (x + s) * s)
    x = np.arange(12, dtype=np.float32)
    assert_bits(f(x, 2.0), eltwise.multiply(eltwise.add(x, 2.0), 2.0))
    assert len(calls) == 1
    f(x, 3.0)
    assert len(calls) == 1

    def reaches_python(*args, **kwargs):
        before = len(calls)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = f(*args, **kwargs)
        assert len(calls) == before + 1, (args, kwargs)
        return got, [str(w.message) for w in caught]

    with pytest.raises(TypeError, match="unexpected keyword argument 't'"):
        f(x, s=2.0, t=1)
    raw = np.zeros(12 * 4 + 1, np.uint8)
    unaligned = raw[1:].view(np.float32)
    unaligned[:] = x
    assert not unaligned.flags.aligned
    got, _ = reaches_python(unaligned, 2.0)
    assert_bits(got, eltwise.multiply(eltwise.add(x, 2.0), 2.0))
    swapped = x.astype(">f4")
    got, _ = reaches_python(swapped, 2.0)
    assert_bits(got, eltwise.multiply(eltwise.add(swapped, 2.0), 2.0))
    class F32(np.float32):
        pass

    got, _ = reaches_python(x, F32(2.0))  # a subclass of a NumPy scalar type
    assert_bits(got, eltwise.multiply(eltwise.add(x, np.float32(2.0)), np.float32(2.0)))
    got, _ = reaches_python(x, ml_dtypes.bfloat16(2.0))  # a NumPy scalar of a user dtype
    assert_bits(got, eltwise.multiply(eltwise.add(x, ml_dtypes.bfloat16(2.0)),
                                      ml_dtypes.bfloat16(2.0)))
    assert isinstance(f(x.view(np.matrix), 2.0), np.matrix)  # its own semantics, unfused
    got, fused_warnings = reaches_python(x, 1e300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exp = eltwise.multiply(eltwise.add(x, 1e300), 1e300)
    assert fused_warnings == [str(w.message) for w in caught] == ["overflow encountered in cast"] * 2
    assert_bits(got, exp)
    assert_bits(f(x, 2.0), eltwise.multiply(eltwise.add(x, 2.0), 2.0))  # the door again
    assert_bits(f(x, float("inf")), eltwise.multiply(eltwise.add(x, np.inf), np.inf))
    n = len(calls)
    g = eltwise.fuse(lambda x, s: x + s)
    i8 = np.arange(5, dtype=np.int8)
    g(i8, 100)
    g(i8, 101)
    assert len(calls) == n + 1
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        g(i8, 1000)  # another bit length: another signature, the unfused error
    assert list(g(i8, -128)) == [-128, -127, -126, -125, -124]


def test_door_runs_keyword_default_and_numpy_scalar_calls(monkeypatch):
    """A function of plain parameters called with keywords, with defaults left out, or with
    NumPy scalars of built-in types runs in the door after its signature's first call, as
    the positional call with the same values does (one registration serves them all), with
    the unfused bits on every target and thread count; the values are read on every call.
    Calls that do not bind raise bind's TypeError (docs/fuse.md, "How it runs")."""
    calls = door_calls(monkeypatch)

    def fn(x, y, /, s=np.float32(0.5), t=2.0):
        return (x - y) * s + t

    f = eltwise.fuse(fn)
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal(1000).astype(np.float32) for _ in range(2))
    scalars = [np.float32(0.25), np.float32(-3.0), np.float32(np.inf), np.float32(-0.0)]
    assert_bits(f(x, y), fn(x, y))
    assert len(calls) == 1 and eltwise._eltwise._fuse_entries(f) == 1
    for target in TARGETS:
        eltwise.set_target(target)
        f(x, y)  # the target's registration
        for threads in (1, 2):
            eltwise.set_num_threads(threads)
            calls.clear()
            for s_ in scalars:
                assert_bits(f(x, y, s_), fn(x, y, s_))
                assert_bits(f(x, y, s=s_), fn(x, y, s_))
                assert_bits(f(x, y, t=1.5, s=s_), fn(x, y, s_, 1.5))
                assert_bits(f(x, y, s_, t=-1.0), fn(x, y, s_, -1.0))
            assert_bits(f(x, y, t=0.5), fn(x, y, np.float32(0.5), 0.5))
            assert calls == [], target
    assert eltwise._eltwise._fuse_entries(f) == 1
    with pytest.raises(TypeError, match="positional only"):
        f(x, y=y)
    with pytest.raises(TypeError, match="multiple values"):
        f(x, y, np.float32(1), s=np.float32(1))
    with pytest.raises(TypeError, match="missing"):
        f(x)
    with pytest.raises(TypeError, match="too many"):
        f(x, y, np.float32(1), 1.0, 2.0)

    # NumPy scalars of every built-in kind, as operands of integer and float chains.
    g = eltwise.fuse(lambda a, k: E.add(E.multiply(a, k), k))
    for dt in (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64,
               np.uint64, np.float16, np.float32, np.float64):
        a = rng_array(rng, np.int16 if dt is np.bool_ else dt, (300,))
        if dt is np.bool_:
            a = a > 0
        for v in (0, 1, 7):
            k = dt(v)
            with np.errstate(all="ignore"):
                exp = E.add(E.multiply(a, k), k)
                calls.clear()
                assert_bits(g(a, k), exp)
                assert_bits(g(a, k=k), exp)
                assert_bits(g(k=k, a=a), exp)
            # The signature's first call only; numpy.float64, a subclass of float, is a
            # scalar operand of the graph, which only Python's loop reads.
            assert len(calls) <= (1 if dt is not np.float64 else 3), dt


def test_door_object():
    """What fuse returns: fn's name, signature and docstring, a method in a class, pickled
    by reference like a function, collected with its cycle to the implementation."""
    import gc
    import pickle
    import weakref

    assert module_level_fused.__name__ == "module_level_fused"
    assert module_level_fused.__doc__ == "A fused function at module level."
    assert "out=None" in str(module_level_fused.__signature__)
    assert repr(module_level_fused).startswith("<eltwise.fuse of <function module_level_fused")
    assert pickle.loads(pickle.dumps(module_level_fused)) is module_level_fused
    x = np.arange(4.0)
    assert_bits(module_level_fused(x), x * 2 + 1)

    class Model:
        scale = 3.0

        @eltwise.fuse
        def apply(self, x):
            return x * 3.0

    assert_bits(Model().apply(x), x * 3.0)
    assert_bits(Model().apply(x), x * 3.0)
    f = eltwise.fuse(lambda x: x + 1)
    f(x)
    f(x)
    ref = weakref.ref(f)
    del f
    gc.collect()
    assert ref() is None


def module_level_fused(x):
    """A fused function at module level."""
    return x * 2 + 1


module_level_fused = eltwise.fuse(module_level_fused)


def test_door_refuses_bad_registrations():
    """The private door's registration checks everything before it keeps anything."""
    remember = eltwise._eltwise._fuse_remember
    f = eltwise.fuse(lambda a, b: a + b)
    f32 = np.dtype(np.float32)
    add = (0, 11, 11, 1, 0, 1, 1, True, 0)  # add, float32: inputs 0 and 1 into output 0
    ok = dict(arg_specs=((0, (3,), f32), (0, (3,), f32)), steps=(add,), scalars=(),
              inputs=((0, None, None), (1, None, None)), outputs=((f32, 0),), shape=(3,),
              block_elements=64, tuple_result=False)
    remember(f, **ok)
    assert eltwise._eltwise._fuse_entries(f) == 1
    add_op = eltwise._eltwise._fuse_resolve("add", np.ones(1, f32), np.ones(1, f32), {})
    assert tuple(add[:3]) == add_op
    bad = [
        (dict(arg_specs=((7,),)), ValueError),
        (dict(arg_specs=((3, False, 64), (0, (3,), f32))), ValueError),
        (dict(arg_specs=((0, (3,), np.dtype(object)), (0, (3,), f32))), TypeError),
        (dict(arg_specs=((0, (-3,), f32), (0, (3,), f32))), ValueError),
        (dict(inputs=((2, None, None), (1, None, None))), ValueError),
        (dict(inputs=((0, None, None), (1, None, (1,)))), ValueError),
        (dict(inputs=((0, None, None), (-1, [1.0, 2.0, 3.0], None))), TypeError),
        (dict(arg_specs=((0, (3,), f32), (1,)), inputs=((0, None, None), (1, None, None))),
         ValueError),
        (dict(scalars=((0, None),)), ValueError),
        (dict(scalars=((-1, "s"),)), TypeError),
        (dict(scalars=((-1, 2**70),)), TypeError),
        (dict(outputs=((f32, 1),)), ValueError),
        (dict(outputs=((f32, 0), (f32, 0)), tuple_result=True), ValueError),
        (dict(outputs=((f32, 0), (f32, 1)), tuple_result=True), ValueError),  # one unwritten
        (dict(outputs=((np.dtype(np.float64), 0),)), ValueError),
        (dict(steps=((0, 11, 11, 1, 0, 1, 5, True, 0),)), ValueError),
        (dict(steps=((0, 11, 11, 1, 0, 1, 1, False, 0),)), ValueError),  # output unwritten
        (dict(shape=(4,)), ValueError),
        (dict(shape=()), ValueError),
        (dict(block_elements=0), ValueError),
        (dict(reports=((1, eltwise.divide, (), None),)), ValueError),  # no step 1
        (dict(reports=((0, eltwise.divide, ()), )), ValueError),
        (dict(reports=((0, eltwise.divide, (), None), (0, eltwise.divide, (), None))),
         ValueError),  # not in step order
        (dict(reports=((0, "divide", (), None),)), TypeError),
        (dict(reports=((0, eltwise.divide, [], None),)), TypeError),
        (dict(reports=((0, eltwise.divide, (), ()),)), TypeError),
    ]
    for change, error in bad:
        with pytest.raises(error):
            remember(f, **{**ok, **change})
    with pytest.raises(TypeError):
        remember(lambda: 0, **ok)
    assert eltwise._eltwise._fuse_entries(f) == 1
    a = np.arange(3, dtype=np.float32)
    assert_bits(f(a, a), a + a)
    eltwise._eltwise._fuse_forget(f)
    assert eltwise._eltwise._fuse_entries(f) == 0
    with pytest.raises(TypeError):
        eltwise._eltwise._FusedFunction(3)


def test_door_threads_share_a_fused_function():
    """Python threads calling one fused function at once (the door releases the GIL on
    large calls) each get their own result."""
    from concurrent.futures import ThreadPoolExecutor

    f = eltwise.fuse(lambda a, b: (a + b) * b)
    rng = np.random.default_rng(9)
    pairs = [(rng.standard_normal(200_000).astype(np.float32),
              rng.standard_normal(200_000).astype(np.float32)) for _ in range(6)]
    f(*pairs[0])
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda p: f(*p), pairs * 4))
    for (a, b), got in zip(pairs * 4, results):
        assert_bits(got, eltwise.multiply(eltwise.add(a, b), b))


def test_python_int_range_is_part_of_the_signature():
    """A Python int beyond the dtype is the unfused OverflowError, whatever was cached."""
    f = eltwise.fuse(lambda x, s: x + s)
    x = np.arange(3, dtype=np.int8)
    assert list(f(x, 100)) == [100, 101, 102]
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        f(x, 1000)
    assert list(f(x, -128)) == [-128, -127, -126]
    assert list(eltwise.fuse(lambda x, s: x < s)(x, 1000)) == [True] * 3  # exact compare


def test_signature_decorator_and_static():
    def fn(x, y=2.0, *, scale=1.0):
        return x * y * scale

    f = eltwise.fuse(fn)
    assert str(f.__signature__) == "(x, y=2.0, *, scale=1.0, out=None)"
    assert f.__name__ == "fn" and f.__wrapped__ is fn
    assert list(f(np.ones(2), scale=3.0)) == [6.0, 6.0]

    @eltwise.fuse(static="axis")
    def g(x, p, axis):
        return eltwise.add(x, p, broadcast="pdpd", axis=axis)

    x = np.zeros((2, 3, 4))
    assert_bits(g(x, np.arange(3.0), 1),
                eltwise.add(x, np.arange(3.0), broadcast="pdpd", axis=1))
    assert_bits(g(x, np.arange(4.0), 2),
                eltwise.add(x, np.arange(4.0), broadcast="pdpd", axis=2))
    with pytest.raises(TypeError, match="axis must be an integer"):
        eltwise.fuse(lambda x, p, axis: eltwise.add(x, p, broadcast="pdpd", axis=axis))(
            x, np.arange(3.0), 1)
    with pytest.raises(ValueError, match="parameter named out"):
        eltwise.fuse(lambda x, out: x)
    with pytest.raises(TypeError, match="callable"):
        eltwise.fuse(3)


@pytest.mark.parametrize("body, found", [
    (lambda x: np.sum(x), "numpy.sum"),
    (lambda x: np.sqrt(x), "numpy.sqrt"),
    (lambda x: np.ones(3) + x, "numpy.add"),
    (lambda x: eltwise.ufunc.add(x, x), "ufunc eltwise.ufunc.add"),
    (lambda x: np.asarray(x), "numpy.asarray"),
    (lambda x: x if x else x, r"bool\(\)"),
    (lambda x: int(x), r"int\(\)"),
    (lambda x: float(x), r"float\(\)"),
    (lambda x: len(x), r"len\(\)"),
    (lambda x: [v for v in x], "iteration"),
    (lambda x: x[0], "indexing"),
    (lambda x: x.reshape(4), r"attribute \.reshape"),
    (lambda x: -x, "unary -"),
    (lambda x: x @ x, "@"),
    (lambda x: eltwise.add(x, x, out=np.empty(4, np.float32)), "out= inside a fused"),
    (lambda x: eltwise.add(x, x, out=x), "out must be a numpy.ndarray"),
    (lambda x: eltwise.add(x, "a"), "builtins.str"),
    (lambda x: 3, "returned builtins.int"),
])
def test_trace_errors_name_the_construct(body, found):
    with pytest.raises(TypeError, match=found):
        eltwise.fuse(body)(np.ones(4, np.float32))


def test_shape_and_attribute_reads_work():
    f = eltwise.fuse(lambda x: x * x.ndim + x.shape[0] if x.dtype == np.float32 else x)
    assert list(f(np.ones(3, np.float32))) == [4.0] * 3


@pytest.mark.parametrize("body, error", [
    (lambda x: eltwise.subtract(x, x), TypeError),  # two bools
    (lambda x: eltwise.add(x, np.ones(5, bool)), ValueError),
    (lambda x: eltwise.add(x, np.ones(4, bool), broadcast="pdpd", axis=2), ValueError),
    (lambda x: eltwise.add(x, x, broadcast="weird"), ValueError),
    (lambda x: eltwise.multiply(x, x, pythondiv=True), TypeError),
    (lambda x: eltwise.bitwise_and(x, 1.5), TypeError),
])
def test_unfused_errors_at_trace_time(body, error):
    x = np.ones((2, 4), bool)
    with pytest.raises(error) as unfused_error:
        body(x)
    out = np.zeros((2, 4))
    with pytest.raises(error) as fused_error:
        eltwise.fuse(body)(x, out=out)
    assert str(fused_error.value) == str(unfused_error.value)
    assert not out.any()


def test_value_errors_before_out_is_written():
    """A negative integer power in a later block, and integer division by zero under
    errstate(divide="raise"), leave out untouched."""
    x = np.arange(1, 40, dtype=np.int32)
    e = np.full(39, 2, np.int32)
    e[-1] = -1
    f = eltwise.fuse(lambda x, e: (x + 1) ** e)
    out = np.zeros(39, np.int32)
    with pytest.raises(ValueError, match="negative integer powers"):
        f(x, e, out=out)
    assert not out.any()
    d = np.ones(39, np.int32)
    d[-1] = 0
    g = eltwise.fuse(lambda x, d: (x + 1) // d)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError, match="floor_divide"):
        g(x, d, out=out)
    assert not out.any()


def test_division_by_zero_reported_once_per_node(small_blocks):
    x = np.arange(40, dtype=np.int16)
    d = np.zeros(40, np.int16)
    f = eltwise.fuse(lambda x, d: (x // d, x % d + 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = f(x, d)
    assert sorted(str(w.message) for w in caught) == [
        "divide by zero encountered in floor_divide", "divide by zero encountered in mod"]
    with np.errstate(divide="ignore"):
        assert_bits(got, (eltwise.floor_divide(x, d), eltwise.add(eltwise.mod(x, d), 1)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(divide="ignore"):
            f(x, d)
    assert not caught


def test_dask_operands_stay_lazy_with_the_same_bits():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 8)).astype(np.float32)
    m = rng.standard_normal(8).astype(np.float32)

    @eltwise.fuse
    def f(x, m):
        return eltwise.multiply(eltwise.subtract(x, m), 0.5)

    lazy = f(da.from_array(x, chunks=(3, 4)), m)
    assert isinstance(lazy, da.Array)
    assert_bits(lazy.compute(), f(x, m))
    with pytest.raises(TypeError, match="out="):
        f(da.from_array(x, chunks=3), m, out=np.empty((6, 8), np.float32))


def test_ndarray_subclass_runs_unfused():
    x = np.ma.masked_array(np.arange(4.0), mask=[0, 1, 0, 0])
    got = eltwise.fuse(lambda a: eltwise.add(a, 1.0))(x)
    assert isinstance(got, np.ma.MaskedArray) and list(got.mask) == [False, True, False, False]


def test_stand_ins_do_not_outlive_their_trace():
    kept = []

    def fn(x):
        kept.append(x)
        return x + 1

    f = eltwise.fuse(fn)
    f(np.ones(2))
    g = eltwise.fuse(lambda y: y + kept[0])
    with pytest.raises(TypeError, match="another trace"):
        g(np.ones(2))


def test_docstring_examples():
    import doctest
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(parser.get_doctest(eltwise.fuse.__doc__, {"eltwise": eltwise, "np": np},
                                  "eltwise.fuse", None, 0))
    assert runner.tries >= 3 and runner.failures == 0


def test_plan_shapes(small_blocks):
    """A dead node larger than the result reading a blocked one (the graph then runs
    whole), a pdpd result of the same size as another output, an argument returned as it
    is, an output cast into out while a later node reads it in its own dtype."""
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    z = np.ones((3, 1, 1), np.float32)

    def dead(x, z):
        c = x * 2
        eltwise.add(c, z)  # (3, 2, 4), unused
        return c

    assert_bits(eltwise.fuse(dead)(x, z), eltwise.multiply(x, 2))

    def same_size(x, y):
        c = x - 1
        return c, eltwise.multiply(y, c, broadcast="pdpd", axis=1)

    y = np.ones((1, 2, 4), np.float32)
    exp = (eltwise.subtract(x, 1), eltwise.multiply(y, eltwise.subtract(x, 1),
                                                    broadcast="pdpd", axis=1))
    assert_bits(eltwise.fuse(same_size)(x, y), exp)

    ident = eltwise.fuse(lambda x, y: (x, x + y))
    got = ident(x, 1.0)
    assert got[0] is x
    o = (np.empty((2, 4)), np.empty((2, 4), np.float32))
    assert_bits(ident(x, 1.0, out=o)[0], x.astype(np.float64))

    def chained(x):
        a = x / 3
        return a, a * 3

    out = (np.empty((2, 4)), np.empty((2, 4), np.float32))
    got = eltwise.fuse(chained)(x, out=out)
    a = eltwise.divide(x, 3)
    assert_bits(got[0], a.astype(np.float64))
    assert_bits(got[1], eltwise.multiply(a, 3))


def test_strided_and_broadcast_operands(small_blocks):
    """Transposed, strided and zero-stride operands are read in place, as unfused."""
    rng = np.random.default_rng(5)
    base = rng.standard_normal((6, 10)).astype(np.float32)
    x1, x2 = base.T, base[::2, ::2]
    row = np.broadcast_to(np.float32(2.5), (6,))
    f = eltwise.fuse(lambda a, b, r: (eltwise.maximum(a, 0.5) - r) * b.shape[0])
    exp = eltwise.multiply(eltwise.subtract(eltwise.maximum(x1, 0.5), row), 3)
    assert_bits(f(x1, x2, row), exp)


def test_python_float_overflow_reported_once_per_node(small_blocks):
    """A float beyond float16 warns "overflow encountered in cast" once per call that takes
    it, as unfused, on a cached graph too; as an error it leaves out untouched."""
    x = np.arange(40, dtype=np.float16)
    f = eltwise.fuse(lambda x, s: (x + s) * s)
    f(x, 2.0)  # traced with a harmless value

    def messages(fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn()
        return result, [str(w.message) for w in caught]

    got, fused_warnings = messages(lambda: f(x, 1e300))
    exp, unfused_warnings = messages(lambda: eltwise.multiply(eltwise.add(x, 1e300), 1e300))
    assert fused_warnings == unfused_warnings == ["overflow encountered in cast"] * 2
    assert_bits(got, exp)
    out = np.zeros(40, np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="overflow encountered in cast"):
            f(x, 1e300, out=out)
    assert not out.any()
