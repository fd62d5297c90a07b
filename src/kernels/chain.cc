// Kernels: the register path of fused chains (core/chain.h, ChainOp): an
// expression tree of float32, float64, float16 or bfloat16 add, subtract,
// multiply and divide, as a postfix program over at most kMaxChainDepth
// pending values, computed a few vectors of elements at a time with every
// value in registers from the first step to the last. Each step applies the
// functor its own loop applies (basic_ops-inl.h) to the same operands in the
// same order, in the same compute lanes (float32 for the 16-bit floats), and
// rounds its result to the program's dtype as its loop stores it (RoundedTo:
// a 16-bit float's value held in float32 lanes, NaN quieted as the store
// quiets it); every operation is IEEE and every operand conversion exact, so
// a lane's result depends on nothing but its own operands, and the bits are
// the unfused calls' on every target (this file is compiled with
// -ffp-contract=off: no multiply and add of two steps become one FMA).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/chain.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/chain.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/table.h"
// Per target (after hwy/highway.h):
#include "kernels/basic_ops-inl.h"
#include "kernels/lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The vectors of one pending value of the register program: K vectors of
// d's lanes (the elements from i). K <= 8, and every loop over k below is
// unrolled eight times, so fully: a loop left rolled would index the slots
// in memory (spilled to the stack) instead of registers.
template <class D, size_t K>
struct Slot {
  hn::Vec<D> v[K];
};

// lo = op(lo, hi), or op(hi, lo) where kSwapped, vector by vector, each
// result rounded to storage TS as the step's loop stores it (RoundedTo: no
// operation where TS is d's lane type).
template <class Op, bool kSwapped, typename TS, class D, size_t K>
HWY_INLINE void Apply(D d, Slot<D, K>& lo, const Slot<D, K>& hi) {
  const Op op;
  HWY_UNROLL(8)
  for (size_t k = 0; k < K; ++k) {
    lo.v[k] = RoundedTo<TS>(d, kSwapped ? op(d, hi.v[k], lo.v[k]) : op(d, lo.v[k], hi.v[k]));
  }
}

// lo = op(lo, v), or op(v, lo) where kSwapped, v one vector for all of lo's
// (an operand of one value), rounded as Apply rounds.
template <class Op, bool kSwapped, typename TS, class D, size_t K>
HWY_INLINE void ApplyOne(D d, Slot<D, K>& lo, hn::Vec<D> v) {
  const Op op;
  HWY_UNROLL(8)
  for (size_t k = 0; k < K; ++k) {
    lo.v[k] = RoundedTo<TS>(d, kSwapped ? op(d, v, lo.v[k]) : op(d, lo.v[k], v));
  }
}

// One vector of elements from p + i of storage From, converted to d's lanes
// (exactly: ChainCastIsExact).
template <typename From, class D>
HWY_INLINE hn::Vec<D> LoadAs(D d, const From* p, size_t i) {
  using T = hn::TFromD<D>;
  if constexpr (std::is_same<From, T>::value) {
    return hn::LoadU(d, p + i);
  } else if constexpr (kIsHalf<From>) {
    return Widen(d, hn::LoadU(hn::Rebind<From, D>(), p + i));
  } else if constexpr (std::is_same<From, float>::value || std::is_same<From, int32_t>::value) {
    return hn::PromoteTo(d, hn::LoadU(hn::Rebind<From, D>(), p + i));
  } else {
    // 8- and 16-bit integers: to int32 lanes, then to T (both exact).
    const hn::Rebind<int32_t, D> di;
    const auto w = hn::PromoteTo(di, hn::LoadU(hn::Rebind<From, D>(), p + i));
    if constexpr (std::is_same<T, float>::value) {
      return hn::ConvertTo(d, w);
    } else {
      return hn::PromoteTo(d, w);
    }
  }
}

