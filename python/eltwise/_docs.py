"""Docstrings of eltwise's public functions, in numpydoc format.

``DOCS[name]`` is the body of the docstring of ``eltwise.<name>``, from the
one-line summary on, without the text signature that ``__init__.py`` puts in
front of it. What every function shares (parameters, returns, raises, common
notes) is written once below and assembled by ``_render``; each operation
contributes only its own summary, semantics, notes, cross-references and
examples; what the function and dtype tables say (engines' names, dtypes,
division, `pythondiv`) comes from the tables (``_names``).
"""

from __future__ import annotations

import operator
import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from ._names import DTYPE_TABLE, FUNCTION_TABLE

__all__ = ["DOCS"]


def _t(text: str) -> str:
    """Dedents and strips a triple-quoted block."""
    return textwrap.dedent(text).strip("\n")


_NBSP = "\u00a0"  # holds a literal's words together while a paragraph is filled

_ROWS = {row["name"]: row for row in FUNCTION_TABLE}


def _dtypes_sentence() -> str:
    """Computes the list of supported dtypes, from the dtype table."""
    names = [r["name"] if r["source"] == "numpy" else f"{r['name']} (``{r['source']}.{r['name']}``)"
             for r in DTYPE_TABLE]
    return ", ".join(names[:-1]) + " and " + names[-1]


_DTYPES = _dtypes_sentence()

# Shared parameter descriptions ---------------------------------------------

_OUT = """\
out : ndarray or tuple of one ndarray, optional
    Where to put the result: writeable, of exactly the broadcast shape, any
    strides, and of a dtype the result can be cast to under ``'same_kind'``
    casting. It may be `x1` or `x2`, or overlap them: the result is as if both
    inputs were read before anything was written. Invalid input raises before
    anything is written to it. When given, it is returned."""

_BROADCAST = """\
broadcast : {'numpy', 'none', 'explicit', 'pdpd'} or Broadcast, optional
    How the shapes of `x1` and `x2` are matched (OpenVINO's
    ``auto_broadcast``); case-insensitive.

    ``'numpy'`` (default)
        NumPy's rules, which are also ONNX's multidirectional broadcasting
        (TensorRT's same-rank rule is the special case of equal ranks):
        shapes are aligned at their last dimension, and two dimensions match
        when they are equal or one of them is 1. ``(8, 1, 6, 1)`` with
        ``(7, 1, 5)`` gives ``(8, 7, 6, 5)``.
    ``'none'`` or ``'explicit'``
        No broadcasting: the two shapes must be identical.
    ``'pdpd'``
        PaddlePaddle's rule, as OpenVINO applies it: `x2` is broadcast onto
        `x1`, and the result has the shape of `x1`.

        1. ``x2.ndim <= x1.ndim``.
        2. ``axis == -1`` becomes ``x1.ndim - x2.ndim``, computed before
           step 3. Any other negative axis is an error.
        3. Trailing dimensions of size 1 of `x2` are dropped.
        4. What is left of `x2` must fit at `axis`:
           ``axis + x2.ndim <= x1.ndim``, and each ``x2.shape[i]`` equals
           ``x1.shape[axis + i]`` or is 1. Only `x2` is broadcast, never
           `x1`.

        For `x1` of shape ``(2, 3, 4, 5)`` these shapes of `x2` all give
        ``(2, 3, 4, 5)``: ``(3, 4)`` with ``axis=1``; ``(3, 1)`` with
        ``axis=1``; ``(4, 5)`` with the default axis (it becomes 2);
        ``(1, 3)`` with ``axis=0``; ``()``; ``(5,)``. ``(3, 1)`` with the
        default axis fails: step 2 makes the axis 4 - 2 = 2, step 3 leaves
        ``(3,)``, and 3 does not match ``x1.shape[2] == 4``. `x1` of shape
        ``(8, 1, 6, 1)`` with `x2` of shape ``(7, 1, 5)`` and ``axis=1``
        fails too, because 7 would have to broadcast `x1`'s 1."""

_AXIS = """\
axis : int, optional
    Only with ``broadcast='pdpd'``: the dimension of `x1` at which the first
    dimension of `x2` lines up. The default, -1, aligns the trailing
    dimensions (``x1.ndim - x2.ndim``). Any integer, or an object with
    ``__index__`` (``numpy.int64``), as NumPy takes axes; not a bool. With
    any other mode, a value other than -1 is a ValueError."""

_PYTHONDIV = """\
pythondiv : bool, optional
    Integer operands only; ignored for floats. True (the default, as OpenVINO's
    ``m_pythondiv``) rounds the quotient toward minus infinity, like
    ``numpy.floor_divide`` and Python's ``//``. False truncates it toward
    zero, like C, ONNX ``Div`` and TensorRT ``DIV``. A bool (Python's or
    NumPy's) or None (the default); anything else is a TypeError."""

_DTYPE_COMPUTE = """\
dtype : dtype_like, optional
    The dtype to compute in and to return, instead of the common dtype of
    the operands, as NumPy's ``dtype=``: the operands are converted to it
    first, under ``'same_kind'`` casting. It must be one of the supported
    dtypes."""

_DTYPE_BOOL = """
    The dtype the operands are converted to (under ``'same_kind'`` casting)
    before they are {verb}, instead of their common dtype. The result stays
    bool. It must be one of the supported dtypes.
    """

