"""Dask, tested for real (issue 10, item 4).

``eltwise.<name>(x1, x2, broadcast=..., axis=..., pythondiv=...)`` on dask arrays
delegates to its ufunc twin (``eltwise.ufunc.<name>``) after turning ``pdpd`` and
``none`` into numpy broadcasting, so dask's own ``__array_ufunc__`` builds the graph.

What these tests prove, for every broadcast mode (numpy with differently chunked
operands and with scalars; none; pdpd with a chunked ``x2``, with and without
trailing 1s) and for ``pythondiv`` on integers:

* the call returns a ``dask.array.Array`` and computes nothing: every source block
  passes through a counting ``map_blocks`` function, and a ``dask.callbacks.Callback``
  counts every task the local scheduler runs; both stay at zero until ``.compute()``;
* ``.compute()`` then runs each source block, and each task, exactly once;
* the result has the same dtype, shape and bits as the same eltwise call on the
  computed NumPy arrays;
* shape errors (``none`` with different shapes, pdpd that does not fit, ``axis`` outside
  pdpd) are raised by the call itself, eagerly, with the ndarray path's message;
* all of it again on a ``dask.distributed.LocalCluster`` with two worker *processes*
  started here, where the source blocks are counted inside the workers and the task
  stream shows that each output block was computed once, by a worker.

Finally the example ``examples/dask_divide.py`` runs at a tiny size so it cannot rot.

``dtype=`` is the dtype computed in, on dask as on ndarrays (the delegation converts the
operands with their own ``astype``), and a negative integer exponent raises when the
graph runs, as the ndarray path raises at once.
"""

from __future__ import annotations

import collections
import os
import pathlib
import pickle
import subprocess
import sys
import threading
import time

import ml_dtypes
import numpy as np
import pytest

import eltwise
from ew_helpers import BF16, operands

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
from dask.callbacks import Callback  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------
# Counting: source blocks (in whichever process computes them) and local tasks.
# ---------------------------------------------------------------------------------

# (tag, block_id) -> how many times that source block was computed in this process.
# On a cluster the workers import this module (it is on the sys.path the spawned
# worker processes inherit) and keep their own counts, read back with client.run.
_BLOCKS: collections.Counter = collections.Counter()
_BLOCKS_LOCK = threading.Lock()


def _count_block(block, tag, block_id=None):
    """The identity on a block, counting that the block was computed."""
    with _BLOCKS_LOCK:
        _BLOCKS[(tag, block_id)] += 1
    return block


def _block_counts(tag):
    with _BLOCKS_LOCK:
        return {bid: n for (t, bid), n in _BLOCKS.items() if t == tag}


def _worker_block_counts(tag):
    """Run in a worker by client.run: this worker's counts and its pid."""
    return os.getpid(), _block_counts(tag)


_TAGS = iter(range(10**9))


def counted(array, chunks):
    """A dask array of ``array``'s values whose every block computation is counted.

    Returns (dask array, tag, set of its block ids)."""
    array = np.asarray(array)
    tag = f"src{next(_TAGS)}-{os.getpid()}"
    source = da.from_array(array, chunks=chunks)
    x = source.map_blocks(_count_block, tag, dtype=array.dtype,
                          meta=np.empty((0,) * array.ndim, array.dtype))
    return x, tag, set(np.ndindex(*x.numblocks))


class TaskCounter(Callback):
    """Counts every task a local (threaded or synchronous) scheduler runs, by key."""

    def __init__(self):
        super().__init__()
        self.keys = collections.Counter()
        self._lock = threading.Lock()

    def _posttask(self, key, result, dsk, state, worker_id):
        with self._lock:
            self.keys[key] += 1


def output_keys(x):
    return set(dask.core.flatten(x.__dask_keys__()))


def assert_bits(actual, expected):
    """Same type, dtype, shape and bytes."""
    assert type(actual) is type(expected), (type(actual), type(expected))
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    a = np.ascontiguousarray(actual)
    e = np.ascontiguousarray(expected)
    assert a.tobytes() == e.tobytes(), (actual, expected)


# ---------------------------------------------------------------------------------
# The cases: (function, operands, keywords), each operand chunked or a scalar.
# ---------------------------------------------------------------------------------

