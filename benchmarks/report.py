"""Writes results.json, results.md and the PNG plots; formats the console summary."""

from __future__ import annotations

import collections
import json
import math
import os

from .cases import LOWP_DTYPE_NAMES, LOWP_REFERENCE, ONE_THREAD_SHAPE

SKIP = "—"
OUT_LIB = "eltwise(out=)"  # eltwise writing into a preallocated result: no peer
ONE_LIB = "eltwise(1 thread)"  # eltwise at 1 thread in a pass with more: no peer
C_LIB = "eltwise(C order)"  # eltwise on the Fortran cells' transposes: no peer
NOT_PEERS = ("eltwise", OUT_LIB, ONE_LIB, C_LIB)


def fmt_time(s):
    if s is None or s != s:
        return SKIP
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_ratio(r):
    if r is None:
        return SKIP
    return f"{r:.3g}" if r < 100 else f"{r:.0f}"


OP_ORDER = ["divide", "divide(floor)", "divide(trunc)", "floor_divide", "mod", "multiply", "add",
            "power", "maximum", "greater"]


def _rows_cols(records):
    """Returns (row keys (op row, dtype) in a fixed op order, column shape kinds in run
    order). Operand variants of an op (int64/uint64 division) follow the op, in run order."""
    rows, cols, base = [], [], {}
    for r in records:
        if (r["op"], r["dtype"]) not in rows:
            rows.append((r["op"], r["dtype"]))
        if r["shape_kind"] not in cols:
            cols.append(r["shape_kind"])
        base.setdefault(r["op"], r.get("op_base", r["op"]))
    labels = list(dict.fromkeys(o for o, _ in rows))
    dt_order = list(dict.fromkeys(d for _, d in rows))

    def key(k):
        b = base[k[0]]
        return (OP_ORDER.index(b) if b in OP_ORDER else len(OP_ORDER), b,
                labels.index(k[0]), dt_order.index(k[1]))
    rows.sort(key=key)
    return rows, cols


def _index(records):
    return {(r["op"], r["dtype"], r["shape_kind"]): r for r in records}


def section(records, name):
    """The records of one section, "main" or "lowp" (records without one are main's). The
    main section's tables, geometric means and plots leave the low-precision cells out:
    they have their own table and goals."""
    return [r for r in records if r.get("section", "main") == name]


def by_threads(records):
    """Returns {thread count: records of that pass}, in increasing thread count."""
    out = collections.defaultdict(list)
    for r in records:
        out[r.get("threads", 1)].append(r)
    return dict(sorted(out.items()))


def threads_label(t):
    return f"{t} thread" + ("s" if t != 1 else "")


def cell_label(r):
    return f"{r['op']} {r['dtype']} {r['shape_kind']}, {threads_label(r.get('threads', 1))}"


def _eltwise_flag(rec):
    e = rec["libs"].get("eltwise", {})
    if "error" in e:
        return "ERR"
    return "✗" if e.get("check") == "wrong" else ""


def _speedup_cell(rec, peer):
    if rec is None:
        return ""
    flag = _eltwise_flag(rec)
    if flag == "ERR":
        return "ERR"
    r = rec["speedup"].get(peer)
    if r is None:
        return SKIP if peer in rec["libs"] else ""
    p = rec["libs"][peer]
    mark = "≈" if p.get("check") == "close" else ("†" if p.get("check") == "stand-in" else "")
    return f"{fmt_ratio(r)}{mark}{flag}"


def _row(*cells):
    """One Markdown table row; a "|" inside a cell (the operand kinds' "[|x|<=1e12,
    d 1..8]") is escaped, else it would split the cell."""
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def _grid(records, cell):
    """A Markdown table: one row per (op, dtype), one column per case;
    cell(record or None) gives each entry."""
    rows, cols = _rows_cols(records)
    idx = _index(records)
    out = ["| op | dtype | " + " | ".join(cols) + " |",
           "|---|---|" + "---:|" * len(cols)]
    for op, dt in rows:
        cells = [cell(idx.get((op, dt, c))) for c in cols]
        out.append(_row(op, dt, *cells))
    return "\n".join(out)


def speedup_table(records, peer):
    return _grid(records, lambda rec: _speedup_cell(rec, peer))


def roofline_gbps(meta, threads):
    key = "threads_1" if threads <= 1 else "threads_2"
    return meta["roofline"][key]["gbps"], key.split("_")[1]


def bandwidth_table(records, meta, threads, lib="eltwise"):
    big = [r for r in records if r["n_out"] >= 10**6]
    if not big:
        return None
    roof, _ = roofline_gbps(meta, threads)

    def cell(rec):
        e = rec["libs"].get(lib, {}) if rec else {}
        if "gbps" in e:
            return f"{e['gbps']:.1f} ({100 * e['gbps'] / roof:.0f}%)"
        return SKIP if rec else ""
    return _grid(big, cell)


