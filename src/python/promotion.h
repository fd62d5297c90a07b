// The operands of a call and the dtype it computes in: NumPy 2's promotion,
// Python scalars weak as in NEP 50, bfloat16 as ml_dtypes promotes it (docs/semantics.md: "Operands and dtypes").
#ifndef ELTWISE_PYTHON_PROMOTION_H_
#define ELTWISE_PYTHON_PROMOTION_H_

#include "python/numpy_dtypes.h"

namespace eltwise {

// A Python bool, int or float operand: it takes the other operand's dtype.
enum class Weak { kNone, kBool, kInt, kFloat };

struct Operands {
  PyObject* x[2] = {nullptr, nullptr};  // as given (borrowed)
  Weak weak[2] = {Weak::kNone, Weak::kNone};
  Ref arr[2];                           // the arrays; empty for a weak scalar
  DType dt[2] = {DType::kBool, DType::kBool};  // a weak scalar's own default dtype

  bool AnyWeak() const { return weak[0] != Weak::kNone || weak[1] != Weak::kNone; }
};

// The kind of Python scalar o is (exactly bool, int or float), else kNone.
Weak WeakKind(PyObject* o);

// Reads x1 and x2: arrays as they are, anything else through numpy.asarray,
// Python scalars kept weak. False with an error set (TypeError for a dtype
// eltwise does not compute in).
bool ReadOperands(const FunctionInfo& f, PyObject* x1, PyObject* x2, Operands* ops);

// The dtype the call computes in: `forced` (dtype=) if given, after checking
// both operands cast to it under same_kind; else the promoted dtype. False
// with an error set.
bool ComputeDType(const FunctionInfo& f, const Operands& ops, PyArray_Descr* forced,
                  DType* compute);

// Probes, once at import (after InitDTypes), the dtype NumPy gives each
// ml_dtypes dtype with a Python int and with a Python float: the promotion the
// installed ml_dtypes registers (its 0.7 changed it), which ComputeDType then
// follows.
void InitWeakPromotion();

// Whether the coded integer t takes a Python int as itself (ml_dtypes >= 0.7):
// the int is then converted as NumPy converts it (ConvertCodedPyInt, which
// wraps it into t's bits or raises NumPy's OverflowError), and compared with
// t's elements by value.
bool CodedPyInt(DType t);

// The 0-d array of coded integer dtype d (CodedPyInt) that NumPy makes of the
// Python int v in `numpy.add(x, v)`: as numpy.add(zero of d, v). Nullptr with
// NumPy's error set.
PyObject* ConvertCodedPyInt(PyObject* v, PyArray_Descr* d);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_PROMOTION_H_
