#include "python/function_object.h"

#include <cstddef>

#include "python/binary_call.h"

namespace eltwise {
namespace {

struct FunctionObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  const FunctionInfo* info;
  PyObject* name;  // str
  PyObject* doc;   // str
  PyObject* twin;  // the numpy.ufunc
  PyObject* dict;  // __dict__ (__signature__ lives here)
};

FunctionObject* AsFunction(PyObject* o) { return reinterpret_cast<FunctionObject*>(o); }

PyObject* Vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  return BinaryCall(*AsFunction(self)->info, args, PyVectorcall_NARGS(nargsf), kwnames);
}

void Dealloc(PyObject* self) {
  FunctionObject* f = AsFunction(self);
  PyObject_GC_UnTrack(self);
  Py_CLEAR(f->name);
  Py_CLEAR(f->doc);
  Py_CLEAR(f->twin);
  Py_CLEAR(f->dict);
  Py_TYPE(self)->tp_free(self);
}

int Traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(AsFunction(self)->twin);
  Py_VISIT(AsFunction(self)->dict);
  return 0;
}

int Clear(PyObject* self) {
  Py_CLEAR(AsFunction(self)->twin);
  Py_CLEAR(AsFunction(self)->dict);
  return 0;
}

PyObject* Repr(PyObject* self) {
  return PyUnicode_FromFormat("<eltwise function %R>", AsFunction(self)->name);
}

// Attributes of its own first; then the twin's public ones (reduce, outer,
// nin, types, ...), so the obvious spelling works on the fast door.
PyObject* GetAttr(PyObject* self, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr(self, name);
  if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
  FunctionObject* f = AsFunction(self);
  if (!f->twin || !PyUnicode_Check(name) || PyUnicode_GET_LENGTH(name) == 0 ||
      PyUnicode_READ_CHAR(name, 0) == '_') {
    return nullptr;
  }
  PyErr_Clear();
  return PyObject_GetAttr(f->twin, name);
}

// Pickles by name: the global eltwise.<name>, this very object.
PyObject* Reduce(PyObject* self, PyObject*) {
  Py_INCREF(AsFunction(self)->name);
  return AsFunction(self)->name;
}

PyObject* GetName(PyObject* self, void*) {
  Py_INCREF(AsFunction(self)->name);
  return AsFunction(self)->name;
}

PyObject* GetDoc(PyObject* self, void*) {
  Py_INCREF(AsFunction(self)->doc);
  return AsFunction(self)->doc;
}

PyObject* GetModule(PyObject*, void*) { return PyUnicode_FromString("eltwise"); }

PyObject* GetUfunc(PyObject* self, void*) {
  PyObject* t = AsFunction(self)->twin ? AsFunction(self)->twin : Py_None;
  Py_INCREF(t);
  return t;
}

PyMethodDef kMethods[] = {
    {"__reduce__", &Reduce, METH_NOARGS, "Pickles the function by its name."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef kGetSet[] = {
    {"__name__", &GetName, nullptr, "The function's name.", nullptr},
    {"__qualname__", &GetName, nullptr, "The function's name.", nullptr},
    {"__module__", &GetModule, nullptr, "'eltwise'.", nullptr},
    {"__doc__", &GetDoc, nullptr, nullptr, nullptr},
    {"ufunc", &GetUfunc, nullptr, "The numpy.ufunc twin (eltwise.ufunc.<name>).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyTypeObject g_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

}  // namespace

bool InitFunctionType() {
  g_type.tp_name = "eltwise.Function";
  g_type.tp_doc = "An eltwise binary function (see help(eltwise.divide)).";
  g_type.tp_basicsize = sizeof(FunctionObject);
  g_type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  g_type.tp_vectorcall_offset = offsetof(FunctionObject, vectorcall);
  g_type.tp_dictoffset = offsetof(FunctionObject, dict);
  g_type.tp_call = &PyVectorcall_Call;
  g_type.tp_dealloc = &Dealloc;
  g_type.tp_traverse = &Traverse;
  g_type.tp_clear = &Clear;
  g_type.tp_repr = &Repr;
  g_type.tp_getattro = &GetAttr;
  g_type.tp_methods = kMethods;
  g_type.tp_getset = kGetSet;
  return PyType_Ready(&g_type) == 0;
}

PyObject* MakeFunctionObject(const FunctionInfo& f, PyObject* doc, PyObject* twin) {
  FunctionObject* o = PyObject_GC_New(FunctionObject, &g_type);
  if (!o) return nullptr;
  o->vectorcall = &Vectorcall;
  o->info = &f;
  o->name = PyUnicode_FromString(f.name);
  o->doc = doc;
  Py_INCREF(doc);
  o->twin = twin;
  Py_XINCREF(twin);
  o->dict = nullptr;
  PyObject_GC_Track(reinterpret_cast<PyObject*>(o));
  if (!o->name) {
    Py_DECREF(o);
    return nullptr;
  }
  return reinterpret_cast<PyObject*>(o);
}

}  // namespace eltwise
