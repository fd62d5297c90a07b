"""Leaks (issue 7; docs/semantics.md: "Errors": "No input makes the process crash, hang or leak").

Every public binary function (``ew_helpers.ALL_OPS`` and ``eltwise.elementwise``) is
called many times on each success path and each error path. After each loop, the
reference count of everything the calls were handed (operands, list elements, object
array elements, views' bases, ``out`` and its tuple, every keyword value, the
function itself) and of the shared singletons the calls touch (the NumPy dtypes,
bfloat16's dtype, the ``Broadcast`` and ``Op`` members, ``True``/``False``, every
public function) must be what it was before the loop: no reference gained (a leak)
and none lost (an extra decref, a crash waiting to happen). A one-off reference
taken on first use (a cache) is allowed: each case is warmed up before the baseline.

A second group runs thousands of mixed success and error calls and bounds the growth
of Python's allocations (tracemalloc; NumPy's array data goes through its hooks too)
and of the process (RSS from /proc/self/statm and, with glibc, malloc's bytes in use:
C++ ``new`` is invisible to tracemalloc).

Error classes are checked (class only; messages are not this file's business): a case
that does not raise what the contract says is reported along with the leaks, so one
run lists every case of a function that is wrong.
"""

from __future__ import annotations

import array
import ctypes
import functools
import gc
import os
import subprocess
import sys
import tracemalloc
from dataclasses import dataclass

import numpy as np
import pytest

import eltwise
from ew_cases import (
    ALLOWED_EXCEPTIONS as ALLOWED, EITHER, SUCCESS, Case, CaseFailure, Err, attempt, call,
    conditions, judge, outcomes_text,
)
from ew_helpers import (
    ALL_DTYPES, ALL_OPS, BF16, BITWISE_OPS, BOOL_RESULT_OPS, COMPARISON_OPS, INT_DIV_OPS,
    NO_BOOL_OPS,
)

FUNCTIONS = [*ALL_OPS, "elementwise"]

N_CALLS = 500  # calls per case (after a 3-call warm-up)
N_LARGE = 30  # calls per case on arrays large enough to run on the thread pool
WARM_UP = 3

# From ew_cases: ALLOWED, what may escape any call (issue 7); EITHER, what the "either
# works or is refused" cases accept (where docs/semantics.md leaves the choice open).


# ---------------------------------------------------------------------------
# Objects only this file holds, so that their reference counts say exactly what
# eltwise did with them.


def _int(v: int) -> int:
    """A fresh int object (outside the small-int cache when |v| > 256)."""
    return int(str(v))


def _float(v: float) -> float:
    return float(str(v))


def _s(text: str) -> str:
    """A fresh, non-interned str."""
    return "".join(list(text)) if len(text) > 1 else str(text)


def ints(shape=(3, 4), dtype=np.int32, start=1) -> np.ndarray:
    n = int(np.prod(shape))
    return np.arange(start, start + n, dtype=dtype).reshape(shape)


def ivec(dtype=np.int32) -> np.ndarray:
    return np.array([1, 2, 3, 4], dtype)


def floats() -> np.ndarray:
    return np.linspace(0.5, 6.0, 12).reshape(3, 4)


def fvec() -> np.ndarray:
    return np.array([1.5, 2.0, 2.5, 3.0], np.float32)


def unaligned_ints() -> np.ndarray:
    buf = np.zeros(12 * 4 + 1, np.uint8)
    a = buf[1:].view(np.int32).reshape(3, 4)
    a[...] = ints()
    assert not a.flags.aligned
    return a


def readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _on_divide_error(kind, flag):
    """numpy.errstate(call=...) callback."""


class _ErrLog:
    """numpy.errstate(divide='log') writer."""

    def write(self, text):
        pass


def errstate(divide: str, *, call=None, warn_action: str | None = None) -> dict:
    """A case's conditions: numpy.errstate(divide=..., call=...), optionally with a
    warnings filter."""
    return {"divide": divide, "errcall": call, "warning_filter": warn_action}


def _singletons():
    """Shared objects whose counts are checked after every case."""
    out = []
    names = [dt.name for dt in ALL_DTYPES if dt != BF16] + ["complex64", "complex128", "object"]
    if np.dtype(np.longdouble) != np.dtype(np.float64):
        names.append("longdouble")
    for n in names:
        out.append((f"np.dtype({n!r})", np.dtype(n)))
    out.append(("bfloat16 dtype", BF16))
    out += [(f"eltwise.Broadcast.{m.name}", m) for m in eltwise.Broadcast]
    out += [(f"eltwise.Op.{m.name}", m) for m in eltwise.Op]
    out += [("True", True), ("False", False)]
    out += [(f"eltwise.{n}", getattr(eltwise, n)) for n in FUNCTIONS]
    return out


SINGLETONS = _singletons()


# ---------------------------------------------------------------------------
# Cases


def _outcomes(expect) -> tuple:
    """A case's `expect` as outcomes: None (success), an exception class or a tuple of
    them (each call raises one), or outcomes already (EITHER)."""
    if expect is None:
        return (SUCCESS,)
    if isinstance(expect, type):
        return (Err(expect),)
    if all(isinstance(e, type) for e in expect):
        return (Err(*expect),)
    return tuple(expect)


