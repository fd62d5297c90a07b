"""The benchmark suite runs end to end at tiny sizes, so it cannot rot (no timing asserted)."""

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--strict", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads((out / "results.json").read_text())
    return out, data


def test_every_cell_checked_and_timed(quick_run):
    """Every cell but a low-precision one of a dtype eltwise does not support yet (int4),
    which is skipped with eltwise's TypeError."""
    _, data = quick_run
    assert data["cells"], "no benchmark cells were measured"
    for rec in data["cells"]:
        e = rec["libs"]["eltwise"]
        if rec.get("section") == "lowp" and _unsupported(e, rec["dtype"]):
            continue
        assert e["check"] in ("exact", "close") and e["median_s"] > 0, rec


def test_new_cells_are_measured(quick_run):
    _, data = quick_run
    cells = data["cells"]
    rows = {(r["op"], r["dtype"]) for r in cells}
    for dt in ("int64", "uint64"):
        for op in ("divide(floor)", "divide(trunc)", "floor_divide", "mod"):
            for label in ("[full range]", "[|x|<=1e12, d 1..8]", "[|x|<=1e12, d 9..50]"):
                assert (f"{op} {label}", dt) in rows
    assert ("power", "float32") in rows and ("power", "int32") in rows
    kinds = {(r["shape_kind"], r["dtype"]) for r in cells}
    assert ("fortran", "float32") in kinds
    assert ("narrow rows", "int8") in kinds and ("narrow rows", "float32") in kinds
    fortran = next(r for r in cells if r["shape_kind"] == "fortran")
    assert "Fortran" in fortran["shape"]
    outs = [r for r in cells if "eltwise(out=)" in r["libs"]]
    assert {r["op"] for r in outs} == {"divide", "add", "multiply"}
    assert all(r["dtype"] == "float32" and r["libs"]["eltwise(out=)"]["check"] == "exact"
               for r in outs)


def test_thread_passes(quick_run):
    _, data = quick_run
    counts = data["meta"]["thread_counts"]
    assert counts[0] == 1
    seen = {r["threads"] for r in data["cells"]}
    assert seen == set(counts)
    if len(os.sched_getaffinity(0)) > 1:
        assert len(counts) == 2
        multi = {r["shape_kind"] for r in data["cells"] if r["threads"] > 1}
        assert "n=10" not in multi and "n=1e3" in multi  # quick: one-thread sizes left out


@pytest.mark.parametrize("peer", ["numba", "numkong"])
def test_new_peers_timed_when_installed(quick_run, peer):
    if importlib.util.find_spec(peer) is None:
        pytest.skip(f"{peer} is not installed")
    _, data = quick_run
    timed = [r for r in data["cells"] if "median_s" in r["libs"].get(peer, {})]
    assert timed, f"{peer} timed no cell"
    skipped = [r["libs"][peer]["skipped"] for r in data["cells"]
               if "skipped" in r["libs"].get(peer, {})]
    assert all(reason for reason in skipped)  # every skip says why


def test_report_has_goals_and_tables(quick_run):
    out, data = quick_run
    md = (out / "results.md").read_text()
    assert "| op | dtype |" in md
    assert "## Goals" in md and "every cell >= 1.0x NumPy" in md
    assert "## Fresh result vs out=" in md
    for t in data["meta"]["thread_counts"]:
        assert f"## Speedup of eltwise over NumPy, {t} thread" in md
    if importlib.util.find_spec("matplotlib") is not None:
        assert (out / "speedup.png").stat().st_size > 0
        assert (out / "sweep.png").stat().st_size > 0


def test_report_tables_escape_pipes_in_cells(monkeypatch):
    """An operand kind such as "[|x|<=1e12, d 1..8]" stays one cell of a Markdown row,
    as docs/benchmarks/results.md (written by the report) shows it."""
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import report

    op = "mod [|x|<=1e12, d 1..8]"
    records = [{"op": op, "dtype": "int64", "shape_kind": kind, "libs": {}}
               for kind in ("n=10", "n=1e3")]
    table = report._grid(records, lambda rec: "1.5")
    header, rule, row = table.splitlines()
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
    assert cells == [op.replace("|", "\\|"), "int64", "1.5", "1.5"]
    assert len(cells) == len(re.split(r"(?<!\\)\|", header)[1:-1])
    md = (ROOT / "docs" / "benchmarks" / "results.md").read_text(encoding="utf-8")
    assert "| mod [\\|x\\|<=1e12, d 1..8] | int64 |" in md
    assert "[|x|" not in "".join(line for line in md.splitlines() if line.startswith("|"))


# ---------------------------------------------------------------------------- low precision

LOWP_DTYPES = ("float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4")


