"""The chains section (``python -m benchmarks --section chains``): ``eltwise.fuse`` on
chains of element-wise ops, against the same chain unfused and the fused peers.

A *chain* is an expression of several operands: ``((a - b) * c + d) / e`` on float32 at
three sizes, the per-channel normalization ``(x - mean) * inv_std * gamma + beta`` on
(8, 64, 56, 56) float32 with (64,) parameters at pdpd ``axis=1`` (the peers get them as
(64, 1, 1)), a float16 chain and an int8 -> float32 chain. Libraries: eltwise fused
(``eltwise.fuse``), eltwise unfused (the same eltwise calls one after the other), NumPy
(the same operators, unfused), and the peers that fuse: numexpr's ``evaluate``, numba's
``@vectorize`` of the scalar function (target "parallel" above one thread), and
``torch.compile`` (inductor, CPU). A peer that cannot compute a chain is listed with the
reason, as in the other sections.

Every library's result is checked against eltwise unfused before it is timed: eltwise
fused must be bit-identical; a peer within 4 ULP is "close", beyond that skipped. The
section writes chains.md (tables and goals, one per thread count) and chains.json to
``--out``.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import os
import time
from collections.abc import Callable

import numpy as np

from . import cases, peers, timing
from .report import fmt_time


@dataclasses.dataclass(frozen=True)
class Cannot:
    """A peer that cannot run a chain, and why."""

    reason: str


@dataclasses.dataclass(frozen=True)
class Chain:
    """One measured chain.

    name: the row label. dtype: the operands' dtype label. make(rng, quick): the operands,
    a dict name -> array. eltwise: the chain as eltwise calls (fused by eltwise.fuse, and
    timed unfused). numpy: the same with NumPy's operators (peer shapes). numexpr: its
    expression; numba: the scalar function and its numba signature (either a Cannot where
    the peer cannot run the chain). torch: the chain on tensors, for torch.compile.
    peer_shapes: name -> shape the peers (NumPy rules) see an operand as.
    """

    name: str
    dtype: str
    make: Callable
    eltwise: Callable
    numpy: Callable
    numexpr: str | Cannot
    numba: tuple | Cannot
    torch: Callable
    peer_shapes: dict = dataclasses.field(default_factory=dict)


def _abcde(dt, n):
    def make(rng, quick):
        size = min(n, 1000) if quick else n
        xs = {k: (rng.standard_normal(size) * 4).astype(dt) for k in "abcd"}
        xs["e"] = rng.uniform(1.0, 2.0, size).astype(dt)
        return xs
    return make


def _chain5(a, b, c, d, e):
    return ((a - b) * c + d) / e


def _eltwise_chain5(a, b, c, d, e):
    import eltwise
    return eltwise.divide(eltwise.add(eltwise.multiply(eltwise.subtract(a, b), c), d), e)


def _norm_make(rng, quick):
    shape = (2, 8, 7, 7) if quick else (8, 64, 56, 56)
    xs = {"x": rng.standard_normal(shape).astype(np.float32)}
    for k in ("mean", "inv_std", "gamma", "beta"):
        xs[k] = rng.standard_normal(shape[1]).astype(np.float32)
    return xs


def _eltwise_norm(x, mean, inv_std, gamma, beta):
    import eltwise
    kw = {"broadcast": "pdpd", "axis": 1}
    y = eltwise.multiply(eltwise.subtract(x, mean, **kw), inv_std, **kw)
    return eltwise.add(eltwise.multiply(y, gamma, **kw), beta, **kw)


def _norm(x, mean, inv_std, gamma, beta):
    return (x - mean) * inv_std * gamma + beta


def _int8_make(rng, quick):
    size = 1000 if quick else 10**6
    return {"x": rng.integers(-128, 128, size).astype(np.int8),
            "y": rng.integers(-128, 128, size).astype(np.int8)}


def _eltwise_dequant(x, y):
    import eltwise
    f32 = np.float32
    return eltwise.add(eltwise.multiply(eltwise.subtract(x, 3, dtype=f32), f32(0.05)),
                       eltwise.multiply(eltwise.subtract(y, -2, dtype=f32), f32(0.1)))


def _numpy_dequant(x, y):
    f32 = np.float32
    return (x.astype(f32) - f32(3)) * f32(0.05) + (y.astype(f32) - f32(-2)) * f32(0.1)


def _torch_dequant(x, y):
    import torch
    return (x.to(torch.float32) - 3.0) * 0.05 + (y.to(torch.float32) + 2.0) * 0.1


def _numba_dequant(x, y):
    return ((np.float32(x) - np.float32(3)) * np.float32(0.05)
            + (np.float32(y) - np.float32(-2)) * np.float32(0.1))


SIZES = (("n=10", 10), ("n=1e5", 10**5), ("n=1e6", 10**6), ("n=1.6e7", 16 * 10**6))
# Up to this many elements a chain is timed against one eltwise call too (a fused call's
# fixed cost: the goal of a cached call within 2x of one call).
ONE_CALL_N = 100

def _part(a, k, threads):
    """The k-th of `threads` contiguous parts of the 1-d array a (the last takes the rest):
    what thread k reads or copies in read_operands and copy_operands."""
    m = a.size // threads
    return a[k * m:(k + 1) * m if k < threads - 1 else None]


READ_BOUND = "read bound"  # the operands read once, nothing written (the big chain only)
READ_BOUND_N = 10**7  # the chains of at least this many elements get it


def read_operands(arrays, threads, pool):
    """A call that reads every operand's bytes once and writes nothing: NumPy's max over
    each one's uint64 words (it releases the GIL; on 2 threads each thread reads one half
    of every operand, as the fused chain's threads do). What the reads alone cost, for
    comparison with the fused chain, which must read the same bytes: a reference, not a
    strict bound (NumPy reads the operands one after the other, the chain all at once)."""
    words = [np.ascontiguousarray(a).reshape(-1).view(np.uint8) for a in arrays]
    words = [w[: w.size // 8 * 8].view(np.uint64) for w in words]
    if threads <= 1:
        return lambda: [w.max() for w in words]
    parts = [[_part(w, k, threads) for w in words] for k in range(threads)]

    def run():
        futs = [pool.submit(lambda ws: [w.max() for w in ws], ws) for ws in parts]
        return [f.result() for f in futs]
    return run


COPY = "copy"  # np.copyto from each operand in turn, timed beside the big chain


def copy_operands(arrays, threads, pool):
    """(call, bytes per call): np.copyto of one operand into a result-sized array, the
    next operand on the next call, so that the copies stream from memory as the chain
    does (one 64 MiB array copied again and again stays partly in a large L3). On 2
    threads each thread copies one half. The chain's roofline is its bytes at this
    bandwidth, measured in the same rounds as the chain."""
    srcs = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    dst = np.zeros_like(srcs[0])
    srcs = [s for s in srcs if s.shape == dst.shape and s.dtype == dst.dtype]
    turn = [0]

    def run():
        src = srcs[turn[0] % len(srcs)]
        turn[0] += 1
        if threads <= 1:
            return np.copyto(dst, src)
        futs = [pool.submit(np.copyto, _part(dst, k, threads), _part(src, k, threads))
                for k in range(threads)]
        return [f.result() for f in futs]
    return run, 2 * dst.nbytes


NO_HALF = Cannot("numexpr has no float16")
CHAINS = [
    *(Chain(f"((a - b) * c + d) / e, {label}", "float32", _abcde(np.float32, n),
            _eltwise_chain5, _chain5, "((a - b) * c + d) / e",
            (_chain5, "float32(float32, float32, float32, float32, float32)"), _chain5)
      for label, n in SIZES),
    Chain("(x - mean) * inv_std * gamma + beta, (8, 64, 56, 56) pdpd axis=1", "float32",
          _norm_make, _eltwise_norm, _norm, "(x - mean) * inv_std * gamma + beta",
          (_norm, "float32(float32, float32, float32, float32, float32)"), _norm,
          peer_shapes={k: (-1, 1, 1) for k in ("mean", "inv_std", "gamma", "beta")}),
    Chain("((a - b) * c + d) / e, n=1e6", "float16", _abcde(np.float16, 10**6),
          _eltwise_chain5, _chain5, NO_HALF, Cannot("numba has no float16 arithmetic"), _chain5),
    Chain("(x - 3) * 0.05 + (y + 2) * 0.1, int8 -> float32, n=1e6", "int8->float32",
          _int8_make, _eltwise_dequant, _numpy_dequant, Cannot("numexpr has no int8"),
          (_numba_dequant, "float32(int8, int8)"), _torch_dequant),
]


def _peer_view(chain, xs):
    return {k: v.reshape(chain.peer_shapes[k]) if k in chain.peer_shapes else v
            for k, v in xs.items()}


class _Peers:
    """The fused peers, each loaded when importable (else the reason)."""

    def __init__(self, wanted):
        self.loaded, self.missing = {}, {}
        for name in ("numexpr", "numba", "torch.compile"):
            if wanted is not None and name not in wanted and name.split(".")[0] not in wanted:
                continue
            try:
                self.loaded[name] = __import__(name.split(".")[0])
            except ImportError as exc:
                self.missing[name] = f"not importable ({exc})"
        self.compiled = {}

    def set_threads(self, n):
        if "numexpr" in self.loaded:
            self.loaded["numexpr"].set_num_threads(n)
        if "numba" in self.loaded:
            nb = self.loaded["numba"]
            nb.set_num_threads(min(n, nb.config.NUMBA_NUM_THREADS))
        if "torch.compile" in self.loaded:
            self.loaded["torch.compile"].set_num_threads(n)

    def prepare(self, name, chain, xs, threads):
        """A zero-argument callable computing the chain, or raises peers.Skip."""
        pv = _peer_view(chain, xs)
        if name == "numexpr":
            if isinstance(chain.numexpr, Cannot):
                raise peers.Skip(chain.numexpr.reason)
            ev, expr = self.loaded["numexpr"].evaluate, chain.numexpr
            return lambda: ev(expr, local_dict=pv)
        if name == "numba":
            if isinstance(chain.numba, Cannot):
                raise peers.Skip(chain.numba.reason)
            fn, sig = chain.numba
            target = "parallel" if threads > 1 else "cpu"
            key = (chain.name, target)
            if key not in self.compiled:
                try:
                    self.compiled[key] = self.loaded["numba"].vectorize(
                        [sig], target=target)(fn)
                except Exception as exc:  # noqa: BLE001 - reported as the reason
                    self.compiled[key] = peers.Skip(
                        f"numba cannot compile {sig}: {peers._first_line(exc)}")
            ufunc = self.compiled[key]
            if isinstance(ufunc, peers.Skip):
                raise ufunc
            args = list(pv.values())
            return lambda: ufunc(*args)
        torch = self.loaded["torch.compile"]
        key = (chain.name, "torch")
        if key not in self.compiled:
            self.compiled[key] = torch.compile(chain.torch, dynamic=False)
        fn = self.compiled[key]
        tensors = [torch.from_numpy(np.ascontiguousarray(v)) for v in pv.values()]
        return lambda: fn(*tensors).numpy()


def run_chain(chain, rng, quick, budget, threads, fused_peers, read_pool):
    """Checks and times every library on one chain; returns its record. read_pool: a
    thread pool for read_operands."""
    import eltwise
    xs = chain.make(rng, quick)
    args = list(xs.values())
    fused = eltwise.fuse(chain.eltwise)
    with np.errstate(all="ignore"):
        ref = chain.eltwise(*args)
    rec = {"section": "chains", "chain": chain.name, "dtype": chain.dtype,
           "threads": threads, "n_out": int(ref.size), "shape": list(ref.shape),
           "bytes": int(sum(np.asarray(v).nbytes for v in args) + ref.nbytes), "libs": {}}
    pv = list(_peer_view(chain, xs).values())
    candidates = {
        "eltwise fused": lambda: fused(*args),
        "eltwise unfused": lambda: chain.eltwise(*args),
        "numpy": lambda: chain.numpy(*pv),
    }
    calls, first = {}, {}
    for name in list(candidates) + list(fused_peers.loaded):
        entry = rec["libs"].setdefault(name, {})
        try:
            call = candidates[name] if name in candidates else fused_peers.prepare(
                name, chain, xs, threads)
            t0 = time.perf_counter()
            with np.errstate(all="ignore"):
                got = np.asarray(call())
            first[name] = time.perf_counter() - t0
        except peers.Skip as exc:
            entry["skipped"] = str(exc)
            continue
        except Exception as exc:  # noqa: BLE001 - a peer that fails cannot compute it
            entry["skipped" if name != "eltwise fused" else "error"] = peers._first_line(exc)
            continue
        exact_required = name.startswith("eltwise")
        status, detail = cases.compare(got, ref, 0 if exact_required else 4)
        entry["check"] = status
        if detail:
            entry["detail"] = detail
        if status == "wrong" and not exact_required:
            entry["skipped"] = f"result differs from eltwise's unfused: {detail}"
            continue
        calls[name] = call
    if rec["n_out"] <= ONE_CALL_N:  # not the chain: not checked, timed for the goal only
        rec["libs"]["eltwise one call"] = {"check": "one eltwise.add, not the chain"}
        calls["eltwise one call"] = lambda: eltwise.add(args[0], args[1])
        # The cached call again, its operands named by keyword as code names them,
        # fused(a=a, b=b, ...) (the same signature; fused(**xs) would time CPython's
        # unpacking of a dict too).
        by_keyword = eval("lambda: fused(" + ", ".join(f"{k}={k}" for k in xs) + ")",
                          {"fused": fused, **xs})
        status, detail = cases.compare(np.asarray(by_keyword()), ref, 0)
        rec["libs"]["eltwise fused, keywords"] = {"check": status, **(
            {"detail": detail} if detail else {})}
        if status != "wrong":
            calls["eltwise fused, keywords"] = by_keyword
        # The cached call and the one call again, each writing into an out= array
        # (fused(a, b, ..., out=o) as code writes it; fused(*args, out=o) would time
        # CPython's packing of the keyword into a dict too).
        ref_arr = np.asarray(ref)
        out_fused, out_one = np.empty_like(ref_arr), np.empty_like(ref_arr)
        with_out = eval("lambda: fused(" + ", ".join(xs) + ", out=out_fused)",
                        {"fused": fused, "out_fused": out_fused, **xs})
        status, detail = cases.compare(np.asarray(with_out()), ref, 0)
        rec["libs"]["eltwise fused, out="] = {"check": status, **(
            {"detail": detail} if detail else {})}
        if status != "wrong":
            calls["eltwise fused, out="] = with_out
        rec["libs"]["eltwise one call, out="] = {"check": "one eltwise.add, not the chain"}
        calls["eltwise one call, out="] = lambda: eltwise.add(args[0], args[1], out=out_one)
    if rec["n_out"] >= READ_BOUND_N and chain.dtype == "float32":
        rec["libs"][READ_BOUND] = {"check": "reads the operands, computes nothing"}
        calls[READ_BOUND] = read_operands(args, threads, read_pool)
        calls[COPY], copy_bytes = copy_operands(args, threads, read_pool)
        rec["libs"][COPY] = {"check": "copies one operand a call", "bytes": copy_bytes}
    for name, t in timing.interleaved(calls, budget, first).items():
        rec["libs"][name].update(median_s=t.median, min_s=t.min, samples=t.samples,
                                 gbps=rec["bytes"] / t.median / 1e9)
    if rec["libs"].get(COPY, {}).get("median_s"):  # its own bytes, not the chain's
        rec["libs"][COPY]["gbps"] = rec["libs"][COPY]["bytes"] / rec["libs"][COPY]["median_s"] / 1e9
    return rec


def roofline_ratio(rec, meta):
    """The fused chain's time as a fraction of one pass at the copy bandwidth: the copy
    timed in the same rounds (copy_operands) where the record has it, else the run's."""
    t = rec["libs"].get("eltwise fused", {}).get("median_s")
    roof = rec["libs"].get(COPY, {}).get("gbps") or \
        meta["roofline"].get(f"threads_{min(rec['threads'], 2)}", {}).get("gbps")
    return rec["bytes"] / roof / 1e9 / t if t and roof else None


