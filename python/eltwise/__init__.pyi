"""Type stubs of eltwise: element-wise binary operations on NumPy arrays.

Every binary function is an ``eltwise.Function`` taking ``(x1, x2, /, out=None,
*, broadcast="numpy", axis=-1, dtype=None)``; ``divide`` takes ``pythondiv``
too. What it returns, as typed here:

- ``out=`` given: that very array.
- Every operand a scalar (Python or NumPy): a NumPy scalar (``numpy.bool_``
  for the comparisons and logical operations).
- An ndarray operand (or a list, a buffer, ...): an ndarray. Comparisons and
  logical operations give ``NDArray[numpy.bool_]``; the others keep the dtype
  when it can be told from the operand types (two arrays or NumPy scalars of
  one dtype; a float or integer array with a Python scalar, which is weak under
  NEP 50; ``dtype=numpy.float32`` and the like) and give ``NDArray[Any]``
  otherwise. As NumPy's own stubs do, these do not tell 0-d arrays apart:
  when every operand is 0-d the result is in fact a NumPy scalar.
- An operand with its own ``__array_ufunc__`` that is not an ndarray (dask,
  pandas, xarray, ...): ``Any``; that operand's protocol decides the result.
"""

import enum
import inspect
from collections.abc import Callable, Sequence
from typing import (
    Any,
    Generic,
    Literal,
    Protocol,
    SupportsIndex,
    TypeAlias,
    TypeVar,
    overload,
    type_check_only,
)

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from . import ufunc as ufunc

__version__: str

__all__ = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "mod",
    "remainder",
    "fmod",
    "power",
    "maximum",
    "minimum",
    "squared_difference",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "elementwise",
    "fuse",
    "Op",
    "Broadcast",
    "ufunc",
    "show_config",
    "get_targets",
    "get_target",
    "set_target",
    "set_num_threads",
    "get_num_threads",
    "set_result_pool_limit",
    "result_pool_stats",
    "release_result_pool",
    "__version__",
]

class Broadcast(str, enum.Enum):
    """Broadcast modes (docs/semantics.md: "Broadcasting"); the plain strings work too, any case.

    ``Broadcast(s)`` takes any case, and ``"explicit"`` (OpenVINO's name) for
    NONE, as the functions' ``broadcast=`` does.
    """

    NONE = "none"
    NUMPY = "numpy"
    PDPD = "pdpd"
    # Enum's own lookup by value, not str's constructor.
    def __new__(cls, value: str) -> Broadcast: ...
    @classmethod
    def _missing_(cls, value: object) -> Broadcast | None: ...

class Op(enum.Enum):
    """TensorRT's ElementWise operations, each naming the eltwise function it runs."""

    SUM = "add"
    SUB = "subtract"
    PROD = "multiply"
    DIV = "divide"
    FLOOR_DIV = "floor_divide"
    POW = "power"
    MAX = "maximum"
    MIN = "minimum"
    AND = "logical_and"
    OR = "logical_or"
    XOR = "logical_xor"
    EQUAL = "equal"
    GREATER = "greater"
    LESS = "less"

# broadcast=: a Broadcast member or its name in any case ("explicit" for NONE);
# None is the default, "numpy".
_Mode: TypeAlias = Broadcast | str | None
# pythondiv=: a bool, Python's or NumPy's; None is the default, True.
_Pythondiv: TypeAlias = bool | np.bool_ | None
_OutArg: TypeAlias = NDArray[Any] | tuple[NDArray[Any]] | None

_ScalarT = TypeVar("_ScalarT", bound=np.generic)
_ArrayT = TypeVar("_ArrayT", bound=np.ndarray[Any, Any])
# The dtypes whose results these stubs can tell (ml_dtypes' dtypes, bfloat16 and the
# low-precision ones, have no typed scalar in NumPy's stubs: their calls take the
# general overloads).
_SameT = TypeVar(
    "_SameT",
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
)
_FloatT = TypeVar("_FloatT", np.float16, np.float32, np.float64)
_IntT = TypeVar(
    "_IntT", np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64
)
_DTypeOf: TypeAlias = type[_ScalarT] | np.dtype[_ScalarT]

