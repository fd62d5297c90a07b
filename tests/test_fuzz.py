"""Fuzzing (issue 7): hypothesis over every public function with arbitrary inputs.

Every generated call is an `ew_cases.Case` and goes through `run_case`, which predicts the
outcome from docs/semantics.md and NumPy *before* the call (`predict`), makes the call under a
random `numpy.errstate` and SIMD target (`ew_cases.conditions`/`attempt`), and checks these
properties (P1 with `ew_cases.judge`):

  P1  Only TypeError, ValueError, OverflowError and FloatingPointError escape, and only of a
      class the input calls for (a UnicodeError, SystemError, RuntimeError, ... is a bug; so
      is an error where docs/semantics.md asks for a result, or a result where it asks for an error).
  P2  When an exception escapes, `out` and every input are byte-for-byte untouched.
  P3  A successful call matches NumPy: type (NumPy scalar or ndarray), dtype, shape and
      bits (ew_helpers.reference / assert_same; power within 1 ULP), broadcast as the mode
      says (pdpd: x2 placed per docs/semantics.md: "Broadcasting" first), into `out` cast as NumPy casts.
  P4  With `out`, the call returns `out` itself and writes nothing but out's elements
      (guard bytes around every buffer, inputs sharing memory with out included); without
      `out`, the result is a new array that shares no memory with an input.
  P5  Warnings: integer division by zero is reported through numpy.errstate(divide=...)
      exactly as docs/semantics.md: "Exactness" says; nothing else warns (casts aside, which NumPy reports too).
  P6  (test_fuzz_result_layout only) the result is laid out as NumPy's order='K' lays out a
      ufunc's result (docs/semantics.md: "Operands and dtypes").

Where docs/semantics.md leaves a choice open, `predict` accepts each reading: `axis=None` or a bool,
`broadcast=None`, `pythondiv=None`, `out=(None,)`, a non-native `dtype=` ('>f4'),
`elementwise(..., "FLOOR_DIV"/"mod", pythondiv=...)` (issue 7 item 7), op and mode names
that only match after Unicode case mapping or stripping whitespace, bfloat16 with a Python
float (bfloat16/float32/float64), a comparison with an out-of-range Python int (NumPy 2's
exact answer or OverflowError), a Python int beyond int64 where NumPy's own loop cannot
convert it (logical_*, bfloat16), a negative integer exponent when the result is empty,
and whether int64-with-uint64 `divide` reports a division by zero. Everything else is
strict, with docs/semantics.md authoritative (maximum/minimum zero ties are NumPy's per dtype).

Tests, in run order: one property per input family (values, operand kinds, out, huge
shapes, result layout), `test_fuzz_known_inputs` (fixed inputs that broke a build, through
the same checks), the families that feed garbage keywords (keywords, broadcast and axis,
everything mixed), the process-abort input of issue 7 item 2, and the report. A build that
still aborts ends the run where it aborts; the order keeps that as late as it can.

Runs: the normal suite runs each property a bounded, derandomized number of times (CI is
reproducible). `ELTWISE_FUZZ_EXAMPLES=n` (used by `make fuzz`) runs n examples per property
with a random seed, printed first; `ELTWISE_FUZZ_SEED=s` fixes it. A process that dies
(abort, segfault) leaves no hypothesis report: rerun the same command with
`ELTWISE_FUZZ_TRACE=<file>` (or `=-` for stderr, with `-s`) and the last case written is
the culprit. The last test prints how many calls were made and the seconds taken.
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import functools
import math
import operator
import os
import random
import re
import time
import warnings
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

import eltwise
from ew_cases import (
    Case, CaseFailure, DisallowedException, Err, attempt, conditions, describe, judge,
)
from ew_helpers import (
    ALL_DTYPES, ALL_OPS, BF16, BOOL_RESULT_OPS, DIV_WARN_NAME, INT_DIV_OPS,
    assert_same, edge_values, expected_error, is_float, is_int, pdpd_view_shape, random_values,
    reference, trunc_divide,
)

# ---------------------------------------------------------------------------
# run size, seed, statistics

_ENV_EXAMPLES = os.environ.get("ELTWISE_FUZZ_EXAMPLES", "").strip()
LONG_RUN = bool(_ENV_EXAMPLES)
if LONG_RUN:
    SEED = int(os.environ.get("ELTWISE_FUZZ_SEED") or random.SystemRandom().randrange(2**32))
else:
    SEED = None

# Examples per property in the normal suite: 11 800 calls, about 35 s for the whole file
# on a 2-vCPU Xeon VM when every property holds (a failing property adds hypothesis'
# shrinking). ELTWISE_FUZZ_EXAMPLES overrides them all.
DEFAULT_EXAMPLES = {
    "values": 2100,
    "operand_kinds": 1500,
    "out": 1500,
    "huge_shapes": 900,
    "layout": 900,
    "keywords": 1500,
    "broadcast_axis": 1400,
    "everything": 2000,
}

STATS = {"calls": 0, "raised": 0, "examples": {}, "seconds": {}}
_TRACE = os.environ.get("ELTWISE_FUZZ_TRACE", "").strip()


def _examples(key: str) -> int:
    return int(_ENV_EXAMPLES) if LONG_RUN else DEFAULT_EXAMPLES[key]


def fuzz_settings(key: str):
    s = settings(
        max_examples=_examples(key),
        deadline=None,
        database=None,
        derandomize=not LONG_RUN,
        print_blob=True,
        suppress_health_check=list(HealthCheck),
    )

    def wrap(fn):
        fn = s(fn)
        if LONG_RUN:
            fn = hypothesis_seed(SEED)(fn)

        @functools.wraps(fn)
        def timed(*a, **k):
            t0 = time.perf_counter()
            calls0 = STATS["calls"]
            try:
                return fn(*a, **k)
            finally:
                STATS["seconds"][key] = STATS["seconds"].get(key, 0.0) + time.perf_counter() - t0
                STATS["examples"][key] = STATS["examples"].get(key, 0) + STATS["calls"] - calls0

        return timed

    return wrap


# ---------------------------------------------------------------------------
# failures (one class per kind: hypothesis reports distinct kinds separately); P1's
# (DisallowedException, UnexpectedException, MissingException) are ew_cases.judge's


class ResultMismatch(CaseFailure):
    """A result that differs from NumPy's (type, dtype, shape or bits)."""


class OutNotReturned(CaseFailure):
    pass


class ResultAliasesInput(CaseFailure):
    pass


class WrittenOnError(CaseFailure):
    """out or an input changed although an exception escaped."""


class WrittenOutsideOut(CaseFailure):
    """Bytes outside out's elements (guard bytes, inputs, gaps) changed."""


class UnexpectedWarning(CaseFailure):
    pass


class MissingWarning(CaseFailure):
    pass


class LayoutMismatch(CaseFailure):
    pass


class OracleError(Exception):
    """The checker itself could not compute an expectation (a bug in this file)."""


# ---------------------------------------------------------------------------
# vocabulary

SUPPORTED = list(ALL_DTYPES)
UNSUPPORTED_DTYPES = [
    np.dtype(np.complex64), np.dtype(np.complex128), np.dtype("datetime64[ns]"),
    np.dtype("datetime64[D]"), np.dtype("timedelta64[s]"), np.dtype([("a", "<i4"), ("b", "<f4")]),
    np.dtype("V4"), np.dtype(np.longdouble), np.dtype(object), np.dtype("<U3"), np.dtype("S3"),
]
FUNCTIONS = list(ALL_OPS)  # every public binary function (remainder included)
TRT_OPS = {m.name: m.value for m in eltwise.Op}
DIVISION_FUNCS = ("divide", "floor_divide", "mod", "remainder", "fmod")
MODE_WORDS = {"numpy": "numpy", "none": "none", "explicit": "none", "pdpd": "pdpd"}
TARGETS = list(eltwise.get_targets())

INTERESTING_INTS = [
    0, 1, -1, 2, 3, 7, -7, 100, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535,
    65536, 2**31 - 1, 2**31, -(2**31) - 1, 2**32, 2**53 + 1, 2**62, 2**63 - 1, 2**63, -(2**63),
    -(2**63) - 1, 2**64 - 1, 2**64, -(2**64), 2**70, -(2**70), 10**30, 2**1100,
]
INTERESTING_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -2.5, 3.0, 1e-300, 5e-324, 65504.0, 65520.0, 3.4e38,
    3.5e38, 1e300, 1.7976931348623157e308, math.inf, -math.inf, math.nan, 2.0**63, 2.0**64,
    -(2.0**63),
]
AXIS_EDGES = [
    -(2**63), -(2**63) + 1, -(2**62), -(2**31) - 1, -(2**31), -65, -64, -3, -2, -1, 0, 1, 2, 3,
    4, 5, 7, 63, 64, 65, 127, 128, 2**31 - 1, 2**31, 2**32, 2**62, 2**63 - 65, 2**63 - 64,
    2**63 - 8, 2**63 - 3, 2**63 - 2, 2**63 - 1,
]
AXIS_BEYOND = [2**63, 2**63 + 1, 2**64 - 1, 2**64, -(2**63) - 1, -(2**64), 2**70, -(2**70),
               10**40]
GARBAGE_MODES = [
    "\ud800", "numpy\x00garbage", "pdpd\x00", "none\x00", "numpy\ud800", "\udcff", "numpy ",
    " numpy", "NUMPY\n", "\tpdpd", "", "np", "pdp", "bidirectional", "numpyy", "nump",
    "explıcıt", "EXPLİCİT", "ＮＵＭＰＹ", "nümpy", "pdpd" * 3, "x" * 300, b"numpy", b"pdpd",
    bytearray(b"none"), 1, 0, -1, 1.0, math.nan, ["numpy"], ("pdpd",), {"numpy": 1},
    eltwise.Op.SUM, object(), np.int64(1), True,
]
GARBAGE_OPS = [
    "", "nope", "SUMM", "ADD_", "POWER2", "true_divide", "\ud800", "SUM\x00", "sum\x00junk",
    "div\udcff", " sum", "SUM ", "\tDIV\n", "ſum", "ＳＵＭ", "floor div", "FLOOR-DIV", "logical",
    "AND_", "x" * 200, b"SUM", 3, 3.5, None, ["SUM"], ("SUM",), eltwise.Broadcast.NUMPY, object(),
]
UNKNOWN_KEYWORDS = [
    "bogus", "casting", "where", "order", "subok", "signature", "x1", "x2", "op", "Out", "OUT",
    "out ", " out", "out\x00junk", "out\x00", "broadcast\x00", "axis\x00x", "dtype\x00",
    "pythondiv\x00", "\ud800", "out\ud800", "\udcff\udcfe", "é", "", "_", "outs", "Axis",
    "DTYPE", "broadcasting", "python_div", "x" * 300,
]
GARBAGE_DTYPES = [
    "float99", "\ud800", "f4\x00", "", "bfloat17", 3.5, 7, [], {}, "int8 ", "i4,i4", "2i4",
    ("f4", 1), [("a", "i4", -1)], "E", "float32\ud800",
]
UNSUPPORTED_DTYPE_VALUES = [
    np.complex64, complex, object, "O", "U3", "S3", "M8[s]", "m8[s]", "M8", [("a", "i4")], "V4",
    np.longdouble, np.clongdouble, np.dtype([("x", "f8")]),
]
SUPPORTED_DTYPE_VALUES = SUPPORTED + [
    np.float32, np.float64, np.int8, np.uint64, np.float16, ml_dtypes.bfloat16, bool, int, float,
    "float32", "f8", "f2", "e", "i1", "u2", "i8", "?", "bool", "int", "float", "bfloat16",
    "int64", "uint32", "<f8", "=i4", "|u1", ">f4", ">i8", ">u2", ">f2",
]
PYTHONDIV_VALUES = [True, False, np.True_, np.False_, None, "False", "True", "", 0, 1,
                    np.int64(0), 1.0, [], (True,), np.array(True), np.array([False])]
