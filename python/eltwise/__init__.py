"""eltwise: element-wise binary tensor operations with inference-engine semantics.

OpenVINO (Divide with ``pythondiv``, the ``none``/``numpy``/``pdpd`` broadcast
modes), ONNX and TensorRT ElementWise semantics on NumPy arrays, computed by
C++ kernels with Google Highway runtime dispatch. See ``help(eltwise.divide)``.
"""

from __future__ import annotations

import enum
import os as _os
import warnings as _warnings

from . import _eltwise
from ._docs import DOCS as _DOCS
from ._eltwise import (
    __version__,
    get_num_threads,
    get_target,
    get_targets,
    set_num_threads,
    set_target,
    show_config,
)

_FUNCTION_NAMES = (
    "add", "subtract", "multiply", "divide", "floor_divide", "mod", "remainder",
    "fmod", "power", "maximum", "minimum", "squared_difference",
    "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor",
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
)


def _signature(name: str) -> str:
    pythondiv = "pythondiv=True, " if name == "divide" else ""
    return (f"{name}(x1, x2, /, out=None, *, broadcast='numpy', axis=-1, "
            f"{pythondiv}dtype=None)\n--\n\n")


_functions = {name: _eltwise._make_function(name, _signature(name) + _DOCS[name])
              for name in _FUNCTION_NAMES}
globals().update(_functions)


class Broadcast(str, enum.Enum):
    """Broadcast modes (SPEC §3); the plain strings work too, any case."""

    NONE = "none"
    NUMPY = "numpy"
    PDPD = "pdpd"

    def __str__(self) -> str:
        return self.value


class Op(enum.Enum):
    """TensorRT's ElementWise operations, each naming the eltwise function it runs."""

    SUM = "add"
    PROD = "multiply"
    MAX = "maximum"
    MIN = "minimum"
    SUB = "subtract"
    DIV = "divide"
    POW = "power"
    FLOOR_DIV = "floor_divide"
    AND = "logical_and"
    OR = "logical_or"
    XOR = "logical_xor"
    EQUAL = "equal"
    GREATER = "greater"
    LESS = "less"


def _resolve_op(op):
    if isinstance(op, Op):
        return _functions[op.value]
    if isinstance(op, str):
        key = op.strip()
        if key.upper() in Op.__members__:
            return _functions[Op[key.upper()].value]
        if key.lower() in _functions:
            return _functions[key.lower()]
    raise ValueError(
        f"eltwise.elementwise: unknown op {op!r}; use an eltwise.Op member, one of "
        f"{', '.join(Op.__members__)}, or a function name such as 'divide'")


def elementwise(x1, x2, op, /, out=None, **kwargs):
    function = _resolve_op(op)
    if "pythondiv" in kwargs and function is not _functions["divide"]:
        raise TypeError(
            f"eltwise.elementwise: pythondiv applies only to op DIV ('divide'), not {op!r}; "
            "floor_divide, mod and fmod name their rounding themselves")
    return function(x1, x2, out, **kwargs)


elementwise.__doc__ = _DOCS["elementwise"]


def _apply_environment() -> None:
    target = _os.environ.get("ELTWISE_TARGET")
    if target:
        try:
            set_target(target)
        except ValueError as e:
            _warnings.warn(f"ELTWISE_TARGET ignored: {e}", RuntimeWarning, stacklevel=3)
    threads = _os.environ.get("ELTWISE_NUM_THREADS")
    if threads:
        try:
            set_num_threads(int(threads))
        except ValueError as e:
            _warnings.warn(f"ELTWISE_NUM_THREADS ignored: {e}", RuntimeWarning, stacklevel=3)


_apply_environment()

__all__ = [
    *_FUNCTION_NAMES, "elementwise", "Op", "Broadcast",
    "show_config", "get_targets", "get_target", "set_target",
    "set_num_threads", "get_num_threads", "__version__",
]
