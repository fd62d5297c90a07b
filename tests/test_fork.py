"""Fork (issue 7): after os.fork, multiprocessing's fork start method or a fork-context
ProcessPoolExecutor, the child's large calls work, give NumPy's results and run on the
child's own worker threads, whatever the parent's pool was doing at the fork.

Each scenario runs as a separate Python process with a hard timeout: a hang fails the
test (its whole process group is killed) instead of hanging the suite. Inside, every
forked child is waited for with a deadline and killed if it overruns."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

TIMEOUT = 90  # seconds for a whole scenario; each child gets CHILD_TIMEOUT

PRELUDE = textwrap.dedent(
    """
    import os, signal, sys, threading, time, traceback, warnings
    # Python 3.12+ warns about fork() in a process with threads: that is the point here.
    warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork")
    import numpy as np
    import eltwise

    CHILD_TIMEOUT = 30
    N = 1_000_000  # 24 MB per call: far above the pool's threshold
    rng = np.random.default_rng(7)
    A = rng.standard_normal(N)
    B = rng.standard_normal(N) + 3.0
    I = rng.integers(-10**6, 10**6, N)
    J = rng.integers(1, 1000, N)

    def os_threads():
        try:
            return len(os.listdir("/proc/self/task"))
        except OSError:
            return None

    def check(n=None):
        # Large calls give NumPy's results; with n threads the pool really runs
        # n - 1 workers (not only the caller).
        if n is not None:
            eltwise.set_num_threads(n)
            assert eltwise.get_num_threads() == n
        n = eltwise.get_num_threads()
        for _ in range(3):
            assert np.array_equal(eltwise.add(A, B), A + B)
            assert np.array_equal(eltwise.divide(A, B), A / B)
            assert np.array_equal(eltwise.multiply(A[::2], B[1::2]), A[::2] * B[1::2])
            assert np.array_equal(eltwise.divide(I, J), I // J)
        t = os_threads()
        assert t is None or t >= n, f"{t} OS threads, expected the caller and {n - 1} workers"
        return True

    def in_child(fn, timeout=CHILD_TIMEOUT):
        # Runs fn in a forked child; fails if it fails, crashes or overruns.
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                fn()
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        deadline = time.monotonic() + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rc = os.waitstatus_to_exitcode(status)
                assert rc == 0, f"forked child exited with {rc}"
                return
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise AssertionError(f"forked child hung (killed after {timeout} s)")
            time.sleep(0.01)

    eltwise.set_num_threads(2)
    check()  # the parent's workers exist before any fork
    """
)


def run_scenario(body):
    """Runs PRELUDE + body in a fresh interpreter; it must print 'ok' and exit 0 in time."""
    code = PRELUDE + textwrap.dedent(body) + "\ncheck()\nprint('ok')\n"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the script and every child it forked
        out, err = proc.communicate()
        pytest.fail(f"hung: killed after {TIMEOUT} s\n{err[-3000:]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0 and out.strip().endswith("ok"), (
        f"exit code {proc.returncode} (negative = killed by signal)\n{out[-1000:]}\n{err[-3000:]}")


def test_fork_then_large_call():
    """No set_num_threads in the child: its first large call starts its own workers."""
    run_scenario("in_child(check)")


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_fork_then_set_num_threads(n):
    """set_num_threads down, same, up in the child (it used to join threads that do not
    exist in the child and hang), then large calls; the parent keeps working."""
    run_scenario(f"in_child(lambda: check({n}) and check(2) and check({n}))\ncheck(3)\ncheck(2)")


def test_fork_while_another_thread_is_in_a_large_call():
    """Another Python thread is inside large calls (GIL released, the pool running) at
    every fork: the child inherits the pool mid-call and must still work."""
    run_scenario(
        """
        big_a = rng.standard_normal(4 * N)
        big_b = rng.standard_normal(4 * N) + 3.0
        exp = big_a / big_b
        stop = threading.Event()
        bad = []
        calls = [0]

        def busy():
            out = np.empty_like(big_a)
            while not stop.is_set():
                eltwise.divide(big_a, big_b, out=out)
                calls[0] += 1
                if not np.array_equal(out, exp):
                    bad.append(1)

        t = threading.Thread(target=busy, daemon=True)
        t.start()
        try:
            while calls[0] == 0:
                time.sleep(0.001)
            for k in range(12):
                in_child([check, lambda: check(1), lambda: check(3), lambda: check(2)][k % 4])
                time.sleep(0.003 * (k % 3))
        finally:
            stop.set()
            t.join(CHILD_TIMEOUT)
        assert not t.is_alive() and not bad and calls[0] > 0
        """
    )


def test_fork_in_forked_child():
    """A child forks again, with its own workers started and with them not started."""
    run_scenario(
        """
        def child():
            check(3)
            in_child(check)
            in_child(lambda: check(2))
            check(1)
            in_child(lambda: check(4))
            check()

        in_child(child)
        in_child(lambda: in_child(lambda: in_child(lambda: check(3))))
        """
    )


def test_multiprocessing_pool_fork_initializer_sets_threads():
    """multiprocessing.Pool, fork context, an initializer calling set_num_threads."""
    run_scenario(
        """
        import multiprocessing as mp

        def task(n):
            return check() and eltwise.get_num_threads() == n

        for n in (3, 1, 2):
            with mp.get_context("fork").Pool(2, initializer=eltwise.set_num_threads,
                                             initargs=(n,)) as pool:
                assert all(pool.map_async(task, [n] * 4).get(timeout=CHILD_TIMEOUT))
            check()
        """
    )


def test_process_pool_executor_fork():
    """concurrent.futures.ProcessPoolExecutor with a fork context, with and without an
    initializer."""
    run_scenario(
        """
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        def num_threads():
            return eltwise.get_num_threads()

        ctx = mp.get_context("fork")
        with ProcessPoolExecutor(2, mp_context=ctx) as ex:
            futures = [ex.submit(check) for _ in range(4)]
            assert all(f.result(timeout=CHILD_TIMEOUT) for f in futures)
        with ProcessPoolExecutor(2, mp_context=ctx, initializer=eltwise.set_num_threads,
                                 initargs=(3,)) as ex:
            futures = [ex.submit(check) for _ in range(4)]
            assert all(f.result(timeout=CHILD_TIMEOUT) for f in futures)
            assert ex.submit(num_threads).result(timeout=CHILD_TIMEOUT) == 3
        """
    )