OTHER_OPERANDS = [
    1 + 2j, complex(0, 0), "abc", "1", "", b"xyz", None, datetime.datetime(2020, 1, 1),
    datetime.timedelta(1), decimal.Decimal(1), fractions.Fraction(1, 3), object(), {}, set(),
    np.datetime64("2020-01-01"), np.timedelta64(3, "s"), np.complex64(1), np.str_("a"),
    np.bytes_(b"a"), np.longdouble(1), [1, "a"], [[1, 2], [3]], [1, None], [2**70, 1],
    [1, [2]], ((1, 2), (3,)),
]

_EDGE = {}


def _edge(dt):
    dt = np.dtype(dt)
    if dt not in _EDGE:
        _EDGE[dt] = edge_values(dt)
    return _EDGE[dt]


def _native(dt: np.dtype) -> np.dtype:
    return dt if dt.isnative else dt.newbyteorder("=")


def _supported(dt: np.dtype) -> bool:
    dt = _native(np.dtype(dt))
    return any(dt == s for s in SUPPORTED)


def broadcast_shapes(s1, s2):
    """NumPy's broadcasting of two shapes (np.broadcast_shapes stops at 32 dimensions)."""
    r = max(len(s1), len(s2))
    a = (1,) * (r - len(s1)) + tuple(s1)
    b = (1,) * (r - len(s2)) + tuple(s2)
    out = []
    for m, n in zip(a, b):
        if m != n and m != 1 and n != 1:
            raise ValueError(f"shapes {s1} {s2} do not broadcast")
        out.append(n if m == 1 else m)
    return tuple(out)


def _prod(shape) -> int:
    p = 1
    for n in shape:
        p *= int(n)
    return p


# ---------------------------------------------------------------------------
# building arrays: values, layouts, guarded buffers

GUARD = 16
WILD_STRIDES = [2**40, -(2**40), 2**62, -(2**62), 2**63 - 1, -(2**63), -1, 3, 1]
LAYOUT_KINDS = ["C", "C", "F", "perm", "neg", "step", "zero", "wild", "mixed"]


def gen_values(rng, dt, shape, *, small_nonneg=False):
    """Values of dtype dt and shape: edge values (MIN, MAX, 0, -0.0, inf, NaN, ...) likely."""
    dt = np.dtype(dt)
    n = _prod(shape)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if not _supported(dt):
        if dt.kind in "iufc":
            return rng.integers(-3, 4, n).astype(dt).reshape(shape)
        if dt.kind in "mM":
            return rng.integers(-3, 4, n).astype(np.int64).view(dt).reshape(shape)
        return np.zeros(shape, dt)
    pool = [_edge(dt), random_values(dt, 24, rng)]
    if dt.itemsize == 2 and is_float(dt):
        pool.append(rng.integers(0, 2**16, 16, dtype=np.uint16).view(dt))
    if is_int(dt):
        pool.append(rng.integers(-4, 5, 16).astype(dt))
    pool = np.concatenate(pool)
    vals = rng.choice(pool, n)
    if small_nonneg and is_int(dt):
        vals = (vals.astype(np.int64) % 40).astype(dt)
    return vals.reshape(shape)


@dataclass
class Plan:
    strides: list
    start: int  # byte offset of element [0, ..., 0] from the start of the span
    span: int   # bytes the elements cover (from the lowest address)
    zero_axes: set


def plan_layout(shape, itemsize, rng, kind, *, allow_zero=True):
    """Strides for `shape` in the given layout kind (C, F, permuted, negative, stepped,
    zero-stride, wild strides on extent-1 axes, or a mix)."""
    nd = len(shape)
    perm = list(range(nd))
    steps = [1] * nd
    signs = [1] * nd
    zero: set = set()
    wild: dict = {}
    if kind == "mixed":
        # a tuple, not a set: a set's order changes with PYTHONHASHSEED, and so
        # would the draws (the derandomized run must repeat)
        kinds = {k for k in ("perm", "neg", "step", "zero", "wild") if rng.random() < 0.5}
    else:
        kinds = {kind}
    if kind == "F":
        perm = perm[::-1]
    if "perm" in kinds:
        rng.shuffle(perm)
    if "neg" in kinds:
        signs = [int(s) for s in rng.choice([1, -1], nd)] if nd else []
    if "step" in kinds and nd:
        axes = rng.choice(nd, size=min(nd, 3), replace=False)
        for a in axes:
            steps[int(a)] = int(rng.integers(1, 4))
    if "zero" in kinds and allow_zero:
        zero = {a for a in range(nd) if rng.random() < 0.5}
    if "wild" in kinds:
        empty = _prod(shape) == 0
        for a in range(nd):
            if (shape[a] == 1 or empty) and rng.random() < 0.7:
                wild[a] = int(rng.choice(WILD_STRIDES))
    if not allow_zero:  # out arrays: no element may share memory with another
        wild = {a: s for a, s in wild.items() if shape[a] <= 1 or _prod(shape) == 0}
    strides = [0] * nd
    block = 1
    for a in reversed(perm):
        if a in zero or a in wild:
            continue
        strides[a] = block * steps[a]
        block *= steps[a] * max(int(shape[a]), 1)
    start = 0
    out = []
    for a in range(nd):
        if a in wild:
            out.append(wild[a])
            continue
        if a in zero:
            out.append(0)
            continue
        bs = strides[a] * itemsize
        if signs[a] < 0 and shape[a] > 1:
            start += (shape[a] - 1) * bs
            bs = -bs
        out.append(bs)
    if _prod(shape) == 0:
        block, start = 0, 0
    return Plan(out, start, block * itemsize, zero)


def new_buffer(rng, nbytes):
    buf = np.empty(nbytes + 2 * GUARD, np.uint8)
    buf[...] = rng.integers(0, 256, buf.size, dtype=np.uint8)
    return buf


def view_in(buf, offset, shape, dtype, plan):
    return np.ndarray(tuple(shape), dtype=dtype, buffer=buf, offset=offset + plan.start,
                      strides=tuple(plan.strides))


def fill(arr, values, plan):
    """Write values into arr (values constant along zero-stride axes: only index 0 there)."""
    if arr.size == 0:
        return
    idx = tuple(slice(0, 1) if a in plan.zero_axes else slice(None) for a in range(arr.ndim))
    arr[idx] = values[idx]


def make_array(rng, dt, shape, *, kind=None, misalign=None, swap=None, readonly=False,
               allow_zero=True, values=None, small_nonneg=False):
    """An array of dtype dt and shape in a guarded buffer of its own, in a random layout."""
    dt = np.dtype(dt)
    if kind is None:
        kind = LAYOUT_KINDS[rng.integers(len(LAYOUT_KINDS))]
    plan = plan_layout(shape, dt.itemsize, rng, kind, allow_zero=allow_zero)
    if misalign is None:
        misalign = dt.itemsize > 1 and rng.random() < 0.2
    if swap is None:
        swap = rng.random() < 0.15
    if dt.hasobject or dt.kind in "US":
        a = np.zeros(shape, dt)  # no custom layout for these
        if readonly:
            a.flags.writeable = False
        return a
    store = dt.newbyteorder("S") if (swap and dt.itemsize > 1 and dt != BF16
                                    and dt.kind in "biufcmM") else dt
    off = GUARD + (int(rng.integers(1, dt.itemsize)) if misalign and dt.itemsize > 1 else 0)
    buf = new_buffer(rng, plan.span + dt.itemsize)
    arr = view_in(buf, off, shape, store, plan)
    if values is None:
        coll = tuple(1 if a in plan.zero_axes else n for a, n in enumerate(shape))
        values = np.broadcast_to(gen_values(rng, dt, coll, small_nonneg=small_nonneg), shape) \
            if _prod(coll) else np.zeros(coll, dt)
    fill(arr, values, plan)
    if readonly:
        arr.flags.writeable = False
    return arr


def owner_of(a):
    """The array that owns a's memory (through views, broadcast_to and as_strided)."""
    while True:
        b = a.base
        if isinstance(b, np.ndarray):
            a = b
        elif isinstance(getattr(b, "base", None), np.ndarray):  # as_strided's DummyArray
            a = b.base
        else:
            return a


# ---------------------------------------------------------------------------
# the case: an ew_cases.Case (the call, its errstate, target and thread count), with
# divide= and other= always set (the oracle allows for the warnings and errors they give)
# and labelled with its description just before the call (out may overlap the inputs)


def case_arrays(case):
    """Every array the call can see (its buffers are checked after the call)."""
    arrays = []
    for o in (*case.args, *case.kwargs.values()):
        if isinstance(o, np.ndarray):
            arrays.append(o)
        elif isinstance(o, memoryview):
            arrays.append(np.asarray(o))
        elif isinstance(o, (tuple, list)):
            arrays += [v for v in o if isinstance(v, np.ndarray)]
    return arrays


ABSENT = object()


# ---------------------------------------------------------------------------
# the oracle: what docs/semantics.md (and NumPy) say the call must do


@dataclass
class Operand:
    obj: object
    weak: bool = False
    arr: np.ndarray | None = None    # np.asarray(obj) for strong operands
    err: Err | None = None
    shape: tuple = ()
    ref: object = None               # what reference() gets: weak scalar, np.generic or array

    @property
    def scalar_like(self):
        return self.weak or isinstance(self.obj, np.generic) or (
            isinstance(self.obj, np.ndarray) and self.obj.ndim == 0)


def classify(x) -> Operand:
    if isinstance(x, np.generic):
        a = np.asarray(x)
        o = Operand(x, arr=a, shape=(), ref=x)
    elif isinstance(x, np.ndarray):
        o = Operand(x, arr=x, shape=x.shape, ref=x)
    elif type(x) in (bool, int, float):
        return Operand(x, weak=True, shape=(), ref=x)
    else:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                a = np.asarray(x)
        except (ValueError, TypeError, OverflowError) as e:
            return Operand(x, err=Err(TypeError, ValueError, why=f"np.asarray: {e}"))
        o = Operand(x, arr=a, shape=a.shape, ref=a)
    if not _supported(o.arr.dtype):
        o.err = Err(TypeError, why=f"unsupported dtype {o.arr.dtype}")
    return o


