"""Interleaved timing (medians) and the machine's copy roofline."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import statistics
import time

import numpy as np

from eltwise._timing import per_call  # noqa: F401  (shared with the demo)


@dataclasses.dataclass
class Budget:
    """How long to time. per_lib: seconds per library per cell; min_sample: shortest
    sample (whole batches of calls); min_rounds/max_rounds: bounds on the number of samples;
    slow_min_rounds: the lower bound instead when some library's call takes longer than
    slow_call seconds (1.6e7-element and narrow-row cells: 3 samples of 20-200 ms calls
    are steady, and 5 would cost a third of the whole run).

    A sample's first call pays for whatever the library before it left behind (the
    cache, freed pages), so every sample lasts at least min_sample, whatever the
    estimate said: with the estimate's count alone, a 0.2-0.5 ms call ran once or twice
    per sample, and the library that ran once took that cost whole (Fortran float32
    add, 10^6 elements: eltwise 1 call per sample, median 0.44 ms against a best of
    0.17; NumPy 2 calls, 0.31 ms; alone, one call each, 0.30 and 0.39 ms). 5 ms samples
    made the whole run about three times as long."""

    per_lib: float = 0.1
    min_sample: float = 1e-3
    min_rounds: int = 5
    max_rounds: int = 25
    slow_call: float = 0.02
    slow_min_rounds: int = 3


FULL = Budget(per_lib=0.1)
QUICK = Budget(per_lib=0.004, min_sample=1e-4, min_rounds=2, max_rounds=5, slow_min_rounds=2)


@dataclasses.dataclass
class Timing:
    median: float  # seconds per call
    min: float
    samples: int
    calls_per_sample: int


def interleaved(fns: dict, budget: Budget, first_call: dict | None = None,
                enter: dict | None = None) -> dict:
    """Times each callable of `fns` (name -> fn) in alternating rounds.

    Each round runs every library's batch once, in an order that rotates between rounds,
    so slow drifts of the machine (the other core busy, turbo, page cache) hit every
    library alike. Returns name -> Timing (median and min of seconds per call).
    first_call: seconds each library's first (checked) call took; a call slower than
    slow_call needs no further estimate (it saves one slow call per library). Faster
    ones are estimated again, warm: a first call pays for cold caches and pages, and
    taken as the estimate it made 10^6-element cells time one call per sample.
    enter: name -> callable run before each of that library's samples and estimates,
    untimed (peers.Library.enter); where it returns True, one untimed call follows.
    """
    names = list(fns)
    first_call = first_call or {}
    enter = enter or {}

    def prepare(n):
        if n in enter and enter[n]():
            fns[n]()
    est = {}
    for n in names:
        if first_call.get(n, 0.0) > budget.slow_call:
            est[n] = first_call[n]
        else:
            prepare(n)
            est[n] = per_call(fns[n], budget.min_sample / 4)
    batch = {n: max(1, int(budget.min_sample / max(est[n], 1e-9))) for n in names}
    round_cost = sum(batch[n] * est[n] for n in names)
    rounds = int(budget.per_lib * len(names) / max(round_cost, 1e-9))
    slow = max(est.values()) > budget.slow_call
    rounds = max(budget.slow_min_rounds if slow else budget.min_rounds,
                 min(budget.max_rounds, rounds))
    samples = {n: [] for n in names}
    counts = {n: [] for n in names}
    for r in range(rounds):
        k = r % len(names)
        order = names[k:] + names[:k]
        if r % 2:
            order.reverse()
        for n in order:
            fn, reps = fns[n], batch[n]
            prepare(n)
            calls = 0
            t0 = time.perf_counter()
            while True:  # batches until the sample lasts min_sample
                for _ in range(reps):
                    fn()
                calls += reps
                elapsed = time.perf_counter() - t0
                if elapsed >= budget.min_sample:
                    break
            samples[n].append(elapsed / calls)
            counts[n].append(calls)
    return {n: Timing(statistics.median(samples[n]), min(samples[n]), rounds,
                      int(statistics.median(counts[n])))
            for n in names}


def roofline(quick: bool) -> dict:
    """Measures copy bandwidth (np.copyto of float32 arrays), 1 thread and 2 threads.

    Bytes counted: read source + write destination (2 x array size), the same convention
    as the eltwise figures (read x1 + read x2 + write out). np.copyto releases the GIL,
    so two Python threads each copying one half run in parallel.
    """
    nbytes = 64 * 2**20
    n = nbytes // 4
    src = np.random.default_rng(0).random(n, dtype=np.float32)
    dst = np.empty_like(src)
    dst.fill(0)
    halves = [(dst[: n // 2], src[: n // 2]), (dst[n // 2:], src[n // 2:])]
    reps = 3 if quick else 15  # 64 MiB even when quick: smaller fits in cache
    out = {"array_bytes": nbytes, "bytes_per_copy": 2 * nbytes}

    def one():
        np.copyto(dst, src)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        def two():
            futs = [pool.submit(np.copyto, d, s) for d, s in halves]
            for f in futs:
                f.result()

        two()
        one()
        t1, t2 = [], []
        for _ in range(reps):  # interleaved, like everything else
            t0 = time.perf_counter()
            one()
            t1.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            two()
            t2.append(time.perf_counter() - t0)
    for key, ts in (("1", t1), ("2", t2)):
        med = statistics.median(ts)
        out[f"threads_{key}"] = {"median_s": med, "min_s": min(ts),
                                 "gbps": 2 * nbytes / med / 1e9,
                                 "gbps_best": 2 * nbytes / min(ts) / 1e9}
    return out