_COMMON_DTYPE = (
    "the common dtype of `x1` and `x2` (``numpy.result_type``, with Python "
    "scalars weak as in NEP 50, and ``ml_dtypes``' dtypes promoted as it does), "
    "or `dtype`"
)

_RETURNS = """
    {what}, of the broadcast shape and of {dtype}. A new C-contiguous array,
    or `out` when it was given; a NumPy scalar when `x1` and `x2` are both
    scalars or 0-d arrays and `out` is not given.
    """

_TYPE_ERROR = """
    If a dtype is not supported (complex, object, string, datetime,
    structured, ...) or the operands have no common dtype{extra}; if an
    operand cannot be cast to `dtype`, or the result to the dtype of `out`,
    under ``'same_kind'`` casting; or if a keyword is not one this function
    takes.
    """

_VALUE_ERROR = """
    If the shapes do not match under `broadcast` (with ``'numpy'``, NumPy's
    message, e.g. ``operands could not be broadcast together with shapes
    (2,3) (2,)``; otherwise a message naming both shapes and the axis); if
    `broadcast` is not a known mode; if `axis` is invalid; or if `out` does
    not have the broadcast shape or is not writeable.{extra}
    """

_FLOATING_POINT_ERROR = """
    Under ``numpy.errstate(divide='raise')``, when an integer is divided by
    zero. The result is not returned then (`out`, if given, may have been
    written).
    """

# Shared semantics -----------------------------------------------------------

_ZERO_DIVISION = """\
Integer division by zero gives 0 in that element, and never crashes. It is
reported as NumPy reports it, through ``numpy.errstate``'s ``divide``
setting: by default a ``RuntimeWarning`` "divide by zero encountered in
{name}", nothing under ``'ignore'``, a ``FloatingPointError`` under
``'raise'``."""

_HALF_EXACT = (
    "float16, bfloat16 and ``ml_dtypes``' float8, float6 and float4 formats "
    "are computed in float32 and rounded once, to nearest even: bit-exact "
    "with NumPy for float16 and with ``ml_dtypes`` for its dtypes (NaN "
    "compared as NaN)."
)

_FP_SILENT = (
    "Floating-point errors are never reported: overflow, invalid operations "
    "and division by zero give inf or nan silently, whatever "
    "``numpy.errstate`` says, where NumPy warns."
)

_TARGETS = (
    "The result is the same on every SIMD target (``eltwise.get_targets()``) "
    "and for any number of threads."
)


# kind: (what x1, x2 may be beyond the supported dtypes, what else is a
# TypeError). "arith" and "arith+bool" give the common dtype, the rest bool.
_KINDS = {
    "arith": ("Two bool operands are a TypeError.", ", or both are bool"),
    "arith+bool": ("Two bool operands give bool.", ""),
    "bitwise": ("Integer and bool dtypes only: floats are a TypeError.", ", or one is a float"),
    "compare": ("", ""),
    "logical": ("", ""),
}


@dataclass(frozen=True)
class _Op:
    """What one function's docstring says that the others do not.

    What the function table says (its engines' names, the dtypes it takes,
    whether it divides, whether it takes `pythondiv`) comes from the table's
    row, in ``_render``.
    """

    summary: str
    semantics: str
    examples: str
    see_also: str
    notes: str = ""
    half: str = _HALF_EXACT
    extra_value: str = ""
    what: str = "The result"
    targets: str = _TARGETS


def _fill(text: str, indent: str = "") -> str:
    """Computes `text` re-wrapped to 76 columns, paragraph by paragraph.

    A ``literal`` is never split across lines.
    """
    paragraphs = textwrap.dedent(text).strip().split("\n\n")
    glued = (
        re.sub(r"``.+?``", lambda m: m[0].replace(" ", _NBSP), " ".join(par.split()))
        for par in paragraphs
    )
    return "\n\n".join(
        textwrap.fill(par, 76, initial_indent=indent, subsequent_indent=indent,
                      break_long_words=False, break_on_hyphens=False).replace(_NBSP, " ")
        for par in glued
    )


def _section(title: str, body: str) -> str:
    """Computes a numpydoc section: the title, its underline, the body."""
    return f"{title}\n{'-' * len(title)}\n{body}"


def _item(head: str, text: str) -> str:
    """Computes one entry of a Parameters, Returns or Raises section."""
    return f"{head}\n{_fill(text, '    ')}"


# The engines, as the docs name them, and the function table's column of each.
ENGINES = (("OpenVINO", "openvino"), ("ONNX", "onnx"), ("TensorRT", "tensorrt"))


def engine_name(name: str) -> str:
    """Computes the reST of one engine's name from the table: ``Mod fmod=0``
    (the op, then the attribute that selects the behaviour) reads
    "``Mod`` with ``fmod=0``"."""
    op, _, attribute = name.partition(" ")
    return f"``{op}`` with ``{attribute}``" if attribute else f"``{op}``"


def _engines(row: dict[str, Any]) -> str:
    """Computes the sentence naming the inference-engine counterparts."""
    frameworks = [(fw, row[column]) for fw, column in ENGINES]
    have = [f"{fw} {engine_name(op)}" for fw, op in frameworks if op]
    text = "Counterparts: " + ", ".join(have) + "."
    lacking = [fw for fw, op in frameworks if not op]
    if lacking:
        text += " None in " + " or ".join(lacking) + "."
    return text


