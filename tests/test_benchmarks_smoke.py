"""The benchmark suite runs end to end at tiny sizes, so it cannot rot (no timing asserted)."""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_benchmark_suite_quick(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--strict", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["cells"], "no benchmark cells were measured"
    md = (tmp_path / "results.md").read_text()
    assert "| op | dtype |" in md
    for rec in data["cells"]:
        assert rec["libs"]["eltwise"]["check"] in ("exact", "close") and rec["libs"]["eltwise"]["median_s"] > 0
