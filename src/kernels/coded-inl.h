// One job: the coded dtypes' lanes (core/dtype.h, CodeFormat) to and from
// their compute lanes, bit-exact: ml_dtypes' float8, float6 and float4 to and
// from float32 (DecodeFloat, EncodeFloat), its int4/int2 to and from
// integer lanes (DecodeInt, EncodeInt), generic in the format.
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_CODED_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_CODED_INL_H_
#undef ELTWISE_KERNELS_CODED_INL_H_
#else
#define ELTWISE_KERNELS_CODED_INL_H_
#endif

#include <cstdint>

#include "core/dtype.h"
#include "hwy/highway.h"
#include "kernels/truncate-inl.h"
#include "kernels/half-inl.h"  // ELTWISE_F16C

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The constants of a coded float format, derived from its CodeFormat.
template <DType kId>
struct FloatCodeTraits {
  static constexpr CodeFormat kF = Traits(kId).format;
  static constexpr int kM = kF.mant_bits;
  static constexpr int kMagBits = kF.exp_bits + kF.mant_bits;  // bits below the sign
  static constexpr uint32_t kMagMask = (1u << kMagBits) - 1;
  static constexpr uint32_t kSignBit = kF.special == Special::kE8M0 ? 0 : 1u << kMagBits;
  static constexpr uint32_t kExpAllOnes = ((1u << kF.exp_bits) - 1) << kM;
  // The largest finite magnitude code.
  static constexpr uint32_t kMaxFinite =
      kF.special == Special::kIEEE ? kExpAllOnes - 1
      : kF.special == Special::kFN || kF.special == Special::kE8M0 ? kMagMask - 1
                                                                    : kMagMask;
  // The code of a value beyond kMaxFinite (ml_dtypes' infinity(), before the
  // sign): inf, NaN, or the largest finite value (kFinite saturates).
  // (kFN, kE8M0: all ones, their NaN; kFinite: all ones, the largest value.)
  static constexpr uint32_t kOverflow = kF.special == Special::kIEEE   ? kExpAllOnes
                                        : kF.special == Special::kFNUZ ? 0x80u
                                                                       : kMagMask;
  // A NaN's code before the sign (kIEEE: exponent all ones and the top
  // mantissa bit; kFN, kE8M0: all ones; kFNUZ: 0x80).
  static constexpr uint32_t kNaN = kF.special == Special::kIEEE ? kExpAllOnes | (1u << (kM - 1))
                                   : kF.special == Special::kFNUZ ? 0x80u
                                                                   : kMagMask;
  // float32 bits of 2^(1 - bias), the smallest normal value of the format.
  static constexpr int32_t kMinNormalBits = (128 - kF.bias) << 23;
  // (127 - bias) << mant_bits: float32's exponent bias minus the format's,
  // at the format's exponent.
  static constexpr int32_t kRebias = (127 - kF.bias) << kM;
};

// 2^e as a float, exactly (e within float32's normal range: every step is a
// power of two).
constexpr float Pow2(int e) {
  float r = 1.0f;
  for (; e > 0; --e) r *= 2.0f;
  for (; e < 0; ++e) r *= 0.5f;
  return r;
}

#if ELTWISE_F16C
// Whether each code of dtype kId, its exponent and mantissa bits at float16's
// places, is a float16 whose specials are the format's: every format but
// float8_e8m0fnu and float8_e5m2fnuz (whose largest exponent is finite).
template <DType kId>
constexpr bool kFitsF16 =
    Traits(kId).format.exp_bits < 5 ||
    (Traits(kId).format.exp_bits == 5 && Traits(kId).format.special == Special::kIEEE);

