// float64 power: pow(x, y) = exp(y * log|x|), the sign from x and the
// parity of y. At most 0.52 ULP measured (0.511 worst against mpmath over
// 2.4*10^7 pairs across every region below), C99's special cases exact.
//
// log|x|: x = 2^k z, z in [0.7071, 1.4142) split by its bits into 128
//   subintervals; c = 1/invc near the middle of z's subinterval, invc with at
//   most 9 significant bits, so r = z * invc - 1 is exact (|r| < 0.0058).
//   log|x| = k ln2 + log(c) + log1p(r) summed in double-double (hi + lo):
//   k*ln2hi + logc is exact, r and -r^2/2 enter through exact two-sums /
//   two-products, log1p(r) - r + r^2/2 = r^3 q(r) (degree-8 polynomial in
//   all, relative error 2^-69.5). The subintervals around 1 have c = 1.
// y * log|x| = ehi + elo through an exact two-product.
// exp(ehi + elo): ehi = (k/128) ln2 + r, |r| <= ln2/256 (+ elo);
//   2^(k/128) = H (1 + T) from a 128-entry table; exp(r) - 1 = r + r^2 q(r)
//   (degree 5, relative error 2^-65.3); result = s + s * tmp with
//   s = H * 2^(k/128 integer part), tmp = T + exp(r) - 1.
// Error before the final rounding: about 2^-57.6 relative (0.041 ULP), most
// of it from log near x = 1 with a huge y; tables and polynomials come from
// tools/power-f64-constants (mpmath), which prints each polynomial's error.
// Common path: one "all lanes positive normal x and |y log x| < 512?" test.
// Vectors with a negative normal x (and integer y) take a short vector detour
// (sign from y's parity). Rare lanes (zero, subnormal, inf or NaN x; negative
// x with non-integer y; |y log x| >= 512 or NaN) make the whole vector take
// PowFinish: the exp again on all lanes plus the scaled exp near overflow/
// underflow (subnormal results rounded once), signs and C99's special cases;
// a subnormal x first recomputes the log of the vector (PowSubnormal). Lanes
// the fast path could handle get the same bits from these paths, so a lane's
// bits never depend on its neighbours.
// AVX-512 (AVX3, AVX3_DL) runs the same method on smaller tables it looks up by
// permutes (UseSmallTables): log with 32 subintervals (|r| < 2^-5.4; c = 1 on
// the one holding 1 and on its lower neighbour, where another c would make
// log x a small difference), exp with 16 steps (|r| <= ln2/32), longer
// polynomials (degree 11 and 7), and the extra precision the wider r needs:
// B3 r^3 in two doubles, its high part summed exactly into the log's; exp's
// reduced argument kept exact and s (1 + t) formed from two parts. At most
// 0.507 ULP measured (2.1*10^8 pairs against long double's pow, most of them
// where the error is largest: x near 1 with |y log x| up to 708, results near
// overflow and underflow; the worst confirmed with mpmath), so more accurate
// than the 128-entry form; its bits differ from AVX2's in the last place for
// about 0.1% of results.
// On the 128-entry tables, SSE4, SSSE3 and the scalar target round the
// polynomials' steps twice and differ from AVX2 (FMA) in the last place of
// 0.01-0.07% of results (all within 1 ULP). Plain
// multiplies and adds everywhere would make every target agree, at 15% of
// the speed on AVX2. power.cc is compiled with -ffp-contract=off: GCC would
// otherwise fuse some Mul + Add pairs into FMAs, target by target.
// Table lookups: AVX-512 permutes its small tables; the other vector targets
// load each lane's whole entry and transpose it (gathers are slower); the
// scalar target gathers.

#if defined(ELTWISE_KERNELS_POW_F64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_POW_F64_INL_H_
#undef ELTWISE_KERNELS_POW_F64_INL_H_
#else
#define ELTWISE_KERNELS_POW_F64_INL_H_
#endif

#include <cstdint>
#include <limits>

#include "hwy/highway.h"
#include "kernels/pow_f64_tables.h"


HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether float lanes y are integers, and odd ones, for the sign of a
// negative base (float32 and float64 power): |y| >= 2^(mantissa bits) is an
// integer, and from one more bit on an even one; NaN is neither.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void IntegerParity(D d, V y, hn::Mask<D>* y_int, hn::Mask<D>* y_odd) {
  const V half = hn::Mul(y, hn::Set(d, hn::TFromD<D>(0.5)));
  *y_int = hn::Eq(hn::Round(y), y);
  *y_odd = hn::AndNot(hn::Eq(hn::Round(half), half), *y_int);
}

