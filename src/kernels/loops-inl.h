// One job: the two inner loops every op runs in, the contiguous one
// (BinaryLoop: both operands contiguous, or one of them a broadcast scalar)
// and the strided one (StridedLoop, with LoadLanes).
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_LOOPS_INL_H_
#undef ELTWISE_KERNELS_LOOPS_INL_H_
#else
#define ELTWISE_KERNELS_LOOPS_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/bool-inl.h"
#include "kernels/lanes-inl.h"
#include "kernels/pair_table-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The inner loop: out[i] = op(a[i], b[i]) over n elements of storage type T,
// result storage O. Op is a small functor:
//   template <typename T> using Compute = ...;   // lane type it computes in
//                                                // (OpBase: Arith<T>)
//   auto operator()(D d, Vec<D> a, Vec<D> b)      // a vector or a mask
//   int flags() const;                           // KernelFlags it met
// and the traits of register-inl.h's OpBase (kMemoryBound: four vectors a
// step; kHasSteps: the op's own Steps for kStepVectors vectors a step).
// A tail of n >= N elements is the last whole vector again when the caller
// says the inputs are settled (kHintSettledInputs) and `out` shares no byte
// with an array operand: recomputing lanes already done stores the same
// bits, and costs less than the padded vector. Other partial
// vectors (the tail of an in-place call, of n < N or of a buffer the caller
// just filled, and the head before an aligned streaming store) go through
// one padded vector, never re-reading or re-writing elements already done,
// so `out` may alias an input. (A row just transposed byte by byte, RunGroups,
// read as one vector fails a store forward, which the recomputed tail would
// hit on every row.) kHintStream asks for non-temporal stores
// (outputs larger than the cache), honoured where the result fills whole
// vectors.

#if HWY_TARGET == HWY_AVX3_DL
// A coded float op (coded-inl.h, kCodeBlocks) whose result is its dtype or
// bool, in blocks of 64 elements through DecodeBlock64 and EncodeBlock64 (or
// BoolBlock64), the last one through padded buffers. The op runs on the same
// float32 lanes as in BinaryLoop's vectors. vs is the broadcast operand of a
// scalar loop kind. Returns the elements done: n, or 0 where this does not
// apply. Each block loads all its operands before its store, so `out` may
// alias an input.
template <typename T, typename O, LoopKind kKind, class Op, class DC>
HWY_INLINE size_t CodeBlocks(Op& op, DC dc, hn::Vec<DC> vs, const Lane<T>* a, const Lane<T>* b,
                             Lane<O>* out, size_t n) {
  if constexpr (CodedTraits<T>::kFloat && std::is_same<hn::TFromD<DC>, float>::value &&
                hn::MaxLanes(DC()) == 16) {
    constexpr DType kId = CodedTraits<T>::kDType;
    using R = decltype(op(dc, vs, vs));
    constexpr bool kMask = std::is_same<R, hn::Mask<DC>>::value;
    if constexpr (kCodeBlocks<kId> &&
                  (kMask ? std::is_same<O, uint8_t>::value : std::is_same<O, T>::value)) {
      const CodeTables& tables = TablesFor<kId>();
      const auto block = [&](const Lane<T>* pa, const Lane<T>* pb, Lane<O>* po) {
        hn::Vec512<float> va[4], vb[4];
        if (kKind == LoopKind::kScalarFirst) {
          va[0] = va[1] = va[2] = va[3] = vs;
        } else {
          DecodeBlock64<kId>(tables, _mm512_loadu_si512(pa), va);
        }
        if (kKind == LoopKind::kScalarSecond) {
          vb[0] = vb[1] = vb[2] = vb[3] = vs;
        } else {
          DecodeBlock64<kId>(tables, _mm512_loadu_si512(pb), vb);
        }
        R r[4] = {op(dc, va[0], vb[0]), op(dc, va[1], vb[1]), op(dc, va[2], vb[2]),
                  op(dc, va[3], vb[3])};
        if constexpr (kMask) {
          _mm512_storeu_si512(po, BoolBlock64(r));
        } else {
          _mm512_storeu_si512(po, EncodeBlock64<kId>(r));
        }
      };
      size_t i = 0;
      for (; i + 64 <= n; i += 64) block(a + i, b + i, out + i);
      if (i < n) {
        alignas(64) Lane<T> ta[64], tb[64];
        alignas(64) Lane<O> to[64];
        for (size_t j = 0; j < 64; ++j) ta[j] = tb[j] = OneOf<T>();
        if (kKind != LoopKind::kScalarFirst) memcpy(ta, a + i, n - i);
        if (kKind != LoopKind::kScalarSecond) memcpy(tb, b + i, n - i);
        block(ta, tb, to);
        memcpy(out + i, to, n - i);
      }
      return n;
    }
  }
  (void)op, (void)dc, (void)vs, (void)a, (void)b, (void)out, (void)n;
  return 0;
}
#endif

