// One job: the AVX3_SPR kernels (kernels/registry.cc), AVX3_DL's but for
// what AVX512-FP16 arithmetic computes with half the work: float16 add,
// subtract, multiply and comparisons in float16 lanes (AVX3_DL: two float32
// vectors and the conversions; its float32 divide stays, faster than
// float16's), and float8_e4m3fn and float8_e5m2 add, subtract, multiply and
// comparisons, 64 codes a block in float16 lanes (AVX3_DL decodes them to
// float32 and encodes from it, kernels/coded-inl.h); and bfloat16
// add, subtract, multiply and divide, in float32 as everywhere but rounded to
// bfloat16 by AVX512-BF16's conversion (AVX3_DL: by integer operations).
//
// Exactness: the bits are AVX3_DL's, which are NumPy's (docs/semantics.md).
// float16: NumPy computes in float32 and rounds to float16; float32's 24
// bits are at least 2 * 11 + 2, so rounding a sum, difference or product of
// float16 values to float32 first never changes its float16 rounding
// (Figueroa's double-rounding bound; those that land among float16's
// subnormals are exact in float32).
// bfloat16: the conversion rounds to nearest even, as ml_dtypes (and
// AVX3_DL's F32ToBF16) does, but takes a float32 subnormal for zero and
// keeps a NaN's payload: lanes whose result is subnormal or NaN (rare) are
// rounded by integers instead, a NaN made the quiet NaN of its sign.
// float8 (docs/semantics.md, "Low-precision dtypes": ml_dtypes rounds the
// float32 result to the format once). Both formats' values are float16
// values (e4m3fn: at most 4 significant bits, magnitudes 2^-9 .. 448; e5m2: 3
// bits, float16's own exponent range). Let R be the format's rounding; the
// claim is R(fl16(a op b)) == R(fl32(a op b)).
// - multiply: the exact product has at most 8 significant bits. e4m3fn: its
//   lowest bit is at least 2^-18 and its magnitude below 2^18, so it is
//   exact in float32 and in float16 up to 65504; beyond, float16 gives inf
//   and float32 a value past 464, both NaN's code (the format's overflow).
//   e5m2: exact in float16 unless below 2^-24 in its lowest bit, which with
//   6 bits puts it below 2^-18, where R gives 0 (of the sign) from either
//   rounding (both stay at most 2^-18, below half the least subnormal
//   2^-17); a product from 65520 up is inf in float16, and R of float32's
//   (at least 61440) is inf too.
// - add, subtract: s = a + b (b negated for subtract), |a| >= |b|, a in
//   [2^e, 2^(e+1)), the format keeping p bits (4, 3), so its step at a is
//   u = 2^(e+1-p). Every value is a multiple of the least subnormal (2^-9,
//   2^-16), so s is exact in float16 unless it needs more than 11 bits
//   (|s| < 2^(e+2)): its lowest bit is then at most 2^(e-10), below a's
//   lowest (at least u), so it is b's, and b, of at most p bits, is below
//   2^(e-10+p) = u * 2^(2p-11) <= u/8. So s lies within u/8 of a, a value of
//   the format; either rounding moves s by at most 2^(e-10) <= u/128,
//   leaving it within u/4 of a, less than half the step on either side of a
//   (the step below a power of two is u/2), and R gives a from both. e5m2
//   sums from 65520 up are inf in float16, and R of float32's (at least
//   61440) is inf too; e4m3fn sums stay below 1024.
// NaN and inf follow float16 arithmetic as float32's: a NaN operand gives its
// own NaN, quieted (float32's conversions keep a float16 NaN's payload both
// ways; where both are NaN, either one's, as the compiler orders a
// commutative operation's operands: docs/semantics.md, "Exactness"), inf -
// inf the default NaN, whose sign is set; the encoders keep the sign of each.
// AVX512-FP16 arithmetic keeps subnormal operands and results whatever
// MXCSR's DAZ and FTZ say (e5m2's subnormals are float16's), and rounds as
// MXCSR's rounding control says, to nearest even under NumPy, as float32's.

#include "kernels/avx3_spr.h"

