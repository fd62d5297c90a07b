"""The repaired wheel runs on a machine without Highway.

`tools/build-wheel` builds the wheel and `auditwheel repair`s it (or reuses the one
in dist/ when the source has not changed since). The wheel is installed into a fresh
virtual environment (pip fetches numpy and ml_dtypes), and eltwise is imported and
run in a child process whose mount namespace covers every libhwy file of
the system with an empty file (`unshare -m` as root, `unshare -rm` otherwise). The
unrepaired wheel's extension must fail to load in that same sandbox, so the hiding
is proven to work; the repaired one must run and map Highway from its own
eltwise.libs/. (SLEEF, which float64 power used before eltwise's own pow, is
neither needed nor bundled.) Nothing is installed into the interpreter running the tests.

Slow (a build when the source changed, a venv, a pip install): marked ``slow``,
every step has a time limit and the whole module a budget,
``ELTWISE_WHEEL_TEST_BUDGET`` seconds (default 1800).
"""

from __future__ import annotations

import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time
import zipfile

import pytest

pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD_WHEEL = ROOT / "tools" / "build-wheel"
HIDDEN_NAMES = ("libhwy",)
DEADLINE = time.monotonic() + float(os.environ.get("ELTWISE_WHEEL_TEST_BUDGET", "1800"))

if not sys.platform.startswith("linux"):
    pytest.skip("the wheel repair and the sandbox are Linux-only", allow_module_level=True)
if not BUILD_WHEEL.exists():
    pytest.skip("needs the source tree's tools/build-wheel", allow_module_level=True)


def show(cmd) -> str:
    return " ".join(a if len(a) < 100 else a[:60] + "…" for a in map(str, cmd))


def run(cmd, *, timeout, check=True, **kwargs):
    """Runs cmd with its output captured, within `timeout` and the module's budget."""
    left = DEADLINE - time.monotonic()
    if left <= 0:
        pytest.fail("ELTWISE_WHEEL_TEST_BUDGET exhausted")
    try:
        proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                              timeout=min(timeout, left), **kwargs)
    except subprocess.TimeoutExpired as e:
        out = [x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
               for x in (e.stdout, e.stderr)]
        pytest.fail(f"timed out after {e.timeout:.0f} s: {show(cmd)}\n"
                    f"--- stdout\n{out[0][-3000:]}\n--- stderr\n{out[1][-3000:]}")
    if check and proc.returncode != 0:
        pytest.fail(f"exit status {proc.returncode}: {show(cmd)}\n"
                    f"--- stdout\n{proc.stdout[-5000:]}\n--- stderr\n{proc.stderr[-5000:]}")
    return proc