// kPairTables: whether a coded dtype of at most 4 bits runs by table lookup
// on AVX3_DL (pair_table-inl.h); the table is built from this loop, of the
// same kind (an op may serve one kind only: a scalar divisor's), without it.
template <class Op, typename T, typename O, LoopKind kKind, bool kPairTables = true>
int BinaryLoop(const void* HWY_RESTRICT pa, const void* HWY_RESTRICT pb,
               void* HWY_RESTRICT po, size_t n, unsigned hints) {
#if HWY_TARGET == HWY_AVX3_DL
  if constexpr (kPairTables && kPairTable<T, O>) {
    return PairTableLoop<&BinaryLoop<Op, T, O, kKind, false>, T, kKind>(
        pa, pb, po, n, hints);
  }
#endif
  using C = typename Op::template Compute<T>;
  using TL = Lane<T>;  // storage lanes (a coded dtype's codes)
  using OL = Lane<O>;
  const hn::ScalableTag<C> dc;
  const hn::Rebind<TL, decltype(dc)> ds;
  const hn::Rebind<OL, decltype(dc)> dout;
  const size_t N = hn::Lanes(dc);
  constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(C);
  const TL* a = static_cast<const TL*>(pa);
  const TL* b = static_cast<const TL*>(pb);
  OL* out = static_cast<OL*>(po);
  Op op;

  // The broadcast operand of a scalar loop kind, read once. (Set, not a
  // filled buffer: its lanes' stores and the vector load after them defeated
  // store forwarding, a stall on every call.)
  const TL s = kKind == LoopKind::kScalarFirst    ? a[0]
              : kKind == LoopKind::kScalarSecond ? b[0]
                                                 : OneOf<T>();
  const auto vs = WidenFrom<T>(dc, SplatStorage(ds, s));
  // In the compute type: a half-precision scalar arrives widened to float.
  if constexpr (kKind == LoopKind::kScalarSecond) op.PrepareScalarSecond(hn::GetLane(vs));

  // The result lanes for one vector of each operand, read from pa and pb
  // (the broadcast operand of a scalar kind is vs instead).
  const auto result_at = [&](const TL* pa_i, const TL* pb_i) {
    const auto va = kKind == LoopKind::kScalarFirst ? vs : WidenFrom<T>(dc, hn::LoadU(ds, pa_i));
    const auto vb = kKind == LoopKind::kScalarSecond ? vs : WidenFrom<T>(dc, hn::LoadU(ds, pb_i));
    return ResultLanes<O>(dout, dc, op(dc, va, vb));
  };

  // Stores the result lanes of the N elements from i with store(r, out + i).
  const auto one_vector_at = [&](size_t i, auto store) { store(result_at(a + i, b + i), out + i); };

  // Computes `count` < N elements from i, never reading or writing past them:
  // masked loads and stores on AVX-512, padded buffers elsewhere.
  const auto partial = [&](size_t i, size_t count) {
#if HWY_TARGET <= HWY_AVX3
    // AVX-512's masked loads and stores touch only the first `count` lanes
    // (the others neither read nor fault); the others hold OneOf, as the
    // padded buffers below do, so that they raise no flag.
    // Half types go by their bits (unsigned lanes of the same size).
    const hn::RebindToUnsigned<decltype(ds)> dsu;
    const hn::RebindToUnsigned<decltype(dout)> doutu;
    using SU = hn::TFromD<decltype(dsu)>;
    using OU = hn::TFromD<decltype(doutu)>;
    const auto m = hn::FirstN(dsu, count);
    const auto fill = hn::BitCast(dsu, SplatStorage(ds, OneOf<T>()));
    const auto load = [&](const TL* p) {
      const auto bits = hn::MaskedLoad(m, dsu, reinterpret_cast<const SU*>(p));
      return WidenFrom<T>(dc, hn::BitCast(ds, hn::IfThenElse(m, bits, fill)));
    };
    const auto va = kKind == LoopKind::kScalarFirst ? vs : load(a + i);
    const auto vb = kKind == LoopKind::kScalarSecond ? vs : load(b + i);
    hn::BlendedStore(hn::BitCast(doutu, ResultLanes<O>(dout, dc, op(dc, va, vb))),
                     hn::FirstN(doutu, count), doutu, reinterpret_cast<OU*>(out + i));
#else
    HWY_ALIGN TL ta[kMaxLanes];
    HWY_ALIGN TL tb[kMaxLanes];
    HWY_ALIGN OL to[kMaxLanes];
    for (size_t j = 0; j < kMaxLanes; ++j) ta[j] = tb[j] = OneOf<T>();
    if (kKind != LoopKind::kScalarFirst) memcpy(ta, a + i, count * sizeof(TL));
    if (kKind != LoopKind::kScalarSecond) memcpy(tb, b + i, count * sizeof(TL));
    hn::StoreU(result_at(ta, tb), dout, to);
    memcpy(out + i, to, count * sizeof(OL));
#endif
  };

  // Memory-bound ops compute four vectors from i, all loaded before any is
  // stored, so that past L2 four vectors' loads are in flight at once (one
  // vector per iteration is slower there).
  const auto four_at = [&](size_t i, auto store) {
    const auto r0 = result_at(a + i, b + i);
    const auto r1 = result_at(a + i + N, b + i + N);
    const auto r2 = result_at(a + i + 2 * N, b + i + 2 * N);
    const auto r3 = result_at(a + i + 3 * N, b + i + 3 * N);
    store(r0, out + i);
    store(r1, out + i + N);
    store(r2, out + i + 2 * N);
    store(r3, out + i + 3 * N);
  };

  // An op with Steps computes K vectors a step together, all loaded before
  // any is stored.
  constexpr size_t K = Op::template kStepVectors<C>;
  const auto steps_at = [&](size_t i, auto store) {
    hn::Vec<decltype(dc)> va[K], vb[K], r[K];
    for (size_t k = 0; k < K; ++k) {
      va[k] = kKind == LoopKind::kScalarFirst ? vs : WidenFrom<T>(dc, hn::LoadU(ds, a + i + k * N));
      vb[k] = kKind == LoopKind::kScalarSecond ? vs : WidenFrom<T>(dc, hn::LoadU(ds, b + i + k * N));
    }
    op.template Steps<K>(dc, va, vb, r);
    for (size_t k = 0; k < K; ++k) store(ResultLanes<O>(dout, dc, r[k]), out + i + k * N);
  };

  size_t i = 0;
#if HWY_TARGET == HWY_AVX3_DL
  i = CodeBlocks<T, O, kKind>(op, dc, vs, a, b, out, n);
#endif
  constexpr bool kCanStream = sizeof(O) == sizeof(C) && HWY_TARGET != HWY_SCALAR;
  if (kCanStream && (hints & kHintStream) && n >= 4 * N) {
    const size_t vbytes = N * sizeof(O);
    const size_t misalign = reinterpret_cast<uintptr_t>(out) % vbytes;
    if (misalign % sizeof(O) == 0) {
      const size_t head = misalign ? (vbytes - misalign) / sizeof(O) : 0;
      if (head) partial(0, head);
      i = head;
      const auto stream_to = [&](auto r, OL* p) { hn::Stream(r, dout, p); };
      if constexpr (kCanStream && Op::kHasSteps) {
        for (; i + K * N <= n; i += K * N) steps_at(i, stream_to);
      } else if constexpr (kCanStream && Op::kMemoryBound) {
        for (; i + 4 * N <= n; i += 4 * N) four_at(i, stream_to);
      }
      for (; i + N <= n; i += N) {
        if constexpr (kCanStream) one_vector_at(i, stream_to);
      }
      if (!(hints & kHintNoFlush)) hwy::FlushStream();
    }
  }
#if HWY_TARGET == HWY_AVX2
  // Comparisons of 32- and 64-bit lanes: 32 results per store.
  using R = decltype(op(dc, vs, vs));
  if constexpr (sizeof(O) == 1 && sizeof(C) >= 4 && std::is_same<R, hn::Mask<decltype(dc)>>::value) {
    const auto mask_at = [&](size_t j) {
      const auto va = kKind == LoopKind::kScalarFirst ? vs : WidenFrom<T>(dc, hn::LoadU(ds, a + j));
      const auto vb = kKind == LoopKind::kScalarSecond ? vs : WidenFrom<T>(dc, hn::LoadU(ds, b + j));
      return op(dc, va, vb);
    };
    const auto lanes32 = [&](size_t j) {  // results j .. j + 7 as 32-bit lanes
      if constexpr (sizeof(C) == 4) return MaskLanes(dc, mask_at(j));
      else return MaskLanes64(dc, mask_at(j), mask_at(j + 4));
    };
    for (; i + 32 <= n; i += 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                          PackBoolBytes(lanes32(i), lanes32(i + 8), lanes32(i + 16), lanes32(i + 24)));
    }
  }