def _unsupported(entry, dtype):
    """True if eltwise skipped the cell because it does not support `dtype` (int4 today)."""
    return f"does not support dtype {dtype}" in entry.get("skipped", "")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs 2 CPUs for a 2-thread pass")
def test_one_thread_timed_beside_two(tmp_path):
    """The goal "2 threads at least as fast as 1" reads both times from the same rounds of
    the 2-thread pass: eltwise at 1 thread is timed there beside eltwise (and checked),
    and nowhere else."""
    out = tmp_path / "b"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--section", "main", "--shapes", "n=1e5",
         "--ops", "add", "--dtypes", "float32,int8", "--threads", "1,2", "--peers", "none",
         "--budget", "0.003", "--no-plot", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads((out / "results.json").read_text())
    one = "eltwise(1 thread)"
    for r in data["cells"]:
        if r["threads"] == 1:
            assert one not in r["libs"], r
        else:
            e = r["libs"][one]
            assert e["check"] == "exact" and e["median_s"] > 0, r
            assert r["speedup"][one] == e["median_s"] / r["libs"]["eltwise"]["median_s"]
    assert {r["threads"] for r in data["cells"]} == {1, 2}
    md = (out / "results.md").read_text()
    line = next(x for x in md.splitlines() if "2 threads at least as fast as 1" in x)
    assert "both timed in the same rounds" in line and "t1/t2" in line, line
    peers_line = next(x for x in md.splitlines() if x.startswith("- peers:"))
    assert one not in peers_line and "eltwise" not in peers_line, peers_line  # no peer


def test_lowp_section_measured(quick_run):
    """Every low-precision dtype and op in each thread pass, with the float16 add reference;
    eltwise exact or (a dtype it lacks) skipped with its TypeError; every peer there either
    timed or with the reason it cannot compute the cell."""
    out, data = quick_run
    lowp = [r for r in data["cells"] if r.get("section") == "lowp"]
    got = {(r["dtype"], r["op"], r["threads"]) for r in lowp}
    for t in data["meta"]["thread_counts"]:
        assert ("float16", "add", t) in got
        for dt in LOWP_DTYPES:
            div = "divide(floor)" if dt == "int4" else "divide"
            assert {(dt, op, t) for op in (div, "multiply", "add")} <= got
    from benchmarks.report import NOT_PEERS
    peers = [p for p in data["meta"]["versions"] if p not in NOT_PEERS + ("numpy",)]
    for r in lowp:
        e = r["libs"]["eltwise"]
        assert e.get("check") == "exact" or _unsupported(e, r["dtype"]), r
        assert r["libs"]["numpy"]["check"] == "exact"
        for p in peers:
            entry = r["libs"][p]
            assert "median_s" in entry or entry["skipped"], (p, r)
    md = (out / "results.md").read_text()
    assert "## Low-precision dtypes, 1 thread" in md
    assert ">= 50x NumPy+ml_dtypes" in md and "no slower than eltwise's float16 add" in md


def run_section(section, peers, stem):
    """(data, markdown) of `python -m benchmarks --section <section> --quick` at 1 thread
    with these peers: the section's <stem>.json and <stem>.md."""
    import tempfile
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks", "--section", section, "--quick", "--strict",
             "--threads", "1", "--peers", peers, "--no-plot", "--out", out],
            cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        data = json.loads((pathlib.Path(out) / f"{stem}.json").read_text())
        return data, (pathlib.Path(out) / f"{stem}.md").read_text()


def test_lowp_section_alone():
    """--section lowp runs that section only: its cells, its table and its goals."""
    data, md = run_section("lowp", "none", "results")
    assert {r["section"] for r in data["cells"]} == {"lowp"}
    assert {r["dtype"] for r in data["cells"]} == {"float16", *LOWP_DTYPES}
    assert "## Low-precision dtypes, 1 thread" in md
    assert "## Speedup of eltwise over NumPy" not in md  # no main-section cell


def test_lowp_operands(monkeypatch):
    """Random codes: finite, x2 never zero, int4's x1 never MIN; OpenVINO's 4-bit packing
    round-trips."""
    monkeypatch.syspath_prepend(str(ROOT))
    import numpy as np

    from benchmarks import cases, peers

    rng = np.random.default_rng(0)
    shape = cases.lowp_shape(quick=True)
    for name in LOWP_DTYPES:
        dt = cases.dtype_of(name)
        xs = cases.make_operands(rng, dt, shape, "lowp", 3)
        assert xs.x1.dtype == dt and xs.x1.shape == shape.shape1
        f1, f2 = xs.x1.astype(np.float32), xs.x2.astype(np.float32)
        assert np.isfinite(f1).all() and np.isfinite(f2).all()
        assert (f2 != 0).all()
        if name == "int4":
            assert f1.min() == -7 and f2.min() == -8  # x1 never MIN
        codes = set(cases.lowp_values(dt).view(np.uint8).tolist())
        assert set(np.unique(xs.x1.view(np.uint8)).tolist()) <= codes  # no NaN, inf codes
        if name in ("int4", "float4_e2m1fn"):
            for x in (xs.x1, xs.x1[:-1]):  # even and odd lengths
                back = peers.unpack_nibbles(peers.pack_nibbles(x), dt, x.shape)
                assert back.view(np.uint8).tolist() == x.view(np.uint8).tolist()


