#include "python/fused_object.h"

#include <pybind11/pybind11.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/fused.h"
#include "core/small_buffer.h"
#include "core/thread_pool.h"
#include "kernels/table.h"
#include "python/fused_call.h"
#include "python/overlap.h"
#include "python/result_memory.h"

namespace py = pybind11;

namespace eltwise {
namespace {

// Signatures one fused function keeps (the oldest is dropped beyond): more
// than a function is usually called with, few enough that matching a call
// stays a short scan.
constexpr size_t kMaxEntries = 32;
// Bytes (operands and results) from which a call releases the GIL: below,
// releasing and taking it back costs more than other threads gain.
constexpr size_t kReleaseBytes = size_t{1} << 16;
// Result bytes from which new pages are faulted in on every thread first, as
// _fuse_result does.
constexpr size_t kFaultBytes = size_t{1} << 19;

// One argument of a registered signature, as python/eltwise/_fuse.py keys it.
struct ArgSpec {
  // kNumber: a NumPy scalar of a built-in type, read as a 0-d array.
  enum Kind { kArray, kFloat, kBool, kInt, kNumber } kind = kFloat;
  Ref descr;                    // kArray, kNumber: the dtype, kArray's matched by identity
  Ref type;                     // kNumber: the scalar's type, matched by identity
  std::vector<npy_intp> shape;  // kArray
  bool negative = false;        // kInt: v < 0, and the bits of v (of ~v if negative)
  int bits = 0;
};

// A program input: an argument's array or a constant array of the graph.
struct InputSpec {
  int arg = -1;  // -1: `constant`
  // arg is a kNumber: a 0-d operand copied from the scalar into the call's
  // buffer slot `number` (Entry::numbers slots); -1 otherwise.
  int number = -1;
  Ref constant;  // an exact ndarray, rechecked on every call (its shape and dtype can be reset)
  Ref descr;     // the array's dtype
  std::vector<npy_intp> shape;
  bool broadcast = false;
  std::vector<int> axes;  // broadcast: the program axis of each dimension != 1, in order
};

// A program scalar: an argument or a constant Python bool, int or float.
struct ScalarSpec {
  int arg = -1;  // -1: `constant`
  Ref constant;
};

// An integer division step's report: the unfused call that warns or raises
// as numpy.errstate says for a division by zero (fn(*args, **kwargs), as
// _fuse_run._report makes it), called when the step met one.
struct Report {
  size_t step = 0;
  Ref fn, args, kwargs;  // kwargs: a dict or null
};

// A registered signature and its program.
struct Entry {
  std::vector<ArgSpec> args;
  std::vector<InputSpec> inputs;
  std::vector<ScalarSpec> scalars;
  std::vector<ScalarUse> uses;
  FusedProgram program;  // its views give dtypes only: each call makes its own
  const KernelTable* table = nullptr;  // the target's kernels the steps were made with
  std::vector<Ref> out_descrs;
  std::vector<int> positions;  // output k is result position positions[k]
  bool tuple_result = false;
  size_t bytes_per_element = 0;  // every input and output, for the GIL decision
  size_t numbers = 0;            // inputs read from NumPy scalars (kNumber)
  std::vector<Report> reports;   // in node order
};

struct FusedObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* impl;  // the Python implementation (_fuse.Fused)
  // For a function of plain parameters only (null otherwise): a tuple of
  // their names in order (None for a positional-only one, which no keyword
  // names), and a tuple of the defaults of its last parameters.
  PyObject* names;
  PyObject* defaults;
  PyObject* dict;  // __dict__: functools.update_wrapper's attributes
  PyObject* weakrefs;
  std::vector<std::shared_ptr<Entry>>* entries;  // oldest first
};

PyTypeObject g_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

FusedObject* As(PyObject* o) { return reinterpret_cast<FusedObject*>(o); }

PyObject* NewRef(py::handle h) {
  Py_INCREF(h.ptr());
  return h.ptr();
}

// The sign and bit count _fuse._int_key gives a Python int, for |v| < 2^63;
// false for larger ints (never registered).
bool IntKey(PyObject* o, bool* negative, int* bits) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  *negative = v < 0;
  const unsigned long long m = static_cast<unsigned long long>(v < 0 ? ~v : v);
  *bits = m ? 64 - __builtin_clzll(m) : 0;
  return true;
}

bool ShapeIs(PyArrayObject* a, const std::vector<npy_intp>& shape) {
  if (PyArray_NDIM(a) != static_cast<int>(shape.size())) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (PyArray_DIM(a, static_cast<int>(i)) != shape[i]) return false;
  }
  return true;
}

