// Kernels: packing a strided run into a contiguous buffer, for the executor's
// strided fallback, and transposing a block of narrow lanes, for its row
// groups. A stride of two elements (a[::2]) becomes two vector loads and a
// ConcatEven; other strides load lane by lane (hardware gathers measured
// slower than scalar loads for them).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gather.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>

#include "hwy/highway.h"
#include "kernels/table.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
void PackT(T* HWY_RESTRICT dst, const char* HWY_RESTRICT src, int64_t stride, size_t n) {
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const T* s = reinterpret_cast<const T*>(src);
  if (stride == static_cast<int64_t>(2 * sizeof(T)) &&
      reinterpret_cast<uintptr_t>(src) % sizeof(T) == 0) {
    // Reads s[2i .. 2i + 2N - 1]; i + N < n keeps that within s[2(n-1)].
    for (; i + N < n; i += N) {
      const auto lo = hn::LoadU(d, s + 2 * i);
      const auto hi = hn::LoadU(d, s + 2 * i + N);
      hn::StoreU(hn::ConcatEven(d, hi, lo), d, dst + i);
    }
  }
#endif
  for (; i < n; ++i) memcpy(dst + i, src + static_cast<int64_t>(i) * stride, sizeof(T));
}

// dst[r * m + j] = src[j * inner + r * outer] (byte strides) for r < rows,
// j < m. Where a column's elements lie side by side (outer == sizeof(T), or
// -sizeof(T): a tile loads from its last row and stores its rows in
// reverse), L x L tiles of 16 bytes transpose in registers: log2(L) rounds that
// interleave tile rows i and i + L/2, each of which rotates the bits of an
// element's (row, column) index left by one, so that after log2(L) rounds
// row and column have swapped. (Byte by byte, the transpose cost many times
// the op it feeds.)
template <typename T>
void TransposeT(T* HWY_RESTRICT dst, const char* HWY_RESTRICT src, int64_t inner, int64_t outer,
                int64_t rows, int64_t m) {
  const auto at = [&](int64_t j, int64_t r) { return src + j * inner + r * outer; };
  int64_t r0 = 0;
#if HWY_TARGET != HWY_SCALAR
  constexpr int64_t kSize = sizeof(T);
  if (outer == kSize || outer == -kSize) {
    const bool backward = outer < 0;
#if HWY_TARGET <= HWY_AVX2
    if constexpr (sizeof(T) == 8) {
      // 8-byte lanes: 4 x 4 tiles of 32 bytes, where 16-byte tiles are 2 x 2
      // and read each line in four passes for a group of eight rows. Two
      // rounds: tile rows interleave in pairs within their 16-byte halves,
      // then the halves join.
      const hn::Full256<T> d4;
      for (; r0 + 4 <= rows; r0 += 4) {
        const int64_t low = backward ? r0 + 3 : r0;
        int64_t j0 = 0;
        for (; j0 + 4 <= m; j0 += 4) {
          const auto load = [&](int64_t i) {
            return hn::LoadU(d4, reinterpret_cast<const T*>(at(j0 + i, low)));
          };
          const auto x0 = load(0), x1 = load(1), x2 = load(2), x3 = load(3);
          const auto t0 = hn::InterleaveLower(d4, x0, x1);  // x0[0] x1[0] x0[2] x1[2]
          const auto t1 = hn::InterleaveUpper(d4, x0, x1);  // x0[1] x1[1] x0[3] x1[3]
          const auto t2 = hn::InterleaveLower(d4, x2, x3);
          const auto t3 = hn::InterleaveUpper(d4, x2, x3);
          const auto row = [&](int64_t i) { return dst + (backward ? low - i : low + i) * m + j0; };
          hn::StoreU(hn::ConcatLowerLower(d4, t2, t0), d4, row(0));
          hn::StoreU(hn::ConcatLowerLower(d4, t3, t1), d4, row(1));
          hn::StoreU(hn::ConcatUpperUpper(d4, t2, t0), d4, row(2));
          hn::StoreU(hn::ConcatUpperUpper(d4, t3, t1), d4, row(3));
        }
        for (int64_t j = j0; j < m; ++j) {
          for (int64_t r = r0; r < r0 + 4; ++r) memcpy(&dst[r * m + j], at(j, r), sizeof(T));
        }
      }
    }
#endif
    const hn::Full128<T> d;
    using V = hn::Vec<decltype(d)>;
    constexpr int64_t L = 16 / sizeof(T);
    for (; r0 + L <= rows; r0 += L) {
      const int64_t low = backward ? r0 + L - 1 : r0;  // the row at the lowest address
      int64_t j0 = 0;
      for (; j0 + L <= m; j0 += L) {
        // x[i][c] = element (j0 + i, row c from low); at the end (j0 + c, row i from low)
        V x[L];
        for (int64_t i = 0; i < L; ++i) x[i] = hn::LoadU(d, reinterpret_cast<const T*>(at(j0 + i, low)));
        for (int64_t round = L; round > 1; round /= 2) {
          V y[L];
          for (int64_t i = 0; i < L / 2; ++i) {
            y[2 * i] = hn::InterleaveLower(d, x[i], x[i + L / 2]);
            y[2 * i + 1] = hn::InterleaveUpper(d, x[i], x[i + L / 2]);
          }
          for (int64_t i = 0; i < L; ++i) x[i] = y[i];
        }
        for (int64_t i = 0; i < L; ++i) {
          hn::StoreU(x[i], d, dst + (backward ? low - i : low + i) * m + j0);
        }
      }
      for (int64_t j = j0; j < m; ++j) {
        for (int64_t r = r0; r < r0 + L; ++r) memcpy(&dst[r * m + j], at(j, r), sizeof(T));
      }
    }
  }
#endif
  for (int64_t j = 0; j < m; ++j) {
    for (int64_t r = r0; r < rows; ++r) memcpy(&dst[r * m + j], at(j, r), sizeof(T));
  }
}

void Transpose(void* dst, const void* src, int64_t inner, int64_t outer, int64_t rows, int64_t m,
               size_t size) {
  const char* s = static_cast<const char*>(src);
  switch (size) {
    case 1: return TransposeT(static_cast<uint8_t*>(dst), s, inner, outer, rows, m);
    case 2: return TransposeT(static_cast<uint16_t*>(dst), s, inner, outer, rows, m);
    case 4: return TransposeT(static_cast<uint32_t*>(dst), s, inner, outer, rows, m);
    default: return TransposeT(static_cast<uint64_t*>(dst), s, inner, outer, rows, m);
  }
}

// Packs n elements of `size` bytes, `stride` bytes apart, into dst.
void Pack(void* dst, const void* src, int64_t stride, size_t n, size_t size) {
  const char* s = static_cast<const char*>(src);
  switch (size) {
    case 1: return PackT(static_cast<uint8_t*>(dst), s, stride, n);
    case 2: return PackT(static_cast<uint16_t*>(dst), s, stride, n);
    case 4: return PackT(static_cast<uint32_t*>(dst), s, stride, n);
    default: return PackT(static_cast<uint64_t*>(dst), s, stride, n);
  }
}

// Fills the gather kernels of the current target.
void FillGather(KernelTable& t) {
  t.pack_strided = &Pack;
  t.transpose_block = &Transpose;
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(FillGather);
void FillGatherKernels(KernelTable& t) { HWY_DYNAMIC_DISPATCH(FillGather)(t); }
}  // namespace eltwise
#endif
