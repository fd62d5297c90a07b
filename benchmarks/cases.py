"""What is measured: ops, dtypes, shapes, operands, and the NumPy reference for each cell.

A *cell* is one (op, dtype, shape) combination. Every library in a cell computes the same
thing on the same operands; the NumPy reference (``ml_dtypes`` arithmetic for bfloat16 and
the low-precision dtypes) decides whether eltwise's result is right.

Two sections: "main" (every op, dtype and shape below) and "lowp" (ml_dtypes' 8- and 4-bit
dtypes on one size, with eltwise's float16 add as the reference of a goal).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

try:
    import ml_dtypes
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover - ml_dtypes is a dependency of eltwise
    ml_dtypes = bfloat16 = None

# ---------------------------------------------------------------------------- dtypes

DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "int32", "int64", "uint8",
               "uint64"]

# 64-bit integer division is measured on three operand kinds (each its own row): values
# over the full range, and values below 2^53 (|x| <= 1e12) with small divisors, where a
# kernel may divide in float64 exactly.
WIDE_INT_DTYPES = ("int64", "uint64")
SMALL_VALUE_MAX = 10**12


# The low-precision section: ml_dtypes' 8- and 4-bit dtypes (one byte per element; NumPy's
# ufuncs on them are ml_dtypes', one element at a time), LOWP_OP_NAMES on same-shape
# contiguous operands of one size. LOWP_REFERENCE (op, dtype) is timed in the same section:
# the goal "float8 add no slower than eltwise's float16 add" compares with it.
LOWP_DTYPE_NAMES = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4"]
LOWP_OP_NAMES = ("divide", "multiply", "add")
LOWP_REFERENCE = ("add", "float16")
LOWP_SIZE, LOWP_QUICK_SIZE = 10**6, 1000
# ml_dtypes' types the suite measures, by kind (NumPy calls them all kind "V" but
# float8_e5m2, "f").
ML_FLOAT_NAMES = ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn")
ML_INT_NAMES = ("int4",)


def dtype_of(name: str) -> np.dtype:
    """Returns the NumPy dtype for a name of DTYPE_NAMES or LOWP_DTYPE_NAMES."""
    if name in ML_FLOAT_NAMES or name in ML_INT_NAMES:
        if ml_dtypes is None:
            raise ValueError(f"{name} needs ml_dtypes")
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def is_int(dt: np.dtype) -> bool:
    """True for NumPy's integers and ml_dtypes' int4."""
    return dt.kind in "iu" or dt.name in ML_INT_NAMES


def is_float(dt: np.dtype) -> bool:
    """True for float16/32/64 and ml_dtypes' floats (bfloat16, float8, float4)."""
    return dt.kind == "f" or dt.name in ML_FLOAT_NAMES


# ---------------------------------------------------------------------------- ops


def trunc_divide(a, b):
    """Integer division rounding toward zero (C, ONNX Div), from numpy.floor_divide."""
    q = np.floor_divide(a, b)
    fix = (np.multiply(q, b) != a) & ((np.asarray(a) < 0) != (np.asarray(b) < 0))
    return q + fix.astype(q.dtype)


@dataclasses.dataclass(frozen=True)
class Op:
    """One measured operation.

    name: row label ("divide", "divide(floor)", "divide(trunc)", "multiply", ...).
    func: the eltwise function name.
    kwargs: extra keywords for eltwise (pythondiv).
    reference: NumPy function giving the exact expected result.
    numpy_timed: the NumPy function timed as NumPy's entry (differs from `reference`
        only for truncating integer division, which NumPy lacks: it times floor_divide).
    inputs: "general" (x2 never zero), "power" (positive bases, small exponents), or for
        64-bit integer division "int-full" (both operands over the full range, x2 != 0),
        "int-small-d1-8" / "int-small-d9-50" (|x1| <= 1e12, |x2| in 1..8 / 9..50).
    label: what the row says about the operands ("[full range]"), empty for the usual.
    sweep_only: measured only on the shapes with int_variants (the small-value variants:
        the size sweep up to 1e6 elements).
    scalar: the Python int used in the array-with-scalar case. An int, not a float, for
        every dtype: NumPy with ml_dtypes gives float32 for bfloat16 op Python float, and
        an int keeps every library in the array's dtype.
    """

    name: str
    func: str
    kwargs: dict
    reference: Callable
    numpy_timed: Callable
    inputs: str
    scalar: int
    note: str = ""
    label: str = ""
    sweep_only: bool = False

    @property
    def row(self) -> str:
        """The row name in tables: the op and, for operand variants, their label."""
        return f"{self.name} {self.label}" if self.label else self.name


