"""Demo: ``python -m eltwise``.

Prints :func:`eltwise.show_config`, then runs ``divide`` and ``multiply`` on a few
shapes and dtypes, checks that every result is bit-identical to NumPy's (``ml_dtypes``
arithmetic for bfloat16) and times both libraries in the same process, interleaved,
reporting medians and the speedup (NumPy time / eltwise time; > 1 means eltwise is
faster). Needs only NumPy and ml_dtypes; takes well under 30 seconds.

For the full comparison against NumPy, PyTorch, numexpr, ONNX Runtime and OpenVINO,
run ``python -m benchmarks`` from the repository root.
"""

from __future__ import annotations

import functools
import sys
import time

import numpy as np

import eltwise
from eltwise._timing import per_call

try:
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover - ml_dtypes is a dependency of eltwise
    bfloat16 = None

# Seconds of timing per library per row, and the shortest timed batch of calls.
_BUDGET = 0.08
_MIN_SAMPLE = 1e-3
_MAX_SAMPLES = 101


def _make_operands(rng, dtype, shape1, shape2):
    """Returns (x1, x2): x2 is never zero (no division by zero), both in sane ranges."""
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        hi = min(int(info.max), 1_000_000)
        lo = 0 if dt.kind == "u" else -hi
        x1 = rng.integers(lo, hi, size=shape1, endpoint=True).astype(dt)
        mag = rng.integers(1, min(hi, 1000), size=shape2, endpoint=True)
        sign = 1 if dt.kind == "u" else rng.choice([-1, 1], size=shape2)
        x2 = (mag * sign).astype(dt)
    else:
        x1 = rng.uniform(-100.0, 100.0, size=shape1).astype(dt)
        x2 = (rng.uniform(0.5, 10.0, size=shape2) * rng.choice([-1.0, 1.0], size=shape2)).astype(dt)
    return x1, x2


def _bit_equal(got, want):
    """Returns True if `got` has `want`'s dtype, shape and exact bits."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind == "b":
        return bool(np.array_equal(got, want))
    view = np.dtype(f"u{got.dtype.itemsize}")
    return bool(np.array_equal(got.view(view), want.view(view)))


def _per_call(fn, min_time=2e-4):
    """Estimates the seconds one call of `fn` takes (after one warm-up call)."""
    fn()
    return per_call(fn, min_time, max_calls=1000)


def _interleaved_medians(fns, budget=_BUDGET):
    """Times each callable in `fns` in alternating rounds; returns median seconds per call."""
    est = [_per_call(f) for f in fns]
    batch = [max(1, int(_MIN_SAMPLE / max(e, 1e-9))) for e in est]
    round_cost = sum(k * e for k, e in zip(batch, est, strict=True))
    rounds = int(min(_MAX_SAMPLES, max(3, budget * len(fns) / max(round_cost, 1e-9))))
    samples = [[] for _ in fns]
    order = list(range(len(fns)))
    for r in range(rounds):
        for i in order if r % 2 == 0 else order[::-1]:
            f, k = fns[i], batch[i]
            t0 = time.perf_counter()
            for _ in range(k):
                f()
            samples[i].append((time.perf_counter() - t0) / k)
    return [float(np.median(s)) for s in samples]


def _fmt_time(seconds):
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _cases():
    """Yields (label, shape1, shape2, eltwise kwargs, function reshaping x2 for NumPy)."""
    yield "(1000,)", (1000,), (1000,), {}, None
    yield "(1000000,)", (10**6,), (10**6,), {}, None
    yield "(1000,1000), (1000,)", (1000, 1000), (1000,), {}, None
    yield (
        "pdpd (8,64,56,56), (64,) axis=1",
        (8, 64, 56, 56),
        (64,),
        {"broadcast": "pdpd", "axis": 1},
        lambda x2: x2.reshape(1, 64, 1, 1),
    )


def _dtypes():
    """Yields (label, dtype, extra divide kwargs)."""
    yield "float32", np.float32, {}
    yield "float16", np.float16, {}
    yield "int32", np.int32, {"pythondiv": True}
    if bfloat16 is not None:
        yield "bfloat16", bfloat16, {}
    yield "float64", np.float64, {}


_HEAD = ("op", "dtype", "shape", "match", "eltwise", "numpy", "speedup")
_WIDTHS = (8, 8, 33, 5, 9, 9, 7)


def _row(cells):
    """Formats one table row: the first four columns left-aligned, the times right-aligned."""
    return "  ".join(c.ljust(w) if i < 4 else c.rjust(w)
                     for i, (c, w) in enumerate(zip(cells, _WIDTHS, strict=True)))


def main():
    start = time.perf_counter()
    eltwise.show_config()
    print()
    rng = np.random.default_rng(2024)
    header = _row(_HEAD)
    print(header)
    print("-" * len(header))
    all_match = True
    for shape_label, shape1, shape2, bkw, np_reshape in _cases():
        for dt_label, dtype, div_kw in _dtypes():
            x1, x2 = _make_operands(rng, dtype, shape1, shape2)
            x2_np = np_reshape(x2) if np_reshape else x2
            for op in ("divide", "multiply"):
                kw = dict(bkw, **(div_kw if op == "divide" else {}))
                if op == "divide" and np.dtype(dtype).kind in "iu":
                    np_fn = np.floor_divide  # pythondiv=True rounds toward -inf
                else:
                    np_fn = getattr(np, op)
                run_elt = functools.partial(getattr(eltwise, op), x1, x2, **kw)
                run_np = functools.partial(np_fn, x1, x2_np)
                try:
                    ok = _bit_equal(run_elt(), run_np())
                    t_elt, t_np = _interleaved_medians([run_elt, run_np])
                    match = "yes" if ok else "NO"
                    speed = f"{t_np / t_elt:.2f}x"
                except Exception as exc:  # report, keep going
                    ok = False
                    t_elt = t_np = None
                    match, speed = "ERR", "-"
                    print(f"  {op} {dt_label} {shape_label}: {type(exc).__name__}: {exc}")
                all_match &= ok
                print(_row((op, dt_label, shape_label, match,
                            _fmt_time(t_elt), _fmt_time(t_np), speed)), flush=True)
    print()
    print("divide on int32 uses pythondiv=True (floor, as numpy.floor_divide); bfloat16 is "
          "compared with ml_dtypes arithmetic.")
    print("times are medians of interleaved repeats; speedup = numpy time / eltwise time "
          f"(> 1: eltwise faster); eltwise threads: {eltwise.get_num_threads()}, "
          f"target: {eltwise.get_target()}.")
    print(f"all results bit-identical to NumPy: {'yes' if all_match else 'NO'}  "
          f"({time.perf_counter() - start:.1f} s)")
    return 0 if all_match else 1


if __name__ == "__main__":
    sys.exit(main())