namespace pow_f64 {

// a * b - p exactly, for p = fl(a * b) (no overflow, no underflow).
template <class D, class V>
HWY_INLINE V TwoProdErr(D d, V a, V b, V p) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulSub(a, b, p);
#else
  const V split = hn::Set(d, 134217729.0);  // 2^27 + 1, Dekker/Veltkamp
  const V ta = hn::Mul(a, split);
  const V ah = hn::Sub(ta, hn::Sub(ta, a));
  const V al = hn::Sub(a, ah);
  const V tb = hn::Mul(b, split);
  const V bh = hn::Sub(tb, hn::Sub(tb, b));
  const V bl = hn::Sub(b, bh);
  V e = hn::Sub(hn::Mul(ah, bh), p);
  e = hn::Add(e, hn::Mul(ah, bl));
  e = hn::Add(e, hn::Mul(al, bh));
  return hn::Add(e, hn::Mul(al, bl));
#endif
}

// c[0] + c[1] r + ... + c[K-1] r^(K-1) by Estrin's scheme: pairs c[2j] + c[2j+1] r,
// then pairs of those joined by r^2, then by r^4, and so on (r2 = r * r).
template <class D, size_t K, class V = hn::Vec<D>>
HWY_INLINE V Estrin(D d, V r, V r2, const double (&c)[K]) {
  V t[(K + 1) / 2];
  for (size_t j = 0; j < (K + 1) / 2; ++j) {
    t[j] = 2 * j + 1 < K ? hn::MulAdd(hn::Set(d, c[2 * j + 1]), r, hn::Set(d, c[2 * j]))
                         : hn::Set(d, c[2 * j]);
  }
  V x = r2;
  for (size_t m = (K + 1) / 2; m > 1; m = (m + 1) / 2) {
    for (size_t j = 0; j < m / 2; ++j) t[j] = hn::MulAdd(x, t[2 * j + 1], t[2 * j]);
    if (m % 2) t[m / 2] = t[m - 1];
    x = hn::Mul(x, x);
  }
  return t[0];
}

// AVX-512 uses the small tables (pow_f64_tables' kLog*32 and kExp*16 sets): a
// column of 16 entries is two vectors, one vpermt2pd per lookup (which reads
// only the index's low four bits), and a column of 32 is two of those and a
// blend on the index's bit 4. The larger tables' loads and transposes cost
// about as much as the rest of pow together there.
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
inline constexpr bool kSmallTables = true;

// t[i & 31] per lane.
HWY_INLINE __m512d Permute32(const double* HWY_RESTRICT t, __m512i i) {
  const __m512d lo = _mm512_permutex2var_pd(_mm512_load_pd(t), i, _mm512_load_pd(t + 8));
  const __m512d hi = _mm512_permutex2var_pd(_mm512_load_pd(t + 16), i, _mm512_load_pd(t + 24));
  return _mm512_mask_blend_pd(_mm512_test_epi64_mask(i, _mm512_set1_epi64(16)), lo, hi);
}

// t[i & 15] per lane.
HWY_INLINE __m512i Permute16(const uint64_t* HWY_RESTRICT t, __m512i i) {
  return _mm512_permutex2var_epi64(_mm512_load_si512(t), i, _mm512_load_si512(t + 8));
}
#else
inline constexpr bool kSmallTables = false;
#endif

// Whether D's vectors take the small tables: eight lanes on AVX-512.
template <class D>
constexpr bool UseSmallTables() {
  return kSmallTables && hn::MaxLanes(D()) == 8;
}