INT_VARIANTS = (("int-full", "[full range]", False),
                ("int-small-d1-8", "[|x|<=1e12, d 1..8]", True),
                ("int-small-d9-50", "[|x|<=1e12, d 9..50]", True))


def _int_division_ops(inputs: str, label: str, sweep_only: bool) -> list[Op]:
    """divide (both roundings), floor_divide and mod for integers on operand kind `inputs`."""
    kw = {"label": label, "sweep_only": sweep_only}
    return [
        Op("divide(floor)", "divide", {"pythondiv": True}, np.floor_divide, np.floor_divide,
           inputs, 3, **kw),
        Op("divide(trunc)", "divide", {"pythondiv": False}, trunc_divide, np.floor_divide,
           inputs, 3, note="NumPy has no truncating integer division: its time is "
                           "numpy.floor_divide's", **kw),
        Op("floor_divide", "floor_divide", {}, np.floor_divide, np.floor_divide, inputs, 3,
           **kw),
        Op("mod", "mod", {}, np.remainder, np.remainder, inputs, 3, **kw),
    ]


def ops_for(dt: np.dtype) -> list[Op]:
    """Returns the ops measured for dtype `dt`: integers get both divide roundings; int64
    and uint64 get mod too, and their division ops on each operand kind of INT_VARIANTS."""
    out = []
    if dt.name in WIDE_INT_DTYPES:
        for inputs, label, sweep_only in INT_VARIANTS:
            out += _int_division_ops(inputs, label, sweep_only)
    elif is_int(dt):
        out += [op for op in _int_division_ops("general", "", False) if op.name != "mod"]
    else:
        out.append(Op("divide", "divide", {}, np.divide, np.divide, "general", 3))
    out += [
        Op("multiply", "multiply", {}, np.multiply, np.multiply, "general", 3),
        Op("add", "add", {}, np.add, np.add, "general", 3),
    ]
    if not is_int(dt):
        out.append(Op("floor_divide", "floor_divide", {}, np.floor_divide, np.floor_divide,
                      "general", 3))
    out += [
        Op("power", "power", {}, np.power, np.power, "power", 3),
        Op("maximum", "maximum", {}, np.maximum, np.maximum, "general", 0),
        Op("greater", "greater", {}, np.greater, np.greater, "general", 0),
    ]
    return out


def lowp_ops(dt: np.dtype) -> list[Op]:
    """Returns the ops of the low-precision section for dtype `dt` (LOWP_OP_NAMES) on operands
    "lowp": int4's divide floors (pythondiv=True) with numpy.floor_divide as its reference,
    since ml_dtypes' true divide of int4 gives float16."""
    if is_int(dt):
        div = Op("divide(floor)", "divide", {"pythondiv": True}, np.floor_divide,
                 np.floor_divide, "lowp", 3)
    else:
        div = Op("divide", "divide", {}, np.divide, np.divide, "lowp", 3)
    return [div, Op("multiply", "multiply", {}, np.multiply, np.multiply, "lowp", 3),
            Op("add", "add", {}, np.add, np.add, "lowp", 3)]


OP_BASE_NAMES = ["divide", "multiply", "add", "floor_divide", "mod", "power", "maximum",
                 "greater"]

# ---------------------------------------------------------------------------- shapes


