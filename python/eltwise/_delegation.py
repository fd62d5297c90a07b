"""Delegation: a fast function called with an operand that is not a plain
ndarray, scalar or list (an ndarray subclass, or anything with its own
``__array_ufunc__``: dask, pandas, xarray, ...) calls its ufunc twin instead.

pdpd and none broadcasting are first turned into numpy broadcasting, with the
fast door's own shape rules and messages: ``x2`` is reshaped (through its own
``reshape``, so a dask array stays lazy) to put its dimensions at ``axis``.
Then the operand's ``__array_ufunc__`` decides the result: dask stays lazy,
masks combine as NumPy combines them, pandas aligns labels, xarray keeps
coordinates, subclasses survive.
"""

from __future__ import annotations

import numpy as np

from . import _eltwise
from . import ufunc as _ufunc


def _reshape(x, shape):
    reshape = getattr(x, "reshape", None)
    return reshape(shape) if callable(reshape) else np.reshape(x, shape)


def call(name, x1, x2, out, mode, axis, pythondiv, dtype):
    """Called by the C fast door; the arguments are already parsed and checked."""
    twin = _ufunc.divide_trunc if name == "divide" and not pythondiv else _ufunc._twins[name]
    if mode != "numpy":
        shape2 = tuple(np.shape(x2))
        target = tuple(_eltwise._numpy_shape_for_x2(name, mode, tuple(np.shape(x1)), shape2, axis))
        if target != shape2:
            x2 = _reshape(x2, target)
    # where=True is NumPy's default, given explicitly: pandas hands a keyword-less
    # ufunc named like NumPy's to its own operator (eltwise.divide would become
    # true division there); dask and xarray pass it through.
    kwargs = {"where": True}
    if out is not None:
        kwargs["out"] = out
    if dtype is not None:
        # The fast door's dtype= is the dtype computed in (comparisons still give
        # bool); a ufunc's signature= says exactly that, for bfloat16 too.
        kwargs["signature"] = (dtype, dtype, None)
    return twin(x1, x2, **kwargs)
