"""The result pool (python/result_memory.cc, core/buffer_pool.cc): freed large results
of the fast door are kept and handed to later results of a fitting size; never while
an array, view or memoryview holds them; bounded; thread- and fork-safe; NumPy's own
arrays are untouched."""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import eltwise
from ew_helpers import assert_same, reference, value_pool

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:  # NumPy 1.x
    from numpy.core.multiarray import get_handler_name

MIN = eltwise.result_pool_info()["min_bytes"]
POOL = "eltwise_result_pool"
N = 1 << 20  # float32 elements: 4 MiB results, well above MIN


def ptr(a):
    return a.__array_interface__["data"][0]


def info():
    return eltwise.result_pool_info()


@pytest.fixture(autouse=True)
def _fresh_pool():
    """Every test starts with an empty pool at the default limit and leaves it so."""
    limit = info()["limit"]
    gc.collect()
    eltwise.release_memory()
    yield
    gc.collect()
    eltwise.set_result_pool_limit(limit)
    eltwise.release_memory()


@pytest.fixture(scope="module")
def ab():
    rng = np.random.default_rng(11)
    return rng.standard_normal(N).astype(np.float32), rng.random(N, dtype=np.float32) + 0.5


def test_freed_result_is_reused(ab):
    a, b = ab
    c = eltwise.divide(a, b)
    assert get_handler_name(c) == POOL
    p = ptr(c)
    before = info()
    del c
    assert info()["held_bytes"] >= a.nbytes and info()["held_buffers"] == 1
    d = eltwise.multiply(a, b)
    assert ptr(d) == p
    assert info()["hits"] == before["hits"] + 1 and info()["held_buffers"] == 0
    assert np.array_equal(d, a * b)  # nothing of the divide is left over


@pytest.mark.parametrize("holder", ["array", "view", "strided view", "reshape", "memoryview",
                                    "base of a new array"])
def test_never_reused_while_held(ab, holder):
    a, b = ab
    c = eltwise.add(a, b)
    p = ptr(c)
    h = {"array": lambda: c, "view": lambda: c[1:], "strided view": lambda: c[::3],
         "reshape": lambda: c.reshape(2, -1), "memoryview": lambda: memoryview(c),
         "base of a new array": lambda: np.frombuffer(c, dtype=np.uint8)}[holder]()
    expected = np.array(h, copy=True)
    del c
    assert info()["held_buffers"] == 0
    d = eltwise.subtract(b, a)  # different values: an overwrite would show
    lo, hi = ptr(d), ptr(d) + d.nbytes
    assert not (lo < p + a.nbytes and p < hi)
    assert np.array_equal(np.asarray(h), expected)
    del h
    gc.collect()
    assert info()["held_buffers"] == 1
    e = eltwise.add(a, b)
    assert ptr(e) == p