X1_SHAPE, X1_CHUNKS = (6, 8, 10), (3, 4, 5)


class Case:
    def __init__(self, id, name, x2_shape, x2_chunks, dtype="float32", *,
                 scalar=None, x1_chunks=X1_CHUNKS, x1_dask=True, **kwargs):
        self.id, self.name, self.dtype = id, name, np.dtype(dtype)
        self.x2_shape, self.x2_chunks, self.scalar = x2_shape, x2_chunks, scalar
        self.x1_chunks, self.x1_dask, self.kwargs = x1_chunks, x1_dask, kwargs

    def build(self, seed):
        """(x1, x2 as passed to eltwise, x1 and x2 as NumPy, source tags and block ids).
        The values are ew_helpers.operands' tame ones (deterministic, negatives and
        fractions where the dtype has them, no zero divisor, no negative integer
        exponent); a 0-d x2 is a 0-d array, not a NumPy scalar."""
        n1, n2 = operands(self.name, self.dtype, X1_SHAPE, seed, kind="tame",
                          shape2=self.x2_shape or ())
        sources = []
        if self.x1_dask:
            x1, tag, blocks = counted(n1, self.x1_chunks)
            sources.append((tag, blocks))
        else:
            x1 = n1
        if self.scalar is not None:
            x2 = n2 = self.scalar
        else:
            x2, tag, blocks = counted(n2, self.x2_chunks)
            sources.append((tag, blocks))
        return x1, x2, n1, n2, sources

    def call(self, x1, x2):
        return getattr(eltwise, self.name)(x1, x2, **self.kwargs)


CASES = [
    # numpy broadcasting: x1 and x2 chunked differently
    Case("numpy-divide-same-shape", "divide", X1_SHAPE, (2, 8, 3)),
    Case("numpy-divide-trailing", "divide", (8, 10), (5, 3)),
    Case("numpy-divide-ones", "divide", (6, 1, 10), (4, 1, 10)),
    Case("numpy-add-int32", "add", (8, 10), (3, 7), "int32"),
    Case("numpy-power-float64", "power", (10,), (4,), "float64"),
    Case("numpy-power-int16", "power", (8, 1), (3, 1), "int16"),
    Case("numpy-mod-float32", "mod", (8, 10), (8, 4)),
    Case("numpy-mod-int64", "mod", (6, 8, 10), (6, 3, 3), "int64"),
    Case("numpy-greater-float16", "greater", (10,), (3,), "float16"),
    Case("numpy-divide-bfloat16", "divide", (8, 10), (5, 5), BF16),
    Case("numpy-divide-float16", "divide", (8, 10), (5, 5), "float16"),
    # ml_dtypes' low-precision dtypes (docs/semantics.md, "Low-precision dtypes")
    Case("numpy-multiply-float8_e4m3fn", "multiply", (8, 10), (5, 5), ml_dtypes.float8_e4m3fn),
    Case("numpy-divide-int4", "divide", (8, 10), (3, 7), ml_dtypes.int4),
    # numpy broadcasting: an ndarray x1 with a dask x2
    Case("numpy-divide-ndarray-x1", "divide", (8, 10), (3, 4), x1_dask=False),
    # numpy broadcasting: a scalar x2 (weak, NEP 50)
    Case("numpy-divide-scalar-float", "divide", None, None, scalar=2.5),
    Case("numpy-divide-scalar-int", "divide", None, None, "int32", scalar=-3),
    Case("numpy-divide-scalar-np", "divide", None, None, "float32", scalar=np.float64(3)),
    Case("numpy-greater-scalar", "greater", None, None, "int8", scalar=0),
    # none: identical shapes, different chunks
    Case("none-divide", "divide", X1_SHAPE, (2, 8, 3), broadcast="none"),
    Case("none-add-uint8", "add", X1_SHAPE, (6, 3, 10), "uint8", broadcast="none"),
    Case("none-mod-int32", "mod", X1_SHAPE, (3, 3, 3), "int32", broadcast="explicit"),
    Case("none-greater", "greater", X1_SHAPE, (1, 8, 10), broadcast="NONE"),
    # pdpd: x2 chunked, put at axis
    Case("pdpd-divide-axis1", "divide", (8,), (3,), broadcast="pdpd", axis=1),
    Case("pdpd-divide-axis1-trailing-ones", "divide", (8, 1, 1), (3, 1, 1),
         broadcast="pdpd", axis=1),
    Case("pdpd-divide-axis1-one-dropped", "divide", (8, 1), (5, 1), broadcast="pdpd", axis=1),
    Case("pdpd-divide-default-axis", "divide", (8, 10), (3, 4), broadcast="pdpd"),
    Case("pdpd-divide-axis0", "divide", (6, 8), (4, 5), broadcast="pdpd", axis=0),
    Case("pdpd-divide-axis0-ones", "divide", (1, 8), (1, 3), broadcast="pdpd", axis=0),
    Case("pdpd-divide-0d", "divide", (), (), broadcast="pdpd"),
    Case("pdpd-add-int32", "add", (8,), (3,), "int32", broadcast="pdpd", axis=1),
    Case("pdpd-power", "power", (6, 8), (2, 2), "float64", broadcast="pdpd", axis=0),
    Case("pdpd-mod-int16", "mod", (8, 1), (3, 1), "int16", broadcast="pdpd", axis=1),
    Case("pdpd-greater", "greater", (8,), (5,), broadcast="pdpd", axis=1),
    Case("pdpd-multiply-issue", "multiply", (8,), (3,), broadcast="pdpd", axis=1),
    Case("pdpd-ndarray-x1", "divide", (8,), (3,), x1_dask=False, broadcast="pdpd", axis=1),
    # pythondiv on integers: floor (OpenVINO) and truncation (ONNX, C)
    Case("pythondiv-true-int32", "divide", (8, 10), (3, 4), "int32", pythondiv=True),
    Case("pythondiv-false-int32", "divide", (8, 10), (3, 4), "int32", pythondiv=False),
    Case("pythondiv-false-int8-pdpd", "divide", (8,), (3,), "int8",
         broadcast="pdpd", axis=1, pythondiv=False),
    Case("pythondiv-true-int64-none", "divide", X1_SHAPE, (2, 8, 3), "int64",
         broadcast="none", pythondiv=True),
    Case("pythondiv-false-int64-none", "divide", X1_SHAPE, (2, 8, 3), "int64",
         broadcast="none", pythondiv=False),
    Case("pythondiv-false-uint16", "divide", (10,), (4,), "uint16", pythondiv=False),
    Case("pythondiv-false-scalar", "divide", None, None, "int32", scalar=-7, pythondiv=False),
    Case("pythondiv-false-float", "divide", (8, 10), (3, 4), pythondiv=False),
]
CASE_IDS = [c.id for c in CASES]
CASE_SEEDS = {c.id: 1000 + 10 * i for i, c in enumerate(CASES)}


