"""The libraries measured: eltwise, NumPy, and the optional peers.

Each adapter turns a cell (op, dtype, shape, operands) into a zero-argument callable that
computes the same result as eltwise, allocating its result on every call (no ``out=`` for
anyone but "eltwise(out=)", which is eltwise itself writing into a preallocated array, on
the few cells marked for it), plus a function turning that result into a NumPy array for
checking. A peer that cannot compute a cell raises :class:`Skip` with the reason.

Conventions, the same for every peer:
- inputs are converted to the peer's own array type before timing when that is a
  zero-copy view (torch.from_numpy, ov.Tensor over the same memory); anything that copies
  (a non-contiguous operand handed to ONNX Runtime or OpenVINO) happens inside the call;
- the scalar of the "scalar" case is a Python int for eltwise, NumPy and PyTorch, a
  NumPy scalar (or 0-d array / parameter) of the array's dtype for the others;
- thread counts are set to the same number as eltwise's (``set_threads`` before each
  pass); NumPy and NumKong are single-threaded.
"""

from __future__ import annotations

import re
import warnings

import numpy as np

from .cases import (ML_FLOAT_NAMES, ML_INT_NAMES, ONE_THREAD_SHAPE, OUT_VARIANT_DTYPES,
                    OUT_VARIANT_OPS, Op, Operands, Shape, compare, dtype_of, is_float, is_int)


class Skip(Exception):
    """This library cannot compute this cell; the message says why."""


def _first_line(exc: BaseException, limit: int = 160) -> str:
    """The exception's type and first line of message, past OpenVINO's lines naming where
    in its sources it was raised ("Exception from src/...:117:"), which say nothing."""
    lines = [x for x in str(exc).strip().splitlines() if x.strip()]
    text = next((x for x in lines if not x.startswith("Exception from ")),
                lines[0] if lines else type(exc).__name__)
    return (type(exc).__name__ + ": " + text.strip())[:limit]


def is_ml_dtype(dt: np.dtype) -> bool:
    """True for ml_dtypes' types, which libraries other than NumPy read as raw bits."""
    return dt.name in ML_FLOAT_NAMES or dt.name in ML_INT_NAMES


def pack_nibbles(x: np.ndarray) -> np.ndarray:
    """The 4-bit codes of `x` (an ml_dtypes 4-bit array, one code per byte, in the low
    nibble) two to a byte, the first in the low nibble: OpenVINO's i4/f4e2m1 layout."""
    c = np.ascontiguousarray(x).reshape(-1).view(np.uint8) & 0x0F
    if c.size % 2:
        c = np.append(c, np.uint8(0))
    return c[0::2] | (c[1::2] << 4)


def unpack_nibbles(packed, dt: np.dtype, shape) -> np.ndarray:
    """The inverse of pack_nibbles: an array of 4-bit dtype `dt` and `shape`."""
    b = np.asarray(packed).reshape(-1).view(np.uint8)
    out = np.empty(2 * b.size, np.uint8)
    out[0::2], out[1::2] = b & 0x0F, b >> 4
    return out[:int(np.prod(shape))].view(dt).reshape(shape)


class Library:
    name = "?"
    version = "?"
    notes: list = []
    peer = True  # False for eltwise itself and its out= variant

    def set_threads(self, n: int):
        """Uses `n` threads from now on (single-threaded libraries ignore it)."""

    def enter(self) -> bool:
        """Runs before each of the library's samples, untimed. True: it changed the
        library's state (eltwise's thread count), and the timing makes one untimed call
        before the sample (the call that starts eltwise's workers)."""
        return False

    def wants(self, op: Op, dt: np.dtype, shape: Shape) -> bool:
        """False: this library is not part of this cell at all (not even as a skip)."""
        return True

    def prepare(self, op: Op, dt: np.dtype, shape: Shape, xs: Operands):
        """Returns (call, to_numpy) or raises Skip."""
        raise NotImplementedError

    def shared_calls(self):
        """eltwise's count of the calls it split across its threads (None for the
        peers): read around the first call, it records whether the cell's call split."""
        return None


# ---------------------------------------------------------------------------- eltwise


