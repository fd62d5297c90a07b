"""Threads (docs/semantics.md: "Runtime"): results are identical for any thread count; large calls work
from several Python threads at once; division-by-zero reporting is once per call."""

import os
import threading

import numpy as np
import pytest

import eltwise
from ew_helpers import BF16, assert_same, operands, reference

N = 1_000_003

CASES = [
    ("add", np.float32), ("divide", np.float32), ("divide", np.int32), ("divide", np.int64),
    ("floor_divide", np.float64), ("mod", np.int16), ("power", np.float32),
    ("maximum", np.float16), ("squared_difference", BF16), ("multiply", np.uint8),
    ("less_equal", np.float64), ("logical_xor", np.int8), ("bitwise_xor", np.uint64),
    ("fmod", np.float32), ("power", np.int32),
]


@pytest.mark.parametrize("name,dtype", CASES, ids=[f"{n}-{np.dtype(d).name}" for n, d in CASES])
def test_results_identical_for_any_thread_count(name, dtype):
    a, b = operands(name, dtype, N, kind="tame")
    f = getattr(eltwise, name)
    results = []
    for threads in (1, 2, 3):
        eltwise.set_num_threads(threads)
        results.append(f(a, b))
        results.append(f(a[-2::-2], b[1::2]))     # strided, negative
        results.append(f(a, b[17]))              # scalar right
    for r1, r2 in zip(results[:3], results[3:6]):
        assert_same(r2, r1)
    for r1, r3 in zip(results[:3], results[6:]):
        assert_same(r3, r1)
    exp = reference(name, a, b)
    assert_same(results[0], exp, ulp=1 if name == "power" and np.dtype(dtype).kind == "f" else 0)


@pytest.mark.parametrize("threads", [1, 2])
def test_large_broadcast_and_2d(threads):
    eltwise.set_num_threads(threads)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((1000, 1001)).astype(np.float32)
    b = rng.standard_normal(1001).astype(np.float32)
    c = rng.standard_normal((1000, 1)).astype(np.float32)
    assert_same(eltwise.add(a, b), a + b)
    assert_same(eltwise.multiply(a, c), a * c)
    assert_same(eltwise.subtract(a.T, c.T), np.ascontiguousarray(a.T - c.T))
    assert_same(eltwise.divide(c, b), c / b)
    assert_same(eltwise.maximum(a[:-1:3, :-1:2], a[1::3, 1::2]), np.maximum(a[:-1:3, :-1:2], a[1::3, 1::2]))
    d = rng.standard_normal((7, 300, 500)).astype(np.float64)
    assert_same(eltwise.add(d, d[:, :1, :], broadcast="numpy"), d + d[:, :1, :])
    assert_same(eltwise.add(d, d[0, :, 0].reshape(300, 1), broadcast="pdpd", axis=1),
                d + d[0, :, 0].reshape(1, 300, 1))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_large_transposed_narrow_operands(threads):
    """A transposed uint8/int16 operand runs in groups of rows split across threads
    (units are groups, not rows)."""
    eltwise.set_num_threads(threads)
    for name, dtype in (("add", np.uint8), ("greater", np.int16), ("floor_divide", np.int8)):
        a, b = operands(name, dtype, (1500, 1001), 3, kind="tame")
        assert_same(getattr(eltwise, name)(a.T, b.T[:, ::-1]), reference(name, a.T, b.T[:, ::-1]))
        assert_same(getattr(eltwise, name)(a.reshape(1001, 1500), b.T[::-1]),
                    reference(name, a.reshape(1001, 1500), b.T[::-1]))


@pytest.mark.parametrize("shape", [(N,), (3, 77_777), (5, 64_001), (200_003,), (2, 3, 65_537)])
def test_split_in_place_runs_every_element_once(shape):
    """docs/semantics.md "Runtime": a split call's batches, taken from the front by the
    calling thread and from the back by the workers, run every element once: `x += 1`
    in place (an element run twice would get 2, one skipped 0), repeated so that the
    worker joins at different points, on sizes that are no multiple of the 64-element
    batch grain, rows included."""
    eltwise.set_num_threads(2)
    x = np.zeros(shape, np.int32)
    for k in range(1, 41):
        eltwise.add(x, 1, out=x)
        if (x != k).any():
            bad = np.flatnonzero(x.ravel() != k)
            pytest.fail(f"after {k} calls, {bad.size} elements differ, first at {bad[0]}: "
                        f"{x.ravel()[bad[0]]}")


