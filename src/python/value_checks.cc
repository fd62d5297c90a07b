#include "python/value_checks.h"

#include "python/compact_views.h"

#include <cstdint>
#include <type_traits>

namespace eltwise {
namespace {

// Applies reduce(p, n) to `a` as n contiguous signed integers of its item
// size (a copy only if `a` is not C-contiguous). -1 with an error set.
template <typename Reduce>
int ReduceIntegers(PyArrayObject* a, Reduce reduce) {
  // A broadcast view is scanned as its distinct values only.
  Ref compact(reinterpret_cast<PyObject*>(CompactView(a)));
  if (!compact) return -1;
  Ref c(reinterpret_cast<PyObject*>(PyArray_GETCONTIGUOUS(compact.arr())));
  if (!c) return -1;
  const npy_intp n = PyArray_SIZE(c.arr());
  const void* data = PyArray_DATA(c.arr());
  switch (PyArray_ITEMSIZE(c.arr())) {
    case 1: return reduce(static_cast<const int8_t*>(data), n);
    case 2: return reduce(static_cast<const int16_t*>(data), n);
    case 4: return reduce(static_cast<const int32_t*>(data), n);
    default: return reduce(static_cast<const int64_t*>(data), n);
  }
}

}  // namespace

PyObject* RaiseNegativeExponent() {
  PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
  return nullptr;
}

// A coded integer's sign bit and value bits, in its byte.
uint8_t CodedSignBit(DType t) { return static_cast<uint8_t>(1u << (Traits(t).format.bits - 1)); }
uint8_t CodedValueBits(DType t) { return static_cast<uint8_t>((1u << Traits(t).format.bits) - 1); }

bool AnyNegativeStrided(const char* p, npy_intp n, npy_intp stride, DType t) {
  const npy_intp size = static_cast<npy_intp>(ItemSize(t));
  // The sign bit is in the last byte (little-endian) of a native integer; a
  // coded integer's is bit `bits - 1` of its byte.
  const uint8_t sign = IsCoded(t) ? CodedSignBit(t) : 0x80;
  for (npy_intp i = 0; i < n; ++i) {
    if (static_cast<uint8_t>(p[i * stride + size - 1]) & sign) return true;
  }
  return false;
}

int AnyNegative(PyArrayObject* a, DType t) {
  if (IsCoded(t)) {
    const uint8_t sign = CodedSignBit(t);
    return ReduceIntegers(a, [sign](const auto* p, npy_intp n) {
      unsigned acc = 0;
      for (npy_intp i = 0; i < n; ++i) acc |= static_cast<uint8_t>(p[i]);
      return (acc & sign) ? 1 : 0;
    });
  }
  // The OR of the values has the sign bit if any is negative (vectorizes).
  return ReduceIntegers(a, [](const auto* p, npy_intp n) {
    std::remove_const_t<std::remove_pointer_t<decltype(p)>> acc = 0;
    for (npy_intp i = 0; i < n; ++i) acc |= p[i];
    return acc < 0 ? 1 : 0;
  });
}

int AnyZero(PyArrayObject* a, DType t) {
  // A coded integer is zero where its value bits are (the bits above are not
  // its value).
  const uint8_t bits = IsCoded(t) ? CodedValueBits(t) : 0xFF;
  return ReduceIntegers(a, [bits](const auto* p, npy_intp n) {
    bool all = true;
    for (npy_intp i = 0; i < n; ++i) {
      if constexpr (sizeof(*p) == 1) all &= (static_cast<uint8_t>(p[i]) & bits) != 0;
      else all &= p[i] != 0;
    }
    return all ? 0 : 1;
  });
}

}  // namespace eltwise
