"""The demo, `python -m eltwise`: its options, its errors, and a small real run; and the
README's quick start, `make demo` and `make test`, which runs it."""

import pathlib
import re
import subprocess
import sys

import eltwise

ROOT = pathlib.Path(__file__).resolve().parents[1]


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


def quick_start(path):
    """The command lines of the first code block under a file's "## Quick start"."""
    section = path.read_text(encoding="utf-8").split("\n## Quick start\n", 1)[1]
    block = re.search(r"^```\n(.*?)^```", section, re.M | re.S)[1]
    return [line.split("#")[0].strip() for line in block.splitlines()]


def test_quick_start_is_make_demo_and_make_test():
    """The README's two commands, the same on the documentation's front page, run the
    demo and the suite (.ci/run runs `make test` as the README does)."""
    commands = quick_start(ROOT / "README.md")
    assert commands == ["make demo", "make test"]
    assert quick_start(ROOT / "docs" / "index.md") == commands
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = {target: re.search(rf"^{target}:.*\n\t(.+)$", makefile, re.M)[1]
              for target in ("demo", "test")}
    assert recipe["demo"].endswith("-m eltwise") and recipe["test"].endswith("-m pytest")
    assert "stage make test\n" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