@dataclasses.dataclass(frozen=True)
class Shape:
    """One operand layout.

    kind: column label. shape1/shape2: operand shapes (shape2 None: Python scalar).
    make: "contig" | "scalar" | "strided" (both operands x[::2] of twice the size) |
    "transposed" (x1 is a transposed C array, x2 C-contiguous) | "fortran" (both operands
    Fortran-ordered).
    eltwise_kwargs: broadcast/axis for eltwise. numpy_shape2: x2's shape as the peers
    (NumPy broadcasting) see it.
    dtypes / ops: when set, the only dtype names / op base names measured on this shape.
    multi_thread: also measured in the passes with more than one thread (False for sizes
    whose calls eltwise runs on one thread anyway).
    out_variant: eltwise with a preallocated ``out=`` is measured too (library
    "eltwise(out=)"), for the fresh-result vs out= comparison.
    section: "main", or "lowp" for the low-precision section's shape (lowp_shape), whose
    cells the report keeps to their own table and goals.
    """

    kind: str
    shape1: tuple
    shape2: tuple | None
    make: str = "contig"
    eltwise_kwargs: dict = dataclasses.field(default_factory=dict)
    numpy_shape2: tuple | None = None
    sweep: bool = False  # part of the same-shape contiguous size sweep (plotted)
    dtypes: tuple | None = None
    ops: tuple | None = None
    multi_thread: bool = True
    out_variant: bool = False
    int_variants: bool = False  # measures the small-value 64-bit division variants
    section: str = "main"

    def measures(self, dt: np.dtype, op: Op) -> bool:
        """True if cell (op, dt) is measured on this shape."""
        if self.dtypes is not None and dt.name not in self.dtypes:
            return False
        if self.ops is not None and op.name.split("(")[0] not in self.ops:
            return False
        return self.int_variants or not op.sweep_only

    @property
    def n_out(self) -> int:
        return int(np.prod(self.shape1))

    def describe(self) -> str:
        s1 = "x".join(map(str, self.shape1))
        if self.make == "scalar":
            return f"{s1} op scalar"
        if self.make == "strided":
            return f"{s1} [::2] views"
        if self.make == "transposed":
            return f"{s1} .T op {s1}"
        if self.make == "fortran":
            return f"{s1} Fortran op {s1} Fortran"
        s2 = "x".join(map(str, self.shape2)) if self.shape2 else "()"
        if self.eltwise_kwargs.get("broadcast") == "pdpd":
            return f"{s1} op {s2} pdpd axis={self.eltwise_kwargs['axis']}"
        return f"{s1} op {s2}"


def _size_label(n: int) -> str:
    if n < 1000:
        return f"n={n}"
    exp = int(np.floor(np.log10(n)))
    mant = n / 10**exp
    return f"n={mant:g}e{exp}" if mant != 1 else f"n=1e{exp}"


# Fresh result vs out=: float32 ops on the largest sweep size (the 1.6e7).
OUT_VARIANT_DTYPES = ("float32",)
OUT_VARIANT_OPS = ("divide", "add", "multiply")
# The shape of the goal "2 threads at least as fast as 1": in the passes with more
# threads, eltwise at 1 thread is timed beside eltwise on its cells (EltwiseOneThread).
ONE_THREAD_SHAPE = "n=1e5"
# The sweep's sizes below this run on one thread in eltwise (their calls move less than
# its 256 KiB split threshold): the passes with more threads skip them (the 1-thread
# pass has them).
MULTI_THREAD_MIN = 10**5


def shapes(quick: bool) -> list[Shape]:
    """Returns the shapes: the size sweep, then scalar, broadcasts, strided, transposed,
    Fortran-ordered, and narrow rows against a column."""
    if quick:
        sizes = [10, 1000]
        rows, cols = 30, 40
        pdpd = ((2, 8, 5, 5), (8,))
        n_big = 1000
        fortran = (25, 40)  # 1000 elements: the same as the largest sweep size
        narrow_rows = 500
        mt_min = 1000  # so the smoke test runs a multi-thread pass too
        variants_max = 1000
    else:
        sizes = [10, 1000, 10**5, 10**6, 16 * 10**6]
        rows, cols = 1000, 1000
        pdpd = ((8, 64, 56, 56), (64,))
        n_big = 10**6
        fortran = (1000, 1000)  # the same element count as the n=1e6 sweep cell
        # 2.5e7 rows x 2 = 5e7 elements: 50 MB (int8) / 200 MB (float32) per operand; the
        # peers' results and copies stay well under 2 GB.
        narrow_rows = 25 * 10**6
        mt_min = MULTI_THREAD_MIN
        variants_max = 10**6  # 1.6e7 would add a fifth to the run and say nothing new
    out = [Shape(_size_label(n), (n,), (n,), sweep=True, multi_thread=n >= mt_min,
                 out_variant=n == sizes[-1], int_variants=n <= variants_max)
           for n in sizes]
    out.append(Shape("scalar", (n_big,), None, make="scalar"))
    out.append(Shape("row bcast", (rows, cols), (cols,)))
    out.append(Shape("col bcast", (rows, cols), (rows, 1)))
    c = pdpd[1][0]
    out.append(Shape("pdpd axis=1", pdpd[0], pdpd[1],
                     eltwise_kwargs={"broadcast": "pdpd", "axis": 1}, numpy_shape2=(1, c, 1, 1)))
    out.append(Shape("strided", (n_big,), (n_big,), make="strided"))
    out.append(Shape("transposed", (cols, rows), (cols, rows), make="transposed"))
    out.append(Shape("fortran", fortran, fortran, make="fortran", dtypes=("float32",)))
    out.append(Shape("narrow rows", (narrow_rows, 2), (narrow_rows, 1),
                     dtypes=("int8", "float32"), ops=("divide", "add")))
    return out


