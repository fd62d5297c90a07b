#include "python/binary_call.h"

#include <exception>
#include <new>
#include <string>

#include "core/broadcast.h"
#include "core/execute.h"
#include "core/plan.h"
#include "kernels/table.h"
#include "python/arguments.h"
#include "python/compact_views.h"
#include "python/delegation.h"
#include "python/errstate.h"
#include "python/mixed_sign_compare.h"
#include "python/overlap.h"
#include "python/promotion.h"
#include "python/pyint_compare.h"
#include "python/result_memory.h"
#include "python/value_checks.h"

namespace eltwise {
namespace {

// The operation the kernels run: `divide` on integers floors (pythondiv) or
// truncates. Integer operands whose common type is float64 (a signed integer
// with uint64) are still divided as integers, as numpy.floor_divide does,
// unless dtype= asked for a float computation.
OpId KernelOp(const FunctionInfo& f, const Options& opt, const Operands& ops, DType compute) {
  if (f.op != OpId::kDivide || IsInteger(compute)) return KernelRow(f, compute, opt.pythondiv);
  const bool integer_operands = IsInteger(ops.dt[0]) && IsInteger(ops.dt[1]) && !ops.AnyWeak();
  if (integer_operands && !opt.dtype) {
    return opt.pythondiv ? OpId::kFloorDivide : OpId::kTruncDivide;
  }
  return f.op;
}

// The layout of `a`; a weak Python scalar (nullptr) is 0-d.
void FillLayout(PyArrayObject* a, Layout* l) {
  l->ndim = a ? PyArray_NDIM(a) : 0;
  l->origin = 0;
  for (int i = 0; i < l->ndim; ++i) {
    l->shape[i] = PyArray_DIM(a, i);
    l->strides[i] = PyArray_STRIDE(a, i);
  }
}

// Gives `l` (broadcast from an operand) the strides of `a`, an array of that
// operand's shape that replaced it.
void RestrideTo(PyArrayObject* a, Layout* l) {
  int64_t strides[kMaxDims];
  for (int i = 0; i < PyArray_NDIM(a); ++i) strides[i] = PyArray_STRIDE(a, i);
  Restride(*l, strides);
}

// Checks `out` against the result's shape and dtype (docs/semantics.md: "`out=`").
bool CheckOut(const FunctionInfo& f, PyArrayObject* out, const int64_t* shape, int nd,
              PyArray_Descr* rdescr) {
  bool same = PyArray_NDIM(out) == nd;
  for (int i = 0; same && i < nd; ++i) same = PyArray_DIM(out, i) == shape[i];
  if (!same) {
    int64_t os[kMaxDims];
    for (int i = 0; i < PyArray_NDIM(out); ++i) os[i] = PyArray_DIM(out, i);
    PyErr_Format(PyExc_ValueError, "eltwise.%s: out has shape %s but the result has shape %s",
                 f.name, FormatShape(os, PyArray_NDIM(out)).c_str(), FormatShape(shape, nd).c_str());
    return false;
  }
  if (PyArray_FailUnlessWriteable(out, "output array") < 0) return false;
  if (!PyArray_CanCastTypeTo(rdescr, PyArray_DESCR(out), NPY_SAME_KIND_CASTING)) {
    PyErr_Format(PyExc_TypeError,
                 "Cannot cast ufunc '%s' output from %R to %R with casting rule 'same_kind'",
                 f.name, reinterpret_cast<PyObject*>(rdescr),
                 reinterpret_cast<PyObject*>(PyArray_DESCR(out)));
    return false;
  }
  return true;
}

// Whether an integer division by `divisor` raises divide-by-zero (a zero in
// it under numpy.errstate(divide='raise')); -1 with an error set. The scan
// reads the whole divisor (and copies it when strided) while errstate costs
// one Python call: a large divisor asks errstate first.
int ZeroDivisorRaises(PyArrayObject* divisor, DType t) {
  constexpr npy_intp kScanFirst = 4096;
  if (PyArray_SIZE(divisor) > kScanFirst && !DivideRaises()) return 0;
  const int zero = AnyZero(divisor, t);
  if (zero <= 0) return zero;
  return DivideRaises() ? 1 : 0;
}

// Copies a finished result into `out`. A cast to out's dtype (which may
// raise under numpy.errstate) happens first, into a temporary, so an error
// leaves out untouched.
bool CopyToOut(PyArrayObject* out, PyArrayObject* result) {
  Ref cast;
  if (!PyArray_EquivTypes(PyArray_DESCR(out), PyArray_DESCR(result))) {
    PyArray_Descr* d = PyArray_DESCR(out);
    Py_INCREF(d);
    cast.reset(PyArray_FromArray(result, d, NPY_ARRAY_FORCECAST));
    if (!cast) return false;
    result = cast.arr();
  }
  return PyArray_CopyInto(out, result) == 0;
}

}  // namespace

bool Resolve(const FunctionInfo& f, const Options& opt, Operands* ops, Resolution* r) {
  if (!ReadOperands(f, opt.x1, opt.x2, ops)) return false;
  DType compute;
  if (!ComputeDType(f, *ops, opt.dtype, &compute)) return false;
  if (compute == DType::kBool && f.accepts == Accepts::kNumeric) {
    PyErr_Format(PyExc_TypeError, "eltwise.%s does not support bool operands", f.name);
    return false;
  }
  if (IsFloat(compute) && f.accepts == Accepts::kIntegersBool) {
    Ref d(reinterpret_cast<PyObject*>(DescrOf(compute)));
    if (d) TypeErrorDType(f, reinterpret_cast<PyArray_Descr*>(d.get()));
    return false;
  }
  OpId op = KernelOp(f, opt, *ops, compute);
  if (!opt.dtype && !RewriteOutOfRangeComparison(&op, ops, compute, r->pyint_holders)) {
    return false;
  }
  r->mixed_signed = MixedSignOperand(op, opt.dtype, *ops);
  if (r->mixed_signed >= 0) compute = DType::kU64;
  r->op = op;
  r->compute = compute;
  r->result = ReturnsBool(op) ? DType::kBool : compute;
  return true;
}

PyObject* WeakScalarArray(OpId op, const Operands& ops, int i, PyArray_Descr* cdescr) {
  // A logical op reads its truth (docs/semantics.md: "Exactness"), which a cast could lose:
  // 1e-300 is 0 in float16, 300 does not fit int8. As NumPy's logical
  // loops take operands: as bool, a Python int through int64.
  PyObject* value = ops.x[i];
  Ref truth;
  if (IsLogical(op)) {
    int overflow = 0;
    if (ops.weak[i] == Weak::kInt) PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow) {
      PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C long");
      return nullptr;
    }
    const int t = PyObject_IsTrue(value);
    if (t < 0) return nullptr;
    truth.reset(PyBool_FromLong(t));
    value = truth.get();
  }
  DType as;
  if (!truth && ops.weak[i] == Weak::kInt && ToDType(cdescr, &as) && CodedPyInt(as)) {
    return ConvertCodedPyInt(value, cdescr);
  }
  Py_INCREF(cdescr);
  return PyArray_FromAny(value, cdescr, 0, 0, NPY_ARRAY_FORCECAST, nullptr);
}

