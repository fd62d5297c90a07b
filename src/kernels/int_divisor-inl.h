// One job: exact division of unsigned integer lanes by a divisor known
// before the loop (a scalar second operand), as a multiply-high and shifts:
// the divisor's precomputed forms (UDivisor, UDivisorHalfRange), the
// multiply-high they need (MulHighBy) and the divisions (DivideBy,
// DivideHalfRangeBy). Signs, flooring and remainders are the caller's
// (IntDivideByScalar, division.cc).
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.
//
// Contract (N: the lane's bits):
//   Lane types: UDivisor<U> with DivideBy for U = uint8_t, uint16_t,
//   uint32_t, uint64_t (8-bit lanes divide in 16-bit halves);
//   UDivisorHalfRange<U> with DivideHalfRangeBy for uint16_t, uint32_t,
//   uint64_t; MulHighBy for 16-, 32- and 64-bit unsigned lanes.
//   Valid range: UDivisor: divisors 1 <= d <= 2^N - 1, every numerator
//   0 <= n < 2^N. UDivisorHalfRange: divisors 1 <= d < 2^(N-1) (a positive
//   signed divisor) and numerators 0 <= n < 2^(N-1) (x ^ sign(x) of a signed
//   x). A zero divisor is outside every form (DivisorScale needs d > 0): the
//   caller answers it before preparing one.
//   Exact: DivideBy and DivideHalfRangeBy give floor(n / d) in every lane in
//   range; MulHighBy gives floor(a * m / 2^N).
//   Why: every form rests on one lemma. Let m = ceil(2^k / d) and its error
//   e = m*d - 2^k (0 <= e < d). For n = q*d + r, 0 <= r <= d - 1,
//   n*m / 2^k = q + (r + n*e / 2^k) / d, so floor(n*m / 2^k) = q whenever
//   n*e < 2^k. Each form's comment below gives its k, m and the bound on
//   n*e (UDivisor: both magic cases; UDivisor<uint8_t>; UDivisorHalfRange).

#if defined(ELTWISE_KERNELS_INT_DIVISOR_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_INT_DIVISOR_INL_H_
#undef ELTWISE_KERNELS_INT_DIVISOR_INL_H_
#else
#define ELTWISE_KERNELS_INT_DIVISOR_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// floor(log2 d) for d > 0, and whether d is a power of two: where every
// divisor form starts.
struct DivisorScale {
  int log2;
  bool power_of_two;
  explicit DivisorScale(uint64_t d)
      : log2(63 - __builtin_clzll(d)), power_of_two((d & (d - 1)) == 0) {}
};

// An unsigned divisor as multiply-high, shift and an optional add
// (Granlund-Montgomery, in libdivide's formulation), so that a scalar
// divisor costs a few multiplies per lane instead of a division. One form
// serves every divisor, q = mulhi(n, magic), then
// ((((n - q) & add_mask) >> pre_shift) + q) >> shift:
//   the (N+1)-bit magic case: add_mask all ones, pre_shift 1;
//   an N-bit magic: add_mask 0, so q >> shift;
//   d == 2^l: magic 0 and add_mask all ones, so n >> l.
// One form without branches on the case: a branch per vector costs more
// than the two operations it would save.
// Exact for 1 <= d < 2^N and every n < 2^N, by the lemma in the file
// comment; l = floor(log2 d), d not a power of two, rem = 2^(N+l) mod d:
//   N-bit case (chosen when d - rem < 2^l): k = N + l, magic =
//   ceil(2^(N+l) / d) < 2^N (as d > 2^l), e = d - rem < 2^l, so
//   n*e < 2^N * 2^l = 2^k.
//   (N+1)-bit case (d - rem >= 2^l): k = N + l + 1, m = ceil(2^k / d) lies
//   in [2^N, 2^(N+1)) (as 2^l < d < 2^(l+1)) and is stored as magic =
//   m - 2^N; e < d < 2^(l+1), so n*e < 2^k. With t = mulhi(n, magic) <= n,
//   floor(n*m / 2^k) = floor((n + t) / 2^(l+1)), and
//   ((n - t) >> 1) + t = floor((n + t) / 2) cannot overflow.
// (Granlund and Montgomery, "Division by Invariant Integers using
// Multiplication", PLDI 1994, section 4, prove the same bound.)
template <typename U>
struct UDivisor {
  U magic = 0;
  U add_mask = 0;
  int pre_shift = 0;
  int shift = 0;

  UDivisor() = default;
  explicit UDivisor(U d) {
    using W = std::conditional_t<sizeof(U) == 8, unsigned __int128, uint64_t>;
    constexpr int kBits = 8 * sizeof(U);
    const DivisorScale scale(d);
    const int l = scale.log2;
    shift = l;
    if (scale.power_of_two) {
      add_mask = static_cast<U>(~U{0});
      return;
    }
    const W num = static_cast<W>(1) << (kBits + l);
    U m = static_cast<U>(num / d);
    const U rem = static_cast<U>(num % d);
    if (static_cast<U>(d - rem) >= static_cast<U>(U{1} << l)) {
      m = static_cast<U>(m + m);
      const U twice = static_cast<U>(rem + rem);
      if (twice >= d || twice < rem) m = static_cast<U>(m + 1);
      add_mask = static_cast<U>(~U{0});
      pre_shift = 1;
    }
    magic = static_cast<U>(m + 1);
  }
};

