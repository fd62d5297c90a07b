"""Delegation: a fast function called with an operand that is not a plain
ndarray, scalar or list (an ndarray subclass, or anything with its own
``__array_ufunc__``: dask, pandas, xarray, ...) calls its ufunc twin instead.

pdpd and none broadcasting are first turned into numpy broadcasting, with the
fast door's own shape rules and messages: ``x2`` is reshaped (through its own
``reshape``, so a dask array stays lazy) to put its dimensions at ``axis``.
Then the operand's ``__array_ufunc__`` decides the result: dask stays lazy,
masks combine as NumPy combines them, pandas aligns labels, xarray keeps
coordinates, subclasses survive.

A stand-in of ``eltwise.fuse`` (``eltwise._trace.Traced``) is no operand to delegate: a
call with one is recorded into its trace, with the keywords as given, before any of the
above.
"""

from __future__ import annotations

import numpy as np

from . import _eltwise, _trace
from . import ufunc as _ufunc


def _strip_leading_ones(shape):
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def _reshape(name, x, shape):
    """x with `shape`, through its own ``reshape`` (a dask array stays lazy).

    The reshaped shape is checked: ``np.matrix.reshape`` keeps two dimensions,
    which would broadcast x2 along other axes, so an ndarray subclass whose
    ``reshape`` gives another shape is reshaped as a plain ndarray instead
    (docs/semantics.md, "Delegation"). A duck array is never turned into an
    object ndarray: without a ``reshape`` of its own (or NumPy's
    ``__array_function__`` protocol, which ``numpy.reshape`` dispatches to), or
    with one that gives another shape, the call is a TypeError.
    """
    kind = type(x)
    reshape = getattr(x, "reshape", None)
    if callable(reshape):
        y = reshape(shape)
    elif hasattr(kind, "__array_function__") or not hasattr(kind, "__array_ufunc__"):
        y = np.reshape(x, shape)  # a list, a scalar, or a duck that takes numpy.reshape
    else:
        raise TypeError(
            f"eltwise.{name}: broadcast='pdpd' puts x2's dimensions at `axis` by reshaping it to "
            f"{shape}, and x2 ({kind.__module__}.{kind.__qualname__}) has no reshape method; "
            "give x2 a reshape method, or pass it as a NumPy array")
    if tuple(np.shape(y)) == shape:
        return y
    if isinstance(x, np.ndarray):
        return np.asarray(x).reshape(shape)
    raise TypeError(
        f"eltwise.{name}: broadcast='pdpd' reshapes x2 to {shape}, but x2.reshape "
        f"({kind.__module__}.{kind.__qualname__}) returned shape {tuple(np.shape(y))}")


def _in_dtype(name, i, x, dtype):
    """x converted to `dtype` (its own astype, so a dask array stays lazy), after the
    fast door's same_kind check; None when x has no dtype and astype (the twin's
    signature= then says the dtype instead, and NumPy checks the cast)."""
    if isinstance(x, (bool, int, float, list, tuple)):
        have, convert = np.asarray(x).dtype, lambda: np.asarray(x, dtype)
    elif getattr(x, "dtype", None) is not None and callable(getattr(x, "astype", None)):
        have, convert = np.dtype(x.dtype), lambda: x.astype(dtype)
    else:
        return None
    if not np.can_cast(have, dtype, "same_kind"):
        raise TypeError(f"Cannot cast ufunc '{name}' input {i} from {have!r} to {dtype!r} "
                        "with casting rule 'same_kind'")
    return convert()


def call(name, x1, x2, out, mode, axis, pythondiv, dtype):
    """Called by the C fast door; the arguments are already parsed and checked."""
    if isinstance(x1, _trace.Traced) or isinstance(x2, _trace.Traced):
        return _trace.record(name, x1, x2, out, mode, axis, pythondiv, dtype)  # eltwise.fuse
    twin = _ufunc.divide_trunc if name == "divide" and not pythondiv else _ufunc._twins[name]
    if mode != "numpy":
        shape2 = tuple(np.shape(x2))
        target = tuple(_eltwise._numpy_shape_for_x2(name, mode, tuple(np.shape(x1)), shape2, axis))
        # NumPy broadcasting reads missing leading dimensions as 1: x2 needs a
        # reshape only when the trailing ones that put it at `axis` are new.
        if _strip_leading_ones(target) != _strip_leading_ones(shape2):
            x2 = _reshape(name, x2, target)
    # where=True is NumPy's default, given explicitly: pandas hands a keyword-less
    # ufunc named like NumPy's to its own operator (eltwise.divide would become
    # true division there); dask and xarray pass it through.
    kwargs = {"where": True}
    if out is not None:
        kwargs["out"] = out
    if dtype is not None:
        # The fast door's dtype= is the dtype computed in (comparisons still give
        # bool): the operands are converted first, which every library does as
        # asked (dask's elemwise would cast a ufunc's dtype= result instead).
        y1, y2 = _in_dtype(name, 0, x1, dtype), _in_dtype(name, 1, x2, dtype)
        if y1 is None or y2 is None:
            kwargs["signature"] = (dtype, dtype, None)
        else:
            x1, x2 = y1, y2
    return twin(x1, x2, **kwargs)