#endif
  // Plain stores: a head (fewer than N elements) that aligns the streams
  // whose splits cost most, for a run long enough to repay it. NumPy's arrays
  // lie at any 16-byte offset, so a loop's operands and result often lie at
  // different offsets in a cache line, and a vector load or store that
  // straddles two lines costs more than one within a line. Each head aligns
  // the streams at its offset and leaves the others split; a split stream of
  // v-byte vectors weighs 2v if it is an operand's, v if it is the result's,
  // 5v with kHintSplitStoresCostly (there one split store cost more than two
  // split loads). The head of least weight wins, ties to the first operand's
  // (measured on two CPUs: docs/benchmarks.md, "Bandwidth and fresh
  // results"). The head only moves where vectors start: same results.
  if (n - i >= 64 * N) {
    const TL* first = kKind == LoopKind::kScalarFirst ? b : a;
    const TL* second = kKind == LoopKind::kContiguous ? b : nullptr;
    // Elements from i to the next whole vector of p's lanes (SIZE_MAX: never,
    // p is not aligned to its element size).
    const auto head_for = [&](const void* p, size_t size) -> size_t {
      const size_t m = (reinterpret_cast<uintptr_t>(p) + i * size) % (N * size);
      return m % size ? SIZE_MAX : m ? (N * size - m) / size : 0;
    };
    const size_t h_first = head_for(first, sizeof(TL));
    const size_t h_second = second ? head_for(second, sizeof(TL)) : SIZE_MAX;
    const size_t h_out = head_for(out, sizeof(OL));
    const size_t load_cost = 2 * N * sizeof(TL);
    const size_t store_cost = ((hints & kHintSplitStoresCostly) ? 5 : 1) * N * sizeof(OL);
    const auto cost = [&](size_t h) {
      return load_cost * ((h_first != h) + (second && h_second != h)) + store_cost * (h_out != h);
    };
    size_t best = h_first == SIZE_MAX ? 0 : h_first, best_cost = cost(best);
    for (const size_t h : {h_second, h_out}) {
      if (h != SIZE_MAX && cost(h) < best_cost) best = h, best_cost = cost(h);
    }
    if (best) {
      partial(i, best);
      i += best;
    }
  }
  const auto store_to = [&](auto r, OL* p) { hn::StoreU(r, dout, p); };
  if constexpr (Op::kHasSteps) {
    for (; i + K * N <= n; i += K * N) steps_at(i, store_to);
  } else if constexpr (Op::kMemoryBound) {
    for (; i + 4 * N <= n; i += 4 * N) four_at(i, store_to);
  }
  for (; i + N <= n; i += N) one_vector_at(i, store_to);
  if (i < n) {
    // Byte ranges: out against each operand that is an array.
    const auto apart = [&](const TL* p) {
      const uintptr_t o0 = reinterpret_cast<uintptr_t>(out), p0 = reinterpret_cast<uintptr_t>(p);
      return o0 + n * sizeof(OL) <= p0 || p0 + n * sizeof(TL) <= o0;
    };
    if (n >= N && (hints & kHintSettledInputs) && (kKind == LoopKind::kScalarFirst || apart(a)) &&
        (kKind == LoopKind::kScalarSecond || apart(b))) {
      one_vector_at(n - N, store_to);
    } else {
      partial(i, n - i);
    }
  }
  return op.flags();
}