// The compilers whose AVX512-FP16 intrinsics serve functions that name the
// instruction set in their target attribute (GCC 12; Clang from 16, whose
// immintrin.h declares them without -mavx512fp16), on x86-64; elsewhere
// (aarch64, older compilers) there is no AVX3_SPR target, nor where the build
// leaves it out (ELTWISE_DISABLED_TARGETS in CMakeLists.txt defines
// ELTWISE_NO_AVX3_SPR).
#if !defined(ELTWISE_NO_AVX3_SPR) && defined(__x86_64__) && \
    ((defined(__clang__) && __clang_major__ >= 16) ||      \
     (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 12))
#define ELTWISE_AVX3_SPR 1
#else
#define ELTWISE_AVX3_SPR 0
#endif

#if ELTWISE_AVX3_SPR
#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/ops.h"

// GCC 12's AVX-512 intrinsics fill unused lanes from a self-initialized
// variable (_mm512_undefined_*), which -Wuninitialized and
// -Wmaybe-uninitialized report at every use; Highway's HWY_BEFORE_NAMESPACE
// turns them off for its kernels, and so does this file.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace eltwise {
namespace {

#define ELTWISE_SPR_ATTR                                                                 \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi,avx512fp16," \
                        "avx512bf16")))

// float16 bits of e4m3fn magnitude code m (0 .. 127): normal codes rebias
// the exponent (7 -> 15), subnormal ones (m < 8, m * 2^-9) normalize, 0x7F is
// NaN.
constexpr uint16_t HalfOfE4M3FN(int m) {
  if (m == 0x7F) return 0x7E00;
  const int exp = m >> 3, mant = m & 7;
  if (exp > 0) return static_cast<uint16_t>(((exp + 8) << 10) | (mant << 7));
  if (mant == 0) return 0;
  const int top = mant >= 4 ? 2 : mant >= 2 ? 1 : 0;  // mant = 2^top * (1 + f)
  return static_cast<uint16_t>(((top + 6) << 10) | ((mant - (1 << top)) << (10 - top)));
}

// The float16 bits' low and high bytes of each magnitude code, as the byte
// permutes read them.
struct HalfTables {
  alignas(64) uint8_t lo[128];
  alignas(64) uint8_t hi[128];
};

constexpr HalfTables MakeE4M3FNTables() {
  HalfTables t{};
  for (int m = 0; m < 128; ++m) {
    t.lo[m] = static_cast<uint8_t>(HalfOfE4M3FN(m) & 0xFF);
    t.hi[m] = static_cast<uint8_t>(HalfOfE4M3FN(m) >> 8);
  }
  return t;
}
constexpr HalfTables kE4M3FN = MakeE4M3FNTables();

// Decodes the 64 codes of c to float16 lanes h[0] (codes 0-7 of each 128-bit
// block) and h[1] (codes 8-15): the order the unsigned and signed packs of
// Encode undo.
template <DType kId>
ELTWISE_SPR_ATTR inline void Decode(__m512i c, __m512i h[2]) {
  if constexpr (kId == DType::kF8E5M2) {
    // e5m2 is float16's top byte.
    const __m512i z = _mm512_setzero_si512();
    h[0] = _mm512_unpacklo_epi8(z, c);
    h[1] = _mm512_unpackhi_epi8(z, c);
  } else {
    const __m512i lo = _mm512_permutex2var_epi8(_mm512_load_si512(kE4M3FN.lo), c,
                                                _mm512_load_si512(kE4M3FN.lo + 64));
    __m512i hi = _mm512_permutex2var_epi8(_mm512_load_si512(kE4M3FN.hi), c,
                                          _mm512_load_si512(kE4M3FN.hi + 64));
    hi = _mm512_ternarylogic_epi32(hi, c, _mm512_set1_epi8(static_cast<char>(0x80)),
                                   0xF8);  // A | B & C: the code's sign
    h[0] = _mm512_unpacklo_epi8(lo, hi);
    h[1] = _mm512_unpackhi_epi8(lo, hi);
  }
}

// float16 bits of one code (the scalar operand of a scalar loop kind).
template <DType kId>
uint16_t HalfOf(uint8_t code) {
  const uint16_t sign = static_cast<uint16_t>((code & 0x80) << 8);
  if constexpr (kId == DType::kF8E5M2) return static_cast<uint16_t>(code << 8);
  return static_cast<uint16_t>(HalfOfE4M3FN(code & 0x7F) | sign);
}

