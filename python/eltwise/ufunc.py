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


def _first_element_reduce(name: str) -> list[str]:
    """The ml_dtypes float dtypes on which NumPy's ufunc `name` starts a non-empty
    reduce from the first element instead of from its identity (ml_dtypes 0.7 makes
    some of them do so: ``numpy.add.reduce`` of ``float8_e8m0fnu``, which has no zero,
    gives the sum; of bfloat16 ``[-0.0]`` gives -0.0): the twin's reduce does the same
    (docs/semantics.md, "Reductions of the twins"). Probed, as the installed ml_dtypes
    behaves: a one-element reduce of v that gives v's bits where ``name(identity, v)``
    does not."""
    import numpy as np

    ref = getattr(np, name, None)
    if not isinstance(ref, np.ufunc) or ref.identity is None:
        return []
    found = []
    for row in _eltwise._dtype_table():
        if row["source"] != "ml_dtypes" or row["category"] != "float" or not row["available"]:
            continue
        dt = np.dtype(getattr(__import__("ml_dtypes"), row["name"]))
        bits = np.dtype(f"u{dt.itemsize}")
        for value in (-0.0, 2.0):
            v = np.array([value]).astype(dt)
            try:
                with np.errstate(all="ignore"):
                    reduced = np.asarray(ref.reduce(v))
                    from_identity = ref(np.array([ref.identity]).astype(dt), v)
            except TypeError:  # no loop for the dtype
                break
            if reduced.dtype != dt or from_identity.dtype != dt:
                break
            if reduced.reshape(1).view(bits)[0] == v.view(bits)[0] != from_identity.view(bits)[0]:
                found.append(row["name"])
                break
    return found


def _make(name: str, twin_name: str, truncate: bool, extra: str = ""):
    return _eltwise._make_ufunc(name, twin_name, _DOC.format(name=name, extra=extra), truncate,
                                _first_element_reduce(name))


_twins = {name: _make(name, name, False) for name in FUNCTION_NAMES if name != "mod"}
_twins["mod"] = _twins["remainder"]  # one object named remainder, as numpy.mod is numpy.remainder
_twins["divide_trunc"] = _make(
    "divide", "divide_trunc", True,
    "Integer division truncates toward zero (eltwise.divide with pythondiv=False).\n")
globals().update(_twins)

__all__ = [*FUNCTION_NAMES, "divide_trunc"]
