#include "python/ufunc_twins.h"

#include <algorithm>
#include <cfenv>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/execute.h"
#include "core/half.h"
#include "core/plan.h"
#include "kernels/table.h"
#include "python/pyint_compare.h"
#include "python/value_checks.h"

namespace eltwise {
namespace {

// What one registered loop runs: the kernel row of `op` on `dtype`.
struct LoopData {
  OpId op;
  DType dtype;
};

// True when the loop must go one element at a time: out is written more
// than once (a reduction: stride 0, n > 1), or an input overlaps out other
// than element for element (accumulate reads what the previous element wrote).
bool Sequential(char** args, npy_intp n, const npy_intp* steps, size_t in_size,
                size_t out_size) {
  if (n <= 1) return false;
  if (steps[2] == 0) return true;
  const auto range = [n](const char* p, npy_intp step, size_t size, uintptr_t* lo,
                         uintptr_t* hi) {
    const auto base = reinterpret_cast<uintptr_t>(p);
    const npy_intp span = (n - 1) * step;  // within one array: no overflow
    *lo = span < 0 ? base + static_cast<uintptr_t>(span) : base;
    *hi = (span < 0 ? base : base + static_cast<uintptr_t>(span)) + size;
  };
  uintptr_t olo, ohi;
  range(args[2], steps[2], out_size, &olo, &ohi);
  for (int i = 0; i < 2; ++i) {
    uintptr_t lo, hi;
    range(args[i], steps[i], in_size, &lo, &hi);
    if (lo >= ohi || olo >= hi) continue;
    if (args[i] != args[2] || steps[i] != steps[2] || in_size != out_size) return true;
  }
  return false;
}

// Runs the kernels of one LoopData over NumPy's 1-D loop: through the
// executor (strided gathering, threads, streaming stores) unless the loop
// must be sequential.
int RunKernels(const LoopData& d, char** args, npy_intp n, const npy_intp* steps) {
  const DType result = ReturnsBool(d.op) ? DType::kBool : d.dtype;
  const size_t isz = ItemSize(d.dtype), osz = ItemSize(result);
  const ExecuteArgs ex = ArgsFor(Kernels(), d.op, d.dtype, args[0], args[1], args[2], isz, osz);
  if (Sequential(args, n, steps, isz, osz)) {
    int flags = 0;
    const BinaryKernel one = ex.kernels[static_cast<int>(LoopKind::kContiguous)];
    for (npy_intp i = 0; i < n; ++i) {
      flags |= one(args[0] + i * steps[0], args[1] + i * steps[1], args[2] + i * steps[2], 1, 0);
    }
    return flags;
  }
  Plan plan;
  plan.ndim = 1;
  plan.shape[0] = n;
  plan.size = n;
  for (int s = 0; s < 3; ++s) plan.stride[s][0] = steps[s];
  return Execute(plan, ex);
}

// The floating-point status NumPy reads after the loop says what eltwise's
// semantics say: float results raise nothing (as the fast door), integer
// division by zero raises divide-by-zero. Flags set before the loop (by a
// cast, say) are kept.
template <typename Run>
void WithEltwiseFpStatus(Run run) {
  std::fexcept_t saved;
  std::fegetexceptflag(&saved, FE_ALL_EXCEPT);
  const int flags = run();
  std::fesetexceptflag(&saved, FE_ALL_EXCEPT);
  if (flags & kFlagDivideByZero) std::feraiseexcept(FE_DIVBYZERO);
}

// The accumulator of a float reduction and its conversions: float16 and
// bfloat16 accumulate in float32, as NumPy's half-precision loops do
// (docs/semantics.md, "Reductions of the twins").
template <DType kT> struct FloatAcc;
template <> struct FloatAcc<DType::kF16> {
  using Acc = float;
  static float Load(const char* p) { uint16_t h; std::memcpy(&h, p, 2); return F16BitsToFloat(h); }
  static void Store(char* p, float v) { const uint16_t h = FloatToF16Bits(v); std::memcpy(p, &h, 2); }
};
template <> struct FloatAcc<DType::kBF16> {
  using Acc = float;
  static float Load(const char* p) { uint16_t h; std::memcpy(&h, p, 2); return BF16BitsToFloat(h); }
  static void Store(char* p, float v) { const uint16_t h = FloatToBF16Bits(v); std::memcpy(p, &h, 2); }
};
template <> struct FloatAcc<DType::kF32> {
  using Acc = float;
  static float Load(const char* p) { float v; std::memcpy(&v, p, 4); return v; }
  static void Store(char* p, float v) { std::memcpy(p, &v, 4); }
};
template <> struct FloatAcc<DType::kF64> {
  using Acc = double;
  static double Load(const char* p) { double v; std::memcpy(&v, p, 8); return v; }
  static void Store(char* p, double v) { std::memcpy(p, &v, 8); }
};

// The sum of n elements `stride` bytes apart in NumPy's pairwise order, so
// that add.reduce gives NumPy's bits: below 8 elements one by one from -0.0
// (which keeps a sum of negative zeros negative); up to 128, eight running
// sums over the multiple of 8 combined as ((0+1)+(2+3))+((4+5)+(6+7)), then
// the rest one by one; above, the two halves split at a multiple of 8,
// summed recursively. The rounding error grows with log2(n), not n.
template <DType kT>
typename FloatAcc<kT>::Acc PairwiseSum(const char* a, npy_intp n, npy_intp stride) {
  using A = FloatAcc<kT>;
  using Acc = typename A::Acc;
  if (n < 8) {
    Acc res = -0.0;
    for (npy_intp i = 0; i < n; ++i) res += A::Load(a + i * stride);
    return res;
  }
  if (n <= 128) {
    Acc r[8];
    for (int j = 0; j < 8; ++j) r[j] = A::Load(a + j * stride);
    npy_intp i = 8;
    for (; i < n - n % 8; i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += A::Load(a + (i + j) * stride);
    }
    Acc res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += A::Load(a + i * stride);
    return res;
  }
  npy_intp n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum<kT>(a, n2, stride) + PairwiseSum<kT>(a + n2 * stride, n - n2, stride);
}

template <DType kT>
void ReduceFloat(OpId op, char** args, npy_intp n, const npy_intp* steps) {
  using A = FloatAcc<kT>;
  typename A::Acc acc = A::Load(args[0]);
  const char* b = args[1];
  if (op == OpId::kAdd) {
    acc += PairwiseSum<kT>(b, n, steps[1]);
  } else {
    for (npy_intp i = 0; i < n; ++i, b += steps[1]) {
      const auto v = A::Load(b);
      acc = op == OpId::kSubtract ? acc - v : op == OpId::kMultiply ? acc * v : acc / v;
    }
  }
  A::Store(args[2], acc);
}

// True for a reduction that NumPy's float loops compute in an order of their
// own: add, subtract, multiply and true divide of a float dtype into one
// element (NumPy's IS_BINARY_REDUCE: out is the first input, both stride 0).
// Not the coded floats: ml_dtypes' loops reduce them one element at a time,
// rounding each step, which is what the kernel does on such a call.
bool IsFloatReduction(const LoopData& d, char** args, const npy_intp* steps) {
  return args[0] == args[2] && steps[0] == 0 && steps[2] == 0 && IsFloat(d.dtype) &&
         !IsCoded(d.dtype) &&
         (d.op == OpId::kAdd || d.op == OpId::kSubtract || d.op == OpId::kMultiply ||
          d.op == OpId::kDivide);
}

void ReduceFloatLoop(const LoopData& d, char** args, npy_intp n, const npy_intp* steps) {
  switch (d.dtype) {
    case DType::kF16: ReduceFloat<DType::kF16>(d.op, args, n, steps); break;
    case DType::kBF16: ReduceFloat<DType::kBF16>(d.op, args, n, steps); break;
    case DType::kF32: ReduceFloat<DType::kF32>(d.op, args, n, steps); break;
    default: ReduceFloat<DType::kF64>(d.op, args, n, steps); break;
  }
}

void KernelLoop(char** args, npy_intp const* dims, npy_intp const* steps, void* data) {
  const LoopData& d = *static_cast<const LoopData*>(data);
  if (IsFloatReduction(d, args, steps)) {
    WithEltwiseFpStatus([&] { ReduceFloatLoop(d, args, dims[0], steps); return 0; });
    return;
  }
  if (RefusesNegativeExponents(d.op, d.dtype) &&
      AnyNegativeStrided(args[1], dims[0], steps[1], d.dtype)) {
    // As NumPy's own integer power: NumPy checks for an error after the loop.
    PyGILState_STATE gil = PyGILState_Ensure();
    RaiseNegativeExponent();
    PyGILState_Release(gil);
    return;
  }
  WithEltwiseFpStatus([&] { return RunKernels(d, args, dims[0], steps); });
}

// int64 with uint64 (either order), in `kSignedFirst` order. Comparisons are
// exact; divide converts both to float64, as NumPy's promotion does, and
// floors or truncates the quotient (the fast door's rule).
template <bool kSignedFirst>
void MixedSignLoop(char** args, npy_intp const* dims, npy_intp const* steps, void* data) {
  const LoopData& d = *static_cast<const LoopData*>(data);
  const npy_intp n = dims[0];
  if (IsComparison(d.op)) {
    for (npy_intp i = 0; i < n; ++i) {
      int64_t s;
      uint64_t u;
      std::memcpy(&s, args[kSignedFirst ? 0 : 1] + i * steps[kSignedFirst ? 0 : 1], 8);
      std::memcpy(&u, args[kSignedFirst ? 1 : 0] + i * steps[kSignedFirst ? 1 : 0], 8);
      // c: the sign of (signed - unsigned), exactly.
      const int c = s < 0 ? -1 : static_cast<uint64_t>(s) < u ? -1 : static_cast<uint64_t>(s) > u;
      args[2][i * steps[2]] = CompareBySign(d.op, kSignedFirst ? c : -c);
    }
    return;
  }
  // Division: blocks converted to float64, then the float64 kernel.
  constexpr npy_intp kBlock = 512;
  double a[kBlock], b[kBlock];
  WithEltwiseFpStatus([&] {
    int flags = 0;
    for (npy_intp i = 0; i < n; i += kBlock) {
      const npy_intp m = n - i < kBlock ? n - i : kBlock;
      for (npy_intp j = 0; j < m; ++j) {
        int64_t s;
        uint64_t u;
        std::memcpy(&s, args[kSignedFirst ? 0 : 1] + (i + j) * steps[kSignedFirst ? 0 : 1], 8);
        std::memcpy(&u, args[kSignedFirst ? 1 : 0] + (i + j) * steps[kSignedFirst ? 1 : 0], 8);
        (kSignedFirst ? a : b)[j] = static_cast<double>(s);
        (kSignedFirst ? b : a)[j] = static_cast<double>(u);
      }
      char* block[3] = {reinterpret_cast<char*>(a), reinterpret_cast<char*>(b),
                        args[2] + i * steps[2]};
      const npy_intp block_steps[3] = {8, 8, steps[2]};
      flags |= RunKernels(d, block, m, block_steps);
    }
    return flags;
  });
}

// A comparison of an integer dtype with an object operand: the loops NumPy
// reaches for an integer array against a Python int, through PyIntPromoter
// (docs/semantics.md, "Comparisons with Python ints"). A broadcast Python int
// is read once: within the dtype's range it is converted and the kernels
// compare; outside it every element gets the same answer. Any other object
// operand compares element by element through Python's own comparison, as
// NumPy's object loop would. kObj is the object operand's index.
template <OpId kOp, int kObj>
int PyIntCompareLoop(PyArrayMethod_Context* context, char* const* data,
                     const npy_intp* dimensions, const npy_intp* strides, NpyAuxData*) {
  constexpr int kInt = 1 - kObj;
  DType t;
  if (!ToDType(context->descriptors[kInt], &t) || !IsInteger(t)) {
    PyErr_SetString(PyExc_RuntimeError, "eltwise: a Python int comparison loop got a non-integer");
    return -1;
  }
  const npy_intp n = dimensions[0];
  if (n == 0) return 0;
  PyObject* first = *reinterpret_cast<PyObject* const*>(data[kObj]);
  if (strides[kObj] == 0 && first && PyLong_Check(first)) {
    const int range = PyIntRange(first, t);
    if (range == -2) return -1;
    if (range != 0) {
      const char answer = ConstantAnswer(kOp, range, kObj == 0);
      for (npy_intp i = 0; i < n; ++i) data[2][i * strides[2]] = answer;
      return 0;
    }
    alignas(8) char value[8];
    StoreInt(first, t, value);
    char* args[3] = {data[0], data[1], data[2]};
    args[kObj] = value;
    RunKernels(LoopData{kOp, t}, args, n, strides);
    return 0;
  }
  constexpr int py_op = PyCompareOp(kOp);
  const size_t size = ItemSize(t);
  for (npy_intp i = 0; i < n; ++i) {
    PyObject* obj = *reinterpret_cast<PyObject* const*>(data[kObj] + i * strides[kObj]);
    if (!obj) obj = Py_None;  // NumPy reads a NULL object element as None
    const char* p = data[kInt] + i * strides[kInt];
    Ref element;
    if (IsSignedInt(t)) {
      int8_t v8;
      int16_t v16;
      int32_t v32;
      int64_t v = 0;
      switch (size) {
        case 1: std::memcpy(&v8, p, 1); v = v8; break;
        case 2: std::memcpy(&v16, p, 2); v = v16; break;
        case 4: std::memcpy(&v32, p, 4); v = v32; break;
        default: std::memcpy(&v, p, 8); break;
      }
      element.reset(PyLong_FromLongLong(v));
    } else {
      uint64_t v = 0;
      std::memcpy(&v, p, size);
      element.reset(PyLong_FromUnsignedLongLong(v));
    }
    if (!element) return -1;
    const int r = kObj == 1 ? PyObject_RichCompareBool(element.get(), obj, py_op)
                            : PyObject_RichCompareBool(obj, element.get(), py_op);
    if (r < 0) return -1;
    data[2][i * strides[2]] = static_cast<char>(r);
  }
  return 0;
}

// Two object operands: Python's own comparison of each pair, as NumPy's
// object loop (reached by two Python ints, which NumPy compares exactly).
template <OpId kOp>
int ObjectCompareLoop(PyArrayMethod_Context*, char* const* data, const npy_intp* dimensions,
                      const npy_intp* strides, NpyAuxData*) {
  constexpr int py_op = PyCompareOp(kOp);
  for (npy_intp i = 0; i < dimensions[0]; ++i) {
    PyObject* a = *reinterpret_cast<PyObject* const*>(data[0] + i * strides[0]);
    PyObject* b = *reinterpret_cast<PyObject* const*>(data[1] + i * strides[1]);
    const int r = PyObject_RichCompareBool(a ? a : Py_None, b ? b : Py_None, py_op);
    if (r < 0) return -1;
    data[2][i * strides[2]] = static_cast<char>(r);
  }
  return 0;
}

PyArrayMethod_StridedLoop* ObjectCompareLoopFor(OpId op) {
  switch (op) {
    case OpId::kEqual: return &ObjectCompareLoop<OpId::kEqual>;
    case OpId::kNotEqual: return &ObjectCompareLoop<OpId::kNotEqual>;
    case OpId::kGreater: return &ObjectCompareLoop<OpId::kGreater>;
    case OpId::kGreaterEqual: return &ObjectCompareLoop<OpId::kGreaterEqual>;
    case OpId::kLess: return &ObjectCompareLoop<OpId::kLess>;
    default: return &ObjectCompareLoop<OpId::kLessEqual>;
  }
}

template <int kObj>
PyArrayMethod_StridedLoop* PyIntCompareLoopFor(OpId op) {
  switch (op) {
    case OpId::kEqual: return &PyIntCompareLoop<OpId::kEqual, kObj>;
    case OpId::kNotEqual: return &PyIntCompareLoop<OpId::kNotEqual, kObj>;
    case OpId::kGreater: return &PyIntCompareLoop<OpId::kGreater, kObj>;
    case OpId::kGreaterEqual: return &PyIntCompareLoop<OpId::kGreaterEqual, kObj>;
    case OpId::kLess: return &PyIntCompareLoop<OpId::kLess, kObj>;
    default: return &PyIntCompareLoop<OpId::kLessEqual, kObj>;
  }
}

// (integer, Python int) -> (integer, object, bool), either order; a DType
// the caller's signature= names stays.
int PyIntPromoter(PyObject*, PyArray_DTypeMeta* const op_dtypes[],
                  PyArray_DTypeMeta* const signature[], PyArray_DTypeMeta* new_op_dtypes[]) {
  for (int i = 0; i < 3; ++i) {
    PyArray_DTypeMeta* item = signature[i]                         ? signature[i]
                              : i == 2                              ? &PyArray_BoolDType
                              : op_dtypes[i] == &PyArray_PyLongDType ? &PyArray_ObjectDType
                                                                     : op_dtypes[i];
    Py_INCREF(item);
    new_op_dtypes[i] = item;
  }
  return 0;
}

// A logical function computes on truth values, as NumPy's logical ufuncs do:
// any operands without a loop of their own (a reduction of integers, whose
// result must feed back as an input) are read as bool; signature= stays.
int LogicalPromoter(PyObject*, PyArray_DTypeMeta* const[], PyArray_DTypeMeta* const signature[],
                    PyArray_DTypeMeta* new_op_dtypes[]) {
  for (int i = 0; i < 3; ++i) {
    PyArray_DTypeMeta* item = signature[i] ? signature[i] : &PyArray_BoolDType;
    Py_INCREF(item);
    new_op_dtypes[i] = item;
  }
  return 0;
}

bool AddPromoter(PyObject* ufunc, PyObject* d0, PyObject* d1, PyObject* d2,
                 PyArrayMethod_PromoterFunction* fn) {
  Ref dtypes(PyTuple_Pack(3, d0, d1, d2));
  Ref capsule(PyCapsule_New(reinterpret_cast<void*>(fn), "numpy._ufunc_promoter", nullptr));
  if (!dtypes || !capsule) return false;
  return PyUFunc_AddPromoter(ufunc, dtypes.get(), capsule.get()) == 0;
}

// Registers a comparison loop on (d0, d1) -> bool that may call Python.
bool AddComparisonLoop(PyObject* ufunc, PyArray_DTypeMeta* d0, PyArray_DTypeMeta* d1,
                       PyArrayMethod_StridedLoop* loop) {
  PyArray_DTypeMeta* dtypes[3] = {d0, d1, &PyArray_BoolDType};
  PyType_Slot slots[] = {{NPY_METH_strided_loop, reinterpret_cast<void*>(loop)}, {0, nullptr}};
  PyArrayMethod_Spec spec = {};
  spec.name = "eltwise_object_comparison";
  spec.nin = 2;
  spec.nout = 1;
  spec.casting = NPY_NO_CASTING;
  spec.flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_REQUIRES_PYAPI |
                                                  NPY_METH_NO_FLOATINGPOINT_ERRORS);
  spec.dtypes = dtypes;
  spec.slots = slots;
  return PyUFunc_AddLoopFromSpec(ufunc, &spec) == 0;
}

bool AddPyIntComparisonLoops(PyObject* ufunc, OpId op) {
  auto* object = &PyArray_ObjectDType;
  auto* pylong = reinterpret_cast<PyObject*>(&PyArray_PyLongDType);
  auto* any = reinterpret_cast<PyObject*>(&PyArrayDescr_Type);
  // Every C integer type NumPy has, each its own DType class (int64 is long
  // on Linux, longlong a second class of the same size: 'q' and 'Q').
  std::vector<PyArray_DTypeMeta*> done;
  for (int num = NPY_BYTE; num <= NPY_ULONGLONG; ++num) {
    Ref descr(reinterpret_cast<PyObject*>(PyArray_DescrFromType(num)));
    if (!descr) return false;
    PyArray_DTypeMeta* T = NPY_DTYPE(reinterpret_cast<PyArray_Descr*>(descr.get()));
    if (std::find(done.begin(), done.end(), T) != done.end()) continue;
    done.push_back(T);
    for (int obj = 0; obj < 2; ++obj) {
      if (!AddComparisonLoop(ufunc, obj == 0 ? object : T, obj == 1 ? object : T,
                             obj == 0 ? PyIntCompareLoopFor<0>(op) : PyIntCompareLoopFor<1>(op))) {
        return false;
      }
      auto* t_obj = reinterpret_cast<PyObject*>(T);
      if (!AddPromoter(ufunc, obj == 0 ? pylong : t_obj, obj == 1 ? pylong : t_obj, any,
                       &PyIntPromoter)) {
        return false;
      }
    }
  }
  return AddComparisonLoop(ufunc, object, object, ObjectCompareLoopFor(op)) &&
         AddPromoter(ufunc, pylong, pylong, any, &PyIntPromoter);
}

const char* CastingName(NPY_CASTING casting) {
  switch (casting) {
    case NPY_NO_CASTING: return "no";
    case NPY_EQUIV_CASTING: return "equiv";
    case NPY_SAFE_CASTING: return "safe";
    case NPY_SAME_KIND_CASTING: return "same_kind";
    default: return "unsafe";
  }
}

// NumPy's builtin dtypes of the dtype table, in NumPy's loop order: bool,
// the integers by size (signed before unsigned), then the floats by size. A
// loop is chosen by the first whose inputs the operands cast to safely, so
// uint8 must come before int16 for uint8 with bool to stay uint8.
std::vector<DType> BuiltinLoopOrder() {
  const auto rank = [](DType t) {
    const DTypeTraits& r = Traits(t);
    const int group = r.category == DCategory::kBool ? 0 : IsFloat(t) ? 2 : 1;
    return group * 64 + static_cast<int>(r.item_size) * 2 +
           (r.category == DCategory::kUnsigned ? 1 : 0);
  };
  std::vector<DType> order;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kDTypeTraits[i].source == DSource::kNumpy) order.push_back(static_cast<DType>(i));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](DType a, DType b) { return rank(a) < rank(b); });
  return order;
}

