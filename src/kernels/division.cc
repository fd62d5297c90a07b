// Kernels: divide (true for floats, truncating for integers), floor_divide,
// mod (Python's sign convention) and fmod (C's), for every numeric dtype.
//
// Integer division goes through floating point where that is exact
// (Highway 1.0.3 has no integer Div): 8/16-bit operands in float32, 32-bit in
// float64. |a/b| then never rounds across an integer, so truncating or
// flooring the float quotient is the exact integer quotient. 64-bit lanes
// divide in float64 where every lane lies within a bound that keeps the
// quotient and the remainder exact (DivideBelowBound below), and one lane at a
// time otherwise. A zero divisor gives 0 and sets kFlagDivideByZero; MIN / -1
// wraps to MIN and MIN % -1 is 0.
//
// Float fmod, mod and floor_divide are NumPy's npy_divmod around an exact
// fmod, vectorized where the fmod can be: float32 through float64, float64
// with a fused multiply-add (AVX2, AVX3). Vectors
// with a quotient of 2^52 or more, an infinite or zero divisor, or on targets
// without FMA, take the C library's fmod one lane at a time.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/division.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cmath>
#include <limits>
#include <tuple>

#include "hwy/highway.h"
#include "kernels/basic_ops-inl.h"
#include "kernels/int_divisor-inl.h"
#include "kernels/lanes-inl.h"
#include "kernels/loops-inl.h"
#include "kernels/multiply-inl.h"
#include "kernels/register-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

enum class Rounding { kTrunc, kFloor };
enum class Result { kQuotient, kRemainder };

// Lane type integer division computes in: see the file comment.
template <typename T>
using IntDivCompute = std::conditional_t<
    sizeof(T) <= 2, int32_t, std::conditional_t<sizeof(T) == 4, double, T>>;

// Computes the quotient or remainder of one 64-bit integer lane pair.
template <Rounding kRound, Result kResult, typename T>
HWY_INLINE T DivideOne(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed<T>::value) {
    if (b == -1) {  // MIN / -1 overflows in C: wrap it.
      return kResult == Result::kQuotient
                 ? static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a))
                 : T(0);
    }
  }
  T q = a / b;
  T r = a % b;
  if constexpr (kRound == Rounding::kFloor && std::is_signed<T>::value) {
    // The step where r and b differ in sign, as a conditional move: a branch
    // on it is a coin toss on mixed signs. r != 0 may branch: operands this
    // far apart rarely divide exactly. (A mask form of both tests costs more.)
    if (r != 0) {
      const bool differ = (r ^ b) < 0;
      if constexpr (kResult == Result::kQuotient) {
        q -= static_cast<T>(differ);
      } else {
        const T stepped = r + b;
        r = differ ? stepped : r;
      }
    }
  }
  return kResult == Result::kQuotient ? q : r;
}

// Integer quotient/remainder by a scalar divisor (the scalar-second loop
// kind), in the lanes' own width: unsigned division of the magnitudes by
// the prepared divisor (int_divisor-inl.h), then the signs; MIN / -1 wraps
// to MIN by itself.
template <Rounding kRound, Result kResult>
struct IntDivideByScalar : OpBase {
  template <typename T> using Compute = Arith<T>;
  bool zero_divisor = false;
  bool divisor_negative = false;
  // |b| prepared for the lane width in use (only that one is set).
  std::tuple<UDivisor<uint8_t>, UDivisor<uint16_t>, UDivisor<uint32_t>, UDivisor<uint64_t>>
      divisors;
  // b for a signed floor division by b > 0, 16- to 64-bit lanes.
  std::tuple<UDivisorHalfRange<uint16_t>, UDivisorHalfRange<uint32_t>, UDivisorHalfRange<uint64_t>>
      half_range_divisors;

  int flags() const { return zero_divisor ? kFlagDivideByZero : 0; }

