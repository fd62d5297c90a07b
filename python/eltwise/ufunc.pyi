"""eltwise's functions as real ``numpy.ufunc`` objects: the ufunc twins.

Each twin runs eltwise's kernels inside NumPy's ufunc machinery (``reduce``,
``accumulate``, ``reduceat``, ``outer``, ``at``, ``where=``, ``__array_ufunc__``).
``remainder`` is ``mod``; ``divide_trunc`` is ``divide`` with ``pythondiv=False``.
"""

from numpy import ufunc

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
    "divide_trunc",
]

add: ufunc
subtract: ufunc
multiply: ufunc
divide: ufunc
floor_divide: ufunc
mod: ufunc
remainder: ufunc
fmod: ufunc
power: ufunc
maximum: ufunc
minimum: ufunc
squared_difference: ufunc
logical_and: ufunc
logical_or: ufunc
logical_xor: ufunc
bitwise_and: ufunc
bitwise_or: ufunc
bitwise_xor: ufunc
equal: ufunc
not_equal: ufunc
greater: ufunc
greater_equal: ufunc
less: ufunc
less_equal: ufunc
divide_trunc: ufunc