@pytest.mark.parametrize("threads", [1, 2])
def test_large_out_and_overlap(threads):
    eltwise.set_num_threads(threads)
    rng = np.random.default_rng(2)
    a = rng.standard_normal(N).astype(np.float32)
    exp = a[1:] + a[:-1]
    eltwise.add(a[1:], a[:-1], out=a[1:])
    assert_same(a[1:].copy(), exp)
    b = rng.standard_normal(N).astype(np.float64)
    exp = b + b[::-1]
    eltwise.add(b, b[::-1], out=b)
    assert_same(b, exp)
    c = rng.integers(1, 100, N).astype(np.int32)
    d = rng.integers(-5, 6, N).astype(np.int32)
    d[d == 0] = 1
    exp = np.floor_divide(c, d)
    eltwise.divide(c, d, out=c)
    assert_same(c, exp)
    out = np.empty((N // 7 + 1) * 7 * 2, np.float32)[::2][:N]
    r = eltwise.multiply(a, a, out=out)
    assert r is out
    assert_same(out.copy(), a * a)


@pytest.mark.parametrize("threads", [1, 2])
def test_large_int_division_by_zero_reported_once(threads):
    eltwise.set_num_threads(threads)
    a = np.arange(N, dtype=np.int32)
    b = np.ones(N, np.int32)
    b[::1000] = 0
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in divide") as rec:
        got = eltwise.divide(a, b)
    assert len(rec) == 1
    assert (got[::1000] == 0).all()
    assert_same(got, np.where(b == 0, 0, a))
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            eltwise.mod(a, b)


@pytest.mark.parametrize("threads", [1, 2])
def test_large_negative_power_raises_before_writing(threads):
    eltwise.set_num_threads(threads)
    a = np.full(N, 3, np.int64)
    b = np.full(N, 2, np.int64)
    b[N // 2] = -1
    out = np.zeros(N, np.int64)
    with pytest.raises(ValueError):
        eltwise.power(a, b, out=out)
    assert not out.any()


def test_concurrent_python_threads():
    """Several Python threads calling eltwise at once (the GIL is released for large
    calls): every result correct."""
    eltwise.set_num_threads(2)
    rng = np.random.default_rng(3)
    arrays = [(rng.standard_normal(400_000).astype(np.float32),
               rng.standard_normal(400_000).astype(np.float32)) for _ in range(4)]
    ints = [(rng.integers(-10**6, 10**6, 400_000).astype(np.int64),
             rng.integers(1, 1000, 400_000).astype(np.int64)) for _ in range(4)]
    errors = []

    def work(i):
        try:
            for _ in range(5):
                a, b = arrays[i]
                assert_same(eltwise.divide(a, b), a / b)
                x, y = ints[i]
                assert_same(eltwise.divide(x, y, pythondiv=False), reference("divide", x, y, pythondiv=False))
                assert_same(eltwise.power(np.abs(a), b), reference("power", np.abs(a), b), ulp=1)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in ts)
    assert not errors, errors[0]


def test_gil_released_for_large_calls():
    """While a large call runs, another Python thread makes progress at its full rate
    (with the GIL held it could run for at most a switch interval or two)."""
    import time

    eltwise.set_num_threads(1)
    a = np.random.default_rng(4).standard_normal(8_000_000) + 2.0
    b = np.full(8_000_000, 1.5)
    counter = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counter[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.05)
        c0 = counter[0]
        time.sleep(0.2)
        rate = (counter[0] - c0) / 0.2
        spun, spent = 0, 0.0
        for _ in range(4):
            t0 = time.perf_counter()
            c1 = counter[0]
            eltwise.power(a, b)
            c2 = counter[0]
            spent += time.perf_counter() - t0
            spun += c2 - c1
    finally:
        stop.set()
        t.join()
    assert spent > 0.04, "call too short to tell"
    assert spun > 0.3 * rate * spent, (spun, rate, spent)


def test_changing_thread_count_after_use_is_safe():
    """Growing/shrinking the pool after it has run tasks must not run stale tasks
    (run in a subprocess so that a crash is reported, not fatal to the session)."""
    import subprocess
    import sys

    code = (
        "import numpy as np, eltwise\n"
        "a = np.arange(300_000, dtype=np.float64)\n"
        "exp = a * a\n"
        "for n in [2, 3, 2, 1, 2, 4, 3, 2, 8, 2] * 5:\n"
        "    eltwise.set_num_threads(n)\n"
        "    assert eltwise.get_num_threads() == n\n"
        "    assert (eltwise.multiply(a, a) == exp).all()\n"
        "print('ok')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (
        f"exit code {r.returncode} (negative = killed by signal): {r.stderr[-2000:]}")


def test_switching_thread_counts_keeps_the_workers():
    """docs/semantics.md "Runtime": lowering the thread count parks the workers beyond it
    and raising it again reuses them (no thread is started: the same thread ids), one more
    worker starts only for a count above any before, and a new affinity mask of the calling
    thread starts new workers under it; every split call in between, in place on sizes
    that are no multiple of the batch grain, runs each element exactly once. In a
    subprocess with a timeout: a hang or a crash fails the test."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import os, time
        import numpy as np, eltwise

        def workers(expect):  # the pool's thread ids, once `expect` of them have their name
            # (a new worker names itself when it first runs, which may be after the call
            # that started it returned)
            for _ in range(5000):
                ids = {int(t) for t in os.listdir("/proc/self/task")
                       if open(f"/proc/self/task/{t}/comm").read().strip() == "eltwise-pool"}
                if len(ids) >= expect:
                    return ids
                time.sleep(0.001)
            return ids

        x = np.zeros(300_007, np.int64)  # 7.2 MB a call: split
        k = 0
        def check():
            global k
            eltwise.add(x, 1, out=x)
            k += 1
            assert (x == k).all(), (k, np.flatnonzero(x != k)[:5])

        eltwise.set_num_threads(2)
        check()
        first = workers(1)
        assert len(first) == 1, first
        for n in [1, 2, 1, 2] * 5:
            eltwise.set_num_threads(n)
            check()
            assert workers(1) == first, (n, first, workers(1))
        eltwise.set_num_threads(3)
        check()
        three = workers(2)
        assert len(three) == 2 and first < three, (first, three)
        for n in [2, 3, 1, 3, 2] * 4:
            eltwise.set_num_threads(n)
            check()
            check()
            assert workers(2) == three, (n, three, workers(2))
        allowed = os.sched_getaffinity(0)
        if len(allowed) > 1:
            os.sched_setaffinity(0, {min(allowed)})
            eltwise.set_num_threads(3)
            check()
            moved = workers(2)
            assert len(moved) == 2 and not moved & three, (three, moved)
            # (a worker that can move off its caller's CPU changes its mask for a
            # moment; these cannot: their mask has one CPU)
            masks = [os.sched_getaffinity(t) for t in moved]
            assert all(m == {min(allowed)} for m in masks), masks
            os.sched_setaffinity(0, allowed)
        print("ok")
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (
        f"exit code {r.returncode} (negative = killed by signal): {r.stderr[-2000:]}")


def test_calls_while_other_threads_change_threads_and_target():
    """8 Python threads make large calls (contiguous, strided, scalar; float and integer)
    and check each result against NumPy while 2 threads keep calling set_num_threads and
    set_target: a call in flight keeps a valid kernel table and pool, nothing crashes,
    hangs or gives a wrong result. Run in a subprocess with a timeout, so that a crash or
    a hang fails the test instead of ending or stalling the session."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import threading, time
        import numpy as np, eltwise

        rng = np.random.default_rng(5)
        N = 1_000_000
        a = rng.standard_normal(N)
        b = rng.standard_normal(N) + 3.0
        x = rng.integers(-10**6, 10**6, N).astype(np.int32)
        y = rng.integers(1, 1000, N).astype(np.int32)
        f = rng.standard_normal(N).astype(np.float32)
        cases = [
            (eltwise.divide, (a, b), a / b),
            (eltwise.add, (a, b), a + b),
            (eltwise.divide, (x, y), x // y),
            (eltwise.add, (f[::2], f[1::2]), f[::2] + f[1::2]),
            (eltwise.divide, (a[::-1], 4.0), a[::-1] / 4.0),
        ]
        targets = list(eltwise.get_targets()) + [None]
        stop = threading.Event()
        errors, calls, changes = [], [0] * 8, [0] * 2

        def caller(i):
            try:
                k = i
                while not stop.is_set():
                    fn, args, exp = cases[k % len(cases)]
                    got = fn(*args)
                    assert got.dtype == exp.dtype and np.array_equal(got, exp), (i, k)
                    calls[i] += 1
                    k += 1
            except BaseException as e:
                errors.append(repr(e))
                stop.set()

        def changer(j):
            try:
                k = 0
                while not stop.is_set():
                    eltwise.set_num_threads(1 + (k + j) % 4)
                    eltwise.set_target(targets[(k + 2 * j) % len(targets)])
                    changes[j] += 1
                    k += 1
                    time.sleep(0.001)
            except BaseException as e:
                errors.append(repr(e))
                stop.set()

        ts = [threading.Thread(target=caller, args=(i,)) for i in range(8)]
        ts += [threading.Thread(target=changer, args=(j,)) for j in range(2)]
        for t in ts:
            t.start()
        stop.wait(4.0)
        stop.set()
        for t in ts:
            t.join(60)
        assert not any(t.is_alive() for t in ts), "a thread hung"
        assert not errors, errors[0]
        assert min(calls) > 0 and min(changes) > 0, (calls, changes)
        eltwise.set_target(None)
        assert np.array_equal(eltwise.divide(a, b), a / b)
        print("ok", sum(calls), sum(changes))
        """
    )
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"hung: killed after {e.timeout} s")
    assert r.returncode == 0 and r.stdout.startswith("ok"), (
        f"exit code {r.returncode} (negative = killed by signal): {r.stdout[-500:]} {r.stderr[-2000:]}")


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")
def test_workers_after_spinning_dozing_and_sleeping():
    """docs/semantics.md "Runtime": an idle worker spins, then dozes, then sleeps; a call
    that wakes no one (shorter than the wake-up size) and one that does, each made after a
    pause of every length and in a loop, give NumPy's results, and a worker that moved off
    its caller's CPU keeps the affinity mask it was started with, also when that mask holds
    one CPU (the worker cannot move). In a subprocess with a timeout: a hang or a crash
    fails the test."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import os, time
        import numpy as np, eltwise

        def masks():  # of the pool's workers
            tasks = os.listdir("/proc/self/task")
            return {t: os.sched_getaffinity(int(t)) for t in tasks
                    if open(f"/proc/self/task/{t}/comm").read().strip() == "eltwise-pool"}

        rng = np.random.default_rng(7)
        small = rng.standard_normal(100_000).astype(np.float32)   # split, wakes no one
        big = rng.standard_normal(1_000_000).astype(np.float32)   # split, wakes workers
        x = rng.integers(-10**9, 10**9, 100_000).astype(np.int64)
        allowed = os.sched_getaffinity(0)
        for mask in (allowed, {min(allowed)}):
            os.sched_setaffinity(0, mask)
            eltwise.set_num_threads(2)
            for pause in (0, 0.0005, 0.003, 0.08):  # spinning, dozing, asleep
                for k in range(30):
                    if k % 10 == 0:
                        time.sleep(pause)
                    assert (eltwise.add(small, small[::-1]) == small + small[::-1]).all()
                    assert (eltwise.multiply(big, 3.0) == big * np.float32(3.0)).all()
                    assert (eltwise.divide(x, 7) == x // 7).all()
            got = masks()
            assert len(got) == 1 and all(m == mask for m in got.values()), (mask, got)
            eltwise.set_num_threads(1)
        os.sched_setaffinity(0, allowed)
        print("ok")
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (
        f"exit code {r.returncode} (negative = killed by signal): {r.stderr[-2000:]}")


def _intel():
    try:
        with open("/proc/cpuinfo") as f:
            return "GenuineIntel" in f.read(4096)
    except OSError:
        return None


def test_calls_split_from_the_documented_sizes():
    """docs/semantics.md "Runtime": a call splits across threads from 256 KiB of operands
    and result (on CPUs other than Intel's, cheap ops from 512 KiB), never at 1 thread;
    eltwise._eltwise._shared_calls counts the calls offered to the workers."""
    intel = _intel()
    before = eltwise.get_num_threads()

    def splits(fn, *xs):
        n = eltwise._eltwise._shared_calls()
        fn(*xs)
        return eltwise._eltwise._shared_calls() - n

    f32 = np.ones(100_000, np.float32)     # 1.2 MB moved by add
    f32_small = np.ones(20_000, np.float32)  # 240 KB
    i8 = np.ones(100_000, np.int8)          # 300 KB: cheap, between the two thresholds
    f16 = np.ones(30_000, np.float16)       # 180 KB
    f16_big = np.ones(50_000, np.float16)   # 300 KB: float16 add is a costly op
    try:
        eltwise.set_num_threads(1)
        assert splits(eltwise.add, f32, f32) == 0
        eltwise.set_num_threads(2)
        assert splits(eltwise.add, f32, f32) == 1
        assert splits(eltwise.add, f32_small, f32_small) == 0
        assert splits(eltwise.add, f16, f16) == 0
        assert splits(eltwise.add, f16_big, f16_big) == 1
        if intel is not None:
            assert splits(eltwise.add, i8, i8) == (1 if intel else 0)
    finally:
        eltwise.set_num_threads(before)