  template <typename T>
  void PrepareScalarSecond(T b) {
    zero_divisor = b == 0;
    divisor_negative = b < 0;
    if (zero_divisor) return;
    using U = std::make_unsigned_t<T>;
    const U magnitude = divisor_negative ? static_cast<U>(U{0} - static_cast<U>(b)) : static_cast<U>(b);
    // A signed floor division by b > 0 (16- to 64-bit lanes) reads only the
    // half-range form; everything else the general one.
    if constexpr (kRound == Rounding::kFloor && std::is_signed<T>::value && sizeof(T) > 1) {
      if (!divisor_negative) {
        std::get<UDivisorHalfRange<U>>(half_range_divisors) = UDivisorHalfRange<U>(magnitude);
        return;
      }
    }
    std::get<UDivisor<U>>(divisors) = UDivisor<U>(magnitude);
  }

  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    using T = hn::TFromD<D>;
    if (zero_divisor) return hn::Zero(d);
#if HWY_TARGET == HWY_SCALAR
    return PerLane(d, a, b, [](T x, T y) { return DivideOne<kRound, kResult>(x, y); });
#else
    const hn::RebindToUnsigned<D> du;
    using U = hn::TFromD<decltype(du)>;
    const UDivisor<U>& divisor = std::get<UDivisor<U>>(divisors);
    // trunc(x / b): |x| / |b| (Abs(MIN) is MIN, whose bits are |MIN|), negated
    // as (q ^ s) - s where s (0 or -1) says x and b differ in sign.
    const V b_sign = hn::Set(d, divisor_negative ? T(-1) : T(0));
    const auto truncated = [&](V x) {
      if constexpr (std::is_signed<T>::value) {
        const V q = hn::BitCast(d, DivideBy(du, hn::BitCast(du, hn::Abs(x)), divisor));
        const V s = hn::Xor(hn::BroadcastSignBit(x), b_sign);
        return hn::Sub(hn::Xor(q, s), s);
      } else {
        return DivideBy(du, x, divisor);
      }
    };
    if constexpr (kRound == Rounding::kFloor && std::is_signed<T>::value) {
      if (!divisor_negative) {
        // b > 0: floor(a / b) = s ^ ((a ^ s) / b) with s = a >> (bits - 1),
        // 0 or -1: for a < 0, a ^ s = ~a = -a - 1 >= 0 and floor(a / b) =
        // -ceil(-a / b) = -(floor((-a - 1) / b) + 1) = ~floor(~a / b). One
        // unsigned division and no remainder step; the remainder is then
        // a - q * b, already of b's sign.
        const V s = hn::BroadcastSignBit(a);
        const auto n = hn::BitCast(du, hn::Xor(a, s));
        V q;
        if constexpr (sizeof(T) == 1) {
          q = hn::Xor(s, hn::BitCast(d, DivideBy(du, n, divisor)));
        } else {
          const auto& half_range = std::get<UDivisorHalfRange<U>>(half_range_divisors);
          q = hn::Xor(s, hn::BitCast(d, DivideHalfRangeBy(du, n, half_range)));
        }
        if constexpr (kResult == Result::kQuotient) return q;
        else return hn::Sub(a, MulWrap(d, q, b));
      }
    }
    if constexpr (kRound == Rounding::kFloor && kResult == Result::kQuotient &&
                  std::is_signed<T>::value) {
      // b < 0: NumPy's form, which needs no remainder: floor(a / b) =
      // trunc((a + s) / b) - t, where a counts as negative when a < 0 for
      // b > 0 and a <= 0 for b < 0 (na, nb: 0 or 1), s = na - nb and
      // t = na ^ nb. a + s never overflows: s is +1 only for a < 0, -1 only
      // for a > 0. (b < 0: a <= 0 gives s = t = 0, trunc = floor; a > 0
      // gives trunc((a - 1) / b) - 1. b > 0 likewise with a + 1.) Here as
      // masks of 0 or -1: A = -na, B = -nb, s = B - A, -t = A ^ B.
      const V a_neg = hn::VecFromMask(d, hn::Lt(a, hn::Sub(hn::Zero(d), b_sign)));
      return hn::Add(truncated(hn::Add(a, hn::Sub(b_sign, a_neg))), hn::Xor(a_neg, b_sign));
    }
    V q = truncated(a);
    auto r = hn::Sub(a, MulWrap(d, q, b));  // wrapping
    if constexpr (kRound == Rounding::kFloor && std::is_signed<T>::value) {
      const auto adjust = hn::AndNot(hn::Eq(r, hn::Zero(d)), hn::Lt(hn::Xor(r, b), hn::Zero(d)));
      q = hn::IfThenElse(adjust, hn::Sub(q, hn::Set(d, T{1})), q);
      r = hn::IfThenElse(adjust, hn::Add(r, b), r);
    }
    return kResult == Result::kQuotient ? q : r;
#endif
  }
};

