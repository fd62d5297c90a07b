// The fast door: one call of a binary function on ndarrays, scalars or lists,
// from its arguments to its result.
#ifndef ELTWISE_PYTHON_BINARY_CALL_H_
#define ELTWISE_PYTHON_BINARY_CALL_H_

#include "python/numpy_dtypes.h"

namespace eltwise {

// Computes f(x1, x2, out=..., broadcast=..., axis=..., pythondiv=..., dtype=...)
// for a METH_FASTCALL call. Returns the result, or nullptr with a Python error
// set; no C++ exception leaves it.
PyObject* BinaryCall(const FunctionInfo& f, PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwnames) noexcept;

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_BINARY_CALL_H_
