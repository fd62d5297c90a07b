"""eltwise benchmark suite: eltwise against NumPy and peers, in one process, interleaved.

Run from the repository root:

    python -m benchmarks                 # full run (about 15 minutes on 2 cores, every peer)
    python -m benchmarks --quick         # tiny sizes, a few repeats (about a minute)
    python -m benchmarks --ops divide,multiply --dtypes float32,int32 --threads 1
    python -m benchmarks --section lowp  # the low-precision dtypes alone (float8, float4, int4)
    python -m benchmarks --section chains  # eltwise.fuse on chains of ops, vs the fused peers

Writes results.md (tables), results.json (every figure) and throughput.png /
speedup.png (if matplotlib is installed) to --out (default benchmarks/results).
Speedup = peer time / eltwise time: > 1 means eltwise is faster.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import sys
import time

import numpy as np

if __package__ in (None, ""):  # `python benchmarks/run.py` works too
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "benchmarks"

from benchmarks import cases, chains, peers, report, timing  # noqa: E402

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
SECTIONS = ("main", "lowp", "chains")
SHAPE_ALIASES = {"sweep": "n=", "row": "row", "col": "col", "pdpd": "pdpd", "scalar": "scalar",
                 "strided": "strided", "transposed": "transposed", "fortran": "fortran",
                 "narrow": "narrow"}


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description=__doc__.split("\n\n")[0] + " Run from the repository root.",
        epilog="examples:\n"
               "  python -m benchmarks\n"
               "  python -m benchmarks --quick --out /tmp/bench\n"
               "  python -m benchmarks --ops divide --dtypes int32,int64 --shapes sweep\n"
               "  python -m benchmarks --threads 1 --peers numexpr,torch\n"
               "  python -m benchmarks --ops mod --dtypes int64,uint64 --shapes n=1e5\n"
               "  python -m benchmarks --section lowp --quick --out /tmp/bench\n\n"
               "sections: main (the ops, dtypes and shapes below), lowp (the low-precision\n"
               "        dtypes: " + ", ".join(cases.LOWP_DTYPE_NAMES) + ";\n"
               "        " + ", ".join(cases.LOWP_OP_NAMES) + " at "
               + cases.lowp_shape(False).kind + ", and eltwise's "
               + " ".join(reversed(cases.LOWP_REFERENCE)) + " as a goal's reference),\n"
               "        chains (eltwise.fuse on chains of ops against unfused, numexpr, numba\n"
               "        and torch.compile; only when asked for: not part of 'all')\n"
               "ops:    " + ", ".join(cases.OP_BASE_NAMES) + "\n"
               "        (divide on integers runs twice: divide(floor) = pythondiv=True,\n"
               "         divide(trunc) = pythondiv=False; int64/uint64 division ops run on\n"
               "         three operand kinds: [full range], [|x|<=1e12, d 1..8], [.. d 9..50])\n"
               "dtypes: " + ", ".join(cases.DTYPE_NAMES) + "\n"
               "        (lowp: " + ", ".join(cases.LOWP_DTYPE_NAMES) + ")\n"
               "shapes: sweep (n=10 ... n=1.6e7 contiguous), n=<size>, scalar, row, col, pdpd,\n"
               "        strided, transposed, fortran (float32), narrow (int8, float32)\n"
               "peers:  numpy (always), " + ", ".join(peers.OPTIONAL) + " (when importable)\n\n"
               "speedup = peer median time / eltwise median time (> 1: eltwise faster).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes and a few repeats: checks the suite runs (about a minute)")
    p.add_argument("--out", default=DEFAULT_OUT, metavar="DIR",
                   help="output directory (default: benchmarks/results)")
    p.add_argument("--threads", default="1,default", metavar="LIST",
                   help="comma-separated thread counts for eltwise and every multithreaded "
                        "peer, each a pass over the cells, e.g. 2 or 1,default (the default; "
                        "'default' = eltwise's default, the CPUs this process may use). "
                        "Passes with more than one thread skip the sizes eltwise runs on "
                        "one thread anyway (n < 1e5)")
    p.add_argument("--section", default="all", choices=("all",) + SECTIONS,
                   help="run one section only: main, lowp (the low-precision dtypes) or "
                        "chains (eltwise.fuse; writes chains.md and chains.json); default "
                        "all (main and lowp). The filters below apply to main and lowp; "
                        "chains takes --peers (numexpr, numba, torch) and --threads")
    p.add_argument("--ops", default=None, metavar="LIST",
                   help="comma-separated ops to run (default: all)")
    p.add_argument("--dtypes", default=None, metavar="LIST",
                   help="comma-separated dtypes to run (default: all)")
    p.add_argument("--shapes", default=None, metavar="LIST",
                   help="comma-separated shape groups to run (default: all)")
    p.add_argument("--peers", default=None, metavar="LIST",
                   help="comma-separated optional peers, or 'none' (default: all importable)")
    p.add_argument("--target", default=None, metavar="NAME",
                   help="eltwise.set_target(NAME) before running (default: the best)")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="timing seconds per library per cell (default 0.1; quick 0.004)")
    p.add_argument("--no-plot", action="store_true", help="do not draw the PNG plots")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 if any eltwise result differs from NumPy's")
    args = p.parse_args(argv)

    def split(s):
        return [x.strip() for x in s.split(",") if x.strip()] if s else None

    args.ops, args.dtypes, args.shapes, args.peers = map(
        split, (args.ops, args.dtypes, args.shapes, args.peers))
    if args.ops:
        bad = [o for o in args.ops if o.split("(")[0] not in cases.OP_BASE_NAMES]
        if bad:
            p.error(f"unknown op(s) {bad}; choose from {cases.OP_BASE_NAMES}")
    if args.dtypes:
        known = cases.DTYPE_NAMES + cases.LOWP_DTYPE_NAMES
        bad = [d for d in args.dtypes if d not in known]
        if bad:
            p.error(f"unknown dtype(s) {bad}; choose from {known}")
    if args.peers:
        bad = [x for x in args.peers if x not in peers.OPTIONAL and x not in ("none", "numpy")]
        if bad:
            p.error(f"unknown peer(s) {bad}; choose from {list(peers.OPTIONAL)} or none")
    args.threads = split(args.threads) or ["default"]
    for t in args.threads:
        if t != "default" and not (t.isdigit() and int(t) >= 1):
            p.error(f"--threads: {t!r} is neither a count >= 1 nor 'default'")
    return args


def thread_counts(wanted, default):
    """Resolves --threads ("1", "default", ...) to distinct counts, in the order given."""
    return list(dict.fromkeys(default if t == "default" else int(t) for t in wanted))


class Progress:
    """tqdm if installed, else a counter on stderr."""

    def __init__(self, total):
        self.total, self.done, self.t0 = total, 0, time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.bar = None
        if self.tty:  # in a log, a line every 10% reads better than a redrawn bar
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, unit="cell", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                pass
        self.last_print = -1

    def step(self, label):
        self.done += 1
        if self.bar is not None:
            self.bar.set_description_str(label[:40].ljust(40), refresh=False)
            self.bar.update(1)
            return
        pct = 100 * self.done // self.total
        if self.tty:
            sys.stderr.write(f"\r[{self.done:4d}/{self.total}] {pct:3d}% "
                             f"{time.perf_counter() - self.t0:6.0f}s  {label[:50]:<50}")
        elif pct // 10 != self.last_print // 10 or self.done == self.total:
            sys.stderr.write(f"[{self.done}/{self.total}] {pct}% "
                             f"{time.perf_counter() - self.t0:.0f}s {label}\n")
        self.last_print = pct
        sys.stderr.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()
        elif self.tty:
            sys.stderr.write("\n")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    have = set(line.split(":", 1)[1].split())
                    want = ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw",
                            "avx512_bf16", "avx512_fp16"]
                    return [w for w in want if w in have]
    except OSError:
        pass
    return []


def select(items, wanted, key):
    if not wanted:
        return items
    return [x for x in items if any(key(x, w) for w in wanted)]


def op_matches(op, w):
    return op.name == w or op.row == w or op.func == w or op.name.split("(")[0] == w


def shape_matches(shape, w):
    w = SHAPE_ALIASES.get(w.lower(), w.lower())
    return shape.kind.lower().startswith(w)


def lacks_dtype(exc, shape):
    """True when eltwise refuses the dtype of a low-precision cell (TypeError "eltwise.add
    does not support dtype int4"): that cell is skipped with eltwise's message, and measured
    once eltwise supports the dtype. In the main section every dtype must work."""
    return (shape.section == "lowp" and isinstance(exc, TypeError)
            and "does not support dtype" in str(exc))


def run_cell(libs, op, dt, shape, xs, budget, ref, threads):
    """Checks and times every library on one cell; returns the cell's record."""
    rec = {"section": shape.section, "op": op.row, "op_base": op.name, "inputs": op.inputs,
           "func": op.func,
           "kwargs": {**op.kwargs, **shape.eltwise_kwargs}, "threads": threads,
           "dtype": dt.name, "shape_kind": shape.kind, "shape": shape.describe(),
           "shape1": list(np.shape(xs.x1)),
           "shape2": list(xs.x2.shape) if isinstance(xs.x2, np.ndarray) else None,
           "n_out": int(np.size(ref)), "bytes": cases.nbytes_moved(xs, ref), "libs": {}}
    float_power = op.func == "power" and cases.is_float(dt)
    calls, first_call = {}, {}
    for lib in libs:
        if not lib.wants(op, dt, shape):
            continue
        entry = rec["libs"].setdefault(lib.name, {})
        try:
            call, to_np = lib.prepare(op, dt, shape, xs)
            lib.enter()
            shared = lib.shared_calls()
            t0 = time.perf_counter()
            got = call()
            first_call[lib.name] = time.perf_counter() - t0
            if shared is not None:  # whether eltwise split the call across its threads
                entry["split"] = lib.shared_calls() > shared
            got = to_np(got)
        except peers.Skip as exc:
            entry["skipped"] = str(exc)
            continue
        except Exception as exc:
            skip = lib.name != "eltwise" or lacks_dtype(exc, shape)
            entry["skipped" if skip else "error"] = peers._first_line(exc)
            continue
        if lib.name == "numpy" and op.numpy_timed is not op.reference:
            entry["check"] = "stand-in"
            entry["note"] = op.note
        else:
            ulps = (1 if float_power else 0) if not lib.peer else (
                4 if cases.is_float(dt) else 0)
            status, detail = cases.compare(got, ref, ulps)
            entry["check"] = status
            if detail:
                entry["detail"] = detail
            if status == "wrong" and lib.peer:
                entry["skipped"] = f"result differs from NumPy's: {detail}"
                continue
        del got
        calls[lib.name] = call
    if calls:
        enter = {lib.name: lib.enter for lib in libs if lib.name in calls}
        for name, t in timing.interleaved(calls, budget, first_call, enter).items():
            e = rec["libs"][name]
            e.update(median_s=t.median, min_s=t.min, samples=t.samples,
                     calls_per_sample=t.calls_per_sample,
                     elements_per_s=rec["n_out"] / t.median,
                     gbps=rec["bytes"] / t.median / 1e9)
    elt = rec["libs"].get("eltwise", {})
    rec["speedup"] = {}
    if "median_s" in elt:
        for name, e in rec["libs"].items():
            if name != "eltwise" and "median_s" in e:  # eltwise(out=) too: out= / fresh
                rec["speedup"][name] = e["median_s"] / elt["median_s"]
    return rec


def main_plan(args):
    """The main section's cells, as (shape, dtype, ops), under the filters."""
    shapes = select(cases.shapes(args.quick), args.shapes, shape_matches)
    dtypes = [cases.dtype_of(d) for d in (args.dtypes or cases.DTYPE_NAMES)
              if d in cases.DTYPE_NAMES and (d != "bfloat16" or cases.bfloat16 is not None)]
    return [(s, dt, [op for op in select(cases.ops_for(dt), args.ops, op_matches)
                     if s.measures(dt, op)])
            for s in shapes for dt in dtypes]


def lowp_plan(args):
    """The low-precision section's cells, as (shape, dtype, ops), under the filters: the
    reference cell (LOWP_REFERENCE) first whenever a low-precision dtype is selected, so
    the goal comparing with it has it in the same run."""
    if cases.ml_dtypes is None:
        return []
    shapes = select([cases.lowp_shape(args.quick)], args.shapes, shape_matches)
    dtypes = [cases.dtype_of(d) for d in cases.LOWP_DTYPE_NAMES
              if not args.dtypes or d in args.dtypes]
    if not dtypes:
        return []
    ref_op, ref_dtype = cases.LOWP_REFERENCE
    ref_dt = cases.dtype_of(ref_dtype)
    ref = [op for op in select(cases.ops_for(ref_dt), args.ops, op_matches)
           if op.name == ref_op]
    return [(s, dt, ops) for s in shapes
            for dt, ops in [(ref_dt, ref)] + [
                (dt, select(cases.lowp_ops(dt), args.ops, op_matches)) for dt in dtypes]]


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t_start = time.perf_counter()
    try:
        import eltwise
    except ImportError as exc:
        print(f"error: cannot import eltwise ({exc}); install the project first "
              "(see README.md)", file=sys.stderr)
        return 2
    if args.target:
        eltwise.set_target(args.target)
    thread_list = thread_counts(args.threads, eltwise.get_num_threads())

    # Interleaving puts other libraries' calls right after PyTorch's: OpenMP workers that
    # spin after each parallel region would steal the second core from them (on 2 cores a
    # spinning worker halved NumPy's speed and, with the other core busy, slowed PyTorch
    # 20x). Passive waiting is the fair setting here; it is read when torch loads.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    if load_start is not None and load_start > 0.7:
        print(f"warning: load average {load_start:.2f} before the run: another process is "
              "busy, and multithreaded timings will suffer", file=sys.stderr)
    wanted = list(peers.OPTIONAL) if args.peers is None else [
        x for x in args.peers if x in peers.OPTIONAL]
    optional, missing = peers.load_optional(wanted)
    libs = [peers.Eltwise(eltwise), peers.NumPy()] + optional + [
        peers.EltwiseOut(eltwise), peers.EltwiseOneThread(eltwise),
        peers.EltwiseCOrder(eltwise)]

    budget = timing.QUICK if args.quick else timing.FULL
    if args.budget:
        budget = timing.Budget(per_lib=args.budget, min_sample=budget.min_sample,
                               min_rounds=budget.min_rounds, max_rounds=budget.max_rounds)

    cfg = io.StringIO()
    with contextlib.redirect_stdout(cfg):
        eltwise.show_config()
    meta = {
        "command": "python -m benchmarks " + " ".join(sys.argv[1:] if argv is None else argv),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "quick": args.quick,
        "cpu": cpu_model(),
        "cpu_flags": cpu_flags(),
        "cpus": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "eltwise_target": eltwise.get_target(),
        "eltwise_targets": list(eltwise.get_targets()),
        "eltwise_config": cfg.getvalue(),
        "threads": max(thread_list),
        "thread_counts": thread_list,
        "versions": {lib.name: lib.version for lib in libs},
        "peers_missing": missing,
        "notes": [n for lib in libs for n in lib.notes],
        "budget": vars(budget),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "load_average_start": load_start,
    }

    print(f"eltwise {meta['versions']['eltwise']} target {meta['eltwise_target']}, "
          f"thread counts {thread_list}; CPU: {meta['cpu']}", file=sys.stderr)
    print("peers: " + ", ".join(f"{lib.name} {lib.version}" for lib in libs[1:])
          + "".join(f"; {k}: {v}" for k, v in missing.items()), file=sys.stderr)
    print("measuring copy roofline ...", file=sys.stderr)
    meta["roofline"] = timing.roofline(args.quick)

    if args.section == "chains":
        records = chains.run(args, meta, thread_list, budget)
        bad = [r for r in records if r["libs"]["eltwise fused"].get("check") != "exact"]
        for r in bad:
            print(f"WARNING: eltwise fused differs from unfused on {r['chain']}: "
                  f"{r['libs']['eltwise fused']}")
        print(f"wrote {os.path.join(args.out, 'chains.md')}")
        return 1 if (bad and args.strict) else 0

    plan = []
    if args.section in ("all", "main"):
        plan += main_plan(args)
    if args.section in ("all", "lowp"):
        plan += lowp_plan(args)

    def passes(shape):
        return [t for t in thread_list if t == min(thread_list) or shape.multi_thread]
    total = sum(len(o) * len(passes(s)) for s, _, o in plan)
    if total == 0:
        print("error: the filters select no cell", file=sys.stderr)
        return 2

    rng = np.random.default_rng(12345)
    records = []
    progress = Progress(total)
    try:
        for shape, dt, ops in plan:
            operands = {}
            for op in ops:
                key = (op.inputs, op.scalar)
                if key not in operands:
                    operands[key] = cases.make_operands(rng, dt, shape, op.inputs, op.scalar)
                xs = operands[key]
                with np.errstate(all="ignore"):
                    ref = op.reference(xs.x1, xs.x2_np)
                # Every thread count on the same operands, one after the other.
                for threads in passes(shape):
                    for lib in libs:
                        lib.set_threads(threads)
                    t_cell = time.perf_counter()
                    with np.errstate(all="ignore"):
                        rec = run_cell(libs, op, dt, shape, xs, budget, ref, threads)
                    rec["sweep"] = shape.sweep
                    rec["elapsed_s"] = time.perf_counter() - t_cell
                    records.append(rec)
                    progress.step(f"{op.row} {dt.name} {shape.kind} {threads}t")
                del ref
            operands.clear()
    except KeyboardInterrupt:
        print("\ninterrupted: writing the cells measured so far", file=sys.stderr)
    finally:
        progress.close()

    meta["elapsed_s"] = time.perf_counter() - t_start
    meta["load_average_end"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    os.makedirs(args.out, exist_ok=True)
    paths = report.write_all(args.out, meta, records, libs, plot=not args.no_plot)
    print(report.console_summary(meta, records, libs))
    unsupported = [r for r in records if "skipped" in r["libs"].get("eltwise", {})]
    if unsupported:
        print(f"\nnote: {len(unsupported)} cell(s) skipped, eltwise does not support their "
              "dtype: " + ", ".join(sorted({r["dtype"] for r in unsupported})))
    bad = [r for r in records if "skipped" not in r["libs"].get("eltwise", {})
           and r["libs"].get("eltwise", {}).get("check") not in ("exact", "close")]
    if bad:
        print(f"\nWARNING: {len(bad)} cell(s) where eltwise failed or differs from NumPy:")
        for r in bad[:20]:
            e = r["libs"]["eltwise"]
            print(f"  {r['op']} {r['dtype']} {r['shape']}: "
                  f"{e.get('error') or e.get('detail') or e.get('check')}")
    for p in paths:
        print(f"wrote {p}")
    print(f"total {time.perf_counter() - t_start:.0f} s (measuring {meta['elapsed_s']:.0f} s)")
    return 1 if (bad and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
