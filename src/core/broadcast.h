// Broadcasting: the three modes (docs/semantics.md, "Broadcasting") resolved into one output shape and
// per-operand byte strides aligned to it (0 on broadcast axes). No Python here.
#ifndef ELTWISE_CORE_BROADCAST_H_
#define ELTWISE_CORE_BROADCAST_H_

#include <cstdint>
#include <string>

namespace eltwise {

constexpr int kMaxDims = 64;  // NumPy 2's NPY_MAXDIMS

// A shape with byte strides. After Broadcast, `origin` is the axis where the
// operand's own first axis lies (the axes before it, and any it lacked after,
// have size 1 and stride 0).
struct Layout {
  int ndim = 0;
  int origin = 0;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];
};

enum class BroadcastMode { kNone, kNumpy, kPdpd };

// Formats a shape as NumPy does: (2,3), (2,), ().
std::string FormatShape(const int64_t* shape, int ndim);

// Resolves `a` and `b` under `mode` into `out_shape`/`out_ndim` and rewrites
// their layouts to that rank with stride 0 on broadcast axes. On failure
// returns false and sets `error` to the message (`fn` names the function).
// Gives `l`, a layout Broadcast produced, the strides of another array of
// the operand's own shape (a converted copy, say): `strides` are that
// array's, one per own axis. Broadcast axes keep stride 0.
void Restride(Layout& l, const int64_t* strides);

bool Broadcast(BroadcastMode mode, int64_t axis, Layout& a, Layout& b,
               int64_t* out_shape, int* out_ndim, const char* fn, std::string* error);

}  // namespace eltwise

#endif  // ELTWISE_CORE_BROADCAST_H_