bool AcceptsDType(const FunctionInfo& f, DType t) {
  switch (f.accepts) {
    case Accepts::kAll: return true;
    case Accepts::kNumeric: return t != DType::kBool;
    case Accepts::kIntegersBool: return !IsFloat(t);
  }
  return false;
}

// The kernel row a twin runs on dtype t.
OpId TwinOp(const FunctionInfo& f, DType t, bool truncate) { return KernelRow(f, t, !truncate); }

int IdentityOf(OpId op) {
  switch (Traits(op).identity) {
    case Identity::kZero: return PyUFunc_Zero;
    case Identity::kOne: return PyUFunc_One;
    case Identity::kMinusOne: return PyUFunc_MinusOne;
    case Identity::kReorderableNone: return PyUFunc_ReorderableNone;
    default: return PyUFunc_None;
  }
}

// The loops registered by AddFirstElementLoop: (ufunc, what it runs), for
// the process's lifetime (the ufuncs live as long).
struct FirstElementLoop {
  PyObject* ufunc;
  LoopData data;
};
std::vector<FirstElementLoop> g_first_element_loops;

// KernelLoop as a loop of NumPy's ArrayMethod API, for AddFirstElementLoop:
// it finds its LoopData by the calling ufunc and the operands' dtype.
int FirstElementStridedLoop(PyArrayMethod_Context* context, char* const data[],
                            npy_intp const dims[], npy_intp const strides[], NpyAuxData*) {
  DType t;
  if (!ToDType(context->descriptors[0], &t)) t = DType::kBool;
  for (const FirstElementLoop& l : g_first_element_loops) {
    if (l.ufunc != context->caller || l.data.dtype != t) continue;
    LoopData d = l.data;
    KernelLoop(const_cast<char**>(data), dims, strides, &d);
    return 0;
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  PyErr_SetString(PyExc_RuntimeError, "eltwise.ufunc: a loop without its data");
  PyGILState_Release(gil);
  return -1;
}

// A reduction's initial value: none for a non-empty reduction (NumPy then
// starts from the first element), the identity 0 for an empty one.
int IdentityWhenEmpty(PyArrayMethod_Context* context, npy_bool reduction_is_empty,
                      void* initial) {
  if (!reduction_is_empty) return 0;
  Ref zero(PyLong_FromLong(0));
  if (!zero || PyArray_Pack(context->descriptors[0], initial, zero.get()) < 0) return -1;
  return 1;
}

// Registers d (an ml_dtypes dtype, an op whose identity is 0) as an
// ArrayMethod whose reduce starts from the first element, in place of a
// legacy loop (HasFirstElementLoop answers for it where the legacy loops'
// table is read).
bool AddFirstElementLoop(PyObject* ufunc, const LoopData& d, bool bool_result) {
  Ref descr(reinterpret_cast<PyObject*>(DescrOf(d.dtype)));
  if (!descr) return false;
  PyArray_DTypeMeta* T = NPY_DTYPE(reinterpret_cast<PyArray_Descr*>(descr.get()));
  PyArray_DTypeMeta* dtypes[3] = {T, T, bool_result ? &PyArray_BoolDType : T};
  PyType_Slot slots[] = {
      {NPY_METH_strided_loop, reinterpret_cast<void*>(&FirstElementStridedLoop)},
      {NPY_METH_get_reduction_initial, reinterpret_cast<void*>(&IdentityWhenEmpty)},
      {0, nullptr}};
  PyArrayMethod_Spec spec = {};
  spec.name = "eltwise_first_element_reduce";
  spec.nin = 2;
  spec.nout = 1;
  spec.casting = NPY_NO_CASTING;
  spec.flags = NPY_METH_IS_REORDERABLE;
  spec.dtypes = dtypes;
  spec.slots = slots;
  if (PyUFunc_AddLoopFromSpec(ufunc, &spec) < 0) return false;
  g_first_element_loops.push_back({ufunc, d});  // at import only, before any call
  return true;
}

// Whether AddFirstElementLoop registered the dtype t on ufunc.
bool HasFirstElementLoop(const PyUFuncObject* ufunc, DType t) {
  for (const FirstElementLoop& l : g_first_element_loops) {
    if (l.ufunc == reinterpret_cast<const PyObject*>(ufunc) && l.data.dtype == t) return true;
  }
  return false;
}

// Whether the twin's result is bool (a comparison): its last builtin loop's
// output (the first may be bool's, for any op).
bool TwinReturnsBool(const PyUFuncObject* ufunc) {
  return ufunc->types[3 * (ufunc->ntypes - 1) + 2] == NPY_BOOL;
}

// Sets out_dtypes to d, d and d (bool for a bool result), each a new
// reference.
void SetLoopDescrs(PyArray_Descr* d, bool bool_result, PyArray_Descr** out_dtypes) {
  for (int k = 0; k < 3; ++k) {
    out_dtypes[k] = k == 2 && bool_result ? PyArray_DescrFromType(NPY_BOOL) : d;
    if (out_dtypes[k] == d) Py_INCREF(d);
  }
}

// Resolves a call whose dtype= or signature= names the ml_dtypes dtype `row`
// (bfloat16, say) for an input while no operand is of it: NumPy's default
// resolver searches only the builtin loops then. Returns 1 when it resolved
// (out_dtypes set), 0 when the call is not one, -1 with an error set.
int ResolveForcedAs(DType row, PyUFuncObject* ufunc, NPY_CASTING casting,
                    PyArrayObject** operands, PyObject* type_tup, PyArray_Descr** out_dtypes) {
  Ref user(reinterpret_cast<PyObject*>(DescrOf(row)));
  if (!user) { PyErr_Clear(); return 0; }
  auto* d = reinterpret_cast<PyArray_Descr*>(user.get());
  const auto names_row = [&](PyObject* item) {
    return item == user.get() || item == reinterpret_cast<PyObject*>(Py_TYPE(d)) ||
           (PyArray_DescrCheck(item) &&
            reinterpret_cast<PyArray_Descr*>(item)->type_num == d->type_num);
  };
  const bool bool_result = TwinReturnsBool(ufunc);
  bool forced = false;
  for (int i = 0; i < 3; ++i) {
    PyObject* item = PyTuple_GET_ITEM(type_tup, i);
    if (item == Py_None) continue;
    if (!names_row(item) || (i == 2 && bool_result)) return 0;
    forced = true;
  }
  if (!forced) return 0;
  Ref key(PyLong_FromLong(d->type_num));  // the twin must have a loop for it
  if (!HasFirstElementLoop(ufunc, row) &&
      (!key || !ufunc->userloops ||
       PyDict_GetItemWithError(ufunc->userloops, key.get()) == nullptr)) {
    if (PyErr_Occurred()) return -1;
    return 0;
  }
  for (int i = 0; i < 2; ++i) {
    if (!PyArray_CanCastArrayTo(operands[i], d, casting)) {
      PyErr_Format(PyExc_TypeError,
                   "Cannot cast ufunc '%s' input %d from %R to %R with casting rule '%s'",
                   ufunc->name, i, reinterpret_cast<PyObject*>(PyArray_DESCR(operands[i])),
                   user.get(), CastingName(casting));
      return -1;
    }
  }
  SetLoopDescrs(d, bool_result, out_dtypes);
  return 1;
}

// ResolveForcedAs for each ml_dtypes row of the dtype table.
int ResolveForcedUserDType(PyUFuncObject* ufunc, NPY_CASTING casting, PyArrayObject** operands,
                           PyObject* type_tup, PyArray_Descr** out_dtypes) {
  if (!type_tup || !PyTuple_Check(type_tup) || PyTuple_GET_SIZE(type_tup) != 3) return 0;
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType row = static_cast<DType>(i);
    if (kDTypeTraits[i].source == DSource::kNumpy || !HasDType(row)) continue;
    const int r = ResolveForcedAs(row, ufunc, casting, operands, type_tup, out_dtypes);
    if (r != 0) return r;
  }
  return 0;
}

