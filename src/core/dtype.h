// The dtypes eltwise computes in, and the kernels' interface. No Python here.
#ifndef ELTWISE_CORE_DTYPE_H_
#define ELTWISE_CORE_DTYPE_H_

#include <cstddef>
#include <cstdint>

#include "core/ops.h"

namespace eltwise {

// How a one-byte coded dtype (ml_dtypes' float8, float6, float4, int4, int2)
// lays out its value in the low `bits` bits of its byte. A float: a sign bit
// (unless unsigned), exp_bits of exponent biased by `bias`, mant_bits of
// mantissa. An integer (exp_bits 0): two's complement or binary; the bits
// above are ignored when read and zero when written, as ml_dtypes does.
// `special` says what the format has besides finite numbers, each as
// ml_dtypes defines it (docs/semantics.md, "Low-precision dtypes"):
// - kIEEE: infinities and NaNs where the exponent is all ones (float8_e5m2,
//   float8_e4m3, float8_e3m4);
// - kFN: no infinities, NaN where exponent and mantissa are all ones
//   (float8_e4m3fn);
// - kFNUZ: no infinities, no -0: the code of -0 is the only NaN;
// - kFinite: neither (float6, float4); a NaN converts to -0 (a negative one
//   to +0) and anything beyond the largest finite value to that value;
// - kE8M0: unsigned powers of two 2^(code - 127), code 0xFF is NaN; no zero.
// A native dtype (its storage is its value) has bits == 0.
enum class Special : int { kNone, kIEEE, kFN, kFNUZ, kFinite, kE8M0 };
struct CodeFormat {
  int bits;
  int exp_bits;
  int mant_bits;
  int bias;
  Special special;
};
inline constexpr CodeFormat kNative{0, 0, 0, 0, Special::kNone};
// A coded integer: `bits` bits of two's complement (signed) or binary, in the
// byte's low bits.
constexpr CodeFormat IntCode(int bits) { return {bits, 0, 0, 0, Special::kNone}; }
constexpr CodeFormat FloatCode(int exp_bits, int mant_bits, int bias, Special special) {
  return {(special == Special::kE8M0 ? 0 : 1) + exp_bits + mant_bits, exp_bits, mant_bits, bias,
          special};
}

// The dtype table: every element type eltwise computes in, one row each, and
// the traits the rest of the code reads from it. Adding a dtype is a row here,
// its kernel registrations (kernels/) and, for a C++ type of its own, its
// DTypeOf (kernels/table.h); no code depends on the order of DType.
//
// X(Id, storage, name, category, source, format):
// - storage: the C++ type of one element's bytes; bool is one byte holding 0
//   or 1, float16 and bfloat16 are their 16-bit patterns (uint16_t), a coded
//   dtype is Coded<its id> (one byte, its code);
// - name: the dtype's name in NumPy or ml_dtypes (numpy.dtype(name));
// - category: bool, signed or unsigned integer, or float;
// - source: the module whose attribute `name` is the dtype;
// - format: kNative, or the CodeFormat of a coded dtype.
enum class DCategory : int { kBool, kSigned, kUnsigned, kFloat };
enum class DSource : int { kNumpy, kMlDtypes };

#define ELTWISE_DTYPES(X)                                                                        \
  X(Bool, uint8_t, "bool", kBool, kNumpy, kNative)                                               \
  X(I8, int8_t, "int8", kSigned, kNumpy, kNative)                                                \
  X(I16, int16_t, "int16", kSigned, kNumpy, kNative)                                             \
  X(I32, int32_t, "int32", kSigned, kNumpy, kNative)                                             \
  X(I64, int64_t, "int64", kSigned, kNumpy, kNative)                                             \
  X(U8, uint8_t, "uint8", kUnsigned, kNumpy, kNative)                                            \
  X(U16, uint16_t, "uint16", kUnsigned, kNumpy, kNative)                                         \
  X(U32, uint32_t, "uint32", kUnsigned, kNumpy, kNative)                                         \
  X(U64, uint64_t, "uint64", kUnsigned, kNumpy, kNative)                                         \
  X(F16, uint16_t, "float16", kFloat, kNumpy, kNative)                                           \
  X(BF16, uint16_t, "bfloat16", kFloat, kMlDtypes, kNative)                                      \
  X(F32, float, "float32", kFloat, kNumpy, kNative)                                              \
  X(F64, double, "float64", kFloat, kNumpy, kNative)                                             \
  X(F8E4M3FN, Coded<DType::kF8E4M3FN>, "float8_e4m3fn", kFloat, kMlDtypes,                       \
    (FloatCode(4, 3, 7, Special::kFN)))                                                          \
  X(F8E5M2, Coded<DType::kF8E5M2>, "float8_e5m2", kFloat, kMlDtypes,                             \
    (FloatCode(5, 2, 15, Special::kIEEE)))                                                       \
  X(F8E4M3FNUZ, Coded<DType::kF8E4M3FNUZ>, "float8_e4m3fnuz", kFloat, kMlDtypes,                 \
    (FloatCode(4, 3, 8, Special::kFNUZ)))                                                        \
  X(F8E5M2FNUZ, Coded<DType::kF8E5M2FNUZ>, "float8_e5m2fnuz", kFloat, kMlDtypes,                 \
    (FloatCode(5, 2, 16, Special::kFNUZ)))                                                       \
  X(F8E8M0FNU, Coded<DType::kF8E8M0FNU>, "float8_e8m0fnu", kFloat, kMlDtypes,                    \
    (FloatCode(8, 0, 127, Special::kE8M0)))                                                      \
  X(F4E2M1FN, Coded<DType::kF4E2M1FN>, "float4_e2m1fn", kFloat, kMlDtypes,                       \
    (FloatCode(2, 1, 1, Special::kFinite)))                                                      \
  X(F8E4M3, Coded<DType::kF8E4M3>, "float8_e4m3", kFloat, kMlDtypes,                             \
    (FloatCode(4, 3, 7, Special::kIEEE)))                                                        \
  X(F8E3M4, Coded<DType::kF8E3M4>, "float8_e3m4", kFloat, kMlDtypes,                             \
    (FloatCode(3, 4, 3, Special::kIEEE)))                                                        \
  X(F8E4M3B11FNUZ, Coded<DType::kF8E4M3B11FNUZ>, "float8_e4m3b11fnuz", kFloat, kMlDtypes,        \
    (FloatCode(4, 3, 11, Special::kFNUZ)))                                                       \
  X(F6E2M3FN, Coded<DType::kF6E2M3FN>, "float6_e2m3fn", kFloat, kMlDtypes,                       \
    (FloatCode(2, 3, 1, Special::kFinite)))                                                      \
  X(F6E3M2FN, Coded<DType::kF6E3M2FN>, "float6_e3m2fn", kFloat, kMlDtypes,                       \
    (FloatCode(3, 2, 3, Special::kFinite)))                                                      \
  X(I4, Coded<DType::kI4>, "int4", kSigned, kMlDtypes, IntCode(4))                                \
  X(U4, Coded<DType::kU4>, "uint4", kUnsigned, kMlDtypes, IntCode(4))                             \
  X(I2, Coded<DType::kI2>, "int2", kSigned, kMlDtypes, IntCode(2))                                \
  X(U2, Coded<DType::kU2>, "uint2", kUnsigned, kMlDtypes, IntCode(2))

enum class DType : int {
#define ELTWISE_DTYPE_ID(id, ...) k##id,
  ELTWISE_DTYPES(ELTWISE_DTYPE_ID)
#undef ELTWISE_DTYPE_ID
};

// The storage of a coded dtype: one byte, its code. A type per dtype, so
// that kernels and casts tell the formats apart by type.
template <DType kId>
struct Coded {
  uint8_t code;
};

struct DTypeTraits {
  const char* name;
  size_t item_size;
  DCategory category;
  DSource source;
  CodeFormat format;
};

inline constexpr DTypeTraits kDTypeTraits[] = {
#define ELTWISE_DTYPE_TRAITS(id, storage, name, category, source, format) \
  {name, sizeof(storage), DCategory::category, DSource::source, format},
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
// A coded dtype: its byte is a code (CodeFormat), not a native value.
constexpr bool IsCoded(DType t) { return Traits(t).format.bits != 0; }
// A float narrower than float32 (float16, bfloat16 and the coded floats):
// computed in float32 and rounded once per op (docs/semantics.md,
// "Exactness").
constexpr bool IsNarrowFloat(DType t) { return IsFloat(t) && ItemSize(t) < 4; }

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
  // With kHintStream: the caller fences the streamed stores itself (an
  // sfence before anyone reads them), so the loop leaves them unfenced (a
  // fence per call of a few cache lines stalls on every call).
  kHintNoFlush = 4,
  // A store split across two cache lines costs more than two split loads
  // (Intel's: docs/benchmarks.md, "Bandwidth and fresh results"): the loop's
  // head then weighs a split result stream 5 per vector byte instead of 1.
  kHintSplitStoresCostly = 8,
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
