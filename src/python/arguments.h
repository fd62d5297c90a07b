// Parsing a binary function's arguments: positional operands, `out`, and the
// keywords broadcast, axis, pythondiv and dtype (docs/semantics.md: "Operands and dtypes", "Broadcasting", "`out=`").
#ifndef ELTWISE_PYTHON_ARGUMENTS_H_
#define ELTWISE_PYTHON_ARGUMENTS_H_

#include "core/broadcast.h"
#include "python/numpy_dtypes.h"

namespace eltwise {

struct Options {
  PyObject* x1 = nullptr;  // borrowed, as are out and the keyword values
  PyObject* x2 = nullptr;
  PyArrayObject* out = nullptr;  // the array, out of a 1-tuple if given so
  BroadcastMode mode = BroadcastMode::kNumpy;
  int64_t axis = -1;
  bool pythondiv = true;
  PyArray_Descr* dtype = nullptr;  // owned when set
  Options() = default;
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
  ~Options() { Py_XDECREF(dtype); }
};

// Interns the keyword names; call once at import. False with an error set.
bool InitArguments();

// Parses a METH_FASTCALL call of `f` into `o`. False with an error set:
// TypeError for a wrong count, an unknown keyword or a value of the wrong
// type, ValueError for a value out of range.
bool ParseArguments(const FunctionInfo& f, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, Options* o);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_ARGUMENTS_H_
