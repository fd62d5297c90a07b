"""Regression tests for inputs that crashed, hung or misled eltwise 0.1.0 (the
reliability issue): each test fails on 0.1.0 and passes now."""

import subprocess
import sys

import numpy as np
import pytest

import eltwise
from ew_helpers import INT_DTYPES, assert_same

HUGE_AXES = [2**63 - 1, 2**63 - 2, 2**62, 2**32, 2**31, 2**31 - 1, 64, 65, -2, -(2**63)]


def run_python(code: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs code in a fresh interpreter: a crash there is a failed test, not a dead suite."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=timeout)


# 1. pdpd axis near 2**63: the bound check overflowed and the shape was read out of bounds.

def test_pdpd_axis_near_int64_max_is_value_error():
    x1 = np.zeros((2, 3, 4))
    x2 = np.array([[100.0, 200.0, 300.0]])
    with pytest.raises(ValueError, match=r"axis=9223372036854775806"):
        eltwise.add(x1, x2, broadcast="pdpd", axis=2**63 - 2)


@pytest.mark.parametrize("axis", HUGE_AXES)
@pytest.mark.parametrize("x2_shape", [(3,), (3, 1), (1,), (), (2, 3, 4)])
def test_pdpd_axis_out_of_range(axis, x2_shape):
    x1 = np.zeros((2, 3, 4))
    x2 = np.ones(x2_shape)
    fits = 0 <= axis <= 3 - len([d for d in x2_shape])  # never, for these axes
    assert not fits or axis < 64
    with pytest.raises(ValueError):
        eltwise.add(x1, x2, broadcast="pdpd", axis=axis)


@pytest.mark.parametrize("axis", [2**63, 2**70, -(2**63) - 1, -(2**100)])
def test_axis_beyond_int64_is_value_error(axis):
    with pytest.raises(ValueError, match="axis"):
        eltwise.add(np.zeros((2, 3)), np.ones(3), broadcast="pdpd", axis=axis)


def test_pdpd_axis_at_every_rank_boundary():
    """The largest valid axis works; one more fails (no off-by-one in the overflow-safe check)."""
    x1 = np.arange(24.0).reshape(2, 3, 4)
    got = eltwise.add(x1, np.ones(4), broadcast="pdpd", axis=2)
    assert_same(got, x1 + 1)
    with pytest.raises(ValueError):
        eltwise.add(x1, np.ones(4), broadcast="pdpd", axis=3)


def test_broadcast_result_too_large_is_value_error():
    a = np.broadcast_to(np.zeros(1), (2**40, 1))
    b = np.broadcast_to(np.zeros(1), (1, 2**40))
    with pytest.raises(ValueError):
        eltwise.add(a, b)


# 2. A broadcast string that cannot be encoded aborted the interpreter.

@pytest.mark.parametrize("mode", ["\ud800", "numpy\ud800", "\udcff\x00", "n\u00fcmpy", "NUMPY" * 9])
def test_unencodable_or_unknown_broadcast_is_value_error(mode):
    r = run_python(
        "import eltwise\n"
        "try:\n"
        f"    eltwise.add(1, 2, broadcast={mode!r})\n"
        "except ValueError as e:\n"
        "    print('ValueError', e)\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ValueError eltwise.add: broadcast must be"), r.stdout


def test_set_target_with_unencodable_name_is_value_error():
    with pytest.raises(ValueError, match="unknown or unsupported target"):
        eltwise.set_target("\ud800")
    with pytest.raises(ValueError):
        eltwise.set_target("AVX2\x00junk")


# 4. show_config shifted a negative int64 (UB); the sanitizer pass runs this too.

def test_config_lists_every_runnable_target():
    text = eltwise._eltwise.config_text()
    compiled = next(line for line in text.splitlines() if "compiled targets" in line)
    for name in eltwise.get_targets():
        assert name in compiled


# 5. Keyword names and values compared with strcmp: an embedded NUL matched.

def test_keyword_name_with_embedded_nul_is_unknown():
    out = np.zeros(3)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        eltwise.add(np.ones(3), 1.0, **{"out\x00junk": out})
    assert not out.any()


@pytest.mark.parametrize("key", ["\ud800", "broadcast\x00", "Out", "axis ", "dtype\x00x"])
def test_odd_keyword_names_are_type_errors(key):
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        eltwise.divide(np.ones(3), 2.0, **{key: None})


def test_pythondiv_is_unknown_to_other_functions():
    with pytest.raises(TypeError, match="unexpected keyword argument 'pythondiv'"):
        eltwise.floor_divide(7, 2, pythondiv=False)


@pytest.mark.parametrize("mode", ["numpy\x00garbage", "pdpd\x00", "none\x00none"])
def test_broadcast_with_embedded_nul_is_value_error(mode):
    with pytest.raises(ValueError, match="broadcast must be"):
        eltwise.add(np.ones(3), 1.0, broadcast=mode)


def test_broadcast_any_case_and_enum():
    for mode in ["NUMPY", "Numpy", "pdPD", "None", "EXPLICIT", eltwise.Broadcast.PDPD, None]:
        assert_same(eltwise.add(np.ones(3), np.ones(3), broadcast=mode), np.full(3, 2.0))


# 6. axis takes anything with __index__; pythondiv must be a bool.

class Index:
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


@pytest.mark.parametrize("axis", [np.int64(1), np.int32(1), np.uint8(1), Index(1)])
def test_axis_accepts_index(axis):
    x1 = np.arange(24.0).reshape(2, 3, 4)
    x2 = np.array([10.0, 20.0, 30.0])
    got = eltwise.add(x1, x2, broadcast="pdpd", axis=axis)
    assert_same(got, x1 + x2[:, None])


@pytest.mark.parametrize("axis", [True, False, np.True_, 1.0, "1", None, np.float64(1)])
def test_axis_refuses_non_integers(axis):
    with pytest.raises(TypeError, match="axis must be an integer"):
        eltwise.add(np.zeros((2, 3)), np.ones(3), broadcast="pdpd", axis=axis)


@pytest.mark.parametrize("value", ["False", "True", 0, 1, 0.0, [], np.int64(0)])
def test_pythondiv_must_be_bool(value):
    with pytest.raises(TypeError, match="pythondiv must be a bool"):
        eltwise.divide(np.array([-7]), np.array([2]), pythondiv=value)


@pytest.mark.parametrize("value,expected", [(True, -4), (False, -3), (np.True_, -4),
                                            (np.False_, -3), (None, -4)])
def test_pythondiv_bools(value, expected):
    assert eltwise.divide(np.array([-7]), np.array([2]), pythondiv=value).tolist() == [expected]


# 7. elementwise: pythondiv belongs to DIV/divide alone.

@pytest.mark.parametrize("op", ["FLOOR_DIV", "mod", "fmod", eltwise.Op.SUM, "remainder"])
@pytest.mark.parametrize("value", [True, False])
def test_elementwise_pythondiv_only_for_divide(op, value):
    with pytest.raises(TypeError, match="pythondiv applies only to"):
        eltwise.elementwise(np.array([-7]), np.array([2]), op, pythondiv=value)


@pytest.mark.parametrize("op", ["DIV", "div", "divide", eltwise.Op.DIV])
def test_elementwise_pythondiv_for_divide(op):
    a, b = np.array([-7, 7]), np.array([2, -2])
    assert eltwise.elementwise(a, b, op, pythondiv=False).tolist() == [-3, -3]
    assert eltwise.elementwise(a, b, op, pythondiv=True).tolist() == [-4, -4]
    assert eltwise.elementwise(a, b, op).tolist() == [-4, -4]


# 9. Integer operands promoted to float64 (signed with uint64) still divide as integers.

@pytest.mark.parametrize("signed", INT_DTYPES, ids=str)
def test_signed_with_uint64_divide_floors_or_truncates(signed):
    a = np.array([-7, 7, -8, 0, -1], signed)
    b = np.array([2, 2, 2, 3, 5], np.uint64)
    floor = eltwise.divide(a, b)
    assert floor.dtype == np.float64
    assert floor.tolist() == [-4.0, 3.0, -4.0, 0.0, -1.0]
    assert_same(floor, np.floor_divide(a, b))
    trunc = eltwise.divide(a, b, pythondiv=False)
    assert trunc.dtype == np.float64
    assert trunc.tolist() == [-3.0, 3.0, -4.0, 0.0, -0.0]
    assert np.signbit(trunc).tolist() == [True, False, True, False, True]
    # uint64 first (a holds a zero: float division by zero, silent in eltwise)
    with np.errstate(divide="ignore"):
        assert_same(eltwise.divide(b, a), np.floor_divide(b, a))


def test_int64_uint64_divide_matches_exact_integers_below_2_53(rng):
    a = rng.integers(-(2**53), 2**53, 5000, dtype=np.int64)
    b = rng.integers(1, 2**20, 5000, dtype=np.uint64)
    b[:50] = rng.integers(1, 2**53, 50, dtype=np.uint64)
    floor = eltwise.divide(a, b)
    trunc = eltwise.divide(a, b, pythondiv=False)
    ai, bi = a.tolist(), b.tolist()
    assert floor.tolist() == [float(x // y) for x, y in zip(ai, bi)]
    exact_trunc = [float(abs(x) // y) * (-1 if x < 0 else 1) for x, y in zip(ai, bi)]
    assert trunc.tolist() == exact_trunc
    assert_same(floor, np.floor_divide(a, b))


def test_int64_uint64_divide_by_zero_and_dtype_forced():
    a = np.array([-7, 7, 0], np.int64)
    b = np.array([0, 0, 0], np.uint64)
    with np.errstate(all="ignore"):
        assert_same(eltwise.divide(a, b), np.floor_divide(a, b))
        assert_same(eltwise.divide(a, b, pythondiv=False), np.floor_divide(a, b))
    # dtype= asks for a float computation: true division, as numpy.divide(dtype=...)
    got = eltwise.divide(np.array([-7], np.int64), np.array([2], np.uint64), dtype=np.float64)
    assert got.tolist() == [-3.5]


# Errors leave out untouched; set_num_threads is bounded.

def test_cast_error_into_out_leaves_out_untouched():
    out = np.full(3, 7.0, np.float16)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            eltwise.add(np.array([1e300, 1.0, 2.0]), 1.0, out=out)
    assert out.tolist() == [7.0, 7.0, 7.0]


def test_divide_by_zero_raise_leaves_out_untouched():
    out = np.full(4, 9, np.int32)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="divide by zero encountered in divide"):
            eltwise.divide(np.arange(4, dtype=np.int32), np.array([1, 0, 1, 1], np.int32), out=out)
    assert out.tolist() == [9, 9, 9, 9]


@pytest.mark.parametrize("n", [0, -1, 1025, 10**6, 2**63, 2**70])
def test_set_num_threads_bounds(n):
    with pytest.raises(ValueError, match="between 1 and 1024"):
        eltwise.set_num_threads(n)


@pytest.mark.parametrize("n", [True, 2.0, "2", None])
def test_set_num_threads_type(n):
    with pytest.raises(TypeError):
        eltwise.set_num_threads(n)


def test_set_num_threads_index():
    eltwise.set_num_threads(np.int64(2))
    assert eltwise.get_num_threads() == 2


# Results take NumPy's order='K' layout (docs/semantics.md: "Operands and dtypes").

def _layouts():
    c = np.arange(24.0).reshape(2, 3, 4)
    f = np.asfortranarray(c)
    p = c.transpose(2, 0, 1)
    yield "fortran", f, f
    yield "fortran-scalar", f, 2.0
    yield "fortran-row", f[:, :, 0], np.ones(3)
    yield "transposed", c.T, c.T
    yield "permuted", p, np.ascontiguousarray(p) * 0 + p
    yield "permuted-scalar", p, 1.5
    yield "mixed-c-wins", c, f
    yield "negative-strides", f[::-1, ::-1], 1.0
    yield "cast-fortran", np.asfortranarray(c.astype(np.float32)), np.ones(4, np.float64)
    yield "broadcast-view", np.broadcast_to(f[:, :, :1], (2, 3, 4)), f


@pytest.mark.parametrize("label,x1,x2", list(_layouts()), ids=[c[0] for c in _layouts()])
def test_result_layout_is_numpy_keep_order(label, x1, x2):
    for name, ref in (("add", np.add), ("less", np.less), ("multiply", np.multiply)):
        got = getattr(eltwise, name)(x1, x2)
        want = ref(x1, x2)
        assert got.strides == want.strides, (label, name, got.strides, want.strides)
        assert_same(got, want)
