"""Runtime (docs/semantics.md: "Runtime"): targets, threads, show_config, version, environment variables,
package surface (Op, Broadcast, __all__, docstrings)."""

import importlib.metadata
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import eltwise
from ew_helpers import ALL_OPS, assert_same, reference

KNOWN_TARGETS = {"AVX10_2", "AVX3_SPR", "AVX3_ZEN4", "AVX3_DL", "AVX3", "AVX2", "SSE4",
                 "SSSE3", "SSE2", "EMU128", "SCALAR", "NEON", "NEON_BF16", "SVE", "SVE2",
                 "SVE_256", "SVE2_128", "RVV", "PPC8", "PPC9", "PPC10", "Z14", "Z15",
                 "WASM", "WASM_EMU256", "NEON_WITHOUT_AES", "AVX10_2_512"}


def test_version():
    assert isinstance(eltwise.__version__, str)
    assert re.fullmatch(r"\d+\.\d+\.\d+([.-]?\w+)*", eltwise.__version__)
    assert eltwise.__version__ == importlib.metadata.version("eltwise")


def test_get_targets():
    ts = eltwise.get_targets()
    assert isinstance(ts, list) and ts
    assert all(isinstance(t, str) for t in ts)
    assert len(set(ts)) == len(ts)
    assert set(ts) <= KNOWN_TARGETS, ts
    assert eltwise.get_target() == ts[0]  # best first, in use by default


def test_set_target_each(target):
    assert eltwise.get_target() == target
    a = np.arange(100, dtype=np.float32)
    assert_same(eltwise.add(a, a), a + a)


def test_set_target_none_restores_best():
    ts = eltwise.get_targets()
    eltwise.set_target(ts[-1])
    assert eltwise.get_target() == ts[-1]
    eltwise.set_target(None)
    assert eltwise.get_target() == ts[0]


@pytest.mark.parametrize("bad", ["bogus", "", "AVX9", "avx512f"])
def test_set_target_unknown(bad):
    before = eltwise.get_target()
    with pytest.raises(ValueError):
        eltwise.set_target(bad)
    assert eltwise.get_target() == before


def test_set_target_wrong_type():
    with pytest.raises((TypeError, ValueError)):
        eltwise.set_target(3)


def test_targets_unchanged_by_set_target():
    ts = eltwise.get_targets()
    eltwise.set_target(ts[-1])
    assert eltwise.get_targets() == ts


def test_threads_roundtrip():
    for n in (1, 2, 3, 8):
        eltwise.set_num_threads(n)
        assert eltwise.get_num_threads() == n
        a = np.arange(300_000, dtype=np.float64)
        assert_same(eltwise.multiply(a, a), a * a)


@pytest.mark.parametrize("bad", [0, -1, -100])
def test_threads_invalid(bad):
    before = eltwise.get_num_threads()
    with pytest.raises(ValueError):
        eltwise.set_num_threads(bad)
    assert eltwise.get_num_threads() == before


def test_threads_wrong_type():
    with pytest.raises(TypeError):
        eltwise.set_num_threads("2")
    with pytest.raises(TypeError):
        eltwise.set_num_threads(1.5)


def test_show_config(capsys):
    ret = eltwise.show_config()
    out = capsys.readouterr().out
    assert ret is None
    assert eltwise.__version__ in out
    assert eltwise.get_target() in out
    for t in eltwise.get_targets():
        assert t in out
    assert str(eltwise.get_num_threads()) in out
    assert re.search(r"highway|hwy", out, re.I)


def _run(code, env_extra=None, preexec_fn=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ELTWISE_")}
    env.update(env_extra or {})
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120, preexec_fn=preexec_fn)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_default_threads_is_affinity():
    n = len(os.sched_getaffinity(0))
    assert _run("import eltwise; print(eltwise.get_num_threads())") == str(n)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no affinity")
