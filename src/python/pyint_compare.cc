#include "python/pyint_compare.h"

#include <cstdint>
#include <cstring>

namespace eltwise {
namespace {

// The values of integer dtype t: [lo, hi], from its bits and signedness.
void RangeOf(DType t, long long* lo, unsigned long long* hi) {
  const int bits = IsCoded(t) ? Traits(t).format.bits : static_cast<int>(8 * ItemSize(t));
  if (IsSignedInt(t)) {
    *hi = (1ull << (bits - 1)) - 1;
    *lo = -static_cast<long long>(*hi) - 1;
  } else {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
  }
}

template <typename T>
void Put(T v, void* dst) { std::memcpy(dst, &v, sizeof(T)); }

// Stores s as dtype kT where kT is a native integer (the only dtypes the
// callers pass); any other row stores nothing.
template <DType kT, typename Storage>
void PutAs(long long s, void* dst) {
  if constexpr (IsInteger(kT) && !IsCoded(kT)) Put(static_cast<Storage>(s), dst);
}

}  // namespace

int PyIntRange(PyObject* v, DType t) {
  long long lo;
  unsigned long long hi;
  RangeOf(t, &lo, &hi);
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (s == -1 && !overflow && PyErr_Occurred()) return -2;
  if (overflow < 0) return -1;
  if (overflow > 0) {
    if (t != DType::kU64) return 1;
    const unsigned long long u = PyLong_AsUnsignedLongLong(v);
    if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -2;
      PyErr_Clear();
      return 1;
    }
    return 0;
  }
  if (s < lo) return -1;
  return s > 0 && static_cast<unsigned long long>(s) > hi ? 1 : 0;
}

void StoreInt(PyObject* v, DType t, void* dst) {
  if (t == DType::kU64) {
    // Within range: a non-negative value up to 2^64 - 1 (or a negative one
    // never gets here); AsUnsignedLongLong takes every such value.
    Put(static_cast<uint64_t>(PyLong_AsUnsignedLongLong(v)), dst);
    return;
  }
  const long long s = PyLong_AsLongLong(v);
  switch (t) {
#define ELTWISE_STORE_INT(id, storage, ...) \
  case DType::k##id: PutAs<DType::k##id, storage>(s, dst); break;
    ELTWISE_DTYPES(ELTWISE_STORE_INT)
#undef ELTWISE_STORE_INT
  }
}

bool ConstantAnswer(OpId op, int range, bool int_first) {
  // Below the range (-1), every element x exceeds the int v: x - v > 0, v - x < 0.
  return CompareBySign(op, int_first ? range : -range);
}

bool RewriteOutOfRangeComparison(OpId* op, Operands* ops, DType compute, Ref holders[2]) {
  if (!IsComparison(*op)) return true;
  const bool weak_int[2] = {ops->weak[0] == Weak::kInt, ops->weak[1] == Weak::kInt};
  if (!weak_int[0] && !weak_int[1]) return true;
  if (weak_int[0] && weak_int[1]) {
    // Two Python ints compute in int64; beyond it, Python's own comparison.
    const int r0 = PyIntRange(ops->x[0], DType::kI64), r1 = PyIntRange(ops->x[1], DType::kI64);
    if (r0 == -2 || r1 == -2) return false;
    if (r0 == 0 && r1 == 0) return true;
    const int answer = PyObject_RichCompareBool(ops->x[0], ops->x[1], PyCompareOp(*op));
    if (answer < 0) return false;
    *op = answer ? OpId::kEqual : OpId::kNotEqual;
    for (int i = 0; i < 2; ++i) {
      holders[i].reset(PyLong_FromLong(0));
      if (!holders[i]) return false;
      ops->x[i] = holders[i].get();
    }
    return true;
  }
  const int w = weak_int[0] ? 0 : 1;
  // A float takes the int as NumPy converts it; bool with an int beyond int64
  // stays NumPy's OverflowError (NumPy compares exactly for integer dtypes only),
  // and so does a coded integer that takes a Python int as int8 (ml_dtypes
  // 0.6: NumPy converts it to int8 first); one that takes it as itself
  // (CodedPyInt, ml_dtypes 0.7) compares by value.
  const DType other = ops->dt[1 - w];
  if (!IsInteger(other) || !IsInteger(compute) || (IsCoded(other) && !CodedPyInt(other))) {
    return true;
  }
  const int range = PyIntRange(ops->x[w], compute);
  if (range == -2) return false;
  if (range == 0) return true;
  const bool answer = ConstantAnswer(*op, range, w == 0);
  // With MIN second: x >= MIN is true, x < MIN false; with MIN first, the
  // mirrored MIN <= x and MIN > x.
  if (w == 1) {
    *op = answer ? OpId::kGreaterEqual : OpId::kLess;
  } else {
    *op = answer ? OpId::kLessEqual : OpId::kGreater;
  }
  long long lo;
  unsigned long long hi;
  RangeOf(compute, &lo, &hi);
  holders[w].reset(PyLong_FromLongLong(lo));
  if (!holders[w]) return false;
  ops->x[w] = holders[w].get();
  return true;
}

}  // namespace eltwise
