"""Writes results.json, results.md and the PNG plots; formats the console summary."""

from __future__ import annotations

import collections
import json
import math
import os

SKIP = "—"


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


def _rows_cols(records):
    """Returns (row keys (op, dtype) in run order, column shape kinds in run order)."""
    rows, cols = [], []
    for r in records:
        if (r["op"], r["dtype"]) not in rows:
            rows.append((r["op"], r["dtype"]))
        if r["shape_kind"] not in cols:
            cols.append(r["shape_kind"])
    # Group rows by op in a fixed order (divide's integer variants right after divide).
    canon = ["divide", "divide(floor)", "divide(trunc)"]
    op_order = canon + [o for o in dict.fromkeys(o for o, _ in rows) if o not in canon]
    dt_order = list(dict.fromkeys(d for _, d in rows))
    rows.sort(key=lambda k: (op_order.index(k[0]), dt_order.index(k[1])))
    return rows, cols


def _index(records):
    return {(r["op"], r["dtype"], r["shape_kind"]): r for r in records}


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
        return SKIP
    p = rec["libs"][peer]
    mark = "≈" if p.get("check") == "close" else ("†" if p.get("check") == "stand-in" else "")
    return f"{fmt_ratio(r)}{mark}{flag}"


def speedup_table(records, peer):
    rows, cols = _rows_cols(records)
    idx = _index(records)
    out = ["| op | dtype | " + " | ".join(cols) + " |",
           "|---|---|" + "---:|" * len(cols)]
    for op, dt in rows:
        cells = [_speedup_cell(idx.get((op, dt, c)), peer) for c in cols]
        out.append(f"| {op} | {dt} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def roofline_gbps(meta):
    key = "threads_1" if meta["threads"] <= 1 else "threads_2"
    return meta["roofline"][key]["gbps"], key.split("_")[1]


def _grid(records, cell):
    """A Markdown table: one row per (op, dtype), one column per case;
    cell(record or None, case) gives each entry."""
    rows, cols = _rows_cols(records)
    idx = _index(records)
    out = ["| op | dtype | " + " | ".join(cols) + " |",
           "|---|---|" + "---:|" * len(cols)]
    for op, dt in rows:
        cells = [cell(idx.get((op, dt, c))) for c in cols]
        out.append(f"| {op} | {dt} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def bandwidth_table(records, meta, lib="eltwise"):
    big = [r for r in records if r["n_out"] >= 10**6]
    if not big:
        return None
    roof, _ = roofline_gbps(meta)

    def cell(rec):
        e = rec["libs"].get(lib, {}) if rec else {}
        if "gbps" in e:
            return f"{e['gbps']:.1f} ({100 * e['gbps'] / roof:.0f}%)"
        return SKIP if rec else ""
    return _grid(big, cell)


def time_table(records, lib):
    return _grid(records, lambda rec: fmt_time(rec["libs"].get(lib, {}).get("median_s"))
                 if rec else "")


def all_figures_table(records, libs):
    names = [lib.name for lib in libs]
    out = ["| op | dtype | shape | elements | eltwise check | "
           + " | ".join(names) + " | eltwise GB/s |",
           "|---|---|---|---:|---|" + "---:|" * (len(names) + 1)]
    for r in records:
        e = r["libs"].get("eltwise", {})
        check = e.get("check") or ("error" if "error" in e else SKIP)
        times = [fmt_time(r["libs"].get(n, {}).get("median_s")) for n in names]
        gb = f"{e['gbps']:.2f}" if "gbps" in e else SKIP
        out.append(f"| {r['op']} | {r['dtype']} | {r['shape']} | {r['n_out']} | {check} | "
                   + " | ".join(times) + f" | {gb} |")
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
        f"{', '.join(meta['eltwise_targets'])}), **{meta['threads']} thread(s)**",
        "- peers: " + ", ".join(f"{n} {v[n]}" for n in v if n != "eltwise"),
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
            f"{meta['eltwise_target']}, {meta['threads']} thread(s) | "
            + ", ".join(f"{n} {v[n]}" for n in v if n != "eltwise"))


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


def markdown(meta, records, libs):
    roof = meta["roofline"]
    mib = roof["array_bytes"] // 2**20
    md = ["# eltwise benchmarks", ""]
    md += machine_lines(meta, libs)
    md += ["",
           "Every library runs in the same process on the same operands, interleaved "
           "(round-robin batches, order rotating), and each figure is a median. "
           "Every call allocates its result (no `out=` anywhere). "
           "**Speedup = peer time / eltwise time: > 1 means eltwise is faster.** "
           f"{SKIP} = the peer cannot compute this cell (reasons below); "
           "≈ = the peer's result is within 4 ULP of NumPy's but not bit-identical; "
           "† = NumPy has no such op and a stand-in was timed (see notes); "
           "✗ = eltwise's result differs from NumPy's (see results.json).",
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
    md += ["", "## Speedup of eltwise over NumPy", "", speedup_table(records, "numpy")]
    geo = geomean(r["speedup"].get("numpy") for r in records)
    if geo:
        md += ["", f"Geometric mean over all cells: **{geo:.2f}x**."]
    for lib in libs[2:]:
        if any(lib.name in r["speedup"] for r in records):
            md += ["", f"## Speedup of eltwise over {lib.name} {lib.version}", "",
                   speedup_table(records, lib.name)]
            geo = geomean(r["speedup"].get(lib.name) for r in records)
            if geo:
                md += ["", f"Geometric mean over the cells {lib.name} computes: "
                           f"**{geo:.2f}x**."]
    bw = bandwidth_table(records, meta)
    if bw:
        roof_gbps, k = roofline_gbps(meta)
        md += ["", "## eltwise bandwidth on large arrays (>= 1e6 elements)", "",
               f"GB/s (bytes = read x1 + read x2 + write result) and, in parentheses, the "
               f"fraction of the {k}-thread copy roofline ({roof_gbps:.1f} GB/s). Streaming "
               f"stores skip the read-for-ownership the copy pays, and operands of ~1e6 elements "
               f"(4-24 MB) may sit in the last-level cache, so > 100% is possible.",
               "", bw]
    md += ["", "## eltwise time per call (median)", "", time_table(records, "eltwise"),
           "", "## All figures (median time per call)", "", all_figures_table(records, libs),
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
             f"2 threads {roof['threads_2']['gbps']:.1f} GB/s",
             "", "speedup of eltwise over NumPy (> 1: eltwise faster):", "",
             speedup_table(records, "numpy"), ""]
    for lib in libs[1:]:
        geo = geomean(r["speedup"].get(lib.name) for r in records)
        n = sum(lib.name in r["speedup"] for r in records)
        if geo:
            lines.append(f"geometric-mean speedup over {lib.name} {lib.version}: "
                         f"{geo:.2f}x ({n} cells)")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- plots

COLORS = {"eltwise": "#d62728", "numpy": "#1f77b4", "torch": "#ff7f0e", "numexpr": "#2ca02c",
          "onnxruntime": "#9467bd", "openvino": "#8c564b"}
MARKERS = {"eltwise": "o", "numpy": "s", "torch": "^", "numexpr": "v", "onnxruntime": "D",
           "openvino": "P"}


def _row_op(op):
    return "divide" if op in ("divide", "divide(floor)") else op


def plot_throughput(path, meta, records, libs, plt):
    sweep = [r for r in records if r.get("sweep")]
    if not sweep:
        return False
    ops = list(dict.fromkeys(_row_op(r["op"]) for r in sweep))
    dts = list(dict.fromkeys(r["dtype"] for r in sweep))
    fig, axes = plt.subplots(len(ops), len(dts), figsize=(2.6 * len(dts) + 1.2,
                                                           2.1 * len(ops) + 1.6),
                             sharex=True, sharey=True, squeeze=False)
    names = [lib.name for lib in libs]
    for i, op in enumerate(ops):
        for j, dt in enumerate(dts):
            ax = axes[i][j]
            cell = [r for r in sweep if _row_op(r["op"]) == op and r["dtype"] == dt]
            for name in names:
                pts = sorted((r["n_out"], r["libs"][name]["elements_per_s"]) for r in cell
                             if "elements_per_s" in r["libs"].get(name, {}))
                if pts:
                    ax.plot(*zip(*pts, strict=True), marker=MARKERS.get(name, "."), ms=3.5,
                            lw=2.2 if name == "eltwise" else 1.1,
                            color=COLORS.get(name), label=name,
                            zorder=3 if name == "eltwise" else 2)
            if not cell:
                ax.text(0.5, 0.5, "n/a", ha="center", va="center", transform=ax.transAxes,
                        color="0.6")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.grid(True, which="major", lw=0.4, alpha=0.5)
            ax.tick_params(labelsize=7)
            if i == 0:
                ax.set_title(dt, fontsize=10)
            if j == 0:
                ax.set_ylabel(f"{op}\nelements/s", fontsize=9)
            if i == len(ops) - 1:
                ax.set_xlabel("elements", fontsize=8)
    handles = [plt.Line2D([], [], color=COLORS.get(n), marker=MARKERS.get(n, "."),
                          lw=2.2 if n == "eltwise" else 1.1, label=n) for n in names]
    fig.legend(handles=handles, loc="upper center", ncol=len(names), fontsize=10,
               bbox_to_anchor=(0.5, 0.985), frameon=False)
    fig.suptitle("Throughput vs size, same-shape contiguous operands (higher is better); "
                 "divide row: float /, integer floor (pythondiv=True)", y=0.998, fontsize=11)
    fig.text(0.5, 0.004, footer_text(meta), ha="center", va="bottom", fontsize=8, wrap=True)
    fig.tight_layout(rect=(0, 0.02, 1, 0.965))
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return True


def plot_speedup(path, meta, records, peer, plt):
    rows, cols = _rows_cols(records)
    idx = _index(records)
    import numpy as np

    data = np.full((len(rows), len(cols)), np.nan)
    marks = {}
    for i, (op, dt) in enumerate(rows):
        for j, c in enumerate(cols):
            r = idx.get((op, dt, c))
            if r and peer in r["speedup"]:
                data[i, j] = r["speedup"][peer]
                check = r["libs"][peer].get("check")
                marks[i, j] = (("≈" if check == "close" else "†" if check == "stand-in" else "")
                               + _eltwise_flag(r))
    if np.all(np.isnan(data)):
        return False
    from matplotlib.colors import LogNorm

    lim = max(2.0, 10 ** float(np.nanmax(np.abs(np.log10(data)))))
    fig, ax = plt.subplots(figsize=(1.0 * len(cols) + 3.0, 0.26 * len(rows) + 2.2))
    im = ax.imshow(data, cmap="RdBu", norm=LogNorm(vmin=1 / lim, vmax=lim), aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            if not np.isnan(data[i, j]):
                v = data[i, j]
                dark = abs(math.log10(v)) > 0.55 * math.log10(lim)
                ax.text(j, i, fmt_ratio(v) + marks.get((i, j), ""), ha="center", va="center",
                        fontsize=7, color="white" if dark else "black")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [f"{o} {d}" for o, d in rows], fontsize=7)
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label=f"{peer} time / eltwise time")
    ax.set_title(f"Speedup of eltwise over {peer} (> 1, blue: eltwise faster)\n"
                 "✗ eltwise result differs from NumPy's; † NumPy stand-in "
                 "(floor_divide for truncating divide)", fontsize=10)
    fig.text(0.5, 0.003, footer_text(meta), ha="center", va="bottom", fontsize=7, wrap=True)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    fig.savefig(path, dpi=90)
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
        p = os.path.join(out_dir, "throughput.png")
        if plot_throughput(p, meta, records, libs, plt):
            pngs.append(p)
        p = os.path.join(out_dir, "speedup.png")
        if plot_speedup(p, meta, records, "numpy", plt):
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