class Eltwise(Library):
    name = "eltwise"
    peer = False

    def __init__(self, module):
        self.mod = module
        self.version = getattr(module, "__version__", "?")
        self.notes = []

    threads = None  # the pass's thread count, once set_threads has run

    def set_threads(self, n):
        self.threads = n
        self.mod.set_num_threads(n)

    def enter(self):
        # EltwiseOneThread shares the module and sets it to 1 thread before its samples.
        if self.threads is None or self.mod.get_num_threads() == self.threads:
            return False
        self.mod.set_num_threads(self.threads)
        return True

    def prepare(self, op, dt, shape, xs):
        fn = getattr(self.mod, op.func)
        kw = dict(op.kwargs, **shape.eltwise_kwargs)
        return literal_call(fn, xs.x1, xs.x2, kw), np.asarray

    def shared_calls(self):
        count = getattr(getattr(self.mod, "_eltwise", None), "_shared_calls", None)
        return count() if count else None


def literal_call(fn, x1, x2, kw):
    """A callable that makes the call as a user writes it: `fn(x1, x2)` or with literal
    keywords (`fn(x1, x2, pythondiv=False)`), not `fn(x1, x2, **kw)`, which builds a dict
    and takes a slower path through CPython on every call."""
    if not kw:
        return lambda: fn(x1, x2)
    scope = {"fn": fn, "x1": x1, "x2": x2, "_kw": dict(kw)}
    if all(isinstance(v, (bool, int, float, str, type(None))) for v in kw.values()):
        args = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    else:  # values without a literal form (out=): looked up, still passed as keywords
        args = ", ".join(f"{k}=_kw[{k!r}]" for k in kw)
    return eval(f"lambda: fn(x1, x2, {args})", scope)  # noqa: S307 - built from reprs here


class EltwiseOneThread(Eltwise):
    """eltwise at 1 thread, in the passes with more threads, on the cells of the goal
    that compares eltwise's 1-thread and 2-thread times (ONE_THREAD_SHAPE): timed in the
    same rounds as eltwise itself, so that the ratio does not depend on what differs
    between two passes (the peers' threads, the machine's state). Measured across passes,
    calls that run on one thread in both (their size below the split) differed by up to
    12%. No peer."""

    name = "eltwise(1 thread)"
    threads = 1  # what Eltwise.enter sets before each sample
    pass_threads = 1

    def set_threads(self, n):
        self.pass_threads = n  # the module's count is eltwise's; enter() sets 1

    def wants(self, op, dt, shape):
        return self.pass_threads > 1 and shape.kind == ONE_THREAD_SHAPE


class EltwiseCOrder(Eltwise):
    """eltwise in C order on the Fortran-ordered cells: the same op on the operands'
    transposes (C-contiguous views of the same memory; the result transposed back for the
    check), timed in the same rounds as eltwise on the Fortran-ordered operands, for the
    goal that compares the two orders (C time / Fortran time): the same bytes at the same
    addresses, so that only the order differs, and the same rounds, so that what changes
    on the machine between cells does not enter the ratio (docs/benchmarks.md, "Intel
    Xeon", Fortran order). No peer."""

    name = "eltwise(C order)"

    def wants(self, op, dt, shape):
        return shape.kind == "fortran"

    def prepare(self, op, dt, shape, xs):
        fn = getattr(self.mod, op.func)
        kw = dict(op.kwargs, **shape.eltwise_kwargs)
        return literal_call(fn, xs.x1.T, xs.x2.T, kw), lambda r: np.asarray(r).T


class EltwiseOut(Eltwise):
    """eltwise writing into a preallocated result (``out=``), on the out-variant cells:
    the difference from eltwise is the cost of a fresh result (allocation, page faults)."""

    name = "eltwise(out=)"

    def __init__(self, module):
        super().__init__(module)
        self.notes = ["eltwise(out=): eltwise with a preallocated out= array, measured on "
                      f"{'/'.join(OUT_VARIANT_DTYPES)} {', '.join(OUT_VARIANT_OPS)} at the "
                      "largest sweep size only; it is no peer: the fresh-result table "
                      "compares it with eltwise."]

    def wants(self, op, dt, shape):
        return (shape.out_variant and dt.name in OUT_VARIANT_DTYPES
                and op.name in OUT_VARIANT_OPS)

    def prepare(self, op, dt, shape, xs):
        fn = getattr(self.mod, op.func)
        kw = dict(op.kwargs, **shape.eltwise_kwargs)
        x1, x2 = xs.x1, xs.x2
        out = np.empty_like(fn(x1, x2, **kw))
        return literal_call(fn, x1, x2, dict(kw, out=out)), np.asarray


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
        self.notes = ["NumPy is single-threaded; bfloat16, float8, float4 and int4 arithmetic "
                      "is ml_dtypes' ufuncs.",
                      "pdpd cells: NumPy gets x2 reshaped to (1, C, 1, 1)."]

    def prepare(self, op, dt, shape, xs):
        f = op.numpy_timed
        x1, x2 = xs.x1, xs.x2_np
        return (lambda: f(x1, x2)), np.asarray