bool Matches(const Entry& e, PyObject* const* args, Py_ssize_t n) {
  if (n != static_cast<Py_ssize_t>(e.args.size())) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const ArgSpec& s = e.args[static_cast<size_t>(i)];
    PyObject* o = args[i];
    switch (s.kind) {
      case ArgSpec::kArray:
        if (!PyArray_CheckExact(o) ||
            reinterpret_cast<PyObject*>(PyArray_DESCR(reinterpret_cast<PyArrayObject*>(o))) !=
                s.descr.get() ||
            !ShapeIs(reinterpret_cast<PyArrayObject*>(o), s.shape)) {
          return false;
        }
        break;
      case ArgSpec::kFloat:
        if (!PyFloat_CheckExact(o)) return false;
        break;
      case ArgSpec::kBool:
        if (!PyBool_Check(o)) return false;
        break;
      case ArgSpec::kNumber:
        if (reinterpret_cast<PyObject*>(Py_TYPE(o)) != s.type.get()) return false;
        break;
      case ArgSpec::kInt: {
        bool negative;
        int bits;
        if (!PyLong_CheckExact(o) || !IntKey(o, &negative, &bits) || negative != s.negative ||
            bits != s.bits) {
          return false;
        }
        break;
      }
    }
  }
  return true;
}

// Whether the call's conversion of Python scalar `o` to `compute` raises and
// reports nothing. For a bool or an int (|v| < 2^63) into an integer, float32
// or float64 step that holds for every value of the signature's kind, sign
// and bit count once it held for the registering call (whether an int fits
// an integer dtype depends on those alone); a float into float32 is checked
// here (beyond float32's range it reports an overflow). Every other case
// (float16, bfloat16 and the coded dtypes, whose ranges are narrower) is left
// to the implementation.
bool Silent(PyObject* o, DType compute) {
  if (PyFloat_CheckExact(o)) {
    if (compute == DType::kF64) return true;
    if (compute != DType::kF32) return false;
    const double v = PyFloat_AS_DOUBLE(o);
    return !std::isfinite(v) || std::fabs(v) <= std::numeric_limits<float>::max();
  }
  return (IsInteger(compute) && !IsCoded(compute)) || compute == DType::kBool ||
         compute == DType::kF32 || compute == DType::kF64;
}

// The arrays of a call's out= for entry e's outputs, in program order, in
// outs[k]: false (nothing set but outs) where the implementation takes the
// call: an out it raises on (not the result's count, shape or dtype,
// read-only), one it converts or copies (another dtype, not aligned and
// native, a subclass, a tuple of one for a single result), or outs that may
// share memory with each other.
bool OutArrays(const Entry& e, PyObject* out, const FusedProgram& p, PyArrayObject** outs) {
  const size_t nout = e.out_descrs.size();
  if (e.tuple_result &&
      (!PyTuple_CheckExact(out) || PyTuple_GET_SIZE(out) != static_cast<Py_ssize_t>(nout))) {
    return false;
  }
  for (size_t k = 0; k < nout; ++k) {
    PyObject* o = e.tuple_result ? PyTuple_GET_ITEM(out, e.positions[k]) : out;
    if (!PyArray_CheckExact(o)) return false;
    PyArrayObject* a = reinterpret_cast<PyArrayObject*>(o);
    PyArray_Descr* want = reinterpret_cast<PyArray_Descr*>(e.out_descrs[k].get());
    if ((PyArray_DESCR(a) != want && !PyArray_EquivTypes(PyArray_DESCR(a), want)) ||
        !PyArray_ISALIGNED(a) || !PyArray_ISNOTSWAPPED(a) || !PyArray_ISWRITEABLE(a) ||
        PyArray_NDIM(a) != p.ndim) {
      return false;
    }
    for (int i = 0; i < p.ndim; ++i) {
      if (PyArray_DIM(a, i) != p.shape[i]) return false;
    }
    for (size_t j = 0; j < k; ++j) {
      if (MayShareMemory(a, outs[j])) return false;
    }
    outs[k] = a;
  }
  return true;
}

