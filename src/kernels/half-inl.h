// One job: float16 and bfloat16 lanes to and from float32, bit-exact
// (F16ToF32, F32ToF16, F32ToBF16).
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_HALF_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_HALF_INL_H_
#undef ELTWISE_KERNELS_HALF_INL_H_
#else
#define ELTWISE_KERNELS_HALF_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"
#include "kernels/truncate-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Highway 1.0.3's float16 conversions are IEEE-correct only where F16C does
// them (AVX2, AVX3); elsewhere they mishandle Inf/NaN and truncate, so those
// targets use the bit-exact integer recipes below.

#undef ELTWISE_F16C  // this header is re-included once per target
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || \
    HWY_TARGET == HWY_AVX3_DL
#define ELTWISE_F16C 1
#else
#define ELTWISE_F16C 0
#endif

// Computes float32 from float16 bits exactly (subnormals, Inf, NaN payloads).
template <class DF, class VH>
HWY_INLINE hn::Vec<DF> F16ToF32(DF df, VH h) {
#if ELTWISE_F16C
  return hn::PromoteTo(df, h);
#else
  const hn::RebindToUnsigned<DF> du;
  const hn::Rebind<uint16_t, DF> du16;
  const auto bits = hn::PromoteTo(du, hn::BitCast(du16, h));
  const auto sign = hn::ShiftLeft<16>(hn::And(bits, hn::Set(du, 0x8000u)));
  const auto exp = hn::And(hn::ShiftRight<10>(bits), hn::Set(du, 0x1Fu));
  const auto mant = hn::And(bits, hn::Set(du, 0x3FFu));
  const auto normal = hn::Or(hn::ShiftLeft<23>(hn::Add(exp, hn::Set(du, 112u))),
                             hn::ShiftLeft<13>(mant));
  const auto special = hn::Or(hn::Set(du, 0x7F800000u), hn::ShiftLeft<13>(mant));
  // Subnormal or zero: mant * 2^-24 is exact in float32.
  const auto tiny = hn::BitCast(
      du, hn::Mul(hn::ConvertTo(df, hn::BitCast(hn::RebindToSigned<DF>(), mant)),
                  hn::Set(df, 5.9604644775390625e-08f)));
  auto mag = hn::IfThenElse(hn::Eq(exp, hn::Set(du, 0x1Fu)), special, normal);
  mag = hn::IfThenElse(hn::Eq(exp, hn::Zero(du)), tiny, mag);
  return hn::BitCast(df, hn::Or(sign, mag));
#endif
}

// Computes float16 bits from float32, rounding to nearest even; NaN stays NaN
// (quieted, payload truncated, as F16C does).
template <class DH, class DF>
HWY_INLINE hn::Vec<DH> F32ToF16(DH dh, DF df, hn::Vec<DF> f) {
#if ELTWISE_F16C
  (void)df;
  return hn::DemoteTo(dh, f);
#else
  // Float rounding does the work (as in the FP16 library of M. Dukhan):
  // scaling up then down rounds the mantissa to 10 bits at the right place.
  const hn::RebindToUnsigned<DF> du;
  const auto w = hn::BitCast(du, f);
  const auto shl1 = hn::Add(w, w);
  const auto sign = hn::And(w, hn::Set(du, 0x80000000u));
  auto base = hn::Mul(hn::Mul(hn::Abs(f), hn::Set(df, 5.192296858534828e+33f)),
                      hn::Set(df, 7.703719777548943e-34f));
  auto bias = hn::And(shl1, hn::Set(du, 0xFF000000u));
  bias = hn::Max(bias, hn::Set(du, 0x71000000u));
  base = hn::Add(hn::BitCast(df, hn::Add(hn::ShiftRight<1>(bias),
                                         hn::Set(du, 0x07800000u))),
                 base);
  const auto bits = hn::BitCast(du, base);
  const auto exp_bits = hn::And(hn::ShiftRight<13>(bits), hn::Set(du, 0x7C00u));
  const auto mant_bits = hn::And(bits, hn::Set(du, 0x0FFFu));
  const auto finite = hn::Add(exp_bits, mant_bits);
  const auto nan = hn::Or(hn::Set(du, 0x7E00u),
                          hn::ShiftRight<13>(hn::And(w, hn::Set(du, 0x7FFFFFu))));
  const auto is_nan = hn::Gt(shl1, hn::Set(du, 0xFF000000u));
  const auto h = hn::Or(hn::ShiftRight<16>(sign), hn::IfThenElse(is_nan, nan, finite));
  return hn::BitCast(dh, TruncateLanes(hn::Rebind<uint16_t, DF>(), h));
#endif
}

// Computes bfloat16 bits from float32, rounding to nearest even; NaN becomes
// the quiet NaN of its sign, as ml_dtypes does. (Highway's DemoteTo truncates.)
// NaN lanes, rare, become sign | 0x7FC00000 first (one test per vector), which
// the rounding then leaves as is: the blend runs only on a vector that holds
// a NaN, not on every vector.
template <class DB, class DF>
HWY_INLINE hn::Vec<DB> F32ToBF16(DB db, DF df, hn::Vec<DF> f) {
  const hn::RebindToUnsigned<DF> du;
  auto w = hn::BitCast(du, f);
  const auto is_nan = hn::IsNaN(f);
  if (HWY_UNLIKELY(!hn::AllFalse(df, is_nan))) {
    const auto quiet = hn::Or(hn::And(w, hn::Set(du, 0x80000000u)), hn::Set(du, 0x7FC00000u));
    w = hn::IfThenElse(hn::RebindMask(du, is_nan), quiet, w);
  }
  const auto lsb = hn::And(hn::ShiftRight<16>(w), hn::Set(du, 1u));
  const auto rounded = hn::ShiftRight<16>(hn::Add(hn::Add(w, hn::Set(du, 0x7FFFu)), lsb));
  return hn::BitCast(db, TruncateLanes(hn::Rebind<uint16_t, DF>(), rounded));
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_HALF_INL_H_
