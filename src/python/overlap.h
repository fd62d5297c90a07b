// Memory overlap between an input and `out` (docs/semantics.md: "`out=`": the result is as if
// the inputs were read before anything was written), and between two arrays.
#ifndef ELTWISE_PYTHON_OVERLAP_H_
#define ELTWISE_PYTHON_OVERLAP_H_

#include "core/broadcast.h"
#include "python/numpy_dtypes.h"

namespace eltwise {

// True when the input at `data` (its layout broadcast to out's shape, elements
// of `itemsize` bytes) overlaps out in a way a kernel could get wrong. An
// input read through exactly out's addresses is safe (each element is read
// before it is written); any other overlap must be copied first.
bool Overlaps(const char* data, const Layout& in, size_t itemsize, PyArrayObject* out);

// True when the bytes a's elements span and those b's span intersect (the
// bounds np.may_share_memory compares; an extent beyond the address space
// counts as everything).
bool MayShareMemory(PyArrayObject* a, PyArrayObject* b);

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_OVERLAP_H_
