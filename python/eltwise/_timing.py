"""Timing helpers shared by the demo (``python -m eltwise``) and ``benchmarks/``."""

import time


def per_call(fn, min_time: float, max_calls: int = 10000) -> float:
    """Estimates the seconds one call of `fn` takes; `fn` has been called once already."""
    calls = 0
    t0 = time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time or calls >= max_calls:
            return elapsed / calls