@dataclass(eq=False, repr=False)
class LeakCase(Case):
    """An ew_cases.Case called many times, each call judged against `expect`.

    expect: None (must succeed), an exception class or tuple (each call must raise
    one of them), or EITHER (succeeds or raises one of ALLOWED); stored as outcomes.
    n: how many calls are counted (after a warm-up of WARM_UP).
    guard: Python source run once in a subprocess first; if it kills the interpreter
    the case is reported and not run here (it would end the whole session).
    unsafe: memory corruption on 0.1.0; excluded from the memory-growth loops.
    """

    expect: object = None
    n: int = N_CALLS
    guard: str | None = None
    unsafe: bool = False

    def __post_init__(self):
        self.args = tuple(self.args)
        self.kwargs = dict(self.kwargs or {})
        self.expect = _outcomes(self.expect)
        self.unsafe = self.unsafe or self.guard is not None

    def repeat(self, n: int, *, observe: bool = False) -> None:
        """n calls (inside ew_cases.conditions), each judged against `expect`; the
        first failure is raised. observe: any outcome is accepted (see run_case)."""
        for _ in range(n):
            got, exc = attempt(self)
            if not observe:
                failure = judge(exc, self.expect, result=got)
                if failure is not None:
                    raise failure

    def tracked(self):
        """(label, object) for everything this case hands to the call, plus singletons."""
        seen: dict[int, tuple[str, object]] = {}

        def add(label, o):
            if id(o) in seen or o is None:
                return
            seen[id(o)] = (label, o)
            if isinstance(o, (list, tuple)):
                for i, x in enumerate(o):
                    add(f"{label}[{i}]", x)
            elif isinstance(o, np.ndarray):
                if o.base is not None:
                    add(f"{label}.base", o.base)
                if o.dtype == object:
                    for i, x in enumerate(o.flat):
                        add(f"{label}.flat[{i}]", x)

        add("the function", self.function)
        for i, a in enumerate(self.args):
            add(f"positional argument {i}", a)
        for k, v in self.kwargs.items():
            add(f"keyword {k!r}", v)
        add("errstate callback/writer", self.errcall)
        for label, o in SINGLETONS:
            add(label, o)
        return list(seen.values())


def leak_case(label, fname, args, kwargs=None, *, state=None, **knobs) -> LeakCase:
    """LeakCase(fname, args, kwargs) labelled; state: errstate(...)'s conditions; knobs:
    expect, n, guard, unsafe."""
    return LeakCase(fname, args, kwargs or {}, label=label, **(state or {}), **knobs)


def _counts(objs) -> "array.array":
    """Reference counts, stored as raw machine integers: a list of Python ints would
    hold a reference to a small int that may be a tracked object (axis=5), and a
    NumPy array would hold one to np.dtype('int64')."""
    gc.collect()
    return array.array("q", [sys.getrefcount(o) for o in objs])


@functools.lru_cache(maxsize=None)
def _survives(code: str) -> int:
    """Exit status of `code` run in a fresh interpreter with the same eltwise."""
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(eltwise.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          timeout=120, check=False)
    return proc.returncode


def _measure(case: LeakCase, *, observe: bool = False) -> list[str]:
    """Runs the case (warm-up, baseline, n calls); returns the reference-count changes."""
    tracked = case.tracked()
    objs = [o for _, o in tracked]
    with conditions(case):
        case.repeat(WARM_UP, observe=observe)
        before = _counts(objs)
        case.repeat(case.n, observe=observe)
        after = _counts(objs)
    del objs
    leaks = []
    for (label, o), b, a in zip(tracked, before.tolist(), after.tolist()):
        if a != b:
            d = a - b
            kind = "gained" if d > 0 else "LOST"
            leaks.append(f"{label} ({type(o).__name__} {_short_repr(o)}) {kind} {abs(d)} "
                         f"references over {case.n} calls ({d / case.n:+.3g} per call)")
    return leaks


def run_case(case: LeakCase) -> str | None:
    """Runs the case; returns a description of what went wrong, or None.

    A case whose outcome is wrong (no exception, or another class) is reported as
    such, and then run again accepting any outcome, so that its reference counts
    are checked all the same (unless it is unsafe)."""
    head = f"{case.label} [expects {outcomes_text(case.expect)}]"
    if case.guard is not None:
        rc = _survives(case.guard)
        if rc != 0:
            return f"{head}: kills the interpreter (exit status {rc}) in a subprocess; not run here"
    what = None
    try:
        leaks = _measure(case)
    except Exception as e:  # noqa: BLE001 - reported below
        if isinstance(e, CaseFailure):  # "raised X: ..." or "DID NOT RAISE: returned ..."
            what = (str(e).splitlines() or [""])[0][:200]
        else:
            what = f"raised {type(e).__name__}: {str(e)[:160]}"
        del e
    if what is not None:
        if case.unsafe:
            return f"{head}: {what}"
        # Outside the except block: its exception's traceback holds _measure's frame.
        leaks = _measure(case, observe=True)
        also = "; and, whatever the outcome, " + "; ".join(leaks) if leaks else ""
        return f"{head}: {what}{also}"
    if leaks:
        return f"{head}: " + "; ".join(leaks)
    return None


def _short_repr(o) -> str:
    if isinstance(o, np.ndarray):
        return f"shape={o.shape} dtype={o.dtype}"
    r = repr(o)
    return r if len(r) <= 40 else r[:37] + "..."


# ---------------------------------------------------------------------------
# The cases of one function.


