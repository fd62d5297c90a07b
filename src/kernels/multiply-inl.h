// MulWrap: integer multiplication that wraps, for every lane width, shared by
// the arithmetic and power kernels. Re-included per target like lanes-inl.h.

#if defined(ELTWISE_KERNELS_MULTIPLY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_MULTIPLY_INL_H_
#undef ELTWISE_KERNELS_MULTIPLY_INL_H_
#else
#define ELTWISE_KERNELS_MULTIPLY_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// Computes a * b, wrapping for integers. Highway 1.0.3 has no 8-bit
// multiply: the even bytes multiply in 16-bit lanes (the low byte of a
// product depends only on the low bytes), the odd bytes are shifted there.
template <class D>
HWY_INLINE hn::Vec<D> MulWrap(D d, hn::Vec<D> a, hn::Vec<D> b) {
  using T = hn::TFromD<D>;
  if constexpr (sizeof(T) == 1 && HWY_TARGET == HWY_SCALAR) {
    return PerLane(d, a, b, [](T x, T y) { return static_cast<T>(x * y); });
  } else if constexpr (sizeof(T) == 1) {
    const hn::Repartition<uint16_t, D> d16;
    const auto a16 = hn::BitCast(d16, a);
    const auto b16 = hn::BitCast(d16, b);
    const auto even = hn::And(hn::Mul(a16, b16), hn::Set(d16, 0x00FF));
    const auto odd = hn::Mul(hn::ShiftRight<8>(a16), hn::And(b16, hn::Set(d16, 0xFF00)));
    return hn::BitCast(d, hn::Or(even, odd));
  } else {
    return hn::Mul(a, b);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_MULTIPLY_INL_H_
