"""The type stubs (python/eltwise/*.pyi) against the runtime.

- ``python -m mypy.stubtest eltwise`` passes, with the allowlist beside this file.
- ``mypy --strict`` accepts a typed usage snippet whose ``assert_type`` and
  ``reveal_type`` lines pin what the stubs promise, and rejects the calls the
  runtime rejects; the same expressions are then evaluated, so a promise the
  runtime does not keep (a dtype, an ndarray where a scalar comes back) fails.
- ``eltwise.Function`` is ``@type_check_only`` (stubtest skips it), so its
  members and call signatures are compared with the runtime objects here.
- ``Broadcast(text)`` reads the names as ``broadcast=`` does.

stubtest and mypy run in subprocesses (``sys.executable``), both at once, with
their caches in a temporary directory and a bounded time.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import eltwise
from eltwise._names import DTYPE_TABLE, FUNCTION_NAMES, FUNCTION_TABLE

pytest.importorskip("mypy", reason="the stub tests need mypy (the test extra)")

HERE = Path(__file__).resolve().parent
ALLOWLIST = HERE / "stubtest_allowlist.txt"
STUB = Path(eltwise.__file__).with_name("__init__.pyi")
TIMEOUT = 300  # seconds, for each subprocess; both take ~20 s on one core

# Runs under mypy and at run time: the operands, each with a precise static type.
PREAMBLE = """\
from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

import eltwise


class Duck:
    \"\"\"Not an ndarray, with its own __array_ufunc__ (as dask, pandas, xarray).\"\"\"

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return "quack"


f16: npt.NDArray[np.float16] = np.arange(1, 4, dtype=np.float16)
f32: npt.NDArray[np.float32] = np.arange(1, 4, dtype=np.float32)
f64: npt.NDArray[np.float64] = np.arange(1, 4, dtype=np.float64)
i8: npt.NDArray[np.int8] = np.arange(1, 4, dtype=np.int8)
i32: npt.NDArray[np.int32] = np.arange(1, 4, dtype=np.int32)
i64: npt.NDArray[np.int64] = np.arange(1, 4, dtype=np.int64)
u8: npt.NDArray[np.uint8] = np.arange(1, 4, dtype=np.uint8)
u64: npt.NDArray[np.uint64] = np.arange(1, 4, dtype=np.uint64)
b: npt.NDArray[np.bool_] = np.array([True, False, True])
anyarr: npt.NDArray[Any] = np.asarray([1.0, 2.0, 3.0])
o32: npt.NDArray[np.float32] = np.zeros(3, dtype=np.float32)
masked = np.arange(1.0, 4.0).view(np.ma.MaskedArray)  # an ndarray subclass
"""

# Only for mypy: assert_type is typing's from Python 3.11 on.
MYPY_HEADER = """\
import sys

if sys.version_info >= (3, 11):
    from typing import assert_type
else:
    from typing_extensions import assert_type
