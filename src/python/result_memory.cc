#include "python/result_memory.h"

#include <pthread.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

namespace eltwise {
namespace {

// Every block carries a header before the array's data: its capacity (what
// was allocated) and the size asked for when it was handed out. 64 bytes keep
// the data 64-byte aligned.
constexpr size_t kHeader = 64;
struct Header {
  size_t capacity;
  size_t requested;
};

Header* HeaderOf(void* data) { return reinterpret_cast<Header*>(static_cast<char*>(data) - kHeader); }

// The pool: kept blocks by capacity. Invariant: held + excess <= limit, where
// excess is what live arrays hold beyond what they asked for (a kept block is
// reused for a request down to half its capacity), so that at peak eltwise's
// results use at most `limit` bytes more than NumPy's would.
struct Pool {
  std::mutex mutex;
  std::multimap<size_t, void*> kept;  // capacity -> data
  size_t held = 0;
  size_t excess = 0;
  size_t limit = kDefaultResultPoolLimit;
  size_t reused = 0;
  size_t allocated = 0;
};

Pool& ThePool() {
  static Pool* pool = [] {
    Pool* p = new Pool();  // leaked: arrays may be freed during interpreter exit
    pthread_atfork(nullptr, nullptr, [] {
      // Only the forking thread lives on in the child; the lock may have been
      // held by another. The kept blocks are the child's own copies.
      new (&ThePool().mutex) std::mutex();
    });
    return p;
  }();
  return *pool;
}

void FreeBlock(void* data) { std::free(static_cast<char*>(data) - kHeader); }

// Frees kept blocks, largest first, until held + excess <= target. Called with
// the lock held; returns the bytes freed.
size_t TrimLocked(Pool& p, size_t target) {
  size_t freed = 0;
  while (!p.kept.empty() && p.held + p.excess > target) {
    auto last = std::prev(p.kept.end());
    p.held -= last->first;
    freed += last->first;
    FreeBlock(last->second);
    p.kept.erase(last);
  }
  return freed;
}

void* Malloc(void*, size_t size) {
  Pool& p = ThePool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto it = p.kept.lower_bound(size);  // the smallest block that fits
    if (it != p.kept.end() && it->first / 2 <= size) {
      void* data = it->second;
      const size_t capacity = it->first;
      p.kept.erase(it);
      p.held -= capacity;
      p.excess += capacity - size;
      ++p.reused;
      HeaderOf(data)->requested = size;
      return data;
    }
    ++p.allocated;
  }
  // A multiple of 64 bytes, as aligned_alloc wants.
  const size_t capacity = (size + 63) & ~size_t{63};
  if (capacity < size) return nullptr;
  char* block = static_cast<char*>(std::aligned_alloc(64, kHeader + capacity));
  if (!block) return nullptr;
  char* data = block + kHeader;
  *HeaderOf(data) = Header{capacity, size};
  return data;
}

void* Calloc(void* ctx, size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) return nullptr;
  void* data = Malloc(ctx, bytes);
  if (data) memset(data, 0, bytes);
  return data;
}

void Free(void*, void* data, size_t) {
  if (!data) return;
  Pool& p = ThePool();
  const Header h = *HeaderOf(data);
  std::lock_guard<std::mutex> lock(p.mutex);
  p.excess -= h.capacity - h.requested;
  if (p.held + h.capacity + p.excess <= p.limit) {
    p.kept.emplace(h.capacity, data);
    p.held += h.capacity;
  } else {
    FreeBlock(data);
  }
}

void* Realloc(void* ctx, void* data, size_t size) {
  if (!data) return Malloc(ctx, size);
  void* fresh = Malloc(ctx, size);
  if (!fresh) return nullptr;
  const Header h = *HeaderOf(data);
  memcpy(fresh, data, h.requested < size ? h.requested : size);
  Free(ctx, data, h.requested);
  return fresh;
}

PyDataMem_Handler g_handler = {
    "eltwise_result_pool",
    1,
    {nullptr, &Malloc, &Calloc, &Realloc, &Free},
};

// The handler's capsule (NumPy's required name), made once and kept.
PyObject* HandlerCapsule() {
  static PyObject* capsule = PyCapsule_New(&g_handler, "mem_handler", nullptr);
  return capsule;
}

}  // namespace

PyObject* NewResultArray(PyArray_Descr* descr, int nd, npy_intp* dims, npy_intp* strides) {
  size_t bytes = PyDataType_ELSIZE(descr);
  for (int i = 0; i < nd; ++i) bytes *= static_cast<size_t>(dims[i]);  // NumPy checks overflow
  PyObject* capsule = bytes >= kPooledResultBytes ? HandlerCapsule() : nullptr;
  if (!capsule) {
    if (bytes >= kPooledResultBytes) PyErr_Clear();  // no capsule: NumPy's memory
    return PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, strides, nullptr, 0, nullptr);
  }
  // The handler is a context variable: set it around this allocation only;
  // the array keeps its handler and frees through it.
  PyObject* previous = PyDataMem_SetHandler(capsule);
  if (!previous) {
    Py_DECREF(descr);
    return nullptr;
  }
  PyObject* a = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, strides, nullptr, 0, nullptr);
  PyObject* restored = PyDataMem_SetHandler(previous);
  Py_DECREF(previous);
  if (!restored) {
    Py_XDECREF(a);
    return nullptr;
  }
  Py_DECREF(restored);
  return a;
}

ResultPoolStats GetResultPoolStats() {
  Pool& p = ThePool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return ResultPoolStats{p.held, p.kept.size(), p.limit, p.reused, p.allocated};
}

void SetResultPoolLimit(size_t bytes) {
  Pool& p = ThePool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.limit = bytes;
  TrimLocked(p, bytes);
}

size_t ReleaseResultPool() {
  Pool& p = ThePool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return TrimLocked(p, 0);
}

std::string ResultPoolText() {
  const ResultPoolStats s = GetResultPoolStats();
  const auto mib = [](size_t b) { return std::to_string((b + (1 << 19)) >> 20) + " MiB"; };
  return mib(s.held_bytes) + " held in " + std::to_string(s.held_buffers) + " buffers, limit " +
         mib(s.limit_bytes);
}

}  // namespace eltwise