def test_default_threads_follows_restricted_affinity():
    cpu = min(os.sched_getaffinity(0))
    out = _run("import eltwise; print(eltwise.get_num_threads())",
               preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    assert out == "1"


def test_env_num_threads():
    assert _run("import eltwise; print(eltwise.get_num_threads())",
                {"ELTWISE_NUM_THREADS": "1"}) == "1"
    assert _run("import eltwise; print(eltwise.get_num_threads())",
                {"ELTWISE_NUM_THREADS": "3"}) == "3"


def test_env_target():
    for t in eltwise.get_targets():
        assert _run("import eltwise; print(eltwise.get_target())", {"ELTWISE_TARGET": t}) == t


def test_env_target_result():
    t = eltwise.get_targets()[-1]
    code = ("import numpy as np, eltwise\n"
            "a = np.arange(1, 40, dtype=np.int32)\n"
            "print(eltwise.get_target(), eltwise.divide(a * 7, a - 20, pythondiv=False).tolist())")
    out = _run(code, {"ELTWISE_TARGET": t})
    a = np.arange(1, 40, dtype=np.int32)
    b = a - 20
    from ew_helpers import trunc_divide
    with np.errstate(all="ignore"):
        exp = trunc_divide(a * 7, b)
    assert out.split(" ", 1)[0] == t
    assert out.split(" ", 1)[1] == str(exp.tolist())


# --- package surface ---------------------------------------------------------


def test_all_exports():
    names = set(ALL_OPS) | {"elementwise", "Op", "Broadcast", "show_config", "get_targets",
                            "get_target", "set_target", "set_num_threads", "get_num_threads",
                            "__version__"}
    assert set(eltwise.__all__) >= names - {"__version__"}
    for n in names:
        assert hasattr(eltwise, n), n


@pytest.mark.parametrize("name", ALL_OPS + ["elementwise"])
def test_docstrings(name):
    doc = getattr(eltwise, name).__doc__
    assert doc and len(doc) > 40


def test_op_enum():
    names = {m.name for m in eltwise.Op}
    assert names >= {"SUM", "PROD", "MAX", "MIN", "SUB", "DIV", "POW", "FLOOR_DIV", "AND",
                     "OR", "XOR", "EQUAL", "GREATER", "LESS"}


OP_MAP = {
    "SUM": "add", "PROD": "multiply", "MAX": "maximum", "MIN": "minimum", "SUB": "subtract",
    "DIV": "divide", "POW": "power", "FLOOR_DIV": "floor_divide", "AND": "logical_and",
    "OR": "logical_or", "XOR": "logical_xor", "EQUAL": "equal", "GREATER": "greater",
    "LESS": "less",
}


@pytest.mark.parametrize("opname", sorted(OP_MAP))
def test_elementwise_op_names(opname):
    fname = OP_MAP[opname]
    rng = np.random.default_rng(0)
    for a, b in ((rng.integers(-9, 9, 50).astype(np.int32), rng.integers(1, 4, 50).astype(np.int32)),
                 (rng.standard_normal(50).astype(np.float32), rng.standard_normal(50).astype(np.float32)),
                 (rng.integers(0, 2, 50).astype(bool), rng.integers(0, 2, 50).astype(bool))):
        exp_err = None
        try:
            exp = getattr(eltwise, fname)(a, b)
        except TypeError:
            exp_err = TypeError
        for op in (getattr(eltwise.Op, opname), opname, opname.lower(), opname.capitalize(),
                   fname, fname.upper()):
            if exp_err:
                with pytest.raises(exp_err):
                    eltwise.elementwise(a, b, op)
                continue
            got = eltwise.elementwise(a, b, op)
            assert_same(got, exp)
            out = np.empty_like(exp)
            assert eltwise.elementwise(a, b, op, out=out) is out
            assert_same(out, exp)


@pytest.mark.parametrize("fname", ALL_OPS)
def test_elementwise_function_names(fname):
    a = np.array([[1, 2, 3], [4, 5, 6]], np.int16)
    b = np.array([3, 2, 1], np.int16)
    exp = reference(fname, a, b)
    assert_same(eltwise.elementwise(a, b, fname), exp)
    assert_same(eltwise.elementwise(a, b, fname.upper()), exp)
    # keywords pass through
    assert_same(eltwise.elementwise(a, b, fname, broadcast="numpy", axis=-1), exp)
    got = eltwise.elementwise(a, np.array([3, 2], np.int16).reshape(2, 1), fname,
                              broadcast="pdpd", axis=0)
    assert_same(got, reference(fname, a, np.array([[3], [2]], np.int16)))
    if not fname.startswith("bitwise"):
        got = eltwise.elementwise(a, b, fname, dtype=np.float64)
        assert_same(got, reference(fname, a, b, dtype=np.float64), ulp=1 if fname == "power" else 0)


def test_elementwise_float_ops_map():
    """FLOOR_DIV on floats is numpy.floor_divide; DIV is true division."""
    a = np.array([7.0, -7.0, 1.0])
    b = np.array([2.0, 2.0, 0.1])
    assert_same(eltwise.elementwise(a, b, "FLOOR_DIV"), np.floor_divide(a, b))
    assert_same(eltwise.elementwise(a, b, "DIV"), a / b)