// DecodeFloat where the hardware converts float16 (F16C), for kFitsF16
// formats: each code is a float16 of the format's value times
// 2^(bias - 15) (its exponent and mantissa bits at float16's places; a
// subnormal code is a float16 subnormal, which the conversion makes exact),
// so the converted float32 times 2^(15 - bias) is the value, exactly (a power
// of two, no float32 result below the normal range). Specials are float16's
// inf and NaN bits before the conversion. Half the work of the integer
// recipe: the bit operations run in 16-bit lanes.
template <DType kId, class DF, class V8>
HWY_INLINE hn::Vec<DF> DecodeViaF16(DF df, V8 codes) {
  using K = FloatCodeTraits<kId>;
  static_assert(kFitsF16<kId> && K::kM <= 10, "the format fits float16");
  const hn::Rebind<uint16_t, DF> d16;
  const hn::Rebind<uint8_t, DF> du8;
  const auto c = hn::PromoteTo(d16, hn::BitCast(du8, codes));
  const auto mag = hn::And(c, hn::Set(d16, static_cast<uint16_t>(K::kMagMask)));
  const auto sign = hn::ShiftLeft<15 - K::kMagBits>(
      hn::And(c, hn::Set(d16, static_cast<uint16_t>(K::kSignBit))));
  auto h = hn::ShiftLeft<10 - K::kM>(mag);
  const auto nan = hn::Set(d16, uint16_t{0x7E00});
  if constexpr (K::kF.special == Special::kIEEE && K::kF.exp_bits < 5) {
    const auto exp_ones = hn::Set(d16, static_cast<uint16_t>(K::kExpAllOnes));
    const auto special =
        hn::IfThenElse(hn::Eq(mag, exp_ones), hn::Set(d16, uint16_t{0x7C00}), nan);
    const auto is_special = hn::Eq(hn::Min(mag, exp_ones), exp_ones);  // mag >= exp_ones
    h = hn::IfThenElse(is_special, special, h);
  } else if constexpr (K::kF.special == Special::kFN) {
    h = hn::IfThenElse(hn::Eq(mag, hn::Set(d16, static_cast<uint16_t>(K::kMagMask))), nan, h);
  } else if constexpr (K::kF.special == Special::kFNUZ) {
    h = hn::IfThenElse(hn::Eq(c, hn::Set(d16, uint16_t{0x80})), nan, h);
  }
  const auto f = hn::PromoteTo(df, hn::BitCast(hn::Rebind<hwy::float16_t, DF>(), hn::Or(h, sign)));
  if constexpr (K::kF.bias == 15) {
    return f;
  } else {
    return hn::Mul(f, hn::Set(df, Pow2(15 - K::kF.bias)));
  }
}
#endif

