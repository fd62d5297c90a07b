"""Property tests (hypothesis): random ops, dtypes, broadcast shapes, strides (incl.
negative), values and targets, bit-exact against NumPy; pdpd against a reference."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import eltwise
from ew_helpers import (
    ALL_DTYPES, ALL_OPS, BF16, BOOL_RESULT_OPS, assert_same, expected_error, is_float,
    is_int, pdpd_view_shape, reference, result_dtype, ulp_for,
)

TARGETS = eltwise.get_targets()
SETTINGS = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


@st.composite
def values(draw, dtype, shape):
    """An array of `dtype` and `shape` with edge values likely (NaN, inf, MIN, MAX...)."""
    dtype = np.dtype(dtype)
    if dtype == BF16 or dtype == np.float16:
        bits = draw(hnp.arrays(np.uint16, shape, elements=st.one_of(
            st.integers(0, 2**16 - 1),
            st.sampled_from([0, 0x8000, 0x3C00 if dtype == np.float16 else 0x3F80,
                             0x7C00 if dtype == np.float16 else 0x7F80,
                             0xFC00 if dtype == np.float16 else 0xFF80, 0x0001, 0x8001]))))
        return bits.view(dtype)
    if dtype == np.bool_:
        return draw(hnp.arrays(np.bool_, shape))
    if is_int(dtype):
        ii = np.iinfo(dtype)
        elements = st.one_of(st.integers(int(ii.min), int(ii.max)),
                             st.integers(max(int(ii.min), -10), 10),
                             st.sampled_from([int(ii.min), int(ii.max), 0, 1]
                                             + ([-1] if dtype.kind == "i" else [])))
        return draw(hnp.arrays(dtype, shape, elements=elements))
    elements = st.one_of(
        st.floats(width=8 * dtype.itemsize, allow_nan=True, allow_infinity=True,
                  allow_subnormal=True),
        st.floats(-100, 100, width=8 * dtype.itemsize),
        st.integers(-20, 20).map(float),
    )
    return draw(hnp.arrays(dtype, shape, elements=elements))


@st.composite
def layout(draw, x):
    """The same values as x, in a view with random (possibly negative) strides."""
    if x.ndim == 0:
        kind = draw(st.sampled_from(["as-is", "scalar"]))
        return x[()] if kind == "scalar" else x
    kind = draw(st.sampled_from(["as-is", "strided", "transposed"]))
    if kind == "as-is":
        return x
    if kind == "transposed":
        return np.ascontiguousarray(x.T).T
    steps = draw(st.lists(st.sampled_from([1, 2, -1, -2, 3]), min_size=x.ndim,
                          max_size=x.ndim))
    buf = np.zeros(tuple(max(1, n * abs(s)) for n, s in zip(x.shape, steps)), x.dtype)
    sl = tuple(slice(None, None, s) if s > 0 else slice(None, None, s) for s in steps)
    view = buf[sl]
    view = view[tuple(slice(0, n) for n in x.shape)]
    view[...] = x
    assert view.shape == x.shape
    return view


def _fix_power_exponent(name, x1, x2):
    """Integer power needs non-negative exponents."""
    if name == "power":
        rt = result_dtype(x1, x2)
        if is_int(rt):
            b = np.asarray(x2)
            nb = (b.astype(np.int64) % 40).astype(b.dtype)
            x2 = nb if isinstance(x2, np.ndarray) else nb[()]
    return x2


@settings(max_examples=100, **SETTINGS)
@given(data=st.data(), name=st.sampled_from(ALL_OPS), dt1=st.sampled_from(ALL_DTYPES),
       same=st.booleans(), target=st.sampled_from(TARGETS),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4,
                                                max_side=5))
def test_matches_numpy(data, name, dt1, same, target, shapes):
    dt2 = dt1 if same else data.draw(st.sampled_from(ALL_DTYPES))
    s1, s2 = shapes.input_shapes
    x1 = data.draw(layout(data.draw(values(dt1, s1))))
    x2 = data.draw(layout(data.draw(values(dt2, s2))))
    x2 = _fix_power_exponent(name, x1, x2) if _promotable(dt1, dt2) else x2
    eltwise.set_target(target)
    try:
        if not _promotable(dt1, dt2):
            with pytest.raises(TypeError):
                getattr(eltwise, name)(x1, x2)
            return
        rt = result_dtype(x1, x2)
        err = expected_error(name, rt)
        if err:
            with pytest.raises(err):
                getattr(eltwise, name)(x1, x2)
            return
        with np.errstate(divide="ignore"):
            got = getattr(eltwise, name)(x1, x2)
        exp = reference(name, x1, x2)
        assert_same(got, exp, ulp=ulp_for(name, rt), inputs=(x1, x2))
    finally:
        eltwise.set_target(None)


def _promotable(d1, d2):
    try:
        np.result_type(d1, d2)
        return True
    except TypeError:
        return False


@settings(max_examples=60, **SETTINGS)
@given(data=st.data(), name=st.sampled_from(ALL_OPS), dt=st.sampled_from(ALL_DTYPES),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                max_side=6),
       out_dt=st.sampled_from(ALL_DTYPES))
def test_out_matches_no_out(data, name, dt, shapes, out_dt):
    s1, s2 = shapes.input_shapes
    x1 = data.draw(values(dt, s1))
    x2 = _fix_power_exponent(name, x1, data.draw(values(dt, s2)))
    assume(expected_error(name, dt) is None)
    with np.errstate(divide="ignore"):
        res = getattr(eltwise, name)(x1, x2)
    res_dt = np.asarray(res).dtype
    if not np.can_cast(res_dt, out_dt, "same_kind"):
        out = np.ones(shapes.result_shape, out_dt)
        with pytest.raises(TypeError):
            getattr(eltwise, name)(x1, x2, out=out)
        assert (np.asarray(out).astype(np.float64) == 1).all()
        return
    out = data.draw(layout(np.zeros(shapes.result_shape, out_dt)))
    if not isinstance(out, np.ndarray):
        out = np.zeros((), out_dt)
    with np.errstate(all="ignore"):  # (casting into out may overflow, as in NumPy)
        got = getattr(eltwise, name)(x1, x2, out=out)
    assert got is out
    with np.errstate(all="ignore"):
        exp = np.asarray(res).astype(out_dt)
    assert_same(np.array(out), exp, contiguous=False)


# --- pdpd ---------------------------------------------------------------------


def pdpd_shape(s1, s2, axis):
    """The shape x2 is viewed as, or None where the pdpd rules reject the pair."""
    view = pdpd_view_shape(s1, s2, axis)
    return view if isinstance(view, tuple) else None


@st.composite
def pdpd_case(draw):
    s1 = tuple(draw(st.lists(st.integers(1, 5), min_size=0, max_size=5)))
    valid = draw(st.booleans())
    if valid and s1:
        start = draw(st.integers(0, len(s1)))
        stop = draw(st.integers(start, len(s1)))
        t = [d if draw(st.booleans()) else 1 for d in s1[start:stop]]
        t += [1] * draw(st.integers(0, len(s1) - stop))
        s2 = tuple(t)
        axis = draw(st.sampled_from([start, -1]))
    else:
        s2 = tuple(draw(st.lists(st.integers(1, 5), min_size=0, max_size=5)))
        axis = draw(st.integers(-3, 6))
    return s1, s2, axis


@settings(max_examples=100, **SETTINGS)
@given(case=pdpd_case(), name=st.sampled_from(["add", "subtract", "maximum", "less", "divide"]))
def test_pdpd_matches_reference(case, name):
    s1, s2, axis = case
    rng = np.random.default_rng(0)
    x1 = rng.standard_normal(s1).astype(np.float32)
    x2 = (rng.standard_normal(s2) + 5).astype(np.float32)
    view = pdpd_shape(s1, s2, axis)
    if view is None:
        with pytest.raises(ValueError):
            getattr(eltwise, name)(x1, x2, broadcast="pdpd", axis=axis)
        return
    got = getattr(eltwise, name)(x1, x2, broadcast="pdpd", axis=axis)
    assert np.shape(got) == s1
    assert_same(got, reference(name, x1, x2.reshape(view)))


@settings(max_examples=60, **SETTINGS)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4,
                                                max_side=4),
       mode=st.sampled_from(["none", "numpy"]))
def test_broadcast_modes_shapes(shapes, mode):
    s1, s2 = shapes.input_shapes
    x1, x2 = np.ones(s1, np.int32), np.ones(s2, np.int32)
    if mode == "none" and s1 != s2:
        with pytest.raises(ValueError):
            eltwise.add(x1, x2, broadcast=mode)
        return
    got = eltwise.add(x1, x2, broadcast=mode)
    assert np.shape(got) == shapes.result_shape
    assert_same(got, reference("add", x1, x2))


@settings(max_examples=60, **SETTINGS)
@given(data=st.data(), dt=st.sampled_from([d for d in ALL_DTYPES if is_int(d)]),
       n=st.integers(1, 300), target=st.sampled_from(TARGETS))
def test_integer_division_identities(data, dt, n, target):
    """floor: a == (a // b) * b + a % b; trunc: a == q * b + fmod(a, b) (b != 0)."""
    a = data.draw(values(dt, (n,)))
    b = data.draw(values(dt, (n,)))
    b[b == 0] = 1
    eltwise.set_target(target)
    try:
        qf = eltwise.divide(a, b)
        qt = eltwise.divide(a, b, pythondiv=False)
        r = eltwise.mod(a, b)
        f = eltwise.fmod(a, b)
    finally:
        eltwise.set_target(None)
    with np.errstate(all="ignore"):
        assert_same(qf * b + r, a)
        assert_same(qt * b + f, a)
    assert_same(qf, reference("divide", a, b))
    assert_same(qt, reference("divide", a, b, pythondiv=False))