def build_cases(name: str, fn: str, pre=()):
    """(success cases, error cases) of eltwise.<fn> called as fn(x1, x2, *pre, *rest, **kw),
    with the semantics of eltwise.<name>."""
    success: list[LeakCase] = []
    errors: list[LeakCase] = []
    bool_res = name in BOOL_RESULT_OPS
    bitwise = name in BITWISE_OPS
    rdt_i = np.bool_ if bool_res else np.int32  # result dtype of int32 operands
    rdt_f = np.bool_ if bool_res else np.float64  # ... of float64 operands

    def ok(label, x1, x2, /, *rest, expect=None, state=None, n=N_CALLS, **kw):
        success.append(leak_case(label, fn, (x1, x2, *pre, *rest), kw, expect=expect,
                                 state=state, n=n))

    def err(label, expect, x1, x2, /, *rest, state=None, n=N_CALLS, guard=None, unsafe=False,
            **kw):
        errors.append(leak_case(label, fn, (x1, x2, *pre, *rest), kw, expect=expect,
                                state=state, n=n, guard=guard, unsafe=unsafe))

    # With dtype=, docs/semantics.md is clear for arithmetic and bitwise functions; for the
    # bool-result functions NumPy refuses dtype= and docs/semantics.md leaves it open.
    forced = EITHER if bool_res else None

    # -- success: operands ----------------------------------------------------
    ok("int32 arrays (3,4) and (4,)", ints(), ivec())
    ok("int32 arrays of one shape", ints(), ints(start=5))
    ok("int16 (3,4) with uint8 (4,) (promotion)", ints(dtype=np.int16), ivec(np.uint8))
    ok("int32 array, Python int", ints(), _int(1001))
    ok("Python int, int32 array", _int(1001), ints())
    ok("Python bool, int32 array", True, ints())
    ok("two Python ints", _int(300), _int(7))
    ok("two lists of Python ints", [_int(1001), _int(1002), _int(1003)],
       [_int(2001), _int(2002), _int(2003)])
    ok("int32 array, list", ints(), [_int(1001), _int(1002), _int(1003), _int(1004)])
    ok("nested list, int32 array", [[_int(1001)] * 4, [_int(1002)] * 4, [_int(1003)] * 4], ivec())
    ok("two int32 0-d arrays", np.array(7, np.int32), np.array(3, np.int32))
    ok("int32 array, int64 0-d array", ints(), np.array(3, np.int64))
    ok("np.int32 scalar, int32 array", np.int32(7), ints())
    ok("byte-swapped int32 operands", ints().astype(">i4"), ivec().astype(">i4"))
    ok("negative and non-unit strides", ints((3, 8))[:, ::-2], ivec()[::-1])
    ok("unaligned int32 operand", unaligned_ints(), ivec())
    ok("zero-stride (broadcast_to, read-only) operand", ints(), np.broadcast_to(ivec(), (3, 4)))
    ok("Fortran-ordered operands", np.asfortranarray(ints()), np.asfortranarray(ints(start=3)))
    ok("empty operand (0,4)", np.empty((0, 4), np.int32), ivec())
    ok("bool array, int32 array", np.array([True, False, True, True]), ints())
    if name not in NO_BOOL_OPS:
        ok("two bool arrays", np.array([True, False, True]), np.array([False, True, True]))
    ok("large int64 arrays (128,128) and (128,) (thread pool)", ints((128, 128), np.int64),
       np.arange(1, 129, dtype=np.int64), n=N_LARGE)
    if not bitwise:
        ok("float64 (3,4) and float32 (4,)", floats(), fvec())
        ok("float64 array, Python float", floats(), _float(2.5))
        ok("Python float, float64 array", _float(2.5), floats())
        ok("two Python floats", _float(2.5), _float(1.5))
        ok("int32 array, Python float", ints(), _float(1.5))
        ok("list of Python floats, float32 array",
           [_float(0.5), _float(1.5), _float(2.5), _float(3.5)], fvec())
        ok("float64 0-d array, float32 array", np.array(2.5), fvec())
        ok("float16 arrays", floats().astype(np.float16), fvec().astype(np.float16))
        ok("bfloat16 arrays", floats().astype(BF16), fvec().astype(BF16))
        ok("bfloat16 with float32 array", floats().astype(BF16), fvec())
        ok("bfloat16 array, Python float", floats().astype(BF16), _float(1.5))
        mixed_a = np.array([-3, 5, -(2**62), 2**62, 7, 9], np.int64)
        # 2**63 is past int64 (the comparisons' exact path); power: no float overflow.
        mixed_b = np.array([2 if name == "power" else 2**63, 5, 3, 1, 2, 7], np.uint64)
        ok("int64 with uint64 (mixed signs)", mixed_a, mixed_b)
        ok("uint64 with int64, out=", mixed_b, mixed_a, out=np.empty(6, rdt_f))
        ok("large float64 arrays (thread pool), out=",
           np.linspace(0.5, 9.0, 128 * 128).reshape(128, 128), np.arange(1.0, 129.0),
           out=np.empty((128, 128), rdt_f), n=N_LARGE)

    # -- success: out= --------------------------------------------------------
    ok("out positional", ints(), ivec(), np.empty((3, 4), rdt_i))
    ok("out keyword", ints(), ivec(), out=np.empty((3, 4), rdt_i))
    ok("out keyword 1-tuple", ints(), ivec(), out=(np.empty((3, 4), rdt_i),))
    ok("out positional 1-tuple", ints(), ivec(), (np.empty((3, 4), rdt_i),))
    ok("out=None keyword", ints(), ivec(), out=None)
    ok("out float64 (cast)", ints(), ivec(), out=np.empty((3, 4), np.float64))
    ok("out non-contiguous", ints(), ivec(), out=np.empty((3, 8), rdt_i)[:, ::2])
    ok("out byte-swapped", ints(), ivec(), out=np.empty((3, 4), np.dtype(rdt_i).newbyteorder()))
    ok("out 0-d with 0-d operands", np.array(7, np.int32), np.array(3, np.int32),
       out=np.empty((), rdt_i))
    a = ints()
    ok("out is x1", a, ivec(), out=a)
    b = ints()
    if name == "power":  # 1 ** b keeps b non-negative
        ok("out is x2", np.ones((3, 4), np.int32), b, out=b)
    else:  # b soon holds zeros: division by zero is not what this case is about
        ok("out is x2", ints(), b, out=b,
           state=errstate("ignore") if name in INT_DIV_OPS else None)
    buf = np.arange(1, 14, dtype=np.int32)
    ok("out overlaps x1 (shifted view)", buf[1:], _int(1001), out=buf[:-1])
    if not bitwise:
        ok("float operands, out keyword", floats(), fvec(), out=np.empty((3, 4), rdt_f))

    # -- success: broadcast= and axis= ----------------------------------------
    ok("broadcast='numpy' (str)", ints(), ivec(), broadcast=_s("numpy"))
    ok("broadcast='NONE' (str), same shapes", ints(), ints(start=3), broadcast=_s("NONE"))
    ok("broadcast='explicit' (str)", ints(), ints(start=3), broadcast=_s("explicit"))
    ok("broadcast='PdPd' (str)", ints(), ivec(), broadcast=_s("PdPd"))
    ok("broadcast=Broadcast.NUMPY", ints(), ivec(), broadcast=eltwise.Broadcast.NUMPY)
    ok("broadcast=Broadcast.NONE", ints(), ints(start=3), broadcast=eltwise.Broadcast.NONE)
    ok("broadcast=Broadcast.PDPD", ints(), ivec(), broadcast=eltwise.Broadcast.PDPD)
    x1p, x2p = ints((2, 3, 4)), np.array([1, 2, 3], np.int32)
    ok("pdpd, axis=1 (int)", x1p, x2p, broadcast=_s("pdpd"), axis=_int(1))
    ok("pdpd, axis=np.int64(1)", x1p, x2p, broadcast=_s("pdpd"), axis=np.int64(1))
    ok("Broadcast.PDPD, axis=np.int64(1)", x1p, x2p, broadcast=eltwise.Broadcast.PDPD,
       axis=np.int64(1))
    ok("pdpd, (3,1) at axis=1 on (2,3,4,5)", ints((2, 3, 4, 5)), ints((3, 1)),
       broadcast=_s("pdpd"), axis=_int(1))
    ok("pdpd, axis=-1 (int)", ints((2, 3, 4)), ivec(), broadcast=_s("pdpd"), axis=_int(-1))
    ok("axis=-1 with the default broadcast", ints(), ivec(), axis=_int(-1))

    # -- success: dtype= ------------------------------------------------------
    if bitwise:
        ok("dtype=np.dtype('int64')", ints(), ivec(), dtype=np.dtype("int64"))
        ok("dtype='int16' (str)", ints(), ivec(), dtype=_s("int16"))
        ok("dtype=np.int64 (type)", ints(), ivec(), dtype=np.int64)
        ok("dtype=np.dtype('int64'), Python int operand", ints(), _int(1001),
           dtype=np.dtype("int64"))
    else:
        ok("dtype=np.dtype('float64')", ints(), ivec(), dtype=np.dtype("float64"), expect=forced)
        ok("dtype='float32' (str)", ints(), ivec(), dtype=_s("float32"), expect=forced)
        ok("dtype=np.dtype('int64')", ints(), ivec(), dtype=np.dtype("int64"), expect=forced)
        ok("dtype=bfloat16 dtype", floats(), fvec(), dtype=BF16, expect=forced)
        ok("dtype='bfloat16' (str)", floats(), fvec(), dtype=_s("bfloat16"), expect=forced)
        ok("dtype=np.float16 (type)", floats(), fvec(), dtype=np.float16, expect=forced)
        ok("dtype=np.dtype('float64'), Python int operand", ints(), _int(1001),
           dtype=np.dtype("float64"), expect=forced)
    ok("dtype=None", ints(), ivec(), dtype=None)
    ok("every keyword", ints(), ivec(), out=np.empty((3, 4), rdt_i),
       broadcast=eltwise.Broadcast.PDPD, axis=np.int64(1),
       dtype=None if bool_res else np.dtype("int32"))

    # -- success: divide's pythondiv, division by zero when not raising ----------
    if name == "divide":
        ok("pythondiv=True", ints(), ivec(), pythondiv=True)
        ok("pythondiv=False", ints(), ivec(), pythondiv=False)
        ok("pythondiv=False, float operands", floats(), fvec(), pythondiv=False)
        ok("pythondiv=False, out= and dtype=", ints(), ivec(), out=np.empty((3, 4), np.int64),
           dtype=np.dtype("int64"), pythondiv=False)
    if name in INT_DIV_OPS:
        z = np.array([1, 0, 3, 0], np.int32)
        ok("x / 0 under errstate(divide='ignore')", ints(), z, state=errstate("ignore"))
        ok("x / 0 under errstate(divide='ignore'), out=", ints(), z, out=np.empty((3, 4), np.int32),
           state=errstate("ignore"))
        ok("Python ints x / 0 under errstate(divide='ignore')", _int(1001), 0,
           state=errstate("ignore"))
        ok("x / 0, divide='warn', warning ignored", ints(), z,
           state=errstate("warn", warn_action="ignore"))
        cb, log = _on_divide_error, _ErrLog()
        ok("x / 0 under errstate(divide='call')", ints(), z, state=errstate("call", call=cb))
        ok("x / 0 under errstate(divide='log')", ints(), z, state=errstate("log", call=log))

    # -- errors: dtypes --------------------------------------------------------
    err("complex128 array operand", TypeError, ints(), np.array([1 + 2j] * 4))
    err("complex Python scalar operand", TypeError, ints(), complex(_float(1.5), 2))
    err("two complex64 arrays", TypeError, np.ones(4, np.complex64), np.ones(4, np.complex64))
    err("object array operand", TypeError,
        np.array([_int(1001), _int(1002), _int(1003), _int(1004)], dtype=object), ivec())
    err("object array as x2", TypeError, ints(),
        np.array([_int(1001), _int(1002), _int(1003), _int(1004)], dtype=object))
    err("str array operand", TypeError, np.array(["ab", "cd", "ef", "gh"]), ivec())
    err("Python str operand", TypeError, ints(), _s("abc"))
    err("list of str operand", TypeError, [_s("ab"), _s("cd")], [_int(1001), _int(1002)])
    err("datetime64 operand", TypeError, np.array(["2020-01-01"] * 4, "M8[D]"), ivec())
    err("structured operand", TypeError, np.zeros(4, "i4,f4"), ivec())
    if np.dtype(np.longdouble) != np.dtype(np.float64):
        err("longdouble operand", TypeError, np.ones(4, np.longdouble), fvec())
    err("dtype=np.dtype('complex128')", TypeError, ints(), ivec(), dtype=np.dtype("complex128"))
    err("dtype='complex64' (str)", TypeError, ints(), ivec(), dtype=_s("complex64"))
    err("dtype=object (type)", TypeError, ints(), ivec(), dtype=object)
    err("dtype='U5' (str)", TypeError, ints(), ivec(), dtype=_s("U5"))
    err("dtype='not a dtype'", TypeError, ints(), ivec(), dtype=_s("not a dtype"))
    err("dtype=3", TypeError, ints(), ivec(), dtype=_int(1003))
    err("dtype=np.dtype('int32') on float operands (no same_kind cast)", TypeError, floats(),
        fvec(), dtype=np.dtype("int32"))
    err("dtype=np.dtype('int32') with a Python float (no same_kind cast)", TypeError, ints(),
        _float(2.5), dtype=np.dtype("int32"))
    if name in NO_BOOL_OPS:
        err("two bool arrays", TypeError, np.array([True, False]), np.array([False, True]))
        err("two Python bools", TypeError, True, False)
        err("dtype=bool", TypeError, ints(), ivec(), dtype=np.dtype(bool))
    if bitwise:
        err("float arrays", TypeError, floats(), fvec())
        err("int32 array, Python float", TypeError, ints(), _float(2.5))
        err("bfloat16 array", TypeError, floats().astype(BF16), ivec())
        err("int64 with uint64 (float64)", TypeError, np.array([1, 2], np.int64),
            np.array([1, 2], np.uint64))
        err("dtype=np.dtype('float64')", TypeError, ints(), ivec(), dtype=np.dtype("float64"))
    if name in COMPARISON_OPS:
        # Compared exactly, as NumPy 2 does (docs/semantics.md, "Comparisons with Python ints").
        ok("Python int out of range (2**70)", ints(), _int(2**70))
        ok("Python int out of range (-2**100), two Python ints", _int(-(2**100)), _int(3))
    else:
        err("Python int out of range (2**70)", ALLOWED, ints(), _int(2**70))
        err("Python int out of range (-2**100), two Python ints", ALLOWED, _int(-(2**100)),
            _int(3))

    # -- errors: broadcast= ----------------------------------------------------
    err("broadcast='foo'", ValueError, ints(), ivec(), broadcast=_s("foo"))
    err("broadcast=''", ValueError, ints(), ivec(), broadcast=_s(""))
    err("broadcast='numpy\\x00garbage'", ValueError, ints(), ivec(),
        broadcast=_s("numpy\x00garbage"))
    err("broadcast=3", (TypeError, ValueError), ints(), ivec(), broadcast=_int(1003))
    err("broadcast=b'numpy'", (TypeError, ValueError), ints(), ivec(), broadcast=b"numpy")
    err("broadcast=Op.SUM", (TypeError, ValueError), ints(), ivec(), broadcast=eltwise.Op.SUM)
    err("broadcast='\\ud800' (lone surrogate)", ValueError, ints(), ivec(), broadcast=_s("\ud800"),
        guard="import eltwise\ntry:\n    eltwise.add(1, 2, broadcast='\\ud800')\n"
              "except Exception:\n    pass\n")

    # -- errors: axis= ---------------------------------------------------------
    x1p, x2p = ints((2, 3, 4)), np.array([1, 2, 3], np.int32)
    row = np.array([[100, 200, 300]], np.int32)
    err("axis=1 with the default broadcast", ValueError, ints(), ivec(), axis=_int(1))
    err("axis=np.int64(1) with broadcast='none'", ValueError, ints(), ints(start=2),
        broadcast=_s("none"), axis=np.int64(1))
    err("axis=1 with Broadcast.NUMPY", ValueError, ints(), ivec(),
        broadcast=eltwise.Broadcast.NUMPY, axis=_int(1))
    err("pdpd, axis=5", ValueError, x1p, x2p, broadcast=_s("pdpd"), axis=_int(5))
    err("pdpd, axis=3 (axis + rank(x2) > rank(x1))", ValueError, x1p, x2p, broadcast=_s("pdpd"),
        axis=_int(3))
    err("pdpd, axis=-2", ValueError, x1p, x2p, broadcast=_s("pdpd"), axis=_int(-2))
    err("pdpd, axis=2**63-2 (issue 7 item 1)", ValueError, np.zeros((2, 3, 4), np.int32), row,
        broadcast=_s("pdpd"), axis=_int(2**63 - 2), unsafe=True)
    err("pdpd, axis=2**63-1", ValueError, x1p, x2p, broadcast=_s("pdpd"), axis=_int(2**63 - 1),
        unsafe=True)
    err("pdpd, axis=-2**63", ValueError, x1p, x2p, broadcast=_s("pdpd"), axis=_int(-(2**63)),
        unsafe=True)
    err("pdpd, axis=np.int64(2**63-2)", ValueError, np.zeros((2, 3, 4), np.int32), row,
        broadcast=_s("pdpd"), axis=np.int64(2**63 - 2), unsafe=True)
    err("pdpd, axis=2**70", (ValueError, OverflowError), x1p, x2p, broadcast=_s("pdpd"),
        axis=_int(2**70))
    err("pdpd, axis=-2**70", (ValueError, OverflowError), x1p, x2p, broadcast=_s("pdpd"),
        axis=_int(-(2**70)))
    err("axis=2**63-2 with the default broadcast", ValueError, ints(), ivec(), axis=_int(2**63 - 2),
        unsafe=True)
    err("pdpd, axis='1'", TypeError, x1p, x2p, broadcast=_s("pdpd"), axis=_s("1"))
    err("pdpd, axis=1.0", TypeError, x1p, x2p, broadcast=_s("pdpd"), axis=_float(1.0))

    # -- errors: shapes --------------------------------------------------------
    err("shapes (3,4) and (3,)", ValueError, ints(), np.array([1, 2, 3], np.int32))
    err("lists of lengths 3 and 2", ValueError, [_int(1001), _int(1002), _int(1003)],
        [_int(2001), _int(2002)])
    err("ragged list", ValueError, [[_int(1001), _int(1002)], [_int(1003)]], ivec())
    err("broadcast='none', (3,4) and (4,)", ValueError, ints(), ivec(), broadcast=_s("none"))
    err("Broadcast.NONE, (3,4) and (1,4)", ValueError, ints(), ints((1, 4)),
        broadcast=eltwise.Broadcast.NONE)
    err("pdpd, rank(x2) > rank(x1)", ValueError, ivec(), ints(), broadcast=_s("pdpd"))
    err("pdpd, x1 would need broadcasting", ValueError, ints((3, 1)), ints((3, 4)),
        broadcast=_s("pdpd"))
    err("pdpd, (8,1,6,1) with (7,1,5) axis=1", ValueError, ints((8, 1, 6, 1)), ints((7, 1, 5)),
        broadcast=_s("pdpd"), axis=_int(1))
    err("pdpd, (2,3,4,5) with (3,1), default axis", ValueError, ints((2, 3, 4, 5)), ints((3, 1)),
        broadcast=eltwise.Broadcast.PDPD)

    # -- errors: out= ----------------------------------------------------------
    err("out of shape (4,3)", ValueError, ints(), ivec(), out=np.empty((4, 3), rdt_i))
    err("out of shape (1,4) (broadcastable, not the result shape)", ValueError, ints(), ivec(),
        out=np.empty((1, 4), rdt_i))
    err("out of shape (2,3,4) (larger than the result)", ValueError, ints(), ivec(),
        out=np.empty((2, 3, 4), rdt_i))
    err("0-d out for a (3,4) result", ValueError, ints(), ivec(), out=np.empty((), rdt_i))
    err("out positional of shape (4,)", ValueError, ints(), ivec(), np.empty(4, rdt_i))
    err("out 1-tuple of the wrong shape", ValueError, ints(), ivec(), out=(np.empty(5, rdt_i),))
    err("read-only out", (ValueError, TypeError), ints(), ivec(),
        out=readonly(np.empty((3, 4), rdt_i)))
    err("read-only out positional", (ValueError, TypeError), ints(), ivec(),
        readonly(np.empty((3, 4), rdt_i)))
    if bool_res:
        err("out datetime64 (bool cannot be cast)", TypeError, ints(), ivec(),
            out=np.empty((3, 4), "M8[s]"))
    elif bitwise:
        err("out bool (int32 cannot be cast)", TypeError, ints(), ivec(),
            out=np.empty((3, 4), bool))
    else:
        err("out int32 (float64 cannot be cast)", TypeError, floats(), fvec(),
            out=np.empty((3, 4), np.int32))
        err("out int32 in a 1-tuple (float64 cannot be cast)", TypeError, floats(), fvec(),
            out=(np.empty((3, 4), np.int32),))
        err("out bool (int32 cannot be cast)", TypeError, ints(), ivec(),
            out=np.empty((3, 4), bool))
    err("out is a list", (TypeError, ValueError), ints(), ivec(),
        out=[_int(1001), _int(1002), _int(1003), _int(1004)])
    err("out is a Python float", (TypeError, ValueError), ints(), ivec(), out=_float(2.5))
    err("out is a NumPy scalar", (TypeError, ValueError), ints(), ivec(), out=np.float64(2.5))
    err("out positional is a list", (TypeError, ValueError), ints(), ivec(), [_int(1001)] * 4)
    err("out is a tuple of two arrays", (TypeError, ValueError), ints(), ivec(),
        out=(np.empty((3, 4), rdt_i), np.empty((3, 4), rdt_i)))
    err("out is an empty tuple", (TypeError, ValueError), ints(), ivec(), out=())
    err("out is a 1-tuple holding a list", (TypeError, ValueError), ints(), ivec(),
        out=([_int(1001)] * 4,))
    err("out positional and keyword", TypeError, ints(), ivec(), np.empty((3, 4), rdt_i),
        out=np.empty((3, 4), rdt_i))

    # -- errors: keywords and argument counts ------------------------------------
    err("unknown keyword foo=", TypeError, ints(), ivec(), foo=_int(1001))
    err("keyword 'Out' (case)", TypeError, ints(), ivec(), **{"Out": np.empty((3, 4), rdt_i)})
    err("keyword 'out\\x00junk'", TypeError, ints(), ivec(),
        **{_s("out\x00junk"): np.empty((3, 4), rdt_i)})
    err("keyword 'broadcast\\x00'", TypeError, ints(), ivec(), **{_s("broadcast\x00"): _s("numpy")})
    err("keyword with a lone surrogate", TypeError, ints(), ivec(), **{_s("\ud800x"): _int(1001)})
    err("keyword x1= (positional-only)", TypeError, ints(), ivec(), x1=ints())
    if name != "divide":
        err("pythondiv= on a function without it", TypeError, ints(), ivec(), pythondiv=True)
    err("broadcast positional (keyword-only)", TypeError, ints(), ivec(), None, _s("numpy"))
    errors.append(leak_case("one positional argument", fn, (ints(),), expect=TypeError))
    errors.append(leak_case("no arguments", fn, (), expect=TypeError))

    # -- errors: values ----------------------------------------------------------
    if name == "power":
        neg = np.array([1, -2, 3, 4], np.int32)
        err("negative int32 exponent", ValueError, ints(), neg)
        err("negative int32 exponent, out=", ValueError, ints(), neg,
            out=np.empty((3, 4), np.int32))
        err("negative Python int exponent", ValueError, ints(), _int(-1001))
        err("negative 0-d int8 exponent, int64 base", ValueError, ints(dtype=np.int64),
            np.array(-1, np.int8))
        err("negative exponent, two Python ints", ValueError, _int(1001), _int(-3))
        err("negative exponent in a list", ValueError, ints(), [_int(1001), -1, 2, 3])
        err("negative exponent, dtype='int64'", ValueError, ints(), neg, dtype=_s("int64"))
    if name in INT_DIV_OPS:
        z = np.array([1, 0, 3, 0], np.int32)
        raise_ = errstate("raise")
        err("x / 0 under errstate(divide='raise')", FloatingPointError, ints(), z, state=raise_)
        err("x / 0 under errstate(divide='raise'), out= positional", FloatingPointError, ints(), z,
            np.empty((3, 4), np.int32), state=raise_)
        err("x / 0 under errstate(divide='raise'), out float64 (cast)", FloatingPointError, ints(),
            z, out=np.empty((3, 4), np.float64), state=raise_)
        err("x / Python 0 under errstate(divide='raise')", FloatingPointError, ints(), 0,
            state=raise_)
        err("Python ints x / 0 under errstate(divide='raise')", FloatingPointError, _int(1001), 0,
            state=raise_)
        err("x / 0 with dtype='int64' under errstate(divide='raise')", FloatingPointError, ints(),
            z, dtype=_s("int64"), state=raise_)
        err("large x / 0 (thread pool) under errstate(divide='raise')", FloatingPointError,
            ints((128, 128), np.int64), np.zeros(128, np.int64), state=raise_, n=N_LARGE)
        err("x / 0, divide='warn', warnings as errors", RuntimeWarning, ints(), z,
            state=errstate("warn", warn_action="error"))
        err("x / 0, divide='warn', warnings as errors, out=", RuntimeWarning, ints(), z,
            out=np.empty((3, 4), np.int32), state=errstate("warn", warn_action="error"))
        if name == "divide":
            err("x / 0, pythondiv=False, under errstate(divide='raise')", FloatingPointError,
                ints(), z, pythondiv=False, state=raise_)
    if name == "divide":
        err("pythondiv='False'", TypeError, ints(), ivec(), pythondiv=_s("False"))
        err("pythondiv=1.5", TypeError, ints(), ivec(), pythondiv=_float(1.5))
        err("pythondiv=[]", TypeError, ints(), ivec(), pythondiv=[])
    return success, errors