// Runs entry e on the matched arguments, its results into `out` (out=, the
// call's; null for new arrays). nullptr with *declined (nothing written, no
// error set) where this call's values need the implementation: an operand
// that is not aligned and native, a constant whose shape or dtype changed,
// a scalar Silent refuses or whose conversion raises, an out OutArrays
// leaves to it or that may share memory with an operand (the implementation
// computes into a temporary then). nullptr with an error set, *declined
// false, where the run itself failed.
PyObject* RunEntry(const Entry& e, PyObject* const* args, PyObject* out, bool* declined) {
  *declined = true;
  // After set_target the steps' kernels are another target's: the
  // implementation runs the call, and registers the program anew.
  if (&Kernels() != e.table) return nullptr;
  // The call's operands, on the stack for a short chain: this call's views
  // of the entry's program (whose own views give their dtypes).
  const FusedProgram& p = e.program;
  const int nd = p.ndim;
  const size_t nin = p.inputs.size(), nout = p.outputs.size();
  SmallBuffer<FusedView, 8> views(nin + nout);
  // The values of NumPy scalar operands (at most 8 bytes: FuseRemember's
  // built-in types), each read as a 0-d operand: every stride zero.
  struct alignas(16) NumberBytes {
    unsigned char b[16];
  };
  SmallBuffer<NumberBytes, 4> numbers(e.numbers);
  SmallBuffer<PyArrayObject*, 4> out_arrays(nout);
  // An out= with integer divisions: the implementation computes into a
  // temporary where errstate may raise, so that out is left as it was.
  if (out && (!e.reports.empty() || !OutArrays(e, out, p, out_arrays.get()))) return nullptr;
  for (size_t k = 0; k < nin; ++k) {
    const InputSpec& in = e.inputs[k];
    if (in.number >= 0) {
      FusedView& v = views[k];
      unsigned char* bytes = numbers[static_cast<size_t>(in.number)].b;
      PyArray_ScalarAsCtype(args[in.arg], bytes);
      v.base = reinterpret_cast<char*>(bytes);
      v.dtype = p.inputs[k].dtype;
      for (int i = 0; i < nd; ++i) v.strides[i] = 0;
      continue;
    }
    PyArrayObject* a =
        reinterpret_cast<PyArrayObject*>(in.arg >= 0 ? args[in.arg] : in.constant.get());
    if (in.arg < 0 && (reinterpret_cast<PyObject*>(PyArray_DESCR(a)) != in.descr.get() ||
                       !ShapeIs(a, in.shape))) {
      return nullptr;
    }
    if (!PyArray_ISALIGNED(a) || !PyArray_ISNOTSWAPPED(a)) return nullptr;
    for (size_t j = 0; out && j < nout; ++j) {
      if (MayShareMemory(a, out_arrays[j])) return nullptr;
    }
    FusedView& v = views[k];
    v.base = PyArray_BYTES(a);
    v.dtype = p.inputs[k].dtype;
    if (!in.broadcast) {
      for (int i = 0; i < nd; ++i) v.strides[i] = PyArray_STRIDE(a, i);
    } else {
      for (int i = 0; i < nd; ++i) v.strides[i] = 0;
      size_t j = 0;
      for (int d = 0; d < PyArray_NDIM(a); ++d) {
        if (PyArray_DIM(a, d) != 1) v.strides[in.axes[j++]] = PyArray_STRIDE(a, d);
      }
    }
  }
  const size_t nscalars = e.scalars.size();
  SmallBuffer<PyObject*, 8> scalars(nscalars);
  for (size_t k = 0; k < nscalars; ++k) {
    scalars[k] = e.scalars[k].arg >= 0 ? args[e.scalars[k].arg] : e.scalars[k].constant.get();
  }
  for (const ScalarUse& u : e.uses) {
    if (!Silent(scalars[static_cast<size_t>(u.scalar)], u.compute)) return nullptr;
  }
  SmallBuffer<const char*, 8> slots(p.scalars.size());
  std::vector<py::object> keep;
  if (!e.uses.empty()) {
    try {
      ConvertScalars(e.uses, scalars.get(), slots.get(), &keep);
    } catch (const py::error_already_set&) {
      return nullptr;  // the error is dropped: the implementation raises it as the call does
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  *declined = false;
  npy_intp dims[kMaxDims];
  int64_t size = 1;
  for (int i = 0; i < nd; ++i) {
    dims[i] = static_cast<npy_intp>(p.shape[i]);
    size *= p.shape[i];
  }
  SmallBuffer<Ref, 4> outs(nout);
  SmallBuffer<bool, 4> new_pages(nout);
  for (size_t k = 0; k < nout; ++k) {
    bool fresh = false;
    if (out) {
      Py_INCREF(out_arrays[k]);
      outs[k].reset(reinterpret_cast<PyObject*>(out_arrays[k]));
    } else {
      PyArray_Descr* d = reinterpret_cast<PyArray_Descr*>(e.out_descrs[k].get());
      Py_INCREF(d);  // NewResultArray steals it
      outs[k].reset(NewResultArray(d, nd, dims, nullptr, &fresh));
      if (!outs[k]) return nullptr;
    }
    new_pages[k] = fresh;
    FusedView& v = views[nin + k];
    v.base = PyArray_BYTES(outs[k].arr());
    v.dtype = p.outputs[k].dtype;
    for (int i = 0; i < nd; ++i) v.strides[i] = PyArray_STRIDE(outs[k].arr(), i);
  }
  const int threads = ThreadPool::Get().threads();
  SmallBuffer<int, 16> flags(p.steps.size());
  bool no_memory = false;
  const auto run = [&] {
    try {
      RunFused(p, {slots.get(), views.get(), views.get() + nin}, threads, flags.get());
    } catch (const std::bad_alloc&) {
      no_memory = true;
    }
  };
  if (e.bytes_per_element && static_cast<size_t>(size) >= kReleaseBytes / e.bytes_per_element) {
    Py_BEGIN_ALLOW_THREADS
    for (size_t k = 0; k < nout; ++k) {
      const size_t bytes = static_cast<size_t>(PyArray_NBYTES(outs[k].arr()));
      if (new_pages[k] && threads > 1 && bytes >= kFaultBytes) {
        FaultInPages(PyArray_BYTES(outs[k].arr()), bytes);
      }
    }
    run();
    Py_END_ALLOW_THREADS
  } else {
    run();
  }
  if (no_memory) return PyErr_NoMemory();
  for (const Report& r : e.reports) {
    if (!(flags[r.step] & kFlagDivideByZero)) continue;
    // Python code runs here: e is kept alive by the caller's shared_ptr, and
    // outs are owned references, dropped if the report raises.
    Ref done(PyObject_Call(r.fn.get(), r.args.get(), r.kwargs.get()));
    if (!done) return nullptr;
  }
  if (!e.tuple_result) return outs[0].release();
  PyObject* r = PyTuple_New(static_cast<Py_ssize_t>(nout));
  if (!r) return nullptr;
  for (size_t k = 0; k < nout; ++k) PyTuple_SET_ITEM(r, e.positions[k], outs[k].release());
  return r;
}

// The arguments of a call that names parameters by keyword or leaves them
// to their defaults, in parameter order in `full` (borrowed from the call
// and from f->defaults, which outlive it), as the implementation orders them
// (_fuse.Fused._leaves), keyword out_at (out=, or -1) left out; false, with
// nothing set, for any call it would not
// order so (an unknown, repeated or positional-only keyword, a parameter
// left unset): the implementation then raises the call's error or takes it.
bool InParameterOrder(const FusedObject* f, PyObject* const* args, Py_ssize_t n,
                      PyObject* kwnames, Py_ssize_t out_at, PyObject** full, Py_ssize_t total) {
  for (Py_ssize_t i = 0; i < total; ++i) full[i] = i < n ? args[i] : nullptr;
  const Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t j = 0; j < nk; ++j) {
    if (j == out_at) continue;  // out=, never a parameter
    PyObject* key = PyTuple_GET_ITEM(kwnames, j);
    Py_ssize_t at = -1;
    for (Py_ssize_t i = n; i < total && at < 0; ++i) {
      PyObject* name = PyTuple_GET_ITEM(f->names, i);
      if (name == key) at = i;  // both interned, usually
    }
    for (Py_ssize_t i = n; i < total && at < 0; ++i) {
      PyObject* name = PyTuple_GET_ITEM(f->names, i);
      if (!PyUnicode_CheckExact(name)) continue;
      const int eq = PyUnicode_Compare(name, key);
      if (eq == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      if (eq == 0) at = i;
    }
    if (at < 0 || full[at]) return false;
    full[at] = args[n + j];
  }
  const Py_ssize_t nd = PyTuple_GET_SIZE(f->defaults);
  for (Py_ssize_t i = n; i < total; ++i) {
    if (full[i]) continue;
    if (i < total - nd) return false;
    full[i] = PyTuple_GET_ITEM(f->defaults, i - (total - nd));
  }
  return true;
}

PyObject* Vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  FusedObject* f = As(self);
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf);
  // out= is the implementation's own keyword (never one of fn's parameters):
  // the results' arrays, None as if not given.
  const Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  Py_ssize_t out_at = -1;
  for (Py_ssize_t j = 0; j < nk && out_at < 0; ++j) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, j);
    if (PyUnicode_CheckExact(key) && PyUnicode_CompareWithASCIIString(key, "out") == 0) {
      out_at = j;
    }
  }
  PyObject* out = out_at >= 0 && args[n + out_at] != Py_None ? args[n + out_at] : nullptr;
  const bool keywords = nk > (out_at >= 0 ? 1 : 0);
  // A call of a plain-parameter function with keywords or defaults runs as
  // the same call with every argument positional would (the implementation
  // registers it under that signature).
  const bool plain = f->names && f->defaults;  // both null once cleared
  const Py_ssize_t total = plain ? PyTuple_GET_SIZE(f->names) : 0;
  const bool reorder = plain && (keywords || n < total);
  PyObject* const* run_args = args;
  Py_ssize_t run_n = n;
  bool eligible = !keywords;
  // Holds the defaults the reordered arguments may borrow for the call.
  Ref defaults;
  PyObject* inline_full[8];
  std::unique_ptr<PyObject*[]> heap_full;
  // (A reorder with n > total has keywords, so `eligible` is already false.)
  if (reorder && n <= total) {
    PyObject** full = inline_full;
    if (total > 8) {
      heap_full.reset(new (std::nothrow) PyObject*[static_cast<size_t>(total)]);
      if (!heap_full) return PyErr_NoMemory();
      full = heap_full.get();
    }
    Py_INCREF(f->defaults);
    defaults.reset(f->defaults);
    eligible = InParameterOrder(f, args, n, kwnames, out_at, full, total);
    if (eligible) {
      run_args = full;
      run_n = total;
    }
  }
  if (eligible) {
    std::shared_ptr<Entry> hit;  // kept while the run releases the GIL
    for (auto it = f->entries->rbegin(); it != f->entries->rend(); ++it) {
      if (Matches(**it, run_args, run_n)) {
        hit = *it;
        break;
      }
    }
    if (hit) {
      bool declined = false;
      PyObject* r;
      try {
        r = RunEntry(*hit, run_args, out, &declined);
      } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
      }
      if (r || !declined) return r;
    }
  }
  if (!f->impl) {
    PyErr_SetString(PyExc_TypeError, "eltwise.fuse: a fused function cleared by the collector");
    return nullptr;
  }
  return PyObject_Vectorcall(f->impl, args, nargsf, kwnames);
}

