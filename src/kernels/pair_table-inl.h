// One job: an op on the coded dtypes of at most 4 bits (int4, uint4, int2,
// uint2, float4_e2m1fn) by table lookup, on AVX3_DL (VBMI's byte permutes):
// the op's result and KernelFlags for each of the 256 pairs of codes, 64
// elements per lookup.
// Re-included once per Highway target (see the toggle guard below), like
// Highway's own -inl.h headers; include it after hwy/highway.h inside a
// HWY_TARGET_INCLUDE translation unit.

#if defined(ELTWISE_KERNELS_PAIR_TABLE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ELTWISE_KERNELS_PAIR_TABLE_INL_H_
#undef ELTWISE_KERNELS_PAIR_TABLE_INL_H_
#else
#define ELTWISE_KERNELS_PAIR_TABLE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "core/dtype.h"
#include "hwy/highway.h"
#include "kernels/lanes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

#if HWY_TARGET == HWY_AVX3_DL
// Whether an op on storage T with result storage O runs by PairTableLoop: T
// a coded dtype of at most 4 bits, O one byte (T or bool). Such an op's
// result on a pair of codes is a function of their low 4 bits alone: the
// decoders ignore a code's bits above its dtype's (coded-inl.h, DecodeFloat
// and DecodeInt), so 256 pairs cover every input.
template <typename T>
constexpr int CodeBitsOf() {
  if constexpr (kIsCoded<T>) {
    return Traits(CodedTraits<T>::kDType).format.bits;
  } else {
    return 0;
  }
}
template <typename T, typename O>
constexpr bool kPairTable = kIsCoded<T> && CodeBitsOf<T>() <= 4 && sizeof(Lane<O>) == 1;

// The results and flags of the 256 pairs, pair (a, b) at byte
// 16 * (a & 15) + (b & 15): result[0..3] hold bytes 0-63, 64-127, ...
struct PairTable {
  __m512i result[4];
  __m512i flags[4];
  bool any_flags;
};

// The table of the loop kGeneric (an op's BinaryLoop without this path) on
// storage T, built once per op and target on first use (thread-safe: a
// function-local static). kGeneric is of the kind the table serves, so a
// scalar kind's op sees each pair as its broadcast operand would be (an op
// may precompute from a scalar divisor). Each pair runs alone, n = 1, so its
// flags are its own; the result bytes are the loop's own, so a lookup gives
// exactly its bits.
template <BinaryKernel kGeneric, typename T>
const PairTable& PairTableOf() {
  static const PairTable table = [] {
    alignas(64) uint8_t result[256], flags[256];
    bool any = false;
    for (int k = 0; k < 256; ++k) {
      const uint8_t a = static_cast<uint8_t>(k >> 4), b = static_cast<uint8_t>(k & 15);
      const int f = kGeneric(&a, &b, &result[k], 1, 0);
      flags[k] = static_cast<uint8_t>(f);  // KernelFlags: bits below 8
      any = any || f != 0;
    }
    PairTable t;
    for (int j = 0; j < 4; ++j) {
      t.result[j] = _mm512_load_si512(result + 64 * j);
      t.flags[j] = _mm512_load_si512(flags + 64 * j);
    }
    t.any_flags = any;
    return t;
  }();
  return table;
}

