// Runs a chain of element-wise calls (eltwise.fuse's graph, docs/fuse.md) in
// one pass over memory: the result is cut into blocks, and every step runs on
// a block before the next block starts, its intermediate results held in
// per-thread buffers sized to stay in cache; within a block, where the
// operands allow, every step runs on one L1-sized tile before the next tile
// (fused.cc, RunTiles). No Python here.
#ifndef ELTWISE_CORE_FUSED_H_
#define ELTWISE_CORE_FUSED_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/broadcast.h"
#include "core/cast.h"
#include "core/chain.h"
#include "core/dtype.h"
#include "core/execute.h"
#include "core/ops.h"

namespace eltwise {

// Where a step's operand comes from.
struct FusedSource {
  enum Kind : int { kScalar, kInput, kStep } kind = kScalar;
  int index = 0;  // into FusedProgram::scalars / inputs / steps (an earlier step)
};

// A strided array of the program's whole shape (zero strides where
// broadcast): its first ndim strides are read, the rest never (left unset,
// as a view is made per call).
struct FusedView {
  char* base = nullptr;
  DType dtype = DType::kBool;
  int64_t strides[kMaxDims];
};

// The register path (core/chain.h: ChainOp, ChainInstr, ChainKernel): which
// steps it runs is decided here (ChainOpOf, ChainCastIsExact, MarkChain).

// The ChainOp of `op` on `compute`, or -1 where the register path does not
// run it.
constexpr int ChainOpOf(OpId op, DType compute) {
  if (compute != DType::kF32 && compute != DType::kF64 && compute != DType::kF16 &&
      compute != DType::kBF16) {
    return -1;
  }
  switch (op) {
    case OpId::kAdd: return kChainAdd;
    case OpId::kSubtract: return kChainSubtract;
    case OpId::kMultiply: return kChainMultiply;
    case OpId::kDivide: return kChainDivide;
    default: return -1;
  }
}

// The conversions of an input to the register path's dtype `to`: exact for
// every value (so any conversion gives CastRun's bits): 8- and 16-bit
// integers to float32 or float64, float16 and bfloat16 to float32, int32 and
// float32 to float64. (A float16 or bfloat16 program takes inputs of its own
// dtype only: the executor has no integer to 16-bit float cast, CastIsExact.)
constexpr bool ChainCastIsExact(DType from, DType to) {
  const bool narrow = from == DType::kI8 || from == DType::kU8 || from == DType::kI16 ||
                      from == DType::kU16;
  return from == to || (to == DType::kF32 && (narrow || WidensHalfExactly(from, to))) ||
         (to == DType::kF64 && (narrow || from == DType::kI32 || from == DType::kF32));
}

// A register program's instruction before a row's addresses: a load of step
// `step`'s operand `operand`, or step `step`'s op.
struct ChainCode {
  int op;  // ChainOp, maybe with kChainSwapped
  int step;
  int operand;
};

struct FusedStep {
  // The step's kernels, as the unfused call would run them (its a, b and out
  // are set per block; parallel_bytes decides whether the run takes threads,
  // whose unit of work is the block).
  ExecuteArgs args;
  DType compute = DType::kBool;  // both operands are read in this dtype
  DType result = DType::kBool;
  FusedSource x[2];
  // The step's result: an output (FusedProgram::outputs[dest], of dtype
  // `result`) or, when dest_output is false, buffer slot `dest` (a slot may
  // be reused by a later step once no step reads what it held).
  bool dest_output = false;
  int dest = 0;
  int chain_op = -1;  // ChainOpOf(the step's op, compute)
};

struct FusedProgram {
  int ndim = 1;
  int64_t shape[kMaxDims] = {};
  std::vector<FusedStep> steps;
  // What the steps read and write. RunFused reads the scalars and views of
  // its FusedOperands; these give their count and, for views, their dtypes.
  std::vector<const char*> scalars;  // one element of the reading step's compute dtype
  std::vector<FusedView> inputs;
  std::vector<FusedView> outputs;
  int slots = 0;
  // The vector conversions of the steps' kernels' table (null: CastRun's
  // element loop for every conversion).
  const CastKernels* casts = nullptr;
  // The most elements a block has where the shape allows: a block is a run
  // of one axis with every later axis whole (at least one index of it).
  int64_t block_elements = 4096;
  // The register path (see ChainOp; MarkChain sets both): the chain kernel
  // of the steps' dtype, else null, and the program in postfix order.
  ChainKernel chain = nullptr;
  std::vector<ChainCode> chain_code;
};

// Sets program->chain to `kernel` (the chain kernel of the steps' dtype, or
// null) and program->chain_code to the postfix program if the register path
// runs the program (see ChainOp; at most kMaxChainSteps steps, every
// chain_op set); to null and empty otherwise.
void MarkChain(FusedProgram* program, ChainKernel kernel);

// The memory one run reads and writes: as many scalars, inputs and outputs as
// the program has, the views of the program's dtypes.
struct FusedOperands {
  const char* const* scalars;
  const FusedView* inputs;
  const FusedView* outputs;
};

// Whether CastRun converts `from` to `to` exactly as NumPy's cast does, with
// nothing to report: built-in integers, bool, float32 and float64, except
// float64 to float32 (which may overflow) and float to integer; and float16 or
// bfloat16 to float32 or float64.
bool CastIsExact(DType from, DType to);

// Runs `program` on up to `threads` threads (blocks are the unit of work),
// more than one only where some step's unfused call would be split (its
// bytes at least its parallel_bytes). Every
// step's sources must be earlier steps, every cast CastIsExact, every view
// valid for the program's shape (the caller checks). flags[s] receives the
// KernelFlags step s met. Results are identical for any thread count and
// block size. May throw std::bad_alloc (the per-thread buffers) before any
// element is written.
void RunFused(const FusedProgram& program, const FusedOperands& operands, int threads,
              int* flags);

}  // namespace eltwise

#endif  // ELTWISE_CORE_FUSED_H_