PyObject* New(PyTypeObject* type, PyObject* args, PyObject* kwds) {
  PyObject* impl = nullptr;
  PyObject* names = Py_None;
  PyObject* defaults = Py_None;
  static const char* kwlist[] = {"impl", "names", "defaults", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OO:_FusedFunction",
                                   const_cast<char**>(kwlist), &impl, &names, &defaults)) {
    return nullptr;
  }
  if (!PyCallable_Check(impl)) {
    PyErr_SetString(PyExc_TypeError, "_FusedFunction: impl must be callable");
    return nullptr;
  }
  if (names != Py_None || defaults != Py_None) {
    // The door borrows from both for a call's arguments: exact tuples, the
    // names str or None, no more defaults than names.
    bool ok = PyTuple_CheckExact(names) && PyTuple_CheckExact(defaults) &&
              PyTuple_GET_SIZE(defaults) <= PyTuple_GET_SIZE(names);
    for (Py_ssize_t i = 0; ok && i < PyTuple_GET_SIZE(names); ++i) {
      PyObject* name = PyTuple_GET_ITEM(names, i);
      ok = name == Py_None || PyUnicode_CheckExact(name);
    }
    if (!ok) {
      PyErr_SetString(PyExc_TypeError,
                      "_FusedFunction: names must be a tuple of str or None and defaults a "
                      "tuple no longer than it");
      return nullptr;
    }
  }
  auto* entries = new (std::nothrow) std::vector<std::shared_ptr<Entry>>();
  if (!entries) return PyErr_NoMemory();
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) {
    delete entries;
    return nullptr;
  }
  FusedObject* f = As(o);
  f->vectorcall = &Vectorcall;
  Py_INCREF(impl);
  f->impl = impl;
  f->names = nullptr;
  f->defaults = nullptr;
  if (names != Py_None) {
    Py_INCREF(names);
    f->names = names;
    Py_INCREF(defaults);
    f->defaults = defaults;
  }
  f->dict = nullptr;
  f->weakrefs = nullptr;
  f->entries = entries;
  return o;
}

