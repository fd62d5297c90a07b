// Kernels: comparisons and logical ops. Every dtype in, bool (0/1 bytes) out.
// Comparisons are IEEE: anything against NaN is false but `not_equal`.
// Logical ops take each operand's truthiness (nonzero; NaN is true).

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

// Registers Op for every dtype, bool compared as uint8.
template <class Op>
void SetBoolRow(KernelTable& t, OpId op) {
  SetLoopsFor<Op, true, ELTWISE_INT_TYPES, ELTWISE_FLOAT_TYPES>(t, op);
  SetLoops<Op, uint8_t, uint8_t>(t, op, DType::kBool);
}

// Fills the rows of this family for the current target.
void FillCompare(KernelTable& t) {
  SetBoolRow<EqualOp>(t, OpId::kEqual);
  SetBoolRow<NotEqualOp>(t, OpId::kNotEqual);
  SetBoolRow<GreaterOp>(t, OpId::kGreater);
  SetBoolRow<GreaterEqualOp>(t, OpId::kGreaterEqual);
  SetBoolRow<LessOp>(t, OpId::kLess);
  SetBoolRow<LessEqualOp>(t, OpId::kLessEqual);
  SetBoolRow<LogicalAndOp>(t, OpId::kLogicalAnd);
  SetBoolRow<LogicalOrOp>(t, OpId::kLogicalOr);
  SetBoolRow<LogicalXorOp>(t, OpId::kLogicalXor);
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