// Table lookups. Four- and two-lane vectors (AVX2, SSE4): one load per lane of
// an entry and a transpose, instead of one gather per column (AVX2 gathers
// cost 30% of the whole pow here).
template <class D, class VI, class V = hn::Vec<D>>
HWY_INLINE void LookupLog(D d, VI i, V& invc, V& logc, V& logctail) {
  namespace T = ::eltwise::pow_f64_tables;
#if HWY_TARGET != HWY_SCALAR
  if constexpr (hn::MaxLanes(D()) == 4) {
    alignas(32) uint64_t ii[4];
    hn::Store(i, hn::RebindToUnsigned<D>(), ii);
    const V e0 = hn::Load(d, T::kLogTable + 4 * ii[0]);
    const V e1 = hn::Load(d, T::kLogTable + 4 * ii[1]);
    const V e2 = hn::Load(d, T::kLogTable + 4 * ii[2]);
    const V e3 = hn::Load(d, T::kLogTable + 4 * ii[3]);
    const V t0 = hn::InterleaveLower(d, e0, e1);  // invc0 invc1 tail0 tail1
    const V t1 = hn::InterleaveLower(d, e2, e3);
    const V t2 = hn::InterleaveUpper(d, e0, e1);  // logc0 logc1 0 0
    const V t3 = hn::InterleaveUpper(d, e2, e3);
    invc = hn::ConcatLowerLower(d, t1, t0);
    logctail = hn::ConcatUpperUpper(d, t1, t0);
    logc = hn::ConcatLowerLower(d, t3, t2);
    return;
  } else if constexpr (hn::MaxLanes(D()) == 2) {
    alignas(16) uint64_t ii[2];
    hn::Store(i, hn::RebindToUnsigned<D>(), ii);
    const V a0 = hn::Load(d, T::kLogTable + 4 * ii[0]);  // invc0 logc0
    const V a1 = hn::Load(d, T::kLogTable + 4 * ii[1]);
    invc = hn::InterleaveLower(d, a0, a1);
    logc = hn::InterleaveUpper(d, a0, a1);
    logctail = hn::InterleaveLower(d, hn::Load(d, T::kLogTable + 4 * ii[0] + 2),
                                   hn::Load(d, T::kLogTable + 4 * ii[1] + 2));
    return;
  }
#endif
  const hn::RebindToSigned<D> di;
  const auto idx = hn::BitCast(di, hn::ShiftLeft<2>(i));
  invc = hn::GatherIndex(d, T::kLogTable, idx);
  logc = hn::GatherIndex(d, T::kLogTable + 1, idx);
  logctail = hn::GatherIndex(d, T::kLogTable + 2, idx);
}

template <class D, class VU = hn::Vec<hn::RebindToUnsigned<D>>>
HWY_INLINE void LookupExp(D d, VU j, VU& tail, VU& sbits) {
  namespace T = ::eltwise::pow_f64_tables;
  const hn::RebindToUnsigned<D> du;
#if HWY_TARGET != HWY_SCALAR
  if constexpr (hn::MaxLanes(D()) == 4) {
    const hn::Half<decltype(du)> dh;
    alignas(32) uint64_t jj[4];
    hn::Store(j, du, jj);
    const VU a = hn::Combine(du, hn::LoadU(dh, T::kExpTable + 2 * jj[2]),
                             hn::LoadU(dh, T::kExpTable + 2 * jj[0]));  // t0 s0 t2 s2
    const VU b = hn::Combine(du, hn::LoadU(dh, T::kExpTable + 2 * jj[3]),
                             hn::LoadU(dh, T::kExpTable + 2 * jj[1]));  // t1 s1 t3 s3
    tail = hn::InterleaveLower(du, a, b);
    sbits = hn::InterleaveUpper(du, a, b);
    return;
  } else if constexpr (hn::MaxLanes(D()) == 2) {
    alignas(16) uint64_t jj[2];
    hn::Store(j, du, jj);
    const VU a = hn::LoadU(du, T::kExpTable + 2 * jj[0]);  // t0 s0
    const VU b = hn::LoadU(du, T::kExpTable + 2 * jj[1]);  // t1 s1
    tail = hn::InterleaveLower(du, a, b);
    sbits = hn::InterleaveUpper(du, a, b);
    return;
  }
#endif
  const hn::RebindToSigned<D> di;
  const auto idx = hn::BitCast(di, hn::ShiftLeft<1>(j));
  tail = hn::GatherIndex(du, T::kExpTable, idx);
  sbits = hn::GatherIndex(du, T::kExpTable + 1, idx);
}

// log of the double whose bits are ix (positive normal, or a subnormal
// prescaled: bits(x * 2^52) - (52 << 52)), as hi + lo.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void Log(D d, hn::Vec<hn::RebindToUnsigned<D>> ix, V& out_hi, V& out_lo) {
  namespace T = ::eltwise::pow_f64_tables;
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  constexpr bool kSmall = UseSmallTables<D>();
  const auto tmp = hn::Sub(ix, hn::Set(du, kSmall ? T::kLogOff32 : T::kLogOff));
  const auto top = hn::And(tmp, hn::Set(du, 0xFFFull << 52));
  const V z = hn::BitCast(d, hn::Sub(ix, top));
  // k = top >> 52 (arithmetic), |k| < 1200: converted by AVX-512's int64 ->
  // float64 conversion or else the 0x1.8p52 trick.
  const auto k = hn::ShiftRight<52>(hn::BitCast(di, tmp));
  V kd;
  if constexpr (kSmall) {
    kd = hn::ConvertTo(d, k);  // AVX-512 DQ's vcvtqq2pd, exact
  } else {
    kd = hn::Sub(hn::BitCast(d, hn::Add(hn::BitCast(du, k), hn::Set(du, 0x4338000000000000ull))),
                 hn::Set(d, 0x1.8p52));
  }
  V invc, logc, logctail;
  if constexpr (kSmall) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    const __m512i i = hn::ShiftRight<47>(tmp).raw;  // bits 0-4 index
    invc = V{Permute32(T::kLogInvC32, i)};
    logc = V{Permute32(T::kLogC32, i)};
    logctail = V{Permute32(T::kLogCTail32, i)};
