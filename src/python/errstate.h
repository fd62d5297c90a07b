// Integer division by zero reported as NumPy reports floating-point errors:
// through numpy.errstate (warn, ignore, raise, call, print, log).
#ifndef ELTWISE_PYTHON_ERRSTATE_H_
#define ELTWISE_PYTHON_ERRSTATE_H_

#include "python/numpy_dtypes.h"

namespace eltwise {

// Reports a division by zero in function f. False when that raised.
bool ReportDivideByZero(const FunctionInfo& f);

// True when numpy.errstate says divide="raise" (a result must then not be
// written to `out` before the check). False on error too, with it cleared.
bool DivideRaises();

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_ERRSTATE_H_