def expected_of(case, n1, n2):
    """The same call on the NumPy values (eltwise's ndarray fast path)."""
    expected = case.call(n1, n2)
    assert type(expected) is np.ndarray  # the fast path, not delegation
    return expected


def check_lazy_then_exact(case, compute, read_counts, run_tasks=None):
    """Builds the call, checks it is lazy, computes it with ``compute``, checks each
    source block was computed once and the bits. Returns the result array."""
    x1, x2, n1, n2, sources = case.build(CASE_SEEDS[case.id])
    expected = expected_of(case, n1, n2)

    lazy = case.call(x1, x2)
    assert isinstance(lazy, da.Array), type(lazy)
    assert lazy.shape == expected.shape
    assert lazy.dtype == expected.dtype  # dask's meta came from the twin
    for tag, _ in sources:
        assert read_counts(tag) == {}, "a source block was computed by the eltwise call"

    result = compute(lazy)

    for tag, blocks in sources:
        counts = read_counts(tag)
        assert set(counts) == blocks, "not every source block was computed"
        if blocks == {()}:
            # A 0-d x2 needs no reshape (docs/semantics.md, "Delegation"): the graph is
            # dask's own x1 / x2, whose optimizer fuses a one-block dependency into every
            # output task, so it runs once per output block at most.
            assert set(counts.values()) <= {1, lazy.npartitions}, counts
        else:
            assert set(counts.values()) == {1}, f"a source block was computed twice: {counts}"
    assert_bits(result, expected)
    return lazy, result