"""

ARRAY = np.ndarray
# (expression, the type mypy must infer, what it is at run time). At run time:
# (np.ndarray, scalar type or None for any dtype), (scalar type, None) for a
# NumPy scalar of exactly that type, or None where the stubs say Any.
CASES = [
    # One dtype in, that dtype out; comparisons give bool.
    ("eltwise.add(f32, f32)", "npt.NDArray[np.float32]", (ARRAY, np.float32)),
    ("eltwise.multiply(u8, u8)", "npt.NDArray[np.uint8]", (ARRAY, np.uint8)),
    ("eltwise.squared_difference(f16, f16)", "npt.NDArray[np.float16]", (ARRAY, np.float16)),
    ("eltwise.bitwise_and(b, b)", "npt.NDArray[np.bool_]", (ARRAY, np.bool_)),
    ("eltwise.divide(i32, i32, pythondiv=False)", "npt.NDArray[np.int32]", (ARRAY, np.int32)),
    ("eltwise.floor_divide(i8, np.int8(2))", "npt.NDArray[np.int8]", (ARRAY, np.int8)),
    ("eltwise.equal(f32, f64)", "npt.NDArray[np.bool_]", (ARRAY, np.bool_)),
    ("eltwise.logical_and([1, 0, 2], [1, 1, 0])", "npt.NDArray[np.bool_]", (ARRAY, np.bool_)),
    ("eltwise.less(i8, 2.5, dtype=np.float64)", "npt.NDArray[np.bool_]", (ARRAY, np.bool_)),
    # Python scalars are weak (NEP 50); a NumPy float64 is not.
    ("eltwise.add(f16, 1.0)", "npt.NDArray[np.float16]", (ARRAY, np.float16)),
    ("eltwise.subtract(2, f32)", "npt.NDArray[np.float32]", (ARRAY, np.float32)),
    ("eltwise.power(i8, 2)", "npt.NDArray[np.int8]", (ARRAY, np.int8)),
    ("eltwise.add(f16, np.float64(1.0))", "npt.NDArray[np.float64]", (ARRAY, np.float64)),
    # Mixed dtypes: promoted at run time, not told by the stubs.
    ("eltwise.add(i8, 1.0)", "npt.NDArray[Any]", (ARRAY, np.float64)),
    ("eltwise.add(i64, u64)", "npt.NDArray[Any]", (ARRAY, np.float64)),
    ("eltwise.add(f32, f64)", "npt.NDArray[Any]", (ARRAY, np.float64)),
    ("eltwise.add(anyarr, anyarr)", "npt.NDArray[Any]", (ARRAY, np.float64)),
    ("eltwise.maximum([1, 2], [3.5])", "npt.NDArray[Any]", (ARRAY, np.float64)),
    ("eltwise.add(masked, 1.0)", "npt.NDArray[Any]", (np.ma.MaskedArray, np.float64)),
    # dtype= decides.
    ("eltwise.add(i8, 1, dtype=np.float32)", "npt.NDArray[np.float32]", (ARRAY, np.float32)),
    ("eltwise.add([1, 2], [3, 4], dtype=np.int16)", "npt.NDArray[np.int16]", (ARRAY, np.int16)),
    ("eltwise.add(1, 2, dtype=np.float32)", "np.float32", (np.float32, None)),
    # Every operand a scalar: a NumPy scalar.
    ("eltwise.add(np.float32(1), np.float32(2))", "np.float32", (np.float32, None)),
    ("eltwise.add(np.float16(1), 2.0)", "np.float16", (np.float16, None)),
    ("eltwise.add(np.int8(1), 2)", "np.int8", (np.int8, None)),
    ("eltwise.add(np.float32(1), np.float64(2))", "np.float64", (np.float64, None)),
    ("eltwise.add(1, 2)", "np.intp", (np.intp, None)),
    ("eltwise.divide(7, 2)", "np.intp", (np.intp, None)),
    ("eltwise.add(True, True)", "np.bool_", (np.bool_, None)),
    ("eltwise.add(1, 2.5)", "np.float64", (np.float64, None)),
    ("eltwise.greater(1, 2.5)", "np.bool_", (np.bool_, None)),
    ("eltwise.add(np.int8(1), 2.0)", "Any", None),
    # out= is returned.
    ("eltwise.add(f32, f32, out=o32)", "npt.NDArray[np.float32]", (ARRAY, np.float32)),
    ("eltwise.add(i8, 1, (o32,))", "npt.NDArray[np.float32]", (ARRAY, np.float32)),
    # Broadcast modes: a member, any case, "explicit", None.
    ("eltwise.add(f32, f32, broadcast=None)", "npt.NDArray[np.float32]", (ARRAY, np.float32)),
    ("eltwise.add(f32, f32, broadcast='EXPLICIT')", "npt.NDArray[np.float32]", (ARRAY, np.float32)),
    ("eltwise.add(f32, f32, broadcast=eltwise.Broadcast.PDPD, axis=np.int64(0))",
     "npt.NDArray[np.float32]", (ARRAY, np.float32)),
    ("eltwise.Broadcast('explicit')", "eltwise.Broadcast", (eltwise.Broadcast, None)),
    # An operand with its own __array_ufunc__ decides.
    ("eltwise.add(Duck(), 1.0)", "Any", None),
    ("eltwise.equal(f32, Duck())", "Any", None),
    # elementwise.
    ("eltwise.elementwise(f32, f32, eltwise.Op.EQUAL)", "npt.NDArray[np.bool_]", (ARRAY, np.bool_)),
    ("eltwise.elementwise(f32, 2, 'div', pythondiv=False)", "npt.NDArray[Any]",
     (ARRAY, np.float32)),
    ("eltwise.elementwise(1, 2, eltwise.Op.SUM)", "Any", None),
    # The ufunc twins and what the functions lend of theirs.
    ("eltwise.ufunc.add", "np.ufunc", (np.ufunc, None)),
    ("eltwise.ufunc.divide_trunc", "np.ufunc", (np.ufunc, None)),
    ("eltwise.add.ufunc", "np.ufunc", (np.ufunc, None)),
    ("eltwise.add.reduce(f32)", "Any", None),
    ("eltwise.add.accumulate(f32)", "npt.NDArray[Any]", (ARRAY, np.float32)),
    ("eltwise.multiply.outer(f32, f32)", "Any", None),
    ("eltwise.add.nin", "int", (int, None)),
    ("eltwise.add.types", "list[str]", (list, None)),
    ("eltwise.add.__name__", "Literal['add']", (str, None)),
    # Runtime functions.
    ("eltwise.get_targets()", "list[str]", (list, None)),
    ("eltwise.get_num_threads()", "int", (int, None)),
    ("eltwise.__version__", "str", (str, None)),
]

# Rejected by mypy (the error code) and by the runtime (the exception).
REJECTED = [
    ("eltwise.add(f32, f32, pythondiv=True)", "call-overload", TypeError),
    ("eltwise.add(f32, f32, f32, f32)", "call-overload", TypeError),
    ("eltwise.add(f32, f32, bogus=1)", "call-overload", TypeError),
    ("eltwise.add(x1=f32, x2=f32)", "call-overload", TypeError),
    ("eltwise.elementwise(f32, f32, eltwise.Op.SUM, pythondiv=True)", "call-overload", TypeError),
    ("eltwise.set_target(3)", "arg-type", TypeError),
    ("eltwise.Broadcast(None)", "arg-type", ValueError),
]

# reveal_type, for the spelling a reader sees: (expression, a regular expression
# the revealed type must match in full).
REVEALED = [
    ("eltwise.add", re.escape("eltwise.Function[Literal['add']]")),
    ("eltwise.equal(f32, f32)", r"numpy\.ndarray\[.*, numpy\.dtype\[numpy\.bool_?(\[.*\])?\]\]"),
    ("eltwise.ufunc.add", re.escape("numpy.ufunc")),
    ("eltwise.add.reduce", r"def \(.*\) -> Any"),
    ("eltwise.Broadcast('EXPLICIT')", re.escape("eltwise.Broadcast")),
]


def _snippet() -> tuple[str, dict[int, str]]:
    """The module mypy checks, and the line of each reveal_type."""
    lines = (PREAMBLE + "\n" + MYPY_HEADER + "\n").splitlines()
    lines += [f"assert_type({expr}, {typ})" for expr, typ, _ in CASES]
    lines += [f"{expr}  # type: ignore[{code}]" for expr, code, _ in REJECTED]
    revealed = {}
    for expr, expected in REVEALED:
        lines.append(f"reveal_type({expr})")
        revealed[len(lines)] = expected
    return "\n".join(lines) + "\n", revealed


def _unstubbed_modules() -> list[str]:
    """eltwise's modules written in Python that have no .pyi beside them."""
    package = Path(eltwise.__file__).parent
    return sorted(f"eltwise.{p.stem}" for p in package.glob("*.py")
                  if p.stem != "__init__" and not p.with_suffix(".pyi").exists())


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    env.pop("MYPY_CACHE_DIR", None)
    return env


