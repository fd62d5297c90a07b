"""eltwise: element-wise binary tensor operations with inference-engine semantics.

OpenVINO (Divide with ``pythondiv``, the ``none``/``numpy``/``pdpd`` broadcast
modes), ONNX and TensorRT ElementWise semantics on NumPy arrays, computed by
C++ kernels with Google Highway runtime dispatch. See ``help(eltwise.divide)``.
"""

from __future__ import annotations

import enum
import inspect as _inspect
import os as _os
import warnings as _warnings

from . import _delegation, _eltwise, ufunc
from ._docs import DOCS as _DOCS
from ._fuse import fuse
from ._names import FUNCTION_NAMES as _FUNCTION_NAMES
from ._names import FUNCTION_TABLE as _FUNCTION_TABLE
from ._eltwise import (
    __version__,
    get_num_threads,
    get_target,
    get_targets,
    release_result_pool,
    result_pool_stats,
    set_num_threads,
    set_result_pool_limit,
    set_target,
    show_config,
)


def _signature(name: str) -> _inspect.Signature:
    P = _inspect.Parameter
    params = [P("x1", P.POSITIONAL_ONLY), P("x2", P.POSITIONAL_ONLY),
              P("out", P.POSITIONAL_OR_KEYWORD, default=None),
              P("broadcast", P.KEYWORD_ONLY, default="numpy"),
              P("axis", P.KEYWORD_ONLY, default=-1)]
    if name == "divide":
        params.append(P("pythondiv", P.KEYWORD_ONLY, default=True))
    params.append(P("dtype", P.KEYWORD_ONLY, default=None))
    return _inspect.Signature(params)


def _make_function(name: str):
    f = _eltwise._make_function(name, _DOCS[name], ufunc._twins[name])
    f.__signature__ = _signature(name)
    return f


_functions = {name: _make_function(name) for name in _FUNCTION_NAMES}
globals().update(_functions)
_eltwise._set_delegate(_delegation.call)


class Broadcast(str, enum.Enum):
    """Broadcast modes (docs/semantics.md: "Broadcasting"); the plain strings work too, any case.

    ``Broadcast(s)`` takes the names as ``broadcast=`` does: any case, and
    ``"explicit"`` (OpenVINO's name) for NONE.
    """

    NONE = "none"
    NUMPY = "numpy"
    PDPD = "pdpd"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def _missing_(cls, value: object) -> Broadcast | None:
        # As the functions read broadcast=: ASCII letters in any case, nothing stripped.
        if isinstance(value, str) and value.isascii():
            key = value.lower()
            key = "none" if key == "explicit" else key
            for member in cls:
                if member.value == key:
                    return member
        return None


# TensorRT's ElementWise operations, from the function table's TensorRT column.
Op = enum.Enum("Op", [(row["tensorrt"], row["name"]) for row in _FUNCTION_TABLE
                      if row["tensorrt"]], module=__name__, qualname="Op")
Op.__doc__ = "TensorRT's ElementWise operations, each naming the eltwise function it runs."


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
    *_FUNCTION_NAMES, "elementwise", "fuse", "Op", "Broadcast", "ufunc",
    "show_config", "get_targets", "get_target", "set_target",
    "set_num_threads", "get_num_threads", "set_result_pool_limit", "result_pool_stats",
    "release_result_pool", "__version__",
]