// 64-bit integer quotient or remainder of every lane through float64, when
// every lane of a and b lies within the bound: [-2^53, 2^53) (unsigned:
// [0, 2^53)) with AVX-512, tighter without (below); false, leaving *result
// alone, otherwise.
//
// Exact: a and b convert exactly. If a/b is an integer k, |k| <= 2^53 is a
// double, so the rounded quotient is k. Otherwise a/b lies strictly between
// integers k and k+1, at least 1/|b| from both (a = kb + r, 0 < |r| < |b|),
// while round-to-nearest moves it by less than |a/b| * 2^-53 <= 1/|b|: the
// rounded quotient stays strictly between them. So trunc(fl(a/b)) is
// trunc(a/b). Then |q*b| <= |a| <= 2^53 and r = a - q*b are exact doubles, and
// the floor step (q - 1, r + b where r and b differ in sign) stays below 2^53.
// A zero divisor gives 0 (IntDivide raises the flag).
//
// Without AVX-512's conversions between int64 and float64 (Highway emulates
// them in a dozen operations each, which made this path slower than dividing
// one lane at a time), the bound is 2^50 (signed) or 2^51 (unsigned) and
// the conversions are two operations each: for an integer v in [-2^51, 2^51),
// 1.5 * 2^52 + v lies in [2^52, 2^53), where doubles are the integers, so its
// bits are those of 1.5 * 2^52 plus v. Every result lies in [-2^50, 2^50]
// (signed: |q| <= |a| <= 2^50, |r| < |b|, and the floor step's q - 1 only
// where |q| < |a / b|) or [0, 2^51) (unsigned), inside that range, so the way
// back is the same sum read the other way.
// b_zero: b's zero lanes; any_zero: whether there is one. Only then are zero
// divisors masked (a mask on every vector costs a measurable share of the loop).
template <Rounding kRound, Result kResult, class D, class V, class M>
HWY_INLINE bool DivideBelowBound(D d, V a, V b, M b_zero_lanes, bool any_zero, V* result) {
#if HWY_TARGET == HWY_SCALAR
  (void)d, (void)a, (void)b, (void)b_zero_lanes, (void)any_zero, (void)result;
  return false;
#else
  using T = hn::TFromD<D>;
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  const hn::Rebind<double, D> df;
#if HWY_TARGET <= HWY_AVX3
  constexpr bool kNativeConversions = true;
  constexpr int kBits = 53;  // a, b in [-2^kBits, 2^kBits) (signed), [0, 2^kBits)
#else
  constexpr bool kNativeConversions = false;
  constexpr int kBits = std::is_signed<T>::value ? 50 : 51;
#endif
  auto ua = hn::BitCast(du, a), ub = hn::BitCast(du, b);
  if constexpr (std::is_signed<T>::value) {  // a + 2^kBits in [0, 2^(kBits + 1))
    const auto bias = hn::Set(du, uint64_t{1} << kBits);
    const auto high = hn::ShiftRight<kBits + 1>(hn::Or(hn::Add(ua, bias), hn::Add(ub, bias)));
    if (!hn::AllTrue(du, hn::Eq(high, hn::Zero(du)))) return false;
  } else {
    if (!hn::AllTrue(du, hn::Eq(hn::ShiftRight<kBits>(hn::Or(ua, ub)), hn::Zero(du)))) {
      return false;
    }
  }
  const auto magic_bits = hn::Set(du, uint64_t{0x4338000000000000});  // 1.5 * 2^52
  const auto magic = hn::BitCast(df, magic_bits);
  const auto to_double = [&](V v) {
    if constexpr (kNativeConversions) return hn::ConvertTo(df, hn::BitCast(di, v));
    return hn::Sub(hn::BitCast(df, hn::Add(hn::BitCast(du, v), magic_bits)), magic);
  };
  const auto to_int = [&](hn::Vec<decltype(df)> f) {
    if constexpr (kNativeConversions) return hn::BitCast(d, hn::ConvertTo(di, f));
    return hn::BitCast(d, hn::Sub(hn::BitCast(du, hn::Add(f, magic)), magic_bits));
  };
  const auto fa = to_double(a);
  auto fb = to_double(b);
  const auto b_zero = hn::RebindMask(df, b_zero_lanes);
  if (HWY_UNLIKELY(any_zero)) fb = hn::IfThenElse(b_zero, hn::Set(df, 1.0), fb);
  auto q = hn::Trunc(hn::Div(fa, fb));
  auto r = hn::Sub(fa, hn::Mul(q, fb));
  if constexpr (kRound == Rounding::kFloor && std::is_signed<T>::value) {
    const auto adjust = hn::Lt(hn::Mul(r, fb), hn::Zero(df));  // |r * b| < 2^106
    q = hn::IfThenElse(adjust, hn::Sub(q, hn::Set(df, 1.0)), q);
    r = hn::IfThenElse(adjust, hn::Add(r, fb), r);
  }
  auto exact = kResult == Result::kQuotient ? q : r;
  if (HWY_UNLIKELY(any_zero)) exact = hn::IfThenZeroElse(b_zero, exact);
  *result = to_int(exact);
  return true;
#endif
}