// The code's magnitude of float16 lanes h, rounded to nearest even (16-bit
// lanes, at most 0x7F).
//   e5m2: float16 with 8 bits fewer, same exponent bias: the integer
//   rounding of the bits (ties to the even kept bit) rounds normal and
//   subnormal values alike, a carry moving into the exponent; from 61440 on
//   it reaches 0x7C, inf, where it is clamped; NaN (above inf's bits) gives
//   0x7E, the format's NaN.
//   e4m3fn: from 2^-6 (0x2400, its least normal) the same integer rounding
//   of the bits by 7, then the exponent rebiased (15 -> 7: 8 << 3 fewer);
//   below, |h| + 2 in float16 has step 2^-9, the format's subnormal step, so
//   it rounds |h| to nearest even there and its low bits are the code (8,
//   the least normal, when it rounds up). Above 464 (0x5F40, halfway from
//   448 to the next step, a tie to the even 448) the code is 0x7F, NaN (the
//   format's overflow; inf and NaN included).
template <DType kId>
ELTWISE_SPR_ATTR inline __m512i Magnitude(__m512i h) {
  const __m512i a = _mm512_and_si512(h, _mm512_set1_epi16(0x7FFF));
  if constexpr (kId == DType::kF8E5M2) {
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi16(a, 8), _mm512_set1_epi16(1));
    __m512i code = _mm512_srli_epi16(
        _mm512_add_epi16(_mm512_add_epi16(a, lsb), _mm512_set1_epi16(0x7F)), 8);
    code = _mm512_min_epu16(code, _mm512_set1_epi16(0x7C));
    const __mmask32 nan = _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x7C00));
    return _mm512_mask_mov_epi16(code, nan, _mm512_set1_epi16(0x7E));
  } else {
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi16(a, 7), _mm512_set1_epi16(1));
    // a + lsb + 0x3F - (8 << 10): non-negative wherever a >= 0x2400.
    const __m512i normal = _mm512_srli_epi16(
        _mm512_add_epi16(_mm512_add_epi16(a, lsb), _mm512_set1_epi16(0x3F - (8 << 10))), 7);
    const __m512i two = _mm512_set1_epi16(0x4000);  // 2.0
    const __m512i subnormal = _mm512_sub_epi16(
        _mm512_castph_si512(_mm512_add_ph(_mm512_castsi512_ph(a), _mm512_castsi512_ph(two))),
        two);
    const __mmask32 small = _mm512_cmplt_epu16_mask(a, _mm512_set1_epi16(0x2400));
    const __mmask32 over = _mm512_cmpgt_epu16_mask(a, _mm512_set1_epi16(0x5F40));
    const __m512i code = _mm512_mask_mov_epi16(normal, small, subnormal);
    return _mm512_mask_mov_epi16(code, over, _mm512_set1_epi16(0x7F));
  }
}

// Encodes float16 lanes h[0], h[1] (Decode's order) to 64 codes: the
// magnitudes by the unsigned pack, the sign by the signed pack of the float16
// bits (its bit 7 is the bits' sign), both formats' sign bit 0x80.
template <DType kId>
ELTWISE_SPR_ATTR inline __m512i Encode(const __m512i h[2]) {
  const __m512i code = _mm512_packus_epi16(Magnitude<kId>(h[0]), Magnitude<kId>(h[1]));
  const __m512i sign = _mm512_packs_epi16(h[0], h[1]);
  return _mm512_ternarylogic_epi32(code, sign, _mm512_set1_epi8(static_cast<char>(0x80)),
                                   0xF8);  // A | B & C
}

template <OpId kOp>
ELTWISE_SPR_ATTR inline __m512i Apply(__m512i a, __m512i b) {
  const __m512h x = _mm512_castsi512_ph(a), y = _mm512_castsi512_ph(b);
  if constexpr (kOp == OpId::kAdd) return _mm512_castph_si512(_mm512_add_ph(x, y));
  if constexpr (kOp == OpId::kSubtract) return _mm512_castph_si512(_mm512_sub_ph(x, y));
  return _mm512_castph_si512(_mm512_mul_ph(x, y));
}

