"""Demo: ``python -m eltwise [--ops ...] [--dtypes ...] [--sizes ...]`` (``--help``).

Prints :func:`eltwise.show_config`, then runs ``divide`` and ``multiply`` (or the
``--ops`` asked for) on a few shapes and dtypes, checks that every result is bit-identical to NumPy's (``ml_dtypes``
arithmetic for bfloat16) and times both libraries in the same process, interleaved,
reporting medians and the speedup (NumPy time / eltwise time; > 1 means eltwise is
faster). Needs only NumPy and ml_dtypes; takes well under 30 seconds.

For the full comparison against NumPy, PyTorch, numexpr, ONNX Runtime and OpenVINO,
run ``python -m benchmarks`` from the repository root.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time

import numpy as np

import eltwise
from eltwise._names import DTYPE_NAMES as _ALL_DTYPES  # every dtype of the dtype table
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


def _cases(sizes, broadcast):
    """Yields (label, shape1, shape2, eltwise kwargs, function reshaping x2 for NumPy)."""
    for n in sizes:
        yield f"({n},)", (n,), (n,), {}, None
    if broadcast:
        yield "(1000,1000), (1000,)", (1000, 1000), (1000,), {}, None
        yield (
            "pdpd (8,64,56,56), (64,) axis=1",
            (8, 64, 56, 56),
            (64,),
            {"broadcast": "pdpd", "axis": 1},
            lambda x2: x2.reshape(1, 64, 1, 1),
        )


_DTYPES = ("float32", "float16", "int32", "bfloat16", "float64")


def _dtype(name):
    return bfloat16 if name == "bfloat16" else np.dtype(name).type


def _numpy_reference(op, dtype):
    """NumPy's function computing what eltwise.<op> computes on `dtype` (ml_dtypes for
    bfloat16): integer divide floors (pythondiv=True, as numpy.floor_divide)."""
    integer = np.dtype(dtype).kind in "iu"
    if op == "divide" and integer:
        return np.floor_divide
    if op == "squared_difference":
        return lambda a, b: np.square(np.subtract(a, b))
    return getattr(np, {"mod": "remainder"}.get(op, op))


def _supports(op, dtype):
    """False where eltwise refuses the dtype (bitwise ops on floats, arithmetic on bool)."""
    kind = np.dtype(dtype).kind
    float_like = kind == "f" or dtype is bfloat16
    if op.startswith("bitwise_"):
        return not float_like
    if kind == "b":
        return op in ("add", "multiply", "maximum", "minimum") or op.startswith(
            ("logical_", "bitwise_")) or op in ("equal", "not_equal", "greater",
                                                  "greater_equal", "less", "less_equal")
    return True


def _within_one_ulp(got, want):
    """power on floats is within 1 ULP of NumPy (docs/semantics.md: "Exactness"), not always bit-identical."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    i = np.dtype(f"i{got.dtype.itemsize}")
    same_nan = np.isnan(got.astype(np.float64)) == np.isnan(want.astype(np.float64))
    dist = np.abs(got.view(i).astype(np.int64) - want.view(i).astype(np.int64))
    return bool(same_nan.all() and ((dist <= 1) | np.isnan(want.astype(np.float64))).all())


def _parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m eltwise",
        description="eltwise's demo: checks results bit for bit against NumPy and times "
                    "both libraries side by side (medians of interleaved repeats).")
    p.add_argument("--ops", default="divide,multiply",
                   help="comma-separated functions (default: %(default)s); any of: "
                        + ", ".join(eltwise._FUNCTION_NAMES))
    p.add_argument("--dtypes", default=",".join(_DTYPES),
                   help="comma-separated dtypes (default: %(default)s); any of: "
                        + ", ".join(_ALL_DTYPES))
    p.add_argument("--sizes", default="1000,1000000",
                   help="comma-separated element counts of the 1-D cases "
                        "(default: %(default)s)")
    p.add_argument("--no-broadcast", action="store_true",
                   help="leave out the broadcast cases ((1000,1000) with (1000,), and pdpd)")
    p.add_argument("--threads", type=int, help="eltwise.set_num_threads(N) first")
    p.add_argument("--target", help="eltwise.set_target(NAME) first; one of "
                                    + ", ".join(eltwise.get_targets()))
    args = p.parse_args(argv)
    ops = [s.strip() for s in args.ops.split(",") if s.strip()]
    for op in ops:
        if op not in eltwise._FUNCTION_NAMES:
            p.error(f"unknown op {op!r}")
    dtypes = [s.strip() for s in args.dtypes.split(",") if s.strip()]
    for dt in dtypes:
        if dt not in _ALL_DTYPES or (dt == "bfloat16" and bfloat16 is None):
            p.error(f"unknown dtype {dt!r}")
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        p.error(f"--sizes must be integers, got {args.sizes!r}")
    if any(n < 1 or n > 10**9 for n in sizes):
        p.error("--sizes must be between 1 and 10**9")
    try:
        if args.threads is not None:
            eltwise.set_num_threads(args.threads)
        if args.target is not None:
            eltwise.set_target(args.target)
    except ValueError as e:
        p.error(str(e))
    return ops, dtypes, sizes, not args.no_broadcast


_HEAD = ("op", "dtype", "shape", "match", "eltwise", "numpy", "speedup")
_WIDTHS = (18, 8, 33, 5, 9, 9, 7)


def _row(cells):
    """Formats one table row: the first four columns left-aligned, the times right-aligned."""
    return "  ".join(c.ljust(w) if i < 4 else c.rjust(w)
                     for i, (c, w) in enumerate(zip(cells, _WIDTHS, strict=True)))


def main(argv=None):
    ops, dtypes, sizes, broadcast = _parse_args(argv)
    start = time.perf_counter()
    eltwise.show_config()
    print()
    rng = np.random.default_rng(2024)
    header = _row(_HEAD)
    print(header)
    print("-" * len(header))
    all_match = True
    for shape_label, shape1, shape2, bkw, np_reshape in _cases(sizes, broadcast):
        for dt_label in dtypes:
            dtype = _dtype(dt_label)
            x1, x2 = _make_operands(rng, dtype, shape1, shape2)
            for op in ops:
                if not _supports(op, dtype):
                    continue
                y2 = x2
                if op == "power":  # small exponents: no overflow, no negative powers
                    y2 = (np.abs(x2.astype(np.float64)) % 4).astype(dtype)
                y2_np = np_reshape(y2) if np_reshape else y2
                kw = dict(bkw, **({"pythondiv": True} if op == "divide" else {}))
                run_elt = functools.partial(getattr(eltwise, op), x1, y2, **kw)
                run_np = functools.partial(_numpy_reference(op, dtype), x1, y2_np)
                same = _within_one_ulp if op == "power" and (
                    np.dtype(dtype).kind == "f" or dtype is bfloat16) else _bit_equal
                try:
                    with np.errstate(all="ignore"):
                        ok = same(run_elt(), run_np())
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
    print("integer divide uses pythondiv=True (floor, as numpy.floor_divide); bfloat16 is "
          "compared with ml_dtypes arithmetic; float power within 1 ULP.")
    print("times are medians of interleaved repeats; speedup = numpy time / eltwise time "
          f"(> 1: eltwise faster); eltwise threads: {eltwise.get_num_threads()}, "
          f"target: {eltwise.get_target()}.")
    print(f"all results bit-identical to NumPy: {'yes' if all_match else 'NO'}  "
          f"({time.perf_counter() - start:.1f} s)")
    return 0 if all_match else 1


if __name__ == "__main__":
    sys.exit(main())
