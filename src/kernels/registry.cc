// The kernel table in use and the choice of Highway target.
//
// Calls read the table with the GIL released while set_target may pick another
// target, so a table is never changed once published: there is one per target,
// built on first use and never freed, and the one in use is an atomic pointer.
// Everything else here (and hwy::SetSupportedTargetsForTest, which is not
// thread-safe) runs with the GIL held: at load and from set_target.
//
// AVX3_SPR is a target of eltwise's own beside Highway 1.0.3's (which has no
// AVX512-FP16 target; later Highway versions give the name and the bit to
// AVX3_DL plus AVX512-FP16 and AVX512-BF16): AVX3_DL's table with the
// kernels of kernels/avx3_spr.cc over some of its entries, offered where the
// CPU has both.

#include <atomic>
#include <cstdlib>

#include "hwy/targets.h"
#include "kernels/avx3_spr.h"
#include "kernels/targets.h"

namespace eltwise {
namespace {

constexpr int64_t kAvx3Spr = int64_t{1} << 4;  // unused by Highway 1.0.3 (see above)

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

std::string NameOf(int64_t target) {
  return target == kAvx3Spr ? "AVX3_SPR" : hwy::TargetName(target);
}

// Restricts dispatch to `restriction` (0 = none: the best of g_usable) and
// publishes the table of the target that dispatch now picks, building it the
// first time.
void Use(int64_t restriction) {
  const bool spr = restriction == kAvx3Spr ||
                   (restriction == 0 && !g_usable.empty() && g_usable.front() == kAvx3Spr);
  hwy::SetSupportedTargetsForTest(spr ? HWY_AVX3_DL : restriction);
  // The Fill functions below dispatch once, here, to the restricted target;
  // calls read only the published table (every kernel of one target in it).
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  const int64_t target = spr ? kAvx3Spr : BestOf(hwy::SupportedTargets());
  const KernelTable*& slot = g_tables[target ? hwy::Num0BitsBelowLS1Bit_Nonzero64(target) : 0];
  if (!slot) {
    auto* t = new KernelTable();
    FillArithmeticKernels(*t);
    FillExtremumKernels(*t);
    FillBitwiseKernels(*t);
    FillDivisionKernels(*t);
    FillPowerKernels(*t);
    FillCompareKernels(*t);
    FillLogicalKernels(*t);
    FillGatherKernels(*t);
    FillCastKernels(*t);
    FillChainKernels(*t);
    if (spr) FillAvx3SprKernels(*t);
    slot = t;
  }
  g_target.store(target);
  g_current.store(slot, std::memory_order_release);
}

struct InitOnLoad {
  InitOnLoad() {
    hwy::SetSupportedTargetsForTest(0);
    g_usable = hwy::SupportedAndGeneratedTargets();
    if (!g_usable.empty() && g_usable.front() == HWY_AVX3_DL && CpuRunsAvx3Spr()) {
      g_usable.insert(g_usable.begin(), kAvx3Spr);
    }
    Use(0);
  }
} g_init;

}  // namespace

const KernelTable& Kernels() { return *g_current.load(std::memory_order_acquire); }

std::vector<std::string> AvailableTargets() {
  std::vector<std::string> names;
  for (int64_t t : g_usable) names.push_back(NameOf(t));
  return names;
}

std::vector<std::string> CompiledTargets() {
  std::vector<std::string> names;
  // Unsigned: the targets' bits reach the sign bit of int64_t.
  for (uint64_t bit = 1; bit != 0; bit <<= 1) {
    if (static_cast<uint64_t>(HWY_TARGETS) & bit) {
      if (bit == HWY_AVX3_DL && Avx3SprCompiled()) names.push_back(NameOf(kAvx3Spr));
      names.push_back(NameOf(static_cast<int64_t>(bit)));
    }
  }
  return names;
}

std::string CurrentTarget() { return NameOf(g_target.load()); }

bool SelectTarget(const std::string& name) {
  int64_t chosen = 0;
  if (!name.empty()) {
    for (int64_t t : g_usable) {
      if (name == NameOf(t)) chosen = t;
    }
    if (chosen == 0) return false;
  }
  Use(chosen);
  return true;
}

}  // namespace eltwise