// The strided loop: out[i] = op(a[i * sa], b[i * sb]) over n elements, byte
// strides (0: one element broadcast), out contiguous. For ops that run at
// memory speed: loading strided lanes where they lie keeps both operands'
// and the result's memory streams in flight together, where packing a block
// of one operand, then of the other, then computing walks one stream at a
// time.

// N lanes of storage T, `stride` bytes apart from p (any alignment).
template <class DS>
HWY_INLINE hn::Vec<DS> LoadLanes(DS ds, const char* p, int64_t stride) {
  using T = hn::TFromD<DS>;
  HWY_ALIGN T lanes[HWY_MAX_BYTES / sizeof(T)];
  const size_t n = hn::Lanes(ds);
  for (size_t j = 0; j < n; ++j) memcpy(&lanes[j], p + static_cast<int64_t>(j) * stride, sizeof(T));
  return hn::Load(ds, lanes);
}

template <class Op, typename T, typename O>
int StridedLoop(const void* pa, int64_t sa, const void* pb, int64_t sb, void* po, size_t n) {
  using C = typename Op::template Compute<T>;
  using TL = Lane<T>;  // storage lanes (a coded dtype's codes)
  using OL = Lane<O>;
  const hn::ScalableTag<C> dc;
  const hn::Rebind<TL, decltype(dc)> ds;
  const hn::Rebind<OL, decltype(dc)> dout;
  const size_t N = hn::Lanes(dc);
  constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(C);
  constexpr int64_t kSize = sizeof(TL);
  const char* a = static_cast<const char*>(pa);
  const char* b = static_cast<const char*>(pb);
  OL* out = static_cast<OL*>(po);
  Op op;

  // How an operand's lanes load. Every other element (a[::2]): two vector
  // loads and the even lanes, where storage is the compute type.
  enum Way { kBroadcast, kDense, kEveryOther, kOneByOne };
  constexpr bool kPairs = std::is_same<C, T>::value && HWY_TARGET != HWY_SCALAR;
  const auto way_of = [&](int64_t s) {
    return s == 0 ? kBroadcast : s == kSize ? kDense : kPairs && s == 2 * kSize ? kEveryOther : kOneByOne;
  };
  const Way way_a = way_of(sa), way_b = way_of(sb);
  const auto va0 = WidenFrom<T>(dc, LoadLanes(ds, a, 0));
  const auto vb0 = WidenFrom<T>(dc, LoadLanes(ds, b, 0));
  // Lanes i .. i + N - 1. kEveryOther reads up to the element before i + N,
  // so the loop below keeps i + N < n.
  const auto load = [&](Way way, const char* p, int64_t s, size_t i, hn::Vec<decltype(dc)> v0) {
    const char* at = p + static_cast<int64_t>(i) * s;
    if (way == kBroadcast) return v0;
    if (way == kDense) return WidenFrom<T>(dc, hn::LoadU(ds, reinterpret_cast<const TL*>(at)));
#if HWY_TARGET != HWY_SCALAR
    if constexpr (kPairs) {
      if (way == kEveryOther) {
        const hn::RebindToUnsigned<decltype(ds)> du;
        const auto* q = reinterpret_cast<const hn::TFromD<decltype(du)>*>(at);
        return hn::BitCast(ds, hn::ConcatEven(du, hn::LoadU(du, q + N), hn::LoadU(du, q)));
      }
    }
#endif
    return WidenFrom<T>(dc, LoadLanes(ds, at, s));
  };

  size_t i = 0;
  for (; i + N < n; i += N) {
    const auto r = op(dc, load(way_a, a, sa, i, va0), load(way_b, b, sb, i, vb0));
    hn::StoreU(ResultLanes<O>(dout, dc, r), dout, out + i);
  }
  // The last 1 .. N elements, through padded lanes.
  HWY_ALIGN TL ta[kMaxLanes];
  HWY_ALIGN TL tb[kMaxLanes];
  HWY_ALIGN OL to[kMaxLanes];
  for (size_t j = 0; j < kMaxLanes; ++j) ta[j] = tb[j] = OneOf<T>();
  const size_t count = n - i;
  for (size_t j = 0; j < count; ++j) {
    memcpy(&ta[j], a + static_cast<int64_t>(i + j) * sa, sizeof(TL));
    memcpy(&tb[j], b + static_cast<int64_t>(i + j) * sb, sizeof(TL));
  }
  const auto r = op(dc, WidenFrom<T>(dc, hn::Load(ds, ta)), WidenFrom<T>(dc, hn::Load(ds, tb)));
  hn::Store(ResultLanes<O>(dout, dc, r), dout, to);
  memcpy(out + i, to, count * sizeof(OL));
  return op.flags();
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_LOOPS_INL_H_
