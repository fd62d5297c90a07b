// Kernel: packing a strided run into a contiguous buffer, for the executor's
// strided fallback. Scalar loads stream through memory at a third of the
// bandwidth here; a stride of two elements (a[::2]) becomes two vector loads
// and a ConcatEven. (Hardware gathers were slower than scalar loads for
// other strides on this Zen 4, so those stay scalar.)

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

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace eltwise {
HWY_EXPORT(Pack);
void PackStrided(void* dst, const void* src, int64_t stride, size_t n, size_t size) {
  HWY_DYNAMIC_DISPATCH(Pack)(dst, src, stride, n, size);
}
}  // namespace eltwise
#endif