@pytest.fixture(scope="module")
def checks(tmp_path_factory):
    """Starts stubtest and mypy together; each test waits for its own."""
    tmp = tmp_path_factory.mktemp("stubs")
    # An explicit config: no user or project configuration leaks in. stubtest
    # builds the package's pure-Python modules that have no stubs too; whether
    # their bodies type-check is not the stubs' business (and changes with
    # mypy's version), so errors there are ignored. Their names are still
    # compared with the runtime.
    stubtest_config = tmp / "stubtest.ini"
    config = f"[mypy]\ncache_dir = {tmp / 'cache-stubtest'}\n"
    if _unstubbed_modules():
        config += f"[mypy-{','.join(_unstubbed_modules())}]\nignore_errors = True\n"
    stubtest_config.write_text(config)
    mypy_config = tmp / "mypy.ini"
    mypy_config.write_text("[mypy]\n")
    source, revealed = _snippet()
    (tmp / "usage.py").write_text(source)
    common = dict(cwd=tmp, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    procs = {
        "stubtest": subprocess.Popen(
            [sys.executable, "-m", "mypy.stubtest", "eltwise", "--concise",
             "--allowlist", str(ALLOWLIST), "--mypy-config-file", str(stubtest_config)],
            **common),
        "mypy": subprocess.Popen(
            [sys.executable, "-m", "mypy", "--strict", "--config-file", str(mypy_config),
             "--cache-dir", str(tmp / "cache-mypy"), "--no-error-summary", "--show-error-codes",
             "usage.py"],
            **common),
    }
    results = {}

    def result(name):
        if name not in results:
            try:
                out, _ = procs[name].communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                procs[name].kill()
                procs[name].communicate()
                pytest.fail(f"{name} took more than {TIMEOUT} s")
            results[name] = (procs[name].returncode, out)
        return results[name]

    yield result, revealed
    for proc in procs.values():
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_stubtest(checks):
    result, _ = checks
    code, out = result("stubtest")
    assert code == 0 and "error" not in out.lower(), f"stubtest failed:\n{out}"


def test_typed_usage_under_mypy_strict(checks):
    result, revealed = checks
    code, out = result("mypy")
    notes = {}
    errors = []
    for line in out.splitlines():
        m = re.match(r"usage\.py:(\d+): note: Revealed type is \"(.*)\"$", line)
        if m:
            notes[int(m.group(1))] = m.group(2)
        elif line.strip():
            errors.append(line)
    assert not errors and code == 0, "mypy --strict on the typed usage:\n" + "\n".join(errors)
    for lineno, expected in revealed.items():
        assert lineno in notes, f"no reveal_type note on line {lineno}:\n{out}"
        assert re.fullmatch(expected, notes[lineno]), (
            f"line {lineno}: revealed {notes[lineno]!r}, expected {expected!r}")


def _namespace() -> dict:
    ns: dict = {}
    exec(compile(PREAMBLE, "<preamble>", "exec"), ns)
    return ns


@pytest.mark.parametrize("expr, typ, runtime", CASES, ids=[c[0] for c in CASES])
def test_typed_usage_holds_at_run_time(expr, typ, runtime):
    """What mypy is told is what comes back (NDArray means an ndarray, never a scalar)."""
    value = eval(expr, _namespace())
    if runtime is None:
        return
    cls, scalar = runtime
    assert isinstance(value, cls), f"{expr} gave {type(value).__name__}, stubs say {typ}"
    if cls is np.ufunc or not issubclass(cls, (np.ndarray, np.generic)):
        return
    if issubclass(cls, np.ndarray):
        assert value.ndim > 0
        if scalar is not None:
            assert value.dtype.type is scalar, f"{expr} gave {value.dtype}, stubs say {typ}"
    else:
        assert type(value) is cls, f"{expr} gave {type(value).__name__}, stubs say {typ}"


def test_out_is_returned():
    ns = _namespace()
    assert eval("eltwise.add(f32, f32, out=o32)", ns) is ns["o32"]
    assert eval("eltwise.add(i8, 1, (o32,))", ns) is ns["o32"]
    assert eval("eltwise.add(Duck(), 1.0)", ns) == "quack"  # hence Any, not an ndarray


@pytest.mark.parametrize("expr, code, exc", REJECTED, ids=[c[0] for c in REJECTED])
def test_rejected_calls_raise_at_run_time(expr, code, exc):
    ns = _namespace()
    try:
        with pytest.raises(exc):
            eval(expr, ns)
    finally:
        eltwise.set_target(None)


# --- eltwise.Function: the stub class against the runtime objects -------------

def _stub_tree() -> ast.Module:
    assert STUB.is_file(), f"no stubs installed beside {eltwise.__file__}"
    return ast.parse(STUB.read_text(), str(STUB))


def _stub_aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """The stub's ``name: TypeAlias = value`` (and other annotated assignments with a
    value), by name."""
    return {n.target.id: n.value for n in tree.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value}


def _literal_names(node: ast.expr, aliases: dict[str, ast.expr]) -> set[str]:
    """The strings of Literal[...] (or of the alias naming one)."""
    if isinstance(node, ast.Name):
        return _literal_names(aliases[node.id], aliases)
    assert isinstance(node, ast.Subscript), ast.unparse(node)
    assert ast.unparse(node.value) == "Literal", ast.unparse(node)
    elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return {ast.literal_eval(e) for e in elts}


def _parameters(fn: ast.FunctionDef) -> list[tuple[str, inspect._ParameterKind, object]]:
    """(name, kind, default or inspect.Parameter.empty) of a stub def, self left out."""
    a = fn.args
    P = inspect.Parameter
    positional = [(p, P.POSITIONAL_ONLY) for p in a.posonlyargs] + [
        (p, P.POSITIONAL_OR_KEYWORD) for p in a.args]
    defaults = [P.empty] * (len(positional) - len(a.defaults)) + list(a.defaults)
    params = [(p.arg, kind, d) for (p, kind), d in zip(positional, defaults)]
    params += [(p.arg, P.KEYWORD_ONLY, P.empty if d is None else d)
               for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    assert a.vararg is None and a.kwarg is None, ast.unparse(fn)
    return [(n, k, d if d is P.empty else ast.literal_eval(d)) for n, k, d in params[1:]]


def _function_class(tree: ast.Module) -> ast.ClassDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Function":
            return node
    raise AssertionError("no class Function in the stubs")


def test_function_stub_matches_runtime():
    tree = _stub_tree()
    aliases = _stub_aliases(tree)
    cls = _function_class(tree)
    decorators = [ast.unparse(d) for d in cls.decorator_list]
    assert decorators == ["type_check_only"]
    # Were it bound at run time, stubtest could check it and this decorator must go.
    assert not hasattr(eltwise, "Function")
    runtime_type = type(eltwise.add)
    assert (runtime_type.__module__, runtime_type.__qualname__) == ("eltwise", "Function")

    members = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    members |= {n.target.id for n in cls.body if isinstance(n, ast.AnnAssign)}
    members.discard("__call__")
    for name in FUNCTION_NAMES:
        f = getattr(eltwise, name)
        missing = sorted(m for m in members if not hasattr(f, m))
        assert not missing, f"eltwise.{name} lacks {missing}, which the stubs declare"
    # Every public attribute of the twin, which the functions lend, is typed.
    lent = {a for a in dir(eltwise.add.ufunc) if not a.startswith("_")}
    assert lent <= members, f"untyped in the stubs: {sorted(lent - members)}"

    # __call__: each overload's parameters are the runtime signature's, and every
    # function has overloads.
    covered: dict[str, int] = {}
    for fn in cls.body:
        if not (isinstance(fn, ast.FunctionDef) and fn.name == "__call__"):
            continue
        self_type = (fn.args.posonlyargs + fn.args.args)[0].annotation
        assert isinstance(self_type, ast.Subscript) and ast.unparse(self_type.value) == "Function"
        stub_params = _parameters(fn)
        for name in _literal_names(self_type.slice, aliases):
            covered[name] = covered.get(name, 0) + 1
            runtime = inspect.signature(getattr(eltwise, name)).parameters.values()
            assert [(p.name, p.kind) for p in runtime] == [(n, k) for n, k, _ in stub_params], (
                f"eltwise.{name}: stub overload {ast.unparse(fn.args)} vs runtime {list(runtime)}")
            for p, (n, _, default) in zip(runtime, stub_params):
                if p.default is p.empty:
                    assert default is p.empty, f"eltwise.{name}: {n} has no default at run time"
                elif default is not p.empty:
                    assert default == p.default, f"eltwise.{name}: default of {n}"
    assert set(covered) == set(FUNCTION_NAMES), set(FUNCTION_NAMES) ^ set(covered)


def test_divide_overloads_are_the_arithmetic_ones_with_pythondiv():
    """The two blocks of __call__ overloads are kept in step: divide's are the
    other arithmetic functions' with ``pythondiv`` added."""
    def overloads(self_type: str, drop: str | None) -> list[str]:
        found = []
        for fn in _function_class(_stub_tree()).body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name == "__call__"):
                continue
            args = fn.args
            first = (args.posonlyargs + args.args)[0]
            if ast.unparse(first.annotation) != self_type:
                continue
            keep = [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if a.arg != drop]
            assert len(keep) == len(args.kwonlyargs) - (drop is not None)
            args.kwonlyargs = [a for a, _ in keep]
            args.kw_defaults = [d for _, d in keep]
            first.annotation = None
            found.append(ast.unparse(fn))
        return found

    divide = overloads("Function[Literal['divide']]", "pythondiv")
    assert divide and divide == overloads("Function[_ArithmeticName]", None)


def test_stub_module_variables_name_their_function():
    """``add: Function[Literal["add"]]``: the literal is the function's own name."""
    tree = _stub_tree()
    seen = set()
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.annotation).startswith("Function["):
            name = node.target.id
            assert ast.unparse(node.annotation) == f"Function[Literal[{name!r}]]"
            assert getattr(eltwise, name).__name__ == name
            seen.add(name)
    assert seen == set(FUNCTION_NAMES)