// Resolves operands of two dtypes one of which is an ml_dtypes dtype, as
// NumPy's legacy resolution does: the ml_dtypes operands' loops first, in
// operand order, the first to which both inputs cast safely. Where that is a
// legacy loop, returns 0 and NumPy's default resolver finds it; where it is
// an AddFirstElementLoop (which that resolver does not see), resolves to it
// (returns 1, out_dtypes set). -1 with an error set.
int ResolveUserLoops(PyUFuncObject* ufunc, NPY_CASTING casting, PyArrayObject** operands,
                     PyArray_Descr** out_dtypes) {
  const NPY_CASTING input_casting = casting > NPY_SAFE_CASTING ? NPY_SAFE_CASTING : casting;
  for (int i = 0; i < 2; ++i) {
    DType t;
    if (!ToDType(PyArray_DESCR(operands[i]), &t) || Traits(t).source == DSource::kNumpy) {
      continue;
    }
    Ref user(reinterpret_cast<PyObject*>(DescrOf(t)));
    if (!user) return -1;
    auto* d = reinterpret_cast<PyArray_Descr*>(user.get());
    if (!PyArray_CanCastArrayTo(operands[0], d, input_casting) ||
        !PyArray_CanCastArrayTo(operands[1], d, input_casting)) {
      continue;
    }
    if (!HasFirstElementLoop(ufunc, t)) return 0;
    SetLoopDescrs(d, TwinReturnsBool(ufunc), out_dtypes);
    return 1;
  }
  return 0;
}

