// One job: what an op declares to the loops (OpBase, MemoryBoundOp) and how
// its loops go into the KernelTable (SetLoops, SetLoopsFor, SetBoolRow, and the
// dtype lists ELTWISE_INT_TYPES and ELTWISE_FLOAT_TYPES).
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_REGISTER_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_REGISTER_INL_H_
#undef ELTWISE_KERNELS_REGISTER_INL_H_
#else
#define ELTWISE_KERNELS_REGISTER_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "hwy/highway.h"
#include "kernels/lanes-inl.h"
#include "kernels/loops-inl.h"
#include "kernels/table.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// Base for ops: reports no flags, needs no preparation. An op may shadow
// PrepareScalarSecond to precompute from the broadcast second operand (a
// scalar divisor, say; in the op's compute type) before the loop runs.
struct OpBase {
  // float16, bfloat16 and the coded floats compute in float32, every other
  // type as stored.
  template <typename T> using Compute = Arith<T>;
  int flags() const { return 0; }
  template <typename T>
  void PrepareScalarSecond(T) {}
  static constexpr bool kMemoryBound = false;
  // Whether strided operands of storage T load where they lie (StridedLoop)
  // rather than being packed into blocks first.
  template <typename T> static constexpr bool kLoadsStrided = false;
  // Whether a lane of storage T costs far more to compute than to load
  // (KernelTable::heavy): strided runs are then packed unless they load as
  // whole vectors, and 8-byte lanes read across rows go by groups of rows.
  template <typename T> static constexpr bool kHeavy = false;
  // Whether BinaryLoop's main loop hands the op kStepVectors<C> vectors of
  // compute type C at once, through a member
  //   template <size_t K, class D, class V> void Steps(D, const V* a, const V* b, V* r) const;
  // (float power on AVX-512: one test of all for their rare lanes).
  static constexpr bool kHasSteps = false;
  template <typename C> static constexpr size_t kStepVectors = 1;
};

// Base for ops that cost no more than moving their bytes (add, compare, ...):
// they also get the strided loop. (Other ops opt in per storage type where
// packing left the memory idle while they computed: power, integer division.)
struct MemoryBoundOp : OpBase {
  static constexpr bool kMemoryBound = true;
  template <typename T> static constexpr bool kLoadsStrided = true;
};

// Puts the loops of Op on storage T (result storage O) into t.
template <class Op, typename T, typename O>
void SetLoops(KernelTable& t, OpId op, DType dtype) {
  auto& row = t.k[static_cast<int>(op)][static_cast<int>(dtype)];
  row[static_cast<int>(LoopKind::kContiguous)] = &BinaryLoop<Op, T, O, LoopKind::kContiguous>;
  row[static_cast<int>(LoopKind::kScalarFirst)] = &BinaryLoop<Op, T, O, LoopKind::kScalarFirst>;
  row[static_cast<int>(LoopKind::kScalarSecond)] = &BinaryLoop<Op, T, O, LoopKind::kScalarSecond>;
  if constexpr (Op::template kLoadsStrided<T>) {
    t.strided[static_cast<int>(op)][static_cast<int>(dtype)] = &StridedLoop<Op, T, O>;
  }
  t.heavy[static_cast<int>(op)][static_cast<int>(dtype)] = Op::template kHeavy<T>;
}

// Registers Op for each storage type in Ts; the result is T, or bool bytes
// when kBoolResult.
template <class Op, bool kBoolResult, typename... Ts>
void SetLoopsFor(KernelTable& t, OpId op) {
  (SetLoops<Op, Ts, std::conditional_t<kBoolResult, uint8_t, Ts>>(t, op, DTypeOf<Ts>()), ...);
}

#define ELTWISE_NATIVE_INT_TYPES \
  int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
// ml_dtypes' coded integers (core/dtype.h), computed in int8/uint8 lanes.
#define ELTWISE_CODED_INT_TYPES \
  Coded<DType::kI4>, Coded<DType::kU4>, Coded<DType::kI2>, Coded<DType::kU2>
#define ELTWISE_INT_TYPES ELTWISE_NATIVE_INT_TYPES, ELTWISE_CODED_INT_TYPES
// ml_dtypes' coded floats (core/dtype.h), computed in float32.
#define ELTWISE_CODED_FLOAT_TYPES                                                              \
  Coded<DType::kF8E4M3FN>, Coded<DType::kF8E5M2>, Coded<DType::kF8E4M3FNUZ>,                  \
      Coded<DType::kF8E5M2FNUZ>, Coded<DType::kF8E8M0FNU>, Coded<DType::kF4E2M1FN>,           \
      Coded<DType::kF8E4M3>, Coded<DType::kF8E3M4>, Coded<DType::kF8E4M3B11FNUZ>,             \
      Coded<DType::kF6E2M3FN>, Coded<DType::kF6E3M2FN>
#define ELTWISE_NATIVE_FLOAT_TYPES hwy::float16_t, hwy::bfloat16_t, float, double
#define ELTWISE_FLOAT_TYPES ELTWISE_NATIVE_FLOAT_TYPES, ELTWISE_CODED_FLOAT_TYPES

// Registers a bool-result Op (a comparison, a logical op) for every dtype,
// bool as uint8.
template <class Op>
void SetBoolRow(KernelTable& t, OpId op) {
  SetLoopsFor<Op, true, ELTWISE_INT_TYPES, ELTWISE_FLOAT_TYPES>(t, op);
  SetLoops<Op, uint8_t, uint8_t>(t, op, DType::kBool);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_REGISTER_INL_H_