#endif
  } else {
    LookupLog(d, hn::And(hn::ShiftRight<45>(tmp), hn::Set(du, 127u)), invc, logc, logctail);
  }

  // r = z * invc - 1, exact.
#if HWY_NATIVE_FMA
  const V r = hn::MulAdd(z, invc, hn::Set(d, -1.0));
#else
  const auto iz = hn::BitCast(du, z);
  const V zhi = hn::BitCast(
      d, hn::And(hn::Add(iz, hn::Set(du, 1ull << 31)), hn::Set(du, ~((1ull << 32) - 1))));
  const V zlo = hn::Sub(z, zhi);
  const V rhi = hn::Sub(hn::Mul(zhi, invc), hn::Set(d, 1.0));  // exact
  const V rlo = hn::Mul(zlo, invc);                              // exact
  const V r = hn::Add(rhi, rlo);  // exact: the true sum is a double
#endif
  // k ln2hi + logc: exact (multiples of 2^-43 below 2^10), so one FMA or a
  // multiply and an add give the same bits.
  const V t1 = hn::MulAdd(kd, hn::Set(d, T::kLn2Hi), logc);
  const V t2 = hn::Add(t1, r);
  const V lo1 = hn::MulAdd(kd, hn::Set(d, T::kLn2Lo), logctail);
  const V lo2 = hn::Add(hn::Sub(t1, t2), r);  // |t1| >= |r| or t1 == 0
  // r^2 = r2h + r2l and -r^2/2 = ar2 + lo3, exactly: halving is exact (r is
  // a multiple of 2^-62, so |r| is 0 or at least 2^-62 and nothing here is
  // subnormal), and each product is formed from r alone, off the chain
  // through t2.
  const V r2h = hn::Mul(r, r);
  const V r2l = TwoProdErr(d, r, r, r2h);
  const V ar2 = hn::Mul(hn::Set(d, -0.5), r2h);
  const V lo3 = hn::Mul(hn::Set(d, -0.5), r2l);
  V hi = hn::Add(t2, ar2);
  const V lo4 = hn::Add(hn::Sub(t2, hi), ar2);
  V lo = hn::Add(hn::Add(hn::Add(lo1, lo2), lo3), lo4);
  if constexpr (kSmall) {
    // |r| up to 2^-5.4: B3 r^3 in two doubles, its high part summed exactly
    // into hi, or the roundings of r^3 and of B3 would reach 2^-62 of log|x|.
    const V r3h = hn::Mul(r, r2h);
    const V r3l = hn::MulAdd(r, r2l, TwoProdErr(d, r, r2h, r3h));  // r^3 - r3h
    const V b3 = hn::Set(d, T::kLogB3Hi32);
    const V c3h = hn::Mul(b3, r3h);
    V c3l = hn::MulAdd(b3, r3l, TwoProdErr(d, b3, r3h, c3h));
    c3l = hn::MulAdd(hn::Set(d, T::kLogB3Lo32), r3h, c3l);
    c3l = hn::MulAdd(hn::Mul(r2h, r2h), Estrin(d, r, r2h, T::kLogPoly32), c3l);  // r^4 (B4 + ...)
    const V hi2 = hn::Add(hi, c3h);
    lo = hn::Add(lo, hn::Add(hn::Add(hn::Sub(hi, hi2), c3h), c3l));  // |hi| >= |c3h|
    hi = hi2;
  } else {
    // r^3 (B3 + B4 r + ... ), in pairs: (B3 + B4 r) + r^2 (B5 + B6 r) + ...
    lo = hn::Add(lo, hn::Mul(hn::Mul(r2h, r), Estrin(d, r, r2h, T::kLogPoly)));
  }
  const V y = hn::Add(hi, lo);
  out_lo = hn::Add(hn::Sub(hi, y), lo);
  out_hi = y;
}

