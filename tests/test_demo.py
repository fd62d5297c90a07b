"""The demo, `python -m eltwise`: its options, its errors, and a small real run."""

import subprocess
import sys

import eltwise


def demo(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "eltwise", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_help_lists_the_options_and_runs_nothing():
    r = demo("--help")
    assert r.returncode == 0, r.stderr
    for option in ("--ops", "--dtypes", "--sizes", "--no-broadcast", "--threads", "--target"):
        assert option in r.stdout
    assert "Highway" not in r.stdout  # the config is not printed: nothing ran


def test_unknown_flags_and_values_are_errors():
    for args in (["--bogus"], ["--ops", "frobnicate"], ["--dtypes", "complex64"],
                 ["--sizes", "ten"], ["--sizes", "0"], ["--threads", "0"],
                 ["--target", "NOPE"]):
        r = demo(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "error:" in r.stderr, args


def test_small_run_checks_every_result():
    r = demo("--ops", "divide,power,less,bitwise_and", "--dtypes", "int16,float16,bool",
             "--sizes", "100", "--no-broadcast", "--threads", "1",
             "--target", eltwise.get_targets()[-1])
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [line for line in r.stdout.splitlines() if line.startswith(("divide", "power",
                                                                        "less", "bitwise"))]
    # bitwise_and on float16 and power/divide on bool are refused by eltwise: left out
    assert len(lines) == 4 + 3 + 2, r.stdout
    assert all(" yes " in line for line in lines), r.stdout
    assert f"target: {eltwise.get_targets()[-1]}" in r.stdout
    assert "all results bit-identical to NumPy: yes" in r.stdout