def _docs_kind(row: dict[str, Any]) -> str:
    """Computes the key of ``_KINDS`` for a row of the function table."""
    if row["kind"] == "comparison":
        return "compare"
    if row["kind"] in ("logical", "bitwise"):
        return row["kind"]
    return "arith" if row["accepts"] == "numeric" else "arith+bool"


def _render(row: dict[str, Any], op: _Op) -> str:
    """Computes the numpydoc docstring body of the function of `row`."""
    name, kind = row["name"], _docs_kind(row)
    extended = [op.semantics]
    if row["divides_integers"]:
        extended.append(_ZERO_DIVISION.format(name=name))
    extended.append(_engines(row))

    restriction, extra_type = _KINDS[kind]
    params = [
        _item(
            "x1, x2 : array_like",
            "The operands: anything ``numpy.asarray`` accepts (ndarrays of any "
            "strides or byte order, 0-d arrays, NumPy or Python scalars, nested "
            f"sequences). Supported dtypes: {_DTYPES}. {restriction}",
        ),
        _OUT,
        _BROADCAST,
        _AXIS,
    ]
    if row["pythondiv"]:
        params.append(_PYTHONDIV)
    if kind in ("compare", "logical"):
        verb = "compared" if kind == "compare" else "tested for truth"
        params.append(_item("dtype : dtype_like, optional", _DTYPE_BOOL.format(verb=verb)))
        dtype = "dtype bool"
    else:
        params.append(_DTYPE_COMPUTE)
        dtype = _COMMON_DTYPE

    raises = [
        _item("TypeError", _TYPE_ERROR.format(extra=extra_type)),
        _item("ValueError", _VALUE_ERROR.format(extra=op.extra_value)),
    ]
    if row["divides_integers"]:
        raises.append(_item("FloatingPointError", _FLOATING_POINT_ERROR))

    notes = [op.notes] if op.notes else []
    if kind.startswith("arith"):
        notes += [op.half, _FP_SILENT]
    notes.append(op.targets)

    returns = _RETURNS.format(what=op.what, dtype=dtype)
    examples = _t(op.examples)
    gap = "\n" if examples.startswith(">>>") else "\n\n"
    sections = [
        op.summary,
        "\n\n".join(_fill(par) for par in extended),
        _section("Parameters", "\n".join(params)),
        _section("Returns", _item("ndarray or NumPy scalar", returns)),
        _section("Raises", "\n".join(raises)),
        _section("See Also", _t(op.see_also)),
        _section("Notes", "\n\n".join(_fill(par) for par in notes)),
        _section("Examples", ">>> import eltwise, numpy as np" + gap + examples),
    ]
    return "\n\n".join(sections) + "\n"


# The arithmetic operations, each with its own text --------------------------

_ARITH: dict[str, _Op] = {}

_ARITH["add"] = _Op(
    summary="Add the operands element-wise.",
    semantics="""
        Computes ``x1 + x2``. Integers wrap around on overflow (two's
        complement), as NumPy arrays do. Floats follow IEEE 754: float32 and
        float64 are bit-exact with ``numpy.add``. On two bools ``add`` is a
        logical OR and the result stays bool, as in NumPy.
        """,
    what="The sums",
    see_also="""
        subtract : The difference of the operands.
        multiply : The product of the operands.
        elementwise : The same as ``elementwise(x1, x2, "SUM")``.
        numpy.add : NumPy's equivalent.
        """,
    examples="""
        >>> eltwise.add(np.array([1, 2, 3], dtype=np.int32), 10)
        array([11, 12, 13], dtype=int32)
        >>> eltwise.add(np.array([250, 2], dtype=np.uint8), np.array([10, 1], dtype=np.uint8))
        array([4, 3], dtype=uint8)
        >>> eltwise.add(np.ones((2, 3), dtype=np.float32), np.array([0, 1, 2], dtype=np.float32))
        array([[1., 2., 3.],
               [1., 2., 3.]], dtype=float32)
        >>> eltwise.add(np.float32(1.5), 2)
        np.float32(3.5)
        >>> eltwise.add(np.zeros((2, 3, 4, 5)), np.ones((3, 4)), broadcast="pdpd", axis=1).shape
        (2, 3, 4, 5)
        """,
)

_ARITH["subtract"] = _Op(
    summary="Subtract the second operand from the first, element-wise.",
    semantics="""
        Computes ``x1 - x2``. Integers wrap around on overflow (two's
        complement): an unsigned result below zero wraps to a large value,
        as NumPy arrays do. Floats follow IEEE 754: float32 and float64 are
        bit-exact with ``numpy.subtract``. Two bool operands are a TypeError,
        as in NumPy (``logical_xor`` is what is meant).
        """,
    what="The differences",
    see_also="""
        add : The sum of the operands.
        squared_difference : ``(x1 - x2) ** 2``.
        numpy.subtract : NumPy's equivalent.
        """,
    examples="""
        >>> eltwise.subtract(np.array([5, 1], dtype=np.uint8), 3)
        array([  2, 254], dtype=uint8)
        >>> eltwise.subtract(np.array([[1.0], [2.0]]), np.array([0.5, 1.0, 1.5]))
        array([[ 0.5,  0. , -0.5],
               [ 1.5,  1. ,  0.5]])
        """,
)