def _standin(o: Operand):
    return o.obj if o.weak else np.zeros((), _native(o.arr.dtype))


def _resolve_mode(v):
    if v is ABSENT:
        return ["numpy"]
    if v is None:  # docs/semantics.md: silent; the default or an error
        return ["numpy", Err(TypeError, ValueError, why="broadcast=None")]
    if isinstance(v, str):
        s = v[:]
        if s.isascii():
            m = MODE_WORDS.get(s.lower())
            return [m] if m else [Err(ValueError, why=f"broadcast={s!r}")]
        for c in (s.lower(), s.upper().lower(), s.casefold()):
            if c in MODE_WORDS:  # non-ASCII spelling that case-folds to a mode: either
                return [MODE_WORDS[c], Err(ValueError, why=f"broadcast={s!r}")]
        return [Err(ValueError, why=f"broadcast={s!r}")]
    return [Err(TypeError, ValueError, why=f"broadcast of type {type(v).__name__}")]


def _resolve_axis(v):
    if v is ABSENT:
        return [-1]
    if v is None:
        return [-1, Err(TypeError, ValueError, why="axis=None")]
    if isinstance(v, (bool, np.bool_)):
        return [int(v), Err(TypeError, ValueError, why="axis is a bool")]
    try:
        i = operator.index(v)
    except TypeError:
        return [Err(TypeError, ValueError, why=f"axis of type {type(v).__name__}")]
    if not -(2**63) <= i < 2**63:
        return [Err(ValueError, OverflowError, why=f"axis={i} outside int64")]
    return [i]


def _resolve_op(op):
    if isinstance(op, eltwise.Op):
        return [op.value]
    if isinstance(op, str):
        s = op[:]

        def lookup(t):
            if t.upper() in TRT_OPS:
                return TRT_OPS[t.upper()]
            if t.lower() in FUNCTIONS:
                return t.lower()
            if t.casefold() in FUNCTIONS:
                return t.casefold()
            return None

        if s.isascii():
            hit = lookup(s)
            if hit:
                return [hit]
        hit = lookup(s) or lookup(s.strip())
        if hit:  # non-ASCII case mapping or surrounding whitespace: docs/semantics.md is silent
            return [hit, Err(ValueError, why=f"op={s!r}")]
        return [Err(ValueError, why=f"op={s!r}")]
    return [Err(TypeError, ValueError, why=f"op of type {type(op).__name__}")]


def _resolve_dtype(v):
    if v is ABSENT or v is None:
        return [None]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            d = np.dtype(v)
    except Exception as e:  # noqa: BLE001 - whatever np.dtype raises: eltwise says TypeError
        classes = (TypeError,)
        if isinstance(e, ValueError) and not isinstance(e, UnicodeError):
            classes = (TypeError, ValueError)
        return [Err(*classes, why=f"dtype={v!r}: {type(e).__name__}")]
    if not _supported(d):
        return [Err(TypeError, why=f"dtype={d}")]
    if not d.isnative:  # NumPy refuses a byte order in dtype=; docs/semantics.md is silent
        return [_native(d), Err(TypeError, why=f"dtype={d}")]
    return [d]


def _resolve_pythondiv(v, fn, via_elementwise):
    if v is ABSENT:
        return [("plain", True)]
    if fn == "divide":
        if isinstance(v, (bool, np.bool_)):
            return [("plain", bool(v))]
        if v is None:
            return [("plain", True), Err(TypeError, why="pythondiv=None")]
        return [Err(TypeError, why=f"pythondiv={v!r}")]
    if not via_elementwise:
        return [Err(TypeError, why=f"{fn}() takes no pythondiv")]
    if v is None:
        return [("plain", True), Err(TypeError, why="pythondiv=None")]
    if fn in DIVISION_FUNCS and isinstance(v, (bool, np.bool_)):
        # issue 7 item 7: refused for all but divide, or accepted with divide's meaning
        return [Err(TypeError, why=f"pythondiv with {fn}"), ("as-divide", bool(v))]
    return [Err(TypeError, why=f"pythondiv with {fn}")]


def _resolve_out(v):
    if v is ABSENT or v is None:
        return [None]
    if isinstance(v, tuple):
        if len(v) == 1:
            if v[0] is None:
                return [None, Err(TypeError, ValueError, why="out=(None,)")]
            if isinstance(v[0], np.ndarray):
                return [v[0]]
        return [Err(TypeError, ValueError, why=f"out is a tuple of {len(v)}")]
    if isinstance(v, np.ndarray):
        return [v]
    return [Err(TypeError, ValueError, why=f"out of type {type(v).__name__}")]


@dataclass
class Ok:
    shape: tuple
    rdt: np.dtype
    expected: object        # reference result (NumPy scalar or array) or None (empty result)
    scalar: bool
    out: np.ndarray | None
    ulp: int = 0
    zero_sign_free: object = None
    zero_div: str = "no"    # "no" / "yes" (must be reported) / "maybe" (may be reported)
    fn: str = ""
    casts: bool = False     # a cast may report FP errors through errstate (as NumPy's)
    layout_ref: object = None
    why: str = ""

    def __repr__(self):  # in a report's "expected:" line
        return f"Ok({self.rdt}{self.shape})"


def pdpd_view(x, s1, s2, axis):
    """x (shape s2) as a view of the pdpd shape, without copying (keeps layout)."""
    if len(s2) == 0:
        return x  # scalars broadcast as they are (a Python scalar stays weak)
    a = np.asarray(x)
    r1 = len(s1)
    if axis == -1:
        axis = r1 - len(s2)
    t = list(s2)
    while t and t[-1] == 1:
        t.pop()
    a = a[(Ellipsis,) + (0,) * (len(s2) - len(t))]
    a = a[(None,) * axis + (Ellipsis,) + (None,) * (r1 - axis - len(t))]
    return a


def _uint_view(x):
    if isinstance(x, np.ndarray) and x.ndim:
        return x.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])
    return np.zeros((), np.uint8)


def _cast_to(x, dt):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(x).astype(dt)


def predict(case: Case, layout: bool = False):
    """The outcomes docs/semantics.md allows for the call (any one of them will do);
    layout: a result's Ok also holds the layout NumPy gives it (P6)."""
    plain_errors = []
    fname = case.fname
    args = case.args
    kw = dict(case.kwargs)
    if fname == "elementwise":
        if len(args) < 3 or len(args) > 4:
            return [Err(TypeError, why=f"elementwise with {len(args)} positional arguments")]
        x1, x2, op = args[:3]
        pos_out = args[3] if len(args) == 4 else ABSENT
        fns = _resolve_op(op)
    else:
        if len(args) < 2 or len(args) > 3:
            return [Err(TypeError, why=f"{fname} with {len(args)} positional arguments")]
        x1, x2 = args[:2]
        pos_out = args[2] if len(args) == 3 else ABSENT
        fns = [fname]
    if "out" in kw and pos_out is not ABSENT:
        plain_errors.append(Err(TypeError, why="out given twice"))
    out_v = kw.pop("out", pos_out)
    mode_v = kw.pop("broadcast", ABSENT)
    axis_v = kw.pop("axis", ABSENT)
    dtype_v = kw.pop("dtype", ABSENT)
    pdiv_v = kw.pop("pythondiv", ABSENT)
    for k in kw:
        plain_errors.append(Err(TypeError, why=f"unknown keyword {k!r}"))
    o1, o2 = classify(x1), classify(x2)
    outcomes = []
    for fn in fns:
        op_err = None
        if isinstance(fn, Err):
            op_err, fn = fn, "add"
        for pd in _resolve_pythondiv(pdiv_v, fn, fname == "elementwise"):
            for mode in _resolve_mode(mode_v):
                for axis in _resolve_axis(axis_v):
                    for dt in _resolve_dtype(dtype_v):
                        for out in _resolve_out(out_v):
                            errs = list(plain_errors)
                            for v in (op_err, pd, mode, axis, dt, out):
                                if isinstance(v, Err):
                                    errs.append(v)
                            outcomes += _predict_values(
                                fn, o1, o2, pd, mode, axis, dt, out, errs, case, layout)
    return outcomes


def _predict_values(fn, o1, o2, pd, mode, axis, dt, out, errs, case, layout):
    """Operand-level part of the prediction, once the keywords are read."""
    errs = list(errs)
    for o in (o1, o2):
        if o.err:
            errs.append(o.err)
    if isinstance(pd, Err):
        pd = ("plain", True)
    if isinstance(dt, Err):
        dt = None
    # --- shapes
    shape = None
    if not (o1.err and o1.arr is None) and not (o2.err and o2.arr is None):
        s1, s2 = tuple(o1.shape), tuple(o2.shape)
        if isinstance(mode, str) and not isinstance(axis, Err):
            if axis != -1 and mode != "pdpd":
                errs.append(Err(ValueError, why=f"axis={axis} with broadcast={mode}"))
            if mode == "numpy":
                try:
                    shape = broadcast_shapes(s1, s2)
                except ValueError:
                    errs.append(Err(ValueError, why=f"shapes {s1} {s2} do not broadcast"))
            elif mode == "none":
                if s1 != s2:
                    errs.append(Err(ValueError, why=f"broadcast=none with {s1} {s2}"))
                else:
                    shape = s1
            else:
                v = pdpd_view_shape(s1, s2, axis)
                if isinstance(v, str):
                    errs.append(Err(ValueError, why=f"pdpd {s1} {s2} axis={axis}: {v}"))
                else:
                    shape = s1
    # --- dtypes
    alts = []  # (rt, notes)
    if not o1.err and not o2.err:
        alts, perr = _promote(fn, o1, o2, dt)
        errs += perr
    results = []
    if not alts:
        alts = [(None, {})]
    for rt, notes in alts:
        e2 = list(errs)
        if isinstance(rt, Err):
            e2.append(rt)
            rt = None
        if rt is not None:
            x = expected_error(fn, rt)
            if x is not None:
                e2.append(Err(x, why=f"{fn} on {rt}"))
        results += _finish(fn, o1, o2, pd, mode, axis, dt, out, e2, shape, rt, notes, case,
                           layout)
    return results