void Dealloc(PyObject* self) {
  FusedObject* f = As(self);
  PyObject_GC_UnTrack(self);
  if (f->weakrefs) PyObject_ClearWeakRefs(self);
  Py_CLEAR(f->impl);
  Py_CLEAR(f->names);
  Py_CLEAR(f->defaults);
  Py_CLEAR(f->dict);
  // Entries hold no object that can reach self: arrays, numbers, dtypes, and
  // reports' eltwise functions, arrays and keyword dicts.
  delete f->entries;
  f->entries = nullptr;
  Py_TYPE(self)->tp_free(self);
}

int Traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(As(self)->impl);
  Py_VISIT(As(self)->defaults);
  Py_VISIT(As(self)->dict);
  return 0;
}

int Clear(PyObject* self) {
  Py_CLEAR(As(self)->impl);  // the implementation refers back to self (_fuse.Fused._door)
  Py_CLEAR(As(self)->names);
  Py_CLEAR(As(self)->defaults);  // a default may refer back to self
  Py_CLEAR(As(self)->dict);
  return 0;
}

PyObject* Repr(PyObject* self) {
  if (!As(self)->impl) return PyUnicode_FromString("<eltwise.fuse of nothing>");
  return PyObject_Repr(As(self)->impl);
}

// Attributes of its own (its __dict__) first, then the implementation's.
PyObject* GetAttr(PyObject* self, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr(self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError) || !As(self)->impl) return r;
  PyErr_Clear();
  return PyObject_GetAttr(As(self)->impl, name);
}