# ---------------------------------------------------------------------------- torch


class Torch(Library):
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        self.version = torch.__version__
        self.notes = ["PyTorch CPU, torch.set_num_threads(eltwise's threads); inputs are "
                      "torch.from_numpy views made before timing; integer divide uses "
                      "torch.div(rounding_mode='floor' / 'trunc'), mod torch.remainder."]
        t = torch
        self.tdtype = {"float32": t.float32, "float64": t.float64, "float16": t.float16,
                       "bfloat16": t.bfloat16, "int8": t.int8, "int32": t.int32,
                       "int64": t.int64, "uint8": t.uint8, "bool": t.bool}
        for name in ("uint64", "float8_e4m3fn", "float8_e5m2", "int4"):
            if hasattr(t, name):
                self.tdtype[name] = getattr(t, name)
        # ml_dtypes' types go to torch as their bits: from_numpy of a view as this integer
        # type, then .view(dtype); results come back the same way.
        self.bits = {self.tdtype[n]: i for n, i in (
            ("bfloat16", t.int16), ("float8_e4m3fn", t.uint8), ("float8_e5m2", t.uint8),
            ("int4", t.int8)) if n in self.tdtype}

    def set_threads(self, n):
        self.torch.set_num_threads(n)

    def _tensor(self, x, dt):
        td = self.tdtype[dt.name]
        if td in self.bits:
            int_np = np.dtype(str(self.bits[td]).removeprefix("torch."))
            return self.torch.from_numpy(x.view(int_np)).view(td)
        return self.torch.from_numpy(x)

    def prepare(self, op, dt, shape, xs):
        t = self.torch
        if dt.name == "float4_e2m1fn":
            raise Skip("torch has no float4_e2m1fn (its float4_e2m1fn_x2 packs two per byte)")
        if dt.name not in self.tdtype:
            raise Skip(f"torch has no {dt.name}")
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
                 "mod": t.remainder, "power": t.pow, "maximum": t.maximum, "greater": t.gt}[op.func]
        return (lambda: f(a, b)), self._numpy

    def _numpy(self, r):
        if r.dtype in self.bits:
            return r.view(self.bits[r.dtype]).numpy().view(
                dtype_of(str(r.dtype).removeprefix("torch.")))
        return r.numpy()


# ---------------------------------------------------------------------------- numexpr


class NumExpr(Library):
    name = "numexpr"
    DTYPES = {"float32", "float64", "int32", "int64", "bool"}

    def __init__(self):
        import numexpr
        self.ne = numexpr
        self.version = numexpr.__version__
        self.notes = ["numexpr.set_num_threads(eltwise's threads); numexpr.evaluate(expr) per "
                      "call; "
                      "maximum is where(a > b, a, b) (numexpr's maximum() returns float64); "
                      "no float16, bfloat16, int8, uint8, uint64, nor truncating integer "
                      "division."]

    def set_threads(self, n):
        self.ne.set_num_threads(n)

    def prepare(self, op, dt, shape, xs):
        if dt.name not in self.DTYPES:
            raise Skip(f"numexpr has no {dt.name}")
        expr = {"divide": "a / b", "divide(floor)": "a // b", "multiply": "a * b",
                "add": "a + b", "floor_divide": "a // b", "mod": "a % b", "power": "a ** b",
                "maximum": "where(a > b, a, b)", "greater": "a > b"}.get(op.name)
        if expr is None:
            raise Skip(f"numexpr has no {op.name}")
        ev = self.ne.evaluate
        env = {"a": xs.x1, "b": xs.x2_typed}
        return (lambda: ev(expr, local_dict=env)), np.asarray


# ---------------------------------------------------------------------------- onnxruntime


