// The register path of fused chains, as core and kernels/chain.cc share it:
// the instructions of a register program and the kernel type that runs one.
// Which programs run it is core/fused.h's (ChainOpOf, ChainCastIsExact,
// MarkChain). No Python here; kernels include this header, not fused.h, so a
// change to fused.h's rules recompiles no kernel.
#ifndef ELTWISE_CORE_CHAIN_H_
#define ELTWISE_CORE_CHAIN_H_

#include <cstddef>

#include "core/dtype.h"

namespace eltwise {

// The register path (fused.cc, RunTiles): a program whose steps form one
// expression tree of float32, float64, float16 or bfloat16 add, subtract, multiply
// and divide runs as one kernel call per row of a block, each value held in
// registers from the first step to the last, instead of each step storing
// its tile. Such a program: every step computes in and returns the same
// dtype T; every step's result is read by exactly one later step, but the
// last step's, the one output; every input is of T or converts to it
// exactly (ChainCastIsExact); evaluated the operand that needs more first,
// at most kMaxChainDepth values are pending at once.
// kernels/chain.cc computes each step with the functor of the step's own
// loop (kernels/basic_ops-inl.h) on the same operands in the same order,
// rounded once to T, so the bits are the unfused calls'.
enum ChainOp : int {
  kChainAdd, kChainSubtract, kChainMultiply, kChainDivide, kChainLoad,
  kChainSwapped = 8,  // or'ed into an op: its operands were pushed second first
};

// One instruction of a register program, in postfix order: kChainLoad pushes
// an operand (n elements from p, or p[0] for all where one; of dtype
// `from`, converted exactly); a ChainOp pops b, then a, and pushes op(a, b);
// with kChainSwapped it pops a, then b.
struct ChainInstr {
  const char* p;
  int op;  // ChainOp, maybe with kChainSwapped
  DType from;
  bool one;
};
constexpr size_t kMaxChainDepth = 4;
constexpr size_t kMaxChainSteps = 64;  // so a program has at most 3 * 64 instructions

// Computes out[i] for i < n: the program's one value (code: n_code
// instructions, leaving one value), stored to out (non-temporally under
// kHintStream, as BinaryLoop does). out may be an operand exactly, not a
// partial overlap.
using ChainKernel = void (*)(const ChainInstr* code, size_t n_code, char* out, size_t n,
                             unsigned hints);

}  // namespace eltwise

#endif  // ELTWISE_CORE_CHAIN_H_
