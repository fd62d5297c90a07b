"""eltwise's functions as real ``numpy.ufunc`` objects: the ufunc twins.

Each twin runs eltwise's kernels (every Highway target, eltwise's semantics:
integer ``divide`` floors, ``divide_trunc`` truncates, integer division by zero
gives 0 and is reported through ``numpy.errstate``, ``maximum``/``minimum``
ties as NumPy's), inside NumPy's own ufunc machinery, so ``reduce``,
``accumulate``, ``reduceat``, ``outer``, ``at``, ``where=``, ``casting=``,
``order=``, ``subok=`` and the ``__array_ufunc__`` protocol (dask, pandas,
xarray, masked arrays) all work. Broadcasting is NumPy's; the fast functions
``eltwise.add`` ... turn ``broadcast='pdpd'`` and ``'none'`` into it before they
call a twin for such operands.

Every twin pickles by name (``eltwise.ufunc.<name>``).
"""

from __future__ import annotations

from . import _eltwise
from ._names import FUNCTION_NAMES

_DOC = """\
eltwise.{name} as a numpy.ufunc: eltwise's kernels and semantics inside NumPy's
ufunc machinery (reduce, accumulate, outer, at, where=, __array_ufunc__).
{extra}See help(eltwise.{name}) for the semantics."""


def _make(name: str, twin_name: str, truncate: bool, extra: str = ""):
    return _eltwise._make_ufunc(name, twin_name, _DOC.format(name=name, extra=extra), truncate)


_twins = {name: _make(name, name, False) for name in FUNCTION_NAMES if name != "mod"}
_twins["mod"] = _twins["remainder"]  # one object named remainder, as numpy.mod is numpy.remainder
_twins["divide_trunc"] = _make(
    "divide", "divide_trunc", True,
    "Integer division truncates toward zero (eltwise.divide with pythondiv=False).\n")
globals().update(_twins)

__all__ = [*FUNCTION_NAMES, "divide_trunc"]
