#include "core/cast.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/half.h"

namespace eltwise {
namespace {

// A bool is read as its byte (NumPy's casts from bool take the byte's value).
template <typename From, typename To>
bool Run(const char* src, char* dst, int64_t n) {
  using Stored = std::conditional_t<std::is_same<From, bool>::value, uint8_t, From>;
  for (int64_t i = 0; i < n; ++i) {
    Stored v;
    memcpy(&v, src + i * static_cast<int64_t>(sizeof(Stored)), sizeof(Stored));
    To r;
    if constexpr (std::is_same<To, bool>::value) {
      r = v != 0;
    } else {
      r = static_cast<To>(v);
    }
    if constexpr (std::is_same<From, double>::value && std::is_same<To, float>::value) {
      if (std::isinf(r) && !std::isinf(v)) return false;
    }
    memcpy(dst + i * static_cast<int64_t>(sizeof(To)), &r, sizeof(To));
  }
  return true;
}

// The value type of dtype kT in a cast: bool for bool (nonzero is true, read
// as its byte), the storage type otherwise.
template <DType kT, typename Storage>
using CastValue = std::conditional_t<kT == DType::kBool, bool, Storage>;

// Casts NumPy does (or ml_dtypes for its dtypes): float16, bfloat16 and the
// coded dtypes are not cast here (their storage is bits, not a C++ value).
template <DType kT>
constexpr bool kCastHere = !IsNarrowFloat(kT) && !IsCoded(kT);

template <typename From, DType kTo, typename Storage>
bool RunTo(const char* src, char* dst, int64_t n) {
  if constexpr (!kCastHere<kTo>) {
    return false;
  } else {
    return Run<From, CastValue<kTo, Storage>>(src, dst, n);
  }
}

template <typename From>
bool RunFrom(DType to, const char* src, char* dst, int64_t n) {
  switch (to) {
#define ELTWISE_CAST_TO(id, storage, ...) \
  case DType::k##id: return RunTo<From, DType::k##id, storage>(src, dst, n);
    ELTWISE_DTYPES(ELTWISE_CAST_TO)
#undef ELTWISE_CAST_TO
  }
  return false;
}

template <DType kFrom, typename Storage>
bool RunFromDType(DType to, const char* src, char* dst, int64_t n) {
  if constexpr (!kCastHere<kFrom>) {
    return false;
  } else {
    return RunFrom<CastValue<kFrom, Storage>>(to, src, dst, n);
  }
}

}  // namespace

bool CastRun(DType from, DType to, const void* src_v, void* dst_v, int64_t n) {
  const char* src = static_cast<const char*>(src_v);
  char* dst = static_cast<char*>(dst_v);
  if (WidensHalfExactly(from, to)) {  // core/half.h
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      memcpy(&h, src + 2 * i, 2);
      const float f = from == DType::kF16 ? F16BitsToFloat(h) : BF16BitsToFloat(h);
      if (to == DType::kF32) {
        memcpy(dst + 4 * i, &f, 4);
      } else {
        const double d = f;
        memcpy(dst + 8 * i, &d, 8);
      }
    }
    return true;
  }
  // Only casts NumPy's same_kind rule allows reach here (the fast door checks):
  // a float never becomes an integer.
  if (IsFloat(from) && !IsFloat(to)) return false;
  switch (from) {
#define ELTWISE_CAST_FROM(id, storage, ...) \
  case DType::k##id: return RunFromDType<DType::k##id, storage>(to, src, dst, n);
    ELTWISE_DTYPES(ELTWISE_CAST_FROM)
#undef ELTWISE_CAST_FROM
  }
  return false;
}

bool CastRun(const CastKernels* fast, DType from, DType to, const void* src, void* dst,
             int64_t n) {
  const CastKernel k = fast ? fast->k[static_cast<int>(from)][static_cast<int>(to)] : nullptr;
  if (!k) return CastRun(from, to, src, dst, n);
  k(src, dst, n);
  return true;
}

}  // namespace eltwise
