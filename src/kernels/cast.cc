// Kernels: conversions between the native dtypes in vector lanes, for the
// pairs whose conversion widens (an integer to a wider integer or to a float,
// float16, bfloat16 or float32 to a wider float). Each gives the bits
// CastRun's conversion gives (core/cast.h): integers widen by sign or zero
// extension as their source's signedness says, an integer that a float cannot
// hold exactly rounds once to nearest even (Highway's ConvertTo: one hardware
// conversion, or on targets without one an exact split and one rounding add),
// and floats widen exactly (float16 by lanes-inl.h's Widen, bit-exact on every
// target). Narrowing conversions, the coded dtypes and conversions to bool
// have no kernel here: CastRun converts them element by element.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cast.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>
#include <type_traits>

#include "core/half.h"
#include "hwy/highway.h"
#include "kernels/table.h"
// Per target (after hwy/highway.h):
#include "kernels/lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

// v's lanes converted to To, lane by lane as C converts (see the file comment).
// Reached only for the pairs kLaneCast admits.
template <class D, class V>
HWY_INLINE hn::Vec<D> ConvertLanes(D d, V v) {
  using From = hn::TFromV<V>;
  using To = hn::TFromD<D>;
  if constexpr (std::is_same_v<From, hwy::float16_t> || std::is_same_v<From, hwy::bfloat16_t>) {
    const auto f = Widen(hn::Rebind<float, D>(), v);
    if constexpr (std::is_same_v<To, float>) {
      return f;
    } else {
      return hn::PromoteTo(d, f);
    }
  } else if constexpr (std::is_floating_point_v<To>) {
    if constexpr (std::is_floating_point_v<From>) {
      return hn::PromoteTo(d, v);  // float32 to float64: exact
    } else if constexpr (sizeof(From) == sizeof(To)) {
      return hn::ConvertTo(d, v);
    } else if constexpr (sizeof(From) < 4) {
      // 8- and 16-bit integers are exact in int32, and int32 in both floats.
      return ConvertLanes(d, hn::PromoteTo(hn::Rebind<int32_t, D>(), v));
    } else if constexpr (std::is_signed_v<From>) {
      return hn::PromoteTo(d, v);  // int32 to float64: exact
    } else {
      // uint32 to float64: exact through int64 (below 2^32).
      const hn::Rebind<int64_t, D> d64;
      return hn::ConvertTo(d, hn::BitCast(d64, hn::PromoteTo(hn::Rebind<uint64_t, D>(), v)));
    }
  } else {
    // An integer to a wider one: extended as From's signedness says, then
    // read as To (C's conversion modulo 2^bits of To).
    using Wide = std::conditional_t<std::is_signed_v<From>, hwy::MakeSigned<To>,
                                    hwy::MakeUnsigned<To>>;
    const hn::Rebind<Wide, D> dw;
    if constexpr (sizeof(To) == 8 && sizeof(From) < 4) {
      using Mid = std::conditional_t<std::is_signed_v<From>, int32_t, uint32_t>;
      return hn::BitCast(d, hn::PromoteTo(dw, hn::PromoteTo(hn::Rebind<Mid, D>(), v)));
    } else {
      return hn::BitCast(d, hn::PromoteTo(dw, v));
    }
  }
}

// One element as CastRun converts it.
template <typename To, typename From>
HWY_INLINE To ScalarCast(From v) {
  if constexpr (std::is_same_v<From, hwy::float16_t> || std::is_same_v<From, hwy::bfloat16_t>) {
    uint16_t h;
    memcpy(&h, &v, 2);
    return static_cast<To>(std::is_same_v<From, hwy::float16_t> ? F16BitsToFloat(h)
                                                                 : BF16BitsToFloat(h));
  } else {
    return static_cast<To>(v);
  }
}

// n elements of From at src converted to To at dst; the last n % Lanes
// elements as CastRun converts them (the same C conversion).
template <typename From, typename To>
void CastLanes(const void* src, void* dst, int64_t n) {
  const hn::ScalableTag<To> d;
  const hn::Rebind<From, decltype(d)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const From* HWY_RESTRICT s = static_cast<const From*>(src);
  To* HWY_RESTRICT o = static_cast<To*>(dst);
  int64_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto v0 = ConvertLanes(d, hn::LoadU(df, s + i));
    const auto v1 = ConvertLanes(d, hn::LoadU(df, s + i + lanes));
    hn::StoreU(v0, d, o + i);
    hn::StoreU(v1, d, o + i + lanes);
  }
  for (; i < n; ++i) {
    // By memcpy: an operand need not be aligned to its element size.
    From v;
    memcpy(&v, s + i, sizeof(From));
    const To r = ScalarCast<To>(v);
    memcpy(o + i, &r, sizeof(To));
  }
}

// The lane type CastLanes reads dtype kT as: its storage, but Highway's half
// types for float16 and bfloat16 (stored as uint16_t).
template <DType kT, typename Storage>
using CastLane = std::conditional_t<
    kT == DType::kF16, hwy::float16_t,
    std::conditional_t<kT == DType::kBF16, hwy::bfloat16_t, Storage>>;

// Whether CastLanes converts kFrom (stored as From) to kTo (stored as To):
// not the coded dtypes, not to bool, and widening: to float64 from any
// integer, float16, bfloat16 or float32; to float32 from integers of at most
// 32 bits, float16 and bfloat16; to an integer from a narrower integer (bool
// is its byte, as CastRun reads it).
template <DType kFrom, DType kTo, typename From, typename To>
constexpr bool kLaneCast =
    WidensHalfExactly(kFrom, kTo) ||
    (!IsNarrowFloat(kFrom) && !IsCoded(kFrom) && !IsNarrowFloat(kTo) && !IsCoded(kTo) &&
     kTo != DType::kBool &&
     (std::is_same_v<To, double>  ? std::is_integral_v<From> || std::is_same_v<From, float>
      : std::is_same_v<To, float> ? std::is_integral_v<From> && sizeof(From) <= 4
                                  : std::is_integral_v<From> && sizeof(From) < sizeof(To)));

template <DType kFrom, typename From, DType kTo, typename To>
void FillPair(CastKernels& c) {
  if constexpr (kLaneCast<kFrom, kTo, From, To>) {
    c.k[static_cast<int>(kFrom)][static_cast<int>(kTo)] = &CastLanes<CastLane<kFrom, From>, To>;
  }
}

template <DType kFrom, typename From>
void FillFrom(CastKernels& c) {
#define ELTWISE_CAST_TO(id, storage, ...) FillPair<kFrom, From, DType::k##id, storage>(c);
  ELTWISE_DTYPES(ELTWISE_CAST_TO)
#undef ELTWISE_CAST_TO
}

#endif  // HWY_TARGET != HWY_SCALAR

void FillCast(KernelTable& t) {
  t.cast = CastKernels{};
#if HWY_TARGET != HWY_SCALAR
#define ELTWISE_CAST_FROM(id, storage, ...) FillFrom<DType::k##id, storage>(t.cast);
  ELTWISE_DTYPES(ELTWISE_CAST_FROM)
#undef ELTWISE_CAST_FROM
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillCast);
void FillCastKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillCast)(t); }
}  // namespace eltwise
#endif
