"""The libraries measured: eltwise, NumPy, and the optional peers.

Each adapter turns a cell (op, dtype, shape, operands) into a zero-argument callable that
computes the same result as eltwise, allocating its result on every call (no ``out=`` for
anyone), plus a function turning that result into a NumPy array for checking. A peer
that cannot compute a cell raises :class:`Skip` with the reason.

Conventions, the same for every peer:
- inputs are converted to the peer's own array type before timing when that is a
  zero-copy view (torch.from_numpy, ov.Tensor over the same memory); anything that copies
  (a non-contiguous operand handed to ONNX Runtime or OpenVINO) happens inside the call;
- the scalar of the "scalar" case is a Python int for eltwise, NumPy and PyTorch, a
  NumPy scalar (or 0-d array / parameter) of the array's dtype for the others;
- thread counts are set to the same number as eltwise's.
"""

from __future__ import annotations

import re

import numpy as np

from .cases import Op, Operands, Shape, dtype_of, is_int


class Skip(Exception):
    """This library cannot compute this cell; the message says why."""


def _first_line(exc: BaseException, limit: int = 160) -> str:
    text = str(exc).strip().splitlines()
    text = text[0] if text else type(exc).__name__
    return (type(exc).__name__ + ": " + text)[:limit]


class Library:
    name = "?"
    version = "?"
    notes: list = []

    def prepare(self, op: Op, dt: np.dtype, shape: Shape, xs: Operands):
        """Returns (call, to_numpy) or raises Skip."""
        raise NotImplementedError


# ---------------------------------------------------------------------------- eltwise


class Eltwise(Library):
    name = "eltwise"

    def __init__(self, module):
        self.mod = module
        self.version = getattr(module, "__version__", "?")
        self.notes = []

    def prepare(self, op, dt, shape, xs):
        fn = getattr(self.mod, op.func)
        kw = dict(op.kwargs, **shape.eltwise_kwargs)
        return literal_call(fn, xs.x1, xs.x2, kw), np.asarray


def literal_call(fn, x1, x2, kw):
    """A callable that makes the call as a user writes it: `fn(x1, x2)` or with literal
    keywords (`fn(x1, x2, pythondiv=False)`), not `fn(x1, x2, **kw)`, which builds a dict
    and takes a slower path through CPython on every call."""
    if not kw:
        return lambda: fn(x1, x2)
    names = ", ".join(f"{k}=_kw[{k!r}]" for k in kw)
    scope = {"fn": fn, "x1": x1, "x2": x2, "_kw": dict(kw)}
    body = "(" + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ")"
    if all(isinstance(v, (bool, int, float, str, type(None))) for v in kw.values()):
        src = f"lambda: fn(x1, x2, {body[1:-1]})"
    else:  # values without a literal form: looked up, still passed as keywords
        src = f"lambda: fn(x1, x2, {names})"
    return eval(src, scope)  # noqa: S307 - source built here from identifiers and reprs


class EltwiseOut(Library):
    """eltwise writing into a preallocated out= (fresh result versus out=, large sizes)."""

    name = "eltwise(out=)"

    def __init__(self, module):
        self.mod = module
        self.version = getattr(module, "__version__", "?")
        self.notes = ["eltwise(out=): eltwise into a preallocated out=, for the same-shape "
                      "cells of 10^6 elements and more (the other entries allocate)."]

    def prepare(self, op, dt, shape, xs):
        if not shape.sweep or shape.n_out < 10**6:
            raise Skip("out= is measured on large same-shape cells only")
        fn = getattr(self.mod, op.func)
        out = np.asarray(fn(xs.x1, xs.x2, **op.kwargs))
        kw = dict(op.kwargs, out=out)
        return literal_call(fn, xs.x1, xs.x2, kw), np.asarray


# ---------------------------------------------------------------------------- numpy


class NumPy(Library):
    name = "numpy"

    def __init__(self):
        self.version = np.__version__
        try:
            import ml_dtypes
            self.version += f" (ml_dtypes {ml_dtypes.__version__})"
        except ImportError:
            pass
        self.notes = ["NumPy is single-threaded; bfloat16 arithmetic is ml_dtypes' ufuncs.",
                      "pdpd cells: NumPy gets x2 reshaped to (1, C, 1, 1)."]

    def prepare(self, op, dt, shape, xs):
        f = op.numpy_timed
        x1, x2 = xs.x1, xs.x2_np
        return (lambda: f(x1, x2)), np.asarray


# ---------------------------------------------------------------------------- torch


