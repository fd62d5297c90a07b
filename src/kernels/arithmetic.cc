// Kernels: add, subtract, multiply and squared_difference, for every dtype
// they accept (bool's + and * are or and and: kernels/bitwise.cc). Maximum and
// minimum are in kernels/extremum.cc, the bitwise ops in kernels/bitwise.cc: each
// kernel file's compile under the sanitizers must fit beside another in memory
// (tools/sanitize).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/arithmetic.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/basic_ops-inl.h"
#include "kernels/lanes-inl.h"
#include "kernels/multiply-inl.h"
#include "kernels/register-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// AddOp, SubtractOp, MultiplyOp: basic_ops-inl.h.
// (a - b)^2 in the result dtype: each step rounded (floats) or wrapped (ints).
// Valid lane types: integers, float32, float64.
struct SquaredDifferenceOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    const V diff = hn::Sub(a, b);
    return MulWrap(d, diff, diff);
  }
};

// float16, bfloat16 and the coded floats: the difference is rounded to T
// before it is squared, so the result is (x1 - x2) ** 2 computed in T (two
// roundings), as NumPy's square(subtract(x1, x2)).
template <typename T>
struct RoundedSquaredDifferenceOp : MemoryBoundOp {
  template <typename S> using Compute = float;
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    const V diff = RoundedTo<T>(d, hn::Sub(a, b));
    return hn::Mul(diff, diff);
  }
};

template <typename... Ts>
void SetRoundedSquaredDifference(KernelTable& t) {
  (SetLoops<RoundedSquaredDifferenceOp<Ts>, Ts, Ts>(t, OpId::kSquaredDifference, DTypeOf<Ts>()), ...);
}

// Fills the rows of this family for the current target.
void FillArithmetic(KernelTable& t) {
  SetLoopsFor<AddOp, false, ELTWISE_INT_TYPES, ELTWISE_FLOAT_TYPES>(t, OpId::kAdd);
  SetLoopsFor<SubtractOp, false, ELTWISE_INT_TYPES, ELTWISE_FLOAT_TYPES>(t, OpId::kSubtract);
  SetLoopsFor<MultiplyOp, false, ELTWISE_INT_TYPES, ELTWISE_FLOAT_TYPES>(t, OpId::kMultiply);
  SetLoopsFor<SquaredDifferenceOp, false, ELTWISE_INT_TYPES, float, double>(
      t, OpId::kSquaredDifference);
  SetRoundedSquaredDifference<hwy::float16_t, hwy::bfloat16_t, ELTWISE_CODED_FLOAT_TYPES>(t);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillArithmetic);
void FillArithmeticKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillArithmetic)(t); }
}  // namespace eltwise
#endif
