// The _eltwise extension module: creates the public binary functions and the
// runtime functions (targets, threads, config).
//
// The binary functions are plain METH_FASTCALL functions on the NumPy C API
// (binary_call.cc), not pybind11 overloads: per-call cost decides small-array
// speed. The runtime functions go through pybind11.

#define ELTWISE_IMPORTS_NUMPY  // this file fills NumPy's API tables
#include "python/numpy_dtypes.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "hwy/highway.h"  // HWY_MAJOR etc.
#include "hwy/targets.h"
#include "kernels/table.h"
#include "kernels/targets.h"
#include "python/arguments.h"
#include "python/delegation.h"
#include "python/function_object.h"
#include "python/fused_call.h"
#include "python/fused_object.h"
#include "python/promotion.h"
#include "python/result_memory.h"
#include "python/ufunc_twins.h"

namespace py = pybind11;

namespace eltwise {
namespace {

// The most threads set_num_threads takes: far more than any machine's cores,
// few enough that a typo (10**6) cannot exhaust the process.
constexpr int kMaxThreads = 1024;

const FunctionInfo& Find(const std::string& name) {
  const FunctionInfo* f = FindFunction(name.c_str());
  if (!f) throw py::value_error("eltwise: no binary function named " + name);
  return *f;
}

// Creates the public function `name` (the fast door) with docstring `doc`
// and ufunc twin `twin`.
py::object MakeFunction(const std::string& name, const py::str& doc, const py::object& twin) {
  PyObject* fn = MakeFunctionObject(Find(name), doc.ptr(), twin.ptr());
  if (!fn) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(fn);
}

// Creates the ufunc twin of function `name`, called `twin_name`;
// `truncate`: integer division truncates (divide_trunc).
py::object MakeUfunc(const std::string& name, const std::string& twin_name,
                     const std::string& doc, bool truncate,
                     const std::vector<std::string>& first_element_reduce) {
  std::vector<DType> first;
  for (const std::string& dtype : first_element_reduce) {
    bool found = false;
    for (int i = 0; i < kNumDTypes; ++i) {
      if (dtype == kDTypeTraits[i].name) {
        first.push_back(static_cast<DType>(i));
        found = true;
      }
    }
    if (!found) throw py::value_error("eltwise._make_ufunc: no dtype named " + dtype);
  }
  PyObject* u = MakeUfuncTwin(Find(name), twin_name.c_str(), doc.c_str(), truncate, first);
  if (!u) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(u);
}

// The public functions with their op's traits: the one table, as Python sees
// it (python/eltwise/_names.py and the tests derive their lists from it).
py::tuple FunctionTable() {
  py::list rows;
  for (const FunctionInfo& f : kFunctions) {
    const OpTraits& t = Traits(f.op);
    py::dict row;
    row["name"] = f.name;
    row["op"] = t.id;
    row["kind"] = KindName(t.kind);
    row["bool_result"] = t.bool_result;
    row["identity"] = IdentityName(t.identity);
    row["divides_integers"] = t.divides_integers;
    row["compute_bound"] = t.compute_bound;
    row["accepts"] = AcceptsName(f.accepts);
    row["pythondiv"] = f.pythondiv;
    row["openvino"] = f.engines.openvino;
    row["onnx"] = f.engines.onnx;
    row["tensorrt"] = f.engines.tensorrt;
    rows.append(row);
  }
  return py::tuple(rows);
}

// The dtypes eltwise computes in, one dict per row of the dtype table
// (core/dtype.h), in table order; `available` is false where the dtype's
// module did not import.
py::tuple DTypeTable() {
  py::list rows;
  for (int i = 0; i < kNumDTypes; ++i) {
    const DTypeTraits& t = kDTypeTraits[i];
    py::dict row;
    row["name"] = t.name;
    row["itemsize"] = t.item_size;
    row["category"] = CategoryName(t.category);
    row["source"] = SourceName(t.source);
    // A coded dtype's value bits and format (CodeFormat); 0 for a native one.
    row["code_bits"] = t.format.bits;
    row["exp_bits"] = t.format.exp_bits;
    row["mant_bits"] = t.format.mant_bits;
    row["bias"] = t.format.bias;
    row["available"] = HasDType(static_cast<DType>(i));
    rows.append(row);
  }
  return py::tuple(rows);
}

py::object NumpyShapeForX2(const std::string& name, const std::string& mode,
                           const py::object& shape1, const py::object& shape2, int64_t axis) {
  const BroadcastMode m = mode == "pdpd" ? BroadcastMode::kPdpd
                          : mode == "none" ? BroadcastMode::kNone : BroadcastMode::kNumpy;
  PyObject* s = NumpyShapeOfX2(Find(name).name, m, shape1.ptr(), shape2.ptr(), axis);
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(s);
}

std::string HighwayVersion() {
  return std::to_string(HWY_MAJOR) + "." + std::to_string(HWY_MINOR) + "." + std::to_string(HWY_PATCH);
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string ConfigText() {
  std::string s = "eltwise " ELTWISE_VERSION "\n";
  s += "  Highway:            " + HighwayVersion() + "\n";
  s += "  compiled targets:   " + Join(CompiledTargets()) + "\n";
  s += "  CPU runs:           " + Join(AvailableTargets()) + "\n";
  s += "  target in use:      " + CurrentTarget() + "\n";
  s += "  threads:            " + std::to_string(ThreadPool::Get().threads()) + "\n";
  s += "  result pool:        " + ResultPoolText() + "\n";
  return s;
}

void SetTarget(const py::object& name) {
  if (name.is_none()) {
    SelectTarget("");
    return;
  }
  if (!py::isinstance<py::str>(name)) {
    throw py::type_error("eltwise.set_target: name must be a str or None, got " +
                         std::string(Py_TYPE(name.ptr())->tp_name));
  }
  // Target names are ASCII; anything else (a lone surrogate, say) is unknown
  // without being encoded.
  const bool ascii = PyUnicode_IS_ASCII(name.ptr());
  const std::string n = ascii ? name.cast<std::string>() : std::string();
  if (!ascii || n.empty() || n.find('\0') != std::string::npos || !SelectTarget(n)) {
    throw py::value_error("eltwise.set_target: unknown or unsupported target " +
                          std::string(py::repr(name)) + "; this CPU runs: " +
                          Join(AvailableTargets()));
  }
}

void SetNumThreads(const py::object& n) {
  if (PyBool_Check(n.ptr()) || !PyIndex_Check(n.ptr())) {
    throw py::type_error("eltwise.set_num_threads: n must be an integer, got " +
                         std::string(Py_TYPE(n.ptr())->tp_name));
  }
  const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(n.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0 || v < 1 || v > kMaxThreads) {
    throw py::value_error("eltwise.set_num_threads: n must be between 1 and " +
                          std::to_string(kMaxThreads) + ", got " + std::string(py::repr(n)));
  }
  ThreadPool::Get().SetThreads(static_cast<int>(v));
}

void SetResultPoolLimitChecked(const py::object& n) {
  if (PyBool_Check(n.ptr()) || !PyIndex_Check(n.ptr())) {
    throw py::type_error("eltwise.set_result_pool_limit: nbytes must be an integer, got " +
                         std::string(Py_TYPE(n.ptr())->tp_name));
  }
  const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(n.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow < 0 || (overflow == 0 && v < 0)) {
    throw py::value_error("eltwise.set_result_pool_limit: nbytes must be >= 0, got " +
                          std::string(py::repr(n)));
  }
  // Anything beyond int64 means no limit but the machine's.
  SetResultPoolLimit(overflow > 0 ? SIZE_MAX : static_cast<size_t>(v));
}

}  // namespace
}  // namespace eltwise

PYBIND11_MODULE(_eltwise, m) {
  using namespace eltwise;
  if (_import_array() < 0 || _import_umath() < 0) throw py::error_already_set();
  InitDTypes();
  InitWeakPromotion();
  if (!InitArguments() || !InitFunctionType() || !InitFusedType(m.ptr())) {
    throw py::error_already_set();
  }
  m.attr("__version__") = ELTWISE_VERSION;
  m.attr("HIGHWAY_VERSION") = HighwayVersion();
  m.def("_make_function", &MakeFunction, py::arg("name"), py::arg("doc"), py::arg("twin"));
  m.def("_function_table", &FunctionTable,
        "The public functions and their ops' traits, one dict per function, in table order.");
  m.def("_dtype_table", &DTypeTable,
        "The dtypes eltwise computes in and their traits, one dict per dtype, in table order.");
  m.def("_make_ufunc", &MakeUfunc, py::arg("name"), py::arg("twin_name"), py::arg("doc"),
        py::arg("truncate"), py::arg("first_element_reduce"));
  m.def("_set_delegate", [](const py::object& fn) { SetDelegate(fn.ptr()); });
  m.def("_numpy_shape_for_x2", &NumpyShapeForX2, py::arg("name"), py::arg("mode"),
        py::arg("shape1"), py::arg("shape2"), py::arg("axis"));
  m.def("show_config", [] { py::print(ConfigText(), py::arg("end") = ""); },
        "Prints the version, Highway version, compiled targets, the targets this CPU runs,\n"
        "the target in use and the thread count.");
  m.def("config_text", &ConfigText, "Returns what show_config() prints.");
  m.def("get_targets", &AvailableTargets,
        "Returns the names of the compiled Highway targets this CPU can run, best first.");
  m.def("get_target", &CurrentTarget, "Returns the name of the Highway target in use.");
  m.def("set_target", &SetTarget, py::arg("name"),
        "Restricts dispatch to the named target (one of get_targets()); None restores the best.\n"
        "Raises ValueError for an unknown or unsupported name.");
  m.def("set_num_threads", &SetNumThreads, py::arg("n"),
        "Sets the number of threads large calls use (1 <= n <= 1024). Results do not depend on it.");
  m.def("get_num_threads", [] { return ThreadPool::Get().threads(); },
        "Returns the number of threads large calls use.");
  m.def("_available_cpus", &AvailableCpus);
  m.def("_shared_calls", [] { return ThreadPool::Get().shared_calls(); });
  m.def("_fuse_resolve", &FuseResolve, py::arg("name"), py::arg("x1"), py::arg("x2"),
        py::arg("kwargs"));
  m.def("_fuse_run", &FuseRun, py::arg("steps"), py::arg("scalars"), py::arg("inputs"),
        py::arg("outputs"), py::arg("shape"), py::arg("block_elements"), py::arg("threads"));
  m.def("_fuse_result", &FuseResult, py::arg("shape"), py::arg("dtype"));
  m.def("_fuse_remember", &FuseRemember, py::arg("door"), py::arg("arg_specs"), py::arg("steps"),
        py::arg("scalars"), py::arg("inputs"), py::arg("outputs"), py::arg("shape"),
        py::arg("block_elements"), py::arg("tuple_result"), py::arg("reports") = py::tuple());
  m.def("_fuse_forget", &FuseForget, py::arg("door"));
  m.def("_fuse_entries", &FuseEntries, py::arg("door"));
  m.def("_fuse_chains", &FuseChains, py::arg("door"));
  m.def("set_result_pool_limit", &SetResultPoolLimitChecked, py::arg("nbytes"),
        "Sets how many bytes of freed large results (32 MiB and up) eltwise keeps for reuse and\n"
        "frees what no longer fits. 0 turns the pool off: large results then take NumPy's memory.");
  m.def("result_pool_stats", [] {
    const ResultPoolStats s = GetResultPoolStats();
    py::dict d;
    d["held_bytes"] = s.held_bytes;
    d["held_buffers"] = s.held_buffers;
    d["limit_bytes"] = s.limit_bytes;
    d["reused"] = s.reused;
    d["allocated"] = s.allocated;
    return d;
  }, "Returns the result pool's state: held_bytes, held_buffers, limit_bytes, and the counts\n"
     "of large results that reused a kept buffer or took new memory since import.");
  m.def("release_result_pool", &ReleaseResultPool,
        "Frees every buffer the result pool keeps; returns the number of bytes freed.");
}