# A scalar operand: with scalars only, the result is a NumPy scalar.
_Scalar: TypeAlias = bool | int | float | np.generic

@type_check_only
class _Foreign(Protocol):
    """An operand with its own ``__array_ufunc__`` (dask, pandas, xarray, ...): the
    functions call their ufunc twin on it, and its protocol decides the result.

    ``method: str`` keeps ndarray (and its subclasses, which come back as
    ndarrays) out: NumPy's stubs give ndarray's ``method`` a Literal type. Were
    an ndarray to fit, an ``NDArray[Any]`` operand would make the overloads
    ambiguous and the result ``Any``.
    """

    def __array_ufunc__(self, ufunc: Any, method: str, /, *inputs: Any, **kwargs: Any) -> Any: ...

# An operand the functions convert themselves (numpy.asarray): an ndarray (a
# subclass stays one), a scalar, or a list or tuple, whatever it holds.
_Plain: TypeAlias = NDArray[Any] | _Scalar | Sequence[Any]

_NameT_co = TypeVar("_NameT_co", bound=str, covariant=True)
_BoolName: TypeAlias = Literal[
    "logical_and", "logical_or", "logical_xor",
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
]
_ArithmeticName: TypeAlias = Literal[
    "add", "subtract", "multiply", "floor_divide", "mod", "remainder", "fmod", "power",
    "maximum", "minimum", "squared_difference", "bitwise_and", "bitwise_or", "bitwise_xor",
]
_BoolOp: TypeAlias = Literal[Op.AND, Op.OR, Op.XOR, Op.EQUAL, Op.GREATER, Op.LESS]

