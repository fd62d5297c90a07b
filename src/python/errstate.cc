#include "python/errstate.h"

namespace eltwise {

bool ReportDivideByZero(const FunctionInfo& f) {
  // NumPy's own handler: its message ("divide by zero encountered in divide"),
  // its warning category and every errstate mode, exactly as for its ufuncs.
  return PyUFunc_GiveFloatingpointErrors(f.name, NPY_FPE_DIVIDEBYZERO) == 0;
}

bool DivideRaises() {
  static PyObject* geterr = nullptr;  // numpy.geterr, looked up once
  if (!geterr) {
    Ref np(PyImport_ImportModule("numpy"));
    geterr = np ? PyObject_GetAttrString(np.get(), "geterr") : nullptr;
    if (!geterr) { PyErr_Clear(); return false; }
  }
  Ref state(PyObject_CallNoArgs(geterr));
  PyObject* mode = state && PyDict_Check(state.get())
                       ? PyDict_GetItemString(state.get(), "divide") : nullptr;
  const bool raises = mode && PyUnicode_Check(mode) &&
                      PyUnicode_CompareWithASCIIString(mode, "raise") == 0;
  PyErr_Clear();
  return raises;
}

}  // namespace eltwise
