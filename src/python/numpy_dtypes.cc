#include "python/numpy_dtypes.h"

namespace eltwise {
namespace {

int g_bfloat16_num = -2;  // ml_dtypes.bfloat16's type number; -2: absent

constexpr int kNpyTypes[kNumDTypes] = {
    NPY_BOOL, NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64, NPY_UINT8, NPY_UINT16,
    NPY_UINT32, NPY_UINT64, NPY_HALF, -1 /* bfloat16 */, NPY_FLOAT32, NPY_FLOAT64};

}  // namespace

void InitBFloat16() {
  Ref ml(PyImport_ImportModule("ml_dtypes"));
  Ref bf16(ml ? PyObject_GetAttrString(ml.get(), "bfloat16") : nullptr);
  PyArray_Descr* d = nullptr;
  if (bf16 && PyArray_DescrConverter(bf16.get(), &d)) {
    g_bfloat16_num = d->type_num;
    Py_DECREF(d);
  }
  PyErr_Clear();
}

bool ToDType(PyArray_Descr* d, DType* out) {
  if (d->type_num == g_bfloat16_num) { *out = DType::kBF16; return true; }
  // Built-in numeric types only: a user dtype of kind 'f' (float8, say) is not ours.
  if (d->type_num >= NPY_NTYPES_LEGACY) return false;
  const npy_intp size = PyDataType_ELSIZE(d);
  switch (d->kind) {
    case 'b': *out = DType::kBool; return true;
    case 'i': case 'u': {
      const int base = d->kind == 'i' ? static_cast<int>(DType::kI8) : static_cast<int>(DType::kU8);
      const int step = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
      if (step < 0) return false;
      *out = static_cast<DType>(base + step);
      return true;
    }
    case 'f':
      if (size == 2) { *out = DType::kF16; return true; }
      if (size == 4) { *out = DType::kF32; return true; }
      if (size == 8) { *out = DType::kF64; return true; }
      return false;
    default:
      return false;
  }
}

PyArray_Descr* DescrOf(DType t) {
  const int num = t == DType::kBF16 ? g_bfloat16_num : kNpyTypes[static_cast<int>(t)];
  return PyArray_DescrFromType(num);
}

PyObject* TypeErrorDType(const FunctionInfo& f, PyArray_Descr* d) {
  PyErr_Format(PyExc_TypeError, "eltwise.%s does not support dtype %S", f.name,
               reinterpret_cast<PyObject*>(d));
  return nullptr;
}

}  // namespace eltwise
