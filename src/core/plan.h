// The iteration plan: broadcast layouts simplified into the fewest, longest
// loops. No Python here.
#ifndef ELTWISE_CORE_PLAN_H_
#define ELTWISE_CORE_PLAN_H_

#include <cstdint>

#include "core/broadcast.h"

namespace eltwise {

// Operand slots in a plan.
enum Slot : int { kA = 0, kB = 1, kOut = 2 };

struct Plan {
  int ndim = 1;                    // >= 1; the last dim is the inner run
  int64_t shape[kMaxDims];
  int64_t stride[3][kMaxDims];     // bytes, per Slot
  int64_t size = 0;                // elements in the result
};

// Builds the plan for a result of `shape` (ndim dims) with operand strides
// already aligned to it (0 on broadcast axes): drops size-1 axes, orders
// axes by the output's strides (largest outermost), and merges neighbours
// that are contiguous in every operand.
Plan MakePlan(const int64_t* shape, int ndim, const int64_t* a_strides,
              const int64_t* b_strides, const int64_t* out_strides);

// The byte strides of a new result of `shape` (ndim dims, elements of
// `itemsize` bytes) laid out as NumPy's order='K' lays out a ufunc's result:
// its axes in the memory order the operands share (NumPy's iterator's
// stable insertion sort by stride, C order winning every tie or conflict).
// Operand strides are aligned to `shape`, 0 on broadcast axes. Returns false,
// leaving `out_strides` alone, when that layout is plain C order.
bool KeepOrderStrides(const int64_t* shape, int ndim, const int64_t* a_strides,
                      const int64_t* b_strides, int64_t itemsize, int64_t* out_strides);

}  // namespace eltwise

#endif  // ELTWISE_CORE_PLAN_H_