def _promote(fn, o1, o2, dt):
    """[(compute dtype or Err, notes)], [errors] for supported operands."""
    errs = []
    weak = [o for o in (o1, o2) if o.weak]
    strong = [o for o in (o1, o2) if not o.weak]
    if dt is not None:
        for o in strong:
            if not np.can_cast(_native(o.arr.dtype), dt, "same_kind"):
                errs.append(Err(TypeError, why=f"cannot cast {o.arr.dtype} to dtype={dt}"))
        alts = [(dt, {})]
        for o in weak:
            v = o.obj
            if isinstance(v, bool):
                continue
            if isinstance(v, float) and not is_float(dt):
                errs.append(Err(TypeError, why=f"Python float to dtype={dt}"))
            if isinstance(v, int) and dt == np.bool_:
                errs.append(Err(TypeError, why="Python int to dtype=bool"))
            if isinstance(v, int) and fn in LOGICAL_OPS:
                errs += _logical_int_errs(v)
            elif isinstance(v, int) and is_int(dt):
                ii = np.iinfo(dt)
                if not ii.min <= v <= ii.max:
                    errs.append(Err(OverflowError, why=f"{v} does not fit {dt}"))
            if isinstance(v, int) and is_float(dt):
                alts = _int_to_float_alts(v, dt, alts)
        return alts, errs
    try:
        rt = np.result_type(_standin(o1), _standin(o2))
    except TypeError as e:
        return [(Err(TypeError, why=f"no common dtype: {e}"), {})], errs
    if any(isinstance(o.obj, float) for o in weak) and any(
            _native(o.arr.dtype) == BF16 for o in strong):
        # bfloat16 with a Python float: ml_dtypes' ufuncs give float32, result_type float64;
        # either (or bfloat16) with values computed in that dtype (test_ops does the same)
        return [(np.dtype(np.float32), {"forced": True}), (BF16, {"forced": True}),
                (np.dtype(np.float64), {"forced": True})], errs
    alts = [(rt, {})]
    for o in weak:
        v = o.obj
        if isinstance(v, bool) or not isinstance(v, int):
            continue
        if fn in LOGICAL_OPS:
            errs += _logical_int_errs(v)
        elif is_int(rt):
            ii = np.iinfo(rt)
            if not ii.min <= v <= ii.max:
                if fn in ("equal", "not_equal", "less", "less_equal", "greater",
                          "greater_equal"):
                    # NumPy 2 compares an out-of-range Python int exactly; docs/semantics.md is silent
                    alts = [(rt, {"numpy_compare": True}),
                            (Err(OverflowError, why=f"{v} does not fit {rt}"), {})]
                else:
                    errs.append(Err(OverflowError, why=f"{v} does not fit {rt}"))
        elif is_float(rt):
            alts = _int_to_float_alts(v, rt, alts)
    return alts, errs


LOGICAL_OPS = ("logical_and", "logical_or", "logical_xor")


def _logical_int_errs(v):
    """A logical op takes a Python int's truth, as NumPy's loops do: through int64."""
    if -(2**63) <= v < 2**63:
        return []
    return [Err(OverflowError, why=f"{v} does not fit int64 (logical op)")]


def _int_to_float_alts(v, rt, alts):
    try:
        float(v)
    except OverflowError:
        return [(Err(OverflowError, why=f"{v} too large for a float"), {})]
    return alts


def _finish(fn, o1, o2, pd, mode, axis, dt, out, errs, shape, rt, notes, case, layout):
    """Out checks, value checks and the expected result for one reading of the call."""
    rdt = None
    if rt is not None:
        rdt = np.dtype(bool) if fn in BOOL_RESULT_OPS else rt
    mixed_div = False
    if (fn == "divide" and rt is not None and dt is None and is_float(rt) and not o1.weak
            and not o2.weak and is_int(o1.arr.dtype) and is_int(o2.arr.dtype)):
        # issue 7 item 9: integer operands promoted to float64 still divide as integers
        mixed_div = True
    if isinstance(out, np.ndarray):
        if shape is not None and out.shape != tuple(shape):
            errs.append(Err(ValueError, why=f"out shape {out.shape} != {shape}"))
        if not out.flags.writeable:
            errs.append(Err(ValueError, TypeError, why="out is read-only"))
        if rdt is not None and not np.can_cast(rdt, out.dtype, "same_kind"):
            errs.append(Err(TypeError, why=f"cannot cast {rdt} to out {out.dtype}"))
    size = _prod(shape) if shape is not None else None
    empty_neg_pow = False
    if fn == "power" and rt is not None and rt.kind == "i" and shape is not None and not (
            o2.weak and not np.iinfo(rt).min <= o2.obj <= np.iinfo(rt).max):
        x2 = o2.obj if o2.weak else _distinct(o2.arr)
        if (o2.weak or x2.size) and bool((_cast_to(x2, rt) < 0).any()):
            if size:
                errs.append(Err(ValueError, why="negative integer power"))
            else:  # nothing is computed: NumPy does not raise; docs/semantics.md is silent
                empty_neg_pow = True
    if errs:
        return [_err(errs)]
    zero_div = "no"
    if size and fn in INT_DIV_OPS and (is_int(rt) or mixed_div):
        x2 = o2.obj if o2.weak else o2.arr
        if bool((_cast_to(x2, rt) == 0).any()):
            zero_div = "maybe" if mixed_div else "yes"
    if zero_div == "yes" and case.divide == "raise":
        return [Err(FloatingPointError, why="integer division by zero under errstate raise")]
    alts = []
    if empty_neg_pow:
        alts.append(Err(ValueError, why="negative integer power (empty result)"))
    # --- the expected result
    x1r, x2r = o1.ref, o2.ref
    if mode == "pdpd":
        x2r = pdpd_view(x2r, tuple(o1.shape), tuple(o2.shape), axis)
    scalar = o1.scalar_like and o2.scalar_like and out is None
    casts = _casts_possible(o1, o2, rt, rdt, out)
    ok = Ok(tuple(shape), rdt, None, scalar, out, zero_div=zero_div, casts=casts, fn=fn)
    if layout and out is None and size and size > 1:
        ok.layout_ref = _layout_reference(o1, o2, mode, axis)
    big_int = is_float(rt) and any(type(o.obj) is int and not -(2**63) <= o.obj < 2**63
                                   for o in (o1, o2))
    if big_int and (size == 0 or np.dtype(rt) == BF16):
        # converted before the size matters; ml_dtypes' bfloat16 never converts it (np.add
        # raises too), whichever reference computes the values below
        alts = alts + [Err(TypeError, OverflowError, why="NumPy cannot convert the "
                           "Python int either")]
    if size == 0:
        return alts + [ok]
    names = [(fn, pd[1])]
    if pd[0] == "as-divide":
        if fn == "floor_divide":
            names = [("divide" if is_int(rt) else "floor_divide", pd[1])]
        elif fn in ("mod", "remainder") and not pd[1]:
            names = [(fn, True), ("fmod", True)]
    results = alts
    for name, pythondiv in names:
        alt = Ok(**{**ok.__dict__})
        try:
            try:
                alt.expected, alt.ulp, alt.zero_sign_free = _expected(
                    name, x1r, x2r, rt, dt, notes, pythondiv, mixed_div, tuple(shape))
            except (OverflowError, TypeError):
                if notes.get("numpy_compare"):
                    continue  # NumPy has no exact comparison here either: only the error
                if not big_int:
                    raise
                # A Python int beyond int64 with a float dtype: some of NumPy's loops
                # (logical_*, bfloat16's) cannot convert it. docs/semantics.md is silent: that error, or
                # the value converted as np.add converts it (through float64).
                results.append(Err(TypeError, OverflowError, why=f"{name}: NumPy cannot "
                                   f"convert the Python int either"))
                alt.expected, alt.ulp, alt.zero_sign_free = _expected(
                    name, x1r, x2r, rt, dt, {**notes, "int_via_float": True}, pythondiv,
                    mixed_div, tuple(shape))
        except Exception as e:  # noqa: BLE001
            raise OracleError(f"reference failed for {name}: {type(e).__name__}: {e}\n"
                              f"{describe(case)}") from e
        if notes.get("numpy_compare"):
            alt.why = "NumPy 2's exact comparison with an out-of-range Python int"
        results.append(alt)
    return results


def _distinct(a):
    """a without its zero-stride (broadcast) axes: the same values, few elements."""
    return a[tuple(0 if (st_ == 0 and n > 0) else slice(None)
                   for st_, n in zip(a.strides, a.shape))]


def _err(errs):
    classes = []
    for e in errs:
        for c in e.classes:
            if c not in classes:
                classes.append(c)
    return Err(*classes, why="; ".join(e.why for e in errs))


def _casts_possible(o1, o2, rt, rdt, out):
    for o in (o1, o2):
        if o.weak:
            if isinstance(o.obj, float) and rt != np.float64:
                return True
            if isinstance(o.obj, int) and not isinstance(o.obj, bool) and is_float(rt):
                return True
        elif _native(o.arr.dtype) != rt:
            return True
    return out is not None and _native(out.dtype) != rdt


def _expected(name, x1, x2, rt, dt, notes, pythondiv, mixed_div, shape):
    if notes.get("int_via_float"):
        x1, x2 = (np.asarray(float(x)).astype(rt)
                  if type(x) is int else x for x in (x1, x2))
    if len(shape) > 32:  # parts of NumPy (np.broadcast, flatiter) stop at 32 dimensions
        def flat(x):
            if isinstance(x, (bool, int, float)):
                return x
            return np.ascontiguousarray(np.broadcast_to(np.asarray(x), shape)).reshape(-1)

        exp, ulp, zsf = _expected(name, flat(x1), flat(x2), rt, dt, notes, pythondiv,
                                  mixed_div, (_prod(shape),))
        return (np.asarray(exp).reshape(shape), ulp,
                None if zsf is None else np.asarray(zsf).reshape(shape))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zsf = None
        if mixed_div:
            if pythondiv:
                exp = np.floor_divide(x1, x2)
            else:
                exp = np.asarray(trunc_divide(np.asarray(x1, np.float64),
                                              np.asarray(x2, np.float64)))
                zsf = exp == 0  # the sign of a zero quotient is not specified
                if _is_scalarish(x1) and _is_scalarish(x2):
                    exp = exp[()]
            return exp, 0, zsf
        if notes.get("numpy_compare"):
            # NumPy's own comparison with the Python int as it is: exact, beyond int64
            # too (the reference's conversion to an array stops at int64)
            return getattr(np, name)(x1, x2), 0, zsf
        forced = dt if dt is not None else (rt if notes.get("forced") else None)
        exp = reference(name, x1, x2, dtype=forced, pythondiv=pythondiv)
        ulp = 1 if (name == "power" and is_float(rt)) else 0
        return exp, ulp, zsf


def _is_scalarish(x):
    return isinstance(x, (bool, int, float, np.generic)) or (
        isinstance(x, np.ndarray) and x.ndim == 0)