class Torch(Library):
    name = "torch"

    def __init__(self, threads):
        import torch
        self.torch = torch
        torch.set_num_threads(threads)
        self.version = torch.__version__
        self.notes = [f"PyTorch CPU, torch.set_num_threads({threads}); inputs are "
                      "torch.from_numpy views made before timing; integer divide uses "
                      "torch.div(rounding_mode='floor' / 'trunc')."]
        t = torch
        self.tdtype = {"float32": t.float32, "float64": t.float64, "float16": t.float16,
                       "bfloat16": t.bfloat16, "int8": t.int8, "int32": t.int32,
                       "int64": t.int64, "uint8": t.uint8, "bool": t.bool}

    def _tensor(self, x, dt):
        if dt.name == "bfloat16":
            return self.torch.from_numpy(x.view(np.int16)).view(self.torch.bfloat16)
        return self.torch.from_numpy(x)

    def prepare(self, op, dt, shape, xs):
        t = self.torch
        a = self._tensor(xs.x1, dt)
        if isinstance(xs.x2_np, np.ndarray):
            b = self._tensor(xs.x2_np, dt)
        elif op.func == "maximum":  # torch.maximum takes tensors only
            b = t.tensor(xs.x2_np, dtype=self.tdtype[dt.name])
        else:
            b = xs.x2_np  # the Python int, weak as for eltwise
        if op.name == "divide":
            f = t.div
        elif op.name == "divide(floor)":
            return (lambda: t.div(a, b, rounding_mode="floor")), self._numpy
        elif op.name == "divide(trunc)":
            return (lambda: t.div(a, b, rounding_mode="trunc")), self._numpy
        else:
            f = {"multiply": t.mul, "add": t.add, "floor_divide": t.floor_divide,
                 "power": t.pow, "maximum": t.maximum, "greater": t.gt}[op.func]
        return (lambda: f(a, b)), self._numpy

    def _numpy(self, r):
        if r.dtype == self.torch.bfloat16:
            return r.view(self.torch.int16).numpy().view(dtype_of("bfloat16"))
        return r.numpy()


# ---------------------------------------------------------------------------- numexpr


class NumExpr(Library):
    name = "numexpr"
    DTYPES = {"float32", "float64", "int32", "int64", "bool"}

    def __init__(self, threads):
        import numexpr
        self.ne = numexpr
        numexpr.set_num_threads(threads)
        self.version = numexpr.__version__
        self.notes = [f"numexpr.set_num_threads({threads}); numexpr.evaluate(expr) per call; "
                      "maximum is where(a > b, a, b) (numexpr's maximum() returns float64); "
                      "no float16, bfloat16, int8, uint8, nor truncating integer division."]

    def prepare(self, op, dt, shape, xs):
        if dt.name not in self.DTYPES:
            raise Skip(f"numexpr has no {dt.name}")
        expr = {"divide": "a / b", "divide(floor)": "a // b", "multiply": "a * b",
                "add": "a + b", "floor_divide": "a // b", "power": "a ** b",
                "maximum": "where(a > b, a, b)", "greater": "a > b"}.get(op.name)
        if expr is None:
            raise Skip(f"numexpr has no {op.name}")
        ev = self.ne.evaluate
        env = {"a": xs.x1, "b": xs.x2_typed}
        return (lambda: ev(expr, local_dict=env)), np.asarray


# ---------------------------------------------------------------------------- onnxruntime


class OnnxRuntime(Library):
    name = "onnxruntime"

    def __init__(self, threads):
        import onnx
        import onnxruntime
        self.onnx = onnx
        self.ort = onnxruntime
        self.threads = threads
        self.version = onnxruntime.__version__
        self.notes = [f"ONNX Runtime CPU, a one-node model per cell, intra_op_num_threads="
                      f"{threads}, spinning off; inputs are passed as NumPy arrays "
                      "(non-contiguous ones are copied by ORT inside the call); ONNX Div "
                      "truncates, so no floor integer division; no bfloat16 from NumPy."]
        tp = onnx.TensorProto
        self.elem = {"float32": tp.FLOAT, "float64": tp.DOUBLE, "float16": tp.FLOAT16,
                     "int8": tp.INT8, "int32": tp.INT32, "int64": tp.INT64,
                     "uint8": tp.UINT8}

    def prepare(self, op, dt, shape, xs):
        if dt.name not in self.elem:
            raise Skip(f"onnxruntime takes no {dt.name} NumPy input")
        node_op = {"divide": "Div", "divide(trunc)": "Div", "multiply": "Mul", "add": "Add",
                   "power": "Pow", "maximum": "Max", "greater": "Greater"}.get(op.name)
        if node_op is None:
            raise Skip(f"ONNX has no {op.name}")
        h = self.onnx.helper
        x1 = xs.x1
        x2 = np.asarray(xs.x2_typed)
        et = self.elem[dt.name]
        out_t = self.onnx.TensorProto.BOOL if op.func == "greater" else et
        graph = h.make_graph(
            [h.make_node(node_op, ["a", "b"], ["y"])], "eltwise_bench",
            [h.make_tensor_value_info("a", et, list(x1.shape)),
             h.make_tensor_value_info("b", et, list(x2.shape))],
            [h.make_tensor_value_info("y", out_t, None)])
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
        model.ir_version = min(model.ir_version, 8)
        so = self.ort.SessionOptions()
        so.intra_op_num_threads = self.threads
        so.inter_op_num_threads = 1
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.log_severity_level = 3
        try:
            sess = self.ort.InferenceSession(model.SerializeToString(), so,
                                             providers=["CPUExecutionProvider"])
        except Exception as exc:
            m = re.search(r"Type '(tensor\(\w+\))' of input parameter \(\w+\) of operator "
                          r"\((\w+)\)", str(exc))
            if m:
                raise Skip(f"ONNX {m.group(2)} does not take {m.group(1)}") from None
            raise Skip(_first_line(exc)) from None
        feeds = {"a": x1, "b": x2}
        run = sess.run
        return (lambda: run(["y"], feeds)[0]), np.asarray


