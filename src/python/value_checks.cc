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

bool AnyNegativeStrided(const char* p, npy_intp n, npy_intp stride, size_t size) {
  for (npy_intp i = 0; i < n; ++i) {
    // The sign bit is in the last byte (little-endian) of a native integer.
    if (static_cast<signed char>(p[i * stride + static_cast<npy_intp>(size) - 1]) < 0) return true;
  }
  return false;
}

int AnyNegative(PyArrayObject* a) {
  // The OR of the values has the sign bit if any is negative (vectorizes).
  return ReduceIntegers(a, [](const auto* p, npy_intp n) {
    std::remove_const_t<std::remove_pointer_t<decltype(p)>> acc = 0;
    for (npy_intp i = 0; i < n; ++i) acc |= p[i];
    return acc < 0 ? 1 : 0;
  });
}

int AnyZero(PyArrayObject* a) {
  return ReduceIntegers(a, [](const auto* p, npy_intp n) {
    bool all = true;
    for (npy_intp i = 0; i < n; ++i) all &= p[i] != 0;
    return all ? 0 : 1;
  });
}

}  // namespace eltwise
