// Shared inner loops and lane conversions for every kernel family.
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_LOOPS_INL_H_
#undef ELTWISE_KERNELS_LOOPS_INL_H_
#else
#define ELTWISE_KERNELS_LOOPS_INL_H_
#endif

#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/table.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
constexpr bool kIsHalf = std::is_same<T, hwy::float16_t>::value ||
                         std::is_same<T, hwy::bfloat16_t>::value;

// The type an op computes in by default: float16/bfloat16 in float32 (one
// rounding at the end), everything else in itself.
template <typename T>
using Arith = std::conditional_t<kIsHalf<T>, float, T>;

// Storage value 1 of T: pads the lanes past the end of a tail, so padding never
// divides by zero or raises anything.
// The half types get their bits copied in: Highway >= 1.1 made them classes (or
// native _Float16) that brace-initialization from bits no longer reaches.
template <typename T>
HWY_INLINE T OneOf() {
  if constexpr (kIsHalf<T>) {
    const uint16_t bits = std::is_same<T, hwy::float16_t>::value ? 0x3C00 : 0x3F80;
    T one;
    static_assert(sizeof(one) == sizeof(bits), "half types are 16 bits");
    std::memcpy(&one, &bits, sizeof(bits));
    return one;
  } else {
    return T(1);
  }
}

// A vector of storage lanes all equal to s. Half types go by their bits
// (Highway 1.0.3 has no Set for them on every target).
template <class DS>
HWY_INLINE hn::Vec<DS> SplatStorage(DS ds, hn::TFromD<DS> s) {
  using T = hn::TFromD<DS>;
  if constexpr (kIsHalf<T>) {
    const hn::RebindToUnsigned<DS> du;
    uint16_t bits;
    std::memcpy(&bits, &s, sizeof(bits));
    return hn::BitCast(ds, hn::Set(du, bits));
  } else {
    return hn::Set(ds, s);
  }
}

// ---------------------------------------------------------------------------
// float16 <-> float32. Highway 1.0.3's conversions are IEEE-correct only where
// F16C does them (AVX2, AVX3); elsewhere they mishandle Inf/NaN and truncate,
// so those targets use the bit-exact integer recipes below.

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
  return hn::BitCast(dh, hn::TruncateTo(hn::Rebind<uint16_t, DF>(), h));
#endif
}

// Computes bfloat16 bits from float32, rounding to nearest even; NaN becomes
// the quiet NaN of its sign, as ml_dtypes does. (Highway's DemoteTo truncates.)
// NaN lanes, rare, become sign | 0x7FC00000 first (one test per vector), which
// the rounding then leaves as is: a blend on every vector cost a sixth of a
// bfloat16 add.
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
  return hn::BitCast(db, hn::TruncateTo(hn::Rebind<uint16_t, DF>(), rounded));
}

// ---------------------------------------------------------------------------
// Widen: storage lanes S -> compute lanes C (same lane count).

template <class DC, class VS>
HWY_INLINE hn::Vec<DC> Widen(DC dc, VS v) {
  using C = hn::TFromD<DC>;
  using S = hn::TFromV<VS>;
  if constexpr (std::is_same<C, S>::value) {
    return v;
  } else if constexpr (std::is_same<S, hwy::float16_t>::value) {
    return F16ToF32(dc, v);
  } else if constexpr (std::is_same<S, hwy::bfloat16_t>::value) {
    return hn::PromoteTo(dc, v);
  } else if constexpr (std::is_same<C, double>::value &&
                       std::is_same<S, uint32_t>::value) {
    // v - 2^31 as int32, widened, plus 2^31: exact, and three instructions where
    // uint64 -> float64 has no AVX2 instruction.
    const hn::Rebind<int32_t, DC> di32;
    const auto biased = hn::BitCast(di32, hn::Xor(v, hn::Set(hn::DFromV<VS>(), 0x80000000u)));
    return hn::Add(hn::PromoteTo(dc, biased), hn::Set(dc, 2147483648.0));
  } else {
    return hn::PromoteTo(dc, v);
  }
}