// An 8-bit divisor needs no add case: its lanes divide in 16-bit halves,
// with room for a 9-bit magic. For n < 2^8 and s = floor(log2 d), the magic
// m = ceil(2^(s+9) / d) <= 2^9 gives floor(n / d) = floor(n * m / 2^(s+9)):
// with n = q*d + r (r <= d - 1) and the error e = m*d - 2^(s+9) < d, that is
// q + (r + n*e / 2^(s+9)) / d, and n*e < 2^8 * 2^(s+1) keeps the fraction
// below 1. With n in a 16-bit lane's high byte, MulHigh gives
// floor(n * m / 2^8) and a shift by s + 1 finishes: 8 operations a vector
// against 15 through the general form.
template <>
struct UDivisor<uint8_t> {
  uint16_t magic = 0;
  int shift = 0;

  UDivisor() = default;
  explicit UDivisor(uint8_t d) {
    const int s = DivisorScale(d).log2;
    magic = static_cast<uint16_t>(((1u << (s + 9)) + d - 1) / d);
    shift = s + 1;
  }
};

// Computes the high half of a * m per unsigned lane (m the same in every
// lane), for 16- to 64-bit lanes. Highway 1.0.3 has MulHigh for 16-bit lanes
// only: 32-bit ones multiply with MulEven on even and odd lanes, 64-bit ones
// from four 32x32->64 multiplies.
template <class DU>
HWY_INLINE hn::Vec<DU> MulHighBy(DU du, hn::Vec<DU> a, hn::TFromD<DU> m) {
  using U = hn::TFromD<DU>;
  if constexpr (sizeof(U) == 2) {
    return hn::MulHigh(a, hn::Set(du, m));
  } else if constexpr (sizeof(U) == 4) {
    const hn::Repartition<uint64_t, DU> d64;
    const auto mv = hn::Set(du, m);
    const auto even = hn::MulEven(a, mv);
    const auto odd = hn::MulEven(hn::BitCast(du, hn::ShiftRight<32>(hn::BitCast(d64, a))), mv);
    return hn::OddEven(hn::BitCast(du, odd), hn::BitCast(du, hn::ShiftRight<32>(even)));
  } else {
    const hn::Repartition<uint32_t, DU> d32;
    const auto b = hn::Set(du, m);
    const auto a_hi = hn::ShiftRight<32>(a), b_hi = hn::ShiftRight<32>(b);
    const auto ll = hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, b));
    const auto lh = hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, b_hi));
    const auto hl = hn::MulEven(hn::BitCast(d32, a_hi), hn::BitCast(d32, b));
    const auto hh = hn::MulEven(hn::BitCast(d32, a_hi), hn::BitCast(d32, b_hi));
    // Hacker's Delight's mulhu: each sum is at most (2^32 - 1)^2 + 2^32 - 1 <
    // 2^64, so no carry is lost (9 operations after the multiplies).
    const auto t = hn::Add(hl, hn::ShiftRight<32>(ll));
    const auto u = hn::Add(lh, hn::And(t, hn::Set(du, 0xFFFFFFFFull)));
    return hn::Add(hn::Add(hh, hn::ShiftRight<32>(t)), hn::ShiftRight<32>(u));
  }
}

// Computes n / d for unsigned lanes with d's precomputed form.
template <class DU>
HWY_INLINE hn::Vec<DU> DivideBy(DU du, hn::Vec<DU> n, const UDivisor<hn::TFromD<DU>>& d) {
  if constexpr (sizeof(hn::TFromD<DU>) == 1) {
    const hn::Repartition<uint16_t, DU> d16;
    const auto n16 = hn::BitCast(d16, n);
    const auto m = hn::Set(d16, d.magic);
    const auto even = hn::ShiftRightSame(hn::MulHigh(hn::ShiftLeft<8>(n16), m), d.shift);
    const auto odd = hn::ShiftRightSame(hn::MulHigh(hn::And(n16, hn::Set(d16, 0xFF00)), m), d.shift);
    return hn::BitCast(du, hn::Or(even, hn::ShiftLeft<8>(odd)));
  } else {
    const auto q = MulHighBy(du, n, d.magic);
    const auto extra = hn::And(hn::Sub(n, q), hn::Set(du, d.add_mask));
    return hn::ShiftRightSame(hn::Add(hn::ShiftRightSame(extra, d.pre_shift), q), d.shift);
  }
}

// A divisor for numerators below 2^(N-1), N the lane's bits (x ^ sign(x)
// in a signed floor division by d > 0): the bit of headroom removes the add
// case, q = mulhi(2n, magic) >> shift = floor(n * magic / 2^(N-1+shift)).
// For d not a power of two, s = floor(log2 d): magic = ceil(2^(N+s) / d),
// below 2^N as d > 2^s, and shift = s + 1; the error e = magic*d - 2^(N+s)
// < d < 2^(s+1) and n < 2^(N-1) keep n*e < 2^(N+s), so the quotient is
// exact (as for the 8-bit form above). For d = 2^s: magic = 2^(N-1),
// shift = s. Three operations and the multiply, against seven.
template <typename U>
struct UDivisorHalfRange {
  U magic = 0;
  int shift = 0;

  UDivisorHalfRange() = default;
  explicit UDivisorHalfRange(U d) {
    using W = std::conditional_t<sizeof(U) == 8, unsigned __int128, uint64_t>;
    constexpr int kBits = 8 * sizeof(U);
    const DivisorScale scale(d);
    const int s = scale.log2;
    if (scale.power_of_two) {
      magic = static_cast<U>(U{1} << (kBits - 1));
      shift = s;
      return;
    }
    // Not divisible: d has an odd factor above 1.
    magic = static_cast<U>((static_cast<W>(1) << (kBits + s)) / d + 1);
    shift = s + 1;
  }
};

template <class DU>
HWY_INLINE hn::Vec<DU> DivideHalfRangeBy(DU du, hn::Vec<DU> n,
                                         const UDivisorHalfRange<hn::TFromD<DU>>& d) {
  return hn::ShiftRightSame(MulHighBy(du, hn::Add(n, n), d.magic), d.shift);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_INT_DIVISOR_INL_H_