def lowp_shape(quick: bool) -> Shape:
    """Returns the low-precision section's shape: same-shape contiguous, LOWP_SIZE elements
    (LOWP_QUICK_SIZE when quick), measured in every thread pass."""
    n = LOWP_QUICK_SIZE if quick else LOWP_SIZE
    return Shape(_size_label(n), (n,), (n,), section="lowp")


# ---------------------------------------------------------------------------- operands


def _draw(rng, dt: np.dtype, shape, purpose: str, which: int):
    """Returns a C array: purpose "general" (x2 never 0 and never -1), "power", or "lowp"."""
    if purpose == "lowp":
        return _draw_lowp(rng, dt, shape, which)
    if is_int(dt):
        info = np.iinfo(dt)
        if purpose.startswith("int-"):
            return _draw_wide_int(rng, dt, shape, purpose, which)
        if purpose == "power":
            hi = 10 if which == 1 else 3  # bases 0..10, exponents 0..3 (wrapping is exact)
            return rng.integers(0, hi, size=shape, endpoint=True).astype(dt)
        if which == 1:  # full range except MIN (MIN // -1 overflows in NumPy)
            lo = int(info.min) + 1 if dt.kind == "i" else 0
            return rng.integers(lo, int(info.max), size=shape, endpoint=True, dtype=dt)
        hi = min(int(info.max), 1000)
        mag = rng.integers(1 if dt.kind == "u" else 2, hi, size=shape, endpoint=True)
        if dt.kind == "i":
            mag = np.where(rng.random(size=shape) < 0.5, -mag, mag)
        return mag.astype(dt)
    if purpose == "power":
        if which == 1:
            return rng.uniform(0.5, 2.0, size=shape).astype(dt)
        return rng.uniform(-3.0, 3.0, size=shape).astype(dt)
    if which == 1:
        return rng.uniform(-100.0, 100.0, size=shape).astype(dt)
    x = rng.uniform(0.5, 10.0, size=shape)
    return np.where(rng.random(size=shape) < 0.5, -x, x).astype(dt)


def _draw_wide_int(rng, dt: np.dtype, shape, purpose: str, which: int):
    """Operands of the 64-bit integer division variants (see Op.inputs); x2 is never 0,
    and x1 is never MIN (MIN // -1 overflows in NumPy)."""
    info = np.iinfo(dt)
    signed = dt.kind == "i"
    if purpose == "int-full":
        lo = int(info.min) + 1 if signed else (0 if which == 1 else 1)
        x = rng.integers(lo, int(info.max), size=shape, endpoint=True, dtype=dt)
        if which == 2:  # a zero divisor has probability 2^-64 but must not occur
            x[x == 0] = 1
        return x
    if which == 1:
        lo = -SMALL_VALUE_MAX if signed else 0
        return rng.integers(lo, SMALL_VALUE_MAX, size=shape, endpoint=True, dtype=dt)
    lo, hi = (1, 8) if purpose == "int-small-d1-8" else (9, 50)
    mag = rng.integers(lo, hi, size=shape, endpoint=True, dtype=dt)
    if signed:
        mag = np.where(rng.random(size=shape) < 0.5, -mag, mag)
    return mag


def lowp_values(dt: np.dtype) -> np.ndarray:
    """Every finite value of a low-precision dtype, each once, as an array of `dt`: for
    floats every code of its bits (uint8 codes viewed as `dt`) but the NaN and inf ones."""
    if is_int(dt):
        info = ml_dtypes.iinfo(dt)
        return np.arange(int(info.min), int(info.max) + 1).astype(dt)
    codes = np.arange(2 ** ml_dtypes.finfo(dt).bits, dtype=np.uint8).view(dt)
    return codes[np.isfinite(codes.astype(np.float32))]


def _draw_lowp(rng, dt: np.dtype, shape, which: int):
    """Operands of the low-precision section: random codes, every finite value alike; x2 is
    never zero (divide), and int4's x1 is never MIN (MIN // -1 overflows)."""
    vals = lowp_values(dt)
    as_float = vals.astype(np.float32)
    if which == 2:
        vals = vals[as_float != 0]
    elif is_int(dt):
        vals = vals[as_float != as_float.min()]
    return vals[rng.integers(0, vals.size, size=shape)]


