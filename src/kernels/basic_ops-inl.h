// One job: the functors of add, subtract, multiply and float divide, shared
// by their loops (arithmetic.cc, division.cc) and by the register path of
// fused chains (chain.cc), which must compute each step exactly as the
// step's own loop does.
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_BASIC_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_BASIC_OPS_INL_H_
#undef ELTWISE_KERNELS_BASIC_OPS_INL_H_
#else
#define ELTWISE_KERNELS_BASIC_OPS_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/multiply-inl.h"
#include "kernels/register-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Valid lane types: all. Exact (floats: IEEE, rounded once).
struct AddOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE V operator()(D, V a, V b) const { return hn::Add(a, b); }
};
struct SubtractOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE V operator()(D, V a, V b) const { return hn::Sub(a, b); }
};
struct MultiplyOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const { return MulWrap(d, a, b); }
};

// Valid lane types: float32/float64 (float16 and bfloat16 computed in float32).
// One division instruction: as cheap as moving its bytes at memory sizes, so it gets the
// strided loop too (packing would walk one stream at a time).
struct FloatTrueDivide : MemoryBoundOp {
  template <class D, class V> HWY_INLINE V operator()(D, V a, V b) const { return hn::Div(a, b); }
};

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_BASIC_OPS_INL_H_