def time_table(records, lib):
    return _grid(records, lambda rec: fmt_time(rec["libs"].get(lib, {}).get("median_s"))
                 if rec else "")


def fresh_vs_out_table(records, meta):
    """eltwise with a fresh result against eltwise(out=), with the 2-thread roofline."""
    rows = [r for r in records if "median_s" in r["libs"].get(OUT_LIB, {})]
    if not rows:
        return None
    roof2 = meta["roofline"]["threads_2"]["gbps"]
    out = ["| op | dtype | shape | threads | fresh | out= | fresh / out= | fresh GB/s "
           "(% of 2-thread roofline) | out= GB/s (%) |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        e, o = r["libs"]["eltwise"], r["libs"][OUT_LIB]
        if "median_s" not in e:
            continue
        out.append(_row(r["op"], r["dtype"], r["shape"], r.get("threads", 1),
                        fmt_time(e["median_s"]), fmt_time(o["median_s"]),
                        f"{e['median_s'] / o['median_s']:.2f}",
                        f"{e['gbps']:.1f} ({100 * e['gbps'] / roof2:.0f}%)",
                        f"{o['gbps']:.1f} ({100 * o['gbps'] / roof2:.0f}%)"))
    return "\n".join(out)


def all_figures_table(records, libs):
    names = [lib.name for lib in libs]
    out = ["| op | dtype | shape | threads | elements | eltwise check | "
           + " | ".join(names) + " | eltwise GB/s |",
           "|---|---|---|---:|---:|---|" + "---:|" * (len(names) + 1)]
    for r in records:
        e = r["libs"].get("eltwise", {})
        check = e.get("check") or ("error" if "error" in e else SKIP)
        times = [fmt_time(r["libs"].get(n, {}).get("median_s")) if n in r["libs"] else ""
                 for n in names]
        gb = f"{e['gbps']:.2f}" if "gbps" in e else SKIP
        shape = r["shape"] + (" (lowp)" if r.get("section") == "lowp" else "")
        out.append(_row(r["op"], r["dtype"], shape, r.get("threads", 1), r["n_out"],
                        check, *times, gb))
    return "\n".join(out)


def _short(text, limit=120):
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _eltwise_time_cell(e):
    """eltwise's median time, or why it has none (a dtype it does not support: skipped)."""
    if "median_s" in e:
        return fmt_time(e["median_s"]) + ("✗" if e.get("check") == "wrong" else "")
    if "skipped" in e:
        return f"skipped: {_short(e['skipped'])}"
    return f"ERR: {_short(e['error'])}" if "error" in e else SKIP


def _peer_status(rec, name):
    """A peer's time and eltwise's speedup over it, or "cannot compute: <why>"."""
    p = rec["libs"].get(name)
    if p is None:
        return ""
    if "median_s" not in p:
        return f"cannot compute: {_short(p.get('skipped') or p.get('error') or 'not timed')}"
    r = rec["speedup"].get(name)
    mark = "≈" if p.get("check") == "close" else ""
    return fmt_time(p["median_s"]) + (f" ({fmt_ratio(r)}x{mark})" if r else mark)


def lowp_table(records, libs):
    """The low-precision cells of one pass, a row per dtype and op (dtypes in run order):
    NumPy+ml_dtypes' and eltwise's times, their ratio, and each peer's status."""
    peers = [lib.name for lib in libs[2:] if lib.peer]
    dts = list(dict.fromkeys(r["dtype"] for r in records))

    def key(r):
        b = r.get("op_base", r["op"])
        return dts.index(r["dtype"]), OP_ORDER.index(b) if b in OP_ORDER else len(OP_ORDER)
    out = ["| dtype | op | NumPy+ml_dtypes | eltwise | NumPy / eltwise | "
           + " | ".join(peers) + " |",
           "|---|---|---:|---:|---:|" + "---|" * len(peers)]
    for r in sorted(records, key=key):
        n = r["libs"].get("numpy", {})
        numpy = fmt_time(n.get("median_s")) if "median_s" in n else (
            f"skipped: {_short(n['skipped'])}" if "skipped" in n else SKIP)
        out.append(_row(r["dtype"], r["op"], numpy,
                        _eltwise_time_cell(r["libs"].get("eltwise", {})),
                        fmt_ratio(r["speedup"].get("numpy")),
                        *(_peer_status(r, name) for name in peers)))
    return "\n".join(out)


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def machine_lines(meta, libs):
    v = meta["versions"]
    lines = [
        f"- CPU: {meta['cpu']} ({meta['cpus']} CPUs, {meta['cpus_usable']} usable; "
        f"flags: {' '.join(meta['cpu_flags']) or 'n/a'}); Python {meta['python']}; "
        f"{meta['platform']}",
        f"- eltwise {v['eltwise']}: target **{meta['eltwise_target']}** (this CPU runs: "
        f"{', '.join(meta['eltwise_targets'])}); passes at **"
        + ", ".join(threads_label(t) for t in meta["thread_counts"]) + "**",
        "- peers: " + ", ".join(f"{n} {v[n]}" for n in v if n not in NOT_PEERS),
    ]
    if meta["peers_missing"]:
        lines.append("- not measured: " + "; ".join(f"{k} ({r})" for k, r in
                                                    meta["peers_missing"].items()))
    lines.append(f"- command: `{meta['command'].strip()}`, {meta['date']}, "
                 f"{meta['elapsed_s']:.0f} s in all; load average before "
                 f"{meta.get('load_average_start') or 0:.2f}, after "
                 f"{meta.get('load_average_end') or 0:.2f}; OMP_WAIT_POLICY="
                 f"{meta.get('omp_wait_policy')}")
    return lines


def footer_text(meta):
    v = meta["versions"]
    return (f"CPU: {meta['cpu']} ({meta['cpus']} CPUs) | eltwise {v['eltwise']} target "
            f"{meta['eltwise_target']}, threads "
            f"{'/'.join(map(str, meta['thread_counts']))}\n"
            + ", ".join(f"{n} {v[n]}" for n in v if n not in NOT_PEERS))


def skip_summary(records, libs):
    """One line per library and reason a cell was not timed; wrong results grouped."""
    lines = []
    for lib in libs:
        reasons = collections.Counter()
        wrong = collections.defaultdict(set)
        for r in records:
            reason = r["libs"].get(lib.name, {}).get("skipped")
            if reason is None:
                continue
            if reason.startswith("result differs"):
                wrong[r["dtype"]].add(r["op"])
            else:
                reasons[reason[:140]] += 1
        for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
            lines.append(f"- {lib.name}: not timed in {n} cell(s): {reason}")
        if wrong:
            n = sum(1 for r in records if r["libs"].get(lib.name, {}).get("skipped", "")
                    .startswith("result differs"))
            lines.append(f"- {lib.name}: not timed in {n} cell(s) where its result differs "
                         "from NumPy's (examples in results.json): " + "; ".join(
                             f"{dt}: {', '.join(sorted(ops))}" for dt, ops in wrong.items()))
    return lines


# ---------------------------------------------------------------------------- goals

INT_DIVISION_OPS = ("divide(floor)", "divide(trunc)", "floor_divide", "mod")


def _worst(recs, value):
    """Returns (lowest value, its record) over the records with a value, or (None, None)."""
    vals = [(value(r), r) for r in recs if value(r) is not None]
    return min(vals, key=lambda vr: vr[0]) if vals else (None, None)


def _numpy_speedup(r):
    return r["speedup"].get("numpy")


def _not_measured(recs):
    """"; not measured: <cells> (eltwise: <why>)" for cells without a value, or ""."""
    if not recs:
        return ""
    whys = list(dict.fromkeys(
        e.get("skipped") or e.get("error") for e in (r["libs"].get("eltwise", {}) for r in recs)
        if e.get("skipped") or e.get("error")))
    why = f" (eltwise: {'e.g. ' if len(whys) > 1 else ''}{whys[0]})" if whys else ""
    return "; not measured: " + ", ".join(f"{r['dtype']} {r['op']}" for r in recs) + why


def _min_goal(goal, recs, need, value=_numpy_speedup, unit="x NumPy", require_all=False):
    """(goal, measured, met) from the lowest value over `recs`. require_all: every cell of
    `recs` must have a value; the cells without one (eltwise skipped them) are named, and
    the goal is not met while any is missing."""
    missing = [x for x in recs if value(x) is None] if require_all else []
    low, r = _worst(recs, value)
    if low is None:
        return goal, "not measured in this run" + _not_measured(missing), None
    n_below = sum(1 for x in recs if value(x) is not None and value(x) < need)
    return (goal, f"lowest {low:.2f}{unit} ({cell_label(r)}); {n_below} of "
            f"{len(recs) - len(missing)} cells below" + _not_measured(missing),
            low >= need and not missing)


LOWP_NUMPY_GOAL = 50.0  # eltwise against NumPy+ml_dtypes, 1 thread


def lowp_goals(records):
    """The low-precision section's goals, at 1 thread: every low-precision cell >= 50x
    NumPy+ml_dtypes; float8 add no slower than eltwise's float16 add (LOWP_REFERENCE) of
    the same run. A cell eltwise skipped (a dtype it does not support) fails its goal."""
    one = [r for r in section(records, "lowp") if r.get("threads", 1) == 1]
    cells = [r for r in one if r["dtype"] in LOWP_DTYPE_NAMES]
    out = [_min_goal(f"{', '.join(LOWP_DTYPE_NAMES)} add/multiply/divide, 1 thread, "
                     f">= {LOWP_NUMPY_GOAL:g}x NumPy+ml_dtypes", cells, LOWP_NUMPY_GOAL,
                     require_all=True)]
    ref_op, ref_dtype = LOWP_REFERENCE
    ref = [r["libs"].get("eltwise", {}).get("median_s") for r in one
           if (r["op"], r["dtype"]) == (ref_op, ref_dtype)]
    t_ref = ref[0] if ref else None
    float8 = [n for n in LOWP_DTYPE_NAMES if n.startswith("float8")]

    def over_ref(r):
        t = r["libs"].get("eltwise", {}).get("median_s")
        return t_ref / t if t and t_ref else None
    goal = (f"{'/'.join(float8)} {ref_op}, 1 thread: no slower than eltwise's {ref_dtype} "
            f"{ref_op} of the same size ({ref_dtype} time / float8 time >= 1.0)")
    recs = [r for r in one if r["op"] == ref_op and r["dtype"] in float8]
    g = _min_goal(goal, recs, 1.0, over_ref, unit=f"x {ref_dtype} {ref_op}", require_all=True)
    if recs and t_ref is None:
        g = (goal, g[1] + f"; no eltwise {ref_dtype} {ref_op} in this run", g[2])
    out.append(g)
    return out


def goals(meta, records, libs):
    """The issue's goals, each as (goal, what was measured, met: True/False/None)."""
    top = max(meta["thread_counts"])
    out = []
    timed = [r for r in records if _numpy_speedup(r) is not None]
    out.append(_min_goal("every cell >= 1.0x NumPy", timed, 1.0))

    def int_div(inputs_prefix):
        return [r for r in timed if r["dtype"] in ("int64", "uint64")
                and r.get("op_base") in INT_DIVISION_OPS and r["shape_kind"] == "n=1e5"
                and r.get("threads", 1) == 1 and r.get("inputs", "").startswith(inputs_prefix)]
    out.append(_min_goal("int64/uint64 divide/floor_divide/mod, n=1e5, 1 thread, values "
                         "< 2^53 (both divisor ranges) >= 4x NumPy", int_div("int-small"), 4.0))
    out.append(_min_goal("the same, full-range values >= 1.0x NumPy", int_div("int-full"), 1.0))
    # Power's goals depend on the target: with AVX-512, NumPy's power is SVML's vector
    # code; without, glibc's pow one element at a time.
    avx3 = str(meta.get("eltwise_target")).startswith("AVX3")  # AVX3, AVX3_DL
    for dt, need in (("float32", 1.5 if avx3 else 2.0), ("float64", 1.2)):
        recs = [r for r in timed if r["dtype"] == dt and r["op"] == "power"
                and r["n_out"] >= 1000]
        out.append(_min_goal(f"{dt} power, >= 1e3 elements, every shape and thread count, "
                             f">= {need:g}x NumPy (target {meta.get('eltwise_target')})",
                             recs, need))
    power_torch = [r for r in records if r["op"] == "power" and r["n_out"] >= 1000
                   and r["dtype"] in ("float32", "float64") and "torch" in r["speedup"]]
    out.append(_min_goal("float32/float64 power, >= 1e3 elements: ahead of torch", power_torch,
                         1.0, lambda r: r["speedup"].get("torch"), unit="x torch"))
    # The 1-thread time: eltwise(1 thread), timed in the same rounds of the 2-thread pass;
    # in a result file without it, eltwise's time in the 1-thread pass.
    one = {(r["op"], r["dtype"]): r for r in timed
           if r["shape_kind"] == ONE_THREAD_SHAPE and r.get("threads", 1) == 1}
    two = [r for r in timed if r["shape_kind"] == ONE_THREAD_SHAPE and r.get("threads", 1) == 2
           and ((r["op"], r["dtype"]) in one or ONE_LIB in r["libs"])]

    def two_over_one(r):
        t1 = r["libs"].get(ONE_LIB, {}).get("median_s") or (
            one.get((r["op"], r["dtype"]), {}).get("libs", {}).get("eltwise", {})
            .get("median_s"))
        t2 = r["libs"]["eltwise"].get("median_s")
        return t1 / t2 if t1 and t2 else None
    # A call below eltwise's split threshold runs on the calling thread alone at any
    # thread count (its record's "split" is False): at 2 threads it is the 1-thread code,
    # as fast by construction, and its t1/t2 is the timing's noise on identical code, shown
    # beside the verdict, which the split cells decide.
    split = [r for r in two if r["libs"]["eltwise"].get("split") is not False]
    alone = [two_over_one(r) for r in two if r["libs"]["eltwise"].get("split") is False]
    alone = [v for v in alone if v is not None]
    goal, measured, met = _min_goal(
        f"{ONE_THREAD_SHAPE}: 2 threads at least as fast as 1 (1-thread time / 2-thread "
        "time >= 1.0, both timed in the same rounds), every op and dtype", split, 1.0,
        two_over_one, unit=" t1/t2")
    if alone:
        measured = (f"split calls: {measured}; {len(alone)} cells below the split size run "
                    f"on one thread at both counts (the same code; measured t1/t2 "
                    f"{min(alone):.2f}-{max(alone):.2f})")
    out.append((goal, measured, met))
    out.append(_min_goal("n=1e5, 2 threads: at least torch's 2-thread speed", [
        r for r in two if "torch" in r["speedup"]], 1.0, lambda r: r["speedup"].get("torch"),
        unit="x torch"))

    roof2 = meta["roofline"]["threads_2"]["gbps"]
    fresh = [r for r in records if OUT_LIB in r["libs"] and r.get("threads", 1) == top]
    out.append(_min_goal(f"fresh-result float32 divide/add/multiply at the largest size, "
                         f"{threads_label(top)}, >= 80% of the 2-thread roofline "
                         f"({roof2:.1f} GB/s)", fresh, 80.0,
                         lambda r: 100 * r["libs"]["eltwise"]["gbps"] / roof2
                         if "gbps" in r["libs"]["eltwise"] else None, unit="%"))

    idx = {(r["op"], r["dtype"], r["n_out"], r.get("threads", 1)): r for r in records
           if r.get("sweep")}
    fortran = [r for r in timed if r["shape_kind"] == "fortran"]

    # The C-ordered time: eltwise(C order), timed in the same rounds; in a result file
    # without it, eltwise's time on the sweep cell of the same size.
    def f_over_c(r):
        tf = r["libs"]["eltwise"].get("median_s")
        tc = r["libs"].get(C_LIB, {}).get("median_s")
        if not tc:
            c = idx.get((r["op"], r["dtype"], r["n_out"], r.get("threads", 1)), {})
            tc = c.get("libs", {}).get("eltwise", {}).get("median_s") if c else None
        return tc / tf if tf and tc else None
    g1 = _min_goal("Fortran-ordered float32 >= 1.0x NumPy", fortran, 1.0)
    g2 = _min_goal("Fortran-ordered float32 as fast as C-ordered (C time / Fortran time "
                   ">= 0.9, same size, op and threads, both timed in the same rounds)",
                   fortran, 0.9, f_over_c, unit=" C/F")
    out += [g1, g2]
    out += lowp_goals(records)

    peers = [lib.name for lib in libs[2:] if lib.peer]
    parts, all_met, any_timed = [], True, False
    for name in peers:
        sp = [r["speedup"][name] for r in records if name in r["speedup"]]
        if not sp:
            continue
        any_timed = True
        slower = sum(1 for x in sp if x < 1.0)
        all_met &= slower == 0
        parts.append(f"{name}: {slower} of {len(sp)} slower (lowest {min(sp):.2f}x)")
    out.append(("every peer cell: eltwise faster", "; ".join(parts) or "no peer timed",
                all_met if any_timed else None))
    return out


def goals_table(meta, records, libs):
    out = ["| goal | measured | met |", "|---|---|---|"]
    for goal, measured, met in goals(meta, records, libs):
        mark = "not measured" if met is None else ("met" if met else "**not met**")
        out.append(_row(goal, measured, mark))
    return "\n".join(out)


# ---------------------------------------------------------------------------- markdown


def markdown(meta, records, libs):
    roof = meta["roofline"]
    mib = roof["array_bytes"] // 2**20
    passes = by_threads(section(records, "main"))
    md = ["# eltwise benchmarks", ""]
    md += machine_lines(meta, libs)
    md += ["",
           "Every library runs in the same process on the same operands, interleaved "
           "(round-robin batches, order rotating), and each figure is a median. "
           "Every call allocates its result (no `out=`), except `eltwise(out=)`. "
           "Each thread count is its own pass, with its own tables; the passes with more "
           "than one thread leave out the sizes eltwise runs on one thread anyway, and "
           f"time `{ONE_LIB}` (eltwise at 1 thread) beside eltwise on the "
           f"{ONE_THREAD_SHAPE} cells, for the goal comparing the two; on the "
           f"Fortran-ordered cells `{C_LIB}` times eltwise on the operands' transposes "
           "(C-ordered views of the same memory) in the same rounds, for the goal "
           "comparing the orders. "
           "**Speedup = peer time / eltwise time: > 1 means eltwise is faster.** "
           f"{SKIP} = the peer cannot compute this cell (reasons below); "
           "≈ = the peer's result is within 4 ULP of NumPy's but not bit-identical; "
           "† = NumPy has no such op and a stand-in was timed (see notes); "
           "✗ = eltwise's result differs from NumPy's (see results.json). "
           "int64/uint64 division rows name their operands: [full range] (both operands "
           "over the whole dtype), [|x|<=1e12, d 1..8] and [|x|<=1e12, d 9..50] (x1 below "
           "2^53, divisors of that magnitude).",
           "",
           "## Roofline (copy bandwidth)",
           "",
           f"`np.copyto` of {mib} MiB float32 arrays; bytes = read + write.",
           "",
           "| copy | threads | GB/s (median) | GB/s (best) |",
           "|---|---:|---:|---:|"]
    for k in ("1", "2"):
        t = roof[f"threads_{k}"]
        md.append(f"| np.copyto | {k} | {t['gbps']:.1f} | {t['gbps_best']:.1f} |")
    md += ["", "## Goals", "", goals_table(meta, records, libs)]
    for t, recs in passes.items():
        md += ["", f"## Speedup of eltwise over NumPy, {threads_label(t)}", "",
               speedup_table(recs, "numpy")]
        geo = geomean(r["speedup"].get("numpy") for r in recs)
        if geo:
            md += ["", f"Geometric mean over these cells: **{geo:.2f}x**."]
    for lib in libs[2:]:
        if not lib.peer:
            continue
        for t, recs in passes.items():
            if any(lib.name in r["speedup"] for r in recs):
                md += ["", f"## Speedup of eltwise over {lib.name} {lib.version}, "
                           f"{threads_label(t)}", "", speedup_table(recs, lib.name)]
                geo = geomean(r["speedup"].get(lib.name) for r in recs)
                if geo:
                    md += ["", f"Geometric mean over the cells {lib.name} computes: "
                               f"**{geo:.2f}x**."]
    ref_op, ref_dtype = LOWP_REFERENCE
    for t, recs in by_threads(section(records, "lowp")).items():
        md += ["", f"## Low-precision dtypes, {threads_label(t)}", "",
               "ml_dtypes' types (one byte per element), same-shape contiguous operands of "
               "random finite codes (divisors non-zero; int4's divide floors). NumPy's ufuncs "
               "on them are ml_dtypes', one element at a time. NumPy / eltwise > 1: eltwise "
               "faster. Peer columns: the peer's time and, in parentheses, eltwise's speedup "
               "over it (≈: within 4 ULP of NumPy's result), or why it cannot compute the "
               "cell. eltwise's result equals NumPy's bit for bit (NaN = NaN) before its time "
               f"is used (✗ where not). The {ref_dtype} {ref_op} row is the reference of the "
               f"goal on float8 {ref_op}.", "", lowp_table(recs, libs)]
    fresh = fresh_vs_out_table(records, meta)
    if fresh:
        md += ["", "## Fresh result vs out=", "",
               "eltwise allocating its result (as everywhere else) against eltwise writing "
               "into a preallocated `out=`; bandwidth counts read x1 + read x2 + write result, "
               "as a fraction of the 2-thread copy roofline.", "", fresh]
    for t, recs in passes.items():
        bw = bandwidth_table(recs, meta, t)
        if bw:
            roof_gbps, k = roofline_gbps(meta, t)
            md += ["", f"## eltwise bandwidth on large arrays (>= 1e6 elements), "
                       f"{threads_label(t)}", "",
                   f"GB/s (bytes = read x1 + read x2 + write result) and, in parentheses, the "
                   f"fraction of the {k}-thread copy roofline ({roof_gbps:.1f} GB/s). Streaming "
                   f"stores skip the read-for-ownership the copy pays, and operands of ~1e6 "
                   f"elements (4-24 MB) may sit in the last-level cache, so > 100% is possible.",
                   "", bw]
    for t, recs in passes.items():
        md += ["", f"## eltwise time per call (median), {threads_label(t)}", "",
               time_table(recs, "eltwise")]
    md += ["", "## All figures (median time per call)", "", all_figures_table(records, libs),
           "", "## Notes", ""]
    seen = set()
    for n in meta["notes"] + [r["libs"]["numpy"].get("note") for r in records
                              if r["libs"].get("numpy", {}).get("note")]:
        if n and n not in seen:
            seen.add(n)
            md.append(f"- {n}")
    md += skip_summary(records, libs)
    md += ["", "## eltwise configuration", "", "```", meta["eltwise_config"].rstrip(), "```",
           ""]
    return "\n".join(md)


def console_summary(meta, records, libs):
    roof = meta["roofline"]
    lines = [f"roofline (np.copyto): 1 thread {roof['threads_1']['gbps']:.1f} GB/s, "
             f"2 threads {roof['threads_2']['gbps']:.1f} GB/s"]
    main = section(records, "main")
    for t, recs in by_threads(main).items():
        lines += ["", f"speedup of eltwise over NumPy, {threads_label(t)} (> 1: eltwise "
                      "faster):", "", speedup_table(recs, "numpy")]
    for t, recs in by_threads(section(records, "lowp")).items():
        lines += ["", f"low-precision dtypes, {threads_label(t)}:", "", lowp_table(recs, libs)]
    lines.append("")
    for lib in libs[1:]:
        geo = geomean(r["speedup"].get(lib.name) for r in main)
        n = sum(lib.name in r["speedup"] for r in main)
        if geo and lib.peer:
            lines.append(f"geometric-mean speedup over {lib.name} {lib.version}: "
                         f"{geo:.2f}x ({n} cells)")
    lines += ["", "goals:"] + [f"  [{'n/a' if met is None else 'met' if met else 'NOT MET'}] "
                               f"{goal}: {measured}"
                               for goal, measured, met in goals(meta, records, libs)]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- plots

# README width: 900 px = 9 in at 100 dpi.
PLOT_WIDTH_IN, PLOT_DPI = 9.0, 100
DTYPE_COLORS = {"float32": "#d62728", "float64": "#ff7f0e", "float16": "#bcbd22",
                "bfloat16": "#8c564b", "int8": "#1f77b4", "int32": "#17becf",
                "int64": "#2ca02c", "uint8": "#9467bd", "uint64": "#e377c2"}


def _family(op_base):
    """Plot family of an op: integer floor division is shown with float division."""
    return "divide" if op_base in ("divide", "divide(floor)") else op_base


def _footer(fig, meta):
    fig.text(0.5, 0.005, footer_text(meta), ha="center", va="bottom", fontsize=7,
             color="0.25")


def plot_summary(path, meta, records, plt):
    """Heat map per thread count: op x dtype, geometric-mean speedup over NumPy across
    shapes (and operand variants); the README figure."""
    import numpy as np
    from matplotlib.colors import LogNorm

    passes = by_threads(records)
    ops = [o for o in OP_ORDER if any(r.get("op_base", r["op"]) == o for r in records)]
    ops += list(dict.fromkeys(r.get("op_base", r["op"]) for r in records
                              if r.get("op_base", r["op"]) not in ops))
    dts = list(dict.fromkeys(r["dtype"] for r in records))
    grids = {}
    for t, recs in passes.items():
        g = np.full((len(ops), len(dts)), np.nan)
        for i, o in enumerate(ops):
            for j, d in enumerate(dts):
                v = geomean(r["speedup"].get("numpy") for r in recs
                            if r.get("op_base", r["op"]) == o and r["dtype"] == d)
                if v:
                    g[i, j] = v
        grids[t] = g
    if all(np.all(np.isnan(g)) for g in grids.values()):
        return False
    allv = np.concatenate([g[~np.isnan(g)] for g in grids.values()])
    lim = max(2.0, 10 ** float(np.max(np.abs(np.log10(allv)))))
    n = len(grids)
    fig, axes = plt.subplots(1, n, figsize=(PLOT_WIDTH_IN, 0.34 * len(ops) + 1.9),
                             squeeze=False, sharey=True)
    im = None
    for ax, (t, g) in zip(axes[0], grids.items(), strict=True):
        im = ax.imshow(g, cmap="RdBu", norm=LogNorm(vmin=1 / lim, vmax=lim), aspect="auto")
        for i in range(len(ops)):
            for j in range(len(dts)):
                if not np.isnan(g[i, j]):
                    dark = abs(math.log10(g[i, j])) > 0.55 * math.log10(lim)
                    ax.text(j, i, fmt_ratio(g[i, j]), ha="center", va="center", fontsize=7,
                            color="white" if dark else "black")
        ax.set_xticks(range(len(dts)), dts, rotation=40, ha="right", fontsize=8)
        ax.set_yticks(range(len(ops)), ops, fontsize=8)
        n_sizes = len({r["shape_kind"] for r in passes[t]})
        ax.set_title(f"{threads_label(t)} ({n_sizes} shapes)", fontsize=9)
    fig.suptitle("eltwise speedup over NumPy (geometric mean over shapes; > 1, blue: "
                 "eltwise faster)\ndivide(trunc): NumPy's time is floor_divide's (it has no "
                 "truncating division)", fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 0.93, 0.97))
    cax = fig.add_axes((0.94, 0.2, 0.015, 0.6))
    ticks = [x for x in (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8, 16, 32, 64)
             if 1 / lim <= x <= lim]
    bar = fig.colorbar(im, cax=cax, ticks=ticks)
    bar.ax.set_yticklabels([f"{x:g}" for x in ticks])
    bar.ax.minorticks_off()
    bar.ax.tick_params(labelsize=7)
    _footer(fig, meta)
    fig.savefig(path, dpi=PLOT_DPI)
    plt.close(fig)
    return True


