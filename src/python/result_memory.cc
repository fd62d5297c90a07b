#include "python/result_memory.h"

#include <pthread.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "core/thread_pool.h"

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

// Made while the extension loads, before any thread can use it or fork;
// leaked: arrays may be freed during interpreter exit.
Pool* const g_pool = new Pool();
Pool& ThePool() { return *g_pool; }

// The lock is held across fork, so that the child's copy of the kept blocks
// is whole (no thread is halfway through Malloc or Free), and released in
// parent and child (the child's one thread is the one that locked it).
struct ForkHandlers {
  ForkHandlers() {
    pthread_atfork([] { g_pool->mutex.lock(); }, [] { g_pool->mutex.unlock(); },
                   [] { g_pool->mutex.unlock(); });
  }
} g_fork_handlers;

void FreeBlock(void* data) { std::free(static_cast<char*>(data) - kHeader); }

// Whether this thread's last Malloc took new memory (NewResultArray reads it).
thread_local bool t_new_pages = false;

// As NumPy's default allocator does from 4 MiB: transparent huge pages take
// 512 times fewer page faults (and TLB misses) when the kernel's THP mode is
// "madvise". Only whole pages inside the block; failure (no THP) is harmless.
constexpr size_t kHugePagesFrom = size_t{4} << 20;
void AdviseHugePages(char* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugePagesFrom) return;
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data, (void)bytes;
#endif
}

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
  t_new_pages = true;
  // A multiple of 64 bytes, as aligned_alloc wants.
  const size_t capacity = (size + 63) & ~size_t{63};
  if (capacity < size) return nullptr;
  char* block = static_cast<char*>(std::aligned_alloc(64, kHeader + capacity));
  if (!block) return nullptr;
  char* data = block + kHeader;
  *HeaderOf(data) = Header{capacity, size};
  AdviseHugePages(data, capacity);
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

bool PoolOn() {
  Pool& p = ThePool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.limit != 0;
}

}  // namespace

PyObject* NewResultArray(PyArray_Descr* descr, int nd, npy_intp* dims, npy_intp* strides,
                         bool* new_pages) {
  *new_pages = false;
  size_t bytes = PyDataType_ELSIZE(descr);
  for (int i = 0; i < nd; ++i) bytes *= static_cast<size_t>(dims[i]);  // NumPy checks overflow
  // Limit 0: NumPy's own allocator (which also asks for huge pages).
  PyObject* capsule = bytes >= kPooledResultBytes && PoolOn() ? HandlerCapsule() : nullptr;
  if (!capsule) {
    if (bytes >= kPooledResultBytes) PyErr_Clear();  // no capsule: NumPy's memory
    return PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, strides, nullptr, 0, nullptr);
  }
  t_new_pages = false;
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
  *new_pages = a && t_new_pages;
  return a;
}

namespace {
struct FaultInWork {
  char* data;
  size_t bytes;
  std::atomic<size_t> next{0};
};
constexpr size_t kFaultInChunk = size_t{2} << 20;  // a huge page: faulted by one thread
// From this size the fault-in wakes dozing and sleeping workers (a wake-up
// costs the caller more than 10 us; faulting 4 MiB of pages costs hundreds).
constexpr size_t kFaultInWakeBytes = size_t{4} << 20;

void FaultInTask(void* ctx) {
  FaultInWork& w = *static_cast<FaultInWork*>(ctx);
  for (;;) {
    const size_t begin = w.next.fetch_add(kFaultInChunk, std::memory_order_relaxed);
    if (begin >= w.bytes) return;
    const size_t end = std::min(w.bytes, begin + kFaultInChunk);
    // volatile: the store must happen although the computation overwrites it.
    for (size_t i = begin; i < end; i += 4096) static_cast<volatile char*>(w.data)[i] = 0;
  }
}
}  // namespace

void FaultInPages(void* data, size_t bytes) {
  FaultInWork w;
  w.data = static_cast<char*>(data);
  w.bytes = bytes;
  ThreadPool::Get().Run(&FaultInTask, &w, bytes >= kFaultInWakeBytes);
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