def _layout_reference(o1, o2, mode, axis):
    a = _uint_view(o1.obj if isinstance(o1.obj, np.ndarray) else o1.arr)
    b = _uint_view(o2.obj if isinstance(o2.obj, np.ndarray) else o2.arr)
    if mode == "pdpd":
        b = pdpd_view(b, tuple(o1.shape), tuple(o2.shape), axis)
    r = np.add(a, b)
    return tuple(s // r.itemsize for s in r.strides)


# ---------------------------------------------------------------------------
# running and checking


def _object_ids(o):
    return [id(v) for v in o.reshape(-1, order="A").tolist()] if o.size else []


def _snapshot(arrays):
    """(owner, raw bytes view or None, copy) of every buffer the call can see."""
    snaps = []
    seen = set()
    for a in arrays:
        if not isinstance(a, np.ndarray):
            continue
        o = owner_of(a)
        if id(o) in seen:
            continue
        seen.add(id(o))
        if o.dtype.hasobject:
            snaps.append((o, "objects", _object_ids(o)))
        elif o.flags.c_contiguous or o.flags.f_contiguous:
            raw = o.reshape(-1, order="A").view(np.uint8) if o.size else np.zeros(0, np.uint8)
            snaps.append((o, raw, raw.copy()))
        elif o.size <= 10**6:
            snaps.append((o, "logical", np.array(o, copy=True)))
    return snaps


def _footprint(out: np.ndarray, owner: np.ndarray):
    """Byte offsets (relative to owner's data) of out's elements."""
    if out.size == 0:
        return np.zeros(0, np.int64)
    start = out.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    offs = np.array([start], np.int64)
    for n, s in zip(out.shape, out.strides):
        offs = (offs[:, None] + np.arange(n, dtype=np.int64) * s).ravel()
    return (offs[:, None] + np.arange(out.dtype.itemsize, dtype=np.int64)).ravel()


def _check_untouched(snaps, out, case, exc):
    for owner, raw, before in snaps:
        if isinstance(raw, str):
            if exc is None and out is not None and np.shares_memory(owner, out):
                continue
            same = (_object_ids(owner) == before if raw == "objects" else
                    np.array(owner).tobytes() == before.tobytes())
            if not same:
                raise (WrittenOnError if exc is not None else WrittenOutsideOut)(
                    f"an input's elements changed ({'after ' + repr(exc) if exc else 'success'})"
                    f"\n{describe(case)}")
            continue
        changed = raw != before
        if exc is None and out is not None and owner is owner_of(out):
            fp = _footprint(out, owner)
            changed[fp[(fp >= 0) & (fp < raw.size)]] = False
        if changed.any():
            where = np.flatnonzero(changed)[:8].tolist()
            if exc is not None:
                raise WrittenOnError(f"{type(exc).__name__}({exc}) escaped but bytes {where} "
                                     f"of a buffer changed\n{describe(case)}")
            raise WrittenOutsideOut(f"bytes {where} outside out's elements changed "
                                    f"(buffer of {raw.size} bytes)\n{describe(case)}")


def _warning_ok(w, case, outcome):
    msg = str(w.message)
    if issubclass(w.category, RuntimeWarning):
        if (isinstance(outcome, Ok) and outcome.zero_div != "no"
                and case.divide == "warn"):
            if outcome.zero_div == "maybe" and "divide by zero encountered in" in msg:
                return True
            if re.fullmatch(r"divide by zero encountered in " + DIV_WARN_NAME[outcome.fn],
                            msg):
                return True
        if "encountered in cast" in msg:
            return isinstance(outcome, Ok) and outcome.casts and case.other == "warn"
    return False


def _compare(ok: Ok, got, case):
    """Raise a CaseFailure if `got` does not match the Ok outcome."""
    if ok.out is not None:
        if got is not ok.out:
            raise OutNotReturned(f"returned {type(got).__name__}, not out\n{describe(case)}")
        if ok.expected is None or (ok.out.size > 1 and 0 in ok.out.strides):
            # a self-overlapping out: several results land on one element, any may win
            return
        _compare_out(ok, case)
        return
    if ok.expected is None:  # empty result
        if not isinstance(got, np.ndarray):
            raise ResultMismatch(f"expected an empty ndarray, got {type(got).__name__}\n"
                                 f"{describe(case)}")
        if got.shape != ok.shape or got.dtype != ok.rdt:
            raise ResultMismatch(f"got {got.dtype}{got.shape}, expected {ok.rdt}{ok.shape}\n"
                                 f"{describe(case)}")
        return
    try:
        assert_same(got, ok.expected, ulp=ok.ulp, zero_sign_free=ok.zero_sign_free,
                    contiguous=False)
    except AssertionError as e:
        raise ResultMismatch(f"{e}\n{ok.why}\n{describe(case)}") from None
    if isinstance(got, np.ndarray) and got.size:
        for x in case.args[:2]:
            if isinstance(x, np.ndarray) and np.shares_memory(got, x):
                raise ResultAliasesInput(f"the result shares memory with an input\n"
                                         f"{describe(case)}")
    if ok.layout_ref is not None and isinstance(got, np.ndarray):
        mine = tuple(s // got.itemsize for s in got.strides)
        bad = [a for a, n in enumerate(got.shape) if n > 1 and mine[a] != ok.layout_ref[a]]
        if bad:
            raise LayoutMismatch(
                f"result strides {mine} (in elements) differ from NumPy's order='K' "
                f"{ok.layout_ref} on axes {bad[:8]}; shape {got.shape}\n{describe(case)}")


def _compare_out(ok: Ok, case):
    out = ok.out
    want = ok.expected
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = np.array(out)
        if out.dtype.kind == "O":
            got = got.astype(ok.rdt)
            want = np.asarray(want)
        elif out.dtype.kind in "US":
            if ok.ulp:
                return
            want = np.asarray(want).astype(out.dtype)
            if not np.array_equal(got, want):
                raise ResultMismatch(f"out holds {got!r}, expected {want!r}\n{describe(case)}")
            return
        elif (ok.ulp and is_float(out.dtype) and is_float(ok.rdt)
              and out.dtype.itemsize > np.dtype(ok.rdt).itemsize):
            # 1 ULP of the result dtype, which a wider out holds exactly
            want = np.asarray(want).astype(ok.rdt)
            got = got.astype(ok.rdt)
        else:
            want = np.asarray(want).astype(_native(out.dtype))
            got = got.astype(_native(out.dtype))
        if got.dtype == np.longdouble and np.dtype(np.longdouble).itemsize > 8:
            got, want = got.astype(np.float64), want.astype(np.float64)  # exact here
        pairs = [(got, want)]
        if got.dtype.kind == "c":
            pairs = [(np.array(got.real), np.array(want.real)),
                     (np.array(got.imag), np.array(want.imag))]
    for g, w in pairs:
        try:
            assert_same(g, w, ulp=ok.ulp, zero_sign_free=_zsf_for(ok, g), contiguous=False)
        except AssertionError as e:
            raise ResultMismatch(f"out: {e}\n{ok.why}\n{describe(case)}") from None


def _zsf_for(ok, got):
    if ok.zero_sign_free is None:
        return None
    z = np.asarray(ok.zero_sign_free)
    return z if z.shape == got.shape else None


def _casts_in_call(case):
    """Whether the call may cast an operand or the result (so NumPy's cast FP reports)."""
    if case.other == "ignore":
        return False
    if "dtype" in case.kwargs or "out" in case.kwargs or len(case.args) > (
            3 if case.fname == "elementwise" else 2):
        return True
    dts = set()
    for x in case.args[:2]:
        if isinstance(x, (bool, int, float)):
            return True
        try:
            dts.add(np.asarray(x).dtype)
        except Exception:  # noqa: BLE001
            return True
    return len(dts) > 1 or any(not d.isnative for d in dts)


def _trace(case):
    if not _TRACE:
        return
    text = (describe(case) + "\n").encode("utf-8", "backslashreplace")
    if _TRACE == "-":
        os.write(2, text)
    else:
        with open(_TRACE, "ab") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())


def run_case(case: Case, *, layout: bool = False):
    """Makes the call and checks P1-P5 (P6 too with layout) against predict's outcomes."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcomes = predict(case, layout)
    snaps = _snapshot(case_arrays(case))
    case.label = ""
    case.label = describe(case)  # the inputs as they were (out may overlap them)
    _trace(case)
    STATS["calls"] += 1
    with conditions(case, record=True) as caught:
        got, exc = attempt(case)
    if exc is not None:
        STATS["raised"] += 1
    oks = [o for o in outcomes if isinstance(o, Ok)]
    # NumPy's casts report through errstate too: an operand cast to the compute dtype
    # (before other checks, in any order) or the result cast into out
    also = []
    if _casts_in_call(case):
        also.append(Err(FloatingPointError, match="encountered in cast", why="a cast"))
    if any(o.zero_div == "maybe" for o in oks):
        also.append(Err(FloatingPointError, match="divide by zero",
                        why="int64 with uint64 divide by zero"))
    failure = judge(exc, outcomes + also, result=got, context=describe(case))
    if exc is not None:
        if isinstance(failure, DisallowedException):
            raise failure from exc
        _check_untouched(snaps, None, case, exc)
        if failure is not None:
            raise failure from exc
        for w in caught:
            if not any(_warning_ok(w, case, o) for o in oks) and not (
                    issubclass(w.category, RuntimeWarning) and "encountered in cast" in
                    str(w.message) and case.other == "warn" and _casts_in_call(case)):
                raise UnexpectedWarning(f"{w.category.__name__}: {w.message}\n"
                                        f"{describe(case)}")
        return
    if failure is not None:
        raise failure
    failures = []
    for ok in oks:
        try:
            _check_untouched(snaps, ok.out, case, None)
            _compare(ok, got, case)
            for w in caught:
                if not _warning_ok(w, case, ok):
                    raise UnexpectedWarning(f"{w.category.__name__}: {w.message}\n"
                                            f"{describe(case)}")
            if ok.zero_div == "yes" and case.divide == "warn" and not any(
                    issubclass(w.category, RuntimeWarning)
                    and "divide by zero encountered in" in str(w.message) for w in caught):
                raise MissingWarning(f"integer division by zero not reported under "
                                     f"errstate(divide='warn')\n{describe(case)}")
            return
        except CaseFailure as f:
            failures.append(f)
    raise failures[0]


# ---------------------------------------------------------------------------
# strategies

_SAMPLED: dict = {}


def pick(draw, seq):
    """draw(st.sampled_from(seq)) with the strategy built once per (module-level) seq."""
    entry = _SAMPLED.get(id(seq))
    if entry is None or entry[0] is not seq:
        entry = _SAMPLED[id(seq)] = (seq, st.sampled_from(seq))
    return draw(entry[1])


MODES3 = ["numpy", "none", "pdpd"]
DIVIDE_STATES = ["ignore", "warn", "raise"]
OTHER_STATES = ["ignore", "ignore", "warn", "raise"]
TARGET_CHOICES = [None] + TARGETS
THREAD_CHOICES = [None, 1, 2, 3, 5]
EMPTY_LISTS = [[], [[]], [[], []], [[[]]]]
KW_VALUES = [None, 1, "numpy", np.ones(3), True, -1]
HUGE_X1_KINDS = ["C", "wild", "neg", "F"]
ODD_AXES = [None, True, False, np.True_, np.False_, 1.0, 0.0, -1.0, math.nan, np.float64(1), "0",
            "-1", b"1", [0], (1,), np.array(1), np.array([1]), np.uint64(2**64 - 1),
            np.uint64(2**63), np.int64(2**63 - 2), np.int64(-(2**63)), 1 + 0j]
BAD_DTYPE_VALUES = UNSUPPORTED_DTYPE_VALUES + GARBAGE_DTYPES + [None]
GARBAGE_MODES_NONE = GARBAGE_MODES + [None]
RANK_ST = st.one_of(st.integers(0, 4), st.integers(0, 8), st.integers(0, 64))
SEED_ST = st.integers(0, 2**32 - 1)
GARBAGE_MODE_ST = st.one_of(st.sampled_from(GARBAGE_MODES_NONE), st.text(max_size=12))
GARBAGE_OP_ST = st.one_of(st.sampled_from(GARBAGE_OPS), st.text(max_size=10))
UNKNOWN_KW_ST = st.one_of(st.sampled_from(UNKNOWN_KEYWORDS), st.text(max_size=8))
AXIS_ST = st.one_of(
    st.sampled_from(AXIS_EDGES),
    st.sampled_from(AXIS_BEYOND),
    st.integers(-(2**63), 2**63 - 1),
    st.integers(min_value=-(2**63) - 2**20, max_value=2**63 + 2**20),
    st.integers(-3, 70),
    st.sampled_from(ODD_AXES),
)

PY_SCALARS = st.one_of(
    st.booleans(),
    st.sampled_from(INTERESTING_INTS),
    st.integers(-20, 20),
    st.integers(),
    st.sampled_from(INTERESTING_FLOATS),
    st.floats(),
)


def draw_shape(draw, rng, *, max_rank=64, cap=256):
    """A shape: mostly small ranks, sometimes up to 64 dimensions; at most `cap` elements."""
    rank = min(draw(RANK_ST), max_rank)
    if rank <= 4:
        dims = [int(d) for d in rng.choice([0, 1, 1, 2, 3, 4, 5, 7], rank)]
    else:
        dims = [int(d) for d in rng.choice([1, 1, 1, 1, 1, 2, 2, 3, 0], rank)]
        if rng.random() < 0.7:
            dims = [d if d else 1 for d in dims]
    # bound the elements, and for empty shapes the nesting too (tolist() of a (2,)*30 + (0,)
    # array builds 2**30 lists)
    while _prod(max(d, 1) for d in dims) > cap:
        i = max(range(len(dims)), key=lambda k: dims[k])
        dims[i] = 1
    return tuple(dims)


def derive_broadcastable(rng, s):
    """A shape that broadcasts with s under NumPy's rules (and often pdpd's)."""
    r = len(s)
    keep = int(rng.integers(0, r + 1))
    t = [d if rng.random() < 0.6 else 1 for d in s[r - keep:]]
    if rng.random() < 0.2:  # leading 1s, within NumPy's 64 dimensions
        t = [1] * min(int(rng.integers(0, 3)), 64 - len(t)) + t
    return tuple(t)


def derive_pdpd(rng, s):
    """(x2 shape, axis) that fit x1's shape s under pdpd (mostly)."""
    r = len(s)
    start = int(rng.integers(0, r + 1))
    stop = int(rng.integers(start, r + 1))
    t = [d if rng.random() < 0.6 else 1 for d in s[start:stop]]
    t += [1] * int(rng.integers(0, r - stop + 1))
    axis = start if rng.random() < 0.6 else -1
    return tuple(t), axis