// The bytes of table[16 * (a & 15) + (b & 15)] for 64 pairs: two 128-byte
// permutes (each reads the index's low 7 bits) and bit 7 choosing between
// them.
HWY_INLINE __m512i LookUpPairs(const __m512i table[4], __m512i index) {
  const __m512i low = _mm512_permutex2var_epi8(table[0], index, table[1]);
  const __m512i high = _mm512_permutex2var_epi8(table[2], index, table[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high);
}

// out[i] = table's result for (a[i], b[i]) over n elements (a[0] or b[0]
// broadcast for a scalar kind), returning the OR of the pairs' flags. Each
// block of 64 loads its operands before its store, so `out` may alias an
// input; a partial block (the last one, and with kHintStream the head before
// `out`'s first 64-byte boundary, so that the blocks after it stream) loads
// and stores under a mask, reading and writing no byte outside the n
// elements, and takes the flags of its own lanes only.
template <LoopKind kKind, bool kFlags>
HWY_INLINE int PairTableRun(const PairTable& t, const uint8_t* a, const uint8_t* b, uint8_t* out,
                            size_t n, unsigned hints) {
  const __m512i high_nibble = _mm512_set1_epi8(static_cast<char>(0xF0));
  // The broadcast operand of a scalar kind (the other is never read here).
  const __m512i sa = _mm512_set1_epi8(kKind == LoopKind::kScalarFirst ? static_cast<char>(a[0]) : 0);
  const __m512i sb =
      _mm512_set1_epi8(kKind == LoopKind::kScalarSecond ? static_cast<char>(b[0]) : 0);
  __m512i flags = _mm512_setzero_si512();
  // The index of each pair: a's low nibble moved up (a 16-bit shift; the
  // bits it carries across bytes land in the low nibble, which b fills).
  const auto index = [&](__m512i va, __m512i vb) {
    return _mm512_ternarylogic_epi32(_mm512_slli_epi16(va, 4), vb, high_nibble,
                                     0xE4);  // C ? A : B
  };
  // count < 64 elements from i, under a mask.
  const auto partial = [&](size_t i, size_t count) {
    const __mmask64 m = _cvtu64_mask64((~uint64_t{0}) >> (64 - count));
    const __m512i va = kKind == LoopKind::kScalarFirst ? sa : _mm512_maskz_loadu_epi8(m, a + i);
    const __m512i vb = kKind == LoopKind::kScalarSecond ? sb : _mm512_maskz_loadu_epi8(m, b + i);
    const __m512i idx = index(va, vb);
    if constexpr (kFlags) {
      flags = _mm512_mask_mov_epi8(flags, m, _mm512_or_si512(flags, LookUpPairs(t.flags, idx)));
    }
    _mm512_mask_storeu_epi8(out + i, m, LookUpPairs(t.result, idx));
  };
  // The 64 elements from i, stored by store(pointer, result).
  const auto block = [&](size_t i, auto store) {
    const __m512i va = kKind == LoopKind::kScalarFirst ? sa : _mm512_loadu_si512(a + i);
    const __m512i vb = kKind == LoopKind::kScalarSecond ? sb : _mm512_loadu_si512(b + i);
    const __m512i idx = index(va, vb);
    if constexpr (kFlags) flags = _mm512_or_si512(flags, LookUpPairs(t.flags, idx));
    store(out + i, LookUpPairs(t.result, idx));
  };
  size_t i = 0;
  if ((hints & kHintStream) && n >= 128) {
    const size_t head = (64 - reinterpret_cast<uintptr_t>(out) % 64) % 64;
    if (head) partial(0, head);
    for (i = head; i + 64 <= n; i += 64) {
      block(i, [](uint8_t* p, __m512i r) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), r); });
    }
    _mm_sfence();
  }
  for (; i + 64 <= n; i += 64) {
    block(i, [](uint8_t* p, __m512i r) { _mm512_storeu_si512(p, r); });
  }
  if (i < n) partial(i, n - i);
  if constexpr (!kFlags) return 0;
  const uint32_t f = static_cast<uint32_t>(_mm512_reduce_or_epi32(flags));
  return static_cast<int>((f | f >> 8 | f >> 16 | f >> 24) & 0xFF);
}

// The loop of PairTableRun for the table of kGeneric; n >= 1.
template <BinaryKernel kGeneric, typename T, LoopKind kKind>
HWY_INLINE int PairTableLoop(const void* a, const void* b, void* out, size_t n, unsigned hints) {
  const PairTable& t = PairTableOf<kGeneric, T>();
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  auto* po = static_cast<uint8_t*>(out);
  return t.any_flags ? PairTableRun<kKind, true>(t, pa, pb, po, n, hints)
                     : PairTableRun<kKind, false>(t, pa, pb, po, n, hints);
}
#endif  // HWY_TARGET == HWY_AVX3_DL

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#endif  // ELTWISE_KERNELS_PAIR_TABLE_INL_H_