@type_check_only
class Function(Generic[_NameT_co]):
    """An eltwise binary function (see help(eltwise.divide)).

    The runtime type of ``eltwise.add`` ... (``type(eltwise.add)``); it is not
    bound to a name in the module. Besides being called, it lends its ufunc
    twin's public attributes (``reduce``, ``accumulate``, ``reduceat``,
    ``outer``, ``at``, ``nin``, ``nout``, ``nargs``, ``ntypes``, ``identity``,
    ``types``, ``signature``, ``resolve_dtypes``) and pickles by name.
    """

    @property
    def __name__(self) -> _NameT_co: ...
    @property
    def __qualname__(self) -> _NameT_co: ...
    __signature__: inspect.Signature
    @property
    def ufunc(self) -> np.ufunc:
        """The numpy.ufunc twin (eltwise.ufunc.<name>)."""

    # The twin's attributes, looked up on it.
    @property
    def nin(self) -> int: ...
    @property
    def nout(self) -> int: ...
    @property
    def nargs(self) -> int: ...
    @property
    def ntypes(self) -> int: ...
    @property
    def types(self) -> list[str]: ...
    @property
    def identity(self) -> Any: ...
    @property
    def signature(self) -> str | None: ...
    def reduce(
        self,
        array: ArrayLike,
        /,
        axis: SupportsIndex | Sequence[SupportsIndex] | None = 0,
        dtype: DTypeLike | None = None,
        out: NDArray[Any] | None = None,
        **kwargs: Any,
    ) -> Any: ...
    def accumulate(
        self,
        array: ArrayLike,
        /,
        axis: SupportsIndex = 0,
        dtype: DTypeLike | None = None,
        out: NDArray[Any] | None = None,
    ) -> NDArray[Any]: ...
    def reduceat(
        self,
        array: ArrayLike,
        /,
        indices: ArrayLike,
        axis: SupportsIndex = 0,
        dtype: DTypeLike | None = None,
        out: NDArray[Any] | None = None,
    ) -> NDArray[Any]: ...
    def outer(self, A: ArrayLike, B: ArrayLike, /, **kwargs: Any) -> Any: ...
    def at(self, a: NDArray[Any], indices: ArrayLike, b: ArrayLike | None = None, /) -> None: ...
    def resolve_dtypes(
        self,
        /,
        dtypes: tuple[np.dtype[Any] | type | None, ...],
        *,
        signature: tuple[np.dtype[Any] | None, ...] | None = None,
        casting: Literal["no", "equiv", "safe", "same_kind", "unsafe"] | None = None,
        reduction: bool = False,
    ) -> tuple[np.dtype[Any], ...]: ...

    # Calling one. The overloads are tried in order; the first that fits wins.
    # Comparisons and logical operations: the result is bool.
    @overload  # out= given: it is returned
    def __call__(
        self: Function[_BoolName], x1: ArrayLike, x2: ArrayLike, /,
        out: _ArrayT | tuple[_ArrayT], *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> _ArrayT: ...
    @overload  # scalars: a NumPy bool
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_BoolName], x1: _Scalar, x2: _Scalar, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> np.bool_: ...
    @overload  # an array: a bool array
    def __call__(
        self: Function[_BoolName], x1: NDArray[Any], x2: _Plain, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> NDArray[np.bool_]: ...
    @overload  # an array: a bool array
    def __call__(
        self: Function[_BoolName], x1: _Plain, x2: NDArray[Any], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> NDArray[np.bool_]: ...
    @overload  # a foreign operand: its __array_ufunc__ decides
    def __call__(
        self: Function[_BoolName], x1: _Foreign, x2: ArrayLike | _Foreign, /,
        out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> Any: ...
    @overload  # a foreign operand: its __array_ufunc__ decides
    def __call__(
        self: Function[_BoolName], x1: ArrayLike, x2: _Foreign, /,
        out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> Any: ...
    @overload  # other array-likes (lists, buffers, ...)
    def __call__(
        self: Function[_BoolName], x1: ArrayLike, x2: ArrayLike, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> NDArray[np.bool_]: ...
    # Arithmetic and bitwise operations but divide: the operands' common dtype.
    @overload  # out= given: it is returned
    def __call__(
        self: Function[_ArithmeticName], x1: ArrayLike, x2: ArrayLike, /,
        out: _ArrayT | tuple[_ArrayT], *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> _ArrayT: ...
    @overload  # scalars, dtype= given: a scalar of that type
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: _Scalar, x2: _Scalar, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: _DTypeOf[_ScalarT],
    ) -> _ScalarT: ...
    @overload  # an array, dtype= given
    def __call__(
        self: Function[_ArithmeticName], x1: NDArray[Any], x2: _Plain, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: _DTypeOf[_ScalarT],
    ) -> NDArray[_ScalarT]: ...
    @overload  # an array, dtype= given
    def __call__(
        self: Function[_ArithmeticName], x1: _Plain, x2: NDArray[Any], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: _DTypeOf[_ScalarT],
    ) -> NDArray[_ScalarT]: ...
    @overload  # NumPy scalars of one type: that type
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: _SameT, x2: _SameT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> _SameT: ...
    @overload  # a NumPy float64 scalar is strong (NEP 50)
    def __call__(  # type: ignore[overload-overlap, overload-cannot-match]
        self: Function[_ArithmeticName], x1: _FloatT, x2: np.float64, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> np.float64: ...
    @overload  # a NumPy float64 scalar is strong (NEP 50)
    def __call__(  # type: ignore[overload-overlap, overload-cannot-match]
        self: Function[_ArithmeticName], x1: np.float64, x2: _FloatT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> np.float64: ...
    @overload  # a Python scalar is weak (NEP 50)
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: _FloatT, x2: float, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> _FloatT: ...
    @overload  # a Python scalar is weak (NEP 50)
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: float, x2: _FloatT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> _FloatT: ...
    @overload  # a Python int is weak (NEP 50)
    def __call__(
        self: Function[_ArithmeticName], x1: _IntT, x2: int, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> _IntT: ...
    @overload  # a Python int is weak (NEP 50)
    def __call__(
        self: Function[_ArithmeticName], x1: int, x2: _IntT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> _IntT: ...
    @overload  # Python bools: bool stays bool (add, multiply, maximum, ...)
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: bool, x2: bool, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> np.bool_: ...
    @overload  # Python ints: NumPy's default int
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: int, x2: int, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> np.intp: ...
    @overload  # Python floats (or a float and an int, or np.float64)
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: float, x2: float, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> np.float64: ...
    @overload  # other scalars: a NumPy scalar of the promoted type
    def __call__(
        self: Function[_ArithmeticName], x1: _Scalar, x2: _Scalar, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> Any: ...
    @overload  # one dtype: that dtype
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: NDArray[_SameT], x2: NDArray[_SameT] | _SameT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> NDArray[_SameT]: ...
    @overload  # one dtype: that dtype
    def __call__(  # type: ignore[overload-overlap]
        self: Function[_ArithmeticName], x1: _SameT, x2: NDArray[_SameT], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> NDArray[_SameT]: ...
    @overload  # a NumPy float64 scalar is strong (NEP 50)
    def __call__(  # type: ignore[overload-overlap, overload-cannot-match]
        self: Function[_ArithmeticName], x1: NDArray[_FloatT], x2: np.float64, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> NDArray[np.float64]: ...
    @overload  # a NumPy float64 scalar is strong (NEP 50)
    def __call__(  # type: ignore[overload-overlap, overload-cannot-match]
        self: Function[_ArithmeticName], x1: np.float64, x2: NDArray[_FloatT], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> NDArray[np.float64]: ...
    @overload  # a Python scalar is weak (NEP 50)
    def __call__(
        self: Function[_ArithmeticName], x1: NDArray[_FloatT], x2: float, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> NDArray[_FloatT]: ...
    @overload  # a Python scalar is weak (NEP 50)
    def __call__(
        self: Function[_ArithmeticName], x1: float, x2: NDArray[_FloatT], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> NDArray[_FloatT]: ...
    @overload  # a Python int is weak (NEP 50)
    def __call__(
        self: Function[_ArithmeticName], x1: NDArray[_IntT], x2: int, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> NDArray[_IntT]: ...
    @overload  # a Python int is weak (NEP 50)
    def __call__(
        self: Function[_ArithmeticName], x1: int, x2: NDArray[_IntT], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: None = None,
    ) -> NDArray[_IntT]: ...
    @overload  # an array: the promoted dtype
    def __call__(
        self: Function[_ArithmeticName], x1: NDArray[Any], x2: _Plain, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> NDArray[Any]: ...
    @overload  # an array: the promoted dtype
    def __call__(
        self: Function[_ArithmeticName], x1: _Plain, x2: NDArray[Any], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> NDArray[Any]: ...
    @overload  # a foreign operand: its __array_ufunc__ decides
    def __call__(
        self: Function[_ArithmeticName], x1: _Foreign, x2: ArrayLike | _Foreign, /,
        out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> Any: ...
    @overload  # a foreign operand: its __array_ufunc__ decides
    def __call__(
        self: Function[_ArithmeticName], x1: ArrayLike, x2: _Foreign, /,
        out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> Any: ...
    @overload  # other array-likes (lists, ...), dtype= given
    def __call__(
        self: Function[_ArithmeticName], x1: ArrayLike, x2: ArrayLike, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: _DTypeOf[_ScalarT],
    ) -> NDArray[_ScalarT]: ...
    @overload  # other array-likes (lists, buffers, ...)
    def __call__(
        self: Function[_ArithmeticName], x1: ArrayLike, x2: ArrayLike, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        dtype: DTypeLike | None = None,
    ) -> NDArray[Any]: ...
    # divide: as the arithmetic ones, with pythondiv.
    @overload  # out= given: it is returned
    def __call__(
        self: Function[Literal["divide"]], x1: ArrayLike, x2: ArrayLike, /,
        out: _ArrayT | tuple[_ArrayT], *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
    ) -> _ArrayT: ...
    @overload  # scalars, dtype= given: a scalar of that type
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: _Scalar, x2: _Scalar, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: _DTypeOf[_ScalarT],
    ) -> _ScalarT: ...
    @overload  # an array, dtype= given
    def __call__(
        self: Function[Literal["divide"]], x1: NDArray[Any], x2: _Plain, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: _DTypeOf[_ScalarT],
    ) -> NDArray[_ScalarT]: ...
    @overload  # an array, dtype= given
    def __call__(
        self: Function[Literal["divide"]], x1: _Plain, x2: NDArray[Any], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: _DTypeOf[_ScalarT],
    ) -> NDArray[_ScalarT]: ...
    @overload  # NumPy scalars of one type: that type
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: _SameT, x2: _SameT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> _SameT: ...
    @overload  # a NumPy float64 scalar is strong (NEP 50)
    def __call__(  # type: ignore[overload-overlap, overload-cannot-match]
        self: Function[Literal["divide"]], x1: _FloatT, x2: np.float64, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> np.float64: ...
    @overload  # a NumPy float64 scalar is strong (NEP 50)
    def __call__(  # type: ignore[overload-overlap, overload-cannot-match]
        self: Function[Literal["divide"]], x1: np.float64, x2: _FloatT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> np.float64: ...
    @overload  # a Python scalar is weak (NEP 50)
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: _FloatT, x2: float, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> _FloatT: ...
    @overload  # a Python scalar is weak (NEP 50)
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: float, x2: _FloatT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> _FloatT: ...
    @overload  # a Python int is weak (NEP 50)
    def __call__(
        self: Function[Literal["divide"]], x1: _IntT, x2: int, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> _IntT: ...
    @overload  # a Python int is weak (NEP 50)
    def __call__(
        self: Function[Literal["divide"]], x1: int, x2: _IntT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> _IntT: ...
    @overload  # Python bools: bool stays bool (add, multiply, maximum, ...)
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: bool, x2: bool, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> np.bool_: ...
    @overload  # Python ints: NumPy's default int
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: int, x2: int, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> np.intp: ...
    @overload  # Python floats (or a float and an int, or np.float64)
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: float, x2: float, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> np.float64: ...
    @overload  # other scalars: a NumPy scalar of the promoted type
    def __call__(
        self: Function[Literal["divide"]], x1: _Scalar, x2: _Scalar, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> Any: ...
    @overload  # one dtype: that dtype
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: NDArray[_SameT], x2: NDArray[_SameT] | _SameT, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> NDArray[_SameT]: ...
    @overload  # one dtype: that dtype
    def __call__(  # type: ignore[overload-overlap]
        self: Function[Literal["divide"]], x1: _SameT, x2: NDArray[_SameT], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> NDArray[_SameT]: ...
    @overload  # a NumPy float64 scalar is strong (NEP 50)
    def __call__(  # type: ignore[overload-overlap, overload-cannot-match]
        self: Function[Literal["divide"]], x1: NDArray[_FloatT], x2: np.float64, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> NDArray[np.float64]: ...
    @overload  # a NumPy float64 scalar is strong (NEP 50)
    def __call__(  # type: ignore[overload-overlap, overload-cannot-match]
        self: Function[Literal["divide"]], x1: np.float64, x2: NDArray[_FloatT], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> NDArray[np.float64]: ...
    @overload  # a Python scalar is weak (NEP 50)
    def __call__(
        self: Function[Literal["divide"]], x1: NDArray[_FloatT], x2: float, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> NDArray[_FloatT]: ...
    @overload  # a Python scalar is weak (NEP 50)
    def __call__(
        self: Function[Literal["divide"]], x1: float, x2: NDArray[_FloatT], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> NDArray[_FloatT]: ...
    @overload  # a Python int is weak (NEP 50)
    def __call__(
        self: Function[Literal["divide"]], x1: NDArray[_IntT], x2: int, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> NDArray[_IntT]: ...
    @overload  # a Python int is weak (NEP 50)
    def __call__(
        self: Function[Literal["divide"]], x1: int, x2: NDArray[_IntT], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: None = None,
    ) -> NDArray[_IntT]: ...
    @overload  # an array: the promoted dtype
    def __call__(
        self: Function[Literal["divide"]], x1: NDArray[Any], x2: _Plain, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
    ) -> NDArray[Any]: ...
    @overload  # an array: the promoted dtype
    def __call__(
        self: Function[Literal["divide"]], x1: _Plain, x2: NDArray[Any], /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
    ) -> NDArray[Any]: ...
    @overload  # a foreign operand: its __array_ufunc__ decides
    def __call__(
        self: Function[Literal["divide"]], x1: _Foreign, x2: ArrayLike | _Foreign, /,
        out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
    ) -> Any: ...
    @overload  # a foreign operand: its __array_ufunc__ decides
    def __call__(
        self: Function[Literal["divide"]], x1: ArrayLike, x2: _Foreign, /,
        out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
    ) -> Any: ...
    @overload  # other array-likes (lists, ...), dtype= given
    def __call__(
        self: Function[Literal["divide"]], x1: ArrayLike, x2: ArrayLike, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: _DTypeOf[_ScalarT],
    ) -> NDArray[_ScalarT]: ...
    @overload  # other array-likes (lists, buffers, ...)
    def __call__(
        self: Function[Literal["divide"]], x1: ArrayLike, x2: ArrayLike, /,
        out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
        pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
    ) -> NDArray[Any]: ...

# Arithmetic: the result has the operands' common dtype (or ``dtype``).
add: Function[Literal["add"]]
subtract: Function[Literal["subtract"]]
multiply: Function[Literal["multiply"]]
divide: Function[Literal["divide"]]
floor_divide: Function[Literal["floor_divide"]]
mod: Function[Literal["mod"]]
remainder: Function[Literal["remainder"]]
fmod: Function[Literal["fmod"]]
power: Function[Literal["power"]]
maximum: Function[Literal["maximum"]]
minimum: Function[Literal["minimum"]]
squared_difference: Function[Literal["squared_difference"]]

# Integers and bool only; the result has the operands' common dtype.
bitwise_and: Function[Literal["bitwise_and"]]
bitwise_or: Function[Literal["bitwise_or"]]
bitwise_xor: Function[Literal["bitwise_xor"]]

# The result is bool; ``dtype`` is the dtype the operation is computed in.
logical_and: Function[Literal["logical_and"]]
logical_or: Function[Literal["logical_or"]]
logical_xor: Function[Literal["logical_xor"]]
equal: Function[Literal["equal"]]
not_equal: Function[Literal["not_equal"]]
greater: Function[Literal["greater"]]
greater_equal: Function[Literal["greater_equal"]]
less: Function[Literal["less"]]
less_equal: Function[Literal["less_equal"]]

# TensorRT-style entry: ``op`` is an Op member or its name (any case), or a
# function's name ("divide").
# A comparison or logical op: the result is bool.
@overload  # out= given: it is returned
def elementwise(
    x1: ArrayLike, x2: ArrayLike, op: _BoolOp, /,
    out: _ArrayT | tuple[_ArrayT], *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> _ArrayT: ...
@overload  # scalars: a NumPy bool
def elementwise(  # type: ignore[overload-overlap]
    x1: _Scalar, x2: _Scalar, op: _BoolOp, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> np.bool_: ...
@overload  # an array: a bool array
def elementwise(
    x1: NDArray[Any], x2: _Plain, op: _BoolOp, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> NDArray[np.bool_]: ...
@overload  # an array: a bool array
def elementwise(
    x1: _Plain, x2: NDArray[Any], op: _BoolOp, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> NDArray[np.bool_]: ...
@overload  # a foreign operand: its __array_ufunc__ decides
def elementwise(
    x1: _Foreign, x2: ArrayLike | _Foreign, op: _BoolOp, /,
    out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> Any: ...
@overload  # a foreign operand: its __array_ufunc__ decides
def elementwise(
    x1: ArrayLike, x2: _Foreign, op: _BoolOp, /,
    out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> Any: ...
@overload  # other array-likes (lists, buffers, ...)
def elementwise(
    x1: ArrayLike, x2: ArrayLike, op: _BoolOp, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> NDArray[np.bool_]: ...
# DIV, or an op named by a string: pythondiv is accepted (a TypeError at run time
# if the string names another function).
@overload  # out= given: it is returned
def elementwise(
    x1: ArrayLike, x2: ArrayLike, op: Literal[Op.DIV] | str, /,
    out: _ArrayT | tuple[_ArrayT], *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
) -> _ArrayT: ...
@overload  # scalars: a NumPy scalar
def elementwise(
    x1: _Scalar, x2: _Scalar, op: Literal[Op.DIV] | str, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
) -> Any: ...
@overload  # an array
def elementwise(
    x1: NDArray[Any], x2: _Plain, op: Literal[Op.DIV] | str, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
) -> NDArray[Any]: ...
@overload  # an array
def elementwise(
    x1: _Plain, x2: NDArray[Any], op: Literal[Op.DIV] | str, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
) -> NDArray[Any]: ...
@overload  # a foreign operand: its __array_ufunc__ decides
def elementwise(
    x1: _Foreign, x2: ArrayLike | _Foreign, op: Literal[Op.DIV] | str, /,
    out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
) -> Any: ...
@overload  # a foreign operand: its __array_ufunc__ decides
def elementwise(
    x1: ArrayLike, x2: _Foreign, op: Literal[Op.DIV] | str, /,
    out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
) -> Any: ...
@overload  # other array-likes (lists, buffers, ...)
def elementwise(
    x1: ArrayLike, x2: ArrayLike, op: Literal[Op.DIV] | str, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    pythondiv: _Pythondiv = True, dtype: DTypeLike | None = None,
) -> NDArray[Any]: ...
# Any other op.
@overload  # out= given: it is returned
def elementwise(
    x1: ArrayLike, x2: ArrayLike, op: Op, /,
    out: _ArrayT | tuple[_ArrayT], *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> _ArrayT: ...
@overload  # scalars: a NumPy scalar
def elementwise(
    x1: _Scalar, x2: _Scalar, op: Op, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> Any: ...
@overload  # an array
def elementwise(
    x1: NDArray[Any], x2: _Plain, op: Op, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> NDArray[Any]: ...
@overload  # an array
def elementwise(
    x1: _Plain, x2: NDArray[Any], op: Op, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> NDArray[Any]: ...
@overload  # a foreign operand: its __array_ufunc__ decides
def elementwise(
    x1: _Foreign, x2: ArrayLike | _Foreign, op: Op, /,
    out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> Any: ...
@overload  # a foreign operand: its __array_ufunc__ decides
def elementwise(
    x1: ArrayLike, x2: _Foreign, op: Op, /,
    out: _OutArg = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> Any: ...
@overload  # other array-likes (lists, buffers, ...)
def elementwise(
    x1: ArrayLike, x2: ArrayLike, op: Op, /,
    out: None = None, *, broadcast: _Mode = "numpy", axis: SupportsIndex = -1,
    dtype: DTypeLike | None = None,
) -> NDArray[Any]: ...

# Fused chains: fn's parameters plus out=; the result is fn's (stand-ins of arrays are
# arrays, so a chain returns an ndarray, a NumPy scalar when every operand is 0-d, or
# a tuple of them; a dask operand runs fn as written).
_R = TypeVar("_R")
@overload
def fuse(fn: Callable[..., _R], /, *, static: str | Sequence[str] = ()) -> Callable[..., _R]: ...
@overload
def fuse(
    fn: None = None, /, *, static: str | Sequence[str] = ()
) -> Callable[[Callable[..., Any]], Callable[..., Any]]: ...

# Runtime: SIMD targets and threads.
def show_config() -> None: ...
def get_targets() -> list[str]: ...
def get_target() -> str: ...
def set_target(name: str | None) -> None: ...
def set_num_threads(n: SupportsIndex) -> None: ...
def get_num_threads() -> int: ...

# Runtime: the pool of large result buffers.
def set_result_pool_limit(nbytes: SupportsIndex) -> None: ...
def result_pool_stats() -> dict[str, int]: ...
def release_result_pool() -> int: ...
