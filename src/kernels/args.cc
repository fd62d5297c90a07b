// A call's ExecuteArgs read from a kernel table (kernels/table.h ArgsFor):
// the one place where the table meets core/execute.h's rules for an op, so
// that no Highway translation unit includes core/execute.h.

#include "core/execute.h"
#include "kernels/table.h"

namespace eltwise {

ExecuteArgs ArgsFor(const KernelTable& t, OpId op, DType compute, const void* a, const void* b,
                    void* out, size_t in_itemsize, size_t out_itemsize) {
  const int o = static_cast<int>(op), c = static_cast<int>(compute);
  return ExecuteArgs{static_cast<const char*>(a), static_cast<const char*>(b),
                     static_cast<char*>(out),     in_itemsize,
                     out_itemsize,                t.k[o][c],
                     t.strided[o][c],             ParallelBytes(op, compute, CpuIsIntel()),
                     WakeBytes(op, compute),
                     t.pack_beside_scalar_second[o][c], t.heavy[o][c],
                     t.pack_strided,              t.transpose_block};
}

}  // namespace eltwise