// Narrow: compute lanes C -> storage lanes O. Integers wrap (two's
// complement), floats round to nearest even. f64 -> 32-bit integer expects
// an integral value.
template <class DO, class DC>
HWY_INLINE hn::Vec<DO> Narrow(DO dout, DC dc, hn::Vec<DC> v) {
  using C = hn::TFromD<DC>;
  using O = hn::TFromD<DO>;
  if constexpr (std::is_same<C, O>::value) {
    return v;
  } else if constexpr (std::is_same<O, hwy::float16_t>::value) {
    return F32ToF16(dout, dc, v);
  } else if constexpr (std::is_same<O, hwy::bfloat16_t>::value) {
    return F32ToBF16(dout, dc, v);
  } else if constexpr (std::is_same<C, double>::value) {  // -> 32-bit int
    // Only integer division gets here, with v in [-2^31, 2^32): int32 quotients
    // up to 2^31 (INT32_MIN / -1), uint32 ones below 2^32. Moving v >= 2^31 down
    // by 2^32 is the wrap, after which one truncating conversion (cvttpd2dq) is
    // exact; through int64 took some 25 instructions on AVX2.
    const hn::Rebind<int32_t, DC> di32;
    const auto two31 = hn::Set(dc, 2147483648.0);
    const auto wrapped =
        hn::IfThenElse(hn::Ge(v, two31), hn::Sub(v, hn::Add(two31, two31)), v);
    return hn::BitCast(dout, hn::DemoteTo(di32, wrapped));
  } else {  // wider integer -> narrower integer, wrapping
    const hn::RebindToUnsigned<DC> duc;
    const hn::RebindToUnsigned<DO> duo;
    return hn::BitCast(dout, hn::TruncateTo(duo, hn::BitCast(duc, v)));
  }
}

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
    return hn::TruncateTo(dout, ones);
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

// The op's result (a vector or a mask) as result-storage lanes.
template <class DO, class DC, class R>
HWY_INLINE hn::Vec<DO> ResultLanes(DO dout, DC dc, R r) {
  if constexpr (std::is_same<R, hn::Mask<DC>>::value) {
    return MaskToBool(dout, dc, r);
  } else {
    return Narrow(dout, dc, r);
  }
}

// Applies f to every lane of a and b (for ops Highway has no vector form of).
template <class D, class F>
HWY_INLINE hn::Vec<D> PerLane(D d, hn::Vec<D> a, hn::Vec<D> b, F f) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T la[HWY_MAX_BYTES / sizeof(T)];
  HWY_ALIGN T lb[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(a, d, la);
  hn::Store(b, d, lb);
  const size_t n = hn::Lanes(d);
  for (size_t i = 0; i < n; ++i) la[i] = f(la[i], lb[i]);
  return hn::Load(d, la);
}

// ---------------------------------------------------------------------------
// The inner loop: out[i] = op(a[i], b[i]) over n elements of storage type T,
// result storage O. Op is a small functor:
//   template <typename T> using Compute = ...;   // lane type it computes in
//                                                // (OpBase: Arith<T>)
//   auto operator()(D d, Vec<D> a, Vec<D> b)      // a vector or a mask
//   int flags() const;                           // KernelFlags it met
// A tail of n >= N elements is the last whole vector again when the caller
// says the inputs are settled (kHintSettledInputs) and `out` shares no byte
// with an array operand: recomputing lanes already done stores the same
// bits, and costs less than the padded vector. Other partial
// vectors (the tail of an in-place call, of n < N or of a buffer the caller
// just filled, and the head before an aligned streaming store) go through
// one padded vector, never re-reading or re-writing elements already done,
// so `out` may alias an input. (A row just transposed byte by byte, RunGroups,
// read as one vector fails a store forward: uint8 a.T + b ran at half speed
// with the recomputed tail there.) kHintStream asks for non-temporal stores
// (outputs larger than the cache), honoured where the result fills whole
// vectors.

