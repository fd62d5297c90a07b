// One job: TruncateLanes (wide lanes to their low bits, as hn::TruncateTo) with
// Highway 1.0.3's AVX3_DL error mended.
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_TRUNCATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_TRUNCATE_INL_H_
#undef ELTWISE_KERNELS_TRUNCATE_INL_H_
#else
#define ELTWISE_KERNELS_TRUNCATE_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// hn::TruncateTo(d, v), under a name of its own (an unqualified TruncateTo
// would find Highway's by argument-dependent lookup). On AVX3_DL, Highway
// 1.0.3's 16 uint32 -> uint8 lanes permute 32-bit lanes by a table of byte
// indices (x86_512-inl.h, _mm512_permutexvar_epi32 with k8From32) and return
// wrong bytes in all but every fourth lane; vpmovdb truncates them instead.
template <class D, class V>
HWY_INLINE hn::Vec<D> TruncateLanes(D d, V v) {
#if HWY_TARGET == HWY_AVX3_DL
  if constexpr (std::is_same<hn::TFromD<D>, uint8_t>::value &&
                std::is_same<hn::TFromV<V>, uint32_t>::value && hn::MaxLanes(D()) == 16) {
    return hn::Vec<D>{_mm512_cvtepi32_epi8(v.raw)};
  }
#endif
  return hn::TruncateTo(d, v);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_TRUNCATE_INL_H_
