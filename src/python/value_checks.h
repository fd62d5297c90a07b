// Checks on operand values that decide errors before anything is written.
#ifndef ELTWISE_PYTHON_VALUE_CHECKS_H_
#define ELTWISE_PYTHON_VALUE_CHECKS_H_

#include "python/numpy_dtypes.h"

namespace eltwise {

// Whether op on dtype t refuses negative exponents: integer power, as
// NumPy's ValueError "Integers to negative integer powers are not allowed."
constexpr bool RefusesNegativeExponents(OpId op, DType t) {
  return op == OpId::kPower && IsSignedInt(t);
}

// Sets that ValueError; returns nullptr.
PyObject* RaiseNegativeExponent();

// 1 if any element of `a` (signed integers of dtype t, native or coded) is
// negative, else 0; -1 with an error set.
int AnyNegative(PyArrayObject* a, DType t);

// Whether any of n signed integers of dtype t, `stride` bytes apart from p,
// is negative.
bool AnyNegativeStrided(const char* p, npy_intp n, npy_intp stride, DType t);

// 1 if any element of `a` (integers of dtype t, native or coded) is zero,
// else 0; -1 with an error set.
int AnyZero(PyArrayObject* a, DType t);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_VALUE_CHECKS_H_