template <class Op, typename T, typename O, LoopKind kKind>
int BinaryLoop(const void* HWY_RESTRICT pa, const void* HWY_RESTRICT pb,
               void* HWY_RESTRICT po, size_t n, unsigned hints) {
  using C = typename Op::template Compute<T>;
  const hn::ScalableTag<C> dc;
  const hn::Rebind<T, decltype(dc)> ds;
  const hn::Rebind<O, decltype(dc)> dout;
  const size_t N = hn::Lanes(dc);
  constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(C);
  const T* a = static_cast<const T*>(pa);
  const T* b = static_cast<const T*>(pb);
  O* out = static_cast<O*>(po);
  Op op;

  // The broadcast operand of a scalar loop kind, read once. (Set, not a
  // filled buffer: its lanes' stores and the vector load after them defeated
  // store forwarding, a stall on every call; a tenth of a call on 1000 int8.)
  const T s = kKind == LoopKind::kScalarFirst    ? a[0]
              : kKind == LoopKind::kScalarSecond ? b[0]
                                                 : OneOf<T>();
  const auto vs = Widen(dc, SplatStorage(ds, s));
  // In the compute type: a half-precision scalar arrives widened to float.
  if constexpr (kKind == LoopKind::kScalarSecond) op.PrepareScalarSecond(hn::GetLane(vs));

  // The result lanes for one vector of each operand, read from pa and pb
  // (the broadcast operand of a scalar kind is vs instead).
  const auto result_at = [&](const T* pa_i, const T* pb_i) {
    const auto va = kKind == LoopKind::kScalarFirst ? vs : Widen(dc, hn::LoadU(ds, pa_i));
    const auto vb = kKind == LoopKind::kScalarSecond ? vs : Widen(dc, hn::LoadU(ds, pb_i));
    return ResultLanes(dout, dc, op(dc, va, vb));
  };

  // Stores the result lanes of the N elements from i with store(r, out + i).
  const auto one_vector_at = [&](size_t i, auto store) { store(result_at(a + i, b + i), out + i); };

  // Computes `count` < N elements from i through padded buffers.
  const auto partial = [&](size_t i, size_t count) {
    HWY_ALIGN T ta[kMaxLanes];
    HWY_ALIGN T tb[kMaxLanes];
    HWY_ALIGN O to[kMaxLanes];
    for (size_t j = 0; j < kMaxLanes; ++j) ta[j] = tb[j] = OneOf<T>();
    if (kKind != LoopKind::kScalarFirst) memcpy(ta, a + i, count * sizeof(T));
    if (kKind != LoopKind::kScalarSecond) memcpy(tb, b + i, count * sizeof(T));
    hn::StoreU(result_at(ta, tb), dout, to);
    memcpy(out + i, to, count * sizeof(O));
  };

  // Memory-bound ops compute four vectors from i, all loaded before any is
  // stored: one vector per iteration ran 10-20% slower on AMD EPYC at sizes
  // past L2 (10^6 float32 a + b, or streamed 10^6 float64; medians of 41
  // interleaved runs in a C harness).
  const auto four_at = [&](size_t i, auto store) {
    const auto r0 = result_at(a + i, b + i);
    const auto r1 = result_at(a + i + N, b + i + N);
    const auto r2 = result_at(a + i + 2 * N, b + i + 2 * N);
    const auto r3 = result_at(a + i + 3 * N, b + i + 3 * N);
    store(r0, out + i);
    store(r1, out + i + N);
    store(r2, out + i + 2 * N);
    store(r3, out + i + 3 * N);
  };

  size_t i = 0;
  constexpr bool kCanStream = sizeof(O) == sizeof(C) && HWY_TARGET != HWY_SCALAR;
  if (kCanStream && (hints & kHintStream) && n >= 4 * N) {
    const size_t vbytes = N * sizeof(O);
    const size_t misalign = reinterpret_cast<uintptr_t>(out) % vbytes;
    if (misalign % sizeof(O) == 0) {
      const size_t head = misalign ? (vbytes - misalign) / sizeof(O) : 0;
      if (head) partial(0, head);
      i = head;
      const auto stream_to = [&](auto r, O* p) { hn::Stream(r, dout, p); };
      if constexpr (kCanStream && Op::kMemoryBound) {
        for (; i + 4 * N <= n; i += 4 * N) four_at(i, stream_to);
      }
      for (; i + N <= n; i += N) {
        if constexpr (kCanStream) one_vector_at(i, stream_to);
      }
      hwy::FlushStream();
    }
  }
#if HWY_TARGET == HWY_AVX2
  // Comparisons of 32- and 64-bit lanes: 32 results per store.
  using R = decltype(op(dc, vs, vs));
  if constexpr (sizeof(O) == 1 && sizeof(C) >= 4 && std::is_same<R, hn::Mask<decltype(dc)>>::value) {
    const auto mask_at = [&](size_t j) {
      const auto va = kKind == LoopKind::kScalarFirst ? vs : Widen(dc, hn::LoadU(ds, a + j));
      const auto vb = kKind == LoopKind::kScalarSecond ? vs : Widen(dc, hn::LoadU(ds, b + j));
      return op(dc, va, vb);
    };
    const auto lanes32 = [&](size_t j) {  // results j .. j + 7 as 32-bit lanes
      if constexpr (sizeof(C) == 4) return MaskLanes(dc, mask_at(j));
      else return MaskLanes64(dc, mask_at(j), mask_at(j + 4));
    };
    for (; i + 32 <= n; i += 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                          PackBoolBytes(lanes32(i), lanes32(i + 8), lanes32(i + 16), lanes32(i + 24)));
    }
  }
