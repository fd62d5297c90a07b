"""ONNX's own backend node tests, run through eltwise: a differential test.

The cases come from the installed `onnx` package through its public loader,
`onnx.backend.test.loader.load_model_tests(kind="node")`, the one ONNX's backend test
runner uses. Wheels up to onnx 1.22 ship the cases as files under
`onnx/backend/test/data/node/<case>/` (`model.onnx`, `test_data_set_*/{input,output}_*.pb`),
which are read here; from 1.23 on the wheels no longer ship them and the loader builds
the same cases in memory from `onnx/backend/test/case/node/*.py`, as
`backend-test-tools generate-data` does to write those files.

A case belongs here when its model is a single node whose op_type is one of ONNX_OPS;
nothing else is listed by name. Each case is run on every SIMD target this CPU supports
and compared with ONNX's expected output: dtype, shape and bits (NaN equals NaN, the sign
of zero counts). Only float `Pow` may differ, by at most 1 ULP (see `_POW_ULP`).
"""

from __future__ import annotations

import functools
import os
import warnings

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from onnx.backend.test.loader import load_model_tests

import eltwise
from ew_helpers import ALL_DTYPES, assert_same, is_float

# ONNX op -> eltwise function. Mod is split by its `fmod` attribute (0 -> mod, 1 -> fmod).
ONNX_OPS = {
    "Add": "add", "Sub": "subtract", "Mul": "multiply", "Div": "divide",
    "Mod": None, "Pow": "power", "Max": "maximum", "Min": "minimum",
    "And": "logical_and", "Or": "logical_or", "Xor": "logical_xor",
    "BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor",
    "Equal": "equal", "Greater": "greater", "Less": "less",
    "GreaterOrEqual": "greater_equal", "LessOrEqual": "less_equal",
}
# The attributes this file maps; a case with any other attribute is skipped, named.
KNOWN_ATTRIBUTES = {"Mod": {"fmod"}}
VARIADIC = {"Max", "Min"}  # ONNX's Max and Min take 1 to 2**31-1 inputs.
SUPPORTED_DTYPES = set(ALL_DTYPES)  # docs/semantics.md: "Operands and dtypes"

# Float Pow may differ by 1 ULP, because ONNX's expected values come from a different
# libm than eltwise's. case/node/pow.py computes them as `np.power(x, y).astype(x.dtype)`,
# i.e. with NumPy's loops: SVML on an AVX-512 x86-64, the C library's pow/powf elsewhere.
# eltwise's float pow is its own, within 1 ULP of numpy.power (docs/semantics.md, "Exactness").
# Checked on test_pow (60 float32 values) on an AVX-512 machine with NumPy 2.4:
# - the files shipped with onnx 1.22 are the correctly rounded results (float64 pow
#   rounded to float32), and eltwise matches them bit for bit;
# - the cases onnx 1.23 generates in memory use this machine's np.power (SVML), which is
#   1 ULP off the correctly rounded value in 12 of the 60; eltwise differs from those
#   expected values in exactly those 12, by 1 ULP.
# So the expected values depend on which machine's libm produced them, not eltwise. Every
# other op, and Pow with an integer result, must match bit for bit.
_POW_ULP = 1


def _node_cases():
    """{case name: TestCase} for every single-node case of an op in ONNX_OPS."""
    # onnx >= 1.23 generates the cases in memory: its generators (for every op, not only
    # ours) reseed NumPy's global RNG and raise RuntimeWarnings of their own, which the
    # suite's filterwarnings=error would turn into a collection error. Neither is
    # eltwise's doing: silence them and restore the RNG.
    state = np.random.get_state()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            cases = load_model_tests(kind="node")
    finally:
        np.random.set_state(state)
    found = {}
    for case in cases:
        node = _single_node(case)
        if node is not None and node.domain in ("", "ai.onnx") and node.op_type in ONNX_OPS:
            found[case.name] = case
    return found


def _model(case) -> onnx.ModelProto:
    if case.model is not None:
        return case.model
    return onnx.load(os.path.join(case.model_dir, "model.onnx"))


def _single_node(case):
    nodes = _model(case).graph.node
    return nodes[0] if len(nodes) == 1 else None


def _to_array(value) -> np.ndarray:
    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    return np.asarray(value)


def _read_pb(path) -> np.ndarray:
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def _data_sets(case):
    """[(inputs, outputs)] as NumPy arrays, from the case's files or from memory."""
    if case.data_sets is not None:
        return [([_to_array(x) for x in ins], [_to_array(y) for y in outs])
                for ins, outs in case.data_sets]
    sets = []
    dirs = sorted(d for d in os.listdir(case.model_dir) if d.startswith("test_data_set_"))
    for d in dirs:
        path = os.path.join(case.model_dir, d)

        def read(prefix, path=path):
            names = [f for f in os.listdir(path) if f.startswith(prefix) and f.endswith(".pb")]
            names.sort(key=lambda f: int(f[len(prefix):-3]))
            return [_read_pb(os.path.join(path, f)) for f in names]

        sets.append((read("input_"), read("output_")))
    return sets


