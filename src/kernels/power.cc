// Kernels: power.
//
// Floats: SLEEF's vector pow (u10: at most 1 ULP, C99's special cases exact,
// e.g. pow(NaN, 0) == 1 and pow(1, NaN) == 1). Highway 1.0.3 has no Pow, and
// libm's scalar pow would run many times slower than NumPy's SVML loop.
// float16/bfloat16 are computed in float32 and rounded once.
// Integers: exact, wrapping, by squaring one lane at a time; 0**0 == 1. A
// negative exponent on a signed base is rejected before the kernel runs.

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#ifndef ELTWISE_SLEEF_POW_DECLARED
#define ELTWISE_SLEEF_POW_DECLARED
// Declared here rather than through sleef.h, which hides the AVX/AVX-512
// variants unless the whole file is compiled for them (we use no -march).
// The AVX/AVX-512 ones carry the target they were built for: Clang rejects a
// call passing __m256/__m512 when caller and callee disagree about the ABI.
// Other architectures (Arm wheels) use the scalar purec variant on every
// target, which gives the same bits as the x86 variants.
extern "C" {
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f"))) __m512 Sleef_powf16_u10avx512fnofma(__m512, __m512);
__attribute__((target("avx512f"))) __m512d Sleef_powd8_u10avx512fnofma(__m512d, __m512d);
__attribute__((target("avx"))) __m256 Sleef_powf8_u10avx(__m256, __m256);
__attribute__((target("avx"))) __m256d Sleef_powd4_u10avx(__m256d, __m256d);
__m128 Sleef_powf4_u10sse4(__m128, __m128);
__m128d Sleef_powd2_u10sse4(__m128d, __m128d);
__m128 Sleef_powf4_u10sse2(__m128, __m128);
__m128d Sleef_powd2_u10sse2(__m128d, __m128d);
#endif
float Sleef_powf1_u10purec(float, float);
double Sleef_powd1_u10purec(double, double);
}
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/power.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/loops-inl.h"
#include "kernels/multiply-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// Computes pow(a, b) per lane with the SLEEF variant built for this target.
// The variants without FMA throughout (avx512fnofma, avx, sse4, sse2,
// purec) compute the same operations, so every target gives the same bits;
// the FMA variants differ from them in the last place of ~0.1% of results.
template <class D, class V>
HWY_INLINE V SleefPow(D d, V a, V b) {
  using F = hn::TFromD<D>;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (std::is_same<F, float>::value) return V{Sleef_powf16_u10avx512fnofma(a.raw, b.raw)};
  else return V{Sleef_powd8_u10avx512fnofma(a.raw, b.raw)};
#elif HWY_TARGET == HWY_AVX2
  if constexpr (std::is_same<F, float>::value) return V{Sleef_powf8_u10avx(a.raw, b.raw)};
  else return V{Sleef_powd4_u10avx(a.raw, b.raw)};
#elif HWY_TARGET == HWY_SSE4
  if constexpr (std::is_same<F, float>::value) return V{Sleef_powf4_u10sse4(a.raw, b.raw)};
  else return V{Sleef_powd2_u10sse4(a.raw, b.raw)};
#elif HWY_TARGET == HWY_SSSE3
  if constexpr (std::is_same<F, float>::value) return V{Sleef_powf4_u10sse2(a.raw, b.raw)};
  else return V{Sleef_powd2_u10sse2(a.raw, b.raw)};
#else
  if constexpr (std::is_same<F, float>::value) return PerLane(d, a, b, Sleef_powf1_u10purec);
  else return PerLane(d, a, b, Sleef_powd1_u10purec);
#endif
  (void)d;
}

// Computes base**exp for integer lanes by squaring, wrapping; exp < 0 gives
// 0 (callers reject it for signed bases before this runs). Runs as many
// rounds as the largest exponent in the vector has bits.
template <class D, class V>
HWY_INLINE V IntPow(D d, V base, V exp) {
  using T = hn::TFromD<D>;
  const V zero = hn::Zero(d);
  const V one = hn::Set(d, T{1});
  auto negative = hn::Lt(exp, zero);
  V e = hn::IfThenZeroElse(negative, exp);
  V result = one;
  while (!hn::AllFalse(d, hn::Ne(e, zero))) {
    const auto odd = hn::Ne(hn::And(e, one), zero);
    result = hn::IfThenElse(odd, MulWrap(d, result, base), result);
    base = MulWrap(d, base, base);
    e = hn::ShiftRight<1>(e);
  }
  return hn::IfThenZeroElse(negative, result);
}

// Valid lane types: all numeric.
struct PowerOp : OpBase {
  template <typename T> using Compute = Arith<T>;
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    using C = hn::TFromD<D>;
    if constexpr (hwy::IsFloat<C>()) {
      return SleefPow(d, a, b);
    } else {
      return IntPow(d, a, b);
    }
  }
};

// Fills the rows of this family for the current target.
void FillPower(KernelTable& t) {
  SetLoopsFor<PowerOp, false, ELTWISE_INT_TYPES, ELTWISE_FLOAT_TYPES>(t, OpId::kPower);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillPower);
void FillPowerKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillPower)(t); }
}  // namespace eltwise
#endif