class OnnxRuntime(Library):
    name = "onnxruntime"

    def __init__(self):
        import onnx
        import onnxruntime
        self.onnx = onnx
        self.ort = onnxruntime
        self.threads = 1
        self.version = onnxruntime.__version__
        self.notes = ["ONNX Runtime CPU, a one-node model per cell, intra_op_num_threads = "
                      "eltwise's threads, spinning off; mod is Mod(fmod=0); inputs are "
                      "passed as NumPy arrays "
                      "(non-contiguous ones are copied by ORT inside the call); ONNX Div "
                      "truncates, so no floor integer division; no bfloat16 from NumPy."]
        tp = onnx.TensorProto
        self.elem = {"float32": tp.FLOAT, "float64": tp.DOUBLE, "float16": tp.FLOAT16,
                     "int8": tp.INT8, "int32": tp.INT32, "int64": tp.INT64,
                     "uint8": tp.UINT8, "uint64": tp.UINT64}
        # ONNX's element types for ml_dtypes' low-precision ones (not bfloat16, which NumPy
        # arrays cannot feed), so that ONNX Runtime itself says whether its ops take them.
        self.elem.update({name: getattr(tp, onnx_name) for name, onnx_name in (
            ("float8_e4m3fn", "FLOAT8E4M3FN"), ("float8_e5m2", "FLOAT8E5M2"),
            ("float4_e2m1fn", "FLOAT4E2M1"), ("int4", "INT4")) if hasattr(tp, onnx_name)})

    def set_threads(self, n):
        self.threads = n

    def prepare(self, op, dt, shape, xs):
        if dt.name not in self.elem:
            raise Skip(f"onnxruntime takes no {dt.name} NumPy input")
        node_op = {"divide": "Div", "divide(trunc)": "Div", "multiply": "Mul", "add": "Add",
                   "mod": "Mod", "power": "Pow", "maximum": "Max",
                   "greater": "Greater"}.get(op.name)
        if node_op is None:
            raise Skip(f"ONNX has no {op.name}")
        h = self.onnx.helper
        attrs = {"fmod": 0} if node_op == "Mod" else {}
        x1 = xs.x1
        x2 = np.asarray(xs.x2_typed)
        et = self.elem[dt.name]
        out_t = self.onnx.TensorProto.BOOL if op.func == "greater" else et
        graph = h.make_graph(
            [h.make_node(node_op, ["a", "b"], ["y"], **attrs)], "eltwise_bench",
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

    def __init__(self):
        if _asan_loaded():
            # The CPU plugin dlopens its TBB libraries with RTLD_DEEPBIND, which the
            # AddressSanitizer runtime refuses by ending the process.
            raise RuntimeError("not under AddressSanitizer (its runtime refuses "
                               "OpenVINO's RTLD_DEEPBIND dlopen)")
        import openvino
        import openvino.opset13 as ops
        self.ov = openvino
        self.ops = ops
        self.core = openvino.Core()
        self.threads = 1
        self.version = openvino.__version__.split("-")[0]
        self.notes = ["OpenVINO CPU plugin, a one-node model per cell, INFERENCE_NUM_THREADS "
                      "= eltwise's threads, NUM_STREAMS=1, INFERENCE_PRECISION_HINT=f32, "
                      "infer(share_inputs=True, share_outputs=False); integer divide uses "
                      "Divide's m_pythondiv, mod FloorMod; no float floor_divide; "
                      "ml_dtypes' types are passed as their bits, int4 and float4 packed two "
                      "to a byte inside the call (OpenVINO's layout)."]
        T = openvino.Type
        self.otype = {"float32": T.f32, "float64": T.f64, "float16": T.f16,
                      "bfloat16": T.bf16, "int8": T.i8, "int32": T.i32, "int64": T.i64,
                      "uint8": T.u8, "uint64": T.u64, "float8_e4m3fn": T.f8e4m3,
                      "float8_e5m2": T.f8e5m2, "float4_e2m1fn": T.f4e2m1, "int4": T.i4}

    def set_threads(self, n):
        self.threads = n

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
            node = {"multiply": ops.multiply, "add": ops.add, "mod": ops.floor_mod,
                    "power": ops.power,
                    "maximum": ops.maximum, "greater": ops.greater}[op.func](a, b)
        try:
            compiled = self.core.compile_model(
                ov.Model([node], [a, b], "eltwise_bench"), "CPU",
                {"INFERENCE_NUM_THREADS": self.threads, "NUM_STREAMS": 1,
                 "INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"})
        except Exception as exc:
            raise Skip(_first_line(exc)) from None
        req = compiled.create_infer_request()
        if is_ml_dtype(dt):  # OpenVINO reads ml_dtypes arrays wrongly: pass bits
            return self._bits_call(req, et, dt, x1, x2)
        feeds = {0: x1, 1: x2}
        infer = req.infer
        return (lambda: infer(feeds, share_inputs=True, share_outputs=False)[0]), np.asarray

    def _bits_call(self, req, et, dt, x1, x2):
        """(call, to_numpy) for an ml_dtypes type: each operand's bits in an ov.Tensor of
        type `et`, made before timing when that is a zero-copy view (C-contiguous operands
        of a type as wide as its NumPy storage), inside the call when it copies (a strided
        operand; 4-bit types, which OpenVINO packs two to a byte)."""
        ov = self.ov
        packed = et.bitwidth < 8 * dt.itemsize
        out_shape = np.broadcast_shapes(x1.shape, x2.shape)

        def wrap(x):
            if packed:
                return lambda: ov.Tensor(pack_nibbles(x), list(x.shape), et)
            return lambda: ov.Tensor(np.ascontiguousarray(x).view(f"u{dt.itemsize}"),
                                     list(x.shape), et)

        w1, w2 = wrap(x1), wrap(x2)
        if not packed and x1.flags.c_contiguous and x2.flags.c_contiguous:
            t1, t2 = w1(), w2()
            w1, w2 = (lambda: t1), (lambda: t2)

        def call():
            return req.infer({0: w1(), 1: w2()}, share_inputs=True, share_outputs=False)[0]

        def to_numpy(r):
            r = np.asarray(r)
            if r.dtype == np.bool_:
                return r
            return unpack_nibbles(r, dt, out_shape) if packed else r.view(dt)
        return call, to_numpy


# ---------------------------------------------------------------------------- numba

# The scalar expression of each op, as numba compiles it into a ufunc loop.
NUMBA_KERNELS = {
    "divide": lambda a, b: a / b,
    "divide(floor)": lambda a, b: a // b,
    "floor_divide": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "multiply": lambda a, b: a * b,
    "add": lambda a, b: a + b,
    "power": lambda a, b: a ** b,
    "maximum": lambda a, b: np.maximum(a, b),
    "greater": lambda a, b: a > b,
}


class Numba(Library):
    """One ``numba.vectorize`` ufunc per op and dtype, compiled before timing (cached), with
    explicit signatures: target "parallel" when threads > 1, "cpu" on one thread (the
    parallel target's dispatch costs microseconds a call even on one thread)."""

    name = "numba"
    DTYPES = {"float32", "float64", "int8", "int32", "int64", "uint8", "uint64"}

    def __init__(self):
        import numba
        self.nb = numba
        self.version = numba.__version__
        self.threads = 1
        self.cache = {}
        self.notes = ["numba: @numba.vectorize([sig], target='parallel') per op and dtype "
                      "(target='cpu' on 1 thread), compile time excluded, "
                      "numba.set_num_threads(eltwise's threads); before timing each ufunc is "
                      "also run on edge values (0 divisors, MIN // -1, NaN, inf, -0.0) and "
                      "skipped where it differs from NumPy there; no float16, bfloat16 or "
                      "truncating integer division."]

    def set_threads(self, n):
        self.threads = n
        self.nb.set_num_threads(min(n, self.nb.config.NUMBA_NUM_THREADS))

    def _ufunc(self, op, dt):
        target = "parallel" if self.threads > 1 else "cpu"
        key = (op.name, dt.name, target)
        if key not in self.cache:
            out_t = "boolean" if op.func == "greater" else dt.name
            sig = f"{out_t}({dt.name}, {dt.name})"
            try:
                self.cache[key] = self.nb.vectorize([sig], target=target)(
                    NUMBA_KERNELS[op.name])
            except Exception as exc:
                self.cache[key] = Skip(f"numba cannot compile {sig}: {_first_line(exc)}")
        ufunc = self.cache[key]
        if isinstance(ufunc, Skip):
            raise ufunc
        return ufunc

    def prepare(self, op, dt, shape, xs):
        if dt.name not in self.DTYPES:
            raise Skip(f"numba has no {dt.name} arithmetic")
        if op.name not in NUMBA_KERNELS or (op.name == "divide" and is_int(dt)):
            raise Skip(f"numba has no {op.name} operator")
        ufunc = self._ufunc(op, dt)
        differs = edge_mismatch(ufunc, op, dt)
        if differs:
            raise Skip(f"numba's {op.name} differs from NumPy's on edge values: {differs}")
        x1, x2 = xs.x1, xs.x2_typed
        return (lambda: ufunc(x1, x2)), np.asarray


def edge_mismatch(fn, op: Op, dt: np.dtype) -> str:
    """Runs `fn` on every pair of edge values of `dt`; returns "" if it matches NumPy's
    reference there (floats within 4 ULP, NaN = NaN), else where it differs."""
    if is_int(dt):
        info = np.iinfo(dt)
        vals = [0, 1, 2, 7, int(info.max)] + ([-1, -2, -7, int(info.min)] if dt.kind == "i"
                                              else [])
    else:
        vals = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e-30, np.inf, -np.inf, np.nan]
    a, b = (np.array(v, dtype=dt) for v in zip(*[(x, y) for x in vals for y in vals],
                                                strict=True))
    if op.func == "power" and is_int(dt):  # NumPy refuses negative integer exponents
        a, b = a[b >= 0], b[b >= 0]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = np.asarray(fn(a, b))
        except Exception as exc:
            return _first_line(exc)
        want = op.reference(a, b)
    status, detail = compare(got, want, 4 if is_float(dt) else 0)
    return "" if status != "wrong" else detail