// Computes float32 lanes from the codes of dtype kId (in the low bits of u8
// lanes), exactly. A NaN code gives a quiet NaN of the code's sign (kFNUZ:
// negative), as ml_dtypes converts it.
template <DType kId, class DF, class V8>
HWY_INLINE hn::Vec<DF> DecodeFloat(DF df, V8 codes) {
  using K = FloatCodeTraits<kId>;
#if ELTWISE_F16C
  if constexpr (kFitsF16<kId>) return DecodeViaF16<kId>(df, codes);
#endif
  const hn::RebindToSigned<DF> di;
  const hn::Rebind<uint8_t, DF> du8;
  const auto c =
      hn::BitCast(di, hn::PromoteTo(hn::RebindToUnsigned<DF>(), hn::BitCast(du8, codes)));
  if constexpr (K::kF.special == Special::kE8M0) {
    // 2^(c - 127): c in the exponent field; c == 0 is 2^-127, a float32
    // subnormal (0x00400000); 0xFF is NaN.
    auto bits = hn::ShiftLeft<23>(c);
    bits = hn::IfThenElse(hn::Eq(c, hn::Zero(di)), hn::Set(di, 0x00400000), bits);
    bits = hn::IfThenElse(hn::Eq(c, hn::Set(di, 0xFF)), hn::Set(di, 0x7FC00000), bits);
    return hn::BitCast(df, bits);
  } else {
    const auto mag = hn::And(c, hn::Set(di, static_cast<int32_t>(K::kMagMask)));
    const auto sign = hn::ShiftLeft<31 - K::kMagBits>(hn::And(c, hn::Set(di, K::kSignBit)));
    // Normal: the exponent and mantissa bits moved to float32's places and
    // rebiased. Subnormal (exponent 0): mantissa * 2^(1 - bias - mant_bits),
    // exact in float32.
    const auto normal = hn::Add(hn::ShiftLeft<23 - K::kM>(mag),
                                hn::Set(di, static_cast<int32_t>(127 - K::kF.bias) << 23));
    const auto subnormal = hn::BitCast(
        di, hn::Mul(hn::ConvertTo(df, mag), hn::Set(df, Pow2(1 - K::kF.bias - K::kM))));
    auto bits = hn::IfThenElse(hn::Lt(mag, hn::Set(di, 1 << K::kM)), subnormal, normal);
    if constexpr (K::kF.special == Special::kIEEE) {
      const auto exp_ones = hn::Set(di, static_cast<int32_t>(K::kExpAllOnes));
      const auto special = hn::IfThenElse(hn::Eq(mag, exp_ones), hn::Set(di, 0x7F800000),
                                          hn::Set(di, 0x7FC00000));
      bits = hn::IfThenElse(hn::Lt(hn::Sub(exp_ones, hn::Set(di, 1)), mag), special, bits);
    } else if constexpr (K::kF.special == Special::kFN) {
      bits = hn::IfThenElse(hn::Eq(mag, hn::Set(di, static_cast<int32_t>(K::kMagMask))),
                            hn::Set(di, 0x7FC00000), bits);
    } else if constexpr (K::kF.special == Special::kFNUZ) {
      bits = hn::IfThenElse(hn::Eq(c, hn::Set(di, 0x80)), hn::Set(di, 0x7FC00000), bits);
    }
    return hn::BitCast(df, hn::Or(bits, sign));
  }
}