namespace {

PyObject* Call(const FunctionInfo& f, PyObject* const* args, Py_ssize_t nargs,
               PyObject* kwnames) {
  Options opt;
  if (!ParseArguments(f, args, nargs, kwnames, &opt)) return nullptr;
  if (NeedsDelegation(opt)) return Delegate(f, opt);
  Operands ops;
  Resolution res;
  if (!Resolve(f, opt, &ops, &res)) return nullptr;
  const OpId op = res.op;
  DType compute = res.compute;
  const int mixed_signed = res.mixed_signed;

  PyArray_Descr* cdescr = DescrOf(compute);
  Ref cdescr_ref(reinterpret_cast<PyObject*>(cdescr));
  if (!cdescr) return nullptr;
  Ref* arr = ops.arr;
  const DType result = res.result;

  // The operands as given decide the shape and a new result's layout (NumPy's
  // order='K' reads the operands' strides, not those of converted copies).
  // Broadcast once; an operand replaced later (a converted or defensive copy)
  // gets its new strides through RestrideTo.
  Layout la, lb;
  Layout* layout[2] = {&la, &lb};
  int64_t shape[kMaxDims];
  int nd = 0;
  FillLayout(arr[0] ? arr[0].arr() : nullptr, &la);
  FillLayout(arr[1] ? arr[1].arr() : nullptr, &lb);
  std::string error;
  if (!Broadcast(opt.mode, opt.axis, la, lb, shape, &nd, f.name, &error)) {
    PyErr_SetString(PyExc_ValueError, error.c_str());
    return nullptr;
  }
  int64_t kstrides[kMaxDims];
  // (A result of rank 0 or 1 is C order whatever the operands.)
  const bool permuted = !opt.out && nd >= 2 && KeepOrderStrides(shape, nd, la.strides, lb.strides,
                                                     static_cast<int64_t>(ItemSize(result)),
                                                     kstrides);

  // Operands in the compute dtype, aligned and native (copies only if not).
  for (int i = 0; i < 2; ++i) {
    if (!arr[i]) {  // a weak Python scalar
      arr[i].reset(WeakScalarArray(op, ops, i, cdescr));
      // 0-d, as its layout: nothing to restride.
    } else {
      PyArrayObject* a = arr[i].arr();
      // Already in the compute dtype (built-in descriptors are singletons).
      if (PyArray_DESCR(a) == cdescr && PyArray_ISALIGNED(a) && PyArray_ISNOTSWAPPED(a)) continue;
      PyArrayObject* c = ConvertedOperand(a, cdescr);
      arr[i].reset(reinterpret_cast<PyObject*>(c));
      if (c) RestrideTo(c, layout[i]);
    }
    if (!arr[i]) return nullptr;
  }
  Ref rdescr_ref(result == compute ? nullptr : reinterpret_cast<PyObject*>(DescrOf(result)));
  PyArray_Descr* rdescr = result == compute ? cdescr
                                            : reinterpret_cast<PyArray_Descr*>(rdescr_ref.get());
  if (!rdescr) return nullptr;

  PyArrayObject* out = opt.out;
  if (out && !CheckOut(f, out, shape, nd, rdescr)) return nullptr;
  bool empty = false;
  for (int i = 0; i < nd; ++i) empty |= shape[i] == 0;
  // An empty result runs no kernel: NumPy raises nothing there either.
  if (RefusesNegativeExponents(op, compute) && !empty) {
    const int negative = AnyNegative(arr[1].arr(), compute);
    if (negative < 0) return nullptr;
    if (negative) return RaiseNegativeExponent();
  }

  const size_t isz = ItemSize(compute), osz = ItemSize(result);
  // Write straight into out when it holds the result dtype natively, unless
  // an error raised after the kernels ran would leave it half-written.
  bool direct = out && PyArray_EquivTypes(PyArray_DESCR(out), rdescr) &&
                PyArray_ISALIGNED(out) && PyArray_ISNOTSWAPPED(out) && mixed_signed < 0;
  if (direct && DividesIntegers(op) && IsInteger(compute)) {
    const int raises = ZeroDivisorRaises(arr[1].arr(), compute);
    if (raises < 0) return nullptr;
    if (raises) direct = false;
  }
  Ref target;
  bool new_pages = false;  // a fresh result on memory never touched yet
  if (direct) {
    for (int i = 0; i < 2; ++i) {
      if (Overlaps(PyArray_BYTES(arr[i].arr()), *layout[i], isz, out)) {
        arr[i].reset(PyArray_NewCopy(arr[i].arr(), NPY_KEEPORDER));
        if (!arr[i]) return nullptr;
        RestrideTo(arr[i].arr(), layout[i]);
      }
    }
    Py_INCREF(out);
    target.reset(reinterpret_cast<PyObject*>(out));
  } else {
    // Laid out as NumPy's order='K' (docs/semantics.md: "Operands and dtypes"): Fortran-ordered or otherwise
    // permuted operands give a result in their order (C order otherwise).
    Py_INCREF(rdescr);
    npy_intp dims[kMaxDims];
    for (int i = 0; i < nd; ++i) dims[i] = shape[i];
    npy_intp strides[kMaxDims];
    for (int i = 0; permuted && i < nd; ++i) strides[i] = kstrides[i];
    target.reset(NewResultArray(rdescr, nd, dims, permuted ? strides : nullptr, &new_pages));
    if (!target) return nullptr;
  }

  int64_t ostrides[kMaxDims];
  for (int i = 0; i < nd; ++i) ostrides[i] = PyArray_STRIDE(target.arr(), i);
  const Plan plan = MakePlan(shape, nd, la.strides, lb.strides, ostrides);
  ExecuteArgs ex = ArgsFor(Kernels(), op, compute, PyArray_BYTES(arr[0].arr()),
                           PyArray_BYTES(arr[1].arr()), PyArray_BYTES(target.arr()), isz, osz);
  int flags;
  if (static_cast<size_t>(plan.size) * (2 * isz + osz) >= ex.parallel_bytes) {
    Py_BEGIN_ALLOW_THREADS
    // A pool miss: fault the new pages in on every thread first (~5-15% faster).
    if (new_pages) FaultInPages(ex.out, static_cast<size_t>(PyArray_NBYTES(target.arr())));
    flags = Execute(plan, ex);
    Py_END_ALLOW_THREADS
  } else {
    flags = Execute(plan, ex);
  }

  if ((flags & kFlagDivideByZero) && !ReportDivideByZero(f)) return nullptr;
  if (mixed_signed >= 0 &&
      !FixMixedSignCompare(op, mixed_signed, arr[mixed_signed].arr(), mixed_signed == 0 ? la : lb,
                           target.arr())) {
    return nullptr;
  }
  if (out) {
    if (!direct && !CopyToOut(out, target.arr())) return nullptr;
    Py_INCREF(out);
    return reinterpret_cast<PyObject*>(out);
  }
  return PyArray_Return(reinterpret_cast<PyArrayObject*>(target.release()));
}

}  // namespace

PyObject* BinaryCall(const FunctionInfo& f, PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwnames) noexcept {
  // A C++ exception must not unwind into the interpreter (it would abort).
  try {
    return Call(f, args, nargs, kwnames);
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_Format(PyExc_RuntimeError, "eltwise.%s: internal error: %s", f.name, e.what());
    return nullptr;
  }
}

}  // namespace eltwise
