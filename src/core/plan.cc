#include "core/plan.h"

#include <cstdlib>

namespace eltwise {

Plan MakePlan(const int64_t* shape, int ndim, const int64_t* a_strides,
              const int64_t* b_strides, const int64_t* out_strides) {
  Plan p;
  p.size = 1;
  for (int i = 0; i < ndim; ++i) p.size *= shape[i];

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
        mergeable = mergeable && p.stride[s][last] == shape[ax] * src[s][ax];
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

}  // namespace eltwise