// Computes the codes of dtype kId from float32 lanes, as ml_dtypes converts
// float32 (docs/semantics.md, "Low-precision dtypes"): rounded once to
// nearest even; beyond the largest finite value (infinities included) the
// format's kOverflow; NaN the format's NaN (kFinite: -0, +0 for a negative
// NaN); kFNUZ has no -0; kE8M0 takes NaN for zero and negative values.
//
// Proof of the rounding: at or above the format's smallest normal value,
// adding 2^(22 - m) - 1 plus the lowest kept bit (the leading 1 when m == 0)
// to the float32 bits and dropping 23 - m bits rounds the mantissa to m bits
// to nearest even, a carry
// moving into the exponent (the next binade, correctly); rebiasing the
// exponent then gives the code. Below it, |x| + 2^(24 - bias - m) in float32
// rounds |x| to a multiple of 2^(1 - bias - m), the format's subnormal step,
// to nearest even (the sum's ulp is that step), and the sum's low bits are
// that multiple, the code (2^m, the smallest normal, when it rounds up).
template <DType kId, class D8, class DF>
HWY_INLINE hn::Vec<D8> EncodeFloat(D8 d8, DF df, hn::Vec<DF> x) {
  using K = FloatCodeTraits<kId>;
  const hn::RebindToSigned<DF> di;
  const auto w = hn::BitCast(di, x);
  const auto a = hn::And(w, hn::Set(di, 0x7FFFFFFF));
  const auto negative = hn::Lt(w, hn::Zero(di));
  // The lowest kept bit of the mantissa, for ties; with no mantissa bits
  // (float8_e8m0fnu) it is the implicit leading 1, so ties round up (as
  // ml_dtypes rounds the mantissa with its leading bit).
  const auto keep_lsb = K::kM == 0 ? hn::Set(di, 1)
                                   : hn::And(hn::ShiftRight<23 - K::kM>(a), hn::Set(di, 1));
  const auto rounded = hn::Add(a, hn::Add(hn::Set(di, (1 << (22 - K::kM)) - 1), keep_lsb));
  // (A logical shift: a NaN's `rounded` may pass 2^31, and must stay above
  // kMaxFinite.)
  const hn::RebindToUnsigned<DF> du;
  const auto normal =
      hn::Sub(hn::BitCast(di, hn::ShiftRight<23 - K::kM>(hn::BitCast(du, rounded))),
              hn::Set(di, K::kRebias));
  const auto magic = hn::Set(df, Pow2(24 - K::kF.bias - K::kM));
  const auto subnormal =
      hn::Sub(hn::BitCast(di, hn::Add(hn::BitCast(df, a), magic)), hn::BitCast(di, magic));
  auto code = hn::IfThenElse(hn::Lt(a, hn::Set(di, K::kMinNormalBits)), subnormal, normal);
  // kOverflow is kMaxFinite + 1 (inf, or the format's NaN) or kMaxFinite
  // itself (kFinite saturates): either way a Min. A NaN lane, whose bits are
  // above inf's, comes out kOverflow too.
  static_assert(K::kOverflow == K::kMaxFinite + 1 || K::kOverflow == K::kMaxFinite, "");
  code = hn::Min(code, hn::Set(di, static_cast<int32_t>(K::kOverflow)));
  // Where NaN's code is kOverflow (kFN, kFNUZ, kE8M0) the NaN lanes are done.
  const auto is_nan = [&] { return hn::RebindMask(di, hn::IsNaN(x)); };
  const auto nan = hn::Set(di, static_cast<int32_t>(K::kNaN));
  if constexpr (K::kF.special == Special::kE8M0) {
    code = hn::IfThenElse(hn::Or(negative, hn::Eq(a, hn::Zero(di))), nan, code);
  } else if constexpr (K::kF.special == Special::kFNUZ) {
    // A sign on a zero code is dropped, and on 0x80 (NaN).
    const auto signed_code = hn::IfThenElse(
        hn::And(negative, hn::Lt(hn::Zero(di), code)),
        hn::Or(code, hn::Set(di, static_cast<int32_t>(K::kSignBit))), code);
    code = hn::IfThenElse(hn::Eq(code, hn::Set(di, 0x80)), code, signed_code);
  } else {
    const auto sign = hn::IfThenElseZero(negative, hn::Set(di, static_cast<int32_t>(K::kSignBit)));
    if constexpr (K::kF.special == Special::kFinite) {
      // ml_dtypes' quiet_NaN() of these formats is -0's code; a negative NaN
      // is its negation, +0.
      const auto signed_nan = hn::Xor(sign, hn::Set(di, static_cast<int32_t>(K::kSignBit)));
      code = hn::IfThenElse(is_nan(), signed_nan, hn::Or(code, sign));
    } else {
      // kFN's NaN is its kOverflow already: only kIEEE tells them apart.
      if constexpr (K::kNaN != K::kOverflow) code = hn::IfThenElse(is_nan(), nan, code);
      code = hn::Or(code, sign);
    }
  }
  return hn::BitCast(d8, TruncateLanes(hn::Rebind<uint8_t, DF>(), hn::BitCast(du, code)));
}

// Computes integer lanes (DC: 8 to 64 bits) from the codes of the coded
// integer kId (u8 lanes): the low `bits` bits, sign-extended for a signed
// dtype (the bits above are ignored, as ml_dtypes reads them).
template <DType kId, class DC, class V8>
HWY_INLINE hn::Vec<DC> DecodeInt(DC dc, V8 codes) {
  constexpr int kBits = Traits(kId).format.bits;
  constexpr int kLaneBits = 8 * sizeof(hn::TFromD<DC>);
  const hn::RebindToUnsigned<DC> du;
  const hn::Rebind<uint8_t, DC> du8;
  hn::Vec<DC> wide;
  if constexpr (sizeof(hn::TFromD<DC>) == 1) {
    wide = hn::BitCast(dc, codes);
  } else {
    wide = hn::BitCast(dc, hn::PromoteTo(du, hn::BitCast(du8, codes)));
  }
  if constexpr (IsSignedInt(kId)) {
    const hn::RebindToSigned<DC> di;
    return hn::BitCast(dc, hn::ShiftRight<kLaneBits - kBits>(
                               hn::ShiftLeft<kLaneBits - kBits>(hn::BitCast(di, wide))));
  } else {
    return hn::And(wide, hn::Set(dc, static_cast<hn::TFromD<DC>>((1u << kBits) - 1)));
  }
}