def elementwise_cases():
    """elementwise: the whole battery through Op.DIV (divide's semantics, pythondiv
    and division by zero included), plus every Op member and op names."""
    fn = "elementwise"
    success, errors = build_cases("divide", fn, pre=(eltwise.Op.DIV,))

    def ok(label, *args, **knobs):
        success.append(leak_case(label, fn, args, **knobs))

    def err(label, expect, *args, **knobs):
        errors.append(leak_case(label, fn, args, expect=expect, **knobs))

    for m in eltwise.Op:
        ok(f"op=Op.{m.name}", ints(), ivec(), m)
        ok(f"op=Op.{m.name}, out positional", ints(), ivec(), m, np.empty((3, 4), np.float64))
    for op in ("sum", "Floor_Div", "divide", "mod", "fmod", "squared_difference", "bitwise_xor",
               "less_equal", "remainder"):
        ok(f"op={op!r} (str)", ints(), ivec(), _s(op))
    ok("op='divide', pythondiv=False", ints(), ivec(), _s("divide"),
       kwargs={"pythondiv": False})
    ok("op=Op.FLOOR_DIV, pythondiv=False (docs/semantics.md leaves it open)",
       ints(), ivec(), eltwise.Op.FLOOR_DIV, kwargs={"pythondiv": False}, expect=EITHER)
    ok("op='mod', pythondiv=True (docs/semantics.md leaves it open)",
       ints(), ivec(), _s("mod"), kwargs={"pythondiv": True}, expect=EITHER)
    err("unknown op 'nope'", ValueError, ints(), ivec(), _s("nope"))
    err("op=3", (TypeError, ValueError), ints(), ivec(), _int(1003))
    err("op=None", (TypeError, ValueError), ints(), ivec(), None)
    err("op=Op.SUM, pythondiv=True", (TypeError, ValueError), ints(), ivec(), eltwise.Op.SUM,
        kwargs={"pythondiv": True})
    err("op=Op.POW, negative exponent", ValueError,
        ints(), np.array([1, -2, 3, 4], np.int32), eltwise.Op.POW)
    err("op=Op.AND, complex operand", TypeError, ints(), np.array([1j] * 4), eltwise.Op.AND)
    err("op='floor_div', x / 0 under errstate(divide='raise')", FloatingPointError,
        ints(), np.array([1, 0, 3, 0], np.int32), _s("floor_div"), state=errstate("raise"))
    return success, errors


