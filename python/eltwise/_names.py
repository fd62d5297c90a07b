"""eltwise's binary functions and their ops' traits, read from the one table in C++
(src/core/ops.h for the ops, src/python/functions.h for the public names)."""

from . import _eltwise

FUNCTION_TABLE = _eltwise._function_table()
FUNCTION_NAMES = tuple(row["name"] for row in FUNCTION_TABLE)


def names_where(**traits):
    """The function names whose rows have every given trait, in table order:
    ``names_where(kind="comparison")``."""
    return [row["name"] for row in FUNCTION_TABLE
            if all(row[k] == v for k, v in traits.items())]
