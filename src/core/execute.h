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

// Whether an op costs more than moving its bytes on `compute`: compute-bound
// ops, and every op on float16/bfloat16 (their conversions).
constexpr bool IsCostly(OpId op, DType compute) {
  return Traits(op).compute_bound || IsNarrowFloat(compute);
}

struct ExecuteArgs {
  const char* a;
  const char* b;
  char* out;
  size_t in_itemsize;   // a and b share the compute dtype
  size_t out_itemsize;
  const BinaryKernel* kernels;  // indexed by LoopKind
  StridedKernel strided;        // null: strided runs are packed into blocks
  size_t parallel_bytes;        // ParallelBytes of the op and compute dtype (SIZE_MAX: never split)
  size_t wake_bytes;            // WakeBytes of the op and compute dtype
  bool pack_beside_scalar_second;  // KernelTable's flag of the op and dtype
  bool heavy;                   // KernelTable's flag of the op and dtype
  PackKernel pack;              // the same target's gather kernels
  TransposeKernel transpose;
  bool stream = false;          // set by Execute
};

// Bytes a call must move (operands and result) before it is split across
// threads: 256 KiB for the costly ops, and on Intel's CPUs (`intel`:
// CpuIsIntel) for every op; 512 KiB for the cheap ops elsewhere. Below 256 KiB
// a split loses: a call is one or two microseconds on one core with its
// operands in that core's L2, about what publishing the call, claiming the
// shares and moving the result lines between the cores cost. With each
// thread's share claimed whole (core/claims.h), on an Intel Xeon (2 MB of L2
// a core) every call from 300 KB gained; on Zen 4 (1 MB a core) cheap calls
// of 300 KB lost, of 440-490 KB went either way and from 580 KB gained
// (docs/benchmarks.md, the threads goal).
constexpr size_t ParallelBytes(OpId op, DType compute, bool intel) {
  return IsCostly(op, compute) || intel ? size_t{1} << 18 : size_t{1} << 19;
}
// Bytes from which a split call wakes dozing or sleeping workers
// (ThreadPool::Run's `wake`): 1 MiB for the costly ops, 8 MiB for the others.
// Waking costs the caller more than 10 us and the worker joins tens of
// microseconds later, which only a call of about a hundred microseconds or
// more repays.
constexpr size_t WakeBytes(OpId op, DType compute) {
  return IsCostly(op, compute) ? size_t{1} << 20 : size_t{1} << 23;
}
// Output bytes above which stores bypass the cache (larger than L2 + a share
// of L3: the result would evict itself before anyone reads it); where both
// moving operands lie at another offset in a cache line than the result (their
// loads all split beside aligned streaming stores), kStreamSplitBytes, from
// which the three arrays pass a 32 MiB last-level cache twice over.
constexpr size_t kStreamBytes = size_t{1} << 23;
constexpr size_t kStreamSplitBytes = 3 * kStreamBytes;

// Whether CPUID's vendor string is Intel's; read once.
bool CpuIsIntel();

// kHintSplitStoresCostly on the CPUs where a split store costs more than two
// split loads (Intel's), else 0.
unsigned CpuHints();

// Runs `plan`; returns the KernelFlags the kernels met. Identical results for
// any thread count.
int Execute(const Plan& plan, const ExecuteArgs& args);

}  // namespace eltwise

#endif  // ELTWISE_CORE_EXECUTE_H_