def clean_env(**extra):
    """The environment for the children: nothing that points at another Python."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV",
                        "PYTHONSAFEPATH")}
    env.update(PYTHONNOUSERSITE="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def build_python() -> pathlib.Path:
    """The interpreter the wheel is built for: this one when it runs in a venv."""
    if sys.prefix != sys.base_prefix:
        return pathlib.Path(sys.executable)
    return ROOT / ".venv" / "bin" / "python"


def system_copies() -> list[str]:
    """Every file of the system's Highway that the loader could find."""
    found = set()
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    if os.path.exists(ldconfig):
        out = subprocess.run([ldconfig, "-p"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            name, _, path = line.strip().partition(" => ")
            if path and name.startswith(HIDDEN_NAMES):
                found.add(path)
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = ["/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/usr/local/lib64",
            f"/lib/{multiarch}", f"/usr/lib/{multiarch}", f"/usr/local/lib/{multiarch}",
            *filter(None, os.environ.get("LD_LIBRARY_PATH", "").split(":"))]
    for d in dirs:
        for name in HIDDEN_NAMES:
            found.update(glob.glob(os.path.join(d, name + "*.so*")))
    return sorted({os.path.realpath(p) for p in found if os.path.isfile(p)})


# Covers each file named before "--" with an empty file, then runs the rest.
HIDE_SH = ('e=$1; shift; while [ "$1" != -- ]; do mount --bind "$e" "$1" || exit 97; shift; done; '
           'shift; exec "$@"')


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A function wrapping a command so that it runs with the system copies hidden."""
    hidden = system_copies()
    empty = tmp_path_factory.mktemp("sandbox") / "empty"
    empty.write_bytes(b"")
    empty.chmod(0o644)
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        pytest.skip("needs util-linux's unshare and mount to hide the system libraries")
    # As root a private mount namespace suffices; otherwise map ourselves to root
    # in a new user namespace (needs unprivileged user namespaces).
    methods = ([["unshare", "-m"]] if os.geteuid() == 0 else []) + [["unshare", "-rm"]]
    reasons = []
    for method in methods:
        def wrap(cmd, method=method):
            return [*method, "sh", "-c", HIDE_SH, "sh", str(empty), *hidden, "--", *cmd]
        probe = ["sh", "-c", 'for f; do [ ! -s "$f" ] || exit 1; done', "sh", *hidden]
        proc = run(wrap(probe), timeout=30, check=False)
        if proc.returncode == 0:
            return wrap, hidden
        reasons.append(f"{' '.join(method)}: exit {proc.returncode} {proc.stderr.strip()[:200]}")
    pytest.skip("cannot hide the system libraries (no mount namespace): " + "; ".join(reasons))


@pytest.fixture(scope="module")
def wheels(sandbox):
    """(repaired wheel, unrepaired wheel): built, or reused when dist/ is current."""
    python = build_python()
    start = time.monotonic()
    proc = run([BUILD_WHEEL, "--if-stale"], timeout=1500, cwd=ROOT,
               env=clean_env(PYTHON=str(python)))
    print(proc.stdout[-2000:])
    print(f"tools/build-wheel: {time.monotonic() - start:.0f} s")
    _hash, repaired, raw = (ROOT / "build" / "wheel" / "stamp").read_text().split()
    return ROOT / repaired, ROOT / raw


@pytest.fixture(scope="module")
def venv(wheels, tmp_path_factory):
    """A fresh virtual environment (no system site packages) with the repaired wheel."""
    repaired, _ = wheels
    path = tmp_path_factory.mktemp("fresh") / "venv"
    run([build_python(), "-m", "venv", path], timeout=180, env=clean_env())
    python = path / "bin" / "python"
    start = time.monotonic()
    proc = run([python, "-m", "pip", "install", repaired], timeout=900, check=False,
               env=clean_env())
    if proc.returncode != 0:
        if any(s in proc.stdout + proc.stderr for s in
               ("NewConnectionError", "Temporary failure in name resolution",
                "Network is unreachable", "No matching distribution found for numpy",
                "No matching distribution found for ml")):
            pytest.skip("pip cannot fetch numpy/ml_dtypes for the fresh environment: "
                        + proc.stderr.strip().splitlines()[-1])
        pytest.fail(f"pip install failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    print(f"pip install into a fresh venv: {time.monotonic() - start:.0f} s")
    site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"],
               timeout=60, env=clean_env()).stdout.strip()
    yield python, pathlib.Path(site)
    shutil.rmtree(path, ignore_errors=True)


def test_wheel_is_manylinux_and_self_contained(wheels):
    repaired, raw = wheels
    assert "-manylinux_" in repaired.name, repaired.name
    assert raw.name.endswith(f"-linux_{os.uname().machine}.whl"), raw.name
    with zipfile.ZipFile(repaired) as z:
        names = z.namelist()
    assert any(n.startswith("eltwise.libs/libhwy") for n in names), names
    assert not [n for n in names if "sleef" in n.lower()], names
    licenses = {n.split(".dist-info/licenses/", 1)[1] for n in names if ".dist-info/licenses/" in n}
    assert {"LICENSE", "licenses/highway-LICENSE.txt"} <= licenses


LOAD_RAW = textwrap.dedent("""
    import ctypes, importlib.util, json, sys
    result = {}
    for name in ("libhwy.so.1",):
        try:
            ctypes.CDLL(name)
            result[name] = None
        except OSError as e:
            result[name] = str(e)
    spec = importlib.util.spec_from_file_location("_eltwise", sys.argv[1])
    try:
        importlib.util.module_from_spec(spec)
        result["import"] = None
    except ImportError as e:
        result["import"] = str(e)
    print(json.dumps(result))
""")


def test_sandbox_hides_the_system_libraries(wheels, venv, sandbox, tmp_path):
    """The unrepaired extension loads normally, but not in the sandbox."""
    wrap, hidden = sandbox
    _, raw = wheels
    python, _ = venv
    assert any("libhwy" in p for p in hidden), hidden
    with zipfile.ZipFile(raw) as z:
        (ext,) = [n for n in z.namelist() if n.startswith("eltwise/_eltwise") and n.endswith(".so")]
        so = z.extract(ext, tmp_path)
    load = [python, "-c", "import ctypes, sys; ctypes.CDLL(sys.argv[1])", so]
    run(load, timeout=60, cwd=tmp_path, env=clean_env())  # fine with the system libraries
    proc = run(wrap([python, "-c", LOAD_RAW, so]), timeout=120, cwd=tmp_path, env=clean_env())
    result = json.loads(proc.stdout)
    assert result["libhwy.so.1"], result
    assert result["import"] and "libhwy" in result["import"], result


RUN_REPAIRED = textwrap.dedent("""
    import json, os, subprocess, sys
    import ml_dtypes
    import numpy as np
    import eltwise
    from eltwise import _eltwise

    rng = np.random.default_rng(9)
    a = rng.standard_normal(10_000).astype(np.float32)
    b = rng.uniform(0.5, 2.0, 10_000).astype(np.float32)
    np.testing.assert_array_equal(eltwise.add(a, b), a + b)
    np.testing.assert_array_equal(eltwise.multiply(a[:, None][:100], b[:7]), a[:100, None] * b[:7])
    np.testing.assert_array_equal(eltwise.divide(a, b), a / b)
    i = rng.integers(-1000, 1000, 10_000, dtype=np.int32)
    j = rng.integers(1, 50, 10_000, dtype=np.int32) * rng.choice(np.array([-1, 1], np.int32), 10_000)
    np.testing.assert_array_equal(eltwise.floor_divide(i, j), i // j)
    np.testing.assert_array_equal(eltwise.ufunc.add.reduce(i[:64]), np.add.reduce(i[:64]))

    x, y = a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)
    r = eltwise.add(x, y)
    assert r.dtype == ml_dtypes.bfloat16, r.dtype
    np.testing.assert_array_equal(r.astype(np.float32), (x + y).astype(np.float32))

    # power has a variant for each target: check every target this CPU runs.
    base = rng.uniform(0.01, 10.0, 4096).astype(np.float32)
    expo = rng.uniform(-8.0, 8.0, 4096).astype(np.float32)
    exact = np.power(base.astype(np.float64), expo.astype(np.float64))
    targets = list(eltwise.get_targets())
    for t in targets:
        eltwise.set_target(t)
        np.testing.assert_array_max_ulp(eltwise.power(base, expo), exact.astype(np.float32), maxulp=1)
        np.testing.assert_array_max_ulp(eltwise.power(base.astype(np.float64), expo.astype(np.float64)),
                                        exact, maxulp=1)
    eltwise.set_target(None)
    eltwise.show_config()

    # Where the loader found Highway (and any SLEEF): this process's mappings, ldd's view.
    def ours(line):
        return "libhwy" in line or "libsleef" in line
    with open("/proc/self/maps") as f:
        maps = {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
    ldd = subprocess.run(["ldd", _eltwise.__file__], capture_output=True, text=True).stdout
    ldd = {l.split("=>")[1].split("(")[0].strip() for l in ldd.splitlines() if ours(l) and "=>" in l}
    print(json.dumps({"eltwise": os.path.realpath(eltwise.__file__), "targets": targets,
                      "maps": sorted(os.path.realpath(p) for p in maps if ours(p)),
                      "ldd": sorted(os.path.realpath(p) for p in ldd),
                      "config": _eltwise.config_text()}))
""")


def test_repaired_wheel_runs_without_system_libraries(wheels, venv, sandbox, tmp_path):
    wrap, _ = sandbox
    python, site = venv
    proc = run(wrap([python, "-c", RUN_REPAIRED]), timeout=300, cwd=tmp_path, env=clean_env())
    print(proc.stdout)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    site = pathlib.Path(os.path.realpath(site))
    assert pathlib.Path(result["eltwise"]).is_relative_to(site), result["eltwise"]
    version = wheels[0].name.split("-")[1]
    assert version in result["config"], result["config"]
    libs = site / "eltwise.libs"
    for where in ("maps", "ldd"):
        paths = [pathlib.Path(p) for p in result[where]]
        assert sorted(p.name.split("-")[0] for p in paths) == ["libhwy"], (where, paths)
        assert all(p.parent == libs for p in paths), (where, paths)

