// The names of the targets eltwise was compiled for (kernels/registry.cc);
// those the CPU runs and the one in use are in kernels/table.h.
#ifndef ELTWISE_KERNELS_TARGETS_H_
#define ELTWISE_KERNELS_TARGETS_H_

#include <string>
#include <vector>

namespace eltwise {

// Names of the compiled targets, best first (AVX3_SPR with AVX3_DL).
std::vector<std::string> CompiledTargets();

}  // namespace eltwise

#endif  // ELTWISE_KERNELS_TARGETS_H_