// Unsigned 64-bit quotient or remainder of every lane when every quotient is
// below 2^50 (operands of any size but not far apart: full-range random ones
// almost always), from a float64 estimate and one correction step; false,
// leaving *result alone, otherwise. Rounding is moot: unsigned floor is trunc.
//
// Exact: a and b convert with one rounding each, and the division adds one:
// Q = (a/b)(1 + e) with |e| < 3.01 * 2^-53. Q < 2^50 then gives a/b < 2^50 (1
// + 2^-50) and |Q - a/b| < 0.38, so Q - 0.5 (exact: Q's ulp is at most 2^-3)
// lies in (a/b - 1, a/b) and q0 = max(floor(Q - 0.5), 0) is q or q - 1, never
// more than q = floor(a/b). So q0 * b <= a (no wrap) and r0 = a - q0 * b lies
// in [0, 2b) and is exact; r0 >= b means q = q0 + 1, r = r0 - b. A zero
// divisor gives 0 (IntDivide raises the flag); b_zero and any_zero as for
// DivideBelowBound.
template <Result kResult, class D, class V, class M>
HWY_INLINE bool DivideSmallQuotient(D d, V a, V b, M b_zero, bool any_zero, V* result) {
#if HWY_TARGET == HWY_SCALAR
  (void)d, (void)a, (void)b, (void)b_zero, (void)any_zero, (void)result;
  return false;
#else
  const hn::Rebind<double, D> df;
  const hn::Repartition<uint32_t, D> d32;
  using VF = hn::Vec<decltype(df)>;
  // Correctly rounded, full range: 2^84 + hi * 2^32 and 2^52 + lo as doubles
  // from bits, then (the first - 2^84 - 2^52, exact) + the second: one rounding.
  const auto to_double = [&](V v) {
    const VF hi = hn::BitCast(df, hn::Or(hn::ShiftRight<32>(v), hn::Set(d, 0x4530000000000000ull)));
    const VF lo = hn::BitCast(df, hn::Or(hn::And(v, hn::Set(d, 0xFFFFFFFFull)),
                                         hn::Set(d, 0x4330000000000000ull)));
    return hn::Add(hn::Sub(hi, hn::Set(df, 0x1.00000001p84)), lo);
  };
  V b1 = b;
  if (HWY_UNLIKELY(any_zero)) b1 = hn::IfThenElse(b_zero, hn::Set(d, 1u), b);
  const VF quotient = hn::Div(to_double(a), to_double(b1));
  if (!hn::AllTrue(df, hn::Lt(quotient, hn::Set(df, 0x1p50)))) return false;
  const VF q0f = hn::Max(hn::Floor(hn::Sub(quotient, hn::Set(df, 0.5))), hn::Zero(df));
  const V magic_bits = hn::Set(d, 0x4330000000000000ull);  // 2^52: q0 + 2^52 is exact
  V q = hn::Sub(hn::BitCast(d, hn::Add(q0f, hn::BitCast(df, magic_bits))), magic_bits);
  // q * b mod 2^64 from 32-bit halves (q < 2^50: its high half is small).
  const V low = hn::MulEven(hn::BitCast(d32, q), hn::BitCast(d32, b1));
  const V cross = hn::Add(hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(q)), hn::BitCast(d32, b1)),
                          hn::MulEven(hn::BitCast(d32, q), hn::BitCast(d32, hn::ShiftRight<32>(b1))));
  V r = hn::Sub(a, hn::Add(low, hn::ShiftLeft<32>(cross)));
  const auto step = hn::Not(hn::Lt(r, b1));  // r >= b
  q = hn::IfThenElse(step, hn::Add(q, hn::Set(d, 1u)), q);
  r = hn::IfThenElse(step, hn::Sub(r, b1), r);
  *result = kResult == Result::kQuotient ? q : r;
  if (HWY_UNLIKELY(any_zero)) *result = hn::IfThenZeroElse(b_zero, *result);
  return true;