def _attributes(node) -> dict:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _variant(node) -> str:
    """The op as this file distinguishes it: 'Mod(fmod=0)', 'Mod(fmod=1)', or op_type."""
    if node.op_type == "Mod":
        return f"Mod(fmod={int(_attributes(node).get('fmod', 0))})"
    return node.op_type


CASES = _node_cases()
REQUIRED_VARIANTS = sorted(set(ONNX_OPS) - {"Mod"} | {"Mod(fmod=0)", "Mod(fmod=1)"})


def test_every_op_has_cases():
    """A data set missing or renamed in a new onnx fails here, not silently."""
    found = {_variant(_single_node(c)) for c in CASES.values()}
    missing = sorted(set(REQUIRED_VARIANTS) - found)
    assert not missing, (
        f"onnx {onnx.__version__} has no single-node backend test case for {missing}")


def _run(node, inputs):
    """eltwise's answer for ONNX `node` on `inputs` (NumPy broadcasting, as ONNX's)."""
    op = node.op_type
    kw = {"broadcast": "numpy"}
    if op == "Mod":
        name = "fmod" if int(_attributes(node).get("fmod", 0)) else "mod"
    else:
        name = ONNX_OPS[op]
    if op == "Div":
        kw["pythondiv"] = False  # ONNX Div truncates integer quotients toward zero
    fn = functools.partial(getattr(eltwise, name), **kw)

    if op in VARIADIC:
        # Max/Min fold left over their inputs; of a single input, the result is that
        # input, and max(x, x) == x bit for bit (NaN and -0.0 included).
        if len(inputs) == 1:
            return fn(inputs[0], inputs[0])
        return functools.reduce(fn, inputs)
    assert len(inputs) == 2, f"{op} with {len(inputs)} inputs"
    x, y = inputs
    if op == "Pow":
        # ONNX Pow-15: the output has the base's type T whatever the exponent's T1.
        # ONNX defines the mixed cases as its reference does, `np.power(x, y)
        # .astype(x.dtype)`: compute in NumPy's promoted dtype (float32 base with int64
        # exponent: float64; int32 base with float32 exponent: float64), then cast to
        # the base's dtype (float -> int truncates). eltwise does the computing; the
        # cast is NumPy's. (`dtype=x.dtype` cannot express the int-base cases: casting
        # a float exponent to int is not same_kind, a TypeError as in NumPy.)
        z = np.asarray(fn(x, y))
        return z if z.dtype == x.dtype else z.astype(x.dtype)
    return fn(x, y)


@pytest.mark.parametrize("case_name", sorted(CASES))
def test_onnx_node(case_name):
    case = CASES[case_name]
    node = _single_node(case)
    extra = set(_attributes(node)) - KNOWN_ATTRIBUTES.get(node.op_type, set())
    if extra:
        pytest.skip(f"{node.op_type} with attribute(s) {sorted(extra)}: a variant of the "
                    "op that eltwise does not map")
    data_sets = _data_sets(case)
    assert data_sets, f"{case_name}: no test data set"
    for inputs, outputs in data_sets:
        assert len(outputs) == 1, f"{case_name}: {len(outputs)} outputs"
        want = outputs[0]
        unsupported = sorted({str(x.dtype) for x in inputs if x.dtype not in SUPPORTED_DTYPES})
        if unsupported:
            # Make sure the reason holds: eltwise refuses the dtype (docs/semantics.md,
            # "Operands and dtypes").
            with pytest.raises(TypeError):
                _run(node, inputs)
            onnx_types = sorted({onnx.TensorProto.DataType.Name(vi.type.tensor_type.elem_type)
                                 for vi in _model(case).graph.input})
            pytest.skip(f"{node.op_type} on ONNX {'/'.join(onnx_types)} (NumPy {unsupported}):"
                        " not a dtype eltwise supports (docs/semantics.md, 'Operands and dtypes': TypeError)")
        ulp = _POW_ULP if (node.op_type == "Pow" and is_float(want.dtype)) else 0
        for target in eltwise.get_targets():
            eltwise.set_target(target)
            # ONNX defines no floating-point exception reporting; only values count.
            with np.errstate(all="ignore"):
                got = np.asarray(_run(node, inputs))
            try:
                assert_same(got, want, ulp=ulp, inputs=inputs)
            except AssertionError as e:
                raise AssertionError(
                    f"{case_name} ({_variant(node)}, inputs "
                    f"{', '.join(f'{x.dtype}{list(x.shape)}' for x in inputs)}) "
                    f"on target {target}: {e}") from None
        eltwise.set_target(None)