# ---------------------------------------------------------------------------------
# The threaded scheduler
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_threaded_lazy_and_exact(case):
    with TaskCounter() as tasks:
        def compute(lazy):
            assert not tasks.keys, f"tasks ran before compute(): {list(tasks.keys)[:5]}"
            return lazy.compute(scheduler="threads", num_workers=2)

        lazy, _ = check_lazy_then_exact(case, compute, _block_counts)
    assert tasks.keys, "the Callback saw no task: the counting does not work"
    assert max(tasks.keys.values()) == 1, "a task ran twice"
    assert output_keys(lazy) <= set(tasks.keys)


def test_pythondiv_values_on_dask():
    """Integer divide on dask floors (pythondiv=True) and truncates (False) as NumPy
    computes those roundings, negative operands included."""
    n1 = np.arange(-30, 30, dtype=np.int32).reshape(6, 10)
    n2 = np.array([-7, -3, -1, 1, 2, 5] * 10, dtype=np.int32).reshape(6, 10)
    x1 = da.from_array(n1, chunks=(4, 3))
    x2 = da.from_array(n2, chunks=(5, 6))
    floor = eltwise.divide(x1, x2).compute(scheduler="threads")
    trunc = eltwise.divide(x1, x2, pythondiv=False).compute(scheduler="threads")
    assert np.array_equal(floor, np.floor_divide(n1, n2))
    assert np.array_equal(trunc, np.trunc(n1 / n2).astype(np.int32))
    assert floor.dtype == trunc.dtype == np.int32
    assert not np.array_equal(floor, trunc)  # the data does tell them apart


def test_issue_map_blocks_pattern_is_unnecessary():
    """The issue's ``da.map_blocks(eltwise.multiply, x1, x2, broadcast="pdpd", axis=1)``
    applied pdpd per block, which misaligns a chunked x2. Calling the function itself
    on the dask arrays gives the right values, lazily."""
    n1, n2 = operands("multiply", np.float32, (6, 8, 10), 1, kind="tame", shape2=(8,))
    x1 = da.from_array(n1, chunks=(3, 4, 5))
    x2 = da.from_array(n2, chunks=3)
    lazy = eltwise.multiply(x1, x2, broadcast="pdpd", axis=1)
    assert isinstance(lazy, da.Array)
    result = lazy.compute(scheduler="threads")
    assert_bits(result, n1 * n2[None, :, None])
    assert_bits(result, eltwise.multiply(n1, n2, broadcast="pdpd", axis=1))


# Each: (x1 shape, x2 shape, keywords). The call raises ValueError on ndarrays.
SHAPE_ERRORS = [
    ((6, 8, 10), (6, 8, 9), dict(broadcast="none")),
    ((6, 8, 10), (8, 10), dict(broadcast="none")),
    ((6, 8, 10), (8,), dict(broadcast="pdpd", axis=0)),
    ((6, 8, 10), (8, 3), dict(broadcast="pdpd", axis=1)),
    ((6, 8, 10), (8, 10), dict(broadcast="pdpd", axis=2)),
    ((6, 8, 10), (8,), dict(broadcast="pdpd", axis=-2)),
    ((8, 10), (6, 8, 10), dict(broadcast="pdpd")),
    ((6, 8, 10), (6, 8, 10), dict(broadcast="numpy", axis=1)),
    ((6, 8, 10), (6, 8, 10), dict(broadcast="bogus")),
]


@pytest.mark.parametrize("name", ["divide", "add", "greater"])
@pytest.mark.parametrize("shape1, shape2, kwargs", SHAPE_ERRORS,
                         ids=[f"{s1}-{s2}-{kw}" for s1, s2, kw in SHAPE_ERRORS])
def test_shape_errors_are_eager(name, shape1, shape2, kwargs):
    """A shape that does not fit is a ValueError from the call itself, with the
    ndarray path's message, and no block is computed."""
    n1, n2 = np.ones(shape1, np.float32), np.ones(shape2, np.float32)
    with pytest.raises(ValueError) as on_ndarrays:
        getattr(eltwise, name)(n1, n2, **kwargs)
    x1, tag1, _ = counted(n1, 3)
    x2, tag2, _ = counted(n2, 2)
    for a, b in ((x1, x2), (x1, n2), (n1, x2)):
        with TaskCounter() as tasks:
            with pytest.raises(ValueError) as on_dask:
                getattr(eltwise, name)(a, b, **kwargs)
        assert str(on_dask.value) == str(on_ndarrays.value)
        assert not tasks.keys
    assert _block_counts(tag1) == _block_counts(tag2) == {}


