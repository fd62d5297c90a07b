// Runs a plan: walks its outer dimensions, calls one kernel per inner run
// (the strided kernel, or contiguous blocks gathered from strided runs;
// groups of rows for a transposed narrow operand), and splits large calls
// across the thread pool. No Python here.
#ifndef ELTWISE_CORE_EXECUTE_H_
#define ELTWISE_CORE_EXECUTE_H_

#include <cstddef>

#include "core/dtype.h"
#include "core/plan.h"

namespace eltwise {

struct ExecuteArgs {
  const char* a;
  const char* b;
  char* out;
  size_t in_itemsize;   // a and b share the compute dtype
  size_t out_itemsize;
  const BinaryKernel* kernels;  // indexed by LoopKind
  StridedKernel strided;        // null: strided runs are packed into blocks
  size_t parallel_bytes;        // ParallelBytes of the op and compute dtype
  bool pack_beside_scalar_second;  // KernelTable's flag of the op and dtype
  PackKernel pack;              // the same target's gather kernels
  TransposeKernel transpose;
  bool stream = false;          // set by Execute
};

// Bytes a call must move before it is split across threads: 256 KiB, or
// 512 KiB for ops that cost no more than moving their bytes (add, compare,
// ...; not on float16/bfloat16, whose conversions cost more). Below that a
// split gains little even from a spinning worker, and loses where other
// threads of the process compete for the cores.
constexpr size_t ParallelBytes(OpId op, DType compute) {
  const bool costly =
      Traits(op).compute_bound || IsNarrowFloat(compute);
  return costly ? size_t{1} << 18 : size_t{1} << 19;
}
// A split call wakes dozing or sleeping workers (ThreadPool::Run's `wake`)
// from 1 MiB for the costly ops and 8 MiB for the others (4 and 16 times
// their ParallelBytes): waking costs the caller more than 10 us and the
// worker joins tens of microseconds later, which only a call of about a
// hundred microseconds or more repays.
constexpr bool WakesWorkers(size_t bytes, size_t parallel_bytes) {
  return bytes / (parallel_bytes <= (size_t{1} << 18) ? 4 : 16) >= parallel_bytes;
}
// Output bytes above which stores bypass the cache (larger than L2 + a share
// of L3: the result would evict itself before anyone reads it).
constexpr size_t kStreamBytes = size_t{1} << 23;

// Runs `plan`; returns the KernelFlags the kernels met. Identical results for
// any thread count.
int Execute(const Plan& plan, const ExecuteArgs& args);

}  // namespace eltwise

#endif  // ELTWISE_CORE_EXECUTE_H_