class _Lib:
    def __init__(self, name, peer=True):
        self.name, self.version, self.peer, self.notes = name, "1.0", peer, []


def _fake_meta():
    roof = {"median_s": 1.0, "min_s": 1.0, "gbps": 10.0, "gbps_best": 11.0}
    return {"cpu": "test CPU", "cpus": 2, "cpus_usable": 2, "cpu_flags": ["avx2"],
            "python": "3", "platform": "test", "eltwise_target": "AVX2",
            "eltwise_targets": ["AVX2"], "thread_counts": [1, 2], "threads": 2,
            "versions": {"eltwise": "0", "numpy": "2", "torch": "2.13", "openvino": "2026"},
            "peers_missing": {}, "notes": [], "command": "python -m benchmarks",
            "date": "today", "elapsed_s": 1.0, "eltwise_config": "config",
            "roofline": {"array_bytes": 2**26, "threads_1": roof, "threads_2": roof}}


def _fake_cell(dtype, op, t_numpy, t_eltwise, section="lowp", threads=1, peers=None,
               eltwise_skip=None, shape_kind="n=1e6"):
    libs = {"numpy": {"check": "exact", "median_s": t_numpy}}
    if eltwise_skip:
        libs["eltwise"] = {"skipped": eltwise_skip}
    else:
        libs["eltwise"] = {"check": "exact", "median_s": t_eltwise}
    libs.update(peers or {})
    speedup = {n: e["median_s"] / t_eltwise for n, e in libs.items()
               if n != "eltwise" and "median_s" in e and not eltwise_skip}
    return {"section": section, "op": op, "op_base": op, "dtype": dtype, "threads": threads,
            "shape_kind": shape_kind, "shape": "1000000 op 1000000", "n_out": 10**6,
            "inputs": "lowp", "sweep": False, "libs": libs, "speedup": speedup}


def _fake_lowp_records():
    torch_f8 = {"torch": {"skipped": "NotImplementedError: \"add_stub\" not implemented for "
                                     "'Float8_e4m3fn'"},
                "openvino": {"skipped": "RuntimeError: unsupported src_prc: f8e4m3"}}
    torch_i4 = {"torch": {"skipped": "NotImplementedError: \"add_stub\" not implemented for "
                                     "'Int4'"},
                "openvino": {"check": "exact", "median_s": 4e-3}}
    f16_peers = {"torch": {"check": "exact", "median_s": 1e-3}, "openvino": {
        "check": "exact", "median_s": 2e-3}}
    return [
        _fake_cell("float16", "add", 5e-3, 2e-4, peers=f16_peers),
        _fake_cell("float8_e4m3fn", "add", 10e-3, 1e-4, peers=torch_f8),        # 100x
        _fake_cell("float8_e5m2", "add", 10e-3, 4e-4, peers=torch_f8),          # 25x
        _fake_cell("int4", "add", 1e-3, None, peers=torch_i4,
                   eltwise_skip="TypeError: eltwise.add does not support dtype int4"),
        _fake_cell("float8_e4m3fn", "add", 10e-3, 2e-4, threads=2, peers=torch_f8),
    ]


