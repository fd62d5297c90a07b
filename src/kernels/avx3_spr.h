// The AVX3_SPR target's kernels (kernels/avx3_spr.cc), for kernels/registry.cc.
#ifndef ELTWISE_KERNELS_AVX3_SPR_H_
#define ELTWISE_KERNELS_AVX3_SPR_H_

#include "kernels/table.h"

namespace eltwise {

// Whether the CPU has the AVX512-FP16 arithmetic of FillAvx3SprKernels' kernels.
bool CpuHasAvx512Fp16();

// Puts AVX3_SPR's kernels into t, a table of AVX3_DL's: float16,
// float8_e4m3fn and float8_e5m2 add, subtract and multiply, in AVX512-FP16
// arithmetic (the same bits: see the .cc).
void FillAvx3SprKernels(KernelTable& t);

}  // namespace eltwise

#endif  // ELTWISE_KERNELS_AVX3_SPR_H_
