// One job: lanes between storage and compute types: the compute type (Arith),
// storage constants (OneOf, SplatStorage), storage -> compute (Widen),
// compute -> storage (Narrow, and ResultLanes for an op's vector or mask
// result), and ops applied one lane at a time (PerLane).
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_LANES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_LANES_INL_H_
#undef ELTWISE_KERNELS_LANES_INL_H_
#else
#define ELTWISE_KERNELS_LANES_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/truncate-inl.h"
#include "core/dtype.h"
#include "kernels/bool-inl.h"
#include "kernels/coded-inl.h"
#include "kernels/half-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether T is one of the 16-bit float storage types.
template <typename T>
constexpr bool kIsHalf = std::is_same<T, hwy::float16_t>::value ||
                         std::is_same<T, hwy::bfloat16_t>::value;

// A coded dtype's storage (core/dtype.h): its id, and that its lanes are
// u8 codes.
template <typename T>
struct CodedTraits {
  static constexpr bool kCoded = false;
  static constexpr bool kFloat = false;
};
template <DType kId>
struct CodedTraits<Coded<kId>> {
  static constexpr bool kCoded = true;
  static constexpr bool kFloat = IsFloat(kId);
  static constexpr DType kDType = kId;
};
template <typename T>
constexpr bool kIsCoded = CodedTraits<T>::kCoded;

// The lane type a storage type loads as: its code byte for a coded dtype,
// itself otherwise.
template <typename T>
using Lane = std::conditional_t<kIsCoded<T>, uint8_t, T>;

// The type an op computes in by default: float16, bfloat16 and the coded
// floats in float32 (one rounding at the end), the coded integers in int8 or
// uint8 (wrapped to their bits at the end), everything else in itself.
template <typename T, bool kCoded = kIsCoded<T>>
struct ArithOf {
  using type = std::conditional_t<kIsHalf<T>, float, T>;
};
template <typename T>
struct ArithOf<T, true> {  // coded: floats in float32, integers in 8 bits
  static constexpr DType kId = CodedTraits<T>::kDType;
  using type = std::conditional_t<IsFloat(kId), float,
                                  std::conditional_t<IsSignedInt(kId), int8_t, uint8_t>>;
};
template <typename T>
using Arith = typename ArithOf<T>::type;

// Storage value 1 of T: pads the lanes past the end of a tail, so padding never
// divides by zero or raises anything.
// The half types get their bits copied in: Highway >= 1.1 made them classes (or
// native _Float16) that brace-initialization from bits no longer reaches.
template <typename T>
HWY_INLINE Lane<T> OneOf() {
  if constexpr (kIsCoded<T>) {
    // A float's 1.0 = 2^0: the biased exponent is the bias, the mantissa 0.
    constexpr CodeFormat f = Traits(CodedTraits<T>::kDType).format;
    return static_cast<uint8_t>(CodedTraits<T>::kFloat ? f.bias << f.mant_bits : 1);
  } else if constexpr (kIsHalf<T>) {
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
    return hn::BitCast(dout, TruncateLanes(duo, hn::BitCast(duc, v)));
  }
}

// Widen from storage T: a coded dtype's codes decoded, other lanes Widen.
template <typename T, class DC, class VS>
HWY_INLINE hn::Vec<DC> WidenFrom(DC dc, VS v) {
  if constexpr (CodedTraits<T>::kFloat) {
    return DecodeFloat<CodedTraits<T>::kDType>(dc, v);
  } else if constexpr (kIsCoded<T>) {
    return DecodeInt<CodedTraits<T>::kDType>(dc, v);
  } else {
    return Widen(dc, v);
  }
}

// Narrow to storage O (dout: lanes of Lane<O>): coded dtypes encoded, other
// lanes Narrow.
template <typename O, class DO, class DC>
HWY_INLINE hn::Vec<DO> NarrowTo(DO dout, DC dc, hn::Vec<DC> v) {
  if constexpr (CodedTraits<O>::kFloat) {
    return EncodeFloat<CodedTraits<O>::kDType>(dout, dc, v);
  } else if constexpr (kIsCoded<O>) {
    return EncodeInt<CodedTraits<O>::kDType>(dout, dc, v);
  } else {
    return Narrow(dout, dc, v);
  }
}

// v rounded to storage T and back: the value T holds (compute lanes).
template <typename T, class DC>
HWY_INLINE hn::Vec<DC> RoundedTo(DC dc, hn::Vec<DC> v) {
  const hn::Rebind<Lane<T>, DC> dt;
  return WidenFrom<T>(dc, NarrowTo<T>(dt, dc, v));
}

// The op's result (a vector or a mask) as lanes of result storage O.
template <typename O, class DO, class DC, class R>
HWY_INLINE hn::Vec<DO> ResultLanes(DO dout, DC dc, R r) {
  if constexpr (std::is_same<R, hn::Mask<DC>>::value) {
    return MaskToBool(dout, dc, r);
  } else {
    return NarrowTo<O>(dout, dc, r);
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

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_LANES_INL_H_