#endif
}

// Base for the division ops other than float true division (a memory-bound
// op): strided operands of 32- and 64-bit storage load where they lie, since
// packing a block, then dividing it, leaves the memory idle during the
// division. 8- and 16-bit lanes are packed: they widen to 32 bits, and
// StridedLoop would load widening lanes one by one.
struct DivisionOpBase : OpBase {
  template <typename T> static constexpr bool kLoadsStrided = sizeof(T) >= 4;
};

// Integer quotient or remainder (kRound: truncate or floor; kResult:
// quotient or remainder).
//   Lanes: every integer type; 8/16-bit storage computes in float32 lanes,
//   32-bit in float64, 64-bit in 64-bit integer lanes (IntDivCompute).
//   Valid range: every input. Exact: a zero divisor gives 0 and raises
//   kFlagDivideByZero; MIN / -1 wraps to MIN, MIN % -1 is 0; floor rounds
//   toward -inf and its remainder takes the divisor's sign (Python's //, %).
//   Why exact: below 2^24 (float32) or 2^53 (float64) |a/b| never rounds
//   across an integer, so truncating or flooring the float quotient is exact.
// 64-bit lanes: a vector with a lane beyond the bound goes one lane at a time,
// unless unsigned with every quotient below 2^50. (Lanes go through
// PerLane's stored and reloaded vector: writing them straight into the result
// from the loops slowed the vector path more than it sped up the lanes.)
template <Rounding kRound, Result kResult>
struct IntDivide : DivisionOpBase {
  template <typename T> using Compute = IntDivCompute<T>;
  mutable bool zero_divisor = false;

  int flags() const { return zero_divisor ? kFlagDivideByZero : 0; }

  // b's zero lanes; *any_zero says whether there is one, and raises the flag.
  template <class D, class V>
  HWY_INLINE hn::Mask<D> ZeroDivisors(D d, V b, bool* any_zero) const {
    const auto b_zero = hn::Eq(b, hn::Zero(d));
    *any_zero = !hn::AllFalse(d, b_zero);
    if (HWY_UNLIKELY(*any_zero)) zero_divisor = true;
    return b_zero;
  }