_ARITH["multiply"] = _Op(
    summary="Multiply the operands element-wise.",
    semantics="""
        Computes ``x1 * x2``. Integers wrap around on overflow (two's
        complement), as NumPy arrays do. Floats follow IEEE 754: float32 and
        float64 are bit-exact with ``numpy.multiply``. On two bools
        ``multiply`` is a logical AND and the result stays bool, as in NumPy.
        """,
    what="The products",
    see_also="""
        divide : The quotient of the operands.
        elementwise : The same as ``elementwise(x1, x2, "PROD")``.
        numpy.multiply : NumPy's equivalent.
        """,
    examples="""
        TensorRT's example, with a (1, 3) operand broadcast over two rows:

        >>> a = np.array([[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]], dtype=np.float32)
        >>> eltwise.multiply(a, np.array([[4.0, 5.0, 6.0]], dtype=np.float32))
        array([[-12., -10.,  -6.],
               [  0.,   5.,  12.]], dtype=float32)
        >>> eltwise.multiply(np.array([100], dtype=np.int8), 2)
        array([-56], dtype=int8)

        `out` may overlap the inputs; they are read as they were before the
        call:

        >>> b = np.array([1.0, 2.0, 3.0])
        >>> eltwise.multiply(b[:-1], b[1:], out=b[1:])
        array([2., 6.])
        >>> b
        array([1., 2., 6.])
        """,
)

_ARITH["divide"] = _Op(
    summary="Divide the operands element-wise; integer division stays integer.",
    semantics="""
        Computes ``x1 / x2``. For floats this is IEEE 754 division, bit-exact
        with ``numpy.divide`` for float32 and float64, and `pythondiv` is
        ignored; division by zero gives inf or nan, silently.

        For integers the quotient is an integer of the result dtype, not a
        float as with ``numpy.divide``. With ``pythondiv=True`` (the default,
        as OpenVINO's ``m_pythondiv``) it is rounded toward minus infinity,
        as ``numpy.floor_divide`` and Python's ``//`` do. With
        ``pythondiv=False`` it is truncated toward zero, as C, ONNX ``Div``
        and TensorRT ``DIV`` do. The two differ only where the operands have
        opposite signs and the division is inexact: -7 / 2 is -4 with
        ``pythondiv=True`` and -3 with ``pythondiv=False``. The most negative
        integer divided by -1 wraps around to itself (int8: -128 / -1 is
        -128), with no warning.

        Integer operands whose common dtype is float64 (a signed integer
        with uint64, as NumPy promotes them) are still divided as integers:
        the result is float64, rounded as `pythondiv` says (-7 / 2 is -4.0,
        or -3.0), computed as ``numpy.floor_divide`` computes it. With
        ``dtype=`` a float dtype asks for true division instead.
        """,
    what="The quotients",
    notes="""
        Where eltwise differs from ``numpy.divide``: integer operands give an
        integer quotient (pass a float `dtype`, e.g. ``dtype=np.float64``, for
        true division); float division by zero and ``MIN / -1`` give no
        RuntimeWarning.
        """,
    see_also="""
        floor_divide : Division rounding toward minus infinity, floats too.
        mod : The remainder that goes with ``pythondiv=True``.
        fmod : The remainder that goes with ``pythondiv=False``.
        elementwise : The same as ``elementwise(x1, x2, "DIV")``.
        numpy.divide : NumPy's true division.
        """,
    examples="""
        >>> eltwise.divide(np.array([3.0, 4.0], dtype=np.float32), np.array([1.0, 2.0], dtype=np.float32))
        array([3., 2.], dtype=float32)
        >>> eltwise.divide(np.array([-7, 7], dtype=np.int32), 2)
        array([-4,  3], dtype=int32)
        >>> eltwise.divide(np.array([-7, 7], dtype=np.int32), 2, pythondiv=False)
        array([-3,  3], dtype=int32)
        >>> eltwise.divide(np.array([-7, 7], dtype=np.int32), 2, dtype=np.float64)
        array([-3.5,  3.5])
        >>> eltwise.divide(np.array([1.0, -1.0, 0.0]), 0.0)
        array([ inf, -inf,  nan])
        >>> with np.errstate(divide="ignore"):
        ...     eltwise.divide(np.array([5, -5], dtype=np.int32), 0)
        array([0, 0], dtype=int32)
        >>> with np.errstate(divide="raise"):
        ...     eltwise.divide(np.array([5, -5], dtype=np.int32), 0)
        Traceback (most recent call last):
            ...
        FloatingPointError: divide by zero encountered in divide
        """,
)