// Slot s = the K vectors of elements from i of storage From (LoadMany), or
// p[0] in every lane (LoadOne), converted to d's lanes.
template <typename From, class D, size_t K>
HWY_INLINE void LoadMany(D d, const char* p, size_t i, Slot<D, K>& s) {
  const size_t N = hn::Lanes(d);
  const From* q = reinterpret_cast<const From*>(p);
  HWY_UNROLL(8)
  for (size_t k = 0; k < K; ++k) s.v[k] = LoadAs<From>(d, q, i + k * N);
}
template <typename From, class D>
HWY_INLINE hn::Vec<D> LoadOneVector(D d, const char* p) {
  const hn::CappedTag<hn::TFromD<D>, 1> d1;
  return hn::Set(d, hn::GetLane(LoadAs<From>(d1, reinterpret_cast<const From*>(p), 0)));
}
template <typename From, class D, size_t K>
HWY_INLINE void LoadOne(D d, const char* p, Slot<D, K>& s) {
  const auto v = LoadOneVector<From>(d, p);
  HWY_UNROLL(8)
  for (size_t k = 0; k < K; ++k) s.v[k] = v;
}

// Each instruction's case: a load's slot, source dtype and whether it is one
// value, an op's operands' slots, all decided once per call (ChainCases), so
// that an instruction costs one indirect jump per K vectors, not a switch on
// its kind, then on the slot, then on the dtype (the dispatch is most of a
// short program's cost). A load of the program's own dtype followed by an op
// is one operand-op case: one jump, not two.
//   load:       slot << 4 | source << 1 | one (source: SourceIndex)
//   op:         64 | op << 3 | swapped << 2 | (values pending - 2)
//   operand-op: 128 | op << 4 | swapped << 3 | one << 2 | the value's slot
//   end:        kEndCase, after the last instruction
constexpr uint8_t kOpCase = 64;
constexpr uint8_t kOperandCase = 128;
constexpr uint8_t kEndCase = 191;  // above every other case

// One decoded instruction: its case and the operand a load case reads.
struct ChainCase {
  const char* p;
  uint8_t kind;
};

// The sources a load converts from, by index: the program's dtype first;
// 5 and 6 are int32 and float32 in a float64 program, float16 and bfloat16
// in a float32 one (ChainCastIsExact admits no other of them).
inline int SourceIndex(DType from, DType t) {
  if (from == t) return 0;
  switch (from) {
    case DType::kI8: return 1;
    case DType::kU8: return 2;
    case DType::kI16: return 3;
    case DType::kU16: return 4;
    case DType::kI32: case DType::kF16: return 5;
    default: return 6;  // float32 (to float64), bfloat16 (to float32)
  }
}

// Decodes the program `code` of dtype t into cases, ended by kEndCase; a
// load of dtype t followed by an op (whose operands are then the value below
// and the load) becomes one operand-op case on that value's slot. cases has
// room for n_code + 1.
inline void ChainCases(const ChainInstr* code, size_t n_code, DType t, ChainCase* cases) {
  size_t depth = 0, m = 0;  // values pending, cases made
  for (size_t k = 0; k < n_code; ++k, ++m) {
    const ChainInstr& c = code[k];
    cases[m].p = c.p;
    if (c.op == kChainLoad) {
      if (k + 1 < n_code && code[k + 1].op != kChainLoad && c.from == t) {
        const int op = code[k + 1].op & ~kChainSwapped;
        const int swapped = (code[k + 1].op & kChainSwapped) ? 1 : 0;
        cases[m].kind = static_cast<uint8_t>(kOperandCase | op << 4 | swapped << 3 |
                                             (c.one ? 4 : 0) | (depth - 1));
        ++k;  // the op: depth is unchanged
        continue;
      }
      cases[m].kind =
          static_cast<uint8_t>(depth << 4 | SourceIndex(c.from, t) << 1 | (c.one ? 1 : 0));
      ++depth;
    } else {
      const int op = c.op & ~kChainSwapped, swapped = (c.op & kChainSwapped) ? 1 : 0;
      cases[m].kind = static_cast<uint8_t>(kOpCase | op << 3 | swapped << 2 | (depth - 2));
      --depth;
    }
  }
  cases[m] = {nullptr, kEndCase};
}