  // 64-bit lanes: the quotients or remainders of the vector paths, or false.
  template <class D, class V>
  HWY_INLINE bool VectorOrFalse(D d, V a, V b, V* result) const {
    using C = hn::TFromD<D>;
    bool any_zero;
    const auto b_zero = ZeroDivisors(d, b, &any_zero);
    if (DivideBelowBound<kRound, kResult>(d, a, b, b_zero, any_zero, result)) return true;
    if constexpr (!std::is_signed<C>::value) {
      if (DivideSmallQuotient<kResult>(d, a, b, b_zero, any_zero, result)) return true;
    }
    return false;
  }
  // One 64-bit lane (VectorOrFalse has raised the flag for a zero divisor).
  template <typename C>
  static HWY_INLINE C Lane(C a, C b) { return DivideOne<kRound, kResult>(a, b); }

  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    using C = hn::TFromD<D>;
    if constexpr (sizeof(C) == 8 && std::is_integral<C>::value) {
      V exact;
      if (VectorOrFalse(d, a, b, &exact)) return exact;
      return PerLane(d, a, b, &Lane<C>);
    } else {
      bool any_zero;
      const auto b_zero = ZeroDivisors(d, b, &any_zero);
      // float32 for int32 lanes (from 8/16-bit), float64 for 32-bit storage.
      using F = std::conditional_t<std::is_same<C, double>::value, double, float>;
      const hn::Rebind<F, D> df;
      const auto fa = Convert(df, a);
      const auto fb = Convert(df, b);
      auto q = hn::Div(fa, fb);
      q = kRound == Rounding::kFloor ? hn::Floor(q) : hn::Trunc(q);
      if (HWY_UNLIKELY(any_zero)) q = hn::IfThenZeroElse(hn::RebindMask(df, b_zero), q);
      if constexpr (kResult == Result::kQuotient) {
        return Convert(d, q);
      } else {  // a - q*b, exact in the compute type.
        auto r = hn::Sub(fa, hn::Mul(q, fb));
        if (HWY_UNLIKELY(any_zero)) r = hn::IfThenZeroElse(hn::RebindMask(df, b_zero), r);
        return Convert(d, r);
      }
    }
  }

  // v in lanes of `to` (a conversion between integer and float lanes; the
  // same vector when the lane types agree).
  template <class DTo, class V>
  static HWY_INLINE hn::Vec<DTo> Convert(DTo to, V v) {
    if constexpr (std::is_same<hn::TFromV<V>, hn::TFromD<DTo>>::value) return v;
    else return hn::ConvertTo(to, v);
  }
};

// The integral value a quotient div = (a - m) / b lies within rounding of,
// for m = fmod(a, b) or m = fmod(a, b) + b (so a - m is a multiple of b): the
// nearest integer to div; a zero takes the sign of a / b.
template <typename F>
HWY_INLINE F NearestIntegral(F div, F a, F b) {
  if (div == 0) return std::copysign(F(0), a / b);
  F t = std::floor(div);
  if (div - t > F(0.5)) t += F(1);
  return t;
}

// NumPy's npy_divmod: Python's floor division and modulo on floats, computed
// from fmod so that both are exact (floor_divide(1.0, 0.1) == 9.0). b == 0
// gives a / b and fmod(a, b).
template <typename F>
HWY_INLINE F PyDivmod(F a, F b, F* modulus) {
  F mod = std::fmod(a, b);
  if (b == 0) {
    *modulus = mod;
    return a / b;
  }
  F div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= F(1);
    }
  } else {
    mod = std::copysign(F(0), b);
  }
  *modulus = mod;
  return NearestIntegral(div, a, b);
}

// FloatTrueDivide: basic_ops-inl.h.
// Computes fmod(a, b) of float32 lanes exactly through float64, when every
// lane has |a / b| < 2^28 and a finite b (so a finite, b != 0): the float64 quotient
// then never rounds across an integer, so its truncation q is exact, and
// a - q*b (q < 2^28, b 24 bits) is exact too. A zero remainder takes a's
// sign, as fmodf's does. Returns false, leaving r alone, otherwise.
template <class D, class V>
HWY_INLINE bool Fmod32(D d, V a, V b, V* r) {
#if HWY_TARGET == HWY_SCALAR
  (void)d, (void)a, (void)b, (void)r;
  return false;
#else
  const hn::Half<D> dh;
  const hn::Rebind<double, decltype(dh)> dd;
  bool ok = true;
  const auto part = [&](auto ah, auto bh) {
    const auto fa = hn::PromoteTo(dd, ah), fb = hn::PromoteTo(dd, bh);
    const auto quotient = hn::Div(fa, fb);
    // (An infinite b is excluded too: q * b would be 0 * inf.)
    ok = ok && hn::AllTrue(dd, hn::Lt(hn::Abs(quotient), hn::Set(dd, 268435456.0))) &&
         hn::AllTrue(dd, hn::Lt(hn::Abs(fb), hn::Set(dd, HUGE_VAL)));
    return hn::DemoteTo(dh, hn::Sub(fa, hn::Mul(hn::Trunc(quotient), fb)));
  };
  const auto lo = part(hn::LowerHalf(dh, a), hn::LowerHalf(dh, b));
  const auto hi = part(hn::UpperHalf(dh, a), hn::UpperHalf(dh, b));
  if (!ok) return false;
  const V m = hn::Combine(d, hi, lo);
  *r = hn::IfThenElse(hn::Eq(m, hn::Zero(d)), hn::CopySign(hn::Zero(d), a), m);
  return true;
#endif
}

