// Checks on operand values that decide errors before anything is written.
#ifndef ELTWISE_PYTHON_VALUE_CHECKS_H_
#define ELTWISE_PYTHON_VALUE_CHECKS_H_

#include "python/numpy_dtypes.h"

namespace eltwise {

// 1 if any element of `a` (native signed integers) is negative, else 0;
// -1 with an error set.
int AnyNegative(PyArrayObject* a);

// 1 if any element of `a` (native integers) is zero, else 0; -1 with an
// error set.
int AnyZero(PyArrayObject* a);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_VALUE_CHECKS_H_
