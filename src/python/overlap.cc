#include "python/overlap.h"

#include <cstdint>

namespace eltwise {
namespace {

// The byte range [lo, hi) an array spans. Strides are the user's (as_strided
// can make any), so the arithmetic is overflow-checked: an extent that does
// not fit in the address space is reported as everything.
void Extent(const char* data, const int64_t* shape, const int64_t* strides, int nd,
            size_t itemsize, uintptr_t* lo, uintptr_t* hi) {
  const auto base = reinterpret_cast<uintptr_t>(data);
  int64_t low = 0, high = 0;
  for (int i = 0; i < nd; ++i) {
    if (shape[i] == 0) { *lo = *hi = base; return; }
    int64_t span;
    if (__builtin_mul_overflow(shape[i] - 1, strides[i], &span) ||
        __builtin_add_overflow(span < 0 ? low : high, span, span < 0 ? &low : &high)) {
      *lo = 0;
      *hi = UINTPTR_MAX;
      return;
    }
  }
  *lo = base + static_cast<uintptr_t>(low);  // low <= 0: wraps down, as intended
  *hi = base + static_cast<uintptr_t>(high) + itemsize;
}

// The extent of array a's elements; shape and strides receive its own.
void ArrayExtent(PyArrayObject* a, int64_t* shape, int64_t* strides, uintptr_t* lo,
                 uintptr_t* hi) {
  const int nd = PyArray_NDIM(a);
  for (int i = 0; i < nd; ++i) { shape[i] = PyArray_DIM(a, i); strides[i] = PyArray_STRIDE(a, i); }
  Extent(PyArray_BYTES(a), shape, strides, nd, PyArray_ITEMSIZE(a), lo, hi);
}

}  // namespace

bool Overlaps(const char* data, const Layout& in, size_t itemsize, PyArrayObject* out) {
  uintptr_t lo1, hi1, lo2, hi2;
  Extent(data, in.shape, in.strides, in.ndim, itemsize, &lo1, &hi1);
  int64_t oshape[kMaxDims], ostr[kMaxDims];
  const int nd = PyArray_NDIM(out);
  ArrayExtent(out, oshape, ostr, &lo2, &hi2);
  if (lo1 >= hi2 || lo2 >= hi1) return false;
  if (data != PyArray_BYTES(out) || static_cast<int64_t>(itemsize) != PyArray_ITEMSIZE(out)) {
    return true;
  }
  for (int i = 0; i < nd; ++i) {
    if (oshape[i] > 1 && in.strides[i] != ostr[i]) return true;
  }
  return false;
}

bool MayShareMemory(PyArrayObject* a, PyArrayObject* b) {
  int64_t shape[kMaxDims], strides[kMaxDims];
  uintptr_t alo, ahi, blo, bhi;
  ArrayExtent(a, shape, strides, &alo, &ahi);
  ArrayExtent(b, shape, strides, &blo, &bhi);
  return alo < bhi && blo < ahi;
}

}  // namespace eltwise
