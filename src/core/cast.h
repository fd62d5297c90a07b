// Conversions between the built-in dtypes for the fast door's operands. NumPy's
// own cast (PyArray_FromAny with a dtype) sets up its casting machinery on every
// call, about 3,000 instructions per operand: more than a whole small call. No
// Python here.
#ifndef ELTWISE_CORE_CAST_H_
#define ELTWISE_CORE_CAST_H_

#include <cstdint>

#include "core/dtype.h"

namespace eltwise {

// Converts n contiguous elements of `from` at src to `to` at dst, as C's
// conversions do (which is what NumPy's casts do: integers wrap, floats round
// to nearest, bool is 0 or 1). Returns false, with dst partly written, where
// the result would differ from NumPy's: float16 and bfloat16 (not handled) and
// a finite float64 that overflows float32 (NumPy warns there).
bool CastRun(DType from, DType to, const void* src, void* dst, int64_t n);

}  // namespace eltwise

#endif  // ELTWISE_CORE_CAST_H_