_ARITH["floor_divide"] = _Op(
    summary="Divide the operands element-wise, rounding toward minus infinity.",
    semantics="""
        Computes ``x1 // x2``. For integers it is ``divide(x1, x2,
        pythondiv=True)``: the exact quotient rounded toward minus infinity.
        The most negative integer divided by -1 wraps around to itself
        (int8: -128 // -1 is -128), with no warning.

        For floats it is exactly ``numpy.floor_divide`` and Python's ``//``:
        the floor of the exact quotient of the two floats, which is why
        ``floor_divide(1.0, 0.1)`` is 9.0 (0.1 is slightly more than one
        tenth) where ``floor(1.0 / 0.1)`` would be 10.0. Float division by
        zero gives inf, -inf or nan (for 0 // 0), silently.
        """,
    what="The floored quotients",
    notes="""
        ``numpy.floor_divide`` warns on float division by zero and on
        ``MIN // -1``; eltwise does not.
        """,
    see_also="""
        divide : Integer division with a choice of rounding.
        mod : The remainder that goes with ``floor_divide``.
        elementwise : The same as ``elementwise(x1, x2, "FLOOR_DIV")``.
        numpy.floor_divide : NumPy's equivalent.
        """,
    examples="""
        >>> eltwise.floor_divide(np.array([-7, 7], dtype=np.int32), 2)
        array([-4,  3], dtype=int32)
        >>> eltwise.floor_divide(np.array([1.0, -7.5]), np.array([0.1, 2.0]))
        array([ 9., -4.])
        >>> eltwise.floor_divide(np.array([-128], dtype=np.int8), -1)
        array([-128], dtype=int8)
        """,
)

_ARITH["mod"] = _Op(
    summary="Remainder of floor division, element-wise, with the sign of the divisor.",
    semantics="""
        Computes Python's ``x1 % x2``, that is ``x1 - floor(x1 / x2) * x2``:
        the remainder that goes with ``floor_divide``, zero or of the sign of
        `x2`, so that ``floor_divide(x1, x2) * x2 + mod(x1, x2) == x1`` for
        integers. Integers are exact; the most negative integer modulo -1 is
        0. Floats are bit-exact with ``numpy.remainder`` (the result is exact,
        computed from ``fmod`` as Python does); float modulo by zero gives
        nan, silently.
        """,
    what="The remainders",
    notes="""
        ``numpy.remainder`` warns on float modulo by zero; eltwise does not.
        ONNX ``Mod`` with ``fmod=0`` is defined for integers only; here floats
        follow Python.
        """,
    see_also="""
        remainder : The same operation.
        fmod : The remainder with the sign of the dividend.
        floor_divide : The quotient that goes with ``mod``.
        numpy.remainder : NumPy's equivalent.
        """,
    examples="""
        >>> eltwise.mod(np.array([-7, 7], dtype=np.int32), 3)
        array([2, 1], dtype=int32)
        >>> eltwise.mod(np.array([-7, 7], dtype=np.int32), -3)
        array([-1, -2], dtype=int32)
        >>> eltwise.mod(np.array([-7.5, 7.5]), -2.0)
        array([-1.5, -0.5])
        """,
)

_ARITH["fmod"] = _Op(
    summary="Remainder of truncated division, element-wise, with the sign of the dividend.",
    semantics="""
        Computes C's ``fmod(x1, x2)`` (``%`` for C integers), that is
        ``x1 - trunc(x1 / x2) * x2``: the remainder that goes with
        ``divide(x1, x2, pythondiv=False)``, zero or of the sign of `x1`.
        Integers are exact; the most negative integer modulo -1 is 0. Floats
        are exactly ``numpy.fmod`` (the result is exact); float modulo by
        zero gives nan, silently.
        """,
    what="The remainders",
    notes="""
        ``numpy.fmod`` warns on float modulo by zero; eltwise does not.
        """,
    see_also="""
        mod : The remainder with the sign of the divisor.
        divide : With ``pythondiv=False``, the quotient that goes with ``fmod``.
        numpy.fmod : NumPy's equivalent.
        """,
    examples="""
        >>> eltwise.fmod(np.array([-7, 7], dtype=np.int32), 3)
        array([-1,  1], dtype=int32)
        >>> eltwise.fmod(np.array([-7.5, 7.5]), -2.0)
        array([-1.5,  1.5])
        """,
)