def plot_sweep(path, meta, records, plt):
    """One small panel per op family: speedup over NumPy against size (same-shape
    contiguous), a line per dtype; solid 1 thread, dashed the most threads."""
    sweep = [r for r in records if r.get("sweep") and "numpy" in r["speedup"]
             and r.get("inputs", "general") in ("general", "power", "int-full")]
    if not sweep:
        return False
    fams = [f for f in dict.fromkeys(_family(o) for o in OP_ORDER)
            if any(_family(r.get("op_base", r["op"])) == f for r in sweep)]
    threads = sorted({r.get("threads", 1) for r in sweep})
    ncol = 5
    nrow = -(-len(fams) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(PLOT_WIDTH_IN, 2.0 * nrow + 1.3),
                             sharex=True, sharey=True, squeeze=False)
    dts = list(dict.fromkeys(r["dtype"] for r in sweep))
    for k, fam in enumerate(fams):
        ax = axes[k // ncol][k % ncol]
        for dt in dts:
            for t in threads:
                pts = sorted((r["n_out"], r["speedup"]["numpy"]) for r in sweep
                             if _family(r.get("op_base", r["op"])) == fam
                             and r["dtype"] == dt and r.get("threads", 1) == t)
                if pts:
                    ax.plot(*zip(*pts, strict=True), color=DTYPE_COLORS.get(dt, "0.5"),
                            ls="-" if t == threads[0] else "--", lw=1.2, marker=".", ms=3)
        ax.axhline(1.0, color="0.3", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="major", lw=0.4, alpha=0.5)
        ax.tick_params(labelsize=7)
        ax.set_title(fam, fontsize=9)
        if k % ncol == 0:
            ax.set_ylabel("x NumPy", fontsize=8)
        if k // ncol == nrow - 1:
            ax.set_xlabel("elements", fontsize=8)
    for k in range(len(fams), nrow * ncol):
        axes[k // ncol][k % ncol].axis("off")
    handles = [plt.Line2D([], [], color=DTYPE_COLORS.get(d, "0.5"), lw=1.5, label=d)
               for d in dts]
    handles += [plt.Line2D([], [], color="0.3", ls="-" if i == 0 else "--",
                           label=threads_label(t)) for i, t in enumerate(threads)]
    fig.legend(handles=handles, loc="upper center", ncol=min(len(handles), 6), fontsize=7,
               bbox_to_anchor=(0.5, 0.995), frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 0.9))
    _footer(fig, meta)
    fig.savefig(path, dpi=PLOT_DPI)
    plt.close(fig)
    return True


def write_all(out_dir, meta, records, libs, plot=True):
    """Writes results.json, results.md, and (with matplotlib) the plots; returns paths."""
    paths = []
    p = os.path.join(out_dir, "results.json")
    with open(p, "w") as f:  # meta indented, one line per cell: small and diffable
        f.write('{"meta": ' + json.dumps(meta, indent=1, default=str) + ',\n "cells": [\n')
        f.write(",\n".join(json.dumps(r, default=str) for r in records))
        f.write("\n]}\n")
    paths.append(p)
    md = markdown(meta, records, libs)
    if plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: skipping the plots", flush=True)
            plot = False
    if plot:
        pngs = []
        p = os.path.join(out_dir, "speedup.png")
        if plot_summary(p, meta, section(records, "main"), plt):
            pngs.append(p)
        p = os.path.join(out_dir, "sweep.png")
        if plot_sweep(p, meta, records, plt):
            pngs.append(p)
        paths += pngs
        if pngs:
            md += "\n## Plots\n\n" + "\n".join(
                f"![{os.path.basename(x)}]({os.path.basename(x)})" for x in pngs) + "\n"
    p = os.path.join(out_dir, "results.md")
    with open(p, "w") as f:
        f.write(md)
    paths.insert(1, p)
    return paths