// Computes fmod(a, b) of float64 lanes exactly with a fused multiply-add,
// when every lane has a finite b and |a / b| < 2^52 (so a finite, b != 0).
// Division rounds correctly and monotonically and integers below 2^53 are
// doubles, so the truncated quotient q is trunc(a/b) or one step further from
// zero; fma(-q, b, a) is then the remainder r or r - sign(a)|b|, both exact
// (multiples of ulp(b) below |b|; for |a| < |b|, Sterbenz). A nonzero result
// of the wrong sign is the second case; adding sign(a)|b| back is exact. A
// zero remainder takes a's sign, as fmod's does. Returns false, leaving r
// alone, otherwise and on targets without FMA.
template <class D, class V>
HWY_INLINE bool Fmod64(D d, V a, V b, V* r) {
#if HWY_NATIVE_FMA
  const V q = hn::Trunc(hn::Div(a, b));
  if (!hn::AllTrue(d, hn::Lt(hn::Abs(q), hn::Set(d, 4503599627370496.0))) ||
      !hn::AllTrue(d, hn::IsFinite(b))) {
    return false;
  }
  V m = hn::NegMulAdd(q, b, a);
  const V zero = hn::Zero(d);
  const auto wrong_sign = hn::And(hn::Ne(m, zero), hn::Xor(hn::Lt(m, zero), hn::Lt(a, zero)));
  m = hn::IfThenElse(wrong_sign, hn::Add(m, hn::CopySign(hn::Abs(b), a)), m);
  *r = hn::IfThenElse(hn::Eq(m, zero), hn::CopySign(zero, a), m);
  return true;
#else
  (void)d, (void)a, (void)b, (void)r;
  return false;
#endif
}

// fmod of float32 or float64 lanes, exact, where Fmod32 / Fmod64 can vouch
// for every lane; false otherwise.
template <class D, class V>
HWY_INLINE bool FmodVector(D d, V a, V b, V* r) {
  if constexpr (std::is_same<hn::TFromD<D>, float>::value) return Fmod32(d, a, b, r);
  else return Fmod64(d, a, b, r);
}

// NumPy's npy_divmod on float lanes, vectorized around FmodVector; false where
// that cannot vouch for every lane.
template <class D, class V>
HWY_INLINE bool PyDivmodVector(D d, V a, V b, V* floordiv, V* modulus) {
  using F = hn::TFromD<D>;
  V mod;
  if (!FmodVector(d, a, b, &mod)) return false;
  const V zero = hn::Zero(d), one = hn::Set(d, F(1));
  V div = hn::Div(hn::Sub(a, mod), b);
  const auto nonzero_mod = hn::Ne(mod, zero);
  const auto flip = hn::And(nonzero_mod, hn::Xor(hn::Lt(b, zero), hn::Lt(mod, zero)));
  mod = hn::IfThenElse(flip, hn::Add(mod, b), mod);
  div = hn::IfThenElse(flip, hn::Sub(div, one), div);
  mod = hn::IfThenElse(nonzero_mod, mod, hn::CopySign(zero, b));
  V fl = hn::Floor(div);
  fl = hn::IfThenElse(hn::Gt(hn::Sub(div, fl), hn::Set(d, F(0.5))), hn::Add(fl, one), fl);
  *floordiv = hn::IfThenElse(hn::Ne(div, zero), fl, hn::CopySign(zero, hn::Div(a, b)));
  *modulus = mod;
  return true;
}

