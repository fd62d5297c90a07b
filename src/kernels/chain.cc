// Kernels: the register path of fused chains (core/fused.h, ChainOp): a
// chain of float32 or float64 add, subtract, multiply and divide computed
// element by element with each value in a register from the first step to
// the last. Each link applies the functor the step's own loop applies
// (basic_ops-inl.h) to the same operands in the same order; every operation
// is IEEE, rounded once, so a lane's result depends on nothing but its own
// operands, and the bits are the unfused calls' on every target (this file
// is compiled with -ffp-contract=off: no multiply and add of two steps
// become one FMA).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/chain.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"
#include "core/fused.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/table.h"
// Per target (after hwy/highway.h):
#include "kernels/basic_ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// acc[k] = op(acc[k], y[k]), or op(y[k], acc[k]) when kYFirst, for k < K.
template <class Op, bool kYFirst, size_t K, class D>
HWY_INLINE void Apply(D d, hn::Vec<D>* acc, const hn::Vec<D>* y) {
  const Op op;
  for (size_t k = 0; k < K; ++k) acc[k] = kYFirst ? op(d, y[k], acc[k]) : op(d, acc[k], y[k]);
}

// Computes the K vectors of elements from i (d's lanes each) through every
// link, and hands each to store(vector, element index).
template <size_t K, class D, class Store>
HWY_INLINE void ChainVectors(D d, const hn::TFromD<D>* x, bool x_one, const ChainLink* links,
                             size_t n_links, size_t i, Store store) {
  using T = hn::TFromD<D>;
  const size_t N = hn::Lanes(d);
  hn::Vec<D> acc[K], y[K];
  for (size_t k = 0; k < K; ++k) acc[k] = x_one ? hn::Set(d, x[0]) : hn::LoadU(d, x + i + k * N);
  for (size_t l = 0; l < n_links; ++l) {
    const ChainLink& link = links[l];
    const T* py = reinterpret_cast<const T*>(link.y);
    for (size_t k = 0; k < K; ++k) y[k] = link.y_one ? hn::Set(d, py[0]) : hn::LoadU(d, py + i + k * N);
    switch (2 * link.op + (link.y_first ? 1 : 0)) {
      case 2 * kChainAdd: Apply<AddOp, false, K>(d, acc, y); break;
      case 2 * kChainAdd + 1: Apply<AddOp, true, K>(d, acc, y); break;
      case 2 * kChainSubtract: Apply<SubtractOp, false, K>(d, acc, y); break;
      case 2 * kChainSubtract + 1: Apply<SubtractOp, true, K>(d, acc, y); break;
      case 2 * kChainMultiply: Apply<MultiplyOp, false, K>(d, acc, y); break;
      case 2 * kChainMultiply + 1: Apply<MultiplyOp, true, K>(d, acc, y); break;
      case 2 * kChainDivide: Apply<FloatTrueDivide, false, K>(d, acc, y); break;
      default: Apply<FloatTrueDivide, true, K>(d, acc, y); break;
    }
  }
  for (size_t k = 0; k < K; ++k) store(acc[k], i + k * N);
}

// core/fused.h ChainKernel for T. Four vectors at a time (all operands of
// an element loaded before its store, so out may be x or a link's operand
// exactly), then single vectors, then single elements (one-lane vectors:
// the same operations on the same values give the same bits). Under
// kHintStream, whole vectors from out's first vector-aligned element are
// stored non-temporally (fenced unless kHintNoFlush), as BinaryLoop does.
template <typename T>
void ChainLoop(const char* px, bool x_one, const ChainLink* links, size_t n_links, char* pout,
               size_t n, unsigned hints) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const size_t N = hn::Lanes(d);
  const T* x = reinterpret_cast<const T*>(px);
  T* out = reinterpret_cast<T*>(pout);
  const auto store_u = [&](hn::Vec<decltype(d)> v, size_t j) { hn::StoreU(v, d, out + j); };
  const auto store_1 = [&](hn::Vec<decltype(d1)> v, size_t j) { hn::StoreU(v, d1, out + j); };
  size_t i = 0;
  if ((hints & kHintStream) && HWY_TARGET != HWY_SCALAR && n >= 4 * N &&
      reinterpret_cast<uintptr_t>(out) % sizeof(T) == 0) {
    const size_t misalign = reinterpret_cast<uintptr_t>(out) % (N * sizeof(T));
    const size_t head = misalign ? (N * sizeof(T) - misalign) / sizeof(T) : 0;
    for (; i < head; ++i) ChainVectors<1>(d1, x, x_one, links, n_links, i, store_1);
    const auto stream = [&](hn::Vec<decltype(d)> v, size_t j) { hn::Stream(v, d, out + j); };
    for (; i + 4 * N <= n; i += 4 * N) ChainVectors<4>(d, x, x_one, links, n_links, i, stream);
    for (; i + N <= n; i += N) ChainVectors<1>(d, x, x_one, links, n_links, i, stream);
    if (!(hints & kHintNoFlush)) hwy::FlushStream();
  }
  for (; i + 4 * N <= n; i += 4 * N) ChainVectors<4>(d, x, x_one, links, n_links, i, store_u);
  for (; i + N <= n; i += N) ChainVectors<1>(d, x, x_one, links, n_links, i, store_u);
  for (; i < n; ++i) ChainVectors<1>(d1, x, x_one, links, n_links, i, store_1);
}

// Fills the chain kernels for the current target.
void FillChain(KernelTable& t) {
  t.chain[static_cast<int>(DType::kF32)] = &ChainLoop<float>;
  t.chain[static_cast<int>(DType::kF64)] = &ChainLoop<double>;
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillChain);
void FillChainKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillChain)(t); }
}  // namespace eltwise
#endif