int TwinTypeResolver(PyUFuncObject* ufunc, NPY_CASTING casting, PyArrayObject** operands,
                     PyObject* type_tup, PyArray_Descr** out_dtypes) {
  const int forced = ResolveForcedUserDType(ufunc, casting, operands, type_tup, out_dtypes);
  if (forced != 0) return forced < 0 ? -1 : 0;
  if (type_tup == nullptr) {
    const int user = ResolveUserLoops(ufunc, casting, operands, out_dtypes);
    if (user != 0) return user < 0 ? -1 : 0;
  }
  return PyUFunc_DefaultTypeResolver(ufunc, casting, operands, type_tup, out_dtypes);
}

// Also refuses two bools for the functions that do (docs/semantics.md: "Operands and dtypes"), as NumPy's
// subtract does, before NumPy's default resolver would pick an int8 loop.
int NumericTypeResolver(PyUFuncObject* ufunc, NPY_CASTING casting, PyArrayObject** operands,
                        PyObject* type_tup, PyArray_Descr** out_dtypes) {
  if (PyArray_ISBOOL(operands[0]) && PyArray_ISBOOL(operands[1])) {
    PyErr_Format(PyExc_TypeError, "eltwise.ufunc.%s does not support bool operands",
                 ufunc->name);
    return -1;
  }
  return TwinTypeResolver(ufunc, casting, operands, type_tup, out_dtypes);
}