_ARITH["power"] = _Op(
    summary="Raise the first operand to the power of the second, element-wise.",
    semantics="""
        Computes ``x1 ** x2`` in the common dtype of base and exponent, as
        NumPy does (ONNX ``Pow`` would keep the base's type).

        Floats: within 1 ULP of ``numpy.power`` (float32, float16 and
        bfloat16: computed in float64 and rounded once; float64: a
        table-driven ``pow`` in double-double, at most 0.52 ULP from the exact
        result where measured), with C99's special cases exact: ``pow(x, 0) == 1`` for
        every x, NaN too, and ``pow(1, y) == 1`` for every y, NaN too. A
        negative base with a non-integer exponent gives nan, silently.
        A scalar exponent (a Python or NumPy scalar, a 0-d array, or one
        broadcast along the base) of 0, 0.5, 1, 2 or -1 gives the correctly
        rounded ``1``, ``sqrt(x)``, ``x``, ``x * x`` or ``1 / x`` (with
        pow's ``+0`` for ``-0 ** 0.5`` and ``+inf`` for ``-inf ** 0.5``, where
        NumPy's own scalar-0.5 shortcut gives ``-0.0`` and nan); other
        integers up to 16 in magnitude are computed by multiplication in extra
        precision, correctly rounded but for rare lanes next to a rounding
        midpoint. Those may differ in the last bit from the same exponent
        given as an array.

        Integers: exact, wrapping around on overflow (two's complement);
        ``0 ** 0 == 1``. A negative exponent with a signed integer dtype is a
        ``ValueError("Integers to negative integer powers are not
        allowed.")``, as in NumPy: use a float dtype for those.
        """,
    half=("float16, bfloat16 and ``ml_dtypes``' float8, float6 and float4 formats are "
          "computed in float32 and rounded once, to nearest even (those formats: within "
          "one code of ``ml_dtypes``)."),
    what="The powers",
    extra_value=" Also if a signed integer is raised to a negative power.",
    notes="""
        Float results may differ from ``numpy.power`` in the last bit (at most
        1 ULP); integer results are identical. NumPy warns on invalid results
        such as ``(-8.0) ** (1/3)``; eltwise gives nan silently.
        """,
    targets="""
        Float results are within 1 ULP on every SIMD target, not always the
        same bits: float64 results on SSE4, SSSE3 and the scalar target
        (without FMA) differ from those on AVX2 and AVX-512 (with FMA) in the
        last bit of 0.01-0.07% of elements (the same bits everywhere would
        cost 15% of the speed on AVX2);
        float32 results (and the narrower floats computed in float32) on
        AVX-512 come from its own form of the method and differ from AVX2's in
        the last bit of about 0.5% of elements; elsewhere they differ only
        where a float64 FMA and two roundings fall either side of a float32
        rounding boundary (rare: none in 10**6 random pairs). A scalar integer exponent other than 1, 2 and -1
        is multiplied out for float64 only with FMA (AVX2, AVX-512). Integer
        results are the same on every target. Results are the same for any
        number of threads and any memory layout.
        """,
    see_also="""
        multiply : The product of the operands.
        elementwise : The same as ``elementwise(x1, x2, "POW")``.
        numpy.power : NumPy's equivalent.
        """,
    examples="""
        >>> eltwise.power(np.array([2, 3, 0], dtype=np.int32), np.array([10, 3, 0], dtype=np.int32))
        array([1024,   27,    1], dtype=int32)
        >>> eltwise.power(np.array([2], dtype=np.int8), 7)
        array([-128], dtype=int8)
        >>> eltwise.power(np.array([np.nan, 1.0]), np.array([0.0, np.nan]))
        array([1., 1.])
        >>> eltwise.power(np.array([2], dtype=np.int32), -1)
        Traceback (most recent call last):
            ...
        ValueError: Integers to negative integer powers are not allowed.
        """,
)

_ARITH["squared_difference"] = _Op(
    summary="Square of the difference of the operands, element-wise.",
    semantics="""
        Computes ``(x1 - x2) ** 2`` in the result dtype. Integers wrap around
        on overflow (two's complement), in the difference and in the square,
        exactly as ``numpy.square(numpy.subtract(x1, x2))``; float32 and
        float64 are bit-exact with that expression too. Two bool operands are
        a TypeError.
        """,
    half=(
        "float16, bfloat16 and ``ml_dtypes``' float8, float6 and float4 formats "
        "round the difference to their own dtype, then square it in float32 and "
        "round again, to nearest even: bit-exact with "
        "``numpy.square(numpy.subtract(x1, x2))`` in float16 (``ml_dtypes`` for "
        "its dtypes)."
    ),
    what="The squared differences",
    see_also="""
        subtract : The difference of the operands.
        numpy.square : With ``numpy.subtract``, NumPy's equivalent.
        """,
    examples="""
        >>> eltwise.squared_difference(np.array([1, 5], dtype=np.int32), 3)
        array([4, 4], dtype=int32)
        >>> eltwise.squared_difference(np.array([1.0, 4.0]), np.array([3.0, 1.5]))
        array([4.  , 6.25])
        """,
)


def _extremum(name: str, word: str, other: str, out: str) -> _Op:
    """Computes the entry of maximum or minimum."""
    return _Op(
        summary=f"Element-wise {name} of the operands, propagating NaN.",
        semantics=f"""
            Returns the {word} of `x1` and `x2`. Where either is NaN the result
            is NaN. Where they compare equal but differ, that is ``-0.0``
            and ``0.0``, the first operand, `x1`, is returned. Integers are
            exact. On two bools the result is bool, as in NumPy.
            """,
        what=f"The {name}s",
        notes=f"""
            ``numpy.{name}`` propagates NaN the same way. For ``-0.0`` against
            ``0.0`` NumPy's choice depends on the dtype and the build (NumPy 2
            on x86-64 returns `x2` for float32 and float64 and `x1` for
            float16), so the sign of a zero result can differ from it. ONNX
            ``{_ROWS[name]["onnx"]}`` takes any number of inputs: reduce with this function
            for more than two.
            """,
        see_also=f"""
            {other} : The other extremum.
            numpy.{name} : NumPy's equivalent.
            numpy.f{name[:3]} : NumPy's {name} that ignores NaN.
            """,
        examples=f"""
            >>> eltwise.{name}(np.array([1, 5, 3], dtype=np.int16), np.array([4, 2, 3], dtype=np.int16))
            array({out}, dtype=int16)
            >>> eltwise.{name}(np.array([1.0, np.nan]), np.array([np.nan, 2.0]))
            array([nan, nan])
            """,
    )


_ARITH["maximum"] = _extremum("maximum", "larger", "minimum", "[4, 5, 3]")
_ARITH["minimum"] = _extremum("minimum", "smaller", "maximum", "[1, 2, 3]")


