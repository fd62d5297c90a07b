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
void Align(Layout& l, int ndim, int offset) {
  Layout r;
  r.ndim = ndim;
  for (int i = 0; i < ndim; ++i) {
    r.shape[i] = 1;
    r.strides[i] = 0;
  }
  for (int i = 0; i < l.ndim; ++i) {
    r.shape[offset + i] = l.shape[i];
    r.strides[offset + i] = l.strides[i];
  }
  l = r;
}

bool NumpyBroadcast(Layout& a, Layout& b, int64_t* out, int* out_ndim) {
  const int nd = a.ndim > b.ndim ? a.ndim : b.ndim;
  Layout a2 = a, b2 = b;
  Align(a2, nd, nd - a.ndim);
  Align(b2, nd, nd - b.ndim);
  for (int i = 0; i < nd; ++i) {
    const int64_t x = a2.shape[i], y = b2.shape[i];
    if (x != y && x != 1 && y != 1) return false;
    out[i] = x == 1 ? y : x;
    if (x == 1) a2.strides[i] = 0;
    if (y == 1) b2.strides[i] = 0;
  }
  a = a2;
  b = b2;
  *out_ndim = nd;
  return true;
}

// OpenVINO/PaddlePaddle: b is broadcast onto a at `axis`; see SPEC §3.
bool PdpdBroadcast(int64_t axis, Layout& a, Layout& b, int64_t* out, int* out_ndim) {
  if (b.ndim > a.ndim) return false;
  if (axis == -1) axis = a.ndim - b.ndim;  // before trailing 1s are dropped
  if (axis < 0) return false;
  int bnd = b.ndim;
  while (bnd > 0 && b.shape[bnd - 1] == 1) --bnd;
  if (axis + bnd > a.ndim) return false;
  for (int i = 0; i < bnd; ++i) {
    if (b.shape[i] != a.shape[axis + i] && b.shape[i] != 1) return false;
  }
  Layout b2 = b;
  b2.ndim = bnd;
  Align(b2, a.ndim, static_cast<int>(axis));
  for (int i = 0; i < a.ndim; ++i) {
    if (b2.shape[i] == 1) b2.strides[i] = 0;
    out[i] = a.shape[i];
  }
  b = b2;
  *out_ndim = a.ndim;
  return true;
}

}  // namespace

bool Broadcast(BroadcastMode mode, int64_t axis, Layout& a, Layout& b,
               int64_t* out_shape, int* out_ndim, const char* fn, std::string* error) {
  const std::string sa = FormatShape(a.shape, a.ndim), sb = FormatShape(b.shape, b.ndim);
  switch (mode) {
    case BroadcastMode::kNumpy:
      if (NumpyBroadcast(a, b, out_shape, out_ndim)) return true;
      // NumPy's own words, so one `match=` serves both libraries.
      *error = "operands could not be broadcast together with shapes " + sa + " " + sb + " ";
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
               sa + " and " + sb;
      return false;
    }
    case BroadcastMode::kPdpd:
      if (PdpdBroadcast(axis, a, b, out_shape, out_ndim)) return true;
      *error = std::string("eltwise.") + fn + ": cannot broadcast x2 of shape " + sb +
               " onto x1 of shape " + sa + " with broadcast='pdpd', axis=" + std::to_string(axis);
      return false;
  }
  return false;
}

}  // namespace eltwise
