// The dtypes eltwise computes in, and the kernels' interface. No Python here.
#ifndef ELTWISE_CORE_DTYPE_H_
#define ELTWISE_CORE_DTYPE_H_

#include <cstddef>
#include <cstdint>

#include "core/ops.h"

namespace eltwise {

// Element types. bool is stored as one byte holding 0 or 1; float16 and
// bfloat16 as their 16-bit patterns.
enum class DType : int {
  kBool, kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kF16, kBF16, kF32, kF64,
};
constexpr int kNumDTypes = 13;

constexpr size_t ItemSize(DType t) {
  switch (t) {
    case DType::kBool: case DType::kI8: case DType::kU8: return 1;
    case DType::kI16: case DType::kU16: case DType::kF16: case DType::kBF16: return 2;
    case DType::kI32: case DType::kU32: case DType::kF32: return 4;
    default: return 8;
  }
}
constexpr bool IsFloat(DType t) { return t >= DType::kF16; }
constexpr bool IsSignedInt(DType t) { return t >= DType::kI8 && t <= DType::kI64; }
constexpr bool IsInteger(DType t) { return t >= DType::kI8 && t <= DType::kU64; }


// How the inner run of a plan is laid out: both operands contiguous, one a
// broadcast scalar (stride 0) and the other contiguous. Anything else runs
// through a StridedKernel (memory-bound ops) or is gathered into contiguous
// blocks by the executor.
enum class LoopKind : int { kContiguous, kScalarFirst, kScalarSecond };
constexpr int kNumLoopKinds = 3;

// Bits a kernel returns about what it met.
enum KernelFlags : int { kFlagDivideByZero = 1 };

// What the caller of an inner loop knows about the call (bits).
enum KernelHints : unsigned {
  kHintStream = 1,  // the output is larger than the cache: non-temporal stores
  // The array operands were not written just before the call (user memory,
  // not a buffer the caller filled lane by lane): the loop may read their
  // last whole vector again (a freshly written one fails store forwarding).
  kHintSettledInputs = 2,
};

// Inner loop: out[i] = op(a[i], b[i]) for i < n (a or b read once when the
// loop kind says it is a scalar), with KernelHints. Returns KernelFlags.
using BinaryKernel = int (*)(const void* a, const void* b, void* out, size_t n, unsigned hints);

// Copies n elements of `size` bytes (1, 2, 4 or 8), `stride` bytes apart
// from src, to dst contiguously.
using PackKernel = void (*)(void* dst, const void* src, int64_t stride, size_t n, size_t size);

// dst[r * m + j] = src[j * inner + r * outer] (byte strides) for r < rows,
// j < m, elements of `size` bytes (1, 2, 4 or 8).
using TransposeKernel = void (*)(void* dst, const void* src, int64_t inner, int64_t outer,
                                 int64_t rows, int64_t m, size_t size);

// Inner loop over strided operands: out[i] = op(a[i * sa], b[i * sb]) for
// i < n, byte strides (0 for a broadcast element), out contiguous. Returns
// KernelFlags.
using StridedKernel = int (*)(const void* a, int64_t sa, const void* b, int64_t sb, void* out,
                              size_t n);

}  // namespace eltwise

#endif  // ELTWISE_CORE_DTYPE_H_
