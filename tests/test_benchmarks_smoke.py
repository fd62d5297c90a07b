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
    _, data = quick_run
    assert data["cells"], "no benchmark cells were measured"
    for rec in data["cells"]:
        e = rec["libs"]["eltwise"]
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
