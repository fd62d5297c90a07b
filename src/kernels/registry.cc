// The kernel table in use and the choice of Highway target.
//
// Calls read the table with the GIL released while set_target may pick another
// target, so a table is never changed once published: there is one per target,
// built on first use and never freed, and the one in use is an atomic pointer.
// Everything else here (and hwy::SetSupportedTargetsForTest, which is not
// thread-safe) runs with the GIL held: at load and from set_target.

#include <atomic>
#include <cstdlib>

#include "hwy/targets.h"
#include "kernels/table.h"

namespace eltwise {
namespace {

std::vector<int64_t> g_usable;            // compiled targets this CPU runs, best first
const KernelTable* g_tables[64] = {};     // by target bit; built on first use
std::atomic<const KernelTable*> g_current{nullptr};
std::atomic<int64_t> g_target{0};         // the target of g_current

// The best target in `mask` that this build compiled.
int64_t BestOf(int64_t mask) {
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (t & mask) return t;
  }
  return 0;
}

// Restricts dispatch to `restriction` (0 = none) and publishes the table of
// the target that dispatch now picks, building it the first time.
void Use(int64_t restriction) {
  hwy::SetSupportedTargetsForTest(restriction);
  // The Fill functions below dispatch once, here, to the restricted target;
  // calls read only the published table (every kernel of one target in it).
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  const int64_t target = BestOf(hwy::SupportedTargets());
  const KernelTable*& slot = g_tables[target ? hwy::Num0BitsBelowLS1Bit_Nonzero64(target) : 0];
  if (!slot) {
    auto* t = new KernelTable();
    FillArithmeticKernels(*t);
    FillDivisionKernels(*t);
    FillPowerKernels(*t);
    FillCompareKernels(*t);
    FillGatherKernels(*t);
    FillCastKernels(*t);
    FillChainKernels(*t);
    slot = t;
  }
  g_target.store(target);
  g_current.store(slot, std::memory_order_release);
}

struct InitOnLoad {
  InitOnLoad() {
    hwy::SetSupportedTargetsForTest(0);
    g_usable = hwy::SupportedAndGeneratedTargets();
    Use(0);
  }
} g_init;

}  // namespace

const KernelTable& Kernels() { return *g_current.load(std::memory_order_acquire); }

std::vector<std::string> AvailableTargets() {
  std::vector<std::string> names;
  for (int64_t t : g_usable) names.push_back(hwy::TargetName(t));
  return names;
}

std::string CurrentTarget() { return hwy::TargetName(g_target.load()); }

bool SelectTarget(const std::string& name) {
  int64_t chosen = 0;
  if (!name.empty()) {
    for (int64_t t : g_usable) {
      if (name == hwy::TargetName(t)) chosen = t;
    }
    if (chosen == 0) return false;
  }
  Use(chosen);
  return true;
}

}  // namespace eltwise