# --- Broadcast: the names broadcast= takes --------------------------------------

B = eltwise.Broadcast
SPELLINGS = [
    ("none", B.NONE), ("None", B.NONE), ("NONE", B.NONE),
    ("explicit", B.NONE), ("Explicit", B.NONE), ("EXPLICIT", B.NONE),
    ("numpy", B.NUMPY), ("Numpy", B.NUMPY), ("NUMPY", B.NUMPY), ("nUmPy", B.NUMPY),
    ("pdpd", B.PDPD), ("PDPD", B.PDPD), ("PdPd", B.PDPD),
    (B.NONE, B.NONE), (B.NUMPY, B.NUMPY), (B.PDPD, B.PDPD),
]
NOT_NAMES = ["", " numpy", "numpy ", "nump", "numpyy", "explicitly", "NUMPY\0",
             "\uff4e\uff55\uff4d\uff50\uff59", "EXPL\u0130C\u0130T", 0, 1.5, b"numpy", ["numpy"]]


@pytest.mark.parametrize("text, member", SPELLINGS, ids=[repr(s) for s, _ in SPELLINGS])
def test_broadcast_lookup(text, member):
    assert B(text) is member
    x1 = np.arange(6.0).reshape(2, 3)
    x2 = np.arange(1.0, 7.0).reshape(2, 3)
    # The functions read the text as the enum does.
    np.testing.assert_array_equal(eltwise.add(x1, x2, broadcast=text),
                                  eltwise.add(x1, x2, broadcast=B(text)))