def large_shape(rng):
    """8 Ki to 64 Ki elements in 1 to 4 dimensions: enough bytes for the thread pool."""
    n = int(rng.integers(2**13, 2**16))
    rank = int(rng.integers(1, 5))
    dims = []
    for _ in range(rank - 1):
        d = int(rng.choice([1, 2, 3, 7, 16, 33, 64, 255]))
        if n // d >= 1:
            dims.append(d)
            n //= d
    dims.append(max(n, 1))
    rng.shuffle(dims)
    return tuple(dims)


def shape_pair(draw, rng, family, *, cap=256):
    if family == "large":
        s = large_shape(rng)
        t = derive_broadcastable(rng, s) if rng.random() < 0.7 else s
        return (s, t, ABSENT) if rng.random() < 0.7 else (t, s, ABSENT)
    s = draw_shape(draw, rng, cap=cap)
    axis = ABSENT
    if family == "same":
        return s, s, axis
    if family == "numpy":
        t = derive_broadcastable(rng, s)
        return (s, t, axis) if rng.random() < 0.5 else (t, s, axis)
    if family == "pdpd":
        t, axis = derive_pdpd(rng, s)
        return s, t, axis
    t = draw_shape(draw, rng, cap=cap)
    return s, t, axis


def draw_operand(draw, rng, dt, shape, *, kinds, small_nonneg=False, readonly_p=0.1):
    """An operand of dtype dt and shape (when the kind allows), as `kinds` weights say."""
    kind = pick(draw, kinds)
    dt = np.dtype(dt)
    if kind == "array" or (kind in ("list", "memoryview") and not shape) or (
            kind in ("0d", "generic", "pyscalar") and shape):
        return make_array(rng, dt, shape, readonly=rng.random() < readonly_p,
                          small_nonneg=small_nonneg)
    if kind == "0d":
        return make_array(rng, dt, (), readonly=rng.random() < readonly_p,
                          small_nonneg=small_nonneg)
    if kind == "generic":
        return gen_values(rng, dt, (1,), small_nonneg=small_nonneg)[0]
    if kind == "pyscalar":
        v = draw(PY_SCALARS)
        if small_nonneg and isinstance(v, int) and not isinstance(v, bool) and rng.random() < .8:
            v = abs(v) % 40
        return v
    if kind == "list":
        a = gen_values(rng, dt, shape, small_nonneg=small_nonneg)
        if dt == BF16 or rng.random() < 0.7:
            return a.tolist()
        return list(a)  # a list of NumPy scalars
    if kind == "tuple":
        return tuple(gen_values(rng, dt, shape[:1] or (1,), small_nonneg=small_nonneg).tolist())
    if kind == "memoryview":
        if dt == BF16:
            return make_array(rng, dt, shape)
        return memoryview(np.ascontiguousarray(gen_values(rng, dt, shape,
                                                          small_nonneg=small_nonneg)))
    if kind == "empty-list":
        return pick(draw, EMPTY_LISTS)
    if kind == "unsupported-array":
        udt = pick(draw, UNSUPPORTED_DTYPES)
        return make_array(rng, udt, shape)
    if kind == "other":
        return pick(draw, OTHER_OPERANDS)
    raise AssertionError(kind)


