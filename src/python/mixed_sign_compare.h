// int64 against uint64 compares exactly, as NumPy 2 does: their common type,
// float64, would round. The call compares both operands' bits as uint64; this
// then fixes the lanes where the int64 operand is negative (smaller than any
// uint64, so the answer is known whatever the bits said).
#ifndef ELTWISE_PYTHON_MIXED_SIGN_COMPARE_H_
#define ELTWISE_PYTHON_MIXED_SIGN_COMPARE_H_

#include "core/broadcast.h"
#include "python/promotion.h"

namespace eltwise {

// Which operand (0 or 1) is the int64 of an int64/uint64 comparison; -1 if
// the call is not one.
int MixedSignOperand(OpId op, PyArray_Descr* forced, const Operands& ops);

// `result` holds the uint64 comparison; operand `s` is the int64 one, read as
// uint64 from `bits` through `layout` (its strides broadcast to the result).
// False with an error set.
bool FixMixedSignCompare(OpId op, int s, PyArrayObject* bits, const Layout& layout,
                         PyArrayObject* result);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_MIXED_SIGN_COMPARE_H_