struct FloatFloorDivide : DivisionOpBase {
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    using F = hn::TFromD<D>;
    V q, m;
    if (PyDivmodVector(d, a, b, &q, &m)) return q;
    return PerLane(d, a, b, [](F x, F y) {
      F mod;
      return PyDivmod(x, y, &mod);
    });
  }
};
struct FloatMod : DivisionOpBase {
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    using F = hn::TFromD<D>;
    V q, m;
    if (PyDivmodVector(d, a, b, &q, &m)) return m;
    return PerLane(d, a, b, [](F x, F y) {
      F mod;
      PyDivmod(x, y, &mod);
      return mod;
    });
  }
};
struct FloatFmod : DivisionOpBase {
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    using F = hn::TFromD<D>;
    V m;
    if (FmodVector(d, a, b, &m)) return m;
    return PerLane(d, a, b, [](F x, F y) { return std::fmod(x, y); });
  }
};

// Division rounded toward zero, on floats: npy_divmod's quotient without its
// step toward -inf, so it agrees with FloatFloorDivide wherever the signs
// agree. Only integer operands promoted to float64 get here (divide with
// pythondiv=False on int64 and uint64), so lanes go one at a time.
struct FloatTruncDivide : DivisionOpBase {
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    using F = hn::TFromD<D>;
    return PerLane(d, a, b, [](F x, F y) {
      if (y == 0) return x / y;
      return NearestIntegral((x - std::fmod(x, y)) / y, x, y);
    });
  }
};

template <class ScalarOp, typename... Ts>
void SetScalarDivisorLoops(KernelTable& t, OpId op) {
  ((t.k[static_cast<int>(op)][static_cast<int>(DTypeOf<Ts>())]
       [static_cast<int>(LoopKind::kScalarSecond)] =
           &BinaryLoop<ScalarOp, Ts, Ts, LoopKind::kScalarSecond>),
   ...);
}

// The coded floats' floor_divide and mod: the NaN of a zero divisor is
// positive, as ml_dtypes' divmod returns quiet_NaN() there (x86's 0 / 0 is
// negative). The sign shows in float6 and float4, whose NaN converts to a
// zero of the other sign (docs/semantics.md, "Low-precision dtypes").
template <class FloatOp>
struct PositiveNaNByZero : FloatOp {
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    const V r = FloatOp::operator()(d, a, b);
    const V nan = hn::BitCast(d, hn::Set(hn::RebindToUnsigned<D>(), 0x7FC00000u));
    return hn::IfThenElse(hn::And(hn::Eq(b, hn::Zero(d)), hn::IsNaN(r)), nan, r);
  }
};

// Integers: IntDivide, but a scalar divisor goes to its own functor.
// CodedOp: the float op of the coded floats.
template <Rounding kRound, Result kResult, class FloatOp, class CodedOp = FloatOp>
void SetDivisionRow(KernelTable& t, OpId op) {
  SetLoopsFor<IntDivide<kRound, kResult>, false, ELTWISE_INT_TYPES>(t, op);
  SetScalarDivisorLoops<IntDivideByScalar<kRound, kResult>, ELTWISE_INT_TYPES>(t, op);
  SetLoopsFor<FloatOp, false, ELTWISE_NATIVE_FLOAT_TYPES>(t, op);
  SetLoopsFor<CodedOp, false, ELTWISE_CODED_FLOAT_TYPES>(t, op);
}

// Fills the rows of this family for the current target.
void FillDivision(KernelTable& t) {
  SetDivisionRow<Rounding::kTrunc, Result::kQuotient, FloatTrueDivide>(t, OpId::kDivide);
  SetDivisionRow<Rounding::kFloor, Result::kQuotient, FloatFloorDivide,
                 PositiveNaNByZero<FloatFloorDivide>>(t, OpId::kFloorDivide);
  SetDivisionRow<Rounding::kFloor, Result::kRemainder, FloatMod, PositiveNaNByZero<FloatMod>>(
      t, OpId::kMod);
  SetDivisionRow<Rounding::kTrunc, Result::kRemainder, FloatFmod>(t, OpId::kFmod);
  SetLoopsFor<FloatTruncDivide, false, double>(t, OpId::kTruncDivide);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillDivision);
void FillDivisionKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillDivision)(t); }
}  // namespace eltwise
#endif