def _report(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import report
    return report


def _goal(goals, start):
    return next(g for g in goals if g[0].startswith(start))


def test_report_lowp_table_and_goals(monkeypatch):
    """From fake records: the low-precision table per pass (eltwise's skip for int4, the
    peers' reasons), its goals (a skipped cell fails the 50x goal), and the main tables
    without the low-precision cells."""
    report = _report(monkeypatch)
    libs = [_Lib("eltwise", peer=False), _Lib("numpy"), _Lib("torch"), _Lib("openvino")]
    main = _fake_cell("float32", "add", 1e-3, 5e-4, section="main", shape_kind="n=1e6")
    records = [main] + _fake_lowp_records()
    md = report.markdown(_fake_meta(), records, libs)

    lowp1 = md[md.index("## Low-precision dtypes, 1 thread"):]
    lowp1 = lowp1[:lowp1.index("\n## ", 1)]
    assert "| dtype | op | NumPy+ml_dtypes | eltwise | NumPy / eltwise | torch | openvino |" \
        in lowp1
    rows = {tuple(c.strip() for c in line.strip("|").split(" | ")[:2]): line
            for line in lowp1.splitlines() if line.startswith("| ") and "---" not in line}
    assert "| 10 ms | 100 µs | 100 |" in rows[("float8_e4m3fn", "add")]
    assert ("cannot compute: NotImplementedError: \"add_stub\" not implemented for "
            "'Float8_e4m3fn'") in rows[("float8_e4m3fn", "add")]
    assert "cannot compute: RuntimeError: unsupported src_prc: f8e4m3" in rows[
        ("float8_e4m3fn", "add")]
    int4 = rows[("int4", "add")]
    assert "skipped: TypeError: eltwise.add does not support dtype int4" in int4
    assert "| — |" in int4 and "| 4 ms |" in int4  # no ratio; OpenVINO's time alone
    assert "| 1 ms (5x) |" in rows[("float16", "add")]
    assert "## Low-precision dtypes, 2 threads" in md

    # The main tables and geometric means hold the main cells only.
    speed1 = md[md.index("## Speedup of eltwise over NumPy, 1 thread"):]
    speed1 = speed1[:speed1.index("\n## ", 1)]
    assert "float32" in speed1 and "float8" not in speed1 and "float16" not in speed1
    assert "Geometric mean over these cells: **2.00x**" in speed1

    goals = report.goals(_fake_meta(), records, libs)
    goal, measured, met = _goal(goals, "float8_e4m3fn, float8_e5m2, float4_e2m1fn, int4")
    assert met is False
    assert "lowest 25.00x NumPy (add float8_e5m2 n=1e6, 1 thread)" in measured
    assert "1 of 2 cells below" in measured  # the measured ones
    assert "not measured: int4 add (eltwise: TypeError: eltwise.add does not support dtype " \
           "int4)" in measured
    goal, measured, met = _goal(goals, "float8_e4m3fn/float8_e5m2 add")
    assert "float16 add" in goal and met is False
    assert "lowest 0.50x float16 add (add float8_e5m2" in measured  # 2e-4 / 4e-4
    table = report.goals_table(_fake_meta(), records, libs)
    assert table.count("**not met**") >= 2


def test_report_lowp_goals_honest_when_skipped(monkeypatch):
    """Every low-precision cell skipped: the 50x goal is not measured, and says why; all
    timed and fast enough: met; no float16 reference: the float8 goal is not measured."""
    report = _report(monkeypatch)
    libs = [_Lib("eltwise", peer=False), _Lib("numpy")]
    skip = "TypeError: eltwise.add does not support dtype int4"
    only_int4 = [_fake_cell("int4", "add", 1e-3, None, eltwise_skip=skip)]
    goal, measured, met = _goal(report.goals(_fake_meta(), only_int4, libs), "float8_e4m3fn, ")
    assert met is None and "not measured in this run; not measured: int4 add" in measured
    assert skip in measured

    fast = [_fake_cell("float8_e4m3fn", "add", 10e-3, 1e-4),
            _fake_cell("float8_e5m2", "add", 10e-3, 1e-4)]
    goals = report.goals(_fake_meta(), fast, libs)
    assert _goal(goals, "float8_e4m3fn, ")[2] is True
    goal, measured, met = _goal(goals, "float8_e4m3fn/float8_e5m2 add")
    assert met is None and "no eltwise float16 add in this run" in measured

    with_ref = fast + [_fake_cell("float16", "add", 5e-3, 1e-4)]
    goal, measured, met = _goal(report.goals(_fake_meta(), with_ref, libs),
                                "float8_e4m3fn/float8_e5m2 add")
    assert met is True and "lowest 1.00x float16 add" in measured


def test_chains_section():
    """--section chains: every chain fused and unfused, the fused result bit-identical to
    the unfused one, every fused peer asked for either timed or with its reason, and the
    goals table."""
    data, md = run_section("chains", "numexpr,numba", "chains")
    cells = data["cells"]
    assert {r["dtype"] for r in cells} == {"float32", "float16", "int8->float32"}
    assert any(r["chain"].startswith("(x - mean)") for r in cells)
    for r in cells:
        assert r["libs"]["eltwise fused"]["check"] == "exact", r
        assert r["libs"]["eltwise unfused"]["median_s"] > 0
        for peer in ("numexpr", "numba"):
            if importlib.util.find_spec(peer) is not None:
                entry = r["libs"][peer]
                assert "median_s" in entry or entry["skipped"], (peer, r)
    if importlib.util.find_spec("numexpr") is not None:  # a peer not installed is not run
        assert "numexpr has no float16" in md and "numexpr has no int8" in md
    assert "## Goals" in md and "one-pass roofline" in md and "## Chains, 1 thread" in md
