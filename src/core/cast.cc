#include "core/cast.h"

#include <cmath>
#include <cstring>
#include <type_traits>

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

template <typename From>
bool RunFrom(DType to, const char* src, char* dst, int64_t n) {
  switch (to) {
    case DType::kBool: return Run<From, bool>(src, dst, n);
    case DType::kI8: return Run<From, int8_t>(src, dst, n);
    case DType::kI16: return Run<From, int16_t>(src, dst, n);
    case DType::kI32: return Run<From, int32_t>(src, dst, n);
    case DType::kI64: return Run<From, int64_t>(src, dst, n);
    case DType::kU8: return Run<From, uint8_t>(src, dst, n);
    case DType::kU16: return Run<From, uint16_t>(src, dst, n);
    case DType::kU32: return Run<From, uint32_t>(src, dst, n);
    case DType::kU64: return Run<From, uint64_t>(src, dst, n);
    case DType::kF32: return Run<From, float>(src, dst, n);
    case DType::kF64: return Run<From, double>(src, dst, n);
    default: return false;  // float16, bfloat16
  }
}

}  // namespace

bool CastRun(DType from, DType to, const void* src_v, void* dst_v, int64_t n) {
  const char* src = static_cast<const char*>(src_v);
  char* dst = static_cast<char*>(dst_v);
  // Only casts NumPy's same_kind rule allows reach here (the fast door checks):
  // a float never becomes an integer.
  if (IsFloat(from) && !IsFloat(to)) return false;
  switch (from) {
    case DType::kBool: return RunFrom<bool>(to, src, dst, n);
    case DType::kI8: return RunFrom<int8_t>(to, src, dst, n);
    case DType::kI16: return RunFrom<int16_t>(to, src, dst, n);
    case DType::kI32: return RunFrom<int32_t>(to, src, dst, n);
    case DType::kI64: return RunFrom<int64_t>(to, src, dst, n);
    case DType::kU8: return RunFrom<uint8_t>(to, src, dst, n);
    case DType::kU16: return RunFrom<uint16_t>(to, src, dst, n);
    case DType::kU32: return RunFrom<uint32_t>(to, src, dst, n);
    case DType::kU64: return RunFrom<uint64_t>(to, src, dst, n);
    case DType::kF32: return RunFrom<float>(to, src, dst, n);
    case DType::kF64: return RunFrom<double>(to, src, dst, n);
    default: return false;  // float16, bfloat16
  }
}

}  // namespace eltwise