// Everything a twin's ufunc object points to; lives as long as the process
// (the ufunc keeps raw pointers into it).
struct TwinTables {
  std::vector<PyUFuncGenericFunction> functions;
  std::vector<void*> data;
  std::vector<char> types;
  std::vector<LoopData> loops;
  std::string name, doc;
};

}  // namespace

PyObject* MakeUfuncTwin(const FunctionInfo& f, const char* name, const char* doc, bool truncate,
                        const std::vector<DType>& first_element) {
  auto* t = new TwinTables;  // owned by the ufunc for the process's lifetime
  t->name = name;
  t->doc = doc;
  const bool bool_result = ReturnsBool(f.op);
  const auto add = [&](PyUFuncGenericFunction fn, int in1, int in2, int out, LoopData d) {
    t->functions.push_back(fn);
    t->loops.push_back(d);
    t->types.insert(t->types.end(), {static_cast<char>(in1), static_cast<char>(in2),
                                     static_cast<char>(out)});
  };
  const bool mixed_sign = f.op == OpId::kDivide || IsComparison(f.op);
  bool mixed_sign_added = false;
  for (const DType dt : BuiltinLoopOrder()) {
    if (IsFloat(dt) && !mixed_sign_added && mixed_sign && AcceptsDType(f, DType::kI64)) {
      mixed_sign_added = true;
      // After every integer loop, before the floats: int64 with uint64.
      // Division runs the float64 rows on the converted operands.
      const int out = bool_result ? NPY_BOOL : NPY_FLOAT64;
      const LoopData d = bool_result ? LoopData{f.op, DType::kI64}
                                     : LoopData{truncate ? OpId::kTruncDivide : OpId::kFloorDivide,
                                                DType::kF64};
      add(&MixedSignLoop<true>, NPY_INT64, NPY_UINT64, out, d);
      add(&MixedSignLoop<false>, NPY_UINT64, NPY_INT64, out, d);
    }
    if (!AcceptsDType(f, dt)) continue;
    const int npy = TypeNum(dt);
    add(&KernelLoop, npy, npy, bool_result ? NPY_BOOL : npy, {TwinOp(f, dt, truncate), dt});
  }
  for (LoopData& d : t->loops) t->data.push_back(&d);
  const int ntypes = static_cast<int>(t->functions.size());
  PyObject* u = PyUFunc_FromFuncAndData(t->functions.data(), t->data.data(), t->types.data(),
                                        ntypes, 2, 1, IdentityOf(f.op), t->name.c_str(),
                                        t->doc.c_str(), 0);
  if (!u) return nullptr;
  auto* ufunc = reinterpret_cast<PyUFuncObject*>(u);
  ufunc->type_resolver =
      f.accepts == Accepts::kNumeric ? &NumericTypeResolver : &TwinTypeResolver;

  // The dtype table's user dtypes (ml_dtypes' dtypes), each a loop on its
  // own type; a row whose module did not import has none.
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType dt = static_cast<DType>(i);
    if (kDTypeTraits[i].source == DSource::kNumpy || !HasDType(dt) || !AcceptsDType(f, dt)) {
      continue;
    }
    const LoopData data{TwinOp(f, dt, truncate), dt};
    if (Traits(f.op).identity == Identity::kZero &&
        std::find(first_element.begin(), first_element.end(), dt) != first_element.end()) {
      if (!AddFirstElementLoop(u, data, bool_result)) {
        Py_DECREF(u);
        return nullptr;
      }
      continue;
    }
    auto* d = new LoopData(data);  // lives with the ufunc
    const int num = TypeNum(dt);
    const int arg_types[3] = {num, num, bool_result ? NPY_BOOL : num};
    if (PyUFunc_RegisterLoopForType(ufunc, num, &KernelLoop, arg_types, d) < 0) {
      delete d;
      Py_DECREF(u);
      return nullptr;
    }
  }
  // Pickling finds the twin as eltwise.ufunc.<name> by __module__ where the
  // ufunc takes one (NumPy >= 2.1); NumPy 2.0's ufuncs have no __dict__, and
  // pickle's search of the loaded modules finds it there instead.
  Ref module(PyUnicode_FromString("eltwise.ufunc"));
  if (!module) {
    Py_DECREF(u);
    return nullptr;
  }
  Ref qualname(PyUnicode_FromString(name));
  if (!qualname) {
    Py_DECREF(u);
    return nullptr;
  }
  // __qualname__ as NumPy's own ufuncs have it (numpy.ma wraps a ufunc by it).
  if (PyObject_SetAttrString(u, "__module__", module.get()) < 0 ||
      PyObject_SetAttrString(u, "__qualname__", qualname.get()) < 0) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
      Py_DECREF(u);
      return nullptr;
    }
    PyErr_Clear();
  }
  const bool extra_loops =
      IsComparison(f.op) ? AddPyIntComparisonLoops(u, f.op)
      : IsLogical(f.op)
          ? AddPromoter(u, reinterpret_cast<PyObject*>(&PyArrayDescr_Type),
                        reinterpret_cast<PyObject*>(&PyArrayDescr_Type),
                        reinterpret_cast<PyObject*>(&PyArrayDescr_Type), &LogicalPromoter)
          : true;
  if (!extra_loops) {
    Py_DECREF(u);
    return nullptr;
  }
  return u;
}

}  // namespace eltwise
