"""Divide an array larger than memory on a dask LocalCluster, lazily, with eltwise.

    python examples/dask_divide.py              # 2**33 float32 elements: 32 GiB
    python examples/dask_divide.py --size 2**24 # a quick run

x1 is a (batch, channels, width) float32 array of random numbers, made block by block
on the workers, never whole: at the default size it is 32 GiB, more than this machine's
24 GiB of memory, and xi, an int32 array of the same shape, 32 GiB more. eltwise
divides x1 by a per-channel scale with OpenVINO's pdpd broadcasting (x2 of shape
(channels,) put at axis=1, and chunked), and xi by per-channel integers, rounding
toward -inf (pythondiv=True, OpenVINO's default) and toward zero (pythondiv=False,
ONNX, C). Every call only builds a dask graph; one dask.compute() streams the blocks
through the workers and reduces them to a few numbers (a mean, two counts, a sum),
so memory holds only a few blocks at a time: the peak memory of each worker is
printed at the end, and does not grow with --size. The first row is checked against
NumPy. The default run generates and divides 64 GiB: it takes minutes; --size 2**24
takes seconds.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

CHANNELS = 64
WIDTH = 1024


def parse_size(text: str) -> int:
    """An element count: 1000000, 1e6, 2**33."""
    text = text.strip()
    if "**" in text:
        base, exp = text.split("**")
        return int(base) ** int(exp)
    return int(float(text))


def build(size: int, chunk_mib: float, seed: int):
    """The lazy inputs: x1 (batch, CHANNELS, width) float32 in [0, 1), xi of the same
    shape int32 in [-1000, 1000], and the per-channel float scale and nonzero integer
    divisors (signs alternating), chunked along channels."""
    import dask.array as da

    width = max(1, min(WIDTH, size // CHANNELS))
    batch = max(1, size // (CHANNELS * width))
    row_bytes = CHANNELS * width * 4
    rows = max(1, min(batch, int(chunk_mib * 2**20) // row_bytes))
    shape, chunks = (batch, CHANNELS, width), (rows, CHANNELS, width)
    rng = da.random.default_rng(seed)
    x1 = rng.random(shape, dtype=np.float32, chunks=chunks)
    xi = rng.integers(-1000, 1001, shape, dtype=np.int32, chunks=chunks)
    # Per-channel operands: small, but chunked, to show that pdpd does not mind.
    quarter = CHANNELS // 4
    scale = rng.uniform(0.5, 2.0, CHANNELS, chunks=quarter).astype(np.float32)
    magnitude = rng.integers(1, 10, CHANNELS, dtype=np.int32, chunks=quarter)
    sign = da.where(da.arange(CHANNELS, chunks=quarter) % 2 == 0, 1, -1).astype(np.int32)
    return x1, xi, scale, magnitude * sign


def check_head(x1, xi, scale, divisor) -> None:
    """The first row computed by eltwise on dask and by NumPy on ndarrays: same bits."""
    import dask

    import eltwise

    a, ai, s, d = dask.compute(x1[:1], xi[:1], scale, divisor)
    q, floor, trunc = dask.compute(
        eltwise.divide(x1[:1], scale, broadcast="pdpd", axis=1),
        eltwise.divide(xi[:1], divisor, broadcast="pdpd", axis=1),
        eltwise.divide(xi[:1], divisor, broadcast="pdpd", axis=1, pythondiv=False))
    s3, d3 = s[None, :, None], d[None, :, None]
    np_floor = np.floor_divide(ai, d3)
    np_trunc = np_floor + ((np.remainder(ai, d3) != 0) & ((ai < 0) != (d3 < 0)))
    assert q.dtype == np.float32 and floor.dtype == trunc.dtype == np.int32
    assert q.tobytes() == (a / s3).tobytes(), "float divide differs from NumPy"
    assert np.array_equal(floor, np_floor), "pythondiv=True differs from numpy.floor_divide"
    assert np.array_equal(trunc, np_trunc), "pythondiv=False differs from truncation"
    print("first row checked against NumPy: OK")


def peak_rss_mib() -> float:
    """This process's peak resident memory in MiB (run in each worker)."""
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, B on macOS
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=parse_size, default=2**33,
                        help="elements of x1, float32 (default 2**33: 32 GiB)")
    parser.add_argument("--chunk-mib", type=float, default=64.0,
                        help="size of one x1 block in MiB (default 64)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--memory-limit", default="4GiB",
                        help="memory limit of each worker (default 4GiB)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    import dask
    from distributed import Client, LocalCluster

    import eltwise

    t0 = time.perf_counter()
    # One thread per worker, and one eltwise kernel thread in it: the workers are the
    # parallelism. Random ports, the dashboard's included (dashboard_address=None would
    # still bind the scheduler's HTTP server to 8787, and warn if that port is taken).
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                           dashboard_address=":0", memory_limit=args.memory_limit,
                           env={"ELTWISE_NUM_THREADS": "1"})
    client = Client(cluster)
    try:
        print(f"cluster: {args.workers} worker processes, pids "
              f"{sorted(client.run(os.getpid).values())}, started in "
              f"{time.perf_counter() - t0:.1f} s")

        x1, xi, scale, divisor = build(args.size, args.chunk_mib, args.seed)
        n = x1.size
        print(f"x1: shape {x1.shape} float32, {n * 4 / 2**30:.3g} GiB (and xi as much, int32) in "
              f"{x1.npartitions} blocks of {x1.chunksize}; x2: scale {scale.shape} "
              f"in chunks {scale.chunks[0]}")

        # Lazy: these lines build graphs and return at once, computing nothing. pdpd
        # puts the scale's (channels,) at axis 1, reshaping it (lazily) to (64, 1); dask
        # then splits x1's blocks along channels to match the scale's chunks.
        t1 = time.perf_counter()
        quotient = eltwise.divide(x1, scale, broadcast="pdpd", axis=1)  # (batch, 64, width)
        floor = eltwise.divide(xi, divisor, broadcast="pdpd", axis=1)   # pythondiv=True
        trunc = eltwise.divide(xi, divisor, broadcast="pdpd", axis=1, pythondiv=False)
        mean = quotient.mean(dtype=np.float64)
        above_one = eltwise.greater(quotient, 1.0).sum()
        differ = eltwise.not_equal(floor, trunc).sum()
        floor_sum = floor.sum(dtype=np.int64)
        print(f"graphs built in {(time.perf_counter() - t1) * 1e3:.1f} ms: "
              f"{type(quotient).__module__}.{type(quotient).__name__}, nothing computed")

        check_head(x1, xi, scale, divisor)

        # One pass over the blocks: x1 and xi are made, divided and reduced block by block.
        t2 = time.perf_counter()
        mean, above_one, differ, floor_sum = dask.compute(
            mean, above_one, differ, floor_sum, scheduler=client)
        elapsed = time.perf_counter() - t2
        print(f"mean of x1 / scale (pdpd, axis=1): {mean:.6f}")
        print(f"elements with x1 / scale > 1:     {above_one} of {n}")
        print(f"int32 divide, floor != trunc:     {differ} of {n} "
              f"(pythondiv=True vs False: negative quotients that are not exact)")
        print(f"sum of floor quotients:           {floor_sum}")
        print(f"computed in {elapsed:.2f} s: {n / elapsed / 1e6:.1f} M elements/s, "
              f"{2 * n * 4 / elapsed / 2**30:.2f} GiB/s of x1 and xi streamed "
              f"({2 * n * 4 / 2**30:.3g} GiB)")
        peaks = sorted(client.run(peak_rss_mib).values())
        print(f"peak memory of each worker: {', '.join(f'{p:.0f} MiB' for p in peaks)}")
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":  # needed: the worker processes are spawned
    main()
