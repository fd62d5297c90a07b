// Broadcast views without their broadcast: an operand made by broadcast_to
// (stride-0 axes) is converted and scanned as its one distinct row, never at
// its full, possibly huge, size.
#ifndef ELTWISE_PYTHON_COMPACT_VIEWS_H_
#define ELTWISE_PYTHON_COMPACT_VIEWS_H_

#include "python/numpy_dtypes.h"

namespace eltwise {

// `a` with every stride-0 axis cut to length 1 (a new reference: a view of
// a, or a itself when it has no such axis). nullptr with an error set.
PyArrayObject* CompactView(PyArrayObject* a);

// `a` in dtype `d` (a new reference), aligned and native: a itself when it
// already is, else a converted copy of its compact view, broadcast back to
// a's shape (stride 0 where a had it). nullptr with an error set.
PyArrayObject* ConvertedOperand(PyArrayObject* a, PyArray_Descr* d);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_COMPACT_VIEWS_H_
