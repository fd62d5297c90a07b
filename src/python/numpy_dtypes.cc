#include "python/numpy_dtypes.h"

namespace eltwise {
namespace {

constexpr int kAbsent = -2;
// Each dtype row's NumPy type number, kAbsent where its module or attribute
// is missing (eltwise then does not take that dtype). Filled by InitDTypes.
int g_type_num[kNumDTypes];
// For each builtin NumPy type number, the row eltwise computes it in, or -1.
// By kind and size, not by number: NumPy's long and longlong are both int64.
int g_builtin_row[NPY_NTYPES_LEGACY];

char KindChar(DCategory c) {
  switch (c) {
    case DCategory::kBool: return 'b';
    case DCategory::kSigned: return 'i';
    case DCategory::kUnsigned: return 'u';
    default: return 'f';
  }
}

// The dtype object that names row `t` (a new reference), or nullptr.
PyObject* DTypeSpec(const DTypeTraits& t, Ref* ml_dtypes) {
  if (t.source == DSource::kNumpy) return PyUnicode_FromString(t.name);
  if (!*ml_dtypes) ml_dtypes->reset(PyImport_ImportModule("ml_dtypes"));
  return *ml_dtypes ? PyObject_GetAttrString(ml_dtypes->get(), t.name) : nullptr;
}

}  // namespace

void InitDTypes() {
  Ref ml_dtypes;
  for (int i = 0; i < kNumDTypes; ++i) {
    g_type_num[i] = kAbsent;
    Ref spec(DTypeSpec(kDTypeTraits[i], &ml_dtypes));
    PyArray_Descr* d = nullptr;
    if (spec && PyArray_DescrConverter(spec.get(), &d)) {
      g_type_num[i] = d->type_num;
      Py_DECREF(d);
    }
    PyErr_Clear();
  }
  for (int n = 0; n < NPY_NTYPES_LEGACY; ++n) {
    g_builtin_row[n] = -1;
    PyArray_Descr* d = PyArray_DescrFromType(n);
    if (!d) { PyErr_Clear(); continue; }
    for (int i = 0; i < kNumDTypes; ++i) {
      const DTypeTraits& t = kDTypeTraits[i];
      if (t.source == DSource::kNumpy && KindChar(t.category) == d->kind &&
          static_cast<npy_intp>(t.item_size) == PyDataType_ELSIZE(d)) {
        g_builtin_row[n] = i;
      }
    }
    Py_DECREF(d);
  }
}

bool ToDType(PyArray_Descr* d, DType* out) {
  const int n = d->type_num;
  int row = -1;
  if (n >= 0 && n < NPY_NTYPES_LEGACY) {
    row = g_builtin_row[n];
  } else {
    for (int i = 0; i < kNumDTypes; ++i) {
      if (kDTypeTraits[i].source != DSource::kNumpy && g_type_num[i] == n) row = i;
    }
  }
  if (row < 0) return false;
  *out = static_cast<DType>(row);
  return true;
}

bool HasDType(DType t) { return g_type_num[static_cast<int>(t)] != kAbsent; }

int TypeNum(DType t) { return g_type_num[static_cast<int>(t)]; }

PyArray_Descr* DescrOf(DType t) {
  if (!HasDType(t)) {
    PyErr_Format(PyExc_TypeError, "dtype %s is unavailable (its module did not import)",
                 Traits(t).name);
    return nullptr;
  }
  return PyArray_DescrFromType(g_type_num[static_cast<int>(t)]);
}

PyObject* TypeErrorDType(const FunctionInfo& f, PyArray_Descr* d) {
  PyErr_Format(PyExc_TypeError, "eltwise.%s does not support dtype %S", f.name,
               reinterpret_cast<PyObject*>(d));
  return nullptr;
}

}  // namespace eltwise
