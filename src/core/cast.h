// Conversions between the built-in dtypes for the fast door's operands. NumPy's
// own cast (PyArray_FromAny with a dtype) sets up its casting machinery on every
// call, about 3,000 instructions per operand: more than a whole small call. No
// Python here.
#ifndef ELTWISE_CORE_CAST_H_
#define ELTWISE_CORE_CAST_H_

#include <cstdint>

#include "core/dtype.h"

namespace eltwise {

// float16 and bfloat16 (the narrow floats stored as IEEE bits, not codes)
// widen exactly to float32 and float64: each of their values is a float32.
constexpr bool WidensHalfExactly(DType from, DType to) {
  return IsNarrowFloat(from) && !IsCoded(from) && (to == DType::kF32 || to == DType::kF64);
}

// Converts n contiguous elements of `from` at src to `to` at dst, as C's
// conversions do (which is what NumPy's casts do: integers wrap, floats round
// to nearest, bool is 0 or 1); float16 and bfloat16 widen exactly to float32
// and float64. Returns false, with dst partly written, where the result would
// differ from NumPy's or is not handled: other conversions from or to float16
// and bfloat16, the coded dtypes, and a finite float64 that overflows float32
// (NumPy warns there).
bool CastRun(DType from, DType to, const void* src, void* dst, int64_t n);

// A vector form of CastRun for one pair of dtypes (a kernel table's, filled
// per Highway target by kernels/cast.cc): converts n contiguous elements to
// the bits CastRun gives them, and always succeeds.
using CastKernel = void (*)(const void* src, void* dst, int64_t n);
struct CastKernels {
  CastKernel k[kNumDTypes][kNumDTypes] = {};  // [from][to]; null: CastRun's loop
};

// CastRun through fast's kernel for the pair where it has one (fast may be
// null): the same results and the same false cases.
bool CastRun(const CastKernels* fast, DType from, DType to, const void* src, void* dst,
             int64_t n);

}  // namespace eltwise

#endif  // ELTWISE_CORE_CAST_H_
