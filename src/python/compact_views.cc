#include "python/compact_views.h"

#include "core/broadcast.h"  // kMaxDims
#include "core/cast.h"
#include "kernels/table.h"

namespace eltwise {
namespace {

// A read-only view of `base`'s memory at `data` with the given shape and
// strides (a new reference that keeps base alive).
PyArrayObject* ViewOf(PyArrayObject* base, PyArray_Descr* d, int nd, npy_intp* dims,
                      npy_intp* strides, char* data) {
  Py_INCREF(d);
  PyObject* v = PyArray_NewFromDescr(&PyArray_Type, d, nd, dims, strides, data, 0, nullptr);
  if (!v) return nullptr;
  Py_INCREF(base);
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(v),
                            reinterpret_cast<PyObject*>(base)) < 0) {
    Py_DECREF(v);
    return nullptr;
  }
  return reinterpret_cast<PyArrayObject*>(v);
}

bool HasBroadcastAxis(PyArrayObject* a) {
  for (int i = 0; i < PyArray_NDIM(a); ++i) {
    if (PyArray_STRIDE(a, i) == 0 && PyArray_DIM(a, i) > 1) return true;
  }
  return false;
}

// `a` converted to `d` by CastRun when a is contiguous (C or Fortran), native,
// and the cast is one CastRun does as NumPy would: a new array laid out as a.
// nullptr otherwise (with an error set only if allocating failed).
PyObject* CastContiguous(PyArrayObject* a, PyArray_Descr* d) {
  DType from, to;
  const bool c_order = PyArray_IS_C_CONTIGUOUS(a);
  if (!(c_order || PyArray_IS_F_CONTIGUOUS(a)) || !PyArray_ISNOTSWAPPED(a) ||
      !ToDType(PyArray_DESCR(a), &from) || !ToDType(d, &to)) {
    return nullptr;
  }
  Py_INCREF(d);
  Ref r(PyArray_NewFromDescr(&PyArray_Type, d, PyArray_NDIM(a), PyArray_DIMS(a), nullptr, nullptr,
                             c_order ? 0 : NPY_ARRAY_F_CONTIGUOUS, nullptr));
  if (!r) return nullptr;
  if (!CastRun(&Kernels().cast, from, to, PyArray_BYTES(a), PyArray_BYTES(r.arr()),
               PyArray_SIZE(a))) {
    return nullptr;
  }
  return r.release();
}

}  // namespace

PyArrayObject* CompactView(PyArrayObject* a) {
  if (!HasBroadcastAxis(a)) {
    Py_INCREF(a);
    return a;
  }
  const int nd = PyArray_NDIM(a);
  npy_intp dims[kMaxDims];
  // Only axes that repeat (length > 1): a length-0 axis stays 0, or an empty
  // array's view would claim elements its memory does not hold.
  for (int i = 0; i < nd; ++i) {
    dims[i] = PyArray_STRIDE(a, i) == 0 && PyArray_DIM(a, i) > 1 ? 1 : PyArray_DIM(a, i);
  }
  return ViewOf(a, PyArray_DESCR(a), nd, dims, PyArray_STRIDES(a), PyArray_BYTES(a));
}

PyArrayObject* ConvertedOperand(PyArrayObject* a, PyArray_Descr* d) {
  if (PyArray_EquivTypes(PyArray_DESCR(a), d) && PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) {
    Py_INCREF(a);
    return a;
  }
  if (PyObject* fast = CastContiguous(a, d)) return reinterpret_cast<PyArrayObject*>(fast);
  if (PyErr_Occurred()) return nullptr;
  Ref compact(reinterpret_cast<PyObject*>(CompactView(a)));
  if (!compact) return nullptr;
  Py_INCREF(d);
  Ref cast(PyArray_FromAny(compact.get(), d, 0, 0,
                           NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_FORCECAST, nullptr));
  if (!cast || compact.get() == reinterpret_cast<PyObject*>(a)) {
    return reinterpret_cast<PyArrayObject*>(cast.release());
  }
  const int nd = PyArray_NDIM(a);
  npy_intp dims[kMaxDims], strides[kMaxDims];
  for (int i = 0; i < nd; ++i) {
    dims[i] = PyArray_DIM(a, i);
    strides[i] = PyArray_STRIDE(a, i) == 0 ? 0 : PyArray_STRIDE(cast.arr(), i);
  }
  return ViewOf(cast.arr(), PyArray_DESCR(cast.arr()), nd, dims, strides,
                PyArray_BYTES(cast.arr()));
}

}  // namespace eltwise
