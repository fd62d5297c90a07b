// The kernel table: one inner loop per [op][dtype][loop kind], filled per
// Highway target by each kernel family.
#ifndef ELTWISE_KERNELS_TABLE_H_
#define ELTWISE_KERNELS_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/cast.h"
#include "core/chain.h"
#include "core/dtype.h"
#include "hwy/base.h"

namespace eltwise {

struct ExecuteArgs;  // core/execute.h

struct KernelTable {
  BinaryKernel k[kNumOps][kNumDTypes][kNumLoopKinds] = {};
  StridedKernel strided[kNumOps][kNumDTypes] = {};  // null: pack strided runs
  // Set where the kScalarSecond loop gives other bits than the strided one
  // (float power's exact small exponents): a strided run beside a broadcast
  // second operand is then packed and sent to kScalarSecond, so the bits do
  // not depend on the layout.
  bool pack_beside_scalar_second[kNumOps][kNumDTypes] = {};
  // Set where a lane costs far more to compute than to load (float power;
  // register-inl.h OpBase::kHeavy): the strided kernel runs only where every
  // operand loads as whole vectors, and 8-byte lanes read across rows go by
  // groups of rows (core/execute.cc RunInner, AcrossRows).
  bool heavy[kNumOps][kNumDTypes] = {};
  PackKernel pack_strided = nullptr;
  TransposeKernel transpose_block = nullptr;
  CastKernels cast;  // kernels/cast.cc: the widening conversions
  // kernels/chain.cc: fused chains' register path (core/chain.h ChainOp);
  // null for the dtypes it does not run on this target (FillChain).
  ChainKernel chain[kNumDTypes] = {};
};

// The DType of a storage type (bool is registered explicitly: it shares uint8_t).
template <typename T> struct DTypeOfStorage;
template <DType kId> struct DTypeOfStorage<Coded<kId>> { static constexpr DType kValue = kId; };
template <> struct DTypeOfStorage<int8_t> { static constexpr DType kValue = DType::kI8; };
template <> struct DTypeOfStorage<int16_t> { static constexpr DType kValue = DType::kI16; };
template <> struct DTypeOfStorage<int32_t> { static constexpr DType kValue = DType::kI32; };
template <> struct DTypeOfStorage<int64_t> { static constexpr DType kValue = DType::kI64; };
template <> struct DTypeOfStorage<uint8_t> { static constexpr DType kValue = DType::kU8; };
template <> struct DTypeOfStorage<uint16_t> { static constexpr DType kValue = DType::kU16; };
template <> struct DTypeOfStorage<uint32_t> { static constexpr DType kValue = DType::kU32; };
template <> struct DTypeOfStorage<uint64_t> { static constexpr DType kValue = DType::kU64; };
template <> struct DTypeOfStorage<hwy::float16_t> { static constexpr DType kValue = DType::kF16; };
template <> struct DTypeOfStorage<hwy::bfloat16_t> { static constexpr DType kValue = DType::kBF16; };
template <> struct DTypeOfStorage<float> { static constexpr DType kValue = DType::kF32; };
template <> struct DTypeOfStorage<double> { static constexpr DType kValue = DType::kF64; };
template <typename T> constexpr DType DTypeOf() { return DTypeOfStorage<T>::kValue; }

// Each kernel family fills its rows for the target Highway dispatches to now.
void FillArithmeticKernels(KernelTable& t);
void FillExtremumKernels(KernelTable& t);
void FillBitwiseKernels(KernelTable& t);
void FillDivisionKernels(KernelTable& t);
void FillPowerKernels(KernelTable& t);
void FillCompareKernels(KernelTable& t);
void FillLogicalKernels(KernelTable& t);

// The executor's gather kernels of the same target (kernels/gather.cc): SIMD
// packing where the stride allows, and transposing in registers where a
// column's elements lie side by side.
void FillGatherKernels(KernelTable& t);
// The conversions of the same target (kernels/cast.cc).
void FillCastKernels(KernelTable& t);
// The chain kernels of the same target (kernels/chain.cc).
void FillChainKernels(KernelTable& t);

// Everything Execute needs to run `op` on `compute` from table t: the kernels
// of one target, read from one table, and core/execute.h's rules for the op
// (kernels/args.cc; Highway kernels include neither core/execute.h nor
// core/fused.h, so a change to how calls run recompiles no kernel).
ExecuteArgs ArgsFor(const KernelTable& t, OpId op, DType compute, const void* a, const void* b,
                    void* out, size_t in_itemsize, size_t out_itemsize);

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
