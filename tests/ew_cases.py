"""One call of an eltwise function as the tests describe it (`Case`), and the one way to
make it and judge what came out (`conditions`, `attempt`, `judge`).

A `Case` says what is called (an eltwise function by name, or any callable a harness
checks itself with), with the positional arguments and keywords exactly as passed
(x1, x2[, op][, out]; broadcast=, axis=, dtype=, pythondiv=, out=, or garbage), under
which conditions (numpy.errstate, a warnings filter, the SIMD target, the thread count),
and how a report names it. What the call must do is the test's business: test_fuzz.py
predicts it from docs/semantics.md and NumPy, test_leaks.py declares it per case. Both
say it as a list of outcomes, any one of which will do: an `Err` (an exception of one of
its classes) or anything else (a result; `SUCCESS` where only the fact counts).

`judge` reads an exception, or its absence, against those outcomes, by issue 7's rule
(test_fuzz.py's P1; docs/semantics.md: "Errors" lists the classes): only TypeError,
ValueError, OverflowError and FloatingPointError escape (never a UnicodeError, although
it is a ValueError), and only one the case calls for; a result only where one is allowed.
"""

from __future__ import annotations

import contextlib
import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import eltwise
from ew_helpers import BF16

# What may escape any call (issue 7; docs/semantics.md: "Errors").
ALLOWED_EXCEPTIONS = (TypeError, ValueError, OverflowError, FloatingPointError)


@dataclass(eq=False, repr=False)
class Case:
    """One call: fname(*args, **kwargs) under the conditions below (None: as they are)."""

    fname: str | Callable  # an eltwise attribute (one of ALL_OPS, "elementwise") or a callable
    args: tuple = ()       # positional arguments, exactly as passed
    kwargs: dict = field(default_factory=dict)  # keyword arguments, exactly as passed
    label: str = ""        # how reports name the case; describe(case) builds one when empty
    divide: str | None = None   # numpy.errstate(divide=...)
    other: str | None = None    # numpy.errstate(over=, under=, invalid=...)
    errcall: object = None      # numpy.errstate(call=...): a 'call' callback or 'log' writer
    warning_filter: str | None = None  # warnings.simplefilter action ('error', 'ignore')
    target: str | None = None   # eltwise.set_target for the call (None: the best)
    threads: int | None = None  # eltwise.set_num_threads for the call

    @property
    def function(self):
        return getattr(eltwise, self.fname) if isinstance(self.fname, str) else self.fname

    def __repr__(self):
        return describe(self)

    def _repr_pretty_(self, p, cycle):  # hypothesis' "Falsifying example" printer
        p.text(describe(self))


def fmt_value(v, limit=300) -> str:
    """An argument or a result, for a report: an array by dtype, shape, strides, flags
    (and values when small)."""
    if isinstance(v, np.ndarray):
        dts = v.dtype.str if v.dtype.names is None and v.dtype != BF16 else str(v.dtype)
        s = (f"ndarray(dtype={dts}, "
             f"shape={v.shape}, strides={v.strides}, aligned={v.flags.aligned}, "
             f"writeable={v.flags.writeable}")
        if math.prod(max(n, 1) for n in v.shape) <= 64 and not v.dtype.hasobject:
            try:
                s += f", values={np.array(v).tolist()!r}"
            except Exception:  # noqa: BLE001
                pass
        return (s + ")")[:limit * 3]
    if isinstance(v, (list, tuple)) and len(v) > 16:
        return f"<{type(v).__name__} of {len(v)} starting {fmt_value(v[:4])}>"
    r = repr(v)
    if isinstance(v, np.generic):
        r = f"{type(v).__name__}({v!r})"
    return r if len(r) <= limit else r[:limit] + "..."


def describe(case: Case) -> str:
    """The case's label, or the call written out with the conditions it runs under."""
    if case.label:
        return case.label
    name = case.fname if isinstance(case.fname, str) else getattr(
        case.fname, "__name__", repr(case.fname))
    args = ", ".join(fmt_value(a) for a in case.args)
    kws = ", ".join(f"**{{{k!r}: {fmt_value(v)}}}" for k, v in case.kwargs.items())
    state = []
    if case.divide is not None or case.other is not None:
        state.append(f"errstate divide={case.divide} other={case.other}")
    if case.errcall is not None:
        state.append(f"errcall={case.errcall!r}")
    if case.warning_filter is not None:
        state.append(f"warnings={case.warning_filter}")
    state.append(f"target={case.target}")
    if case.threads is not None:
        state.append(f"threads={case.threads}")
    return f"eltwise.{name}({args}{', ' if kws else ''}{kws})  [{', '.join(state)}]"


# ---------------------------------------------------------------------------
# making the call