# The families: one table row each. Their examples' outputs are computed
# here with Python's operators, which have the same semantics on these values.

_OPERATORS = {
    "==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
    "<": operator.lt, "<=": operator.le,
    "AND": operator.and_, "OR": operator.or_, "XOR": operator.xor,
}


def _bools(fn: Callable[[Any, Any], bool], pairs: Iterable[tuple[Any, Any]]) -> str:
    """Computes the repr of a NumPy bool array of fn over pairs."""
    return "array([" + ", ".join(f"{fn(a, b)!s:>5}" for a, b in pairs) + "])"


# name: (symbol, OpenVINO, ONNX, TensorRT)
_COMPARISONS = {
    "equal": ("==",),
    "not_equal": ("!=",),
    "greater": (">",),
    "greater_equal": (">=",),
    "less": ("<",),
    "less_equal": ("<=",),
}


def _comparison(name: str, sym: str) -> _Op:
    """Computes the entry of one comparison."""
    fn = _OPERATORS[sym]
    nan = float("nan")
    others = "\n".join(
        f"{other} : ``x1 {row[0]} x2``." for other, row in _COMPARISONS.items() if other != name
    )
    return _Op(
        summary=f"Return the truth value of ``x1 {sym} x2``, element-wise.",
        semantics=f"""
            Compares `x1` and `x2` in their common dtype (``numpy.result_type``),
            or in `dtype` when it is given, and returns bool. Floats compare
            as IEEE 754 says: where either operand is NaN the result is
            {fn(nan, nan)}, and ``-0.0 == 0.0``.
            """,
        what=f"``x1 {sym} x2``",
        notes=f"""
            ``numpy.{name}`` gives the same results. Integers compare exactly,
            as NumPy 2 compares them: int64 against uint64 whatever their
            values, and an integer array against a Python int outside its
            dtype's range (every element then compares the same way).
            NumPy's ``dtype=`` rejects most values on comparisons; here `dtype`
            chooses the dtype the comparison is computed in, and the result is
            bool whatever it is.
            """,
        see_also=f"{others}\nnumpy.{name} : NumPy's equivalent.",
        examples=f"""
            >>> eltwise.{name}(np.array([1, 2, 3]), 2)
            {_bools(fn, [(1, 2), (2, 2), (3, 2)])}
            >>> eltwise.{name}(np.array([1.0, np.nan]), np.array([1.0, np.nan]))
            {_bools(fn, [(1.0, 1.0), (nan, nan)])}

            Computed in float32, the float64 0.1 becomes the float32 one:

            >>> eltwise.{name}(np.array([0.1]), np.float32(0.1), dtype=np.float32)
            {_bools(fn, [(0.1, 0.1)])}
            """,
    )


# name: (word, when it is true, OpenVINO, ONNX, TensorRT)
_LOGICAL = {
    "logical_and": ("AND", "both are true"),
    "logical_or": ("OR", "either is true"),
    "logical_xor": ("XOR", "exactly one is true"),
}


def _logical(name: str, word: str, when: str) -> _Op:
    """Computes the entry of one logical operation."""
    onnx, trt = _ROWS[name]["onnx"], _ROWS[name]["tensorrt"]
    fn = _OPERATORS[word]
    others = "\n".join(
        f"{other} : Truth value of `x1` {row[0]} `x2`." for other, row in _LOGICAL.items() if other != name
    )
    return _Op(
        summary=f"Compute the truth value of `x1` {word} `x2`, element-wise.",
        semantics=f"""
            True where {when}. Each operand counts as its truth value: nonzero
            is true, so NaN is true and ``-0.0`` is false. A Python scalar counts
            as its own truth, not as its value cast to the other operand's dtype
            (``1e-300`` is true beside float16, ``300`` beside int8); a Python int
            beyond int64 is an ``OverflowError``, as in NumPy. The result is bool
            for every supported dtype, as in NumPy.
            """,
        what=f"`x1` {word} `x2`",
        notes=f"""
            ``numpy.{name}`` gives the same results. ONNX ``{onnx}`` and
            TensorRT ``{trt}`` take bool operands only; eltwise takes any
            supported dtype.
            """,
        see_also=(
            f"{others}\nbitwise_{word.lower()} : Bit-wise {word} of integers.\n"
            f"numpy.{name} : NumPy's equivalent."
        ),
        examples=f"""
            >>> eltwise.{name}(np.array([0, 1, 2]), np.array([0.0, 0.0, 3.5]))
            {_bools(fn, [(False, False), (True, False), (True, True)])}
            >>> eltwise.{name}(np.array([True, False]), True)
            {_bools(fn, [(True, True), (False, True)])}
            """,
    )


# name: (word, symbol)
_BITWISE = {"bitwise_and": ("AND", "&"), "bitwise_or": ("OR", "|"), "bitwise_xor": ("XOR", "^")}


