"""NumPy's ufunc tests that fail on eltwise's twins by design, each once with its reason.

Each reason is a difference docs/semantics.md states ("Where eltwise differs
from NumPy") or a dtype eltwise does not compute in. ``substitute.py`` marks
every matching test ``xfail(strict=True)``: a listed test that passes fails the
run, so the list cannot outlive what it excuses.

A pattern is a regular expression searched in the test's node id, after the
file name (``::TestClass::test_name[params]``); it names the parameters that
fail where only some do. The list serves every NumPy version pyproject.toml
allows: each runs the test files it ships.
"""

from __future__ import annotations

import re

_DIFFERS = "docs/semantics.md, 'Where eltwise differs from NumPy': "

FP_FLAGS = _DIFFERS + "float results never set floating-point flags, so no warning or error"
MIN_BY_MINUS_ONE = _DIFFERS + "the most negative integer // -1 wraps silently (no overflow report)"
MODULE = _DIFFERS + "a twin's __module__ is 'eltwise.ufunc' (pickling finds it there)"
LOOPS = _DIFFERS + "a twin has loops for eltwise's dtypes only (fewer ntypes than NumPy's)"


def _dtype(name):
    return f"unsupported dtype: {name} (docs/semantics.md, 'Operands and dtypes')"


OBJECT, COMPLEX, LONGDOUBLE = _dtype("object"), _dtype("complex"), _dtype("longdouble")
STRING, DATETIME = _dtype("str/bytes/void"), _dtype("datetime64/timedelta64")

EXPECTED_FAILURES = [
    # Floating-point status.
    (r"::TestDivision::test_floor_division_errors\[", FP_FLAGS),
    (r"::TestRemainder::test_float_remainder_errors\[", FP_FLAGS),
    (r"::test_ufunc_methods_floaterrors\[(accumulate|reduce|reduceat)\]", FP_FLAGS),
    (r"::TestUfunc::test_sum$", FP_FLAGS),  # counts float16 sum overflow warnings
    # Integer overflow of floor division.
    (r"::TestDivision::test_division_int_reduce\[(int\d+|longlong)-", MIN_BY_MINUS_ONE),
    # MIN of the first dtype // -1 in a result dtype no wider than the first:
    (r"::TestDivisionIntegerOverflowsAndDivideByZero::test_overflows\[floor_divide-("
     r"int8-(int8|int16|int32|int64|longlong)|int16-(int16|int32|int64|longlong)|"
     r"int32-(int32|int64|longlong)|(int64|longlong)-(int64|longlong))\]", MIN_BY_MINUS_ONE),
    # The twins' identity as Python objects.
    (r"::TestSpecialMethods::test_ufunc_docstring$", MODULE),
    (r"::TestAttributes::test_attributes$", LOOPS),
    # Dtypes eltwise does not compute in.
    (r"::TestComparisons::test_comparison_functions\[.*-longdouble\]", LONGDOUBLE),
    (r"::Test(Maximum|Minimum)::test_precision$", LONGDOUBLE),
    (r"::TestComparisons::test_ignore_object_identity_in_(not_)?equal$", OBJECT),
    (r"::TestComparisons::test_object_dtype$", OBJECT),
    (r"::TestBitwiseUFuncs::test_(values|types|reduction)$", OBJECT),
    (r"::Test(Maximum|Minimum)::test_object_(array|nans)$", OBJECT),
    (r"::TestUfunc::test_object_(array_\w+|comparison|logical)$", OBJECT),
    (r"::TestUfunc::test_(cast_safety_scalar|logical_ufuncs_object_signatures)\[", OBJECT),
    (r"::TestUfunc::test_(initial_reduction|reduce_identity_depends_on_loop)$", OBJECT),
    (r"::TestUfunc::test_zerosize_reduction$", OBJECT),
    (r"::TestUfuncGenericLoops::test_binary_PyUFunc_(OO_O|OO_O_method|On_Om_method)$", OBJECT),
    (r"::test_ufunc_out_casterrors(\[|$)", OBJECT),
    (r"::Test(Maximum|Minimum)::test_(complex_nans|reduce_complex)$", COMPLEX),
    (r"::TestMinMax::test_reduce_reorder$", COMPLEX),
    (r"::TestPower::test_(power_zero|zero_power_nonzero)$", COMPLEX),
    (r"::TestUfunc::test_sum_complex$", COMPLEX),
    (r"::test_addition_string_types\[", STRING),
    (r"::TestUfunc::test_at_no_loop_for_op$", STRING),
    (r"::TestLowlevelAPIAccess::test_weird_dtypes$", STRING),
    (r"::TestUfunc::test_forced_dtype_times$", DATETIME),
    # Before NumPy 2.3 a second test of the same name hid this one (its timedelta part).
    (r"::TestUfunc::test_signature_dtype_instances_allowed\[", DATETIME, "2.3"),
]


def _version(text):
    return tuple(int(p) for p in re.findall(r"\d+", text)[:2])


def reason_for(nodeid, numpy_version):
    """The reason `nodeid` is expected to fail with this NumPy's tests, or None. An
    entry's optional third item is the first NumPy version whose test fails."""
    tail = nodeid[nodeid.find("::"):]
    for pattern, reason, *since in EXPECTED_FAILURES:
        if since and _version(numpy_version) < _version(since[0]):
            continue
        if re.search(pattern, tail):
            return reason
    return None