// Every case of ChainVectors: X(CASE, LABEL, reachable, statements...) for
// each kind ChainCases makes but kEndCase. `reachable` is a constant of the
// instantiation: a program of at most kDepth values pending never makes the
// other cases (ChainWholeVectors picks kDepth; MarkChain admits only
// ChainCastIsExact's sources), so their statements are compiled out. The
// statements read the case's operand as t->p and the slots s.
// A load into slot S.
#define ELTWISE_CHAIN_LOAD(X, S, SOURCE, From, kOk)                                   \
  X(S << 4 | SOURCE << 1, chain_load_##S##_##SOURCE, S < kDepth && (kOk),             \
    LoadMany<From>(d, t->p, i, s[S < kDepth ? S : 0]))                                \
  X(S << 4 | SOURCE << 1 | 1, chain_load_one_##S##_##SOURCE, S < kDepth && (kOk),     \
    LoadOne<From>(d, t->p, s[S < kDepth ? S : 0]))
#define ELTWISE_CHAIN_LOADS(X, S)               \
  ELTWISE_CHAIN_LOAD(X, S, 0, TS, true)         \
  ELTWISE_CHAIN_LOAD(X, S, 1, int8_t, !kHalf)   \
  ELTWISE_CHAIN_LOAD(X, S, 2, uint8_t, !kHalf)  \
  ELTWISE_CHAIN_LOAD(X, S, 3, int16_t, !kHalf)  \
  ELTWISE_CHAIN_LOAD(X, S, 4, uint16_t, !kHalf) \
  ELTWISE_CHAIN_LOAD(X, S, 5, Source5, !kHalf)  \
  ELTWISE_CHAIN_LOAD(X, S, 6, Source6, !kHalf)
// An op on the two values on top when `PENDING` are pending: slots
// PENDING - 2 and PENDING - 1, the result in the first.
#define ELTWISE_CHAIN_OP(X, PENDING, OP, Op)                                               \
  X(kOpCase | OP << 3 | (PENDING - 2), chain_op_##OP##_##PENDING, PENDING <= kDepth,      \
    Apply<Op, false, TS>(d, s[PENDING <= kDepth ? PENDING - 2 : 0],                        \
                         s[PENDING <= kDepth ? PENDING - 1 : 0]))                          \
  X(kOpCase | OP << 3 | 4 | (PENDING - 2), chain_op_swapped_##OP##_##PENDING,             \
    PENDING <= kDepth,                                                                     \
    Apply<Op, true, TS>(d, s[PENDING <= kDepth ? PENDING - 2 : 0],                         \
                        s[PENDING <= kDepth ? PENDING - 1 : 0]))
// The value in slot S op an operand of the program's dtype (one value or
// many), the result in slot S.
#define ELTWISE_CHAIN_OPERAND(X, S, OP, Op)                                                \
  X(kOperandCase | OP << 4 | S, chain_operand_##OP##_##S, S < kDepth,                      \
    Slot<D, K> y; LoadMany<TS>(d, t->p, i, y);                                             \
    Apply<Op, false, TS>(d, s[S < kDepth ? S : 0], y))                                     \
  X(kOperandCase | OP << 4 | 4 | S, chain_operand_one_##OP##_##S, S < kDepth,              \
    ApplyOne<Op, false, TS>(d, s[S < kDepth ? S : 0], LoadOneVector<TS>(d, t->p)))          \
  X(kOperandCase | OP << 4 | 8 | S, chain_operand_swapped_##OP##_##S, S < kDepth,          \
    Slot<D, K> y; LoadMany<TS>(d, t->p, i, y);                                             \
    Apply<Op, true, TS>(d, s[S < kDepth ? S : 0], y))                                      \
  X(kOperandCase | OP << 4 | 8 | 4 | S, chain_operand_one_swapped_##OP##_##S, S < kDepth,  \
    ApplyOne<Op, true, TS>(d, s[S < kDepth ? S : 0], LoadOneVector<TS>(d, t->p)))
