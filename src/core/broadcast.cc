#include "core/broadcast.h"

namespace eltwise {

std::string FormatShape(const int64_t* shape, int ndim) {
  std::string s = "(";
  for (int i = 0; i < ndim; ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  if (ndim == 1) s += ",";
  return s + ")";
}

namespace {

// Rewrites `l` to rank `ndim`, its dims placed at `offset`; new dims are 1.
// Touches only the first `ndim` entries: layouts are large (kMaxDims) and
// this runs on every call.
void Align(Layout& l, int ndim, int offset) {
  const int old = l.ndim;
  for (int i = old - 1; i >= 0; --i) {  // backwards: the move is to the right
    l.shape[offset + i] = l.shape[i];
    l.strides[offset + i] = l.strides[i];
  }
  for (int i = 0; i < offset; ++i) l.shape[i] = 1, l.strides[i] = 0;
  for (int i = offset + old; i < ndim; ++i) l.shape[i] = 1, l.strides[i] = 0;
  l.ndim = ndim;
  l.origin = offset;
}

bool NumpyBroadcast(Layout& a, Layout& b, int64_t* out, int* out_ndim) {
  if (a.ndim == b.ndim) {  // the usual call: equal shapes, nothing to align
    bool same = true;
    for (int i = 0; same && i < a.ndim; ++i) same = a.shape[i] == b.shape[i];
    if (same) {
      for (int i = 0; i < a.ndim; ++i) {
        out[i] = a.shape[i];
        if (out[i] == 1) a.strides[i] = b.strides[i] = 0;
      }
      *out_ndim = a.ndim;
      return true;
    }
  }
  const int nd = a.ndim > b.ndim ? a.ndim : b.ndim;
  for (int i = 0; i < nd; ++i) {  // check before changing anything
    const int ia = i - (nd - a.ndim), ib = i - (nd - b.ndim);
    const int64_t x = ia >= 0 ? a.shape[ia] : 1, y = ib >= 0 ? b.shape[ib] : 1;
    if (x != y && x != 1 && y != 1) return false;
  }
  Align(a, nd, nd - a.ndim);
  Align(b, nd, nd - b.ndim);
  for (int i = 0; i < nd; ++i) {
    const int64_t x = a.shape[i], y = b.shape[i];
    out[i] = x == 1 ? y : x;
    if (x == 1) a.strides[i] = 0;
    if (y == 1) b.strides[i] = 0;
  }
  *out_ndim = nd;
  return true;
}

// OpenVINO/PaddlePaddle: b is broadcast onto a at `axis`; docs/semantics.md: "Broadcasting".
bool PdpdBroadcast(int64_t axis, Layout& a, Layout& b, int64_t* out, int* out_ndim) {
  if (b.ndim > a.ndim) return false;
  if (axis == -1) axis = a.ndim - b.ndim;  // before trailing 1s are dropped
  if (axis < 0) return false;
  int bnd = b.ndim;
  while (bnd > 0 && b.shape[bnd - 1] == 1) --bnd;
  if (axis > a.ndim - bnd) return false;  // not axis + bnd: axis may be near INT64_MAX
  for (int i = 0; i < bnd; ++i) {
    if (b.shape[i] != a.shape[axis + i] && b.shape[i] != 1) return false;
  }
  b.ndim = bnd;
  Align(b, a.ndim, static_cast<int>(axis));
  for (int i = 0; i < a.ndim; ++i) {
    if (b.shape[i] == 1) b.strides[i] = 0;
    out[i] = a.shape[i];
  }
  *out_ndim = a.ndim;
  return true;
}

// True when the product of the dims fits in int64 (NumPy's limit on sizes).
bool SizeFits(const int64_t* shape, int ndim) {
  int64_t size = 1;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 0) return true;
    if (__builtin_mul_overflow(size, shape[i], &size)) return false;
  }
  return true;
}

}  // namespace

void Restride(Layout& l, const int64_t* strides) {
  // Every axis of size 1 has stride 0 after Broadcast, and every other axis
  // is one of the operand's own, at origin + its index.
  for (int i = 0; i < l.ndim; ++i) l.strides[i] = l.shape[i] == 1 ? 0 : strides[i - l.origin];
}

bool Broadcast(BroadcastMode mode, int64_t axis, Layout& a, Layout& b,
               int64_t* out_shape, int* out_ndim, const char* fn, std::string* error) {
  // Failures leave a and b as given, so the messages show the input shapes.
  const auto sa = [&] { return FormatShape(a.shape, a.ndim); };
  const auto sb = [&] { return FormatShape(b.shape, b.ndim); };
  switch (mode) {
    case BroadcastMode::kNumpy:
      if (NumpyBroadcast(a, b, out_shape, out_ndim)) {
        if (SizeFits(out_shape, *out_ndim)) return true;
        *error = std::string("eltwise.") + fn + ": the result of shape " +
                 FormatShape(out_shape, *out_ndim) + " has more elements than an array can hold";
        return false;
      }
      // NumPy's own words, so one `match=` serves both libraries.
      *error = "operands could not be broadcast together with shapes " + sa() + " " + sb() + " ";
      return false;
    case BroadcastMode::kNone: {
      bool same = a.ndim == b.ndim;
      for (int i = 0; same && i < a.ndim; ++i) same = a.shape[i] == b.shape[i];
      if (same) {
        *out_ndim = a.ndim;
        for (int i = 0; i < a.ndim; ++i) out_shape[i] = a.shape[i];
        return true;
      }
      *error = std::string("eltwise.") + fn + ": broadcast='none' needs identical shapes, got " +
               sa() + " and " + sb();
      return false;
    }
    case BroadcastMode::kPdpd:
      if (PdpdBroadcast(axis, a, b, out_shape, out_ndim)) return true;
      *error = std::string("eltwise.") + fn + ": cannot broadcast x2 of shape " + sb() +
               " onto x1 of shape " + sa() + " with broadcast='pdpd', axis=" + std::to_string(axis);
      return false;
  }
  return false;
}

}  // namespace eltwise