# ---------------------------------------------------------------------------- numkong


class NumKong(Library):
    """NumKong's element-wise add and multiply: same-shape operands or an array and a
    scalar (it has no broadcasting), single-threaded."""

    name = "numkong"
    # ml_dtypes' float8 types as NumKong names them; it reads them through zero-copy views
    # (numkong.from_pointer), since it cannot tell them from uint8 in a NumPy array.
    FLOAT8 = {"float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}

    def __init__(self):
        import numkong
        self.nk = numkong
        self.version = numkong.__version__
        self.notes = ["numkong: numkong.add / numkong.multiply (its only element-wise binary "
                      "ops), single-threaded; no broadcasting (row, column, pdpd and narrow "
                      "cells skipped); its int8/uint8/uint64 arithmetic saturates, so those "
                      "cells differ from NumPy and are skipped; float8 operands are "
                      "numkong.from_pointer views made before timing."]

    def prepare(self, op, dt, shape, xs):
        fn = {"add": self.nk.add, "multiply": self.nk.multiply}.get(op.name)
        if fn is None:
            raise Skip(f"numkong has no element-wise {op.name}")
        x1, x2 = xs.x1, xs.x2_typed
        if isinstance(x2, np.ndarray) and x2.shape != x1.shape:
            raise Skip("numkong does not broadcast")
        if dt.name in self.FLOAT8:
            x1, x2 = (self.nk.from_pointer(x.ctypes.data, x.shape, self.FLOAT8[dt.name],
                                           strides=x.strides, owner=x)
                      if isinstance(x, np.ndarray) else x for x in (x1, x2))

            def to_numpy(r):
                return np.asarray(r).view(np.uint8).view(dt)
        elif dt.name == "bfloat16":  # NumKong returns bfloat16 results as uint16 bits
            def to_numpy(r):
                return np.asarray(r).view(dtype_of("bfloat16"))
        elif is_ml_dtype(dt):
            raise Skip(f"numkong has no {dt.name}")
        else:
            to_numpy = np.asarray
        return (lambda: fn(x1, x2)), to_numpy


# ---------------------------------------------------------------------------- loading


def _asan_loaded():
    """Whether this process runs with the AddressSanitizer runtime (tools/sanitize)."""
    try:
        with open("/proc/self/maps") as maps:
            return "libasan" in maps.read()
    except OSError:  # not Linux: no sanitizer build runs there
        return False


OPTIONAL = {"torch": Torch, "numexpr": NumExpr, "onnxruntime": OnnxRuntime,
            "openvino": OpenVINO, "numba": Numba, "numkong": NumKong}


def load_optional(wanted):
    """Returns (libraries, {name: reason not loaded}) for the optional peers in `wanted`."""
    libs, missing = [], {}
    for name in wanted:
        try:
            libs.append(OPTIONAL[name]())
        except ImportError as exc:
            missing[name] = f"not importable ({exc})"
        except Exception as exc:  # a broken install must not stop the run
            missing[name] = f"failed to load: {_first_line(exc)}"
    return libs, missing