// M(X, A, op, functor) for each ChainOp.
#define ELTWISE_CHAIN_FOR_OPS(M, X, A)     \
  M(X, A, kChainAdd, AddOp)                \
  M(X, A, kChainSubtract, SubtractOp)      \
  M(X, A, kChainMultiply, MultiplyOp)      \
  M(X, A, kChainDivide, FloatTrueDivide)
#define ELTWISE_CHAIN_CASES(X)                          \
  ELTWISE_CHAIN_LOADS(X, 0)                             \
  ELTWISE_CHAIN_LOADS(X, 1)                             \
  ELTWISE_CHAIN_LOADS(X, 2)                             \
  ELTWISE_CHAIN_LOADS(X, 3)                             \
  ELTWISE_CHAIN_FOR_OPS(ELTWISE_CHAIN_OP, X, 2)         \
  ELTWISE_CHAIN_FOR_OPS(ELTWISE_CHAIN_OP, X, 3)         \
  ELTWISE_CHAIN_FOR_OPS(ELTWISE_CHAIN_OP, X, 4)         \
  ELTWISE_CHAIN_FOR_OPS(ELTWISE_CHAIN_OPERAND, X, 0)    \
  ELTWISE_CHAIN_FOR_OPS(ELTWISE_CHAIN_OPERAND, X, 1)    \
  ELTWISE_CHAIN_FOR_OPS(ELTWISE_CHAIN_OPERAND, X, 2)

// Runs the register program of storage TS (at most kDepth values pending;
// its cases from ChainCases) on K vectors of elements at a time from i while
// they end by `end`, handing each result vector (d's lanes) to store(vector,
// element index); returns the next i.
// Threaded code (GNU C's labels as values): each case is translated once per
// call to the address of its statements here, and each case's statements end
// by jumping to the next one's, so that an instruction costs one load and
// one indirect jump; the jump after each case is its own, predicted from
// that case (a program's cases repeat in the same order every K vectors).
// (Not inlined: GCC inlines no function with a computed goto.)
template <size_t K, size_t kDepth, typename TS, class D, class Store>
HWY_NOINLINE size_t ChainVectors(D d, const ChainCase* cases, size_t i, size_t end, Store store) {
  using T = hn::TFromD<D>;
  constexpr bool kF64 = std::is_same<T, double>::value;
  constexpr bool kHalf = kIsHalf<TS>;  // its own dtype only (ChainCastIsExact)
  using Source5 = std::conditional_t<kF64, int32_t, hwy::float16_t>;  // (SourceIndex)
  using Source6 = std::conditional_t<kF64, float, hwy::bfloat16_t>;
  const size_t N = hn::Lanes(d);
  if (i + K * N > end) return i;
  struct Threaded {
    const void* at;  // the case's statements
    const char* p;   // its operand
  };
  Threaded program[3 * kMaxChainSteps + 1];  // (ChainLoop's cases)
  for (size_t m = 0;; ++m) {
    program[m].p = cases[m].p;
    switch (cases[m].kind) {
#define ELTWISE_CHAIN_ADDRESS(CASE, LABEL, reachable, ...) \
  case CASE:                                               \
    program[m].at = &&LABEL;                               \
    break;
      ELTWISE_CHAIN_CASES(ELTWISE_CHAIN_ADDRESS)
#undef ELTWISE_CHAIN_ADDRESS
      case kEndCase:
        program[m].at = &&end_of_program;
        break;
      default:
        HWY_ASSUME(false);
    }
    if (cases[m].kind == kEndCase) break;
  }
  const Threaded* t;
  for (; i + K * N <= end; i += K * N) {
    // (A valid program loads every slot before reading it; zeroed here only
    // so that the compiler sees them set on every path, and none live from
    // one iteration to the next: zeroing idioms cost no execution unit.)
    Slot<D, K> s[kDepth];
    for (Slot<D, K>& slot : s) {
      HWY_UNROLL(8)
      for (size_t k = 0; k < K; ++k) slot.v[k] = hn::Zero(d);
    }
    t = program;
    goto* t->at;
#define ELTWISE_CHAIN_STATEMENTS(CASE, LABEL, reachable, ...) \
  LABEL:                                                      \
    if constexpr (reachable) {                                \
      __VA_ARGS__;                                            \
    } else {                                                  \
      HWY_ASSUME(false);                                      \
    }                                                         \
    ++t;                                                      \
    goto* t->at;
    ELTWISE_CHAIN_CASES(ELTWISE_CHAIN_STATEMENTS)
#undef ELTWISE_CHAIN_STATEMENTS
  end_of_program:
    HWY_UNROLL(8)
    for (size_t k = 0; k < K; ++k) store(s[0].v[k], i + k * N);
  }
  return i;
}
#undef ELTWISE_CHAIN_CASES
#undef ELTWISE_CHAIN_FOR_OPS
#undef ELTWISE_CHAIN_OPERAND
#undef ELTWISE_CHAIN_OP
#undef ELTWISE_CHAIN_LOADS
#undef ELTWISE_CHAIN_LOAD