// The comparison kOp of float16 lanes (the predicates of AVX3_DL's: ordered
// but for not_equal, so NaN compares false but unequal), exact: float16
// values compare as their float32 conversions do.
template <OpId kOp>
ELTWISE_SPR_ATTR inline __mmask32 Compare(__m512i a, __m512i b) {
  constexpr int kPredicate = kOp == OpId::kEqual          ? _CMP_EQ_OQ
                             : kOp == OpId::kNotEqual     ? _CMP_NEQ_UQ
                             : kOp == OpId::kGreater      ? _CMP_GT_OQ
                             : kOp == OpId::kGreaterEqual ? _CMP_GE_OQ
                             : kOp == OpId::kLess         ? _CMP_LT_OQ
                                                          : _CMP_LE_OQ;
  return _mm512_cmp_ph_mask(_mm512_castsi512_ph(a), _mm512_castsi512_ph(b), kPredicate);
}

// The kernels of one dtype: kSize bytes an operand element; Lanes(p) the
// lanes of one element (a scalar loop kind's operand) in every lane; Block
// the 64 result bytes (64 / the result's size elements) of the operand
// elements at a and b, or of the scalar lanes s where the loop kind says (a
// or b then unread). A comparison's result is a bool byte (0 or 1).
template <DType kId>
struct Float8 {
  static constexpr size_t kSize = 1;
  ELTWISE_SPR_ATTR static __m512i Lanes(const void* p) {
    return _mm512_set1_epi16(static_cast<short>(HalfOf<kId>(*static_cast<const uint8_t*>(p))));
  }
  template <OpId kOp, LoopKind kKind>
  ELTWISE_SPR_ATTR static __m512i Block(const char* a, const char* b, __m512i s) {
    __m512i ha[2] = {s, s}, hb[2] = {s, s}, r[2];
    if (kKind != LoopKind::kScalarFirst) Decode<kId>(_mm512_loadu_si512(a), ha);
    if (kKind != LoopKind::kScalarSecond) Decode<kId>(_mm512_loadu_si512(b), hb);
    if constexpr (Traits(kOp).bool_result) {
      // The signed pack puts the 16-bit lanes' results in code order (as
      // Encode's packs do).
      const __m512i ones = _mm512_packs_epi16(_mm512_movm_epi16(Compare<kOp>(ha[0], hb[0])),
                                              _mm512_movm_epi16(Compare<kOp>(ha[1], hb[1])));
      return _mm512_and_si512(ones, _mm512_set1_epi8(1));
    } else {
      r[0] = Apply<kOp>(ha[0], hb[0]);
      r[1] = Apply<kOp>(ha[1], hb[1]);
      return Encode<kId>(r);
    }
  }
};

struct Float16 {
  static constexpr size_t kSize = 2;
  ELTWISE_SPR_ATTR static __m512i Lanes(const void* p) {
    uint16_t bits;
    memcpy(&bits, p, 2);
    return _mm512_set1_epi16(static_cast<short>(bits));
  }
  // The 32 elements from byte `at` of operand p, or the scalar lanes s.
  template <bool kScalar>
  ELTWISE_SPR_ATTR static __m512i At(const char* p, size_t at, __m512i s) {
    return kScalar ? s : _mm512_loadu_si512(p + at);
  }
  template <OpId kOp, LoopKind kKind>
  ELTWISE_SPR_ATTR static __m512i Block(const char* a, const char* b, __m512i s) {
    constexpr bool kA = kKind == LoopKind::kScalarFirst, kB = kKind == LoopKind::kScalarSecond;
    if constexpr (Traits(kOp).bool_result) {
      const __mmask64 m = _mm512_kunpackd(Compare<kOp>(At<kA>(a, 64, s), At<kB>(b, 64, s)),
                                          Compare<kOp>(At<kA>(a, 0, s), At<kB>(b, 0, s)));
      return _mm512_maskz_mov_epi8(m, _mm512_set1_epi8(1));
    } else {
      return Apply<kOp>(At<kA>(a, 0, s), At<kB>(b, 0, s));
    }
  }
};

template <OpId kOp>
ELTWISE_SPR_ATTR inline __m512 ApplyF32(__m512 x, __m512 y) {
  if constexpr (kOp == OpId::kAdd) return _mm512_add_ps(x, y);
  if constexpr (kOp == OpId::kSubtract) return _mm512_sub_ps(x, y);
  if constexpr (kOp == OpId::kMultiply) return _mm512_mul_ps(x, y);
  return _mm512_div_ps(x, y);
}

