// Where eltwise's fresh results live: large ones come from core/buffer_pool.h
// through NumPy's memory-handler API (NEP 49), so a result freed by Python is
// reused by the next result of a fitting size without new page faults.
// Only eltwise's own fresh results on the fast door use it; NumPy's
// allocations keep NumPy's handler.
#ifndef ELTWISE_PYTHON_RESULT_MEMORY_H_
#define ELTWISE_PYTHON_RESULT_MEMORY_H_

#include <cstddef>
#include <string>

#include "python/numpy_dtypes.h"

namespace eltwise {

// Makes the handler capsule (at import); false with a Python error set.
bool InitResultMemory();

// While alive, NumPy allocates array data through the pool, when the result
// has at least kPoolMinBytes and the pool's limit is not 0 (smaller results
// pay nothing); the previous handler comes back at the end of the scope.
// Arrays made inside keep the handler and free their data through it.
class ResultMemoryScope {
 public:
  explicit ResultMemoryScope(size_t result_bytes);
  ~ResultMemoryScope();
  ResultMemoryScope(const ResultMemoryScope&) = delete;
  ResultMemoryScope& operator=(const ResultMemoryScope&) = delete;
  // When `result` (made in the scope) got new pages from the pool, faults
  // them in on the worker threads, without the GIL: a kernel that then
  // writes them runs at the speed of memory (about 15% faster in all).
  void TouchFreshPages(PyArrayObject* result, size_t bytes) const;

 private:
  PyObject* previous_ = nullptr;  // the handler to restore, when one was set
};

// Whether TouchFreshPages touches (default true); for measurements.
void SetFirstTouch(bool on);

// One line for show_config(): what the pool holds and its limit.
std::string ResultMemoryText();

}  // namespace eltwise

#endif  // ELTWISE_PYTHON_RESULT_MEMORY_H_