#endif
  const auto store_to = [&](auto r, O* p) { hn::StoreU(r, dout, p); };
  if constexpr (Op::kMemoryBound) {
    for (; i + 4 * N <= n; i += 4 * N) four_at(i, store_to);
  }
  for (; i + N <= n; i += N) one_vector_at(i, store_to);
  if (i < n) {
    // Byte ranges: out against each operand that is an array.
    const auto apart = [&](const T* p) {
      const uintptr_t o0 = reinterpret_cast<uintptr_t>(out), p0 = reinterpret_cast<uintptr_t>(p);
      return o0 + n * sizeof(O) <= p0 || p0 + n * sizeof(T) <= o0;
    };
    if (n >= N && (hints & kHintSettledInputs) && (kKind == LoopKind::kScalarFirst || apart(a)) &&
        (kKind == LoopKind::kScalarSecond || apart(b))) {
      one_vector_at(n - N, store_to);
    } else {
      partial(i, n - i);
    }
  }
  return op.flags();
}

// ---------------------------------------------------------------------------
// The strided loop: out[i] = op(a[i * sa], b[i * sb]) over n elements, byte
// strides (0: one element broadcast), out contiguous. For ops that run at
// memory speed: loading strided lanes where they lie keeps both operands'
// and the result's memory streams in flight together, where packing a block
// of one operand, then of the other, then computing walks one stream at a
// time.

// N lanes of storage T, `stride` bytes apart from p (any alignment).
template <class DS>
HWY_INLINE hn::Vec<DS> LoadLanes(DS ds, const char* p, int64_t stride) {
  using T = hn::TFromD<DS>;
  HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
  const size_t n = hn::Lanes(ds);
  for (size_t j = 0; j < n; ++j) memcpy(&lanes[j], p + static_cast<int64_t>(j) * stride, sizeof(T));
  return hn::Load(ds, lanes);
}