// y * (hi + lo) as ehi + elo.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void MulY(D d, V y, V hi, V lo, V& ehi, V& elo) {
  ehi = hn::Mul(y, hi);
  elo = hn::MulAdd(y, lo, TwoProdErr(d, y, hi, ehi));
}

// exp(ehi + elo) = s (1 + thi + tlo); returns thi, sets tlo and sbits (s's
// bits, exponent wrapping modulo 2^64 when |ehi| >= ~708). With the 128-step
// table thi is the whole of it (|thi| < 2^-8, one rounding of 2^-62) and tlo
// is left alone; with the 16 steps of the small tables thi is the exact
// reduced argument (|thi| < 2^-5.5) and tlo the rest, as one double would
// round s (1 + thi + tlo) 2^-59 off. ScaleBy takes either.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpTmp(D d, V ehi, V elo, hn::Vec<hn::RebindToUnsigned<D>>& sbits, V& tlo) {
  namespace T = ::eltwise::pow_f64_tables;
  const hn::RebindToUnsigned<D> du;
  const V shift = hn::Set(d, 0x1.8p52);
  if constexpr (UseSmallTables<D>()) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    const V kbig = hn::MulAdd(ehi, hn::Set(d, T::kInvLn2N16), shift);
    const auto ki = hn::BitCast(du, kbig);
    const V kd = hn::Sub(kbig, shift);
    // kd ln2/16 = p + perr exactly (ln2/16 = L + Llo in two doubles), so rh =
    // ehi - p is exact (Sterbenz: ehi and p within a factor 2, or kd = 0) and
    // rl = elo - perr - kd Llo is below 2^-41 (|ehi| <= 1100, so |elo| and
    // |perr| are at most 2^-43 and |kd Llo| < 2^-43).
    const V L = hn::Set(d, T::kLn2N16);
    const V pr = hn::Mul(kd, L);
    const V perr = TwoProdErr(d, kd, L, pr);
    const V rh = hn::Sub(ehi, pr);
    const V rl = hn::NegMulAdd(kd, hn::Set(d, T::kLn2LoN16), hn::Sub(elo, perr));
    const V tail = hn::BitCast(d, hn::Vec<decltype(du)>{Permute16(T::kExpTail16, ki.raw)});
    sbits = hn::Add(hn::Vec<decltype(du)>{Permute16(T::kExpBits16, ki.raw)}, hn::ShiftLeft<48>(ki));
    // (1 + T)(1 + rh + rh^2 q(rh))(1 + rl) - 1 - rh = T + rl + T rh + rl rh
    // + (1 + rl) rh^2 q(rh), leaving out terms below 2^-80 (|T| < 2^-53).
    const V r2 = hn::Mul(rh, rh);
    const V q = Estrin(d, rh, r2, T::kExpPoly16);
    V t = hn::MulAdd(tail, rh, hn::Add(tail, rl));
    t = hn::MulAdd(rl, rh, t);
    tlo = hn::MulAdd(r2, hn::MulAdd(q, rl, q), t);
    return rh;
#endif
  }
  const V kbig = hn::Add(hn::Mul(ehi, hn::Set(d, T::kInvLn2N)), shift);
  const auto ki = hn::BitCast(du, kbig);
  const V kd = hn::Sub(kbig, shift);
  V r = hn::Sub(ehi, hn::Mul(kd, hn::Set(d, T::kLn2HiN)));  // product exact
  r = hn::MulAdd(kd, hn::Set(d, -T::kLn2LoN), r);
  r = hn::Add(r, elo);
  hn::Vec<decltype(du)> tail_bits, h_bits;
  LookupExp(d, hn::And(ki, hn::Set(du, 127u)), tail_bits, h_bits);
  const V tail = hn::BitCast(d, tail_bits);
  sbits = hn::Add(h_bits, hn::ShiftLeft<45>(ki));
  const V r2 = hn::Mul(r, r);
  const V c23 = hn::MulAdd(hn::Set(d, T::kExpPoly[1]), r, hn::Set(d, T::kExpPoly[0]));
  const V c45 = hn::MulAdd(hn::Set(d, T::kExpPoly[3]), r, hn::Set(d, T::kExpPoly[2]));
  V tmp = hn::Add(tail, r);
  tmp = hn::MulAdd(r2, c23, tmp);
  tmp = hn::MulAdd(hn::Mul(r2, r2), c45, tmp);
  return tmp;
}