// The most values the program has pending at once (MarkChain keeps it at
// most kMaxChainDepth).
inline size_t ChainDepth(const ChainInstr* code, size_t n_code) {
  size_t depth = 0, most = 0;
  for (size_t k = 0; k < n_code; ++k) {
    depth = code[k].op == kChainLoad ? depth + 1 : depth - 1;
    most = depth > most ? depth : most;
  }
  return most;
}

// Vectors per pending value: four, and for four values pending two where
// there are 16 registers (four values of four vectors and an operand's then
// stay in registers on AVX-512's 32, not on the other targets' 16). Each
// instruction costs a dispatch, so more vectors would mean fewer dispatches
// per element; but with threaded dispatch four vectors run as fast from L1,
// and faster from L3 and memory, than eight did, where each instruction's
// burst of eight lines of one array left the other arrays' streams idle
// (docs/benchmarks.md, "Fused chains").
constexpr size_t kWide = 4;
constexpr size_t kDeepWide = HWY_TARGET <= HWY_AVX3 ? 4 : 2;

// Runs the program (its cases from ChainCases; `depth`: ChainDepth) over
// elements [i, n) whole vectors at a time, kWide (up to three values
// pending) or kDeepWide of them per value while they fit, then one at a time.
template <typename TS, class D, class Store>
HWY_INLINE size_t ChainWholeVectors(D d, const ChainCase* cases, size_t depth, size_t i,
                                    size_t n, Store store) {
  if (depth <= 2) {
    i = ChainVectors<kWide, 2, TS>(d, cases, i, n, store);
  } else if (depth == 3) {
    i = ChainVectors<kWide, 3, TS>(d, cases, i, n, store);
  } else {
    i = ChainVectors<kDeepWide, kMaxChainDepth, TS>(d, cases, i, n, store);
  }
  return ChainVectors<1, kMaxChainDepth, TS>(d, cases, i, n, store);
}

