// The kernel table: one inner loop per [op][dtype][loop kind], filled per
// Highway target by each kernel family.
#ifndef ELTWISE_KERNELS_TABLE_H_
#define ELTWISE_KERNELS_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "hwy/base.h"

namespace eltwise {

struct KernelTable {
  BinaryKernel k[kNumOps][kNumDTypes][kNumLoopKinds] = {};
  StridedKernel strided[kNumOps][kNumDTypes] = {};  // null: pack strided runs
  // Set where the kScalarSecond loop gives other bits than the strided one
  // (float power's exact small exponents): a strided run beside a broadcast
  // second operand is then packed and sent to kScalarSecond, so the bits do
  // not depend on the layout.
  bool pack_beside_scalar_second[kNumOps][kNumDTypes] = {};
};

// The DType of a storage type (bool is registered explicitly: it shares uint8_t).
template <typename T> constexpr DType DTypeOf();
template <> constexpr DType DTypeOf<int8_t>() { return DType::kI8; }
template <> constexpr DType DTypeOf<int16_t>() { return DType::kI16; }
template <> constexpr DType DTypeOf<int32_t>() { return DType::kI32; }
template <> constexpr DType DTypeOf<int64_t>() { return DType::kI64; }
template <> constexpr DType DTypeOf<uint8_t>() { return DType::kU8; }
template <> constexpr DType DTypeOf<uint16_t>() { return DType::kU16; }
template <> constexpr DType DTypeOf<uint32_t>() { return DType::kU32; }
template <> constexpr DType DTypeOf<uint64_t>() { return DType::kU64; }
template <> constexpr DType DTypeOf<hwy::float16_t>() { return DType::kF16; }
template <> constexpr DType DTypeOf<hwy::bfloat16_t>() { return DType::kBF16; }
template <> constexpr DType DTypeOf<float>() { return DType::kF32; }
template <> constexpr DType DTypeOf<double>() { return DType::kF64; }

// Each kernel family fills its rows for the target Highway dispatches to now.
void FillArithmeticKernels(KernelTable& t);
void FillDivisionKernels(KernelTable& t);
void FillPowerKernels(KernelTable& t);
void FillCompareKernels(KernelTable& t);

// Packs n elements of `size` bytes, `stride` bytes apart, into dst (SIMD
// where the stride allows).
void PackStrided(void* dst, const void* src, int64_t stride, size_t n, size_t size);

// dst[r * m + j] = src[j * inner + r * outer] (byte strides) for r < rows,
// j < m, elements of `size` bytes (1 or 2): SIMD where a column's elements
// lie side by side.
void TransposeBlock(void* dst, const void* src, int64_t inner, int64_t outer, int64_t rows,
                    int64_t m, size_t size);

// The table in use. It is never changed or freed (SelectTarget publishes
// another), so a call may keep using it while another thread selects a target.
const KernelTable& Kernels();

// Names of the compiled targets this CPU runs, best first.
std::vector<std::string> AvailableTargets();
// The target the table was built for.
std::string CurrentTarget();
// Restricts dispatch to the named target ("" = the best). False if unknown.
bool SelectTarget(const std::string& name);

}  // namespace eltwise

#endif  // ELTWISE_KERNELS_TABLE_H_
