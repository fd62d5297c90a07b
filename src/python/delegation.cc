#include "python/delegation.h"

#include <string>

namespace eltwise {
namespace {

PyObject* g_delegate = nullptr;
PyObject* g_array_ufunc = nullptr;  // interned "__array_ufunc__"

bool Foreign(PyObject* x) {
  if (PyArray_CheckExact(x)) return false;
  PyTypeObject* t = Py_TYPE(x);
  if (t == &PyFloat_Type || t == &PyLong_Type || t == &PyBool_Type || t == &PyList_Type ||
      t == &PyTuple_Type) {
    return false;
  }
  if (PyArray_Check(x)) return true;  // a subclass
  if (PyArray_IsScalar(x, Generic)) return false;
  if (!g_array_ufunc) {
    g_array_ufunc = PyUnicode_InternFromString("__array_ufunc__");
    if (!g_array_ufunc) { PyErr_Clear(); return false; }
  }
  // Looked up on the type, as NumPy does.
  PyObject* attr = PyObject_GetAttr(reinterpret_cast<PyObject*>(t), g_array_ufunc);
  if (!attr) { PyErr_Clear(); return false; }
  Py_DECREF(attr);
  return true;
}

const char* ModeName(BroadcastMode m) {
  return m == BroadcastMode::kNone ? "none" : m == BroadcastMode::kPdpd ? "pdpd" : "numpy";
}

// A shape sequence as a Layout (strides 0: only the shape matters here). The
// items are read from a tuple this function owns: an item's __index__ may run
// Python code that changes the caller's sequence (a list's items are borrowed).
bool ReadShape(PyObject* shape, Layout* l) {
  Ref seq(PySequence_Tuple(shape));
  if (!seq) {
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyErr_SetString(PyExc_TypeError, "shape must be a sequence");
    }
    return false;
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(seq.get());
  if (n > kMaxDims) {
    PyErr_Format(PyExc_ValueError, "more than %d dimensions", kMaxDims);
    return false;
  }
  l->ndim = static_cast<int>(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyTuple_GET_ITEM(seq.get(), i);
    const long long d = PyIndex_Check(item) ? PyLong_AsLongLong(item) : -1;
    if (d == -1 && PyErr_Occurred()) return false;
    if (d < 0) {
      PyErr_SetString(PyExc_ValueError, "the operands' shapes must be known (no unknown sizes)");
      return false;
    }
    l->shape[i] = d;
    l->strides[i] = 0;
  }
  return true;
}

}  // namespace

bool NeedsDelegationSlow(const Options& o) {
  return Foreign(o.x1) || Foreign(o.x2) || (o.out && !PyArray_CheckExact(o.out));
}

void SetDelegate(PyObject* fn) {
  Py_XINCREF(fn);
  Py_XSETREF(g_delegate, fn);
}

PyObject* Delegate(const FunctionInfo& f, const Options& o) {
  if (!g_delegate) {
    PyErr_SetString(PyExc_RuntimeError, "eltwise: the delegate is not set (import eltwise)");
    return nullptr;
  }
  PyObject* out = o.out ? reinterpret_cast<PyObject*>(o.out) : Py_None;
  PyObject* dtype = o.dtype ? reinterpret_cast<PyObject*>(o.dtype) : Py_None;
  return PyObject_CallFunction(g_delegate, "sOOOsLOO", f.name, o.x1, o.x2, out, ModeName(o.mode),
                               static_cast<long long>(o.axis), o.pythondiv ? Py_True : Py_False,
                               dtype);
}

PyObject* NumpyShapeOfX2(const char* name, BroadcastMode mode, PyObject* shape1,
                         PyObject* shape2, int64_t axis) {
  Layout a, b;
  if (!ReadShape(shape1, &a) || !ReadShape(shape2, &b)) return nullptr;
  int64_t out[kMaxDims];
  int nd = 0;
  std::string error;
  if (!Broadcast(mode, axis, a, b, out, &nd, name, &error)) {
    PyErr_SetString(PyExc_ValueError, error.c_str());
    return nullptr;
  }
  if (mode != BroadcastMode::kPdpd) return Py_NewRef(shape2);
  PyObject* t = PyTuple_New(b.ndim);
  if (!t) return nullptr;
  for (int i = 0; i < b.ndim; ++i) {
    PyObject* d = PyLong_FromLongLong(b.shape[i]);
    if (!d) { Py_DECREF(t); return nullptr; }
    PyTuple_SET_ITEM(t, i, d);
  }
  return t;
}

}  // namespace eltwise