def test_numpy_broadcast_error_is_eager():
    """numpy broadcasting is dask's own: still a ValueError at the call, nothing run."""
    x1, tag1, _ = counted(np.ones((6, 8)), 3)
    x2, tag2, _ = counted(np.ones((6,)), 2)
    with TaskCounter() as tasks, pytest.raises(ValueError, match="broadcast"):
        eltwise.divide(x1, x2)
    assert not tasks.keys and _block_counts(tag1) == _block_counts(tag2) == {}


@pytest.mark.parametrize("name, dtype, other", [
    ("divide", np.complex64, 2.0),
    ("bitwise_and", np.float64, 1),
    ("subtract", np.bool_, True),
])
def test_dtype_errors_are_eager(name, dtype, other):
    """An unsupported dtype is a TypeError from the call itself, as on ndarrays, and no
    block is computed. (The text is NumPy's "operand type(s) all returned
    NotImplemented": dask's elemwise turns the twin's TypeError into NotImplemented.)"""
    n = np.ones(6, dtype)
    with pytest.raises(TypeError):
        getattr(eltwise, name)(n, other)
    x, tag, _ = counted(n, 4)
    with TaskCounter() as tasks, pytest.raises(TypeError):
        getattr(eltwise, name)(x, other)
    assert not tasks.keys and _block_counts(tag) == {}


def test_unknown_chunks_numpy_mode_is_lazy():
    """A dask array of unknown length (boolean indexing) still works lazily with numpy
    broadcasting, which needs no shape check."""
    n = np.arange(-20, 20, dtype=np.int64)
    x = da.from_array(n, chunks=7)
    picked = x[x % 3 != 0]
    assert np.isnan(picked.shape[0])
    lazy = eltwise.divide(picked, 4, pythondiv=False)
    assert isinstance(lazy, da.Array)
    kept = n[n % 3 != 0]
    assert_bits(lazy.compute(scheduler="threads"), eltwise.divide(kept, 4, pythondiv=False))


def test_errstate_reaches_threaded_workers():
    """Integer division by zero is reported as on ndarrays: under pytest's
    filterwarnings=error the RuntimeWarning raised in a scheduler thread comes back from
    compute(); numpy.errstate(divide='ignore') around compute() silences it."""
    x = da.from_array(np.array([1, -2, 3, 0] * 5, np.int32), chunks=6)
    lazy = eltwise.divide(x, 0)
    with pytest.raises(RuntimeWarning, match="divide by zero"):
        lazy.compute(scheduler="threads")
    with np.errstate(divide="ignore"):
        result = lazy.compute(scheduler="threads")
    assert_bits(result, np.zeros(20, np.int32))


def test_graph_pickles_and_names_the_twin():
    """The graph holds the ufunc twin (by name), which pickles as the same object: what a
    distributed scheduler ships to its workers."""
    x = da.from_array(np.arange(1.0, 13.0).reshape(3, 4), chunks=2)
    for lazy, twin in ((eltwise.divide(x, 3.0), eltwise.ufunc.divide),
                       (eltwise.divide(x, 3, pythondiv=False), eltwise.ufunc.divide_trunc),
                       (eltwise.mod(x, x, broadcast="none"), eltwise.ufunc.mod)):
        blob = pickle.dumps(lazy)
        assert pickle.loads(pickle.dumps(twin)) is twin
        again = pickle.loads(blob)
        assert_bits(again.compute(scheduler="sync"), lazy.compute(scheduler="sync"))
        assert len(pickle.dumps(twin)) < 100  # a reference by name, not a payload


I8_X1 = np.array([100, -100, 7, -7, 127, -128], np.int8)
I8_X2 = np.array([100, 3, 2, -2, 1, 7], np.int8)


@pytest.mark.parametrize("name, kwargs", [
    ("divide", dict(dtype=np.int64)),
    ("divide", dict(dtype=np.int32, pythondiv=False)),
    ("divide", dict(dtype=np.float64)),
    ("add", dict(dtype=np.int16)),
    ("greater", dict(dtype=np.float32)),
], ids=["divide-int64", "divide-trunc-int32", "divide-float64", "add-int16",
        "greater-float32"])