// s (1 + thi + tlo) from ExpTmp's parts, rounded once; *err (if given) gets
// the rounding error (exact with the 128-step table, to 2^-104 relative with
// the small tables), for the subnormal results' second rounding.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ScaleBy(D d, V s, V thi, V tlo, V* err = nullptr) {
  if constexpr (UseSmallTables<D>()) {
    // v = s + s thi rounded, e its rounding error to 2^-53 (s - v is exact:
    // v / s is within 2^-5 of 1), then the low parts join once.
    const V v = hn::MulAdd(s, thi, s);
    const V e = hn::MulAdd(s, thi, hn::Sub(s, v));
    const V w = hn::MulAdd(s, tlo, e);
    const V m = hn::Add(v, w);
    if (err) *err = hn::Add(hn::Sub(v, m), w);
    return m;
  } else {
    (void)tlo;
    const V v = hn::MulAdd(s, thi, s);
    if (err) *err = hn::MulAdd(s, thi, hn::Sub(s, v));
    return v;
  }
}

// All lanes, including the rare ones, given log|x| = hi + lo (exact for
// positive normal |x|; any value for zero, inf and NaN x).
template <class D, class V = hn::Vec<D>>
HWY_NOINLINE V PowFinish(D d, V x, V y, V hi, V lo) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  using VU = hn::Vec<decltype(du)>;
  const VU ix = hn::BitCast(du, x);
  const VU ax = hn::And(ix, hn::Set(du, 0x7FFFFFFFFFFFFFFFull));
  const V axd = hn::BitCast(d, ax);
  V ehi, elo;
  // x = +-0, +-inf, NaN: overridden below; log 0 here keeps their lanes out of
  // the over/underflow work (and away from subnormal arithmetic, which is slow).
  const auto x_zero_inf_nan =
      hn::RebindMask(d, hn::Not(hn::Lt(hn::BitCast(di, hn::Sub(ax, hn::Set(du, 1))),
                                       hn::Set(di, 0x7FEFFFFFFFFFFFFFll))));
  hi = hn::IfThenZeroElse(x_zero_inf_nan, hi);
  lo = hn::IfThenZeroElse(x_zero_inf_nan, lo);
  MulY(d, y, hi, lo, ehi, elo);
  const auto big = hn::Not(hn::Lt(hn::Abs(ehi), hn::Set(d, 512.0)));  // incl. NaN
  const V clamped = hn::Min(hn::Max(ehi, hn::Set(d, -1100.0)), hn::Set(d, 1100.0));
  const V ehi_c = hn::IfThenZeroElse(hn::IsNaN(ehi), clamped);
  // elo only where ehi was clamped (or NaN): lanes that overflow/underflow anyway.
  // Without FMA, the two-product's split overflows for |y| > ~2^996: then
  // x == +-1 (ehi = 0, true elo 0) or |ehi| is huge; elo NaN/inf means 0.
  const auto keep_lo = hn::And(hn::Lt(hn::Abs(ehi), hn::Set(d, 1100.0)), hn::IsFinite(elo));
  const V elo_c = hn::IfThenElseZero(keep_lo, elo);
  VU sbits;
  V tlo = hn::Zero(d);
  const V tmp = ExpTmp(d, ehi_c, elo_c, sbits, tlo);
  const V s = hn::BitCast(d, sbits);
  V mag = ScaleBy(d, s, tmp, tlo);
  if (!hn::AllFalse(d, big)) {
    // Other lanes get s = 1 here: no subnormal arithmetic (slow) on them.
    const VU sb = hn::IfThenElse(hn::RebindMask(du, big), sbits, hn::Set(du, 0x3FF0000000000000ull));
    // Overflow side: s 2^-1009 (1 + tmp), then times 2^1009 (exact or inf).
    const V s1 = hn::BitCast(d, hn::Sub(sb, hn::Set(du, 1009ull << 52)));
    const V vpos = hn::Mul(ScaleBy(d, s1, tmp, tlo), hn::Set(d, 0x1p1009));
    // Underflow side: s 2^1022 (1 + tmp) =: v; if v < 1 the result is
    // subnormal: round v + 1 (ulp 2^-52 = 2^-1074 after scaling) once.
    const V s2 = hn::BitCast(d, hn::Add(sb, hn::Set(du, 1022ull << 52)));
    V l;
    V v = ScaleBy(d, s2, tmp, tlo, &l);
    const V one = hn::Set(d, 1.0);
    const V h = hn::Add(one, v);
    l = hn::Add(hn::Add(hn::Sub(one, h), v), l);
    const V vsub = hn::Sub(hn::Add(h, l), one);
    v = hn::IfThenElse(hn::Lt(v, one), vsub, v);
    const V vneg = hn::Mul(v, hn::Set(d, 0x1p-1022));
    mag = hn::IfThenElse(big, hn::IfThenElse(hn::Gt(ehi_c, hn::Zero(d)), vpos, vneg), mag);
  }
  // Sign: negative x (incl. -0, -inf) and odd integer y.
  hn::Mask<D> y_int, y_odd;  // +-inf counts as an even integer
  IntegerParity(d, y, &y_int, &y_odd);
  const auto x_signbit = hn::RebindMask(d, hn::Lt(hn::BitCast(di, ix), hn::Zero(di)));
  const VU sign = hn::And(hn::VecFromMask(du, hn::RebindMask(du, hn::And(x_signbit, y_odd))),
                          hn::Set(du, 0x8000000000000000ull));
  V res = hn::Or(mag, hn::BitCast(d, sign));
  // C99 Annex F special cases, lowest priority first.
  const V zero = hn::Zero(d);
  const V one = hn::Set(d, 1.0);
  const V inf = hn::Set(d, std::numeric_limits<double>::infinity());
  const auto y_neg = hn::Lt(y, zero);
  const auto x_zero = hn::Eq(axd, zero);
  const auto x_inf = hn::Eq(axd, inf);
  const V zero_inf = hn::IfThenElse(hn::Xor(x_zero, y_neg), zero, inf);
  res = hn::IfThenElse(hn::Or(x_zero, x_inf), hn::Or(zero_inf, hn::BitCast(d, sign)), res);
  const V by_y = hn::IfThenElse(hn::Eq(axd, one), one,
                                hn::IfThenElse(hn::Xor(hn::Gt(axd, one), y_neg), inf, zero));
  res = hn::IfThenElse(hn::Eq(hn::Abs(y), inf), by_y, res);
  const auto neg_finite = hn::And(hn::Lt(x, zero), hn::Lt(axd, inf));
  const V nan = hn::Set(d, std::numeric_limits<double>::quiet_NaN());
  res = hn::IfThenElse(hn::AndNot(y_int, neg_finite), nan, res);
  res = hn::IfThenElse(hn::Or(hn::IsNaN(x), hn::IsNaN(y)), hn::Add(x, y), res);
  res = hn::IfThenElse(hn::Or(hn::Eq(y, zero), hn::Eq(x, one)), one, res);
  return res;
}

