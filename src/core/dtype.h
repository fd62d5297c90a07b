// The dtypes eltwise computes in, and the kernels' interface. No Python here.
#ifndef ELTWISE_CORE_DTYPE_H_
#define ELTWISE_CORE_DTYPE_H_

#include <cstddef>
#include <cstdint>

#include "core/ops.h"

namespace eltwise {

// The dtype table: every element type eltwise computes in, one row each, and
// the traits the rest of the code reads from it. Adding a dtype is a row here,
// its kernel registrations (kernels/) and, for a C++ type of its own, its
// DTypeOf (kernels/table.h); no code depends on the order of DType.
//
// X(Id, storage, name, category, source):
// - storage: the C++ type of one element's bytes; bool is one byte holding 0
//   or 1, float16 and bfloat16 are their 16-bit patterns (uint16_t);
// - name: the dtype's name in NumPy or ml_dtypes (numpy.dtype(name));
// - category: bool, signed or unsigned integer, or float;
// - source: the module whose attribute `name` is the dtype.
enum class DCategory : int { kBool, kSigned, kUnsigned, kFloat };
enum class DSource : int { kNumpy, kMlDtypes };

#define ELTWISE_DTYPES(X)                                \
  X(Bool, uint8_t, "bool", kBool, kNumpy)                \
  X(I8, int8_t, "int8", kSigned, kNumpy)                 \
  X(I16, int16_t, "int16", kSigned, kNumpy)              \
  X(I32, int32_t, "int32", kSigned, kNumpy)              \
  X(I64, int64_t, "int64", kSigned, kNumpy)              \
  X(U8, uint8_t, "uint8", kUnsigned, kNumpy)             \
  X(U16, uint16_t, "uint16", kUnsigned, kNumpy)          \
  X(U32, uint32_t, "uint32", kUnsigned, kNumpy)          \
  X(U64, uint64_t, "uint64", kUnsigned, kNumpy)          \
  X(F16, uint16_t, "float16", kFloat, kNumpy)            \
  X(BF16, uint16_t, "bfloat16", kFloat, kMlDtypes)       \
  X(F32, float, "float32", kFloat, kNumpy)               \
  X(F64, double, "float64", kFloat, kNumpy)

enum class DType : int {
#define ELTWISE_DTYPE_ID(id, ...) k##id,
  ELTWISE_DTYPES(ELTWISE_DTYPE_ID)
#undef ELTWISE_DTYPE_ID
};

struct DTypeTraits {
  const char* name;
  size_t item_size;
  DCategory category;
  DSource source;
};

inline constexpr DTypeTraits kDTypeTraits[] = {
#define ELTWISE_DTYPE_TRAITS(id, storage, name, category, source) \
  {name, sizeof(storage), DCategory::category, DSource::source},
    ELTWISE_DTYPES(ELTWISE_DTYPE_TRAITS)
#undef ELTWISE_DTYPE_TRAITS
};
constexpr int kNumDTypes = static_cast<int>(sizeof(kDTypeTraits) / sizeof(kDTypeTraits[0]));

constexpr const DTypeTraits& Traits(DType t) { return kDTypeTraits[static_cast<int>(t)]; }
constexpr size_t ItemSize(DType t) { return Traits(t).item_size; }
constexpr bool IsFloat(DType t) { return Traits(t).category == DCategory::kFloat; }
constexpr bool IsSignedInt(DType t) { return Traits(t).category == DCategory::kSigned; }
constexpr bool IsInteger(DType t) {
  return IsSignedInt(t) || Traits(t).category == DCategory::kUnsigned;
}
// A float narrower than float32 (float16, bfloat16): computed in float32 and
// rounded once per op (docs/semantics.md, "Exactness").
constexpr bool IsHalfFloat(DType t) { return IsFloat(t) && ItemSize(t) < 4; }

constexpr const char* CategoryName(DCategory c) {
  switch (c) {
    case DCategory::kBool: return "bool";
    case DCategory::kSigned: return "signed";
    case DCategory::kUnsigned: return "unsigned";
    default: return "float";
  }
}
constexpr const char* SourceName(DSource s) {
  return s == DSource::kNumpy ? "numpy" : "ml_dtypes";
}

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