def cases_of(name: str):
    if name == "elementwise":
        return elementwise_cases()
    return build_cases(name, name)


# ---------------------------------------------------------------------------
# Tests


@pytest.fixture(scope="module")
def _gc_unfreeze_at_end():
    yield
    gc.unfreeze()
    gc.collect()


@pytest.fixture(autouse=True)
def _frozen_gc(_gc_unfreeze_at_end):
    """Each reference count follows a gc.collect(); freezing everything that exists
    when a test starts makes those collections scan only what the test created
    (microseconds instead of milliseconds). Unfrozen after the last test here."""
    gc.freeze()
    yield


def _report(name, kind, problems, cases):
    return (f"eltwise.{name}: {len(problems)} of {len(cases)} {kind} cases failed "
            f"(reference counts are compared before/after {N_CALLS} calls):\n  "
            + "\n  ".join(problems))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_success_paths_keep_reference_counts(name):
    cases = cases_of(name)[0]
    problems = [p for p in map(run_case, cases) if p]
    assert not problems, _report(name, "success", problems, cases)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_error_paths_keep_reference_counts(name):
    cases = cases_of(name)[1]
    problems = [p for p in map(run_case, cases) if p]
    assert not problems, _report(name, "error", problems, cases)


def test_harness_detects_a_reference_leak():
    """The checker itself: a function that keeps one reference per call is caught."""
    kept = []

    def leaky(x1, x2, **kw):
        kept.append(kw.get("dtype", x1))
        return x1

    x1 = np.zeros(3)
    p = run_case(leak_case("leaky", leaky, (x1, np.ones(3))))
    assert p is not None and "positional argument 0" in p and f"{N_CALLS} references" in p, p
    kept.clear()
    p = run_case(leak_case("leaky", leaky, (x1, np.ones(3)), {"dtype": np.dtype("int32")}))
    assert p is not None and "keyword 'dtype'" in p and "dtype('int32')" in p, p
    kept.clear()

    def raises(x1, x2):
        kept.append(x2)
        raise ValueError("no")

    p = run_case(leak_case("leaky error", raises, (x1, _s("x2")), expect=ValueError))
    assert p is not None and "positional argument 1" in p, p
    kept.clear()
    assert run_case(leak_case("clean", lambda a, b: a, (x1, np.ones(3)))) is None
    p = run_case(leak_case("not raising", lambda a, b: a, (x1, x1), expect=TypeError))
    assert p is not None and "DID NOT RAISE" in p, p
    # One reference too few (what an extra Py_DECREF does): a list held elsewhere
    # gives one up per call.
    held = [x1] * (N_CALLS + 2 * WARM_UP)
    p = run_case(leak_case("drops a reference", lambda a, b: held.pop(), (x1, np.ones(3))))
    assert p is not None and "positional argument 0" in p and "LOST" in p, p
    held.clear()