def nominal(fn, x1, x2, mode, axis, dtype):
    """(shape, result dtype) the call should produce, or (None, None) (for choosing out)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o1, o2 = classify(x1), classify(x2)
            if o1.err or o2.err:
                return None, None
            if mode == "pdpd":
                shape = tuple(o1.shape)
            elif mode == "none":
                shape = tuple(o1.shape)
            else:
                shape = broadcast_shapes(o1.shape, o2.shape)
            d = _resolve_dtype(dtype if dtype is not None else ABSENT)[0]
            alts, _ = _promote(fn, o1, o2, d if isinstance(d, np.dtype) else None)
            rt = alts[0][0]
            if isinstance(rt, Err):
                return shape, None
            return shape, (np.dtype(bool) if fn in BOOL_RESULT_OPS else rt)
    except Exception:  # noqa: BLE001
        return None, None


GARBAGE_OUTS = [
    "out", 3.0, 0, True, b"", [0.0, 0.0], [np.zeros(3)], (), (np.zeros(3), np.zeros(3)),
    (None, None), (1.0,), ("out",), np.float64(0), np.int8(0), memoryview(b"abcd"),
    bytearray(8), {"out": None}, eltwise.Op.SUM, "array-in-list", "array-and-none",
    "nested-list",
]
OUT_DTYPES = SUPPORTED + [np.dtype(np.complex128), np.dtype(np.complex64), np.dtype(object),
                          np.dtype("<U40"), np.dtype("S40"), np.dtype("datetime64[s]"),
                          np.dtype([("a", "<f8")]), np.dtype(np.longdouble)]


def draw_out(draw, rng, shape, rdt, x1, x2, *, kinds):
    """An `out` value of one of the kinds (right and wrong); ABSENT for none."""
    kind = pick(draw, kinds)
    if shape is None:
        shape = draw_shape(draw, rng, cap=64)
    if rdt is None:
        rdt = pick(draw, SUPPORTED)
    wkind = lambda: LAYOUT_KINDS[rng.integers(len(LAYOUT_KINDS))]  # noqa: E731
    if kind == "none":
        return ABSENT
    if kind == "None":
        return None
    if kind in ("exact", "tuple1"):
        o = make_array(rng, rdt, shape, kind=wkind(), allow_zero=False)
        return (o,) if kind == "tuple1" else o
    if kind == "castable":
        dt = pick(draw, OUT_DTYPES)
        return make_array(rng, dt, shape, kind=wkind(), allow_zero=False)
    if kind == "wrong-shape":
        s = list(shape)
        how = rng.integers(0, 4)
        if how == 0 or not s:
            s = s + [int(rng.integers(1, 3))]
        elif how == 1:
            s = s[1:]
        elif how == 2:
            i = int(rng.integers(len(s)))
            s[i] = s[i] + int(rng.integers(1, 3))
        else:
            i = int(rng.integers(len(s)))
            s[i] = 0 if s[i] else 1
        return make_array(rng, rdt, tuple(s)[:64], allow_zero=False)
    if kind == "readonly":
        return make_array(rng, rdt, shape, readonly=True, allow_zero=False)
    if kind == "self-overlap":
        return make_array(rng, rdt, shape, kind="zero")
    if kind == "alias":
        for x in (x1, x2) if rng.random() < 0.5 else (x2, x1):
            if isinstance(x, np.ndarray) and x.shape == tuple(shape) and x.flags.writeable:
                return x
        return make_array(rng, rdt, shape, allow_zero=False)
    if kind == "garbage":
        g = pick(draw, GARBAGE_OUTS)
        if isinstance(g, str) and g == "array-in-list":
            return [np.zeros(shape, rdt)]
        if isinstance(g, str) and g == "array-and-none":
            return (np.zeros(shape, rdt), None)
        if isinstance(g, str) and g == "nested-list":
            return np.zeros(shape, rdt).tolist()
        return g
    raise AssertionError(kind)


def mode_value(draw, rng, mode):
    """A spelling of `mode` (random case, enum member) or ABSENT for the default."""
    if mode == "numpy" and rng.random() < 0.4:
        return ABSENT
    if rng.random() < 0.2:
        return {"numpy": eltwise.Broadcast.NUMPY, "none": eltwise.Broadcast.NONE,
                "pdpd": eltwise.Broadcast.PDPD}[mode]
    word = "explicit" if (mode == "none" and rng.random() < 0.4) else mode
    word = "".join(c.upper() if rng.random() < 0.3 else c for c in word)
    if rng.random() < 0.05:
        word = np.str_(word)
    return word


def axis_value(draw, rng, axis, r1):
    """axis (an int) as one of the types that carry it."""
    how = rng.integers(0, 10)
    if how == 0:
        return np.int64(axis)
    if how == 1 and -(2**31) <= axis < 2**31:
        return np.int32(axis)
    if how == 2 and 0 <= axis < 2**64:
        return np.uint64(axis)
    if how == 3 and -128 <= axis < 128:
        return np.int8(axis)
    return axis


def garbage_axis(draw, rng, r1):
    if rng.random() < 0.15:
        return int(rng.integers(-3, r1 + 4))
    return draw(AXIS_ST)


def pythondiv_value(draw, rng):
    return pick(draw, PYTHONDIV_VALUES)


def dtype_value(draw, rng, good_p=0.7):
    if rng.random() < good_p:
        return pick(draw, SUPPORTED_DTYPE_VALUES)
    return pick(draw, BAD_DTYPE_VALUES)


def op_value(draw, rng, fn, garbage_p=0.0):
    """How to name fn for elementwise."""
    if rng.random() < garbage_p:
        return draw(GARBAGE_OP_ST)
    names = [m for m, v in TRT_OPS.items() if v == fn]
    choice = rng.integers(0, 4)
    if choice == 0 and names:
        return eltwise.Op[names[0]]
    if choice == 1 and names:
        w = names[0]
    else:
        w = fn
    return "".join(c.swapcase() if rng.random() < 0.3 else c for c in w)


@dataclass
class Profile:
    operand_kinds: list
    shape_families: list
    dtype_kw_p: float = 0.1
    dtype_good_p: float = 0.9
    pythondiv_p: float = 0.2
    odd_pythondiv_p: float = 0.0
    out_kinds: list = field(default_factory=lambda: ["none"])
    mode_garbage_p: float = 0.0
    axis_garbage_p: float = 0.0
    unknown_kw_p: float = 0.0
    nargs_p: float = 0.0
    elementwise_p: float = 0.15
    op_garbage_p: float = 0.0
    same_dtype_p: float = 0.5
    power_fix_p: float = 0.85
    cap: int = 256


@st.composite
def case_st(draw, prof: Profile):
    rng = np.random.default_rng(draw(SEED_ST))
    fn = pick(draw, FUNCTIONS)
    family = pick(draw, prof.shape_families)
    s1, s2, axis = shape_pair(draw, rng, family, cap=prof.cap)
    mode = (pick(draw, MODES3) if family in ("same", "random") else
            "numpy" if family == "large" else family)
    dt1 = pick(draw, SUPPORTED)
    dt2 = dt1 if rng.random() < prof.same_dtype_p else pick(draw, SUPPORTED)
    fix = fn == "power" and rng.random() < prof.power_fix_p
    x1 = draw_operand(draw, rng, dt1, s1, kinds=prof.operand_kinds)
    x2 = draw_operand(draw, rng, dt2, s2, kinds=prof.operand_kinds, small_nonneg=fix)
    kwargs = {}
    # broadcast
    if rng.random() < prof.mode_garbage_p:
        kwargs["broadcast"] = draw(GARBAGE_MODE_ST)
    else:
        mv = mode_value(draw, rng, mode)
        if mv is not ABSENT:
            kwargs["broadcast"] = mv
    # axis
    if rng.random() < prof.axis_garbage_p:
        kwargs["axis"] = garbage_axis(draw, rng, len(s1))
    elif mode == "pdpd" and axis is not ABSENT and not (axis == -1 and rng.random() < 0.5):
        kwargs["axis"] = axis_value(draw, rng, axis, len(s1))
    elif rng.random() < 0.05:
        kwargs["axis"] = axis_value(draw, rng, -1, len(s1))
    # dtype
    dtype_kw = ABSENT
    if rng.random() < prof.dtype_kw_p:
        dtype_kw = dtype_value(draw, rng, prof.dtype_good_p)
        kwargs["dtype"] = dtype_kw
    # pythondiv
    if rng.random() < prof.odd_pythondiv_p:
        kwargs["pythondiv"] = pythondiv_value(draw, rng)
    elif fn == "divide" and rng.random() < prof.pythondiv_p:
        kwargs["pythondiv"] = bool(rng.random() < 0.5) if rng.random() < 0.8 else \
            (np.True_ if rng.random() < 0.5 else np.False_)
    # out
    shape, rdt = nominal(fn, x1, x2, mode, axis, None if dtype_kw is ABSENT else dtype_kw)
    out = draw_out(draw, rng, shape, rdt, x1, x2, kinds=prof.out_kinds)
    # unknown keywords
    if rng.random() < prof.unknown_kw_p:
        for _ in range(int(rng.integers(1, 3))):
            name = draw(UNKNOWN_KW_ST)
            kwargs[name] = pick(draw, KW_VALUES)
    # assemble: elementwise or the function; out positional or keyword
    use_ew = rng.random() < prof.elementwise_p
    args = [x1, x2]
    if use_ew:
        args.append(op_value(draw, rng, fn, prof.op_garbage_p))
    out_pos = out is not ABSENT and rng.random() < 0.3
    if out is not ABSENT:
        if out_pos:
            args.append(out)
            if rng.random() < 0.05:
                kwargs["out"] = out  # given twice
        else:
            kwargs["out"] = out
    if rng.random() < prof.nargs_p:
        args = args[:int(rng.integers(0, 2))] if rng.random() < 0.5 else \
            args + [None] * int(rng.integers(1, 3))
    items = list(kwargs.items())
    rng.shuffle(items)
    return Case(
        "elementwise" if use_ew else fn,
        tuple(args),
        dict(items),
        divide=pick(draw, DIVIDE_STATES),
        other=pick(draw, OTHER_STATES),
        target=pick(draw, TARGET_CHOICES),
        threads=pick(draw, THREAD_CHOICES) if family == "large" else None,
    )


@st.composite
def overlap_case_st(draw):
    """out sharing memory with x1 (or x2): shifted, reversed, other dtype, partial."""
    rng = np.random.default_rng(draw(SEED_ST))
    fn = pick(draw, FUNCTIONS)
    large = rng.random() < 0.1  # split across threads
    shape = large_shape(rng) if large else draw_shape(draw, rng, max_rank=6, cap=64)
    dt = pick(draw, SUPPORTED)
    odt = dt if rng.random() < 0.6 else pick(draw, SUPPORTED)
    p_in = plan_layout(shape, dt.itemsize, rng, LAYOUT_KINDS[rng.integers(len(LAYOUT_KINDS))])
    p_out = plan_layout(shape, odt.itemsize, rng, ["C", "F", "perm", "neg", "step"][
        rng.integers(5)], allow_zero=False)
    span = max(p_in.span, p_out.span) + 16
    buf = new_buffer(rng, 2 * span)
    o_in = GUARD + int(rng.integers(0, span))
    lo = max(0, o_in - GUARD - p_out.span)
    o_out = GUARD + int(rng.integers(lo, min(o_in - GUARD + p_in.span, span) + 1))
    if rng.random() < 0.5:
        o_out = o_in if rng.random() < 0.5 else o_out
    swap_in = rng.random() < 0.1 and dt.itemsize > 1 and dt != BF16
    xin = view_in(buf, o_in, shape, dt.newbyteorder("S") if swap_in else dt, p_in)
    out = view_in(buf, o_out, shape, odt, p_out)
    fill(xin, np.broadcast_to(gen_values(rng, dt, tuple(
        1 if a in p_in.zero_axes else n for a, n in enumerate(shape))), shape), p_in)
    other_shape = derive_broadcastable(rng, shape) if rng.random() < 0.5 else shape
    other = make_array(rng, dt if rng.random() < 0.7 else pick(draw, SUPPORTED),
                       other_shape, small_nonneg=fn == "power")
    if fn == "power" and is_int(dt):
        fill(xin, np.broadcast_to((gen_values(rng, dt, tuple(
            1 if a in p_in.zero_axes else n for a, n in enumerate(shape))).astype(np.int64)
            % 40).astype(dt), shape), p_in)
    first = rng.random() < 0.5 or fn == "power"
    x1, x2 = (xin, other) if first else (other, xin)
    if broadcast_shapes(x1.shape, x2.shape) != shape:
        x1, x2 = xin, other
    use_ew = rng.random() < 0.15
    kwargs = {"out": out} if rng.random() < 0.7 else {}
    args = [x1, x2] + ([op_value(draw, rng, fn)] if use_ew else [])
    if not kwargs:
        args.append(out)
    return Case(
        "elementwise" if use_ew else fn,
        tuple(args), kwargs,
        divide=pick(draw, DIVIDE_STATES),
        other="ignore",
        target=pick(draw, TARGET_CHOICES),
        threads=pick(draw, THREAD_CHOICES) if large else None,
    )


@st.composite
def huge_case_st(draw):
    """Zero-size results with huge extents elsewhere (x2 a zero-stride view of a few bytes),
    wild strides on extent-1 axes: shape, size and stride arithmetic near the int64 limit."""
    rng = np.random.default_rng(draw(SEED_ST))
    fn = pick(draw, FUNCTIONS)
    dt = pick(draw, SUPPORTED)
    # 2**50 to 2**59 elements: NumPy accepts such a view (bytes < 2**63) and no machine
    # can allocate it, so a copy of the view fails at once instead of filling memory
    nbig = int(rng.integers(1, 4))
    total = int(rng.integers(50, 60))
    cuts = sorted(int(c) for c in rng.integers(1, total, nbig - 1))
    exps = [b - a for a, b in zip([0] + cuts, cuts + [total])]
    bigs = [int(2**e + (rng.integers(0, 2) if e > 1 else 0)) for e in exps if e > 0]
    nbig = len(bigs)
    lead = int(rng.integers(0, 3))
    rank_pad = int(rng.integers(0, 50)) if rng.random() < 0.3 else 0
    s1 = tuple([1] * rank_pad + [0] + [1] * lead + [1] * nbig)
    if rng.random() < 0.5:  # x1 itself zero-size but with the big extents
        s1 = tuple([1] * rank_pad + [0] + [1] * lead + bigs)
    s2 = tuple(bigs)
    x1 = make_array(rng, dt, s1, kind=pick(draw, HUGE_X1_KINDS))
    dt2 = dt if rng.random() < 0.5 else pick(draw, SUPPORTED)
    small = make_array(rng, dt2, (1,) * len(s2))
    x2 = np.broadcast_to(small, s2)
    if rng.random() < 0.3:
        x2 = np.lib.stride_tricks.as_strided(small, s2, (0,) * len(s2), writeable=False)
    kwargs = {}
    mode = pick(draw, MODES3)
    if mode != "numpy" or rng.random() < 0.3:
        kwargs["broadcast"] = mode
    if mode == "pdpd" and rng.random() < 0.7:
        kwargs["axis"] = int(rng.integers(-1, len(s1) + 2)) if rng.random() < 0.5 else \
            draw(AXIS_ST)
    if rng.random() < 0.3:
        shape = broadcast_shapes(s1, s2) if mode == "numpy" else s1
        kwargs["out"] = make_array(rng, dt if fn not in BOOL_RESULT_OPS else np.dtype(bool),
                                   shape, kind="C")
    if rng.random() < 0.5:
        x1, x2 = (x2, x1) if mode == "numpy" else (x1, x2)
    return Case(fn, (x1, x2), kwargs, divide=pick(draw, DIVIDE_STATES), other="ignore",
                target=pick(draw, TARGET_CHOICES))


# ---------------------------------------------------------------------------
# the properties

ALL_OUT_KINDS = ["none", "none", "None", "exact", "exact", "tuple1", "castable", "castable",
                 "wrong-shape", "readonly", "alias", "garbage", "self-overlap"]
VALUE_KINDS = ["array"] * 8 + ["0d", "generic", "pyscalar", "list"]
ALL_KINDS = (["array"] * 6 + ["0d", "generic", "pyscalar", "pyscalar", "list", "tuple",
                              "memoryview", "empty-list", "unsupported-array", "other"])

VALUES = Profile(operand_kinds=VALUE_KINDS,
                 shape_families=["same", "numpy", "numpy", "pdpd"] * 8 + ["large"],
                 dtype_kw_p=0.1, pythondiv_p=0.5, out_kinds=["none"] * 4 + ["exact", "castable"])
OPERAND_KINDS = Profile(operand_kinds=ALL_KINDS, shape_families=["same", "numpy", "random"],
                        dtype_kw_p=0.15, out_kinds=["none"] * 5 + ["exact", "castable"])
BROADCAST_AXIS = Profile(operand_kinds=VALUE_KINDS, shape_families=["pdpd", "pdpd", "same",
                                                                    "numpy", "random"],
                         mode_garbage_p=0.3, axis_garbage_p=0.5, cap=128,
                         out_kinds=["none"] * 3 + ["exact", "wrong-shape"])
OUT = Profile(operand_kinds=VALUE_KINDS, shape_families=["same", "numpy", "pdpd"] * 8 + ["large"],
              dtype_kw_p=0.1, out_kinds=ALL_OUT_KINDS[2:], cap=128)
KEYWORDS = Profile(operand_kinds=VALUE_KINDS + ["unsupported-array", "other"],
                   shape_families=["same", "numpy", "pdpd", "random"], dtype_kw_p=0.4,
                   dtype_good_p=0.5, odd_pythondiv_p=0.4, mode_garbage_p=0.15,
                   axis_garbage_p=0.15, unknown_kw_p=0.4, nargs_p=0.05, elementwise_p=0.4,
                   op_garbage_p=0.3, out_kinds=ALL_OUT_KINDS, cap=64)
LAYOUT = Profile(operand_kinds=["array"] * 6 + ["0d", "pyscalar"],
                 shape_families=["same", "numpy", "numpy", "pdpd"], cap=128)
EVERYTHING = Profile(operand_kinds=ALL_KINDS,
                     shape_families=["same", "numpy", "pdpd", "random"] * 8 + ["large"],
                     dtype_kw_p=0.2, dtype_good_p=0.8, pythondiv_p=0.5, odd_pythondiv_p=0.1,
                     out_kinds=ALL_OUT_KINDS, mode_garbage_p=0.1, axis_garbage_p=0.15,
                     unknown_kw_p=0.1, nargs_p=0.02, elementwise_p=0.3, op_garbage_p=0.1)


# The properties that feed garbage keywords come last: an input that kills the process
# (issue 7 item 2) then costs the fewest results.


@fuzz_settings("values")
@given(case=case_st(VALUES))
def test_fuzz_values(case):
    """Supported dtypes in every layout and broadcast mode: results match NumPy."""
    run_case(case)


@fuzz_settings("operand_kinds")
@given(case=case_st(OPERAND_KINDS))
def test_fuzz_operand_kinds(case):
    """Python scalars (huge ints), NumPy scalars, 0-d, lists, tuples, memoryviews, empty
    lists, unsupported dtypes and objects, on either side."""
    run_case(case)


@fuzz_settings("out")
@given(case=st.one_of(case_st(OUT), overlap_case_st()))
def test_fuzz_out(case):
    """out of every kind: exact, castable, strided, unaligned, byte-swapped, aliasing or
    overlapping an input, wrong shape, read-only, not castable, not an array."""
    run_case(case)


@fuzz_settings("huge_shapes")
@given(case=huge_case_st())
def test_fuzz_huge_shapes(case):
    """Empty results beside extents near the int64 limit; wild strides."""
    run_case(case)


@fuzz_settings("layout")
@given(case=case_st(LAYOUT))
def test_fuzz_result_layout(case):
    """docs/semantics.md: "Operands and dtypes": the result is laid out as NumPy's order='K' lays out a ufunc's result."""
    run_case(case, layout=True)


def _known(fname, *args, divide="ignore", other="ignore", **kwargs):
    return Case(fname, args, kwargs, divide=divide, other=other)


def _known_cases():
    """Inputs known to have broken a build (issue 7's list and what this fuzzer found), run
    through the same oracle on every run, whatever the random draws."""
    f4, f8 = np.float32, np.float64
    pdpd_x1 = np.zeros((2, 3, 4))
    pdpd_x2 = np.array([[100.0, 200.0, 300.0]])
    a = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    cases = [
        ("item1-pdpd-axis-2**63-2",
         _known("add", pdpd_x1, pdpd_x2, broadcast="pdpd", axis=2**63 - 2)),
        ("item1-pdpd-axis-2**63-1-out",
         _known("multiply", pdpd_x1, pdpd_x2, broadcast="pdpd", axis=2**63 - 1,
                out=np.full((2, 3, 4), 42.0))),
        ("item1-pdpd-axis-2**62", _known("less", pdpd_x1, np.ones((1, 3, 1)),
                                         broadcast="pdpd", axis=2**62)),
        ("item5-out-nul-keyword", _known("add", np.ones(2), np.ones(2),
                                         **{"out\x00junk": np.zeros(2)})),
        ("item5-broadcast-nul-keyword", _known("add", np.ones(2), np.ones(2),
                                               **{"broadcast\x00": "bogus"})),
        ("item5-surrogate-keyword", _known("add", np.ones(2), np.ones(2), **{"\ud800": 1})),
        ("item5-mode-nul", _known("add", np.ones(2), np.ones(2), broadcast="numpy\x00garbage")),
        ("item6-axis-np.int64", _known("add", np.zeros((2, 3)), np.arange(3.0),
                                       broadcast="pdpd", axis=np.int64(1))),
        ("item6-axis-np.uint8", _known("add", np.zeros((2, 3)), np.arange(2.0).reshape(2, 1),
                                       broadcast="pdpd", axis=np.uint8(0))),
        ("item6-pythondiv-str", _known("divide", -7, 2, pythondiv="False")),
        ("item6-pythondiv-int", _known("divide", np.array([-7]), 2, pythondiv=0)),
        ("item6-pythondiv-array", _known("divide", np.array([-7]), 2,
                                         pythondiv=np.array([False]))),
        ("item7-elementwise-floor-div", _known("elementwise", np.array([-7, 7]), 2,
                                               "FLOOR_DIV", pythondiv=False)),
        ("item7-elementwise-mod", _known("elementwise", np.array([-7, 7]), 2, "mod",
                                         pythondiv=True)),
        ("item9-divide-int64-uint64", _known("divide", np.array([-7, 7]),
                                             np.array([2, 2], np.uint64))),
        ("item9-divide-uint64-int16-trunc", _known("divide", np.array([7], np.uint64),
                                                   np.array([-2], np.int16), pythondiv=False)),
        ("dtype-surrogate", _known("add", 1, 2, dtype="\ud800")),
        ("dtype-surrogate-suffix", _known("add", np.ones(2), 2, dtype="float32\ud800")),
        ("cast-fpe-leaves-out-untouched", _known("add", np.array([1.0, 1e300]), 0.0,
                                                 other="raise", out=np.zeros(2, np.float16))),
        ("empty-result-broadcast-view-cast",
         _known("add", np.empty((0, 1), f4), np.broadcast_to(np.int8(1), (2**50,)))),
        ("empty-result-broadcast-view-swapped",
         _known("add", np.empty((0, 1), f8), np.broadcast_to(np.array(1.0, ">f8"), (2**50,)))),
        ("python-int-with-unsigned-dtype", _known("add", 5, np.array([1], np.uint8),
                                                  dtype=np.uint64)),
        ("python-int-with-unsigned-dtype-16", _known("subtract", np.array([9], np.uint8), 300,
                                                     dtype=np.uint16)),
        ("layout-fortran", _known("add", a, a)),
        ("layout-transposed-with-scalar",
         _known("multiply", np.arange(6.0).reshape(3, 2).T, 2.0)),
    ]
    for dt in (np.float16, f4, f8, BF16):
        z = np.zeros(5, dt)
        nz = np.array([-0.0] * 5, dt)
        for name in ("maximum", "minimum"):
            cases.append((f"item8-{name}-{np.dtype(dt).name}", _known(name, z, nz)))
            cases.append((f"item8-{name}-{np.dtype(dt).name}-swapped", _known(name, nz, z)))
    cases.append(("item8-minimum-int-vs-float64-zero", _known("minimum", np.array([0, 1]),
                                                             np.float64(-0.0))))
    return cases


KNOWN = _known_cases()


@pytest.mark.parametrize("case, layout", [
    pytest.param(c, i.startswith("layout-"), id=i) for i, c in KNOWN])
def test_fuzz_known_inputs(case, layout):
    """Fixed regression inputs for the properties above (issue 7 and this fuzzer's finds);
    those whose id starts with 'layout-' check P6 too."""
    run_case(case, layout=layout)


@fuzz_settings("keywords")
@given(case=case_st(KEYWORDS))
def test_fuzz_keywords(case):
    """Odd keyword names and values, dtype=, pythondiv=, positional counts, elementwise's
    op names (garbage included)."""
    run_case(case)


@fuzz_settings("broadcast_axis")
@given(case=case_st(BROADCAST_AXIS))
def test_fuzz_broadcast_and_axis(case):
    """Every mode spelling and garbage modes; axis across the whole int64 range and beyond,
    in every type that carries an int; pdpd shapes up to 64 dimensions."""
    run_case(case)


@fuzz_settings("everything")
@given(case=st.one_of(case_st(EVERYTHING), overlap_case_st()))
def test_fuzz_everything(case):
    """All of the above at once."""
    run_case(case)


def test_fuzz_known_process_abort():
    """issue 7 item 2: a mode with a lone surrogate aborted the interpreter (C++ exception
    through the C API). In process on purpose: if it still aborts, the run dies here."""
    run_case(_known("add", 1, 2, broadcast="\ud800"))
    run_case(_known("divide", np.ones(3), np.ones(3), broadcast="pdpd\udcff",
                    out=np.zeros(3)))


def report_line():
    """The fuzz run in one line (calls, seconds, seed), printed after the tests by
    conftest.py's pytest_terminal_summary: a report, not a test."""
    total = sum(STATS["seconds"].values())
    per = ", ".join(f"{k} {STATS['examples'].get(k, 0)} calls/{STATS['seconds'][k]:.1f}s"
                    for k in STATS["seconds"])
    seed = (f" [ELTWISE_FUZZ_EXAMPLES={_ENV_EXAMPLES}, ELTWISE_FUZZ_SEED={SEED}]" if LONG_RUN
            else " [derandomized]")
    return (f"eltwise fuzz: {STATS['calls']} calls ({STATS['raised']} raised), properties "
            f"{total:.1f} s{seed}; {per}")