_AS_IT_IS = contextlib.nullcontext()


def conditions(case: Case, *, record: bool = False):
    """The case's conditions (target, threads, numpy.errstate, warnings filter), restored
    on exit. record: the warnings the calls issue are caught (filter 'always' unless the
    case names one) and the list is yielded; otherwise None is."""
    if not record and all(v is None for v in (case.divide, case.other, case.errcall,
                                              case.warning_filter, case.target, case.threads)):
        return _AS_IT_IS  # most of test_leaks' calls, one by one in its memory loops
    return _conditions(case, record)


@contextlib.contextmanager
def _conditions(case: Case, record: bool):
    with contextlib.ExitStack() as stack:
        if case.target is not None:
            eltwise.set_target(case.target)
            stack.callback(eltwise.set_target, None)
        if case.threads is not None:
            stack.callback(eltwise.set_num_threads, eltwise.get_num_threads())
            eltwise.set_num_threads(case.threads)
        state = {}
        if case.divide is not None:
            state["divide"] = case.divide
        if case.other is not None:
            state.update(over=case.other, under=case.other, invalid=case.other)
        if case.errcall is not None:
            state["call"] = case.errcall
        if state:
            stack.enter_context(np.errstate(**state))
        caught = None
        if record or case.warning_filter is not None:
            caught = stack.enter_context(warnings.catch_warnings(record=record))
            warnings.simplefilter(case.warning_filter or "always")
        yield caught


def call(case: Case):
    """The one place that calls eltwise (inside `conditions`)."""
    return case.function(*case.args, **case.kwargs)


def attempt(case: Case):
    """One call (inside `conditions`): (result, None), or (None, the exception raised)."""
    try:
        return call(case), None
    except Exception as e:  # noqa: BLE001 - judged by the caller
        return None, e


# ---------------------------------------------------------------------------
# outcomes


class Err:
    """The outcome 'raises one of `classes`' (whose message matches `match`, a regex,
    when given); `why` says which rule calls for it."""

    def __init__(self, *classes, why="", match=None):
        self.classes = tuple(classes)
        self.why = why
        self.match = match

    def matches(self, exc) -> bool:
        return isinstance(exc, self.classes) and (
            self.match is None or re.search(self.match, str(exc)) is not None)

    def __repr__(self):
        names = "/".join(c.__name__ for c in self.classes)
        return f"Err({names}: {self.why})" if self.why else f"Err({names})"


class _Success:
    def __repr__(self):
        return "success"


SUCCESS = _Success()  # the outcome 'returns', where the value is not checked
# Where docs/semantics.md leaves the choice to the implementation.
EITHER = (SUCCESS, Err(*ALLOWED_EXCEPTIONS, why="docs/semantics.md leaves it open"))


def outcomes_text(expected) -> str:
    return " | ".join(repr(o) for o in expected)


class CaseFailure(AssertionError):
    """A call did not do what its case asks (one subclass per kind: hypothesis reports
    distinct kinds separately)."""


class DisallowedException(CaseFailure):
    """An exception of a class that may never escape (SystemError, UnicodeError, ...)."""


class UnexpectedException(CaseFailure):
    """An allowed exception class, but the case asks for a result (or another class)."""


class MissingException(CaseFailure):
    """A result where the case asks for an exception."""


def judge(exc, expected, *, result=None, context: str = "") -> CaseFailure | None:
    """None if the call's exception `exc` (None: it returned `result`) is one of the
    `expected` outcomes; otherwise the failure, its message ending with `context`.

    An exception outside ALLOWED_EXCEPTIONS is disallowed unless an outcome names its
    class (a RuntimeWarning a warnings filter turned into an error); a UnicodeError
    always is."""
    # (plain loops: test_leaks judges some two million calls)
    if exc is None:
        for o in expected:
            if not isinstance(o, Err):
                return None
        return MissingException(f"DID NOT RAISE: returned {fmt_value(result)}"
                                f"{_tail(expected, context)}")
    if not isinstance(exc, UnicodeError):
        for o in expected:
            if isinstance(o, Err) and o.matches(exc):
                return None  # (an exception an outcome names is not disallowed)
    named = tuple(c for o in expected if isinstance(o, Err) for c in o.classes)
    if isinstance(exc, UnicodeError) or not isinstance(exc, ALLOWED_EXCEPTIONS + named):
        return DisallowedException(f"raised {type(exc).__module__}.{type(exc).__name__}: "
                                   f"{exc}{_tail(expected, context)}")
    return UnexpectedException(f"raised {type(exc).__name__}: {exc}{_tail(expected, context)}")


def _tail(expected, context):
    return f"\nexpected: {outcomes_text(expected)}" + (f"\n{context}" if context else "")