template <class Op, typename T, typename O>
int StridedLoop(const void* pa, int64_t sa, const void* pb, int64_t sb, void* po, size_t n) {
  using C = typename Op::template Compute<T>;
  const hn::ScalableTag<C> dc;
  const hn::Rebind<T, decltype(dc)> ds;
  const hn::Rebind<O, decltype(dc)> dout;
  const size_t N = hn::Lanes(dc);
  constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(C);
  constexpr int64_t kSize = sizeof(T);
  const char* a = static_cast<const char*>(pa);
  const char* b = static_cast<const char*>(pb);
  O* out = static_cast<O*>(po);
  Op op;

  // How an operand's lanes load. Every other element (a[::2]): two vector
  // loads and the even lanes, where storage is the compute type.
  enum Way { kBroadcast, kDense, kEveryOther, kOneByOne };
  constexpr bool kPairs = std::is_same<C, T>::value && HWY_TARGET != HWY_SCALAR;
  const auto way_of = [&](int64_t s) {
    return s == 0 ? kBroadcast : s == kSize ? kDense : kPairs && s == 2 * kSize ? kEveryOther : kOneByOne;
  };
  const Way way_a = way_of(sa), way_b = way_of(sb);
  const auto va0 = Widen(dc, LoadLanes(ds, a, 0));
  const auto vb0 = Widen(dc, LoadLanes(ds, b, 0));
  // Lanes i .. i + N - 1. kEveryOther reads up to the element before i + N,
  // so the loop below keeps i + N < n.
  const auto load = [&](Way way, const char* p, int64_t s, size_t i, hn::Vec<decltype(dc)> v0) {
    const char* at = p + static_cast<int64_t>(i) * s;
    if (way == kBroadcast) return v0;
    if (way == kDense) return Widen(dc, hn::LoadU(ds, reinterpret_cast<const T*>(at)));
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kPairs) {
      if (way == kEveryOther) {
        const hn::RebindToUnsigned<decltype(ds)> du;
        const auto* q = reinterpret_cast<const hn::TFromD<decltype(du)>*>(at);
        return hn::BitCast(ds, hn::ConcatEven(du, hn::LoadU(du, q + N), hn::LoadU(du, q)));
      }
    }
#endif
    return Widen(dc, LoadLanes(ds, at, s));
  };

  size_t i = 0;
  for (; i + N < n; i += N) {
    const auto r = op(dc, load(way_a, a, sa, i, va0), load(way_b, b, sb, i, vb0));
    hn::StoreU(ResultLanes(dout, dc, r), dout, out + i);
  }
  // The last 1 .. N elements, through padded lanes.
  HWY_ALIGN T ta[kMaxLanes];
  HWY_ALIGN T tb[kMaxLanes];
  HWY_ALIGN O to[kMaxLanes];
  for (size_t j = 0; j < kMaxLanes; ++j) ta[j] = tb[j] = OneOf<T>();
  const size_t count = n - i;
  for (size_t j = 0; j < count; ++j) {
    memcpy(&ta[j], a + static_cast<int64_t>(i + j) * sa, sizeof(T));
    memcpy(&tb[j], b + static_cast<int64_t>(i + j) * sb, sizeof(T));
  }
  const auto r = op(dc, Widen(dc, hn::Load(ds, ta)), Widen(dc, hn::Load(ds, tb)));
  hn::Store(ResultLanes(dout, dc, r), dout, to);
  memcpy(out + i, to, count * sizeof(O));
  return op.flags();
}

// Base for ops: reports no flags, needs no preparation. An op may shadow
// PrepareScalarSecond to precompute from the broadcast second operand (a
// scalar divisor, say; in the op's compute type) before the loop runs.
struct OpBase {
  // float16 and bfloat16 compute in float32, every other type as stored.
  template <typename T> using Compute = Arith<T>;
  int flags() const { return 0; }
  template <typename T>
  void PrepareScalarSecond(T) {}
  static constexpr bool kMemoryBound = false;
  // Whether strided operands of storage T load where they lie (StridedLoop)
  // rather than being packed into blocks first.
  template <typename T> static constexpr bool kLoadsStrided = false;
};

// Base for ops that cost no more than moving their bytes (add, compare, ...):
// they also get the strided loop. (Other ops opt in per storage type where
// packing left the memory idle while they computed: power, integer division.)
struct MemoryBoundOp : OpBase {
  static constexpr bool kMemoryBound = true;
  template <typename T> static constexpr bool kLoadsStrided = true;
};

// Puts the loops of Op on storage T (result storage O) into t.
template <class Op, typename T, typename O>
void SetLoops(KernelTable& t, OpId op, DType dtype) {
  auto& row = t.k[static_cast<int>(op)][static_cast<int>(dtype)];
  row[static_cast<int>(LoopKind::kContiguous)] = &BinaryLoop<Op, T, O, LoopKind::kContiguous>;
  row[static_cast<int>(LoopKind::kScalarFirst)] = &BinaryLoop<Op, T, O, LoopKind::kScalarFirst>;
  row[static_cast<int>(LoopKind::kScalarSecond)] = &BinaryLoop<Op, T, O, LoopKind::kScalarSecond>;
  if constexpr (Op::template kLoadsStrided<T>) {
    t.strided[static_cast<int>(op)][static_cast<int>(dtype)] = &StridedLoop<Op, T, O>;
  }
}

// Registers Op for each storage type in Ts; the result is T, or bool bytes
// when kBoolResult.
template <class Op, bool kBoolResult, typename... Ts>
void SetLoopsFor(KernelTable& t, OpId op) {
  (SetLoops<Op, Ts, std::conditional_t<kBoolResult, uint8_t, Ts>>(t, op, DTypeOf<Ts>()), ...);
}

#define ELTWISE_INT_TYPES int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
#define ELTWISE_FLOAT_TYPES hwy::float16_t, hwy::bfloat16_t, float, double

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_LOOPS_INL_H_