// core/chain.h ChainKernel for storage TS (computed in Arith<TS>): whole
// vectors (all operands of an element loaded before its store, so out may be
// an operand exactly), then single elements (one-lane vectors: the same
// operations on the same values give the same bits). Under kHintStream,
// whole vectors from out's first vector-aligned element are stored
// non-temporally (fenced unless kHintNoFlush), as BinaryLoop does, and as
// there only where the storage lanes fill a whole vector (the same size as
// the compute lanes: Highway's Stream of a partial vector writes a whole one).
template <typename TS, DType kT>
void ChainLoop(const ChainInstr* code, size_t n_code, char* pout, size_t n, unsigned hints) {
  using T = Arith<TS>;
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const hn::Rebind<TS, decltype(d)> ds;
  const hn::Rebind<TS, decltype(d1)> ds1;
  const size_t N = hn::Lanes(d);
  TS* out = reinterpret_cast<TS*>(pout);
  ChainCase cases[3 * kMaxChainSteps + 1];  // two loads and an op per step at most; the end
  const size_t depth = ChainDepth(code, n_code);
  ChainCases(code, n_code, kT, cases);
  // (out by value: a store through it cannot change it, so it is not
  // reloaded after every store.)
  const auto store_u = [ds, d, out](hn::Vec<decltype(d)> v, size_t j) {
    hn::StoreU(NarrowTo<TS>(ds, d, v), ds, out + j);
  };
  const auto store_1 = [ds1, d1, out](hn::Vec<decltype(d1)> v, size_t j) {
    hn::StoreU(NarrowTo<TS>(ds1, d1, v), ds1, out + j);
  };
  size_t i = 0;
  constexpr bool kCanStream = sizeof(TS) == sizeof(T) && HWY_TARGET != HWY_SCALAR;
  if constexpr (kCanStream) {
    if ((hints & kHintStream) && n >= kWide * N &&
        reinterpret_cast<uintptr_t>(out) % sizeof(T) == 0) {
      const size_t misalign = reinterpret_cast<uintptr_t>(out) % (N * sizeof(T));
      const size_t head = misalign ? (N * sizeof(T) - misalign) / sizeof(T) : 0;
      i = ChainVectors<1, kMaxChainDepth, TS>(d1, cases, i, head, store_1);
      const auto stream = [d, out](hn::Vec<decltype(d)> v, size_t j) { hn::Stream(v, d, out + j); };
      i = ChainWholeVectors<TS>(d, cases, depth, i, n, stream);
      if (!(hints & kHintNoFlush)) hwy::FlushStream();
    }
  }
  // Plain stores: the first array operand's loads aligned by a head, for a
  // run long enough to repay it, as BinaryLoop aligns its first operand's (a
  // split load costs more than a split store; NumPy's arrays lie at any
  // 16-byte offset).
  if (i == 0 && n >= 64 * N) {
    for (size_t k = 0; k < n_code; ++k) {
      if (code[k].op != kChainLoad || code[k].one) continue;
      const size_t size = ItemSize(code[k].from), vbytes = N * size;
      const size_t misalign = reinterpret_cast<uintptr_t>(code[k].p) % vbytes;
      if (misalign != 0 && misalign % size == 0) {
        i = ChainVectors<1, kMaxChainDepth, TS>(d1, cases, i, (vbytes - misalign) / size, store_1);
      }
      break;
    }
  }
  i = ChainWholeVectors<TS>(d, cases, depth, i, n, store_u);
  ChainVectors<1, kMaxChainDepth, TS>(d1, cases, i, n, store_1);
}

// Fills the chain kernels for the current target.
// float16 and bfloat16 programs only where F16C converts float16 (AVX2 and
// up): elsewhere a float16 rounding is some 25 instructions (half-inl.h), so
// the register path would save little over the tiles' loops, while those
// targets' copies of the programs would multiply this file's compile time
// under the sanitizers. (MarkChain leaves a program whose dtype has no kernel
// here to the tiles.)
void FillChain(KernelTable& t) {
  t.chain[static_cast<int>(DType::kF32)] = &ChainLoop<float, DType::kF32>;
  t.chain[static_cast<int>(DType::kF64)] = &ChainLoop<double, DType::kF64>;
#if ELTWISE_F16C
  t.chain[static_cast<int>(DType::kF16)] = &ChainLoop<hwy::float16_t, DType::kF16>;
  t.chain[static_cast<int>(DType::kBF16)] = &ChainLoop<hwy::bfloat16_t, DType::kBF16>;
#endif
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
