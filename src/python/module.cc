// The _eltwise extension: the only C++ that knows Python or NumPy.
//
// The binary functions are plain METH_FASTCALL functions on the NumPy C API,
// not pybind11 overloads: per-call cost decides small-array speed. The
// runtime functions (targets, threads, config) go through pybind11.

#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/broadcast.h"
#include "core/execute.h"
#include "core/plan.h"
#include "core/thread_pool.h"
#include "hwy/highway.h"  // HWY_MAJOR etc.
#include "hwy/targets.h"
#include "kernels/table.h"
#include "python/functions.h"

namespace py = pybind11;

namespace eltwise {
namespace {

// Owns one reference.
class Ref {
 public:
  Ref() = default;
  explicit Ref(PyObject* p) : p_(p) {}
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  ~Ref() { Py_XDECREF(p_); }
  void reset(PyObject* p) { Py_XDECREF(p_); p_ = p; }
  PyObject* get() const { return p_; }
  PyArrayObject* arr() const { return reinterpret_cast<PyArrayObject*>(p_); }
  PyObject* release() { PyObject* p = p_; p_ = nullptr; return p; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  PyObject* p_ = nullptr;
};

int g_bfloat16_num = -1;  // ml_dtypes.bfloat16's type number, if present

constexpr int kNpyTypes[kNumDTypes] = {
    NPY_BOOL, NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64, NPY_UINT8, NPY_UINT16,
    NPY_UINT32, NPY_UINT64, NPY_HALF, -1 /* bfloat16 */, NPY_FLOAT32, NPY_FLOAT64};

// The DType of a NumPy dtype, or false if eltwise does not compute in it.
bool ToDType(PyArray_Descr* d, DType* out) {
  if (d->type_num == g_bfloat16_num) { *out = DType::kBF16; return true; }
  const npy_intp size = PyDataType_ELSIZE(d);
  switch (d->kind) {
    case 'b': *out = DType::kBool; return true;
    case 'i': case 'u': {
      const int base = d->kind == 'i' ? static_cast<int>(DType::kI8) : static_cast<int>(DType::kU8);
      const int step = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
      if (step < 0) return false;
      *out = static_cast<DType>(base + step);
      return true;
    }
    case 'f':
      if (size == 2) { *out = DType::kF16; return true; }
      if (size == 4) { *out = DType::kF32; return true; }
      if (size == 8) { *out = DType::kF64; return true; }
      return false;
    default:
      return false;
  }
}

PyArray_Descr* DescrOf(DType t) {
  const int num = t == DType::kBF16 ? g_bfloat16_num : kNpyTypes[static_cast<int>(t)];
  return PyArray_DescrFromType(num);  // new reference
}

PyObject* TypeErrorDType(const FunctionInfo& f, PyArray_Descr* d) {
  PyObject* s = PyObject_Str(reinterpret_cast<PyObject*>(d));
  PyErr_Format(PyExc_TypeError, "eltwise.%s does not support dtype %s", f.name,
               s ? PyUnicode_AsUTF8(s) : "?");
  Py_XDECREF(s);
  return nullptr;
}

// ---------------------------------------------------------------------------
// Operands and promotion (NumPy 2 rules, Python scalars weak as in NEP 50).

enum class Weak { kNone, kBool, kInt, kFloat };

Weak WeakKind(PyObject* o) {
  if (PyBool_Check(o)) return Weak::kBool;
  if (PyLong_CheckExact(o)) return Weak::kInt;
  if (PyFloat_CheckExact(o)) return Weak::kFloat;
  return Weak::kNone;
}

// The dtype a weak Python scalar takes on its own (int64, float64, bool).
DType WeakDefault(Weak w) {
  return w == Weak::kBool ? DType::kBool : w == Weak::kInt ? DType::kI64 : DType::kF64;
}

// Result dtype of a strong dtype with a weak scalar (NEP 50).
DType PromoteWeak(DType strong, Weak w) {
  if (w == Weak::kBool) return strong;
  if (w == Weak::kInt) return strong == DType::kBool ? DType::kI64 : strong;
  // bfloat16 with a Python float gives float32, as ml_dtypes' own `a + 1.0`.
  if (strong == DType::kBF16) return DType::kF32;
  return IsFloat(strong) ? strong : DType::kF64;
}

// ---------------------------------------------------------------------------
// Keyword arguments.

struct Options {
  PyObject* out = nullptr;
  BroadcastMode mode = BroadcastMode::kNumpy;
  int64_t axis = -1;
  bool pythondiv = true;
  PyArray_Descr* dtype = nullptr;  // owned when set
  ~Options() { Py_XDECREF(dtype); }
};

bool ParseBroadcast(const FunctionInfo& f, PyObject* v, BroadcastMode* mode) {
  if (v == Py_None) { *mode = BroadcastMode::kNumpy; return true; }
  if (PyUnicode_Check(v)) {
    std::string s = PyUnicode_AsUTF8(v);
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (s == "numpy") { *mode = BroadcastMode::kNumpy; return true; }
    if (s == "none" || s == "explicit") { *mode = BroadcastMode::kNone; return true; }
    if (s == "pdpd") { *mode = BroadcastMode::kPdpd; return true; }
  }
  PyObject* r = PyObject_Repr(v);
  PyErr_Format(PyExc_ValueError,
               "eltwise.%s: broadcast must be 'numpy', 'none' (or 'explicit') or 'pdpd', got %s",
               f.name, r ? PyUnicode_AsUTF8(r) : "?");
  Py_XDECREF(r);
  return false;
}

bool ParseOptions(const FunctionInfo& f, PyObject* const* args, Py_ssize_t nargs,
                  PyObject* kwnames, Options* o) {
  if (nargs < 2 || nargs > 3) {
    PyErr_Format(PyExc_TypeError, "%s() takes from 2 to 3 positional arguments but %zd were given",
                 f.name, nargs);
    return false;
  }
  if (nargs == 3) o->out = args[2];
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
    PyObject* v = args[nargs + i];
    if (!key) return false;
    if (std::strcmp(key, "out") == 0) {
      if (nargs == 3) {
        PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument 'out'", f.name);
        return false;
      }
      o->out = v;
    } else if (std::strcmp(key, "broadcast") == 0) {
      if (!ParseBroadcast(f, v, &o->mode)) return false;
    } else if (std::strcmp(key, "axis") == 0) {
      if (!PyLong_Check(v) || PyBool_Check(v)) {
        PyErr_Format(PyExc_TypeError, "eltwise.%s: axis must be an int", f.name);
        return false;
      }
      o->axis = PyLong_AsLongLong(v);
      if (o->axis == -1 && PyErr_Occurred()) return false;
    } else if (std::strcmp(key, "pythondiv") == 0 && f.pythondiv) {
      if (v == Py_None) continue;  // the default
      const int t = PyObject_IsTrue(v);
      if (t < 0) return false;
      o->pythondiv = t != 0;
    } else if (std::strcmp(key, "dtype") == 0) {
      if (v != Py_None && !PyArray_DescrConverter(v, &o->dtype)) return false;
    } else {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", f.name, key);
      return false;
    }
  }
  if (o->out == Py_None) o->out = nullptr;
  if (o->out && PyTuple_Check(o->out)) {
    if (PyTuple_GET_SIZE(o->out) != 1) {
      PyErr_Format(PyExc_ValueError, "eltwise.%s: out must be an array or a tuple of one array",
                   f.name);
      return false;
    }
    o->out = PyTuple_GET_ITEM(o->out, 0);
    if (o->out == Py_None) o->out = nullptr;
  }
  if (o->out && !PyArray_Check(o->out)) {
    PyErr_Format(PyExc_TypeError, "eltwise.%s: out must be a numpy.ndarray, got %s", f.name,
                 Py_TYPE(o->out)->tp_name);
    return false;
  }
  if (o->axis != -1 && o->mode != BroadcastMode::kPdpd) {
    PyErr_Format(PyExc_ValueError, "eltwise.%s: axis=%lld needs broadcast='pdpd'", f.name,
                 static_cast<long long>(o->axis));
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Errors that depend on values.

// numpy.errstate's setting for division by zero ("warn", "raise", ...), or
// "" with a Python error set.
std::string DivideErrorMode() {
  static PyObject* geterr = nullptr;  // numpy.geterr, looked up once
  if (!geterr) {
    Ref np(PyImport_ImportModule("numpy"));
    if (!np) return "";
    geterr = PyObject_GetAttrString(np.get(), "geterr");
    if (!geterr) return "";
  }
  Ref state(PyObject_CallNoArgs(geterr));
  if (!state) return "";
  PyObject* mode = PyDict_GetItemString(state.get(), "divide");
  return mode ? PyUnicode_AsUTF8(mode) : "warn";
}

// Reports integer division by zero as NumPy does, through numpy.errstate.
// Returns false when it raised.
bool ReportDivideByZero(const FunctionInfo& f) {
  const std::string mode = DivideErrorMode();
  if (mode.empty()) return false;
  const std::string msg = std::string("divide by zero encountered in ") + f.name;
  if (mode == "ignore") return true;
  if (mode == "raise") {
    PyErr_SetString(PyExc_FloatingPointError, msg.c_str());
    return false;
  }
  if (mode == "call" || mode == "log") {
    Ref np(PyImport_ImportModule("numpy"));
    Ref call(np ? PyObject_CallMethod(np.get(), "geterrcall", nullptr) : nullptr);
    if (!call) return false;
    Ref r(mode == "call" ? PyObject_CallFunction(call.get(), "si", "divide by zero", 1)
                         : PyObject_CallMethod(call.get(), "write", "s",
                                               ("Warning: " + msg + "\n").c_str()));
    return static_cast<bool>(r);
  }
  if (mode == "print") {
    PySys_WriteStdout("Warning: %s\n", msg.c_str());
    return true;
  }
  return PyErr_WarnEx(PyExc_RuntimeWarning, msg.c_str(), 1) == 0;
}

// True when numpy.errstate says divide="raise".
bool DivideRaises() {
  const std::string mode = DivideErrorMode();
  if (mode.empty()) PyErr_Clear();
  return mode == "raise";
}

// True if any of n signed integers is negative: the OR of all of them is
// (a reduction the compiler vectorizes).
template <typename T>
bool AnyNegativeT(const void* data, npy_intp n) {
  const T* p = static_cast<const T*>(data);
  T acc = 0;
  for (npy_intp i = 0; i < n; ++i) acc |= p[i];
  return acc < 0;
}

// True if any element of `a` (a native signed integer array) is negative.
bool AnyNegative(PyArrayObject* a) {
  Ref c(reinterpret_cast<PyObject*>(PyArray_GETCONTIGUOUS(a)));
  if (!c) { PyErr_Clear(); return false; }
  const npy_intp n = PyArray_SIZE(c.arr());
  const void* data = PyArray_DATA(c.arr());
  switch (PyArray_ITEMSIZE(c.arr())) {
    case 1: return AnyNegativeT<int8_t>(data, n);
    case 2: return AnyNegativeT<int16_t>(data, n);
    case 4: return AnyNegativeT<int32_t>(data, n);
    default: return AnyNegativeT<int64_t>(data, n);
  }
}

// Which operand (0 or 1) is the int64 of an int64/uint64 comparison; -1 if
// the call is not one.
int MixedSignOperand(OpId op, PyArray_Descr* forced, const Weak* weak, const DType* dt) {
  if (op < OpId::kEqual || forced || weak[0] != Weak::kNone || weak[1] != Weak::kNone) return -1;
  if (dt[0] == DType::kI64 && dt[1] == DType::kU64) return 0;
  if (dt[0] == DType::kU64 && dt[1] == DType::kI64) return 1;
  return -1;
}

// `result` holds the comparison of both operands' bits as uint64. Where the
// int64 operand (index `s`: `bits`, holding it as uint64, and `layout`, its
// broadcast strides) is negative, it is smaller than any uint64: the answer
// is then known, whatever the bits said.
bool FixMixedSignCompare(OpId op, int s, PyArrayObject* bits, const Layout& layout,
                         PyArrayObject* result) {
  npy_intp dims[kMaxDims], strides[kMaxDims];
  for (int i = 0; i < layout.ndim; ++i) dims[i] = PyArray_DIM(result, i), strides[i] = layout.strides[i];
  Ref view(PyArray_NewFromDescr(&PyArray_Type, PyArray_DescrFromType(NPY_INT64), layout.ndim,
                                dims, strides, PyArray_DATA(bits), 0, nullptr));
  if (!view) return false;
  Py_INCREF(bits);
  if (PyArray_SetBaseObject(view.arr(), reinterpret_cast<PyObject*>(bits)) < 0) return false;
  Ref zero(PyLong_FromLong(0));
  Ref negative(PyObject_RichCompare(view.get(), zero.get(), Py_LT));
  if (!negative) return false;
  // Negative x1 makes x1 < x2 true; negative x2 makes x1 > x2 true.
  const bool first = s == 0;
  const bool becomes_true = op == OpId::kNotEqual ||
                            (first ? (op == OpId::kLess || op == OpId::kLessEqual)
                                   : (op == OpId::kGreater || op == OpId::kGreaterEqual));
  PyObject* r = reinterpret_cast<PyObject*>(result);
  Ref fixed;
  if (becomes_true) {
    fixed.reset(PyNumber_InPlaceOr(r, negative.get()));
  } else {
    Ref keep(PyNumber_Invert(negative.get()));
    if (!keep) return false;
    fixed.reset(PyNumber_InPlaceAnd(r, keep.get()));
  }
  return static_cast<bool>(fixed);
}

// ---------------------------------------------------------------------------
// Memory overlap: `out` may be, or overlap, an input. An input read through
// exactly the same addresses as out is safe (each element is read before it
// is written); any other overlap is copied first.

void Extent(const char* data, const int64_t* shape, const int64_t* strides, int nd,
            const char** lo, const char** hi, size_t itemsize) {
  const char* l = data;
  const char* h = data;
  for (int i = 0; i < nd; ++i) {
    if (shape[i] == 0) { *lo = *hi = data; return; }
    const int64_t span = (shape[i] - 1) * strides[i];
    if (span < 0) l += span; else h += span;
  }
  *lo = l;
  *hi = h + itemsize;
}

bool Overlaps(const char* data, const Layout& in, size_t in_size, PyArrayObject* out) {
  const char *lo1, *hi1, *lo2, *hi2;
  Extent(data, in.shape, in.strides, in.ndim, &lo1, &hi1, in_size);
  int64_t oshape[kMaxDims], ostr[kMaxDims];
  const int nd = PyArray_NDIM(out);
  for (int i = 0; i < nd; ++i) { oshape[i] = PyArray_DIM(out, i); ostr[i] = PyArray_STRIDE(out, i); }
  Extent(PyArray_BYTES(out), oshape, ostr, nd, &lo2, &hi2, PyArray_ITEMSIZE(out));
  if (lo1 >= hi2 || lo2 >= hi1) return false;
  if (data != PyArray_BYTES(out) || static_cast<int64_t>(in_size) != PyArray_ITEMSIZE(out)) return true;
  for (int i = 0; i < nd; ++i) {
    if (oshape[i] > 1 && in.strides[i] != ostr[i]) return true;
  }
  return false;
}

void FillLayout(PyArrayObject* a, Layout* l) {
  l->ndim = PyArray_NDIM(a);
  for (int i = 0; i < l->ndim; ++i) {
    l->shape[i] = PyArray_DIM(a, i);
    l->strides[i] = PyArray_STRIDE(a, i);
  }
}

// ---------------------------------------------------------------------------
// The call.

PyObject* BinaryCall(const FunctionInfo& f, PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwnames) {
  Options opt;
  if (!ParseOptions(f, args, nargs, kwnames, &opt)) return nullptr;
  PyObject* x[2] = {args[0], args[1]};

  // Operand dtypes: arrays strong, Python scalars weak.
  Weak weak[2];
  Ref arr[2];
  DType dt[2];
  for (int i = 0; i < 2; ++i) {
    weak[i] = WeakKind(x[i]);
    if (weak[i] != Weak::kNone) { dt[i] = WeakDefault(weak[i]); continue; }
    if (PyArray_Check(x[i])) {
      Py_INCREF(x[i]);
      arr[i].reset(x[i]);
    } else {
      arr[i].reset(PyArray_FromAny(x[i], nullptr, 0, 0, 0, nullptr));
      if (!arr[i]) return nullptr;
    }
    if (!ToDType(PyArray_DESCR(arr[i].arr()), &dt[i])) return TypeErrorDType(f, PyArray_DESCR(arr[i].arr()));
  }

  DType compute;
  if (opt.dtype) {
    if (!ToDType(opt.dtype, &compute)) return TypeErrorDType(f, opt.dtype);
    for (int i = 0; i < 2; ++i) {
      Ref from(reinterpret_cast<PyObject*>(arr[i] ? PyArray_DESCR(arr[i].arr()) : DescrOf(dt[i])));
      if (arr[i]) Py_INCREF(from.get());
      if (!PyArray_CanCastTypeTo(reinterpret_cast<PyArray_Descr*>(from.get()), opt.dtype,
                                 NPY_SAME_KIND_CASTING)) {
        Ref fs(PyObject_Repr(from.get())), ts(PyObject_Repr(reinterpret_cast<PyObject*>(opt.dtype)));
        PyErr_Format(PyExc_TypeError,
                     "Cannot cast ufunc '%s' input %d from %s to %s with casting rule 'same_kind'",
                     f.name, i, PyUnicode_AsUTF8(fs.get()), PyUnicode_AsUTF8(ts.get()));
        return nullptr;
      }
    }
  } else if (weak[0] != Weak::kNone && weak[1] != Weak::kNone) {
    compute = std::max(dt[0], dt[1]);  // bool < int64 < float64 in DType order
  } else if (weak[0] != Weak::kNone || weak[1] != Weak::kNone) {
    const int s = weak[0] != Weak::kNone ? 1 : 0;
    compute = PromoteWeak(dt[s], weak[1 - s]);
  } else if (dt[0] == dt[1]) {
    compute = dt[0];
  } else {
    PyArray_Descr* p = PyArray_PromoteTypes(PyArray_DESCR(arr[0].arr()), PyArray_DESCR(arr[1].arr()));
    if (!p) return nullptr;
    const bool ok = ToDType(p, &compute);
    Py_DECREF(p);
    if (!ok) return TypeErrorDType(f, PyArray_DESCR(arr[0].arr()));
  }

  if (compute == DType::kBool && f.accepts == Accepts::kNumeric) {
    PyErr_Format(PyExc_TypeError, "eltwise.%s does not support bool operands", f.name);
    return nullptr;
  }
  if (IsFloat(compute) && f.accepts == Accepts::kIntegersBool) {
    Ref d(reinterpret_cast<PyObject*>(DescrOf(compute)));
    return TypeErrorDType(f, reinterpret_cast<PyArray_Descr*>(d.get()));
  }
  OpId op = f.op;
  if (op == OpId::kDivide && IsInteger(compute) && opt.pythondiv) op = OpId::kFloorDivide;
  // int64 against uint64 compares exactly, as NumPy 2 does (their common type,
  // float64, would round): compare the bits as uint64, then fix the lanes
  // where the signed operand is negative (see FixMixedSignCompare).
  const int mixed_signed = MixedSignOperand(op, opt.dtype, weak, dt);
  if (mixed_signed >= 0) compute = DType::kU64;

  // Operands in the compute dtype, aligned and native (copies only if not).
  PyArray_Descr* cdescr = DescrOf(compute);
  Ref cdescr_ref(reinterpret_cast<PyObject*>(cdescr));
  for (int i = 0; i < 2; ++i) {
    PyObject* src = arr[i] ? arr[i].get() : x[i];
    if (arr[i] && PyArray_EquivTypes(PyArray_DESCR(arr[i].arr()), cdescr) &&
        PyArray_ISALIGNED(arr[i].arr()) && PyArray_ISNOTSWAPPED(arr[i].arr())) {
      continue;
    }
    Py_INCREF(cdescr);
    arr[i].reset(PyArray_FromAny(src, cdescr, 0, 0, NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_FORCECAST, nullptr));
    if (!arr[i]) return nullptr;
  }

  // Broadcast.
  Layout la, lb;
  int64_t shape[kMaxDims];
  int nd = 0;
  auto broadcast = [&]() {
    FillLayout(arr[0].arr(), &la);
    FillLayout(arr[1].arr(), &lb);
    std::string error;
    if (Broadcast(opt.mode, opt.axis, la, lb, shape, &nd, f.name, &error)) return true;
    PyErr_SetString(PyExc_ValueError, error.c_str());
    return false;
  };
  if (!broadcast()) return nullptr;

  const DType result = ReturnsBool(op) ? DType::kBool : compute;
  PyArray_Descr* rdescr = result == compute ? cdescr : DescrOf(DType::kBool);
  Ref rdescr_ref(result == compute ? nullptr : reinterpret_cast<PyObject*>(rdescr));

  // out: shape, writeable, castable; else a temporary.
  PyArrayObject* out = reinterpret_cast<PyArrayObject*>(opt.out);
  if (out) {
    bool same = PyArray_NDIM(out) == nd;
    for (int i = 0; same && i < nd; ++i) same = PyArray_DIM(out, i) == shape[i];
    if (!same) {
      int64_t os[kMaxDims];
      for (int i = 0; i < PyArray_NDIM(out); ++i) os[i] = PyArray_DIM(out, i);
      PyErr_Format(PyExc_ValueError, "eltwise.%s: out has shape %s but the result has shape %s",
                   f.name, FormatShape(os, PyArray_NDIM(out)).c_str(), FormatShape(shape, nd).c_str());
      return nullptr;
    }
    if (PyArray_FailUnlessWriteable(out, "output array") < 0) return nullptr;
    if (!PyArray_CanCastTypeTo(rdescr, PyArray_DESCR(out), NPY_SAME_KIND_CASTING)) {
      Ref fs(PyObject_Repr(reinterpret_cast<PyObject*>(rdescr)));
      Ref ts(PyObject_Repr(reinterpret_cast<PyObject*>(PyArray_DESCR(out))));
      PyErr_Format(PyExc_TypeError,
                   "Cannot cast ufunc '%s' output from %s to %s with casting rule 'same_kind'",
                   f.name, PyUnicode_AsUTF8(fs.get()), PyUnicode_AsUTF8(ts.get()));
      return nullptr;
    }
  }
  if (op == OpId::kPower && IsSignedInt(compute) && AnyNegative(arr[1].arr())) {
    PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
    return nullptr;
  }

  const size_t isz = ItemSize(compute), osz = ItemSize(result);
  // Write straight into out when it holds the result dtype natively, and
  // errstate cannot make us drop a half-written result.
  bool direct = out && PyArray_EquivTypes(PyArray_DESCR(out), rdescr) && PyArray_ISALIGNED(out) &&
                PyArray_ISNOTSWAPPED(out);
  if (direct && DividesIntegers(op) && IsInteger(compute) && DivideRaises()) direct = false;
  if (mixed_signed >= 0) direct = false;
  Ref target;
  if (direct) {
    bool copied = false;
    for (int i = 0; i < 2; ++i) {
      if (Overlaps(PyArray_BYTES(arr[i].arr()), i == 0 ? la : lb, isz, out)) {
        arr[i].reset(PyArray_NewCopy(arr[i].arr(), NPY_KEEPORDER));
        if (!arr[i]) return nullptr;
        copied = true;
      }
    }
    if (copied && !broadcast()) return nullptr;
    Py_INCREF(out);
    target.reset(reinterpret_cast<PyObject*>(out));
  } else {
    Py_INCREF(rdescr);
    npy_intp dims[kMaxDims];
    for (int i = 0; i < nd; ++i) dims[i] = shape[i];
    target.reset(PyArray_NewFromDescr(&PyArray_Type, rdescr, nd, dims, nullptr, nullptr, 0, nullptr));
    if (!target) return nullptr;
  }

  int64_t ostrides[kMaxDims];
  for (int i = 0; i < nd; ++i) ostrides[i] = PyArray_STRIDE(target.arr(), i);
  const Plan plan = MakePlan(shape, nd, la.strides, lb.strides, ostrides);
  ExecuteArgs ex{PyArray_BYTES(arr[0].arr()), PyArray_BYTES(arr[1].arr()),
                 PyArray_BYTES(target.arr()), isz, osz,
                 Kernels().k[static_cast<int>(op)][static_cast<int>(compute)]};
  int flags;
  if (static_cast<size_t>(plan.size) * (2 * isz + osz) >= kParallelBytes) {
    Py_BEGIN_ALLOW_THREADS
    flags = Execute(plan, ex);
    Py_END_ALLOW_THREADS
  } else {
    flags = Execute(plan, ex);
  }

  if ((flags & kFlagDivideByZero) && !ReportDivideByZero(f)) return nullptr;
  if (mixed_signed >= 0 &&
      !FixMixedSignCompare(op, mixed_signed, arr[mixed_signed].arr(), mixed_signed == 0 ? la : lb,
                           target.arr())) {
    return nullptr;
  }
  if (out) {
    if (!direct && PyArray_CopyInto(out, target.arr()) < 0) {
      return nullptr;
    }
    Py_INCREF(opt.out);
    return opt.out;
  }
  return PyArray_Return(reinterpret_cast<PyArrayObject*>(target.release()));
}

// METH_FASTCALL entry; `self` is a capsule holding the FunctionInfo.
PyObject* FastcallEntry(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const auto* f = static_cast<const FunctionInfo*>(PyCapsule_GetPointer(self, nullptr));
  return BinaryCall(*f, args, nargs, kwnames);
}

// Creates the public function `name` with docstring `doc`.
py::object MakeFunction(const std::string& name, const std::string& doc) {
  const FunctionInfo* f = FindFunction(name.c_str());
  if (!f) throw py::value_error("eltwise: no binary function named " + name);
  // Lives as long as the process: the function object points into it.
  auto* def = new PyMethodDef{f->name, reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(&FastcallEntry)),
                              METH_FASTCALL | METH_KEYWORDS, strdup(doc.c_str())};
  py::object capsule = py::reinterpret_steal<py::object>(
      PyCapsule_New(const_cast<FunctionInfo*>(f), nullptr, nullptr));
  py::str module_name("eltwise");
  PyObject* fn = PyCFunction_NewEx(def, capsule.ptr(), module_name.ptr());
  if (!fn) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(fn);
}

std::string HighwayVersion() {
  return std::to_string(HWY_MAJOR) + "." + std::to_string(HWY_MINOR) + "." + std::to_string(HWY_PATCH);
}

std::string ConfigText() {
  std::string s = "eltwise " ELTWISE_VERSION "\n";
  s += "  Highway:            " + HighwayVersion() + "\n";
  std::string compiled;
  for (int64_t bit = 1; bit != 0 && bit <= HWY_TARGETS; bit <<= 1) {
    if (HWY_TARGETS & bit) compiled += std::string(compiled.empty() ? "" : ", ") + hwy::TargetName(bit);
  }
  std::string usable;
  for (const std::string& t : AvailableTargets()) usable += (usable.empty() ? "" : ", ") + t;
  s += "  compiled targets:   " + compiled + "\n";
  s += "  CPU runs:           " + usable + "\n";
  s += "  target in use:      " + CurrentTarget() + "\n";
  s += "  threads:            " + std::to_string(ThreadPool::Get().threads()) + "\n";
  return s;
}

void SetTarget(py::object name) {
  if (!name.is_none() && !py::isinstance<py::str>(name)) {
    throw py::type_error("eltwise.set_target: name must be a str or None, got " +
                         std::string(py::str(py::type::of(name).attr("__name__"))));
  }
  const std::string n = name.is_none() ? std::string() : name.cast<std::string>();
  if ((!name.is_none() && n.empty()) || !SelectTarget(n)) {
    std::string list;
    for (const std::string& t : AvailableTargets()) list += (list.empty() ? "" : ", ") + t;
    throw py::value_error("eltwise.set_target: unknown or unsupported target '" + n +
                          "'; this CPU runs: " + list);
  }
}

void SetNumThreads(int n) {
  if (n < 1) throw py::value_error("eltwise.set_num_threads: n must be >= 1, got " + std::to_string(n));
  ThreadPool::Get().SetThreads(n);
}

}  // namespace
}  // namespace eltwise

PYBIND11_MODULE(_eltwise, m) {
  using namespace eltwise;
  if (_import_array() < 0) throw py::error_already_set();
  try {
    py::module_ ml = py::module_::import("ml_dtypes");
    py::module_ np = py::module_::import("numpy");
    g_bfloat16_num = np.attr("dtype")(ml.attr("bfloat16")).attr("num").cast<int>();
  } catch (py::error_already_set&) {
    g_bfloat16_num = -2;  // ml_dtypes missing: bfloat16 unsupported
  }
  m.attr("__version__") = ELTWISE_VERSION;
  m.attr("HIGHWAY_VERSION") = HighwayVersion();
  m.def("_make_function", &MakeFunction, py::arg("name"), py::arg("doc"));
  m.def("show_config", [] { py::print(ConfigText(), py::arg("end") = ""); },
        "Prints the version, Highway version, compiled targets, the targets this CPU runs,\n"
        "the target in use and the thread count.");
  m.def("config_text", &ConfigText, "Returns what show_config() prints.");
  m.def("get_targets", &AvailableTargets,
        "Returns the names of the compiled Highway targets this CPU can run, best first.");
  m.def("get_target", &CurrentTarget, "Returns the name of the Highway target in use.");
  m.def("set_target", &SetTarget, py::arg("name"),
        "Restricts dispatch to the named target (one of get_targets()); None restores the best.\n"
        "Raises ValueError for an unknown or unsupported name.");
  m.def("set_num_threads", &SetNumThreads, py::arg("n"),
        "Sets the number of threads large calls use (n >= 1). Results do not depend on it.");
  m.def("get_num_threads", [] { return ThreadPool::Get().threads(); },
        "Returns the number of threads large calls use.");
  m.def("_available_cpus", &AvailableCpus);
}