def test_broadcast_explicit_is_none():
    assert B("explicit") is B.NONE
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)|\(3,\).*\(2,\)"):
        eltwise.add(np.zeros(2), np.zeros(3), broadcast="explicit")


@pytest.mark.parametrize("text", NOT_NAMES, ids=[repr(s) for s in NOT_NAMES])
def test_broadcast_lookup_rejects(text):
    with pytest.raises(ValueError):
        B(text)
    with pytest.raises((ValueError, TypeError)):
        eltwise.add(np.zeros(2), np.zeros(2), broadcast=text)


def test_broadcast_none_is_the_default_not_a_mode():
    """broadcast=None means numpy's (the default); Broadcast(None) names no mode."""
    x1, x2 = np.zeros((2, 3)), np.ones(3)
    np.testing.assert_array_equal(eltwise.add(x1, x2, broadcast=None), eltwise.add(x1, x2))
    with pytest.raises(ValueError):
        B(None)


# --- The stubs against the tables ------------------------------------------------
# The stubs are written by hand (a type checker reads them without importing
# eltwise); these tests hold every list in them to the function and dtype tables
# (src/python/functions.h, src/core/ops.h, src/core/dtype.h), which the runtime
# derives its own lists from.

def _alias_literals(name: str) -> list[str]:
    """The members of the stub's ``name: TypeAlias = Literal[...]``, in order: a
    string as itself, anything else (``Op.AND``) as its source."""
    value = _stub_aliases(_stub_tree())[name]
    elts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    return [e.value if isinstance(e, ast.Constant) else ast.unparse(e) for e in elts]