# ---------------------------------------------------------------------------
# Bounded memory growth over many mixed calls.


def _mixed_calls():
    """Every safe case of every function (success and error), in a fixed order."""
    calls = []
    for name in FUNCTIONS:
        success, errors = cases_of(name)
        for c in success + errors:
            if not c.unsafe and c.n == N_CALLS:
                calls.append(c)
    return calls


def _run_mixed(calls, rounds):
    swallow = ALLOWED + (RuntimeWarning,)
    for _ in range(rounds):
        for c in calls:
            with conditions(c):
                try:
                    call(c)
                except swallow:
                    pass


def _rss() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _libc():
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def _sanitized() -> bool:
    """AddressSanitizer's runtime is loaded: its quarantine and shadow memory make RSS
    and malloc statistics meaningless (LeakSanitizer does that job there)."""
    libc = _libc()
    if libc is not None and hasattr(libc, "__asan_init"):
        return True
    try:
        with open("/proc/self/maps") as f:
            maps = f.read()
    except OSError:
        return False
    return "libasan" in maps or "clang_rt.asan" in maps


def _malloc_in_use() -> int | None:
    """Bytes malloc has handed out and not had back (glibc's mallinfo2), or None."""
    libc = _libc()
    if libc is None or not hasattr(libc, "mallinfo2"):
        return None
    libc.mallinfo2.restype = _Mallinfo2
    m = libc.mallinfo2()
    return int(m.uordblks + m.hblkhd)