def test_dtype_keyword_matches_ndarrays(name, kwargs):
    """dtype= is the dtype computed in (docs/semantics.md: "Operands and dtypes"), on dask as on ndarrays."""
    expected = getattr(eltwise, name)(I8_X1, I8_X2, **kwargs)
    lazy = getattr(eltwise, name)(da.from_array(I8_X1, chunks=4),
                                  da.from_array(I8_X2, chunks=3), **kwargs)
    assert isinstance(lazy, da.Array)
    assert_bits(lazy.compute(scheduler="threads"), expected)


def test_power_negative_integer_exponent_matches_ndarrays():
    """A negative integer exponent is an error on dask as on ndarrays, never silent
    zeros: a scalar exponent fails at the call (dask infers the result's meta by
    calling the twin, and turns its ValueError into a TypeError), an exponent array
    when the graph runs, with the ndarray path's ValueError."""
    n = np.array([1, 2, -1, 4], np.int32)
    with pytest.raises(ValueError, match="negative integer powers"):
        eltwise.power(n, -1)
    with pytest.raises((TypeError, ValueError)):
        eltwise.power(da.from_array(n, chunks=2), -1)
    lazy = eltwise.power(da.from_array(n, chunks=2), da.from_array(np.array([1, 1, -1, 2],
                                                                            np.int32), chunks=2))
    assert isinstance(lazy, da.Array)
    with pytest.raises(ValueError, match="negative integer powers"):
        lazy.compute(scheduler="threads")


# ---------------------------------------------------------------------------------
# A real cluster: two worker processes started here
# ---------------------------------------------------------------------------------

CLUSTER_TIMEOUT = 60  # seconds: start-up, each computation, shut-down


@pytest.fixture(scope="module")
def client():
    """A LocalCluster with two single-threaded worker processes and a Client that is
    NOT the default scheduler (set_as_default=False), so the other tests keep their
    explicit local schedulers. Closed at the end of the module.

    Warnings: pytest turns every warning into an error, and no warning is filtered
    here. The one distributed emits in practice is a UserWarning, "Port 8787 is already
    in use. Perhaps you already have a cluster running? Hosting the HTTP server on port
    N instead", whenever another process (another test run, a notebook, the example)
    holds 8787. dashboard_address=None does NOT avoid it: the scheduler still starts its
    HTTP server (health and metrics routes) on the default port 8787. ":0" asks for a
    free port, so the warning cannot arise (without bokeh installed, the dashboard route
    is distributed's "missing bokeh" page; nothing is imported). The scheduler and
    worker ports are random already (scheduler_port=0, the default). With these
    settings distributed emits no warning on start-up or shut-down; if a future version
    does, the test fails visibly instead of hiding it."""
    distributed = pytest.importorskip("distributed")
    with dask.config.set({"distributed.comm.timeouts.connect": "30s"}):
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True,
            dashboard_address=":0", memory_limit="2GiB",
            death_timeout=CLUSTER_TIMEOUT,  # a nanny that cannot start fails, not hangs
            env={"ELTWISE_NUM_THREADS": "1"},  # one worker thread, one kernel thread
        )
        try:
            c = distributed.Client(cluster, set_as_default=False, timeout=CLUSTER_TIMEOUT)
        except BaseException:
            cluster.close(timeout=CLUSTER_TIMEOUT)
            raise
    try:
        c.wait_for_workers(2, timeout=CLUSTER_TIMEOUT)
        yield c
    finally:
        c.close(timeout=CLUSTER_TIMEOUT)
        cluster.close(timeout=CLUSTER_TIMEOUT)


def test_cluster_has_two_worker_processes(client):
    pids = client.run(os.getpid)
    assert len(pids) == 2
    assert len(set(pids.values())) == 2
    assert os.getpid() not in pids.values()
    workers = client.scheduler_info()["workers"]
    assert len(workers) == 2 and all(w["nthreads"] == 1 for w in workers.values())
    # The workers run eltwise itself, with the kernel thread count set for them.
    info = client.run(lambda: (__import__("eltwise").__file__,
                               __import__("eltwise").get_num_threads()))
    assert {v for v in info.values()} == {(eltwise.__file__, 1)}