@dataclasses.dataclass
class Operands:
    """Operands of one cell. x1/x2: what eltwise gets (x2 may be a Python int);
    x2_np: x2 as NumPy and PyTorch get it (reshaped for pdpd; the same Python int);
    x2_typed: x2 for the peers that want an array or a typed scalar (numexpr, ONNX
    Runtime, OpenVINO): a NumPy scalar of the array's dtype in the scalar case."""

    x1: object
    x2: object
    x2_np: object
    x2_typed: object = None

    def __post_init__(self):
        if self.x2_typed is None:
            self.x2_typed = self.x2_np


def make_operands(rng, dt: np.dtype, shape: Shape, purpose: str, scalar) -> Operands:
    """Builds the operands of `shape` for dtype `dt`."""
    if shape.make == "scalar":
        x1 = _draw(rng, dt, shape.shape1, purpose, 1)
        return Operands(x1, scalar, scalar, dt.type(scalar))
    if shape.make == "strided":
        n = shape.shape1[0]
        a = _draw(rng, dt, (2 * n,), purpose, 1)[::2]
        b = _draw(rng, dt, (2 * n,), purpose, 2)[::2]
        return Operands(a, b, b)
    if shape.make == "transposed":
        a = _draw(rng, dt, shape.shape1[::-1], purpose, 1).T
        b = _draw(rng, dt, shape.shape2, purpose, 2)
        return Operands(a, b, b)
    if shape.make == "fortran":
        a = np.asfortranarray(_draw(rng, dt, shape.shape1, purpose, 1))
        b = np.asfortranarray(_draw(rng, dt, shape.shape2, purpose, 2))
        return Operands(a, b, b)
    a = _draw(rng, dt, shape.shape1, purpose, 1)
    b = _draw(rng, dt, shape.shape2, purpose, 2)
    b_np = b.reshape(shape.numpy_shape2) if shape.numpy_shape2 else b
    return Operands(a, b, b_np)


def nbytes_moved(ops: Operands, result) -> int:
    """Bytes a kernel must move at least: read x1 + read x2 (once) + write the result."""
    def nb(x):
        return x.size * x.dtype.itemsize if isinstance(x, np.ndarray) else 0
    return nb(ops.x1) + nb(ops.x2_np) + nb(np.asarray(result))


# ---------------------------------------------------------------------------- checking


def _spacing(x: np.ndarray) -> np.ndarray:
    """Returns the ULP of each element of `x` in its own float dtype, as float64."""
    if x.dtype.name in ML_FLOAT_NAMES:  # float32's ULP scaled to the dtype's significand
        info = ml_dtypes.finfo(x.dtype)
        f = np.spacing(x.astype(np.float32)).astype(np.float64)
        return np.maximum(np.abs(f) * 2.0 ** (23 - info.nmant),
                          float(info.smallest_subnormal))
    return np.abs(np.spacing(x)).astype(np.float64)


def _isnan(x: np.ndarray) -> np.ndarray:
    """NaN mask of a float array; ml_dtypes' floats and float16 through float32."""
    return np.isnan(x.astype(np.float32) if x.dtype.itemsize <= 2 else x)


def compare(got, want, ulps: float = 0.0) -> tuple[str, str]:
    """Compares `got` with `want`: returns (status, detail).

    status "exact" (same dtype, shape and bits, NaNs equal), "close" (every element within
    `ulps` ULPs of `want`), or "wrong".
    """
    got = np.asarray(got)
    want = np.asarray(want)
    if got.dtype != want.dtype:
        return "wrong", f"dtype {got.dtype} != {want.dtype}"
    if got.shape != want.shape:
        return "wrong", f"shape {got.shape} != {want.shape}"
    if got.dtype.kind == "b" or is_int(got.dtype):
        eq = got == want
    else:
        view = np.dtype(f"u{got.dtype.itemsize}")
        eq = got.view(view) == want.view(view)
        eq |= _isnan(got) & _isnan(want)
    if bool(np.all(eq)):
        return "exact", ""
    bad = int(eq.size - np.count_nonzero(eq))
    idx = np.unravel_index(int(np.argmin(eq)), eq.shape) if eq.ndim else ()
    where = tuple(int(i) for i in idx)
    example = f"{bad} of {eq.size} differ, e.g. at {where}: {got[idx]!r} vs {want[idx]!r}"
    if ulps > 0 and is_float(got.dtype):
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        with np.errstate(invalid="ignore"):
            ok = (np.abs(g - w) <= ulps * _spacing(want)) | eq
        if bool(np.all(ok)):
            return "close", example
    return "wrong", example
