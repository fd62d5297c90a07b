// Kernels: bitwise and, or, xor for the integers and bool, and bool's + and *
// (or and and, as NumPy).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/bitwise.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/lanes-inl.h"
#include "kernels/register-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// Valid lane types: integers and bool.
struct BitwiseAndOp : MemoryBoundOp {
  template <typename T> using Compute = Arith<T>;
  template <class D, class V> HWY_INLINE V operator()(D, V a, V b) const { return hn::And(a, b); }
};
struct BitwiseOrOp : MemoryBoundOp {
  template <typename T> using Compute = Arith<T>;
  template <class D, class V> HWY_INLINE V operator()(D, V a, V b) const { return hn::Or(a, b); }
};
struct BitwiseXorOp : MemoryBoundOp {
  template <typename T> using Compute = Arith<T>;
  template <class D, class V> HWY_INLINE V operator()(D, V a, V b) const { return hn::Xor(a, b); }
};

// Fills the rows of this family for the current target.
void FillBitwise(KernelTable& t) {
  SetLoopsFor<BitwiseAndOp, false, ELTWISE_INT_TYPES>(t, OpId::kBitwiseAnd);
  SetLoopsFor<BitwiseOrOp, false, ELTWISE_INT_TYPES>(t, OpId::kBitwiseOr);
  SetLoopsFor<BitwiseXorOp, false, ELTWISE_INT_TYPES>(t, OpId::kBitwiseXor);
  // bool (0/1 bytes): + is or, * is and, as NumPy; the bitwise ops as uint8.
  SetLoops<BitwiseOrOp, uint8_t, uint8_t>(t, OpId::kAdd, DType::kBool);
  SetLoops<BitwiseAndOp, uint8_t, uint8_t>(t, OpId::kMultiply, DType::kBool);
  SetLoops<BitwiseAndOp, uint8_t, uint8_t>(t, OpId::kBitwiseAnd, DType::kBool);
  SetLoops<BitwiseOrOp, uint8_t, uint8_t>(t, OpId::kBitwiseOr, DType::kBool);
  SetLoops<BitwiseXorOp, uint8_t, uint8_t>(t, OpId::kBitwiseXor, DType::kBool);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillBitwise);
void FillBitwiseKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillBitwise)(t); }
}  // namespace eltwise
#endif
