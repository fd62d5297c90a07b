// Delegation (docs/semantics.md, "Delegation"): a call whose operand is not a plain
// ndarray, scalar or list (an ndarray subclass, or anything with its own
// __array_ufunc__: dask, pandas, xarray, ...) goes to the ufunc twin, after
// pdpd and none are turned into numpy broadcasting, so the operand's own
// protocol decides the result.
#ifndef ELTWISE_PYTHON_DELEGATION_H_
#define ELTWISE_PYTHON_DELEGATION_H_

#include "python/arguments.h"

namespace eltwise {

// True when the call must be delegated. Costs one type check for plain
// ndarrays and Python scalars.
bool NeedsDelegationSlow(const Options& o);
inline bool NeedsDelegation(const Options& o) {
  if (PyArray_CheckExact(o.x1) && PyArray_CheckExact(o.x2) &&
      (!o.out || PyArray_CheckExact(o.out))) {
    return false;  // the usual call, decided inline
  }
  return NeedsDelegationSlow(o);
}

// Calls the Python delegate eltwise._delegation.call(name, x1, x2, out, mode,
// axis, pythondiv, dtype) set by SetDelegate. nullptr with an error set.
PyObject* Delegate(const FunctionInfo& f, const Options& o);

// eltwise._eltwise._set_delegate: remembers `fn` (a new reference is kept).
void SetDelegate(PyObject* fn);

// The shape x2 takes so that numpy broadcasting of x1 with it means what
// `mode` means (pdpd: x2's dims placed at axis); x2's own shape for numpy.
// Raises the fast door's ValueError when the shapes do not fit.
PyObject* NumpyShapeOfX2(const char* name, BroadcastMode mode, PyObject* shape1,
                         PyObject* shape2, int64_t axis);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_DELEGATION_H_
