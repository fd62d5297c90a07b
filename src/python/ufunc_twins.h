// The ufunc twins (docs/semantics.md, "Delegation"): one real numpy.ufunc per public
// function, whose inner loops are eltwise's kernels, so NumPy's machinery
// gives reduce, accumulate, outer, at, where=, casting= and __array_ufunc__.
#ifndef ELTWISE_PYTHON_UFUNC_TWINS_H_
#define ELTWISE_PYTHON_UFUNC_TWINS_H_

#include <vector>

#include "python/numpy_dtypes.h"

namespace eltwise {

// Creates the twin of `f` (a new reference), named `name` in module
// `eltwise.ufunc`: `divide` floors integers (pythondiv=True), `divide_trunc`
// (truncate=true) truncates them. Its reduce starts from the identity, as
// NumPy's legacy loops do, but on the ml_dtypes dtypes in `first_element`
// (those whose NumPy namesake starts a non-empty reduce from the first
// element, as ml_dtypes 0.7 makes some of them) it starts from the first
// element too. nullptr with an error set.
PyObject* MakeUfuncTwin(const FunctionInfo& f, const char* name, const char* doc, bool truncate,
                        const std::vector<DType>& first_element);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_UFUNC_TWINS_H_