# ---------------------------------------------------------------------------- openvino


class OpenVINO(Library):
    name = "openvino"

    def __init__(self, threads):
        import openvino
        import openvino.opset13 as ops
        self.ov = openvino
        self.ops = ops
        self.core = openvino.Core()
        self.threads = threads
        self.version = openvino.__version__.split("-")[0]
        self.notes = [f"OpenVINO CPU plugin, a one-node model per cell, INFERENCE_NUM_THREADS="
                      f"{threads}, NUM_STREAMS=1, INFERENCE_PRECISION_HINT=f32, "
                      "infer(share_inputs=True, share_outputs=False); integer divide uses "
                      "Divide's m_pythondiv; no float floor_divide."]
        T = openvino.Type
        self.otype = {"float32": T.f32, "float64": T.f64, "float16": T.f16,
                      "bfloat16": T.bf16, "int8": T.i8, "int32": T.i32, "int64": T.i64,
                      "uint8": T.u8}

    def prepare(self, op, dt, shape, xs):
        ops, ov = self.ops, self.ov
        if op.func == "floor_divide" and not is_int(dt):
            raise Skip("OpenVINO has no float floor_divide")
        et = self.otype[dt.name]
        x1 = xs.x1
        x2 = np.asarray(xs.x2_typed)
        a = ops.parameter(list(x1.shape), et, name="a")
        b = ops.parameter(list(x2.shape), et, name="b")
        if op.func in ("divide", "floor_divide"):
            node = ops.divide(a, b)
            node.set_attribute("m_pythondiv", op.name != "divide(trunc)")
        else:
            node = {"multiply": ops.multiply, "add": ops.add, "power": ops.power,
                    "maximum": ops.maximum, "greater": ops.greater}[op.func](a, b)
        try:
            compiled = self.core.compile_model(
                ov.Model([node], [a, b], "eltwise_bench"), "CPU",
                {"INFERENCE_NUM_THREADS": self.threads, "NUM_STREAMS": 1,
                 "INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"})
        except Exception as exc:
            raise Skip(_first_line(exc)) from None
        req = compiled.create_infer_request()
        if dt.name == "bfloat16":  # OpenVINO reads ml_dtypes arrays wrongly: pass bits
            def wrap(x):
                return lambda: ov.Tensor(np.ascontiguousarray(x).view(np.uint16),
                                         list(x.shape), et)

            w1, w2 = wrap(x1), wrap(x2)
            if x1.flags.c_contiguous and x2.flags.c_contiguous:
                t1, t2 = w1(), w2()
                w1, w2 = (lambda: t1), (lambda: t2)

            def call():
                return req.infer({0: w1(), 1: w2()}, share_inputs=True,
                                 share_outputs=False)[0]

            bf = dtype_of("bfloat16")
            return call, (lambda r: np.asarray(r).view(bf) if np.asarray(r).dtype != np.bool_
                          else np.asarray(r))
        feeds = {0: x1, 1: x2}
        infer = req.infer
        return (lambda: infer(feeds, share_inputs=True, share_outputs=False)[0]), np.asarray


# ---------------------------------------------------------------------------- loading

OPTIONAL = {"torch": Torch, "numexpr": NumExpr, "onnxruntime": OnnxRuntime,
            "openvino": OpenVINO}


def load_optional(wanted, threads):
    """Returns (libraries, {name: reason not loaded}) for the optional peers in `wanted`."""
    libs, missing = [], {}
    for name in wanted:
        try:
            libs.append(OPTIONAL[name](threads))
        except ImportError as exc:
            missing[name] = f"not importable ({exc})"
        except Exception as exc:  # a broken install must not stop the run
            missing[name] = f"failed to load: {_first_line(exc)}"
    return libs, missing