// Computes the codes of the coded integer kId from integer lanes: the value
// wrapped to `bits` bits (two's complement), the bits above zero.
template <DType kId, class D8, class DC>
HWY_INLINE hn::Vec<D8> EncodeInt(D8 d8, DC dc, hn::Vec<DC> v) {
  constexpr int kBits = Traits(kId).format.bits;
  const hn::RebindToUnsigned<DC> du;
  const hn::Rebind<uint8_t, DC> du8;
  hn::Vec<decltype(du8)> bytes;
  if constexpr (sizeof(hn::TFromD<DC>) == 1) {
    bytes = hn::BitCast(du8, v);
  } else {
    bytes = TruncateLanes(du8, hn::BitCast(du, v));
  }
  (void)dc;
  return hn::BitCast(d8, hn::And(bytes, hn::Set(du8, static_cast<uint8_t>((1u << kBits) - 1))));
}

#if HWY_TARGET == HWY_AVX3_DL
// Blocks of 64 codes (AVX3_DL: VBMI's byte permutes), for the float formats
// with a sign bit (all but float8_e8m0fnu): 64 codes decode to four float32
// vectors and four float32 vectors encode to 64 codes with the byte
// permutes, in-block unpacks and saturating packs, about half the operations
// per element of DecodeFloat and EncodeFloat. The four
// vectors hold the codes in the unpacks' order: vector k's lane 4q + j is
// code 16q + 4k + j (q: the 128-bit block); the packs of EncodeBlock64 undo
// exactly that order, so an op applied lane by lane to the four vectors of
// each operand gives its codes in place.
template <DType kId>
constexpr bool kCodeBlocks =
    Traits(kId).format.exp_bits > 0 && Traits(kId).format.special != Special::kE8M0;

// The float32 bits' bytes 2 (lo) and 3 (hi) of each code, as byte tables:
// for the 8-bit formats the 128 magnitudes (two registers each, the sign
// apart), for the float6/float4 formats (kFinite) every code, its 64 entries
// the low 6 bits of a byte (float4's 16 codes four times: the bits above a
// code are ignored, as DecodeFloat ignores them). Bytes 0 and 1 are zero:
// each value has at most 5 significant bits and an exponent within
// float32's normal range (a bfloat16).
struct CodeTables {
  __m512i lo0, lo1, hi0, hi1;
};

template <DType kId>
const CodeTables& TablesFor() {
  static_assert(kCodeBlocks<kId> && Traits(kId).format.mant_bits <= 7, "a bfloat16 per code");
  constexpr int kCodes = Traits(kId).format.bits == 8 ? 128 : 64;
  constexpr uint32_t kCodeMask = (1u << Traits(kId).format.bits) - 1;
  static const CodeTables tables = [] {
    const hn::ScalableTag<float> df;
    const hn::Rebind<uint8_t, decltype(df)> d8;
    const hn::RebindToUnsigned<decltype(df)> du;
    alignas(64) uint8_t codes[128], lo[128], hi[128];
    alignas(64) uint32_t bits[128];
    for (int c = 0; c < 128; ++c) codes[c] = static_cast<uint8_t>(c & kCodeMask);
    for (size_t c = 0; c < 128; c += hn::Lanes(df)) {
      hn::Store(hn::BitCast(du, DecodeFloat<kId>(df, hn::Load(d8, codes + c))), du, bits + c);
    }
    for (int c = 0; c < 128; ++c) {
      lo[c] = static_cast<uint8_t>(bits[c % kCodes] >> 16);
      hi[c] = static_cast<uint8_t>(bits[c % kCodes] >> 24);
    }
    return CodeTables{_mm512_load_si512(lo), _mm512_load_si512(lo + 64), _mm512_load_si512(hi),
                      _mm512_load_si512(hi + 64)};
  }();
  return tables;
}

