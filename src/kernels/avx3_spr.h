// The AVX3_SPR target's kernels (kernels/avx3_spr.cc), for kernels/registry.cc.
#ifndef ELTWISE_KERNELS_AVX3_SPR_H_
#define ELTWISE_KERNELS_AVX3_SPR_H_

#include "kernels/table.h"

namespace eltwise {

// Whether this build has the AVX3_SPR kernels (x86-64, with a compiler that
// declares AVX512-FP16's intrinsics for target attributes: GCC 12, Clang 16
// or later); without them the two functions below report no such CPU and
// fill nothing.
bool Avx3SprCompiled();

// Whether the CPU has what FillAvx3SprKernels' kernels use beyond AVX3_DL:
// AVX512-FP16's arithmetic and AVX512-BF16's conversion.
bool CpuRunsAvx3Spr();

// Puts AVX3_SPR's kernels into t, a table of AVX3_DL's: float16,
// float8_e4m3fn and float8_e5m2 add, subtract, multiply and comparisons in
// AVX512-FP16 arithmetic, bfloat16 add, subtract, multiply and divide rounded by
// AVX512-BF16 (the same bits: see the .cc).
void FillAvx3SprKernels(KernelTable& t);

}  // namespace eltwise

#endif  // ELTWISE_KERNELS_AVX3_SPR_H_
