"""eltwise's binary functions, their ops' traits and its dtypes, read from the
tables in C++ (src/core/ops.h for the ops, src/python/functions.h for the public
names and the engines' names, src/core/dtype.h for the dtypes)."""

from . import _eltwise

FUNCTION_TABLE = _eltwise._function_table()
FUNCTION_NAMES = tuple(row["name"] for row in FUNCTION_TABLE)
DTYPE_TABLE = _eltwise._dtype_table()
DTYPE_NAMES = tuple(row["name"] for row in DTYPE_TABLE)


def names_where(**traits):
    """The function names whose rows have every given trait, in table order:
    ``names_where(kind="comparison")``."""
    return [row["name"] for row in FUNCTION_TABLE
            if all(row[k] == v for k, v in traits.items())]