def _cluster_compute(client, tasks_seen):
    def compute(lazy):
        from distributed import get_task_stream
        assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0
        with get_task_stream(client) as stream:
            result = client.compute(lazy).result(timeout=CLUSTER_TIMEOUT)
        tasks_seen.extend(stream.data)
        return result
    return compute


def _cluster_counts(client):
    def read(tag):
        merged = {}
        for pid, counts in client.run(_worker_block_counts, tag).values():
            assert pid != os.getpid()
            for bid, n in counts.items():
                merged[bid] = merged.get(bid, 0) + n
        assert _block_counts(tag) == {}, "a source block was computed in the test process"
        return merged
    return read


CLUSTER_CASES = [c for c in CASES if c.id in {
    "numpy-divide-trailing", "numpy-divide-scalar-float", "numpy-power-int16",
    "numpy-divide-bfloat16", "numpy-multiply-float8_e4m3fn", "numpy-divide-int4", "none-divide", "none-mod-int32", "pdpd-divide-axis1",
    "pdpd-divide-axis1-trailing-ones", "pdpd-greater", "pdpd-multiply-issue",
    "pythondiv-true-int32", "pythondiv-false-int32", "pythondiv-false-int8-pdpd",
}]


@pytest.mark.parametrize("case", CLUSTER_CASES, ids=[c.id for c in CLUSTER_CASES])
def test_cluster_lazy_and_exact(client, case):
    """The same checks on the cluster: nothing reaches the scheduler before compute;
    every source block is computed once, inside a worker process; the task stream
    shows each output block computed once, by one of the two workers; same bits."""
    tasks = []
    lazy, _ = check_lazy_then_exact(case, _cluster_compute(client, tasks),
                                    _cluster_counts(client))
    keys = collections.Counter(t["key"] for t in tasks)
    assert max(keys.values()) == 1, "a task ran twice"
    assert output_keys(lazy) <= set(keys), "an output block was not computed on a worker"
    assert {t["worker"] for t in tasks} <= set(client.scheduler_info()["workers"])


def test_cluster_ships_the_functions(client):
    """The front-door functions and the twins pickle by name: submitted to a worker
    process they run there (the fast path on ndarrays, with pdpd and pythondiv)."""
    n1, n2 = operands("divide", np.int32, (6, 8, 10), 5, kind="tame", shape2=(8,))
    futures = [
        client.submit(eltwise.divide, n1, n2, broadcast="pdpd", axis=1, pythondiv=False,
                      pure=False),
        client.submit(eltwise.ufunc.divide_trunc, n1, n2[:, None], pure=False),
        client.submit(eltwise.elementwise, n1, n2, "DIV", broadcast="pdpd", axis=1,
                      pure=False),
    ]
    got = client.gather(futures, errors="raise")
    assert_bits(got[0], eltwise.divide(n1, n2, broadcast="pdpd", axis=1, pythondiv=False))
    assert_bits(got[1], eltwise.divide(n1, n2[:, None], pythondiv=False))
    assert_bits(got[2], eltwise.divide(n1, n2, broadcast="pdpd", axis=1))


# ---------------------------------------------------------------------------------
# The example
# ---------------------------------------------------------------------------------

EXAMPLE_TIMEOUT = 75


def test_example_runs_at_a_tiny_size():
    """examples/dask_divide.py, at 2**18 elements in 4 blocks, on its own 2-process
    LocalCluster, with every warning an error (PYTHONWARNINGS, inherited by the
    workers): it runs, its first row matches NumPy, it prints its results."""
    example = ROOT / "examples" / "dask_divide.py"
    assert example.is_file()
    env = dict(os.environ, PYTHONWARNINGS="error")
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(example), "--size", "2**18", "--chunk-mib", "0.25",
         "--workers", "2"],
        capture_output=True, text=True, timeout=EXAMPLE_TIMEOUT, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "checked against NumPy: OK" in out, out
    assert "mean of x1 / scale" in out and "floor != trunc" in out, out
    assert "nothing computed" in out and "peak memory of each worker" in out, out
    assert time.monotonic() - t0 < EXAMPLE_TIMEOUT
