// The fast door: one call of a binary function on ndarrays, scalars or lists,
// from its arguments to its result.
#ifndef ELTWISE_PYTHON_BINARY_CALL_H_
#define ELTWISE_PYTHON_BINARY_CALL_H_

#include "python/arguments.h"
#include "python/numpy_dtypes.h"
#include "python/promotion.h"

namespace eltwise {

// Computes f(x1, x2, out=..., broadcast=..., axis=..., pythondiv=..., dtype=...)
// for a METH_FASTCALL call. Returns the result, or nullptr with a Python error
// set; no C++ exception leaves it.
PyObject* BinaryCall(const FunctionInfo& f, PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwnames) noexcept;

// What a call of f computes, decided from its operands and keywords before
// any element is read: the kernels' op and the dtypes.
struct Resolution {
  OpId op = OpId::kAdd;
  DType compute = DType::kBool;
  DType result = DType::kBool;  // bool for comparisons and logical ops, else compute
  // The int64 operand (0 or 1) of an int64/uint64 comparison, computed in
  // uint64 and fixed afterwards (mixed_sign_compare.h); -1 if none.
  int mixed_signed = -1;
  // Stand-ins RewriteOutOfRangeComparison put into the operands (non-empty
  // when it rewrote the comparison).
  Ref pyint_holders[2];
};

// Reads opt's operands into *ops and decides *r as the call does. False with
// an error set (the call's TypeError for a dtype or operand it refuses).
bool Resolve(const FunctionInfo& f, const Options& opt, Operands* ops, Resolution* r);

// The weak Python scalar operand i of ops as a 0-d array of cdescr, as op's
// kernels read it (a logical op: its truth). nullptr with an error set.
PyObject* WeakScalarArray(OpId op, const Operands& ops, int i, PyArray_Descr* cdescr);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_BINARY_CALL_H_
