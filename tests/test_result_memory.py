"""The result pool (src/python/result_memory.cc): large fresh results take their memory
from a bounded pool of freed result buffers (a NumPy memory handler, NEP 49)."""

import multiprocessing
import os
import threading
import time

import numpy as np
import pytest
from numpy._core.multiarray import get_handler_name

import eltwise
from ew_helpers import assert_same, operands, reference

MIB = 2**20
POOLED = 32 * MIB  # results from this size on come from the pool
N = POOLED // 4  # float32 elements: a result of exactly that size


def address(a):
    return a.__array_interface__["data"][0]


@pytest.fixture(autouse=True)
def fresh_pool():
    """Every test starts with an empty pool at the default limit, and leaves it so."""
    limit = eltwise.result_pool_stats()["limit_bytes"]
    eltwise.release_result_pool()
    yield
    eltwise.set_result_pool_limit(limit)
    eltwise.release_result_pool()


def test_default_limit_and_show_config(capsys):
    assert eltwise.result_pool_stats()["limit_bytes"] == 256 * MIB
    eltwise.show_config()
    assert "result pool:        0 MiB held in 0 buffers, limit 256 MiB" in capsys.readouterr().out


def test_large_results_reuse_a_freed_buffer():
    a = np.arange(N, dtype=np.float32)
    r = eltwise.add(a, a)
    assert get_handler_name(r) == "eltwise_result_pool"
    first = address(r)
    del r
    stats = eltwise.result_pool_stats()
    assert stats["held_buffers"] == 1 and stats["held_bytes"] >= POOLED
    r2 = eltwise.multiply(a, a)
    assert address(r2) == first
    np.testing.assert_array_equal(r2, a * a)  # the reused memory holds the new result
    assert eltwise.result_pool_stats()["held_buffers"] == 0


def test_small_results_and_numpy_arrays_are_not_pooled():
    a = np.arange(1000, dtype=np.float32)
    assert get_handler_name(eltwise.add(a, a)) == "default_allocator"
    below = np.ones(N - 1, np.float32)  # 4 bytes short of the threshold
    assert get_handler_name(eltwise.add(below, below)) == "default_allocator"
    big = np.arange(N, dtype=np.float32)
    r = eltwise.add(big, big)
    assert get_handler_name(np.empty(N, np.float32)) == "default_allocator"
    assert get_handler_name(big + big) == "default_allocator"
    del r


@pytest.mark.parametrize("holder", ["view", "memoryview", "base of a copy"])
def test_a_buffer_is_not_reused_while_anything_holds_it(holder):
    a = np.ones(N, dtype=np.float32)
    r = eltwise.add(a, a)
    first = address(r)
    keep = {"view": lambda: r[10:], "memoryview": lambda: memoryview(r),
            "base of a copy": lambda: np.asarray(r).view(np.int32)}[holder]()
    del r
    assert eltwise.result_pool_stats()["held_buffers"] == 0
    r2 = eltwise.add(a, a)
    assert address(r2) != first
    del keep
    assert eltwise.result_pool_stats()["held_buffers"] == 1
    r3 = eltwise.subtract(a, a)
    assert address(r3) == first
    np.testing.assert_array_equal(r3, 0)


