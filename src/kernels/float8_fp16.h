// AVX3_SPR's kernels (kernels/float8_fp16.cc), for kernels/registry.cc.
#ifndef ELTWISE_KERNELS_FLOAT8_FP16_H_
#define ELTWISE_KERNELS_FLOAT8_FP16_H_

#include "kernels/table.h"

namespace eltwise {

// Whether the CPU has the AVX512-FP16 arithmetic FillFloat8Fp16Kernels' kernels need.
bool CpuHasAvx512Fp16();

// Puts float8_e4m3fn and float8_e5m2 add, subtract and multiply in AVX512-FP16
// arithmetic into t, over AVX3_DL's (the same codes: see the .cc's proof).
void FillFloat8Fp16Kernels(KernelTable& t);

}  // namespace eltwise

#endif  // ELTWISE_KERNELS_FLOAT8_FP16_H_