// A method when read through an instance, as a Python function is.
PyObject* DescrGet(PyObject* self, PyObject* obj, PyObject*) {
  if (!obj || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

// Pickles by reference: the global its __qualname__ names in its __module__,
// as a Python function pickles.
PyObject* Reduce(PyObject* self, PyObject*) { return PyObject_GetAttrString(self, "__qualname__"); }

PyMethodDef kMethods[] = {
    {"__reduce__", &Reduce, METH_NOARGS, "Pickles the function by its qualified name."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef kGetSet[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

FusedObject* Door(py::handle door) {
  if (Py_TYPE(door.ptr()) != &g_type) throw py::type_error("not an eltwise fused function");
  return As(door.ptr());
}

std::vector<npy_intp> ShapeOf(py::handle shape) {
  const py::tuple t = py::cast<py::tuple>(shape);
  if (t.size() > static_cast<size_t>(kMaxDims)) throw py::value_error("more than 64 dimensions");
  std::vector<npy_intp> r;
  for (py::handle d : t) {
    r.push_back(py::cast<npy_intp>(d));
    if (r.back() < 0) throw py::value_error("a negative dimension");
  }
  return r;
}

DType DTypeOf(PyObject* descr) {
  DType t;
  if (!PyArray_DescrCheck(descr) || !ToDType(reinterpret_cast<PyArray_Descr*>(descr), &t)) {
    throw py::type_error("not a dtype eltwise computes in");
  }
  return t;
}

bool SameArgs(const Entry& a, const Entry& b) {
  if (a.args.size() != b.args.size()) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    const ArgSpec &x = a.args[i], &y = b.args[i];
    if (x.kind != y.kind || x.descr.get() != y.descr.get() || x.type.get() != y.type.get() ||
        x.shape != y.shape ||
        x.negative != y.negative || x.bits != y.bits) {
      return false;
    }
  }
  return true;
}

}  // namespace

void FuseRemember(py::handle door, const py::tuple& arg_specs, const py::tuple& steps,
                  const py::tuple& scalars, const py::tuple& inputs, const py::tuple& outputs,
                  const py::tuple& shape, int64_t block_elements, bool tuple_result,
                  const py::tuple& reports) {
  FusedObject* f = Door(door);
  auto e = std::make_shared<Entry>();
  FusedProgram& p = e->program;
  ParseShape(shape, &p);
  ParseBlockElements(block_elements, &p);
  const std::vector<npy_intp> program_shape(p.shape, p.shape + p.ndim);
  for (py::handle h : arg_specs) {
    const py::tuple t = py::cast<py::tuple>(h);
    if (t.size() < 1) throw py::value_error("an empty argument spec");
    ArgSpec s;
    const int kind = py::cast<int>(t[0]);
    if (kind == ArgSpec::kArray && t.size() == 3) {
      s.kind = ArgSpec::kArray;
      s.shape = ShapeOf(t[1]);
      DTypeOf(t[2].ptr());
      s.descr.reset(NewRef(t[2]));
    } else if ((kind == ArgSpec::kFloat || kind == ArgSpec::kBool) && t.size() == 1) {
      s.kind = static_cast<ArgSpec::Kind>(kind);
    } else if (kind == ArgSpec::kNumber && t.size() == 2) {
      // A built-in numeric or bool type (no user dtype, whose scalars
      // PyArray_ScalarAsCtype may not read; none wider than 8 bytes).
      s.kind = ArgSpec::kNumber;
      DTypeOf(t[1].ptr());
      PyArray_Descr* d = reinterpret_cast<PyArray_Descr*>(t[1].ptr());
      if (!(d->type_num == NPY_BOOL || PyTypeNum_ISINTEGER(d->type_num) ||
            d->type_num == NPY_HALF || d->type_num == NPY_FLOAT || d->type_num == NPY_DOUBLE) ||
          d->elsize > 8) {
        throw py::type_error("a NumPy scalar spec's dtype must be a built-in bool, int or float");
      }
      s.descr.reset(NewRef(t[1]));
      s.type.reset(NewRef(reinterpret_cast<PyObject*>(d->typeobj)));
    } else if (kind == ArgSpec::kInt && t.size() == 3) {
      s.kind = ArgSpec::kInt;
      s.negative = py::cast<bool>(t[1]);
      s.bits = py::cast<int>(t[2]);
      if (s.bits < 0 || s.bits > 63) throw py::value_error("an int spec's bits out of range");
    } else {
      throw py::value_error(
          "an argument spec is (0, shape, dtype), (1,), (2,), (3, neg, bits) or (4, dtype)");
    }
    e->args.push_back(std::move(s));
  }
  const int nargs = static_cast<int>(e->args.size());
  const auto arg_index = [&](py::handle h) {
    const int i = py::cast<int>(h);
    if (i < -1 || i >= nargs) throw py::value_error("an argument index out of range");
    return i;
  };
  for (py::handle h : scalars) {
    const py::tuple t = py::cast<py::tuple>(h);
    if (t.size() != 2) throw py::value_error("a scalar spec is (arg, constant)");
    ScalarSpec s;
    s.arg = arg_index(t[0]);
    if (s.arg >= 0) {
      const ArgSpec::Kind k = e->args[static_cast<size_t>(s.arg)].kind;
      if (k == ArgSpec::kArray || k == ArgSpec::kNumber) {
        throw py::value_error("a scalar read from an array argument");
      }
    } else {
      PyObject* c = t[1].ptr();
      bool negative;
      int bits;
      if (!PyFloat_CheckExact(c) && !PyBool_Check(c) &&
          !(PyLong_CheckExact(c) && IntKey(c, &negative, &bits))) {
        throw py::type_error("a constant scalar must be a Python bool, float or int below 2**63");
      }
      s.constant.reset(NewRef(t[1]));
    }
    e->scalars.push_back(std::move(s));
  }
  for (py::handle h : inputs) {
    const py::tuple t = py::cast<py::tuple>(h);
    if (t.size() != 3) throw py::value_error("an input spec is (arg, constant, axes)");
    InputSpec in;
    in.arg = arg_index(t[0]);
    if (in.arg >= 0) {
      const ArgSpec& s = e->args[static_cast<size_t>(in.arg)];
      if (s.kind != ArgSpec::kArray && s.kind != ArgSpec::kNumber) {
        throw py::value_error("an input read from a scalar argument");
      }
      if (s.kind == ArgSpec::kNumber) in.number = static_cast<int>(e->numbers++);
      in.shape = s.shape;  // empty for kNumber: a 0-d operand
      in.descr.reset(NewRef(s.descr.get()));
    } else {
      if (!PyArray_CheckExact(t[1].ptr())) throw py::type_error("a constant input must be an ndarray");
      PyArrayObject* a = reinterpret_cast<PyArrayObject*>(t[1].ptr());
      in.constant.reset(NewRef(t[1]));
      in.descr.reset(NewRef(reinterpret_cast<PyObject*>(PyArray_DESCR(a))));
      in.shape.assign(PyArray_DIMS(a), PyArray_DIMS(a) + PyArray_NDIM(a));
    }
    FusedView v;
    v.dtype = DTypeOf(in.descr.get());
    if (t[2].is_none()) {
      if (in.shape != program_shape) throw py::value_error("an input's shape is not the program's");
    } else {
      in.broadcast = true;
      size_t j = 0;
      int last = -1;
      for (py::handle x : py::cast<py::tuple>(t[2])) {
        const int axis = py::cast<int>(x);
        while (j < in.shape.size() && in.shape[j] == 1) ++j;
        if (axis <= last || axis >= p.ndim || j == in.shape.size() ||
            in.shape[j] != p.shape[axis]) {
          throw py::value_error("an input's axes do not place it in the program's shape");
        }
        in.axes.push_back(axis);
        last = axis;
        ++j;
      }
      while (j < in.shape.size() && in.shape[j] == 1) ++j;
      if (j != in.shape.size()) throw py::value_error("an input has more dimensions than axes");
    }
    p.inputs.push_back(v);
    e->inputs.push_back(std::move(in));
  }
  const size_t nout = outputs.size();
  if (nout < 1 || (!tuple_result && nout != 1)) throw py::value_error("a program needs its outputs");
  std::vector<bool> placed(nout, false);
  for (py::handle h : outputs) {
    const py::tuple t = py::cast<py::tuple>(h);
    if (t.size() != 2) throw py::value_error("an output spec is (dtype, position)");
    PyArray_Descr* descr = nullptr;
    if (!PyArray_DescrConverter(t[0].ptr(), &descr)) throw py::error_already_set();
    e->out_descrs.emplace_back(reinterpret_cast<PyObject*>(descr));
    FusedView v;
    v.dtype = DTypeOf(reinterpret_cast<PyObject*>(descr));
    p.outputs.push_back(v);
    const int64_t pos = py::cast<int64_t>(t[1]);
    if (pos < 0 || pos >= static_cast<int64_t>(nout) || placed[static_cast<size_t>(pos)]) {
      throw py::value_error("output positions must be a permutation");
    }
    placed[static_cast<size_t>(pos)] = true;
    e->positions.push_back(static_cast<int>(pos));
  }
  e->table = &Kernels();  // what ParseSteps makes the steps' kernels from
  ParseSteps(steps, static_cast<int64_t>(e->scalars.size()), &p, &e->uses);
  std::vector<int> writes(nout, 0);
  for (const FusedStep& s : p.steps) {
    if (s.dest_output) ++writes[static_cast<size_t>(s.dest)];
  }
  for (int w : writes) {
    if (w != 1) throw py::value_error("every output must be written by exactly one step");
  }
  e->tuple_result = tuple_result;
  size_t last_step = 0;
  for (py::handle h : reports) {
    const py::tuple t = py::cast<py::tuple>(h);
    if (t.size() != 4) throw py::value_error("a report spec is (step, fn, args, kwargs)");
    Report r;
    const int64_t step = py::cast<int64_t>(t[0]);
    if (step < 0 || step >= static_cast<int64_t>(p.steps.size()) ||
        (!e->reports.empty() && static_cast<size_t>(step) <= last_step)) {
      throw py::value_error("report steps must be steps of the program, in order");
    }
    if (!PyCallable_Check(t[1].ptr()) || !PyTuple_Check(t[2].ptr()) ||
        !(t[3].is_none() || PyDict_Check(t[3].ptr()))) {
      throw py::type_error("a report is a callable, a tuple and a dict or None");
    }
    r.step = last_step = static_cast<size_t>(step);
    r.fn.reset(NewRef(t[1]));
    r.args.reset(NewRef(t[2]));
    if (!t[3].is_none()) r.kwargs.reset(NewRef(t[3]));
    e->reports.push_back(std::move(r));
  }
  for (const FusedView& v : p.inputs) e->bytes_per_element += ItemSize(v.dtype);
  for (const FusedView& v : p.outputs) e->bytes_per_element += ItemSize(v.dtype);

  auto& entries = *f->entries;
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (SameArgs(**it, *e)) {
      entries.erase(it);
      break;
    }
  }
  if (entries.size() >= kMaxEntries) entries.erase(entries.begin());
  entries.push_back(std::move(e));
}

void FuseForget(py::handle door) { Door(door)->entries->clear(); }

size_t FuseEntries(py::handle door) { return Door(door)->entries->size(); }

size_t FuseChains(py::handle door) {
  size_t n = 0;
  for (const auto& e : *Door(door)->entries) n += e->program.chain != nullptr;
  return n;
}

bool InitFusedType(PyObject* module) {
  g_type.tp_name = "eltwise._FusedFunction";
  g_type.tp_doc = "A fused function (see help(eltwise.fuse)).";
  g_type.tp_basicsize = sizeof(FusedObject);
  g_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  g_type.tp_vectorcall_offset = offsetof(FusedObject, vectorcall);
  g_type.tp_dictoffset = offsetof(FusedObject, dict);
  g_type.tp_weaklistoffset = offsetof(FusedObject, weakrefs);
  g_type.tp_call = &PyVectorcall_Call;
  g_type.tp_new = &New;
  g_type.tp_dealloc = &Dealloc;
  g_type.tp_traverse = &Traverse;
  g_type.tp_clear = &Clear;
  g_type.tp_repr = &Repr;
  g_type.tp_getattro = &GetAttr;
  g_type.tp_descr_get = &DescrGet;
  g_type.tp_methods = kMethods;
  g_type.tp_getset = kGetSet;
  if (PyType_Ready(&g_type) != 0) return false;
  Py_INCREF(&g_type);
  if (PyModule_AddObject(module, "_FusedFunction", reinterpret_cast<PyObject*>(&g_type)) != 0) {
    Py_DECREF(&g_type);
    return false;
  }
  return true;
}

}  // namespace eltwise
