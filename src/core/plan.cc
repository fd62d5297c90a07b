#include "core/plan.h"

#include <cstdlib>

namespace eltwise {

Plan MakePlan(const int64_t* shape, int ndim, const int64_t* a_strides,
              const int64_t* b_strides, const int64_t* out_strides) {
  Plan p;
  p.size = 1;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 0) {  // nothing to run; the other dims may be huge
      p.size = 0;
      p.shape[0] = 0;
      for (int s = 0; s < 3; ++s) p.stride[s][0] = 0;
      return p;
    }
  }
  for (int i = 0; i < ndim; ++i) p.size *= shape[i];  // fits: NumPy's own limit

  // Keep the axes that iterate, in output-stride order (insertion sort keeps
  // the given order on ties, so a C-contiguous output stays as it is).
  int axes[kMaxDims];
  int n = 0;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 1) continue;
    int j = n++;
    while (j > 0 && std::llabs(out_strides[axes[j - 1]]) < std::llabs(out_strides[i])) {
      axes[j] = axes[j - 1];
      --j;
    }
    axes[j] = i;
  }

  const int64_t* src[3] = {a_strides, b_strides, out_strides};
  p.ndim = 0;
  for (int k = 0; k < n; ++k) {
    const int ax = axes[k];
    if (p.ndim > 0) {
      const int last = p.ndim - 1;
      bool mergeable = true;
      for (int s = 0; s < 3; ++s) {
        // Strides are the user's (as_strided makes any): an overflowing
        // product never matches.
        int64_t span;
        mergeable = mergeable && !__builtin_mul_overflow(shape[ax], src[s][ax], &span) &&
                    p.stride[s][last] == span;
      }
      if (mergeable) {
        p.shape[last] *= shape[ax];
        for (int s = 0; s < 3; ++s) p.stride[s][last] = src[s][ax];
        continue;
      }
    }
    p.shape[p.ndim] = shape[ax];
    for (int s = 0; s < 3; ++s) p.stride[s][p.ndim] = src[s][ax];
    ++p.ndim;
  }
  if (p.ndim == 0) {  // a single element
    p.ndim = 1;
    p.shape[0] = 1;
    for (int s = 0; s < 3; ++s) p.stride[s][0] = 0;
  }
  return p;
}

bool KeepOrderStrides(const int64_t* shape, int ndim, const int64_t* a_strides,
                      const int64_t* b_strides, int64_t itemsize, int64_t* out_strides) {
  // perm[k]: the axis k-th from the inside; it starts as C order (innermost =
  // last axis). A length-1 axis compares as stride 0: it never decides.
  int perm[kMaxDims];
  for (int k = 0; k < ndim; ++k) perm[k] = ndim - 1 - k;
  const int64_t* strides[2] = {a_strides, b_strides};
  const auto stride = [&](int op, int axis) { return shape[axis] == 1 ? 0 : strides[op][axis]; };
  bool moved = false;
  for (int i0 = 1; i0 < ndim; ++i0) {
    const int axis0 = perm[i0];
    int pos = i0;
    for (int i1 = i0 - 1; i1 >= 0; --i1) {
      const int axis1 = perm[i1];
      bool ambiguous = true, swap = false;
      for (int op = 0; op < 2; ++op) {
        const int64_t s0 = stride(op, axis0), s1 = stride(op, axis1);
        if (s0 == 0 || s1 == 0) continue;
        // Unsigned magnitudes: |INT64_MIN| does not fit in int64_t.
        const uint64_t m0 = s0 < 0 ? 0 - static_cast<uint64_t>(s0) : static_cast<uint64_t>(s0);
        const uint64_t m1 = s1 < 0 ? 0 - static_cast<uint64_t>(s1) : static_cast<uint64_t>(s1);
        if (m1 <= m0) {
          swap = false;  // C order wins a conflict between operands
        } else if (ambiguous) {
          swap = true;
        }
        ambiguous = false;
      }
      if (ambiguous) continue;
      if (!swap) break;
      pos = i1;
    }
    if (pos != i0) {
      for (int i1 = i0; i1 > pos; --i1) perm[i1] = perm[i1 - 1];
      perm[pos] = axis0;
      moved = true;
    }
  }
  if (!moved) return false;
  int64_t step = itemsize, kstrides[kMaxDims];
  for (int k = 0; k < ndim; ++k) {
    kstrides[perm[k]] = step;
    // An empty result's other dims may be huge: keep C order if they overflow.
    if (__builtin_mul_overflow(step, shape[perm[k]], &step)) return false;
  }
  for (int i = 0; i < ndim; ++i) out_strides[i] = kstrides[i];
  return true;
}

}  // namespace eltwise
