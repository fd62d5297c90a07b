// Kernels: maximum and minimum, for every dtype they accept.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/extremum.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <type_traits>

#include "hwy/highway.h"
#include "kernels/register-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// NaN propagates (a NaN first operand wins over a NaN second one). Ties of
// -0.0 and 0.0 go as NumPy's loops decide them on x86-64 (docs/semantics.md:
// "Exactness"): to the second operand for float32, float64 and ml_dtypes'
// floats, to the first for float16 (float16 and bfloat16 run HalfExtremumOp
// below). Equal values are otherwise the same bits, so only those ties
// differ. kMax: maximum, else minimum.
template <bool kMax>
struct ExtremumOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE V operator()(D, V a, V b) const {
    if constexpr (hwy::IsFloat<hn::TFromD<D>>()) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
      // Highway's Max/Min are x86's maxps/minps here: a > b ? a : b (a < b),
      // so the second operand on a tie and where either is NaN; only a NaN
      // first operand needs the fix: half the operations of the general form.
      const V hw = kMax ? hn::Max(a, b) : hn::Min(a, b);
      return hn::IfThenElse(hn::IsNaN(a), a, hw);
#endif
      // Elsewhere Highway's Max/Min follow other hardware rules: not used.
      const auto b_wins = kMax ? hn::Le(a, b) : hn::Le(b, a);
      const V r = hn::IfThenElse(hn::Or(b_wins, hn::IsNaN(b)), b, a);
      return hn::IfThenElse(hn::IsNaN(a), a, r);
    } else {
      return kMax ? hn::Max(a, b) : hn::Min(a, b);
    }
  }
};
using MaximumOp = ExtremumOp<true>;
using MinimumOp = ExtremumOp<false>;

// float16 and bfloat16 maximum (kMax) and minimum on the stored bits,
// choosing as NumPy's float16 loops and ml_dtypes' bfloat16 loops do: the
// first operand where it is NaN, else the second where it is NaN or wins,
// else the first; a tie (equal values, -0 with +0 included) goes to the
// first operand for float16 and to the second for bfloat16 (ExtremumOp's
// rule). The result is one operand's bits unchanged, so a signalling NaN
// stays signalling, as in NumPy and ml_dtypes (widening to float32 and
// narrowing back would quiet it). Proof of the order: key(h) = h ^ ((h >>
// 15) & 0x7FFF), as int16, is h for h >= +0 and -1 - |h| for a negative h,
// so it is strictly increasing in the value of non-NaN h, with -0 (key -1)
// just below +0 (key 0): a < b exactly when key(a) < key(b) and not both
// are zeros; a <= b when key(a) <= key(b) or both are zeros. Its loops run
// on the bits as uint16 lanes (kFloat16: float16's, else bfloat16's).
template <bool kMax, bool kFloat16>
struct HalfExtremumOp : MemoryBoundOp {
  template <class D, class V> HWY_INLINE V operator()(D d, V a, V b) const {
    static_assert(std::is_same<hn::TFromD<D>, uint16_t>::value, "the bits as uint16 lanes");
    const hn::RebindToSigned<D> di;
    const auto ia = hn::BitCast(di, a), ib = hn::BitCast(di, b);
    const auto magnitude = hn::Set(di, int16_t{0x7FFF});
    const auto inf = hn::Set(di, static_cast<int16_t>(kFloat16 ? 0x7C00 : 0x7F80));
    const auto abs_a = hn::And(ia, magnitude), abs_b = hn::And(ib, magnitude);
    const auto key_a = hn::Xor(ia, hn::And(hn::ShiftRight<15>(ia), magnitude));
    const auto key_b = hn::Xor(ib, hn::And(hn::ShiftRight<15>(ib), magnitude));
    const auto lo = kMax ? key_a : key_b, hi = kMax ? key_b : key_a;
    const auto zeros = hn::Eq(hn::Or(abs_a, abs_b), hn::Zero(di));
    const auto b_wins = kFloat16 ? hn::AndNot(zeros, hn::Lt(lo, hi))
                                 : hn::Or(zeros, hn::Not(hn::Lt(hi, lo)));
    const auto r = hn::IfThenElse(hn::Or(b_wins, hn::Gt(abs_b, inf)), ib, ia);
    return hn::BitCast(d, hn::IfThenElse(hn::Gt(abs_a, inf), ia, r));
  }
};

// Fills the rows of this family for the current target.
void FillExtremum(KernelTable& t) {
  SetLoopsFor<MaximumOp, false, ELTWISE_INT_TYPES, float, double, ELTWISE_CODED_FLOAT_TYPES>(
      t, OpId::kMaximum);
  SetLoopsFor<MinimumOp, false, ELTWISE_INT_TYPES, float, double, ELTWISE_CODED_FLOAT_TYPES>(
      t, OpId::kMinimum);
  SetLoops<HalfExtremumOp<true, true>, uint16_t, uint16_t>(t, OpId::kMaximum, DType::kF16);
  SetLoops<HalfExtremumOp<false, true>, uint16_t, uint16_t>(t, OpId::kMinimum, DType::kF16);
  SetLoops<HalfExtremumOp<true, false>, uint16_t, uint16_t>(t, OpId::kMaximum, DType::kBF16);
  SetLoops<HalfExtremumOp<false, false>, uint16_t, uint16_t>(t, OpId::kMinimum, DType::kBF16);
  // bool (0/1 bytes): as uint8.
  SetLoops<MaximumOp, uint8_t, uint8_t>(t, OpId::kMaximum, DType::kBool);
  SetLoops<MinimumOp, uint8_t, uint8_t>(t, OpId::kMinimum, DType::kBool);
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillExtremum);
void FillExtremumKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillExtremum)(t); }
}  // namespace eltwise
#endif