// Vectors with a subnormal x: scale it into the normal range (k takes off 52)
// and recompute log|x| for all lanes.
template <class D, class V = hn::Vec<D>>
HWY_NOINLINE V PowSubnormal(D d, V x, V y) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  using VU = hn::Vec<decltype(du)>;
  const VU ax = hn::And(hn::BitCast(du, x), hn::Set(du, 0x7FFFFFFFFFFFFFFFull));
  const auto sub = hn::RebindMask(d, hn::Lt(hn::BitCast(di, ax), hn::Set(di, 0x0010000000000000ll)));
  const VU scaled = hn::Sub(hn::BitCast(du, hn::Mul(hn::BitCast(d, ax), hn::Set(d, 0x1p52))),
                            hn::Set(du, 52ull << 52));
  const VU ixn = hn::IfThenElse(hn::RebindMask(du, sub), scaled, ax);
  V hi, lo;
  Log(d, ixn, hi, lo);
  return PowFinish(d, x, y, hi, lo);
}

// Vectors with a lane that is not (positive normal x, |y log x| < 512): negative
// normal x with integer y gets the sign of y's parity here, still vectorized
// (mag is then already its magnitude: the common path computes from |x|);
// anything else goes to PowFinish / PowSubnormal. Out of line to keep the
// common loop tight.
template <class D, class V>
HWY_NOINLINE V PowNegOrSlow(D d, V x, V y, V mag, V hi, V lo) {
  const hn::RebindToSigned<D> di;
  const hn::RebindToUnsigned<D> du;
  const auto ax = hn::And(hn::BitCast(du, x), hn::Set(du, 0x7FFFFFFFFFFFFFFFull));
  // |x| normal finite: ax + 0x7ff0.. (mod 2^64) < -2^53 as signed; y hi is
  // the common path's ehi, the same product.
  const auto x_ok = hn::Lt(hn::BitCast(di, hn::Add(ax, hn::Set(du, 0x7FF0000000000000ull))),
                           hn::Set(di, static_cast<int64_t>(0xFFE0000000000000ull)));
  auto ok = hn::And(hn::RebindMask(d, x_ok), hn::Lt(hn::Abs(hn::Mul(y, hi)), hn::Set(d, 512.0)));
#if !HWY_NATIVE_FMA
  V ehi, elo;
  MulY(d, y, hi, lo, ehi, elo);
  ok = hn::AndNot(hn::IsNaN(elo), ok);  // split overflow (|y| > ~2^996), see PowFinish
#endif
  const auto x_neg = hn::RebindMask(d, hn::Lt(hn::BitCast(di, x), hn::Zero(di)));
  hn::Mask<D> y_int, y_odd;
  IntegerParity(d, y, &y_int, &y_odd);
  ok = hn::AndNot(hn::AndNot(y_int, x_neg), ok);
  if (HWY_UNLIKELY(!hn::AllTrue(d, ok))) {
    // Subnormal (nonzero) x: 0 < bits of |x| < 0x0010..
    const auto ax = hn::BitCast(di, hn::And(hn::BitCast(du, x), hn::Set(du, 0x7FFFFFFFFFFFFFFFull)));
    const auto sub = hn::And(hn::Gt(ax, hn::Zero(di)), hn::Lt(ax, hn::Set(di, 0x0010000000000000ll)));
    if (HWY_UNLIKELY(!hn::AllFalse(di, sub))) return PowSubnormal(d, x, y);
    return PowFinish(d, x, y, hi, lo);
  }
  const V sign = hn::IfThenElseZero(hn::And(x_neg, y_odd), hn::Set(d, -0.0));
  return hn::Or(mag, sign);
}

}  // namespace pow_f64

