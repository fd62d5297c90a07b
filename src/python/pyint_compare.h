// Comparisons of an integer dtype with a Python int compare exactly, as NumPy
// 2 does (docs/semantics.md, "Comparisons with Python ints"): an int outside
// the dtype's range is never converted into it; every element then compares
// the same way (below the range: each element is greater).
#ifndef ELTWISE_PYTHON_PYINT_COMPARE_H_
#define ELTWISE_PYTHON_PYINT_COMPARE_H_

#include "python/promotion.h"

namespace eltwise {

// Python's rich comparison code of a comparison op.
constexpr int PyCompareOp(OpId op) {
  return op == OpId::kEqual ? Py_EQ : op == OpId::kNotEqual ? Py_NE : op == OpId::kGreater ? Py_GT
         : op == OpId::kGreaterEqual ? Py_GE : op == OpId::kLess ? Py_LT : Py_LE;
}

// Where the Python int v lies against integer dtype t's range: -1 below, 0
// within, 1 above; -2 with an error set.
int PyIntRange(PyObject* v, DType t);

// Writes v (within t's range) as one element of t at dst.
void StoreInt(PyObject* v, DType t, void* dst);

// The answer of `op` for an element of an integer dtype against a Python int
// that lies `range` (-1 or 1) outside the dtype, with the Python int second;
// `int_first` says the Python int comes first instead.
bool ConstantAnswer(OpId op, int range, bool int_first);

// The fast door's part: a comparison of a weak Python int with an integer
// operand (or with another weak Python int) whose answer does not depend on
// the elements becomes one the kernels give the same answer for without the
// out-of-range value: (x >= MIN) for true, (x < MIN) for false, with MIN the
// dtype's smallest value (two Python ints: 0 == 0 or 0 != 0). Rewrites *op
// and the weak operand(s) in *ops, keeping the new values alive in holders.
// False with an error set.
bool RewriteOutOfRangeComparison(OpId* op, Operands* ops, DType compute, Ref holders[2]);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_PYINT_COMPARE_H_