def goals(meta, records):
    """(goal, measured, met) rows: fused vs unfused, the roofline, the peers."""
    out = []

    def ratio(rec, other):
        f = rec["libs"].get("eltwise fused", {}).get("median_s")
        o = rec["libs"].get(other, {}).get("median_s")
        return o / f if f and o else None

    big = [r for r in records if r["chain"].startswith("((a - b)") and r["dtype"] == "float32"
           and r["n_out"] >= 16 * 10**6]
    norm = [r for r in records if r["chain"].startswith("(x - mean)")]
    rows = [
        ("((a - b) * c + d) / e, 1.6e7 float32: fused >= 85% of the one-pass roofline", big,
         lambda r: roofline_ratio(r, meta), 0.85),
        ("the same: fused >= 1.8x unfused eltwise", big,
         lambda r: ratio(r, "eltwise unfused"), 1.8),
        ("per-channel normalization (8, 64, 56, 56) pdpd axis=1: fused >= 2.5x unfused",
         norm, lambda r: ratio(r, "eltwise unfused"), 2.5),
    ]
    tiny = [r for r in records if r["n_out"] <= ONE_CALL_N]
    rows.append(("a cached fused call on n=10 float32 <= 2x one eltwise call (one call / "
                 "fused >= 0.5)", tiny, lambda r: ratio(r, "eltwise one call"), 0.5))

    def versus(fused, one):
        """one call / the fused call `fused`, both named in a record's libs."""
        def value(r):
            if r["libs"].get(fused, {}).get("check") == "wrong":
                return 0.0  # other bits than the positional call: the goal fails
            k = r["libs"].get(fused, {}).get("median_s")
            o = r["libs"].get(one, {}).get("median_s")
            return o / k if k and o else None
        return value

    rows.append(("the same with the operands by keyword (one call / fused >= 0.5)", tiny,
                 versus("eltwise fused, keywords", "eltwise one call"), 0.5))
    rows.append(("the same, each writing into out= (one call / fused >= 0.5)", tiny,
                 versus("eltwise fused, out=", "eltwise one call, out="), 0.5))
    # fused / the read bound beside the 1.8x goal: how near the one pass is to the time
    # its reads alone take here.
    near = [(r["libs"]["eltwise fused"]["median_s"] / r["libs"][READ_BOUND]["median_s"], r)
            for r in big if r["libs"].get(READ_BOUND, {}).get("median_s")
            and r["libs"].get("eltwise fused", {}).get("median_s")]
    speed_goal = rows[1][0]  # fused >= 1.8x unfused
    notes = {speed_goal: "; fused / reading the five operands alone (NumPy's max over each, "
                         "nothing written): " + ", ".join(
                             f"{v:.2f} ({c['threads']} thread{'s' if c['threads'] > 1 else ''})"
                             for v, c in near)} if near else {}
    for goal, recs, value, need in rows:
        vals = [(value(r), r) for r in recs]
        vals = [(v, r) for v, r in vals if v is not None]
        if not vals:
            out.append((goal, "not measured in this run", None))
            continue
        worst, r = min(vals, key=lambda x: x[0])
        measured = (f"lowest {worst:.2f} ({r['threads']} thread"
                    f"{'s' if r['threads'] > 1 else ''})" + notes.get(goal, ""))
        out.append((goal, measured, worst >= need))
    faster, total = [], 0
    for r in records:
        for name in ("numexpr", "numba", "torch.compile"):
            v = ratio(r, name)
            if v is not None:
                total += 1
                if v < 1.0:
                    faster.append(f"{name} on {r['chain']} ({r['threads']}t): {v:.2f}x")
    out.append(("fused faster than every fused peer, every chain and thread count",
                "; ".join(faster) or f"faster in all {total} peer cells",
                None if total == 0 else not faster))
    return out


