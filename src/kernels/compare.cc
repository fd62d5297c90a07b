// Kernels: the comparisons. Every dtype in, bool (0/1 bytes) out. They are
// IEEE: anything against NaN is false but `not_equal`. (The logical ops are in
// kernels/logical.cc: each kernel file's compile under the sanitizers must fit
// beside another in memory, tools/sanitize.)

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/compare.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/register-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// Valid lane types: all. Each returns a mask that the loop stores as bool.
struct EqualOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE auto operator()(D, V a, V b) const { return hn::Eq(a, b); }
};
struct NotEqualOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE auto operator()(D, V a, V b) const {
    return hn::Not(hn::Eq(a, b));  // Highway's Ne is ordered: false for NaN
  }
};
struct GreaterOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE auto operator()(D, V a, V b) const { return hn::Gt(a, b); }
};
struct GreaterEqualOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE auto operator()(D, V a, V b) const {
    // Highway 1.0.3 has Ge/Le for floats only; integers have no NaN.
    if constexpr (hwy::IsFloat<hn::TFromD<D>>()) return hn::Ge(a, b);
    else return hn::Not(hn::Lt(a, b));
  }
};
// a < b is b > a, and a <= b is b >= a.
template <class Op>
struct Swapped : MemoryBoundOp {
  template <class D, class V> HWY_INLINE auto operator()(D d, V a, V b) const { return Op()(d, b, a); }
};
using LessOp = Swapped<GreaterOp>;
using LessEqualOp = Swapped<GreaterEqualOp>;

// Fills the rows of this family for the current target.
void FillCompare(KernelTable& t) {
  SetBoolRow<EqualOp>(t, OpId::kEqual);
  SetBoolRow<NotEqualOp>(t, OpId::kNotEqual);
  SetBoolRow<GreaterOp>(t, OpId::kGreater);
  SetBoolRow<GreaterEqualOp>(t, OpId::kGreaterEqual);
  SetBoolRow<LessOp>(t, OpId::kLess);
  SetBoolRow<LessEqualOp>(t, OpId::kLessEqual);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillCompare);
void FillCompareKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillCompare)(t); }
}  // namespace eltwise
#endif
