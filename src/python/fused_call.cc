#include "python/fused_call.h"

#include <string>
#include <vector>

#include "core/fused.h"
#include "core/thread_pool.h"
#include "kernels/table.h"
#include "python/arguments.h"
#include "python/binary_call.h"
#include "python/delegation.h"
#include "python/numpy_dtypes.h"
#include "python/promotion.h"
#include "python/result_memory.h"
#include "python/value_checks.h"

namespace py = pybind11;

namespace eltwise {
namespace {

// Buffer slots a program may name: far more than a traced graph needs, few
// enough that a bad slot number cannot exhaust memory.
constexpr int64_t kMaxSlots = 256;
constexpr int64_t kMaxBlockElements = int64_t{1} << 24;
constexpr int kMaxThreads = 1024;

int64_t IntAt(const py::tuple& t, size_t i, int64_t lo, int64_t hi, const char* what) {
  const int64_t v = py::cast<int64_t>(t[i]);
  if (v < lo || v >= hi) {
    throw py::value_error("eltwise._fuse_run: " + std::string(what) + " " + std::to_string(v) +
                          " is out of range");
  }
  return v;
}

// The array `o` as a FusedView of `shape`, checked: native, aligned, that
// shape, a dtype eltwise computes in (and writeable for an output).
FusedView ViewOf(py::handle o, const int64_t* shape, int ndim, bool output) {
  if (!PyArray_Check(o.ptr())) throw py::type_error("eltwise._fuse_run: operands must be arrays");
  PyArrayObject* a = reinterpret_cast<PyArrayObject*>(o.ptr());
  bool same = PyArray_NDIM(a) == ndim;
  for (int i = 0; same && i < ndim; ++i) same = PyArray_DIM(a, i) == shape[i];
  if (!same) throw py::value_error("eltwise._fuse_run: an operand's shape is not the program's");
  if (!PyArray_ISALIGNED(a) || !PyArray_ISNOTSWAPPED(a)) {
    throw py::value_error("eltwise._fuse_run: operands must be aligned and in native byte order");
  }
  if (output && !PyArray_ISWRITEABLE(a)) throw py::value_error("eltwise._fuse_run: read-only out");
  FusedView v;
  if (!ToDType(PyArray_DESCR(a), &v.dtype)) {
    throw py::type_error("eltwise._fuse_run: an operand's dtype is not one eltwise computes in");
  }
  v.base = PyArray_BYTES(a);
  for (int i = 0; i < ndim; ++i) v.strides[i] = PyArray_STRIDE(a, i);
  return v;
}

}  // namespace

py::object FuseResolve(const std::string& name, py::handle x1, py::handle x2,
                       const py::dict& kwargs) {
  const FunctionInfo* f = FindFunction(name.c_str());
  if (!f) throw py::value_error("eltwise._fuse_resolve: no binary function named " + name);
  std::vector<PyObject*> args{x1.ptr(), x2.ptr()};
  py::list names;
  for (const auto& kv : kwargs) {
    names.append(kv.first);
    args.push_back(kv.second.ptr());
  }
  const py::tuple kwnames(names);
  Options opt;
  if (!ParseArguments(*f, args.data(), 2, kwargs.empty() ? nullptr : kwnames.ptr(), &opt)) {
    throw py::error_already_set();
  }
  if (opt.out || NeedsDelegation(opt)) return py::none();
  Operands ops;
  Resolution r;
  if (!Resolve(*f, opt, &ops, &r)) throw py::error_already_set();
  if (r.mixed_signed >= 0 || r.pyint_holders[0] || r.pyint_holders[1] ||
      RefusesNegativeExponents(r.op, r.compute)) {
    return py::none();
  }
  for (int i = 0; i < 2; ++i) {
    if (ops.weak[i] == Weak::kNone && ops.dt[i] != r.compute && !CastIsExact(ops.dt[i], r.compute)) {
      return py::none();
    }
  }
  return py::make_tuple(static_cast<int>(r.op), static_cast<int>(r.compute),
                        static_cast<int>(r.result));
}

void ParseShape(const py::tuple& shape, FusedProgram* p) {
  if (shape.size() < 1 || shape.size() > static_cast<size_t>(kMaxDims)) {
    throw py::value_error("eltwise._fuse_run: the shape must have 1 to 64 dimensions");
  }
  p->ndim = static_cast<int>(shape.size());
  // The size bounds every product of dimensions RunFused forms (broadcast
  // views can have any shape, so it is not bounded by memory).
  int64_t size = 1;
  for (int i = 0; i < p->ndim; ++i) {
    p->shape[i] = py::cast<int64_t>(shape[i]);
    if (p->shape[i] < 0) throw py::value_error("eltwise._fuse_run: a negative dimension");
    if (__builtin_mul_overflow(size, p->shape[i], &size) || size > (int64_t{1} << 62)) {
      throw py::value_error("eltwise._fuse_run: the shape has too many elements");
    }
  }
}

void ParseBlockElements(int64_t block_elements, FusedProgram* p) {
  if (block_elements < 1 || block_elements > kMaxBlockElements) {
    throw py::value_error("eltwise._fuse_run: block_elements out of range");
  }
  p->block_elements = block_elements;
}

void ParseSteps(const py::tuple& steps, int64_t nscalars, FusedProgram* p,
                std::vector<ScalarUse>* uses) {
  const KernelTable& table = Kernels();
  p->casts = &table.cast;
  for (size_t s = 0; s < steps.size(); ++s) {
    const py::tuple t = py::cast<py::tuple>(steps[s]);
    if (t.size() != 9) throw py::value_error("eltwise._fuse_run: a step is a 9-tuple");
    FusedStep step;
    const OpId op = static_cast<OpId>(IntAt(t, 0, 0, kNumOps, "op"));
    step.compute = static_cast<DType>(IntAt(t, 1, 0, kNumDTypes, "dtype"));
    step.result = static_cast<DType>(IntAt(t, 2, 0, kNumDTypes, "dtype"));
    const int o = static_cast<int>(op), c = static_cast<int>(step.compute);
    const bool kernels = table.k[o][c][0] && table.k[o][c][1] && table.k[o][c][2];
    if (!kernels || step.result != (ReturnsBool(op) ? DType::kBool : step.compute) ||
        !HasDType(step.compute)) {
      throw py::value_error("eltwise._fuse_run: no kernel computes that step");
    }
    for (int i = 0; i < 2; ++i) {
      FusedSource& src = step.x[i];
      src.kind = static_cast<FusedSource::Kind>(IntAt(t, 3 + 2 * i, 0, 3, "source kind"));
      DType dtype = step.compute;
      if (src.kind == FusedSource::kScalar) {
        const int64_t k = IntAt(t, 4 + 2 * i, 0, nscalars, "scalar");
        src.index = static_cast<int>(p->scalars.size());
        p->scalars.push_back(nullptr);  // ConvertScalars fills it
        uses->push_back({op, step.compute, i, src.index, static_cast<int>(k)});
      } else if (src.kind == FusedSource::kInput) {
        src.index = static_cast<int>(IntAt(t, 4 + 2 * i, 0,
                                           static_cast<int64_t>(p->inputs.size()), "input"));
        dtype = p->inputs[src.index].dtype;
      } else {
        src.index = static_cast<int>(IntAt(t, 4 + 2 * i, 0, static_cast<int64_t>(s), "step"));
        dtype = p->steps[src.index].result;
      }
      if (dtype != step.compute && !CastIsExact(dtype, step.compute)) {
        throw py::value_error("eltwise._fuse_run: an operand needs a cast the executor lacks");
      }
    }
    step.dest_output = py::cast<bool>(t[7]);
    if (step.dest_output) {
      step.dest = static_cast<int>(IntAt(t, 8, 0, static_cast<int64_t>(p->outputs.size()),
                                         "output"));
      if (p->outputs[step.dest].dtype != step.result) {
        throw py::value_error("eltwise._fuse_run: an output's dtype is not its step's result");
      }
    } else {
      step.dest = static_cast<int>(IntAt(t, 8, 0, kMaxSlots, "slot"));
      p->slots = std::max(p->slots, step.dest + 1);
    }
    const size_t isz = ItemSize(step.compute), osz = ItemSize(step.result);
    step.args = ArgsFor(table, op, step.compute, nullptr, nullptr, nullptr, isz, osz);
    step.chain_op = ChainOpOf(op, step.compute);
    p->steps.push_back(step);
  }
  if (!p->steps.empty()) MarkChain(p, table.chain[static_cast<int>(p->steps[0].compute)]);
}

void ConvertScalars(const std::vector<ScalarUse>& uses, PyObject* const* scalars,
                    const char** slots, std::vector<py::object>* keep) {
  for (const ScalarUse& u : uses) {
    Operands ops;
    ops.x[u.operand] = scalars[u.scalar];
    ops.weak[u.operand] = WeakKind(ops.x[u.operand]);
    if (ops.weak[u.operand] == Weak::kNone) {
      throw py::type_error("eltwise._fuse_run: scalars must be Python bool, int or float");
    }
    Ref descr(reinterpret_cast<PyObject*>(DescrOf(u.compute)));
    if (!descr) throw py::error_already_set();
    py::object value = py::reinterpret_steal<py::object>(WeakScalarArray(
        u.op, ops, u.operand, reinterpret_cast<PyArray_Descr*>(descr.get())));
    if (!value) throw py::error_already_set();
    slots[u.slot] = PyArray_BYTES(reinterpret_cast<PyArrayObject*>(value.ptr()));
    keep->push_back(std::move(value));
  }
}

py::list FuseRun(const py::tuple& steps, const py::list& scalars, const py::list& inputs,
                 const py::list& outputs, const py::tuple& shape, int64_t block_elements,
                 int threads) {
  FusedProgram p;
  ParseShape(shape, &p);
  ParseBlockElements(block_elements, &p);
  if (threads < 1 || threads > kMaxThreads) {
    throw py::value_error("eltwise._fuse_run: threads out of range");
  }
  // Every object read below stays referenced here until the run ends, though
  // the caller's lists could change while the GIL is released.
  std::vector<py::object> keep;
  for (py::handle o : inputs) {
    keep.push_back(py::reinterpret_borrow<py::object>(o));
    p.inputs.push_back(ViewOf(o, p.shape, p.ndim, false));
  }
  for (py::handle o : outputs) {
    keep.push_back(py::reinterpret_borrow<py::object>(o));
    p.outputs.push_back(ViewOf(o, p.shape, p.ndim, true));
  }
  std::vector<ScalarUse> uses;
  ParseSteps(steps, static_cast<int64_t>(scalars.size()), &p, &uses);
  std::vector<PyObject*> scalar_objects;
  for (py::handle o : scalars) {
    keep.push_back(py::reinterpret_borrow<py::object>(o));
    scalar_objects.push_back(o.ptr());
  }
  ConvertScalars(uses, scalar_objects.data(), p.scalars.data(), &keep);
  std::vector<int> flags(p.steps.size());
  {
    py::gil_scoped_release release;
    RunFused(p, {p.scalars.data(), p.inputs.data(), p.outputs.data()}, threads, flags.data());
  }
  py::list result;
  for (int f : flags) result.append(f);
  return result;
}

py::object FuseResult(const py::tuple& shape, const py::handle dtype) {
  PyArray_Descr* descr = nullptr;
  if (!PyArray_DescrConverter(dtype.ptr(), &descr)) throw py::error_already_set();
  Ref descr_ref(reinterpret_cast<PyObject*>(descr));
  DType t;
  if (!ToDType(descr, &t)) throw py::type_error("eltwise._fuse_result: not a dtype eltwise computes in");
  if (shape.size() > static_cast<size_t>(kMaxDims)) {
    throw py::value_error("eltwise._fuse_result: more than 64 dimensions");
  }
  npy_intp dims[kMaxDims];
  const int nd = static_cast<int>(shape.size());
  for (int i = 0; i < nd; ++i) {
    dims[i] = py::cast<npy_intp>(shape[i]);
    if (dims[i] < 0) throw py::value_error("eltwise._fuse_result: a negative dimension");
  }
  bool new_pages = false;
  Py_INCREF(descr);  // NewResultArray steals it
  PyObject* a = NewResultArray(descr, nd, dims, nullptr, &new_pages);
  if (!a) throw py::error_already_set();
  const size_t bytes = static_cast<size_t>(PyArray_NBYTES(reinterpret_cast<PyArrayObject*>(a)));
  if (new_pages && ThreadPool::Get().threads() > 1 && bytes >= (size_t{1} << 19)) {
    py::gil_scoped_release release;
    FaultInPages(PyArray_BYTES(reinterpret_cast<PyArrayObject*>(a)), bytes);
  }
  return py::reinterpret_steal<py::object>(a);
}

}  // namespace eltwise
