// The kernel table in use and the choice of Highway target.

#include <cstdlib>

#include "hwy/targets.h"
#include "kernels/table.h"

namespace eltwise {
namespace {

KernelTable g_table;
int64_t g_target = 0;       // the target g_table was built for
int64_t g_restriction = 0;  // the one set_target asked for; 0 = none

// The best target in `mask` that this build compiled.
int64_t BestOf(int64_t mask) {
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (t & mask) return t;
  }
  return 0;
}

void Rebuild() {
  KernelTable t;
  FillArithmeticKernels(t);
  FillDivisionKernels(t);
  FillPowerKernels(t);
  FillCompareKernels(t);
  g_table = t;
  g_target = BestOf(hwy::SupportedTargets());
}

struct InitOnLoad {
  InitOnLoad() { Rebuild(); }
} g_init;

}  // namespace

const KernelTable& Kernels() { return g_table; }

std::vector<std::string> AvailableTargets() {
  // Lift any restriction for the listing: everything this CPU can run.
  hwy::SetSupportedTargetsForTest(0);
  std::vector<std::string> names;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) names.push_back(hwy::TargetName(t));
  hwy::SetSupportedTargetsForTest(g_restriction);
  return names;
}

std::string CurrentTarget() { return hwy::TargetName(g_target); }

bool SelectTarget(const std::string& name) {
  hwy::SetSupportedTargetsForTest(0);
  bool found = name.empty();
  int64_t chosen = 0;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (name == hwy::TargetName(t)) {
      chosen = t;
      found = true;
    }
  }
  if (found) g_restriction = chosen;
  hwy::SetSupportedTargetsForTest(g_restriction);
  Rebuild();
  return found;
}

}  // namespace eltwise