// Decodes the 64 codes of c into f[0..3] (the order above), exactly as
// DecodeFloat: 8-bit formats: the magnitude's bytes from the tables (the
// permutes read the low 7 bits), the code's sign on top, kFNUZ's 0x80 a
// negative NaN; kFinite: the code's bytes (the permutes read the low 6 bits).
template <DType kId>
HWY_INLINE void DecodeBlock64(const CodeTables& t, __m512i c, hn::Vec512<float> f[4]) {
  __m512i lo, hi;
  if constexpr (Traits(kId).format.bits == 8) {
    lo = _mm512_permutex2var_epi8(t.lo0, c, t.lo1);
    hi = _mm512_permutex2var_epi8(t.hi0, c, t.hi1);
    hi = _mm512_ternarylogic_epi32(hi, c, _mm512_set1_epi8(static_cast<char>(0x80)),
                                   0xF8);  // A | B & C
  } else {
    lo = _mm512_permutexvar_epi8(c, t.lo0);
    hi = _mm512_permutexvar_epi8(c, t.hi0);
  }
  if constexpr (Traits(kId).format.special == Special::kFNUZ) {
    const __mmask64 nan = _mm512_cmpeq_epi8_mask(c, _mm512_set1_epi8(static_cast<char>(0x80)));
    hi = _mm512_mask_mov_epi8(hi, nan, _mm512_set1_epi8(static_cast<char>(0xFF)));
    lo = _mm512_mask_mov_epi8(lo, nan, _mm512_set1_epi8(static_cast<char>(0xC0)));
  }
  const __m512i w0 = _mm512_unpacklo_epi8(lo, hi), w1 = _mm512_unpackhi_epi8(lo, hi);
  const __m512i z = _mm512_setzero_si512();
  f[0].raw = _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, w0));
  f[1].raw = _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, w0));
  f[2].raw = _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, w1));
  f[3].raw = _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, w1));
}

// The code's magnitude of x, as EncodeFloat rounds it: for kIEEE formats
// final, for the others before the clamp to kOverflow. Proof: with E x's
// exponent and Emin = 1 - bias the format's smallest normal one, t = max(E -
// Emin, 0) << 23 (a saturating subtract of the exponent fields, in the high
// 16-bit halves) and M = 2^(max(E, Emin) + 23 - m), |x| + M in float32 has ulp
// 2^(max(E, Emin) - m), the format's step at x, so it rounds |x| to a multiple
// of that step to nearest even; its mantissa field is then the rounded |x|
// over the step, 2^m + mantissa for a normal x (2^(m+1): rounded up to the
// next binade) and the subnormal code below Emin, and adding (E - Emin) << m
// (t >> (23 - m)) gives the code (a carry lands in the next exponent,
// correctly). Above the format's largest exponent the second term alone passes
// kOverflow, whatever the first (M may then be out of range), as it does for
// inf and NaN.
template <DType kId>
HWY_INLINE __m512i CodeMagnitude(hn::Vec512<float> x) {
  using K = FloatCodeTraits<kId>;
  const __m512i w = _mm512_castps_si512(x.raw);
  const __m512i a = _mm512_and_si512(w, _mm512_set1_epi32(0x7FFFFFFF));
  const __m512i t = _mm512_subs_epu16(_mm512_and_si512(w, _mm512_set1_epi32(0x7F800000)),
                                      _mm512_set1_epi32(K::kMinNormalBits));
  const __m512i mb =
      _mm512_add_epi32(t, _mm512_set1_epi32(K::kMinNormalBits + ((23 - K::kM) << 23)));
  const __m512i s =
      _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(mb)));
  __m512i code = _mm512_add_epi32(_mm512_and_si512(s, _mm512_set1_epi32(0x7FFFFF)),
                                  _mm512_srli_epi32(t, 23 - K::kM));
  if constexpr (K::kNaN != K::kOverflow) {
    // kIEEE: clamped to kOverflow where x is not NaN, NaN's code (above
    // inf's) where it is, in one masked minimum.
    const __mmask16 ordered = _mm512_cmp_ps_mask(x.raw, x.raw, _CMP_ORD_Q);
    code = _mm512_mask_min_epi32(_mm512_set1_epi32(static_cast<int32_t>(K::kNaN)), ordered, code,
                                 _mm512_set1_epi32(static_cast<int32_t>(K::kOverflow)));
  }
  return code;
}

