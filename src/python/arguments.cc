#include "python/arguments.h"

#include <cstring>

namespace eltwise {
namespace {

enum Keyword { kOut, kBroadcast, kAxis, kPythondiv, kDtype, kNumKeywords };
constexpr const char* kKeywordNames[kNumKeywords] = {"out", "broadcast", "axis", "pythondiv",
                                                     "dtype"};
PyObject* g_keywords[kNumKeywords];  // interned

// Which keyword `key` names, or -1. Whole strings are compared (a name with
// an embedded NUL or a lone surrogate is just unknown); the interned pointer
// makes the usual case one comparison.
int KeywordOf(PyObject* key) {
  for (int k = 0; k < kNumKeywords; ++k) {
    if (key == g_keywords[k]) return k;
  }
  for (int k = 0; k < kNumKeywords; ++k) {
    const int c = PyUnicode_Compare(key, g_keywords[k]);
    if (c == 0) return k;
    if (c == -1 && PyErr_Occurred()) PyErr_Clear();
  }
  return -1;
}

// The broadcast mode a string names, any case; false if none. Only ASCII
// strings can name one, so non-ASCII text never needs encoding.
bool ModeOf(PyObject* v, BroadcastMode* mode) {
  if (!PyUnicode_Check(v) || !PyUnicode_IS_ASCII(v)) return false;
  const Py_ssize_t n = PyUnicode_GET_LENGTH(v);
  if (n > 8) return false;
  char s[8];
  const char* data = reinterpret_cast<const char*>(PyUnicode_1BYTE_DATA(v));
  for (Py_ssize_t i = 0; i < n; ++i) {
    const char c = data[i];
    s[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  }
  const auto is = [&](const char* word) {
    return std::strlen(word) == static_cast<size_t>(n) && std::memcmp(s, word, n) == 0;
  };
  if (is("numpy")) { *mode = BroadcastMode::kNumpy; return true; }
  if (is("none") || is("explicit")) { *mode = BroadcastMode::kNone; return true; }
  if (is("pdpd")) { *mode = BroadcastMode::kPdpd; return true; }
  return false;
}

bool ParseBroadcast(const FunctionInfo& f, PyObject* v, BroadcastMode* mode) {
  if (v == Py_None) { *mode = BroadcastMode::kNumpy; return true; }
  if (ModeOf(v, mode)) return true;
  PyErr_Format(PyExc_ValueError,
               "eltwise.%s: broadcast must be 'numpy', 'none' (or 'explicit') or 'pdpd', got %R",
               f.name, v);
  return false;
}

// axis: anything with __index__ (as NumPy), not bool.
bool ParseAxis(const FunctionInfo& f, PyObject* v, int64_t* axis) {
  if (PyBool_Check(v) || PyArray_IsScalar(v, Bool)) {
    PyErr_Format(PyExc_TypeError, "eltwise.%s: axis must be an integer, got %R", f.name, v);
    return false;
  }
  Ref index(PyNumber_Index(v));
  if (!index) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "eltwise.%s: axis must be an integer, got %s", f.name,
                 Py_TYPE(v)->tp_name);
    return false;
  }
  int overflow = 0;
  const long long a = PyLong_AsLongLongAndOverflow(index.get(), &overflow);
  if (overflow != 0) {
    PyErr_Format(PyExc_ValueError, "eltwise.%s: axis=%R is out of range", f.name, index.get());
    return false;
  }
  if (a == -1 && PyErr_Occurred()) return false;
  *axis = a;
  return true;
}

// pythondiv: a bool (Python's or NumPy's); None is the default.
bool ParsePythondiv(const FunctionInfo& f, PyObject* v, bool* pythondiv) {
  if (v == Py_None) return true;
  if (PyBool_Check(v) || PyArray_IsScalar(v, Bool)) {
    *pythondiv = PyObject_IsTrue(v) == 1;
    return true;
  }
  PyErr_Format(PyExc_TypeError, "eltwise.%s: pythondiv must be a bool, got %s", f.name,
               Py_TYPE(v)->tp_name);
  return false;
}

// out: an ndarray, None, or a 1-tuple of either.
bool ParseOut(const FunctionInfo& f, PyObject* v, Options* o) {
  if (v && PyTuple_Check(v)) {
    if (PyTuple_GET_SIZE(v) != 1) {
      PyErr_Format(PyExc_ValueError,
                   "eltwise.%s: out must be an array or a tuple of one array, got a tuple of %zd",
                   f.name, PyTuple_GET_SIZE(v));
      return false;
    }
    v = PyTuple_GET_ITEM(v, 0);
  }
  if (v == Py_None) return true;
  if (!PyArray_Check(v)) {
    PyErr_Format(PyExc_TypeError, "eltwise.%s: out must be a numpy.ndarray, got %s", f.name,
                 Py_TYPE(v)->tp_name);
    return false;
  }
  o->out = reinterpret_cast<PyArrayObject*>(v);
  return true;
}

}  // namespace

bool InitArguments() {
  for (int k = 0; k < kNumKeywords; ++k) {
    g_keywords[k] = PyUnicode_InternFromString(kKeywordNames[k]);
    if (!g_keywords[k]) return false;
  }
  return true;
}

bool ParseArguments(const FunctionInfo& f, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, Options* o) {
  if (nargs < 2 || nargs > 3) {
    PyErr_Format(PyExc_TypeError, "%s() takes from 2 to 3 positional arguments but %zd were given",
                 f.name, nargs);
    return false;
  }
  o->x1 = args[0];
  o->x2 = args[1];
  PyObject* out = nargs == 3 ? args[2] : nullptr;
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, i);
    PyObject* v = args[nargs + i];
    int k = KeywordOf(key);
    if (k == kPythondiv && !f.pythondiv) k = -1;
    switch (k) {
      case kOut:
        if (out) {
          PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument 'out'", f.name);
          return false;
        }
        out = v;
        break;
      case kBroadcast:
        if (!ParseBroadcast(f, v, &o->mode)) return false;
        break;
      case kAxis:
        if (!ParseAxis(f, v, &o->axis)) return false;
        break;
      case kPythondiv:
        if (!ParsePythondiv(f, v, &o->pythondiv)) return false;
        break;
      case kDtype:
        if (v != Py_None && !PyArray_DescrConverter(v, &o->dtype)) {
          // NumPy encodes a str it does not know (UnicodeEncodeError for a lone
          // surrogate): any such text is a dtype not understood.
          if (PyErr_ExceptionMatches(PyExc_UnicodeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "eltwise.%s: data type %R not understood", f.name, v);
          }
          return false;
        }
        break;
      default:
        PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", f.name, key);
        return false;
    }
  }
  if (out && !ParseOut(f, out, o)) return false;
  if (o->axis != -1 && o->mode != BroadcastMode::kPdpd) {
    PyErr_Format(PyExc_ValueError, "eltwise.%s: axis=%lld needs broadcast='pdpd'", f.name,
                 static_cast<long long>(o->axis));
    return false;
  }
  return true;
}

}  // namespace eltwise
