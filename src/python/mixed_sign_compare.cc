#include "python/mixed_sign_compare.h"

namespace eltwise {

int MixedSignOperand(OpId op, PyArray_Descr* forced, const Operands& ops) {
  if (!IsComparison(op) || forced || ops.AnyWeak()) return -1;
  if (ops.dt[0] == DType::kI64 && ops.dt[1] == DType::kU64) return 0;
  if (ops.dt[0] == DType::kU64 && ops.dt[1] == DType::kI64) return 1;
  return -1;
}

bool FixMixedSignCompare(OpId op, int s, PyArrayObject* bits, const Layout& layout,
                         PyArrayObject* result) {
  npy_intp dims[kMaxDims], strides[kMaxDims];
  for (int i = 0; i < layout.ndim; ++i) {
    dims[i] = PyArray_DIM(result, i);
    strides[i] = layout.strides[i];
  }
  Ref view(PyArray_NewFromDescr(&PyArray_Type, PyArray_DescrFromType(NPY_INT64), layout.ndim,
                                dims, strides, PyArray_DATA(bits), 0, nullptr));
  if (!view) return false;
  Py_INCREF(bits);
  if (PyArray_SetBaseObject(view.arr(), reinterpret_cast<PyObject*>(bits)) < 0) return false;
  Ref zero(PyLong_FromLong(0));
  if (!zero) return false;
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

}  // namespace eltwise
