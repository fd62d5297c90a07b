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

// 1 if any element of `a` (native signed integers) is negative, else 0;
// -1 with an error set.
int AnyNegative(PyArrayObject* a);

// Whether any of n native signed integers of `size` bytes, `stride` bytes
// apart from p, is negative.
bool AnyNegativeStrided(const char* p, npy_intp n, npy_intp stride, size_t size);

// 1 if any element of `a` (native integers) is zero, else 0; -1 with an
// error set.
int AnyZero(PyArrayObject* a);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_VALUE_CHECKS_H_