struct BFloat16 {
  static constexpr size_t kSize = 2;
  // (The float32 lanes of the element, as the lanes' bits.)
  ELTWISE_SPR_ATTR static __m512i Lanes(const void* p) {
    uint16_t bits;
    memcpy(&bits, p, 2);
    return _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(bits) << 16));
  }
  // float32 lanes of the 16 elements at p.
  ELTWISE_SPR_ATTR static __m512 Widen(const char* p) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  // bfloat16 bits of float32 lanes r as AVX3_DL's F32ToBF16 makes them, in
  // the low 16 bits: rounded to nearest even by integers, NaN the quiet NaN
  // of its sign.
  ELTWISE_SPR_ATTR static __m256i Round(__m512 r) {
    const __m512i u = _mm512_castps_si512(r);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i bits = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_add_epi32(u, lsb), _mm512_set1_epi32(0x7FFF)), 16);
    const __mmask16 nan = _mm512_fpclass_ps_mask(r, 0x81);  // quiet or signalling NaN
    const __m512i quiet = _mm512_or_si512(
        _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x8000)),
        _mm512_set1_epi32(0x7FC0));
    bits = _mm512_mask_mov_epi32(bits, nan, quiet);
    return _mm512_cvtepi32_epi16(bits);
  }
  template <OpId kOp, LoopKind kKind>
  ELTWISE_SPR_ATTR static __m512i Block(const char* a, const char* b, __m512i s) {
    const __m512 fs = _mm512_castsi512_ps(s);
    const __m512 r0 = ApplyF32<kOp>(kKind == LoopKind::kScalarFirst ? fs : Widen(a),
                                    kKind == LoopKind::kScalarSecond ? fs : Widen(b));
    const __m512 r1 = ApplyF32<kOp>(kKind == LoopKind::kScalarFirst ? fs : Widen(a + 32),
                                    kKind == LoopKind::kScalarSecond ? fs : Widen(b + 32));
    const __m512i bits = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(r1, r0));
    // Subnormal (0x20) or NaN (0x81) lanes, rare: Round's bits.
    const __mmask32 odd = _mm512_kunpackw(_mm512_fpclass_ps_mask(r1, 0xA1),
                                          _mm512_fpclass_ps_mask(r0, 0xA1));
    if (HWY_LIKELY(odd == 0)) return bits;
    const __m512i rounded = _mm512_inserti64x4(_mm512_castsi256_si512(Round(r0)), Round(r1), 1);
    return _mm512_mask_mov_epi16(bits, odd, rounded);
  }
};

// Elements i .. i + m - 1 (m below a block) through padded buffers: their
// operands copied in, one block computed, its first m results copied out.
template <class K, OpId kOp, LoopKind kKind, size_t kE, size_t kO>
ELTWISE_SPR_ATTR void Partial(const char* a, const char* b, char* out, size_t i, size_t m,
                              __m512i s) {
  alignas(64) char ta[64 * kE / kO] = {}, tb[64 * kE / kO] = {}, to[64];
  if (kKind != LoopKind::kScalarFirst) memcpy(ta, a + i * kE, m * kE);
  if (kKind != LoopKind::kScalarSecond) memcpy(tb, b + i * kE, m * kE);
  _mm512_store_si512(reinterpret_cast<__m512i*>(to), K::template Block<kOp, kKind>(ta, tb, s));
  memcpy(out + i * kO, to, m * kO);
}

