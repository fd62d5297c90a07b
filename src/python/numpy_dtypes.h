// NumPy's side of eltwise's dtypes: the NumPy C API headers, an owning
// reference, and the mapping between NumPy dtypes and eltwise::DType.
#ifndef ELTWISE_PYTHON_NUMPY_DTYPES_H_
#define ELTWISE_PYTHON_NUMPY_DTYPES_H_

#include <Python.h>

// Every translation unit of the module shares the API table that
// module.cc's import_array() fills.
#define PY_ARRAY_UNIQUE_SYMBOL eltwise_ARRAY_API
#define PY_UFUNC_UNIQUE_SYMBOL eltwise_UFUNC_API
#ifndef ELTWISE_IMPORTS_NUMPY
#define NO_IMPORT_ARRAY
#define NO_IMPORT_UFUNC
#endif
#include <numpy/arrayobject.h>
#include <numpy/ufuncobject.h>

#include "core/dtype.h"
#include "python/functions.h"

namespace eltwise {

// Owns one reference.
class Ref {
 public:
  Ref() = default;
  explicit Ref(PyObject* p) : p_(p) {}
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  Ref(Ref&& o) noexcept : p_(o.release()) {}
  Ref& operator=(Ref&& o) noexcept {
    reset(o.release());
    return *this;
  }
  ~Ref() { Py_XDECREF(p_); }
  void reset(PyObject* p) { Py_XDECREF(p_); p_ = p; }
  PyObject* get() const { return p_; }
  PyArrayObject* arr() const { return reinterpret_cast<PyArrayObject*>(p_); }
  PyObject* release() { PyObject* p = p_; p_ = nullptr; return p; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  PyObject* p_ = nullptr;
};

// Looks up the NumPy type number of every row of the dtype table
// (core/dtype.h), once, at import. A row whose module does not import
// (ml_dtypes' bfloat16 without ml_dtypes) is simply not supported.
void InitDTypes();

// Whether the dtype of row t was found at import.
bool HasDType(DType t);

// The NumPy type number of t; negative when !HasDType(t).
int TypeNum(DType t);

// The DType of a NumPy dtype, or false if eltwise does not compute in it.
bool ToDType(PyArray_Descr* d, DType* out);

// The NumPy dtype of t (a new reference); a TypeError and nullptr when
// !HasDType(t).
PyArray_Descr* DescrOf(DType t);

// Raises "eltwise.<f> does not support dtype <d>" (TypeError); returns nullptr.
PyObject* TypeErrorDType(const FunctionInfo& f, PyArray_Descr* d);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_NUMPY_DTYPES_H_