def test_fit_policy(ab):
    a, b = ab
    c = eltwise.add(a, b)
    p = ptr(c)
    del c
    # More than the block holds, or less than half of it: new memory.
    bigger = eltwise.add(np.resize(a, N + 1024), np.resize(b, N + 1024))
    third = eltwise.add(a[: N // 3], b[: N // 3])
    assert ptr(bigger) != p and ptr(third) != p
    assert info()["held_buffers"] == 1
    # Three quarters: the block, its unused quarter counted against the limit.
    part = eltwise.add(a[: 3 * N // 4], b[: 3 * N // 4])
    assert ptr(part) == p
    assert info()["slack_bytes"] >= a.nbytes // 4 - 4096
    assert np.array_equal(part, a[: 3 * N // 4] + b[: 3 * N // 4])
    del part
    assert info()["slack_bytes"] == 0


def test_bounded(ab):
    a, b = ab
    limit = 12 * MIN
    eltwise.set_result_pool_limit(limit)
    assert info()["limit"] == limit
    rng = np.random.default_rng(3)
    alive = []
    for _ in range(60):
        n = int(rng.integers(MIN // 4, N))  # 1 MiB .. 4 MiB float32 results
        r = eltwise.divide(a[:n], b[:n])
        assert np.array_equal(r, a[:n] / b[:n])
        alive.append(r)
        if len(alive) > 3 or rng.random() < 0.5:
            alive.pop(int(rng.integers(len(alive))))
        s = info()
        assert s["held_bytes"] + s["slack_bytes"] <= limit
        assert s["held_buffers"] <= limit // MIN
    alive.clear()
    s = info()
    assert 0 < s["held_bytes"] <= limit
    # A result larger than the limit is returned to the system when freed.
    eltwise.release_memory()
    big = eltwise.add(np.resize(a, 4 * N), np.resize(b, 4 * N))
    del big
    assert info()["held_bytes"] == 0


def test_release_memory_frees_everything(ab):
    a, b = ab
    results = [eltwise.add(a[: N - k * 4096], b[: N - k * 4096]) for k in range(3)]
    del results
    s = info()
    assert s["held_buffers"] == 3 and s["held_bytes"] >= 3 * (a.nbytes - 3 * 16384)
    eltwise.release_memory()
    s = info()
    assert s["held_buffers"] == 0 and s["held_bytes"] == 0
    misses = s["misses"]
    c = eltwise.add(a, b)
    assert info()["misses"] == misses + 1
    assert np.array_equal(c, a + b)


def test_limit_zero_disables(ab):
    a, b = ab
    c = eltwise.add(a, b)
    del c
    assert info()["held_buffers"] == 1
    eltwise.set_result_pool_limit(0)
    assert info()["held_buffers"] == 0 and info()["limit"] == 0
    d = eltwise.add(a, b)
    assert get_handler_name(d) == "default_allocator"
    del d
    assert info()["held_bytes"] == 0
    assert "off" in eltwise._eltwise.config_text()


def test_pooled_result_freed_after_limit_zero(ab):
    a, b = ab
    c = eltwise.add(a, b)
    eltwise.set_result_pool_limit(0)
    del c  # made by the pool, freed through it: back to the system
    assert info()["held_bytes"] == 0


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (-(2**70), ValueError),
                                        (True, TypeError), ("1", TypeError), (1.0, TypeError)])
def test_limit_errors(bad, error):
    limit = info()["limit"]
    with pytest.raises(error, match="set_result_pool_limit"):
        eltwise.set_result_pool_limit(bad)
    assert info()["limit"] == limit


def test_limit_larger_than_memory():
    eltwise.set_result_pool_limit(2**70)
    assert info()["limit"] == 2**64 - 1
    eltwise.set_result_pool_limit(np.int64(5 * MIN))
    assert info()["limit"] == 5 * MIN


def test_default_limit():
    out = subprocess.run([sys.executable, "-c", "import eltwise; print(eltwise.result_pool_info()"
                          "['limit'])"], capture_output=True, text=True, timeout=60, check=True)
    limit = int(out.stdout)
    phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert limit == min(256 << 20, phys // 16 // 4096 * 4096)


def test_show_config_tells_the_pool(ab, capsys):
    a, b = ab
    c = eltwise.add(a, b)
    del c
    eltwise.set_result_pool_limit(64 << 20)
    eltwise.show_config()
    out = capsys.readouterr().out
    line = next(l for l in out.splitlines() if "result pool" in l)
    assert "64.0 MiB" in line and "1 buffers" in line and f"{a.nbytes / 2**20:.1f} MiB" in line


def test_numpy_arrays_are_not_pooled(ab):
    a, b = ab
    c = eltwise.add(a, b)
    assert get_handler_name(c) == POOL
    for arr in (a + b, np.empty(4 * N), np.zeros(4 * N), np.ones(N), a.copy(),
                eltwise.ufunc.add(a, b), eltwise.add(a[:100], b[:100]),
                eltwise.add(a[: MIN // 8], b[: MIN // 8])):
        assert get_handler_name(arr) == "default_allocator"
    assert get_handler_name(np.empty(N)) == "default_allocator"  # the handler came back


def test_results_correct_in_reused_buffers(rng):
    # Reused buffers hold the last result's bytes: every dtype and op must overwrite them all.
    names = ["add", "divide", "multiply", "power", "floor_divide", "maximum", "greater"]
    for dt in (np.float32, np.float64, np.int8, np.int32, np.uint16, np.float16):
        n = 2 * MIN // np.dtype(dt).itemsize + 17
        vals = value_pool(dt, rng)
        a = rng.choice(vals, n)
        b = rng.choice(vals, n)
        for name in names:
            if name == "power" and np.dtype(dt).kind in "iu":
                b = np.abs(b) % 5
            with np.errstate(all="ignore"):
                got = getattr(eltwise, name)(a, b)
                exp = reference(name, a, b)
            assert_same(got, exp, ulp=1 if name == "power" else 0, inputs=(a, b))
            del got
    assert info()["hits"] > 0


def test_layouts_and_out_temporaries(ab):
    a, b = ab
    af = np.asfortranarray(a.reshape(1024, -1))
    bf = np.asfortranarray(b.reshape(1024, -1))
    for _ in range(2):  # the second round from the pool
        r = eltwise.divide(af, bf)
        assert r.flags.f_contiguous and np.array_equal(r, af / bf)
        del r
        r = eltwise.add(a[::-1], b[::2].repeat(2))
        assert np.array_equal(r, a[::-1] + b[::2].repeat(2))
        del r
        out = np.empty(N, np.float64)  # a float32 result cast into out: a temporary
        eltwise.multiply(a, b, out=out)
        assert np.array_equal(out, (a * b).astype(np.float64))


def test_resize_a_pooled_result(ab):
    # ndarray.resize reallocates through the array's handler: grow keeps values,
    # new bytes are zero; shrink below the pool's size still works.
    a, b = ab
    c = eltwise.add(a, b)
    c.resize(N + 12345, refcheck=False)
    assert np.array_equal(c[:N], a + b) and not c[N:].any()
    c.resize(1000, refcheck=False)
    assert np.array_equal(c, (a + b)[:1000])
    del c


def test_threads(ab):
    a, b = ab
    eltwise.set_result_pool_limit(16 * MIN)
    expected = a / b
    sizes = [MIN // 4, MIN // 4 + 999, MIN // 2, N // 2, N]
    errors = []
    start = threading.Barrier(4)

    def work(seed):
        rng = np.random.default_rng(seed)
        kept = []
        try:
            start.wait()
            for _ in range(40):
                n = sizes[int(rng.integers(len(sizes)))]
                r = eltwise.divide(a[:n], b[:n])
                if not np.array_equal(r, expected[:n]):
                    errors.append(f"wrong values at size {n}")
                kept.append(r)
                if len(kept) > 2:
                    kept.pop(0)
            for r in kept:  # nobody overwrote a result still held
                if not np.array_equal(r, expected[: r.size]):
                    errors.append("a held result changed")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors[:5]
    s = info()
    assert s["held_bytes"] + s["slack_bytes"] <= 16 * MIN
    assert s["hits"] > 0


FORK_SCRIPT = textwrap.dedent(
    """
    import multiprocessing as mp, threading, warnings
    warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork")
    import numpy as np
    import eltwise

    N = 1 << 21
    rng = np.random.default_rng(5)
    A = rng.standard_normal(N)
    B = rng.random(N) + 0.5

    def ptr(x):
        return x.__array_interface__["data"][0]

    def child(q):
        c = eltwise.divide(A, B)
        ok = np.array_equal(c, A / B)
        p = ptr(c)
        del c
        d = eltwise.multiply(A, B)  # the child's pool works (and its mutex is usable)
        ok = ok and ptr(d) == p and np.array_equal(d, A * B)
        q.put(bool(ok))

    warm = eltwise.add(A, B)
    del warm  # the parent's pool holds a buffer at the fork
    stop = threading.Event()

    def busy():  # another thread allocates and frees results across the forks
        while not stop.is_set():
            r = eltwise.add(A, B)
            del r

    t = threading.Thread(target=busy)
    t.start()
    ctx = mp.get_context("fork")
    try:
        for _ in range(5):
            q = ctx.Queue()
            pr = ctx.Process(target=child, args=(q,))
            pr.start()
            assert q.get(timeout=60), "wrong result in the child"
            pr.join(timeout=60)
            assert pr.exitcode == 0, pr.exitcode
    finally:
        stop.set()
        t.join()
    assert np.array_equal(eltwise.divide(A, B), A / B)
    print("ok")
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork():
    proc = subprocess.Popen([sys.executable, "-c", FORK_SCRIPT], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"hung\n{err[-3000:]}")
    assert proc.returncode == 0 and out.strip().endswith("ok"), f"{out[-1000:]}\n{err[-3000:]}"