// Encodes f[0..3] (the order above) to 64 codes, exactly as EncodeFloat.
// The packs saturate: magnitudes (non-negative) clamp to 0xFFFF, then to
// kOverflow; the float32 bits' signed packs keep the sign in bit 7, moved to
// the format's sign bit. kFinite: NaN is the zero code of the other sign.
template <DType kId>
HWY_INLINE __m512i EncodeBlock64(const hn::Vec512<float> f[4]) {
  using K = FloatCodeTraits<kId>;
  constexpr bool kFinite = K::kF.special == Special::kFinite;
  __mmask16 nan[4] = {0, 0, 0, 0};
  if constexpr (kFinite) {
    for (int k = 0; k < 4; ++k) nan[k] = _mm512_cmp_ps_mask(f[k].raw, f[k].raw, _CMP_UNORD_Q);
  }
  const auto magnitude = [&](int k) {
    const __m512i code = CodeMagnitude<kId>(f[k]);
    if constexpr (kFinite) return _mm512_mask_mov_epi32(code, nan[k], _mm512_setzero_si512());
    return code;
  };
  const auto clamped = [](__m512i c) {
    if constexpr (K::kNaN != K::kOverflow) return c;
    return _mm512_min_epu16(c, _mm512_set1_epi16(static_cast<int16_t>(K::kOverflow)));
  };
  const __m512i code = _mm512_packus_epi16(
      clamped(_mm512_packus_epi32(magnitude(0), magnitude(1))),
      clamped(_mm512_packus_epi32(magnitude(2), magnitude(3))));
  const auto bits = [&](int k) {
    const __m512i w = _mm512_castps_si512(f[k].raw);
    if constexpr (kFinite) {
      return _mm512_mask_xor_epi32(w, nan[k], w,
                                   _mm512_set1_epi32(static_cast<int32_t>(0x80000000u)));
    }
    return w;
  };
  __m512i sign = _mm512_packs_epi16(_mm512_packs_epi32(bits(0), bits(1)),
                                    _mm512_packs_epi32(bits(2), bits(3)));
  if constexpr (K::kF.special == Special::kFNUZ) {
    // No -0, and 0x80 (NaN) takes no sign: only codes 1 .. 0x7F do.
    const __mmask64 signed_code = _mm512_cmplt_epu8_mask(
        _mm512_sub_epi8(code, _mm512_set1_epi8(1)), _mm512_set1_epi8(0x7F));
    sign = _mm512_maskz_mov_epi8(signed_code, sign);
  }
  if constexpr (K::kSignBit != 0x80) {
    // Bit 7 of each byte to the sign bit: a 16-bit shift, whose bits from
    // the byte above fall outside the mask.
    constexpr int kShift = 7 - (K::kMagBits);
    sign = _mm512_srli_epi16(sign, kShift);
  }
  return _mm512_ternarylogic_epi32(code, sign, _mm512_set1_epi8(static_cast<char>(K::kSignBit)),
                                   0xF8);  // A | B & C
}

// 64 comparison results (the order above) as bool bytes in place.
HWY_INLINE __m512i BoolBlock64(const hn::Mask512<float> m[4]) {
  const auto lanes = [&](int k) { return _mm512_movm_epi32(m[k].raw); };
  const __m512i ones = _mm512_packs_epi16(_mm512_packs_epi32(lanes(0), lanes(1)),
                                          _mm512_packs_epi32(lanes(2), lanes(3)));
  return _mm512_and_si512(ones, _mm512_set1_epi8(1));
}
#endif  // HWY_TARGET == HWY_AVX3_DL

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_CODED_INL_H_
