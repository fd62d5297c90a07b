"""The one function table (src/core/ops.h, src/python/functions.h), read from Python,
checked against NumPy's own ufuncs where they share a name, and against what the
functions do: the tests' op lists derive from it, so it must be right on its own."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import eltwise
from eltwise._names import FUNCTION_NAMES, FUNCTION_TABLE
from ew_helpers import NUMPY_UFUNC

ROWS = {row["name"]: row for row in FUNCTION_TABLE}
NUMPY_IDENTITY = {"none": None, "reorderable_none": None, "zero": 0, "one": 1, "minus_one": -1}


def test_table_names_are_the_public_functions():
    assert len(set(FUNCTION_NAMES)) == len(FUNCTION_NAMES) == 24
    assert set(FUNCTION_NAMES) <= set(eltwise.__all__)
    assert ROWS["mod"]["op"] == ROWS["remainder"]["op"] == "Mod"
    assert [n for n in FUNCTION_NAMES if ROWS[n]["pythondiv"]] == ["divide"]


@pytest.mark.parametrize("name", sorted(NUMPY_UFUNC))
def test_rows_agree_with_numpy(name):
    row, nu = ROWS[name], NUMPY_UFUNC[name]
    a = np.array([3, 0, -2, 7], np.int16)
    b = np.array([2, 0, 5, 3], np.int16)  # no negative: NumPy refuses int ** -n
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        want = nu(a, b)
    assert row["bool_result"] == (want.dtype == bool)
    assert row["divides_integers"] == any("divide by zero" in str(x.message) for x in w)
    assert NUMPY_IDENTITY[row["identity"]] == nu.identity
    assert (row["accepts"] == "integers_bool") == _refuses(nu, np.float64)


def _refuses(nu, dtype):
    try:
        nu(np.ones(2, dtype), np.ones(2, dtype))
    except TypeError:
        return True
    return False


@pytest.mark.parametrize("name", FUNCTION_NAMES)
def test_rows_agree_with_the_functions(name):
    row, fn = ROWS[name], getattr(eltwise, name)
    bools = np.array([True, False])
    if row["accepts"] == "numeric":
        with pytest.raises(TypeError):
            fn(bools, bools)
    else:
        assert fn(bools, bools).dtype == bool
    r = fn(np.array([3, 4], np.int8), np.array([1, 2], np.int8))
    assert (r.dtype == bool) == row["bool_result"]
    assert getattr(eltwise.ufunc, name).identity == NUMPY_IDENTITY[row["identity"]]


# --- The dtype table (src/core/dtype.h) -----------------------------------------

from eltwise._names import DTYPE_TABLE  # noqa: E402
from ew_helpers import ALL_DTYPES, CODED_DTYPES  # noqa: E402

NUMPY_KIND = {"bool": "b", "signed": "i", "unsigned": "u", "float": "f"}


@pytest.mark.parametrize("row", DTYPE_TABLE, ids=[r["name"] for r in DTYPE_TABLE])
def test_dtype_rows_agree_with_numpy(row):
    import ml_dtypes
    module = {"numpy": np, "ml_dtypes": ml_dtypes}[row["source"]]
    dt = np.dtype(getattr(module, row["name"]) if row["source"] == "ml_dtypes" else row["name"])
    assert row["available"]
    assert dt.itemsize == row["itemsize"]
    if row["source"] == "numpy":
        assert dt.kind == NUMPY_KIND[row["category"]]
    else:  # ml_dtypes' types are NumPy user dtypes (kind 'V' or 'f'); their finfo/iinfo tells
        info = ml_dtypes.finfo(dt) if row["category"] == "float" else ml_dtypes.iinfo(dt)
        assert info.bits == (row["code_bits"] or 8 * row["itemsize"])
        if row["code_bits"] and row["category"] == "float":
            assert (info.nexp, info.nmant) == (row["exp_bits"], row["mant_bits"])
            # The smallest normal is 2^(1 - bias); float8_e8m0fnu has no zero
            # nor subnormals, and its code 0 is 2^-bias.
            assert info.smallest_normal == 2.0 ** (
                -row["bias"] if row["name"] == "float8_e8m0fnu" else 1 - row["bias"])
    one = np.ones(3, dt)
    assert eltwise.add(one, one).dtype == (dt if row["category"] != "bool" else np.dtype(bool))
    assert eltwise.equal(one, one).dtype == bool


def test_dtype_table_is_every_dtype_eltwise_takes():
    """Every builtin NumPy dtype outside the table is a TypeError; every one inside
    computes (aliases such as longlong map to their row by kind and size)."""
    taken = set(ALL_DTYPES)
    assert len(taken) + len(CODED_DTYPES) == len(DTYPE_TABLE)
    for code in np.typecodes["All"]:
        dt = np.dtype(code)
        if dt.kind in "OSUVMm":  # need a length or a unit; the object kind below
            continue
        x = np.zeros(2, dt)
        if dt in taken:
            assert eltwise.equal(x, x).all()
        else:
            with pytest.raises(TypeError, match="does not support dtype"):
                eltwise.equal(x, x)
    with pytest.raises(TypeError, match="does not support dtype"):
        eltwise.add(np.zeros(2, object), np.zeros(2, object))