def _bitwise(name: str, word: str, sym: str) -> _Op:
    """Computes the entry of one bit-wise operation."""
    logical = f"logical_{word.lower()}"
    fn = _OPERATORS[word]
    return _Op(
        summary=f"Compute the bit-wise {word} of the operands, element-wise.",
        semantics=f"""
            Computes ``x1 {sym} x2`` on the bits of the operands in their common
            integer dtype, negative integers as two's complement. On two
            bools it is ``{logical}`` and the result stays bool, as in NumPy.
            """,
        what=f"``x1 {sym} x2``",
        see_also=f"""
            {logical} : Truth value of `x1` {word} `x2`.
            numpy.{name} : NumPy's equivalent.
            """,
        examples=f"""
            >>> eltwise.{name}(np.array([12, 10], dtype=np.uint8), 6)
            array([{fn(12, 6)}, {fn(10, 6)}], dtype=uint8)
            """,
    )


_ELEMENTWISE = '''\
Apply a binary operation named as TensorRT's ElementWise layer names it.

``elementwise(x1, x2, op, ...)`` is ``f(x1, x2, ...)`` for the function ``f``
that `op` names: TensorRT-style code can keep its operation names, and code
that picks an operation at run time needs no table of its own.

Parameters
----------
x1, x2 : array_like
    The operands, as for the function that `op` names.
op : Op or str
    The operation: an ``eltwise.Op`` member, or its name, case-insensitive,
    from TensorRT's list, or the name of any eltwise binary function
    (``"divide"``, ``"mod"``, ``"bitwise_and"``, ...). TensorRT's names mean:

{tensorrt}

    ``AND``, ``OR`` and ``XOR`` are the logical operations; the bit-wise ones
    go by their function names.
{out}
{broadcast}
{axis}
pythondiv : bool or None, optional
    Only with the division op (``DIV``, ``"divide"``): with any other op,
    ``FLOOR_DIV``, ``"mod"`` and ``"fmod"`` included (their names fix their
    rounding), passing it at all is a TypeError. None (the default) means the default
    of ``divide``, True: integers rounded toward minus infinity, as OpenVINO.
    Pass False for TensorRT's and ONNX's truncation toward zero.
dtype : dtype_like, optional
    As for the function that `op` names: the dtype to compute in and return,
    or, for comparisons and logical ops, the dtype to compute in (the result
    is bool).

Returns
-------
ndarray or NumPy scalar
    What the function that `op` names returns.

Raises
------
TypeError
    If `pythondiv` is given with an op other than ``DIV``, and whatever the
    function that `op` names raises.
ValueError
    If `op` is neither an ``Op`` member nor a name of one or of a function,
    and whatever the function that `op` names raises.
FloatingPointError
    As for ``divide``, ``floor_divide``, ``mod`` and ``fmod``.

See Also
--------
Op : The TensorRT operation names.
divide, add, equal : Some of the functions `op` can name.

Notes
-----
TensorRT's ElementWise layer broadcasts only between operands of the same
rank, and takes bool operands only for ``AND``, ``OR`` and ``XOR``; eltwise
applies its own broadcasting modes and dtypes, those of the function `op`
names. TensorRT's ``DIV`` truncates integer quotients; here ``DIV`` is
``divide``, which floors them unless ``pythondiv=False``.

Examples
--------
>>> import eltwise, numpy as np
>>> eltwise.elementwise(np.array([1, 2]), np.array([3, 4]), "sum")
array([4, 6])
>>> eltwise.elementwise(np.array([1, 5]), 3, eltwise.Op.GREATER)
array([False,  True])
>>> eltwise.elementwise(np.array([-7], dtype=np.int32), 2, eltwise.Op.DIV, pythondiv=False)
array([-3], dtype=int32)
>>> eltwise.elementwise(np.array([-7], dtype=np.int32), 2, "floor_divide")
array([-4], dtype=int32)
'''


def _tensorrt_table() -> str:
    """Computes the reST table of TensorRT's names and the functions they name,
    from the function table, indented for the `op` parameter."""
    pairs = [(f"``{r['tensorrt']}``", f"``{r['name']}``") for r in FUNCTION_TABLE if r["tensorrt"]]
    w0 = max(len("name"), *(len(a) for a, _ in pairs))
    w1 = max(len("function"), *(len(b) for _, b in pairs))
    rule = f"    {'=' * w0} {'=' * w1}"
    lines = [rule, f"    {'name':<{w0}} function", rule]
    lines += [f"    {a:<{w0}} {b}".rstrip() for a, b in pairs]
    return "\n".join([*lines, rule])


def _build() -> dict[str, str]:
    """Computes DOCS: every public binary function, then ``elementwise``."""
    ops = dict(_ARITH)
    ops.update({name: _comparison(name, *row) for name, row in _COMPARISONS.items()})
    ops.update({name: _logical(name, *row) for name, row in _LOGICAL.items()})
    ops.update({name: _bitwise(name, *row) for name, row in _BITWISE.items()})
    mod = _ARITH["mod"]
    ops["remainder"] = replace(
        mod,
        summary="Remainder of floor division (alias of ``mod``).",
        see_also=mod.see_also.replace("remainder : ", "mod : "),
        examples=mod.examples.replace("eltwise.mod(", "eltwise.remainder("),
    )
    docs = {row["name"]: _render(row, ops[row["name"]]) for row in FUNCTION_TABLE}
    docs["elementwise"] = _ELEMENTWISE.format(
        out=_OUT, broadcast=_BROADCAST, axis=_AXIS, tensorrt=_tensorrt_table()
    )
    return docs


DOCS: dict[str, str] = _build()
