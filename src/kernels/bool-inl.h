// One job: comparison results (masks) as NumPy's bool, one 0/1 byte per
// element (MaskToBool; on AVX2, PackBoolBytes with MaskLanes and MaskLanes64
// for 32 results per store).
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_BOOL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_BOOL_INL_H_
#undef ELTWISE_KERNELS_BOOL_INL_H_
#else
#define ELTWISE_KERNELS_BOOL_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "kernels/truncate-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Computes 0/1 bytes (NumPy bool) from a mask.
template <class DO, class DC>
HWY_INLINE hn::Vec<DO> MaskToBool(DO dout, DC dc, hn::Mask<DC> m) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // AVX-512 masks are bits: one masked byte move makes the bytes, where
  // widening the mask to lanes and truncating them takes several shuffles.
  constexpr size_t kLanes = hn::MaxLanes(DO());
  if constexpr (sizeof(hn::TFromD<DC>) > 1 && kLanes <= 16) {
    return hn::Vec<DO>{_mm_maskz_mov_epi8(static_cast<__mmask16>(m.raw), _mm_set1_epi8(1))};
  } else if constexpr (sizeof(hn::TFromD<DC>) > 1 && kLanes == 32) {
    return hn::Vec<DO>{
        _mm256_maskz_mov_epi8(static_cast<__mmask32>(m.raw), _mm256_set1_epi8(1))};
  }
#endif
  const hn::RebindToUnsigned<DC> du;
  const auto ones = hn::And(hn::VecFromMask(du, hn::RebindMask(du, m)),
                            hn::Set(du, hn::TFromD<decltype(du)>{1}));
  if constexpr (sizeof(hn::TFromD<DC>) == 1) {
    return hn::BitCast(dout, ones);
  } else {
    return TruncateLanes(dout, ones);
  }
}

#if HWY_TARGET == HWY_AVX2
// 32 comparison results as NumPy's 0/1 bytes, from four vectors of 32-bit
// lanes that are 0 or -1: two signed packs (which interleave the 128-bit
// halves), one permute back into order, then abs (-1 -> 1). One 32-byte
// store where MaskToBool's truncation takes several shuffles and a short
// store per vector (NumPy packs this way too).
HWY_INLINE __m256i PackBoolBytes(__m256i v0, __m256i v1, __m256i v2, __m256i v3) {
  const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(v0, v1), _mm256_packs_epi32(v2, v3));
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  return _mm256_abs_epi8(_mm256_permutevar8x32_epi32(bytes, order));
}

// The 0/-1 lanes of a mask, as integers.
template <class DC, class M>
HWY_INLINE __m256i MaskLanes(DC dc, M m) {
  return hn::BitCast(hn::RebindToSigned<DC>(), hn::VecFromMask(dc, m)).raw;
}

// Two masks of 64-bit lanes as one vector of 32-bit lanes, in order: the low
// halves of each (shuffle), then the 64-bit pairs back into order (permute).
template <class DC, class M>
HWY_INLINE __m256i MaskLanes64(DC dc, M m0, M m1) {
  const __m256 w = _mm256_shuffle_ps(_mm256_castsi256_ps(MaskLanes(dc, m0)),
                                     _mm256_castsi256_ps(MaskLanes(dc, m1)), _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(w), _MM_SHUFFLE(3, 1, 2, 0));
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_BOOL_INL_H_
