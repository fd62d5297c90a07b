// The public function objects (eltwise.divide, ...): the fast door. A small
// type with vectorcall (as cheap to call as a builtin function) that pickles
// by name, names itself in its repr, and lends its ufunc twin's methods and
// attributes (eltwise.add.reduce, .outer, .nin, .types, ...).
#ifndef ELTWISE_PYTHON_FUNCTION_OBJECT_H_
#define ELTWISE_PYTHON_FUNCTION_OBJECT_H_

#include "python/numpy_dtypes.h"

namespace eltwise {

// Readies the type; call once at import. False with an error set.
bool InitFunctionType();

// Creates the public function of `f` (a new reference) with docstring `doc`
// and ufunc twin `twin`. nullptr with an error set.
PyObject* MakeFunctionObject(const FunctionInfo& f, PyObject* doc, PyObject* twin);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_FUNCTION_OBJECT_H_
