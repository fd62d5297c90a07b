#include "python/ufunc_twins.h"

#include <cfenv>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/execute.h"
#include "core/plan.h"
#include "kernels/table.h"

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
  const BinaryKernel* k = Kernels().k[static_cast<int>(d.op)][static_cast<int>(d.dtype)];
  if (Sequential(args, n, steps, isz, osz)) {
    int flags = 0;
    const BinaryKernel one = k[static_cast<int>(LoopKind::kContiguous)];
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
  ExecuteArgs ex{args[0], args[1], args[2], isz, osz, k,
                 Kernels().strided[static_cast<int>(d.op)][static_cast<int>(d.dtype)],
                 ParallelBytes(d.op, d.dtype),
                 Kernels().pack_beside_scalar_second[static_cast<int>(d.op)][static_cast<int>(d.dtype)]};
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

// True if any of the n signed integers of `size` bytes at p (stride bytes
// apart) is negative.
bool AnyNegativeStrided(const char* p, npy_intp n, npy_intp stride, size_t size) {
  for (npy_intp i = 0; i < n; ++i) {
    // The sign bit is in the last byte (little-endian) of a native integer.
    if (static_cast<signed char>(p[i * stride + static_cast<npy_intp>(size) - 1]) < 0) return true;
  }
  return false;
}

void KernelLoop(char** args, npy_intp const* dims, npy_intp const* steps, void* data) {
  const LoopData& d = *static_cast<const LoopData*>(data);
  if (d.op == OpId::kPower && IsSignedInt(d.dtype) &&
      AnyNegativeStrided(args[1], dims[0], steps[1], ItemSize(d.dtype))) {
    // As NumPy's own integer power: NumPy checks for an error after the loop.
    PyGILState_STATE gil = PyGILState_Ensure();
    PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
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
  if (d.op >= OpId::kEqual) {
    for (npy_intp i = 0; i < n; ++i) {
      int64_t s;
      uint64_t u;
      std::memcpy(&s, args[kSignedFirst ? 0 : 1] + i * steps[kSignedFirst ? 0 : 1], 8);
      std::memcpy(&u, args[kSignedFirst ? 1 : 0] + i * steps[kSignedFirst ? 1 : 0], 8);
      // c: the sign of (signed - unsigned), exactly.
      const int c = s < 0 ? -1 : static_cast<uint64_t>(s) < u ? -1 : static_cast<uint64_t>(s) > u;
      const int cmp = kSignedFirst ? c : -c;  // sign of x1 - x2
      bool r = false;
      switch (d.op) {
        case OpId::kEqual: r = cmp == 0; break;
        case OpId::kNotEqual: r = cmp != 0; break;
        case OpId::kGreater: r = cmp > 0; break;
        case OpId::kGreaterEqual: r = cmp >= 0; break;
        case OpId::kLess: r = cmp < 0; break;
        default: r = cmp <= 0; break;
      }
      args[2][i * steps[2]] = r;
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

// The NumPy types of the builtin dtypes, in NumPy's loop order (a loop is
// chosen by the first whose inputs the operands cast to safely).
constexpr int kBuiltinOrder[] = {NPY_BOOL,  NPY_INT8,   NPY_UINT8,  NPY_INT16,  NPY_UINT16,
                                 NPY_INT32, NPY_UINT32, NPY_INT64,  NPY_UINT64, NPY_HALF,
                                 NPY_FLOAT32, NPY_FLOAT64};
constexpr DType kBuiltinDTypes[] = {DType::kBool, DType::kI8,  DType::kU8,  DType::kI16,
                                    DType::kU16,  DType::kI32, DType::kU32, DType::kI64,
                                    DType::kU64,  DType::kF16, DType::kF32, DType::kF64};

bool AcceptsDType(const FunctionInfo& f, DType t) {
  switch (f.accepts) {
    case Accepts::kAll: return true;
    case Accepts::kNumeric: return t != DType::kBool;
    case Accepts::kIntegersBool: return !IsFloat(t);
  }
  return false;
}

// The kernel row a twin runs on dtype t.
OpId TwinOp(const FunctionInfo& f, DType t, bool truncate) {
  if (f.op != OpId::kDivide) return f.op;
  if (IsInteger(t)) return truncate ? OpId::kDivide : OpId::kFloorDivide;
  return OpId::kDivide;
}

int IdentityOf(OpId op) {
  switch (op) {
    case OpId::kAdd: case OpId::kLogicalOr: case OpId::kLogicalXor:
    case OpId::kBitwiseOr: case OpId::kBitwiseXor:
      return PyUFunc_Zero;
    case OpId::kMultiply: case OpId::kLogicalAnd:
      return PyUFunc_One;
    case OpId::kBitwiseAnd:
      return PyUFunc_MinusOne;
    case OpId::kMaximum: case OpId::kMinimum:
      return PyUFunc_ReorderableNone;
    default:
      return PyUFunc_None;
  }
}

// Resolves a call whose dtype= or signature= names bfloat16 for an input
// while no operand is bfloat16: NumPy's default resolver searches only the
// builtin loops then. Returns 1 when it resolved (out_dtypes set), 0 when the
// call is not one, -1 with an error set.
int ResolveForcedBFloat16(PyUFuncObject* ufunc, NPY_CASTING casting, PyArrayObject** operands,
                          PyObject* type_tup, PyArray_Descr** out_dtypes) {
  if (!type_tup || !PyTuple_Check(type_tup) || PyTuple_GET_SIZE(type_tup) != 3) return 0;
  Ref bf16(reinterpret_cast<PyObject*>(DescrOf(DType::kBF16)));
  if (!bf16) { PyErr_Clear(); return 0; }
  auto* d = reinterpret_cast<PyArray_Descr*>(bf16.get());
  const auto names_bf16 = [&](PyObject* item) {
    return item == bf16.get() || item == reinterpret_cast<PyObject*>(Py_TYPE(d)) ||
           (PyArray_DescrCheck(item) &&
            reinterpret_cast<PyArray_Descr*>(item)->type_num == d->type_num);
  };
  // The last builtin loop's output (the first may be bool's, for any op).
  const bool bool_result = ufunc->types[3 * (ufunc->ntypes - 1) + 2] == NPY_BOOL;
  bool forced = false;
  for (int i = 0; i < 3; ++i) {
    PyObject* item = PyTuple_GET_ITEM(type_tup, i);
    if (item == Py_None) continue;
    if (!names_bf16(item) || (i == 2 && bool_result)) return 0;
    forced = true;
  }
  if (!forced) return 0;
  Ref key(PyLong_FromLong(d->type_num));  // the twin must have a bfloat16 loop
  if (!key || !ufunc->userloops || PyDict_GetItemWithError(ufunc->userloops, key.get()) == nullptr) {
    if (PyErr_Occurred()) return -1;
    return 0;
  }
  for (int i = 0; i < 2; ++i) {
    if (!PyArray_CanCastArrayTo(operands[i], d, casting)) {
      PyErr_Format(PyExc_TypeError,
                   "Cannot cast ufunc '%s' input %d from %R to %R with casting rule '%s'",
                   ufunc->name, i, reinterpret_cast<PyObject*>(PyArray_DESCR(operands[i])),
                   bf16.get(), casting == NPY_SAFE_CASTING ? "safe" : "same_kind");
      return -1;
    }
  }
  out_dtypes[0] = d;
  out_dtypes[1] = d;
  Py_INCREF(d);
  Py_INCREF(d);
  out_dtypes[2] = bool_result ? PyArray_DescrFromType(NPY_BOOL) : d;
  if (!bool_result) Py_INCREF(d);
  return 1;
}

int TwinTypeResolver(PyUFuncObject* ufunc, NPY_CASTING casting, PyArrayObject** operands,
                     PyObject* type_tup, PyArray_Descr** out_dtypes) {
  const int forced = ResolveForcedBFloat16(ufunc, casting, operands, type_tup, out_dtypes);
  if (forced != 0) return forced < 0 ? -1 : 0;
  return PyUFunc_DefaultTypeResolver(ufunc, casting, operands, type_tup, out_dtypes);
}

// Also refuses two bools for the functions that do (SPEC §2), as NumPy's
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

PyObject* MakeUfuncTwin(const FunctionInfo& f, const char* name, const char* doc, bool truncate) {
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
  const bool mixed_sign = f.op == OpId::kDivide || f.op >= OpId::kEqual;
  for (size_t i = 0; i < sizeof(kBuiltinOrder) / sizeof(int); ++i) {
    const DType dt = kBuiltinDTypes[i];
    if (dt == DType::kF16 && mixed_sign && AcceptsDType(f, DType::kI64)) {
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
    const int npy = kBuiltinOrder[i];
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

  // bfloat16, through ml_dtypes' dtype.
  Ref bf16(reinterpret_cast<PyObject*>(DescrOf(DType::kBF16)));
  if (bf16 && AcceptsDType(f, DType::kBF16)) {
    auto* d = new LoopData{TwinOp(f, DType::kBF16, truncate), DType::kBF16};
    const int num = reinterpret_cast<PyArray_Descr*>(bf16.get())->type_num;
    const int arg_types[3] = {num, num, bool_result ? NPY_BOOL : num};
    if (PyUFunc_RegisterLoopForType(ufunc, num, &KernelLoop, arg_types, d) < 0) {
      Py_DECREF(u);
      return nullptr;
    }
  }
  PyErr_Clear();  // no ml_dtypes: no bfloat16 loop
  // Pickling finds the twin as eltwise.ufunc.<name> by __module__ where the
  // ufunc takes one (NumPy >= 2.1); NumPy 2.0's ufuncs have no __dict__, and
  // pickle's search of the loaded modules finds it there instead.
  Ref module(PyUnicode_FromString("eltwise.ufunc"));
  if (!module) {
    Py_DECREF(u);
    return nullptr;
  }
  if (PyObject_SetAttrString(u, "__module__", module.get()) < 0) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
      Py_DECREF(u);
      return nullptr;
    }
    PyErr_Clear();
  }
  return u;
}

}  // namespace eltwise
