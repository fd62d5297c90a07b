#include "python/promotion.h"

#include <algorithm>

namespace eltwise {
Weak WeakKind(PyObject* o) {
  if (PyBool_Check(o)) return Weak::kBool;
  if (PyLong_CheckExact(o)) return Weak::kInt;
  if (PyFloat_CheckExact(o)) return Weak::kFloat;
  return Weak::kNone;
}

namespace {

// The dtype a weak Python scalar takes on its own (int64, float64, bool).
DType WeakDefault(Weak w) {
  return w == Weak::kBool ? DType::kBool : w == Weak::kInt ? DType::kI64 : DType::kF64;
}

// The row of `numpy.add(x, s).dtype` for an array x of each ml_dtypes row and
// a Python int (column 0) or float (column 1), as the installed ml_dtypes
// registers its promotion (InitWeakPromotion); -1 where the probe gave no row
// (PromoteWeak's fixed rules then). ml_dtypes 0.5.3-0.6: a coded integer
// takes a Python int as int8 and a float as float16, the floats take a Python
// float as float32; 0.7 keeps the dtype but for a coded integer with a float
// (float16).
int g_weak_probe[kNumDTypes][2];
// numpy.add, which converts a Python int for a coded integer that takes it
// as itself (CodedPyInt); owned for the process's lifetime.
PyObject* g_numpy_add = nullptr;

// Result dtype of a strong dtype with a weak scalar (NEP 50).
DType PromoteWeak(DType strong, Weak w) {
  if (w == Weak::kBool) return strong;
  const int probed = g_weak_probe[static_cast<int>(strong)][w == Weak::kInt ? 0 : 1];
  if (probed >= 0) return static_cast<DType>(probed);
  if (IsCoded(strong) && IsInteger(strong)) return w == Weak::kInt ? DType::kI8 : DType::kF16;
  if (w == Weak::kInt) return strong == DType::kBool ? DType::kI64 : strong;
  if (IsFloat(strong) && Traits(strong).source == DSource::kMlDtypes) return DType::kF32;
  return IsFloat(strong) ? strong : DType::kF64;
}

}  // namespace

void InitWeakPromotion() {
  for (auto& row : g_weak_probe) row[0] = row[1] = -1;
  Ref numpy(PyImport_ImportModule("numpy"));
  if (numpy && !g_numpy_add) g_numpy_add = PyObject_GetAttrString(numpy.get(), "add");
  if (!g_numpy_add) {
    PyErr_Clear();
    return;
  }
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType t = static_cast<DType>(i);
    if (Traits(t).source != DSource::kMlDtypes || !HasDType(t)) continue;
    PyArray_Descr* d = DescrOf(t);
    if (!d) { PyErr_Clear(); continue; }
    npy_intp one = 1;
    Ref zeros(PyArray_Zeros(1, &one, d, 0));  // steals d
    for (int w = 0; w < 2 && zeros; ++w) {
      Ref scalar(w == 0 ? PyLong_FromLong(1) : PyFloat_FromDouble(1.0));
      Ref sum(scalar ? PyObject_CallFunctionObjArgs(g_numpy_add, zeros.get(), scalar.get(),
                                                    nullptr)
                     : nullptr);
      DType r;
      if (sum && PyArray_Check(sum.get()) && ToDType(PyArray_DESCR(sum.arr()), &r)) {
        g_weak_probe[i][w] = static_cast<int>(r);
      }
    }
    PyErr_Clear();
  }
}

bool CodedPyInt(DType t) {
  return IsCoded(t) && IsInteger(t) && g_weak_probe[static_cast<int>(t)][0] == static_cast<int>(t);
}

PyObject* ConvertCodedPyInt(PyObject* v, PyArray_Descr* d) {
  npy_intp none = 0;
  Py_INCREF(d);
  Ref zero(PyArray_Zeros(0, &none, d, 0));
  if (!zero) return nullptr;
  Ref sum(PyObject_CallFunctionObjArgs(g_numpy_add, zero.get(), v, nullptr));
  if (!sum) return nullptr;
  Py_INCREF(d);
  return PyArray_FromAny(sum.get(), d, 0, 0, NPY_ARRAY_FORCECAST, nullptr);
}

bool ReadOperands(const FunctionInfo& f, PyObject* x1, PyObject* x2, Operands* ops) {
  ops->x[0] = x1;
  ops->x[1] = x2;
  for (int i = 0; i < 2; ++i) {
    PyObject* x = ops->x[i];
    ops->weak[i] = WeakKind(x);
    if (ops->weak[i] != Weak::kNone) {
      ops->dt[i] = WeakDefault(ops->weak[i]);
      continue;
    }
    if (PyArray_Check(x)) {
      Py_INCREF(x);
      ops->arr[i].reset(x);
    } else {
      ops->arr[i].reset(PyArray_FromAny(x, nullptr, 0, 0, 0, nullptr));
      if (!ops->arr[i]) return false;
    }
    PyArray_Descr* d = PyArray_DESCR(ops->arr[i].arr());
    if (!ToDType(d, &ops->dt[i])) {
      TypeErrorDType(f, d);
      return false;
    }
  }
  return true;
}

bool ComputeDType(const FunctionInfo& f, const Operands& ops, PyArray_Descr* forced,
                  DType* compute) {
  if (forced) {
    if (!ToDType(forced, compute)) {
      TypeErrorDType(f, forced);
      return false;
    }
    for (int i = 0; i < 2; ++i) {
      // A weak Python scalar takes the forced dtype as NumPy's ufuncs let it
      // (NEP 50): a bool any, an int any numeric one (an out-of-range value is
      // an OverflowError when converted), a float only a float.
      if (ops.weak[i] != Weak::kNone) {
        const bool fits = ops.weak[i] == Weak::kBool ||
                          (ops.weak[i] == Weak::kInt && *compute != DType::kBool) ||
                          IsFloat(*compute);
        if (fits) continue;
      }
      Ref from(reinterpret_cast<PyObject*>(ops.arr[i] ? PyArray_DESCR(ops.arr[i].arr())
                                                      : DescrOf(ops.dt[i])));
      if (ops.arr[i]) Py_INCREF(from.get());
      if (!from) return false;
      if (!PyArray_CanCastTypeTo(reinterpret_cast<PyArray_Descr*>(from.get()), forced,
                                 NPY_SAME_KIND_CASTING)) {
        PyErr_Format(PyExc_TypeError,
                     "Cannot cast ufunc '%s' input %d from %R to %R with casting rule 'same_kind'",
                     f.name, i, from.get(), reinterpret_cast<PyObject*>(forced));
        return false;
      }
    }
    return true;
  }
  const DType* dt = ops.dt;
  if (ops.weak[0] != Weak::kNone && ops.weak[1] != Weak::kNone) {
    *compute = std::max(dt[0], dt[1]);  // bool < int64 < float64 in DType order
  } else if (ops.AnyWeak()) {
    const int s = ops.weak[0] != Weak::kNone ? 1 : 0;
    *compute = PromoteWeak(dt[s], ops.weak[1 - s]);
  } else if (dt[0] == dt[1]) {
    *compute = dt[0];
  } else {
    PyArray_Descr* p =
        PyArray_PromoteTypes(PyArray_DESCR(ops.arr[0].arr()), PyArray_DESCR(ops.arr[1].arr()));
    if (!p) return false;
    const bool ok = ToDType(p, compute);
    if (!ok) TypeErrorDType(f, p);
    Py_DECREF(p);
    return ok;
  }
  return true;
}

}  // namespace eltwise
