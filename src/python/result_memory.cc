#include "python/result_memory.h"

#include <atomic>
#include <cstdio>

#include "core/buffer_pool.h"

namespace eltwise {
namespace {

// Whether this thread's last pooled allocation got new pages.
thread_local bool t_fresh = false;

// NumPy's allocator callbacks, on the process-wide pool. NumPy calls them
// with the GIL held, but the pool does not rely on it.
void* PoolMalloc(void*, size_t size) { return BufferPool::Get().Allocate(size, &t_fresh); }

void* PoolCalloc(void*, size_t nelem, size_t elsize) {
  if (elsize != 0 && nelem > SIZE_MAX / elsize) return nullptr;
  return BufferPool::Get().AllocateZeroed(nelem * elsize);
}

void* PoolRealloc(void*, void* ptr, size_t size) { return BufferPool::Get().Reallocate(ptr, size); }

// `size` is NumPy's idea of the block's size; the pool keeps its own.
void PoolFree(void*, void* ptr, size_t) { BufferPool::Get().Free(ptr); }

PyDataMem_Handler g_handler = {
    "eltwise_result_pool",
    1,  // the handler struct's version NumPy asks for
    {nullptr, PoolMalloc, PoolCalloc, PoolRealloc, PoolFree},
};

std::atomic<bool> g_first_touch{true};

// The capsule NumPy's arrays hold; never freed (arrays made from it may
// outlive the module).
PyObject* g_capsule = nullptr;

std::string Mebibytes(size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

}  // namespace

bool InitResultMemory() {
  g_capsule = PyCapsule_New(&g_handler, "mem_handler", nullptr);
  return g_capsule != nullptr;
}

ResultMemoryScope::ResultMemoryScope(size_t result_bytes) {
  if (result_bytes < kPoolMinBytes || !g_capsule || BufferPool::Get().limit() == 0) return;
  previous_ = PyDataMem_SetHandler(g_capsule);
  if (!previous_) PyErr_Clear();  // out of memory in the context: NumPy's handler stays
  t_fresh = false;
}

void ResultMemoryScope::TouchFreshPages(PyArrayObject* result, size_t bytes) const {
  if (!previous_ || !t_fresh || !g_first_touch.load(std::memory_order_relaxed)) return;
  Py_BEGIN_ALLOW_THREADS
  TouchPages(PyArray_BYTES(result), bytes);
  Py_END_ALLOW_THREADS
}

void SetFirstTouch(bool on) { g_first_touch.store(on); }

ResultMemoryScope::~ResultMemoryScope() {
  if (!previous_) return;
  // The allocation may have failed with an error set; keep it.
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyObject* ours = PyDataMem_SetHandler(previous_);
  if (ours) Py_DECREF(ours); else PyErr_Clear();
  Py_DECREF(previous_);
  PyErr_Restore(type, value, traceback);
}

std::string ResultMemoryText() {
  const BufferPoolStats s = BufferPool::Get().Stats();
  if (s.limit == 0) return "off (limit 0)";
  return Mebibytes(s.held_bytes) + " held in " + std::to_string(s.held_buffers) +
         " buffers, limit " + Mebibytes(s.limit) + ", results >= " + Mebibytes(kPoolMinBytes);
}

}  // namespace eltwise
