// Kernels: power.
//
// Floats: SLEEF's vector pow (u10: at most 1 ULP, C99's special cases exact,
// e.g. pow(NaN, 0) == 1 and pow(1, NaN) == 1); float32 on AVX3/AVX2 through
// float64 log and exp where no lane is a special case (PowF32ThroughDouble).
// Results are within 1 ULP on every target, not the same bits on all. Highway 1.0.3 has no Pow, and
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
__attribute__((target("avx512f"))) __m512 Sleef_powf16_u10avx512f(__m512, __m512);
__attribute__((target("avx512f"))) __m512d Sleef_powd8_u10avx512f(__m512d, __m512d);
__attribute__((target("avx512f"))) __m512d Sleef_logd8_u35avx512f(__m512d);
__attribute__((target("avx512f"))) __m512d Sleef_expd8_u10avx512f(__m512d);
__attribute__((target("avx2,fma"))) __m256 Sleef_powf8_u10avx2(__m256, __m256);
__attribute__((target("avx2,fma"))) __m256d Sleef_powd4_u10avx2(__m256d, __m256d);
__attribute__((target("avx2,fma"))) __m256d Sleef_logd4_u35avx2(__m256d);
__attribute__((target("avx2,fma"))) __m256d Sleef_expd4_u10avx2(__m256d);
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

// Computes pow(a, b) per lane with the SLEEF variant built for this target:
// the FMA ones on AVX3 and AVX2 (a third faster), which may differ from the
// SSE4/SSSE3/scalar variants in the last place of ~0.1% of results. Every
// target is within 1 ULP (SLEEF's u10 bound).
template <class D, class V>
HWY_INLINE V SleefPow(D d, V a, V b) {
  using F = hn::TFromD<D>;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  if constexpr (std::is_same<F, float>::value) return V{Sleef_powf16_u10avx512f(a.raw, b.raw)};
  else return V{Sleef_powd8_u10avx512f(a.raw, b.raw)};
#elif HWY_TARGET == HWY_AVX2
  if constexpr (std::is_same<F, float>::value) return V{Sleef_powf8_u10avx2(a.raw, b.raw)};
  else return V{Sleef_powd4_u10avx2(a.raw, b.raw)};
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

// (A condition, not a macro: this file is compiled once per target.)
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX2
// exp(y * log(x)) of float64 lanes, SLEEF's log (3.5 ULP) and exp (1 ULP).
template <class DD, class VD>
HWY_INLINE VD ExpOfProductLog(DD, VD x, VD y) {
#if HWY_TARGET == HWY_AVX2
  return VD{Sleef_expd4_u10avx2(hn::Mul(y, VD{Sleef_logd4_u35avx2(x.raw)}).raw)};
#else
  return VD{Sleef_expd8_u10avx512f(hn::Mul(y, VD{Sleef_logd8_u35avx512f(x.raw)}).raw)};
#endif
}
#endif

// float32 pow(a, b) through float64 where every lane has a finite a > 0 and a
// finite b: exp(b * log(a)) in double, rounded once to float. Its relative
// error is below 2^-43 (|b log a| <= 104 wherever the float result is neither
// 0 nor inf, times log's 2^-50, plus exp's), so the float is the correctly
// rounded one or, within 2^-43 of a midpoint, its neighbour: within 1 ULP.
// pow(1, b) = exp(0) = 1 exactly; overflow gives inf and underflow 0 or the
// rounded subnormal. Other vectors (zeros, negatives, inf, NaN: C99's special
// cases) take SLEEF's float pow. False on targets without the double path.
template <class D, class V>
HWY_INLINE bool PowF32ThroughDouble(D d, V a, V b, V* r) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_AVX2
  const auto ordinary = hn::And(hn::And(hn::Gt(a, hn::Zero(d)), hn::Lt(a, hn::Set(d, HUGE_VALF))),
                                hn::Lt(hn::Abs(b), hn::Set(d, HUGE_VALF)));
  if (!hn::AllTrue(d, ordinary)) return false;
  const hn::Half<D> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  const auto half = [&](auto ah, auto bh) {
    return hn::DemoteTo(dh, ExpOfProductLog(dd, hn::PromoteTo(dd, ah), hn::PromoteTo(dd, bh)));
  };
  const auto lo = half(hn::LowerHalf(dh, a), hn::LowerHalf(dh, b));
  const auto hi = half(hn::UpperHalf(dh, a), hn::UpperHalf(dh, b));
  *r = hn::Combine(d, hi, lo);
  return true;
#else
  (void)d, (void)a, (void)b, (void)r;
  return false;
#endif
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
      if constexpr (std::is_same<C, float>::value) {
        V r;
        if (PowF32ThroughDouble(d, a, b, &r)) return r;
      }
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
