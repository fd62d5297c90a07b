// Kernels: logical and, or, xor. Every dtype in, bool (0/1 bytes) out; each
// operand counts by its truthiness (nonzero; NaN is true).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/logical.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/register-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// Nonzero, NaN included (Highway's Ne is ordered, so not Ne).
template <class D, class V>
HWY_INLINE auto Truthy(D d, V v) {
  return hn::Not(hn::Eq(v, hn::Zero(d)));
}

struct LogicalAndOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE auto operator()(D d, V a, V b) const {
    return hn::And(Truthy(d, a), Truthy(d, b));
  }
};
struct LogicalOrOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE auto operator()(D d, V a, V b) const {
    return hn::Or(Truthy(d, a), Truthy(d, b));
  }
};
struct LogicalXorOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE auto operator()(D d, V a, V b) const {
    return hn::Xor(Truthy(d, a), Truthy(d, b));
  }
};

// Fills the rows of this family for the current target.
void FillLogical(KernelTable& t) {
  SetBoolRow<LogicalAndOp>(t, OpId::kLogicalAnd);
  SetBoolRow<LogicalOrOp>(t, OpId::kLogicalOr);
  SetBoolRow<LogicalXorOp>(t, OpId::kLogicalXor);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillLogical);
void FillLogicalKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillLogical)(t); }
}  // namespace eltwise
#endif
