"""Type stubs of eltwise: element-wise binary operations on NumPy arrays.

Every binary function takes ``(x1, x2, /, out=None, *, broadcast="numpy",
axis=-1, dtype=None)``; ``divide`` takes ``pythondiv`` too. The result is an
ndarray, or a NumPy scalar when both operands are scalars or 0-d and ``out``
is not given, hence ``Any``.
"""

import enum
from typing import Any, Protocol, TypeAlias

from numpy.typing import ArrayLike, DTypeLike, NDArray
from typing_extensions import Self

__version__: str

__all__ = [
    "__version__",
    "Broadcast",
    "Op",
    "add",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "divide",
    "elementwise",
    "equal",
    "floor_divide",
    "fmod",
    "get_num_threads",
    "get_target",
    "get_targets",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "not_equal",
    "power",
    "remainder",
    "set_num_threads",
    "set_target",
    "show_config",
    "squared_difference",
    "subtract",
]

class Broadcast(str, enum.Enum):
    """The broadcast modes; ``"explicit"`` is accepted as an alias of NONE."""

    NONE = "none"
    NUMPY = "numpy"
    PDPD = "pdpd"
    def __new__(cls, value: str) -> Self: ...

class Op(enum.Enum):
    """TensorRT's ElementWise operations, each valued with the function it runs."""

    SUM = ...
    PROD = ...
    MAX = ...
    MIN = ...
    SUB = ...
    DIV = ...
    POW = ...
    FLOOR_DIV = ...
    AND = ...
    OR = ...
    XOR = ...
    EQUAL = ...
    GREATER = ...
    LESS = ...

_Out: TypeAlias = NDArray[Any] | tuple[NDArray[Any]] | None
_Mode: TypeAlias = str | Broadcast

class _BinaryFunction(Protocol):
    """The signature of every binary function but ``divide``."""

    __name__: str
    def __call__(
        self, x1: ArrayLike, x2: ArrayLike, /, out: _Out = None, *,
        broadcast: _Mode = "numpy", axis: int = -1, dtype: DTypeLike | None = None,
    ) -> Any: ...

class _DivideFunction(Protocol):
    """The signature of ``divide``: the others' and ``pythondiv``."""

    __name__: str
    def __call__(
        self, x1: ArrayLike, x2: ArrayLike, /, out: _Out = None, *,
        broadcast: _Mode = "numpy", axis: int = -1, pythondiv: bool = True, dtype: DTypeLike | None = None,
    ) -> Any: ...

# Arithmetic: the result has the operands' common dtype (or ``dtype``).
add: _BinaryFunction
subtract: _BinaryFunction
multiply: _BinaryFunction
divide: _DivideFunction
floor_divide: _BinaryFunction
mod: _BinaryFunction
remainder: _BinaryFunction
fmod: _BinaryFunction
power: _BinaryFunction
maximum: _BinaryFunction
minimum: _BinaryFunction
squared_difference: _BinaryFunction

# Integers and bool only; the result has the operands' common dtype.
bitwise_and: _BinaryFunction
bitwise_or: _BinaryFunction
bitwise_xor: _BinaryFunction

# The result is bool; ``dtype`` is the dtype the operation is computed in.
logical_and: _BinaryFunction
logical_or: _BinaryFunction
logical_xor: _BinaryFunction
equal: _BinaryFunction
not_equal: _BinaryFunction
greater: _BinaryFunction
greater_equal: _BinaryFunction
less: _BinaryFunction
less_equal: _BinaryFunction

# TensorRT-style entry: ``op`` names any of the functions above.
def elementwise(
    x1: ArrayLike, x2: ArrayLike, op: Op | str, /, out: _Out = None, *,
    broadcast: _Mode = "numpy", axis: int = -1, pythondiv: bool | None = None, dtype: DTypeLike | None = None,
) -> Any: ...

# Runtime: SIMD targets and threads.
def show_config() -> None: ...
def get_targets() -> list[str]: ...
def get_target() -> str: ...
def set_target(name: str | None) -> None: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