def _typevar_constraints(name: str) -> list[str]:
    """The constraints of the stub's ``name = TypeVar(name, ...)``, in order."""
    for node in _stub_tree().body:
        if (isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == name
                and isinstance(node.value, ast.Call)):
            return [ast.unparse(a) for a in node.value.args[1:]]
    raise AssertionError(f"no TypeVar {name} in the stubs")


def test_stub_name_literals_are_the_tables_rows():
    bool_names = [r["name"] for r in FUNCTION_TABLE if r["bool_result"]]
    other = [r["name"] for r in FUNCTION_TABLE if not r["bool_result"] and not r["pythondiv"]]
    assert sorted(_alias_literals("_BoolName")) == sorted(bool_names)
    assert sorted(_alias_literals("_ArithmeticName")) == sorted(other)


def test_stub_op_is_the_tables_tensorrt_column():
    op = next(n for n in _stub_tree().body if isinstance(n, ast.ClassDef) and n.name == "Op")
    members = [(ast.unparse(n.targets[0]), ast.literal_eval(n.value)) for n in op.body
               if isinstance(n, ast.Assign)]
    assert members == [(r["tensorrt"], r["name"]) for r in FUNCTION_TABLE if r["tensorrt"]]
    assert members == [(m.name, m.value) for m in eltwise.Op]
    bool_ops = {f"Op.{r['tensorrt']}" for r in FUNCTION_TABLE if r["tensorrt"] and r["bool_result"]}
    assert set(_alias_literals("_BoolOp")) == bool_ops


def test_stub_dtype_typevars_are_the_dtype_tables_rows():
    # bfloat16 has no typed scalar in NumPy's stubs: the rows NumPy itself names.
    rows = [r for r in DTYPE_TABLE if r["source"] == "numpy"]
    scalar = {r["name"]: "np.bool_" if r["name"] == "bool" else f"np.{r['name']}" for r in rows}
    assert _typevar_constraints("_SameT") == [scalar[r["name"]] for r in rows]
    assert _typevar_constraints("_FloatT") == [
        scalar[r["name"]] for r in rows if r["category"] == "float"]
    assert _typevar_constraints("_IntT") == [
        scalar[r["name"]] for r in rows if r["category"] in ("signed", "unsigned")]


def test_ufunc_stub_declares_every_twin():
    tree = ast.parse((STUB.parent / "ufunc.pyi").read_text())
    declared = [ast.unparse(n.target) for n in tree.body
                if isinstance(n, ast.AnnAssign) and ast.unparse(n.annotation) == "ufunc"]
    assert declared == [*FUNCTION_NAMES, "divide_trunc"]