TRACE_ROUNDS = 4  # ~15,000 calls under tracemalloc
PROCESS_ROUNDS = 12  # ~45,000 calls
TRACE_BOUND = 96 * 1024  # bytes; ~6 B per call (measured: < 10 KB after the warm-up)
RSS_BOUND = 8 << 20  # generous: page granularity, malloc's arenas and trimming
HEAP_BOUND = 1 << 20  # malloc's bytes in use; ~23 B per call (measured: < 1 KB)


def traced_growth(calls, rounds, warm_up=2):
    """(growth of tracemalloc's traced memory over `rounds` rounds, a description of
    the biggest growth sites if that is over TRACE_BOUND)."""
    tracemalloc.start(8)
    try:
        _run_mixed(calls, warm_up)  # caches, free lists, NumPy's small-block cache
        gc.collect()
        snap0 = tracemalloc.take_snapshot()
        m0 = tracemalloc.get_traced_memory()[0]
        _run_mixed(calls, rounds)
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - m0
        detail = ""
        if growth >= TRACE_BOUND:
            stats = tracemalloc.take_snapshot().compare_to(snap0, "traceback")[:5]
            detail = "\n".join(
                f"{st.size_diff:+d} B in {st.count_diff:+d} blocks at\n    "
                + "\n    ".join(st.traceback.format()) for st in stats)
    finally:
        tracemalloc.stop()
    return growth, detail