// pow(x, y) for float64 lanes on the common path: returns the magnitude of
// pow(|x|, y) and sets *ok to the lanes it computed in full (positive normal
// x, |y log x| < 512), *hi and *lo to log|x|. PowF64 and power.cc's loop
// (PowVectors) leave the rest to PowNegOrSlow.
template <class D, class V>
HWY_INLINE V PowF64Common(D d, V x, V y, hn::Mask<D>* ok, V* hi, V* lo) {
  const hn::RebindToUnsigned<D> du;
  const auto ix = hn::BitCast(du, x);
  const auto ax = hn::And(ix, hn::Set(du, 0x7FFFFFFFFFFFFFFFull));
  V ehi, elo;
  pow_f64::Log(d, ax, *hi, *lo);
  pow_f64::MulY(d, y, *hi, *lo, ehi, elo);
  hn::Vec<decltype(du)> sbits;
  V tlo = hn::Zero(d);
  const V tmp = pow_f64::ExpTmp(d, ehi, elo, sbits, tlo);
  const V s = hn::BitCast(d, sbits);
  // x positive normal: ix - 0x0010.. (mod 2^64) < 0x7FE0.. unsigned, one
  // subtract and one compare (the sign bit makes a negative x fail it).
  const auto x_ok = hn::Lt(hn::Sub(ix, hn::Set(du, 0x0010000000000000ull)),
                           hn::Set(du, 0x7FE0000000000000ull));
  *ok = hn::And(hn::RebindMask(d, x_ok), hn::Lt(hn::Abs(ehi), hn::Set(d, 512.0)));
#if !HWY_NATIVE_FMA
  *ok = hn::AndNot(hn::IsNaN(elo), *ok);  // split overflow (|y| > ~2^996), see PowFinish
#endif
  return pow_f64::ScaleBy(d, s, tmp, tlo);
}

// pow(x, y) for float64 lanes.
//   Lanes: float64.
//   Valid range: every input; C99's special cases (Annex F.10.4.4) exact;
//   a subnormal x and results near overflow or underflow take the slower
//   paths above (PowSubnormal, PowFinish).
//   Error: at most 0.52 ULP from the exact result, measured against mpmath on
//   2.4e7 pairs (AVX-512's small tables: 0.507); with FMA (AVX2) the
//   polynomials round once per step, without FMA twice, which changes the
//   last bit of a few results (see the header).
template <class D, class V>
HWY_INLINE V PowF64(D d, V x, V y) {
  hn::Mask<D> ok;
  V hi, lo;
  const V mag = PowF64Common(d, x, y, &ok, &hi, &lo);
  // The one test of the common path: all lanes positive normal x, |y log x| < 512.
  if (HWY_LIKELY(hn::AllTrue(d, ok))) return mag;
  return pow_f64::PowNegOrSlow(d, x, y, mag, hi, lo);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_POW_F64_INL_H_