def test_bounded_by_the_limit():
    eltwise.set_result_pool_limit(5 * POOLED)
    results = [eltwise.add(np.ones(k * N // 4, np.float32), 1.0) for k in range(4, 16)]
    del results
    stats = eltwise.result_pool_stats()
    assert 0 < stats["held_bytes"] <= 5 * POOLED
    eltwise.set_result_pool_limit(POOLED + POOLED // 4)
    assert eltwise.result_pool_stats()["held_bytes"] <= POOLED + POOLED // 4


def test_a_buffer_is_reused_only_for_requests_down_to_half_its_size():
    big = eltwise.add(np.ones(4 * N, np.float32), 1.0)
    first = address(big)
    del big
    small = eltwise.add(np.ones(N, np.float32), 1.0)  # a quarter: takes new memory
    assert address(small) != first
    half = eltwise.add(np.ones(2 * N, np.float32), 1.0)  # half: reuses the big block
    assert address(half) == first


def test_limit_zero_keeps_nothing_and_release_frees_all():
    a = np.ones(N, np.float32)
    r1, r2 = eltwise.add(a, a), eltwise.add(a, 2.0)
    del r1, r2
    assert eltwise.result_pool_stats()["held_buffers"] == 2
    freed = eltwise.release_result_pool()
    assert freed >= 2 * POOLED
    assert eltwise.result_pool_stats()["held_bytes"] == 0
    eltwise.set_result_pool_limit(0)
    r = eltwise.add(a, a)
    del r
    assert eltwise.result_pool_stats()["held_buffers"] == 0


@pytest.mark.parametrize("bad,exc", [(-1, ValueError), (True, TypeError), (1.5, TypeError),
                                     ("1", TypeError)])
def test_limit_argument_checked(bad, exc):
    with pytest.raises(exc):
        eltwise.set_result_pool_limit(bad)


def test_huge_limit_means_unbounded():
    eltwise.set_result_pool_limit(2**70)
    assert eltwise.result_pool_stats()["limit_bytes"] == 2**64 - 1


def test_threads_allocating_and_freeing_concurrently():
    """8 threads make, check and drop large results (the calls run without the GIL, and
    arrays are freed on whichever thread drops them) while results are passed between
    threads."""
    errors = []
    handoff = []
    lock = threading.Lock()
    rng0 = np.random.default_rng(0)
    big_a = rng0.random(2 * N, dtype=np.float32)
    big_b = rng0.random(2 * N, dtype=np.float32) + 1
    # Every call divides a prefix of big_a by the same prefix of big_b: NumPy's
    # quotient of the whole arrays, cut to the call's length, is each call's reference.
    want = big_a / big_b

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(8):
                n = int(rng.integers(N, 2 * N))
                a, b = big_a[:n], big_b[:n]
                r = eltwise.divide(a, b)
                np.testing.assert_array_equal(r, want[:n])
                with lock:
                    handoff.append(r)
                    if len(handoff) > 4:
                        handoff.pop(0)  # freed here, maybe made by another thread
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    handoff.clear()
    assert eltwise.result_pool_stats()["held_bytes"] <= eltwise.result_pool_stats()["limit_bytes"]


def _child(q):
    a = np.arange(N, dtype=np.float32)
    r = eltwise.add(a, a)
    del r
    r = eltwise.multiply(a, 3.0)
    q.put(bool(np.array_equal(r, a * 3)) and eltwise.result_pool_stats()["reused"] >= 1)


def test_pool_works_in_a_forked_child():
    a = np.arange(N, dtype=np.float32)
    held = [eltwise.add(a, a) for _ in range(3)]
    del held  # the parent's pool holds buffers at the fork
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q,))
    p.start()
    try:
        assert q.get(timeout=60) is True
    finally:
        p.join(timeout=60)
    assert p.exitcode == 0


def test_limit_zero_leaves_results_to_numpys_allocator():
    eltwise.set_result_pool_limit(0)
    a = np.ones(N, np.float32)
    r = eltwise.add(a, a)
    assert get_handler_name(r) == "default_allocator"
    eltwise.set_result_pool_limit(256 * MIB)
    assert get_handler_name(eltwise.add(a, a)) == "eltwise_result_pool"


@pytest.mark.parametrize("name,dt,shape,order", [
    ("divide", "float32", (N + 3,), "C"),           # not a whole number of pages
    ("add", "float64", (2053, 2063), "F"),          # a Fortran-ordered result
    ("multiply", "int16", (5 * N + 1,), "C"),       # > one 2 MiB chunk per thread
    ("less", "float32", (4 * N + 5,), "C"),         # a bool result from float operands
])
def test_results_on_new_memory_are_correct(name, dt, shape, order, target, rng):
    """A pool miss faults the result's new pages in on the worker threads before the
    kernel writes them: every element must still be the kernel's."""
    size = int(np.prod(shape))
    a, b = operands(name, dt, size, rng)
    a, b = (np.asarray(x.reshape(shape), order=order) for x in (a, b))
    eltwise.release_result_pool()
    for miss in (True, False):  # a miss, then a hit on the buffer the miss freed
        before = eltwise.result_pool_stats()
        r = getattr(eltwise, name)(a, b)
        after = eltwise.result_pool_stats()
        assert get_handler_name(r) == "eltwise_result_pool"
        assert after["allocated"] - before["allocated"] == int(miss)
        assert after["reused"] - before["reused"] == int(not miss)
        if len(shape) > 1:
            assert r.flags.f_contiguous == (order == "F")
        assert_same(r, reference(name, a, b), inputs=(a, b))
        del r


def _vm_flags_of(address):
    """The VmFlags of the mapping holding `address`, from /proc/self/smaps."""
    current = None
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                current = lo <= address < hi
            elif head == "VmFlags:" and current:
                return line.split()[1:]
    return None


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="Linux only")
def test_new_large_buffers_ask_for_huge_pages():
    """As NumPy's allocator does from 4 MiB (MADV_HUGEPAGE shows as 'hg')."""
    a = np.ones(2 * N, np.float32)  # results of twice the threshold
    r = eltwise.add(a, a)
    assert "hg" in _vm_flags_of(address(r) + r.nbytes // 2)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
# Python 3.12+ warns about fork() in a process with threads: that is the point here.
@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")
def test_fork_while_other_threads_use_the_pool():
    """The pool's lock is held across fork: a child forked while other threads make and
    free pooled results finds the pool whole and usable."""
    stop = threading.Event()
    errors = []

    def churn(seed):
        rng = np.random.default_rng(seed)
        try:
            while not stop.is_set():
                n = int(rng.integers(N, 2 * N))
                r = eltwise.add(np.ones(n, np.float32), 1.0)
                assert r[-1] == 2.0
                del r
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=churn, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    try:
        for _ in range(6):
            pid = os.fork()
            if pid == 0:  # the child: exit status 0 only if the pool works
                ok = False
                try:
                    a = np.arange(3 * N, dtype=np.float32)
                    for _ in range(3):
                        r = eltwise.multiply(a, 2.0)
                        ok = bool(np.array_equal(r, a * 2))
                        del r
                    ok = ok and eltwise.result_pool_stats()["reused"] >= 2
                finally:
                    os._exit(0 if ok else 1)
            deadline = time.monotonic() + 60
            while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            if done[0] == 0:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                pytest.fail("the forked child hung")
            assert os.waitstatus_to_exitcode(done[1]) == 0
            time.sleep(0.02)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not errors, errors