def process_growth(calls, rounds, warm_up=3):
    """(RSS growth, growth of malloc's bytes in use or None) over `rounds` rounds."""
    _run_mixed(calls, warm_up)
    gc.collect()
    rss0, heap0 = _rss(), _malloc_in_use()
    _run_mixed(calls, rounds)
    gc.collect()
    rss1, heap1 = _rss(), _malloc_in_use()
    return rss1 - rss0, None if heap0 is None else heap1 - heap0


def test_memory_growth_tracemalloc():
    """Python allocations (objects, and NumPy's array data through PyDataMem's
    tracemalloc hooks) do not grow over thousands of mixed success and error calls."""
    calls = _mixed_calls()
    n = len(calls) * TRACE_ROUNDS
    assert n >= 10000, n
    growth, detail = traced_growth(calls, TRACE_ROUNDS)
    assert growth < TRACE_BOUND, (f"traced Python memory grew {growth} bytes over {n} calls "
                                  f"({growth / n:.1f} B/call):\n{detail}")


@pytest.mark.skipif(_rss() is None, reason="needs /proc/self/statm")
@pytest.mark.skipif(_sanitized(), reason="AddressSanitizer: RSS and malloc statistics are "
                    "its quarantine's; LeakSanitizer checks leaks there")
def test_memory_growth_process():
    """The process (RSS) and, with glibc, malloc's bytes in use do not grow over tens
    of thousands of mixed calls: C++ allocations are invisible to tracemalloc."""
    calls = _mixed_calls()
    n = len(calls) * PROCESS_ROUNDS
    assert n >= 30000, n
    rss, heap = process_growth(calls, PROCESS_ROUNDS)
    assert rss < RSS_BOUND, f"RSS grew {rss} bytes over {n} calls ({rss / n:.1f} B/call)"
    if heap is not None:
        assert heap < HEAP_BOUND, (f"malloc's bytes in use grew {heap} over {n} calls "
                                   f"({heap / n:.1f} B/call)")


def test_memory_checks_detect_leaks():
    """The memory checks themselves, on calls that leak: Python objects (tracemalloc)
    and raw malloc blocks (RSS, malloc's bytes in use)."""
    kept = []
    x = np.zeros(3)
    py_leak = [leak_case("leaks a bytes object", lambda a: kept.append(bytes(64)), (x,))] * 3000
    growth, detail = traced_growth(py_leak, 4, warm_up=1)
    kept.clear()
    assert growth >= TRACE_BOUND and "test_leaks.py" in detail, (growth, detail)
    libc = _libc()
    if _rss() is None or _sanitized() or libc is None or not hasattr(libc, "malloc"):
        return
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    blocks = []

    def c_leak(a):
        p = libc.malloc(400)
        ctypes.memset(p, 1, 400)  # touch it: RSS counts pages written
        blocks.append(p)

    # Hand the heap's free pages back to the system first: otherwise the leaked blocks
    # can come from pages an earlier test freed but left resident, and RSS stays flat.
    if hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)
    try:
        rss, heap = process_growth([leak_case("leaks malloc(400)", c_leak, (x,))] * 4000,
                                   PROCESS_ROUNDS, warm_up=0)
    finally:
        for p in blocks:
            libc.free(p)
    assert rss >= RSS_BOUND, rss
    assert heap is None or heap >= HEAP_BOUND, heap