def markdown(meta, records):
    names = ["eltwise fused", "eltwise unfused", "numpy", "numexpr", "numba", "torch.compile"]
    md = ["# eltwise benchmarks: fused chains", "",
          "Median time per call; in parentheses the library's time / eltwise fused's "
          "(> 1: fused is faster). eltwise fused is checked bit-identical to eltwise unfused "
          "before it is timed; peers within 4 ULP are marked ≈. Bytes = every operand read "
          "once + the result written once (one pass); roofline = that at the copy "
          "bandwidth (on the 1.6e7 chain, np.copyto from each operand in turn, timed in the "
          "same rounds; elsewhere the run's copy of 64 MiB). On the 1.6e7 chain, the read "
          "bound (in the goals) is NumPy's max over each operand's words, timed in the "
          "same rounds: the operands' reads alone, nothing written.", "",
          f"- CPU: {meta['cpu']} ({meta['cpus']} CPUs, {meta['cpus_usable']} usable; flags: "
          f"{' '.join(meta['cpu_flags']) or 'n/a'}); eltwise target "
          f"**{meta['eltwise_target']}** (this CPU runs: {', '.join(meta['eltwise_targets'])})",
          f"- command: `{meta['command'].strip()}`, {meta['date']}",
          "", "## Goals", "", "| goal | measured | met |", "|---|---|---|"]
    for goal, measured, met in goals(meta, records):
        mark = "not measured" if met is None else ("met" if met else "**not met**")
        md.append(f"| {goal} | {measured} | {mark} |")
    for t in sorted({r["threads"] for r in records}):
        md += ["", f"## Chains, {t} thread{'s' if t > 1 else ''}", "",
               "| chain | dtype | shape measured | " + " | ".join(names)
               + " | fused / roofline |",
               "|---|---|---|" + "---:|" * (len(names) + 1)]
        for r in (r for r in records if r["threads"] == t):
            fused = r["libs"].get("eltwise fused", {}).get("median_s")
            cells = []
            for n in names:
                e = r["libs"].get(n, {})
                if "median_s" in e:
                    rel = f" ({e['median_s'] / fused:.2f}x)" if fused and n != "eltwise fused" \
                        else ""
                    cells.append(fmt_time(e["median_s"]) + rel
                                 + ("≈" if e.get("check") == "close" else ""))
                else:
                    why = e.get("skipped") or e.get("error") or "not run"
                    cells.append(f"cannot compute: {why[:100]}".replace("|", "\\|"))
            rr = roofline_ratio(r, meta)
            shape = "x".join(map(str, r["shape"]))
            md.append(f"| {r['chain']} | {r['dtype']} | {shape} | " + " | ".join(cells)
                      + f" | {'' if rr is None else f'{100 * rr:.0f}%'} |")
    return "\n".join(md) + "\n"


def run(args, meta, thread_list, budget):
    """Runs the section; writes chains.md and chains.json to args.out; returns records."""
    fused_peers = _Peers(args.peers)
    meta = dict(meta, peers_missing={**meta.get("peers_missing", {}), **fused_peers.missing})
    records = []
    read_pool = concurrent.futures.ThreadPoolExecutor(2)
    for chain in CHAINS:
        for t in thread_list:
            import eltwise
            eltwise.set_num_threads(t)
            fused_peers.set_threads(t)
            rng = np.random.default_rng(2024)
            records.append(run_chain(chain, rng, args.quick, budget, t, fused_peers, read_pool))
            print(f"chains: {chain.name} {t}t done", flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "chains.json"), "w") as f:
        json.dump({"meta": meta, "cells": records}, f, indent=1, default=str)
    with open(os.path.join(args.out, "chains.md"), "w") as f:
        f.write(markdown(meta, records))
    return records