// out[i] = a[i] op b[i] for i < n (a or b one element for a scalar loop
// kind), 64 bytes of result a block; a partial block (the tail, and under
// kHintStream the head before the first aligned block) through padded
// buffers. Each block loads its operands before its store, so `out` may
// alias an input. Under kHintStream the aligned blocks are stored past the
// cache and fenced, unless kHintNoFlush says the caller fences (as
// kernels/loops-inl.h's BinaryLoop does). Reports no flags.
template <class K, OpId kOp, LoopKind kKind>
ELTWISE_SPR_ATTR int Loop(const void* pa, const void* pb, void* po, size_t n,
                           unsigned hints) {
  // Bytes an operand element and a result element, elements a block.
  constexpr size_t kE = K::kSize, kO = Traits(kOp).bool_result ? 1 : kE, kPer = 64 / kO;
  const char* a = static_cast<const char*>(pa);
  const char* b = static_cast<const char*>(pb);
  char* out = static_cast<char*>(po);
  const __m512i s = kKind == LoopKind::kScalarFirst    ? K::Lanes(a)
                    : kKind == LoopKind::kScalarSecond ? K::Lanes(b)
                                                       : _mm512_setzero_si512();
  // Element i's operands (a scalar operand stays where it is).
  const auto at_a = [&](size_t i) { return kKind == LoopKind::kScalarFirst ? a : a + i * kE; };
  const auto at_b = [&](size_t i) { return kKind == LoopKind::kScalarSecond ? b : b + i * kE; };
  const uintptr_t misaligned = reinterpret_cast<uintptr_t>(out) % 64;
  const bool stream = (hints & kHintStream) && misaligned % kO == 0;
  size_t i = 0;
  if (stream) {
    const size_t head = std::min(n, (64 - misaligned) % 64 / kO);
    if (head != 0) Partial<K, kOp, kKind, kE, kO>(a, b, out, 0, head, s);
    for (i = head; i + kPer <= n; i += kPer) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i * kO),
                          K::template Block<kOp, kKind>(at_a(i), at_b(i), s));
    }
  } else {
    for (; i + kPer <= n; i += kPer) {
      _mm512_storeu_si512(out + i * kO, K::template Block<kOp, kKind>(at_a(i), at_b(i), s));
    }
  }
  if (i < n) Partial<K, kOp, kKind, kE, kO>(a, b, out, i, n - i, s);
  if (stream && !(hints & kHintNoFlush)) _mm_sfence();
  return 0;
}

template <class K, DType kId, OpId kOp>
void Set(KernelTable& t) {
  auto& row = t.k[static_cast<int>(kOp)][static_cast<int>(kId)];
  row[static_cast<int>(LoopKind::kContiguous)] = &Loop<K, kOp, LoopKind::kContiguous>;
  row[static_cast<int>(LoopKind::kScalarFirst)] = &Loop<K, kOp, LoopKind::kScalarFirst>;
  row[static_cast<int>(LoopKind::kScalarSecond)] = &Loop<K, kOp, LoopKind::kScalarSecond>;
}

template <class K, DType kId>
void SetArithmetic(KernelTable& t) {
  Set<K, kId, OpId::kAdd>(t);
  Set<K, kId, OpId::kSubtract>(t);
  Set<K, kId, OpId::kMultiply>(t);
}

template <class K, DType kId>
void SetComparisons(KernelTable& t) {
  Set<K, kId, OpId::kEqual>(t);
  Set<K, kId, OpId::kNotEqual>(t);
  Set<K, kId, OpId::kGreater>(t);
  Set<K, kId, OpId::kGreaterEqual>(t);
  Set<K, kId, OpId::kLess>(t);
  Set<K, kId, OpId::kLessEqual>(t);
}

}  // namespace

bool CpuRunsAvx3Spr() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool fp16 = (edx >> 23) & 1;  // CPUID.(EAX=7, ECX=0):EDX.AVX512_FP16[bit 23]
  if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
  const bool bf16 = (eax >> 5) & 1;  // CPUID.(EAX=7, ECX=1):EAX.AVX512_BF16[bit 5]
  return fp16 && bf16;
}

void FillAvx3SprKernels(KernelTable& t) {
  SetArithmetic<Float16, DType::kF16>(t);
  SetComparisons<Float16, DType::kF16>(t);
  SetArithmetic<BFloat16, DType::kBF16>(t);
  Set<BFloat16, DType::kBF16, OpId::kDivide>(t);
  SetArithmetic<Float8<DType::kF8E4M3FN>, DType::kF8E4M3FN>(t);
  SetComparisons<Float8<DType::kF8E4M3FN>, DType::kF8E4M3FN>(t);
  SetArithmetic<Float8<DType::kF8E5M2>, DType::kF8E5M2>(t);
  SetComparisons<Float8<DType::kF8E5M2>, DType::kF8E5M2>(t);
}

}  // namespace eltwise

#pragma GCC diagnostic pop

#else  // !ELTWISE_AVX3_SPR

namespace eltwise {
bool CpuRunsAvx3Spr() { return false; }
void FillAvx3SprKernels(KernelTable&) {}
}  // namespace eltwise

#endif  // ELTWISE_AVX3_SPR

namespace eltwise {
bool Avx3SprCompiled() { return ELTWISE_AVX3_SPR; }
}  // namespace eltwise
